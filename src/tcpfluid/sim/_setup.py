"""Set-up of a packet run: the arrays the compiled loop of :mod:`tcpfluid.sim._core` works on,
laid out as its column constants say, and the ring buffers' sizes and growth.

Each link holds its packets, and each flow its sent-and-unacknowledged sequence numbers,
in a ring: a slice of one shared array, a power of two long, indexed by a monotone counter
modulo its capacity; :func:`grow_ring` doubles a full one (docs/simulator.md, "Memory").
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import ControlLaw
from ..scenarios import Scenario
from . import _core as C

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: the senders' fast recoveries (``simulate_packets(fast_recovery=)``) and their kernel codes
FAST_RECOVERIES = {"newreno": 0, "reno": 1, "reno-exit": 2, "ns2-vegas": 3, "ns2-fast": 4}
#: the fast recovery that only a law with Vegas's loss rule may take (ns-2's
#: ``Agent/TCP/Vegas``: :func:`tcpfluid.sim._checks.check_ns2_vegas`)
NS2_VEGAS = "ns2-vegas"


def red_params(link: Any) -> tuple[int, float, float, float, float]:
    """(discipline code, min_th, max_th, max_p, w_q) of a scenario link
    (:meth:`tcpfluid.scenarios.Link.red_parameters`)."""
    red = link.red_parameters()
    if not red:
        return 0, 0.0, 0.0, 0.0, 0.0
    return (2 if red["gentle"] else 1), red["min_th"], red["max_th"], red["max_p"], red["w_q"]


def red_rows(sc: Scenario) -> FloatArray:
    """:func:`red_params` of every link as rows ``(nl, 5)``: read from the links that are
    not plain drop-tail only (the others' rows are zero, as :func:`red_params` gives them)."""
    lt = sc.link_table
    red = np.zeros((len(lt), 5), dtype=np.float64)
    for k in sorted(lt.special):
        red[k] = red_params(lt.link(k))
    return red


def _routes(sc: Scenario) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """The link indices of the flows' data paths, of their ACK paths and of the CBR
    sources' (the flows' from the scenario's columns)."""
    ft, lt = sc.flow_table, sc.link_table

    def split(ptr: IntArray, idx: IntArray) -> list[list[int]]:
        flat, at = idx.tolist(), ptr.tolist()
        return [flat[a:b] for a, b in itertools.pairwise(at)]

    return (
        split(ft.fwd_ptr, ft.fwd_idx),
        split(ft.rev_ptr, ft.rev_idx),
        [[lt.find(n) for n in src.links] for src in sc.cbr],
    )


def route_arrays(sc: Scenario) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
    """``(paths, fi, cf, ci)``: the link indices of every path one after the other; the
    flows' integer array with the offset and length of their forward and ACK paths; the
    CBR sources' float (rate, start, stop, size) and integer (path) arrays."""
    fwd, rev, cbr = _routes(sc)
    nf, nc = len(sc.flows), len(sc.cbr)
    pkt = sc.packet_size_bytes
    paths: list[int] = []
    fi = np.zeros((nf, C.NI), dtype=np.int64)
    # each path is followed by -1: the entry after a link is the next link of the path,
    # or -1 after its last link (the compiled loop forwards a packet without its path's
    # length); ``early_receivers`` turns a data path's -1 into ``-2 - r`` (its ACK path
    # at ``paths[r]``) when its receiver takes packets early
    for f in range(nf):
        fi[f, C.I_FWD_OFF], fi[f, C.I_FWD_LEN] = len(paths), len(fwd[f])
        paths += [*fwd[f], -1]
        fi[f, C.I_REV_OFF], fi[f, C.I_REV_LEN] = len(paths), len(rev[f])
        paths += [*rev[f], -1]
    cf = np.zeros((nc, C.NCF), dtype=np.float64)
    ci = np.zeros((nc, C.NCI), dtype=np.int64)
    for c, src in enumerate(sc.cbr):
        ci[c, C.D_OFF], ci[c, C.D_LEN] = len(paths), len(cbr[c])
        paths += [*cbr[c], -1]
        cf[c, C.C_RATE] = src.rate_bps / (8.0 * pkt)
        cf[c, C.C_START], cf[c, C.C_STOP], cf[c, C.C_SIZE] = src.start_s, src.stop_s, pkt
    if len(paths) > C.MAX_PATH_ENTRIES:
        raise ValueError(
            f"the flows' and CBR sources' paths hold {len(paths) - nf * 2 - nc:,} links in "
            f"all, more than the packet simulator's limit of about {C.MAX_PATH_ENTRIES:,}"
        )
    return np.asarray(paths, dtype=np.int64), fi, cf, ci


def link_arrays(sc: Scenario) -> tuple[FloatArray, IntArray, FloatArray, IntArray, bool]:
    """``(lf, li, rf, ri, has_red)``: the links' float and integer arrays (rate, delay,
    buffer, discipline, ring offset and capacity), the link rings' float and integer rows,
    and whether any link is RED."""
    lt = sc.link_table
    nl = len(lt)
    lf = np.zeros((nl, C.NLF), dtype=np.float64)
    li = np.zeros((nl, C.NLI), dtype=np.int64)
    red = red_rows(sc)
    lf[:, C.L_RATE] = lt.rate_bps / 8.0
    lf[:, C.L_DELAY], lf[:, C.L_BUF] = lt.delay_s, lt.buffer_pkts
    lf[:, [C.L_MIN_TH, C.L_MAX_TH, C.L_MAXP, C.L_WQ]] = red[:, 1:]
    lf[:, C.L_PTC] = lt.rate_bps / (8.0 * sc.packet_size_bytes)
    li[:, C.J_DISC] = red[:, 0]
    li[:, C.J_COUNT] = -1
    # every link's ring starts with LINK_RING0 slots (rings double on demand)
    li[:, C.J_OFF] = np.arange(nl) * LINK_RING0
    li[:, C.J_CAP] = LINK_RING0
    # links that only feed links of their own hand packets on when they admit them
    li[:, C.J_EAGER], li[:, C.J_FED] = eager_links(sc)
    # packets held by the links, one row each (``_core``'s RF_* and RI_* columns)
    rf, ri = link_ring_views(nl * LINK_RING0)
    return lf, li, rf, ri, bool((red[:, 0] > 0).any())


def eager_links(sc: Scenario) -> tuple[IntArray, IntArray]:
    """``(eager, fed)`` flags of the links: an eager link hands each packet to its next
    link when it admits it, a fed link receives packets that way; which links qualify:
    docs/simulator.md, "Eager links"."""
    lt = sc.link_table
    nl = len(lt)
    fwd, rev, cbr = _routes(sc)
    plain_inf = np.isinf(lt.buffer_pkts) & (red_rows(sc)[:, 0] == 0.0)  # no buffer, no RED
    preds: list[set[int]] = [set() for _ in range(nl)]
    succs: list[set[int]] = [set() for _ in range(nl)]
    first: set[int] = set()
    last: set[int] = set()
    for r in fwd + rev + cbr:
        if not r:
            continue
        first.add(r[0])
        last.add(r[-1])
        for a, b in itertools.pairwise(r):
            preds[b].add(a)
            succs[a].add(b)

    def can_be_fed(b: int, a: int) -> bool:
        return preds[b] == {a} and b not in first and bool(plain_inf[b])

    eager = np.zeros(nl, dtype=np.int64)
    fed = np.zeros(nl, dtype=np.int64)
    for a in range(nl):
        if succs[a] and a not in last and all(can_be_fed(b, a) for b in succs[a]):
            eager[a] = 1
            for b in succs[a]:
                fed[b] = 1
    return eager, fed


def early_receivers(sc: Scenario, paths: IntArray, fi: IntArray, li: IntArray) -> None:
    """Let the receivers whose packets' last link A can hand them on take each data packet
    when A admits it, at its exit time; which links qualify: docs/simulator.md, "Early
    receivers". A is marked eager and ``J_RX``, each flow's first ACK link fed, and the
    entry after A on its data path ``-2 - r`` for its ACK path at ``paths[r]``."""
    nl = len(sc.links)
    fwd, rev, cbr = _routes(sc)
    is_red = red_rows(sc)[:, 0] > 0.0
    crossed: list[list[tuple[str, int, int]]] = [[] for _ in range(nl)]
    for kind, routes in (("data", fwd), ("ack", rev), ("cbr", cbr)):
        for r, route in enumerate(routes):
            for h, lk in enumerate(route):
                crossed[lk].append((kind, r, h))
    for a in range(nl):
        uses = crossed[a]
        if not uses or any(kind != "data" or h != len(fwd[f]) - 1 for kind, f, h in uses):
            continue
        flows = [f for _, f, _ in uses]
        if not all(
            fi[f, C.I_DELACK] == 0
            and rev[f]
            and not is_red[rev[f][0]]
            and all(k == "ack" and h == 0 and fwd[g][-1] == a for k, g, h in crossed[rev[f][0]])
            for f in flows
        ):
            continue
        li[a, [C.J_EAGER, C.J_RX]] = 1
        for f in flows:
            li[rev[f][0], C.J_FED] = 1
            paths[fi[f, C.I_FWD_OFF] + len(fwd[f])] = -2 - fi[f, C.I_REV_OFF]


def flow_arrays(
    sc: Scenario, fi: IntArray, laws: Sequence[ControlLaw], opts: Mapping[str, Any]
) -> tuple[FloatArray, FloatArray, IntArray]:
    """``(ff, fs, fq)``: the flows' float array (times, timers, sizes), and the flow rings'
    send times and (transmissions, received) rows; ``fi`` (from :func:`route_arrays`) gets
    each flow's ring and the sender and receiver settings of the checked options ``opts``.
    Each sender starts ``start_delay_s`` after its flow (one delay, or one per flow): a
    ValueError for one that would start at or after its flow's stop."""
    nf = len(sc.flows)
    ff = np.zeros((nf, C.NF), dtype=np.float64)
    fi[:, C.I_RING_OFF] = np.arange(nf) * FLOW_RING0
    fi[:, C.I_RING_CAP] = FLOW_RING0
    fring = nf * FLOW_RING0
    ff[:, [C.F_BASE, C.F_FWD_BASE, C.F_RTO_DL, C.F_DACK_DL]] = math.inf
    ff[:, C.F_RTO] = opts["initial_rto_s"]
    ff[:, C.F_START] = sc.flow_table.start_s + np.asarray(opts["start_delay_s"], dtype=np.float64)
    ff[:, C.F_STOP] = sc.flow_table.stop_s
    ff[:, [C.F_PKT, C.F_ACK]] = sc.packet_size_bytes, sc.ack_size_bytes
    timers = opts["delack_timeout_s"], opts["min_rto_s"], opts["max_rto_s"]
    ff[:, [C.F_DACK_TO, C.F_MIN_RTO, C.F_MAX_RTO]] = timers
    # ns-2's Vegas agent (REC_NS2_VEGAS): no cut yet, v_timeout_ as its reset() leaves it
    ff[:, [C.F_V_CHANGED, C.F_V_TIMEOUT]] = -math.inf, 1000.0
    # ns-2's FAST agent (REC_NS2_FAST): an empty scoreboard
    fi[:, C.I_F_HISACK] = -1
    # duplicate ACKs of the go-back after a timeout: ignored up to the highest packet
    # sent before it (-1: no timeout yet) or never (-2)
    fi[:, C.I_RTO_RECOVER] = -1 if opts["timeout_recover"] else -2
    echo = 1 if opts["delayed_ack_echo"] == "first" else 2
    fi[:, C.I_DELACK] = np.where(opts["delayed_ack"], echo, 0)
    # Vegas's fine-grained check: as the run says, else as the law's sender declares
    fine = opts["fine_retransmit"]
    fi[:, C.I_FINE] = [bool(lw.sender.fine_retransmit if fine is None else fine) for lw in laws]
    fi[:, C.I_RECOVERY] = [FAST_RECOVERIES[r] for r in np.broadcast_to(opts["fast_recovery"], nf)]
    # the round accumulators are cleared when the flow starts (_core._timer)
    fs = np.zeros(fring, dtype=np.float64)  # send time of each sequence number
    # transmissions, received flag; and the SACK scoreboard (Q_SB) when a sender keeps one
    sack = (fi[:, C.I_RECOVERY] == C.REC_NS2_FAST).any()
    fq = np.zeros((fring, 3 if sack else 2), dtype=np.int64)
    late = np.flatnonzero(~(ff[:, C.F_START] < ff[:, C.F_STOP]))
    if late.size:
        f = int(late[0])
        raise ValueError(
            f"start_delay_s must end before each flow's stop, got a sender of flow "
            f"{sc.flows[f].name!r} starting at {ff[f, C.F_START]:g} s, its flow stopping at "
            f"{ff[f, C.F_STOP]:g} s"
        )
    return ff, fs, fq


def event_heap(
    sc: Scenario, flow_start_s: FloatArray, *, sample_interval_s: float
) -> tuple[FloatArray, IntArray, FloatArray, IntArray]:
    """``(ht, hi, gf, gi)``: the heap of event sources (links, flow timers, CBR sources,
    the sampler) with every sender's start (``flow_start_s``) and source's start, and the
    run's global floats (now, end, sample interval, deadline of the open batch of deferred
    decisions) and integers (counters)."""
    nl, nf, nc = len(sc.links), len(sc.flows), len(sc.cbr)
    nsrc = nl + nf + nc + 1
    if nsrc > C.MAX_SOURCES:
        raise ValueError(
            f"{nl} links, {nf} flows and {nc} CBR sources are more event sources than the "
            f"packet simulator's limit of {C.MAX_SOURCES - 1:,} (links + flows + CBR sources)"
        )
    ht = np.full((2, nsrc), np.inf)
    hi = np.zeros((C.NH, nsrc), dtype=np.int64)
    hi[[C.H_HEAP, C.H_POS]] = np.arange(nsrc)
    gf = np.zeros(C.NGF, dtype=np.float64)
    gf[[C.G_END, C.G_SAMPLE_DT, C.G_DEADLINE]] = sc.duration_s, sample_interval_s, math.inf
    gi = np.zeros(C.NGI, dtype=np.int64)
    gi[C.G_YIELD_AT] = 1 << 62  # an event count never reached: no yield to Python
    # the loop's one compiled copy (calling the inlined ``set_key`` from Python would
    # compile it once more): the senders', the CBR sources' and the sampler's first events
    for k, t in enumerate([*flow_start_s.tolist(), *(c.start_s for c in sc.cbr), 0.0], nl):
        C._set_key_call(hi, ht, gi, k, float(t))
    return ht, hi, gf, gi


#: a run within this fraction of an interval of a whole number of trace intervals has no
#: shorter last interval: its last whole one ends at the end of the run
SAMPLE_SLACK = 1e-6


def sample_count(duration_s: float, sample_interval_s: float) -> int:
    """Samples of a run's traces: at 0, every ``sample_interval_s`` while a whole interval
    fits, and at the end of the run ``duration_s`` (the compiled loop takes its last sample
    there), so the last interval is the part of the run the whole ones leave
    (:data:`SAMPLE_SLACK`)."""
    x = duration_s / sample_interval_s
    if not math.isfinite(x):  # more samples than a float counts: more than any bound
        return sys.maxsize
    whole = math.floor(x + SAMPLE_SLACK)
    return whole + 1 + (1 if x > whole + SAMPLE_SLACK else 0)


def trace_arrays(
    sc: Scenario, sample_interval_s: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """``(s_t, s_flow, s_link, rec)``: the fixed-interval samples (time; per flow and per
    link, four columns each: :func:`sample_count` of them) and the round records (t, cwnd,
    next cwnd, RTT mean, min, max, base, phase, ssthresh, flow, the Δ an ns-2 Vegas agent
    read (NaN: Δ of the window and RTTs); the compiled loop asks for more rows when it fills
    them)."""
    nf, nl = len(sc.flows), len(sc.links)
    nsamp = sample_count(sc.duration_s, sample_interval_s)
    rec = np.zeros((max(256, 4 * nf), 11))
    return np.zeros(nsamp), np.zeros((nsamp, nf, 4)), np.zeros((nsamp, nl, 4)), rec


# ------------------------------------------------------------------ rings
Arrays = tuple[NDArray[Any], ...]

#: bytes a ring's array is aligned to: a link ring's row (``_core.NRF`` columns of eight
#: bytes) is then exactly one cache line
ALIGN = 64

#: initial ring slots of a link and of a flow (rings double on demand)
LINK_RING0 = 16
FLOW_RING0 = 64
#: where a flow's ring (send times and flags of its sequence numbers) is described in the
#: flows' integer array: offset, capacity, oldest unacknowledged, highest sent
FLOW_RING = (C.I_RING_OFF, C.I_RING_CAP, C.I_UNA, C.I_MAXSENT)
#: where a link's ring (the packets it holds) is described in the links' integer array:
#: offset, capacity, head, tail
LINK_RING = (C.J_OFF, C.J_CAP, C.J_HEAD, C.J_TAIL)


def grow_ring(
    arrays: Arrays, used: int, table: NDArray[np.int64], row: int, cols: tuple[int, int, int, int]
) -> tuple[Arrays, int]:
    """Double a ring: the ring of row ``row`` of ``table`` (its columns ``cols``: offset,
    capacity (a power of two), lowest and highest live counter) moves to ``2 capacity``
    rows starting at row ``used`` of each array of ``arrays`` (the arrays are reallocated,
    to at least twice their rows, only when they are too short), keeping the entries of the
    monotone counters ``lo <= c < hi`` at slot ``c mod capacity``.

    Writes the ring's new offset (= ``used``) and capacity into ``table`` and returns the
    arrays and the rows now used; the old slots are left unused, so the arrays hold at
    most about twice the live rings' slots.
    """
    c_off, c_cap, c_lo, c_hi = cols
    off, cap = int(table[row, c_off]), int(table[row, c_cap])
    new_cap = 2 * cap
    rows = arrays[0].shape[0]
    if used + new_cap > rows:
        extra = max(rows, used + new_cap - rows)
        arrays = tuple(_longer(a, used, rows + extra) for a in arrays)
    ctr = np.arange(int(table[row, c_lo]), int(table[row, c_hi]), dtype=np.int64)
    old_idx, new_idx = off + ctr % cap, used + ctr % new_cap
    for a in arrays:  # moved as integers: a link ring's float view also holds integers
        _bits(a)[new_idx] = _bits(a)[old_idx]
    table[row, c_off], table[row, c_cap] = used, new_cap
    return arrays, used + new_cap


def _longer(a: NDArray[Any], used: int, rows: int) -> NDArray[Any]:
    """``a`` with ``rows`` rows: its first ``used`` rows (the rings' slots; the rows after
    them were never used and are zero), then zeros untouched (docs/simulator.md,
    "How it is fast")."""
    out = zeros_aligned((rows, *a.shape[1:]), a.dtype)
    _bits(out)[:used] = _bits(a)[:used]
    return out


def _bits(a: NDArray[Any]) -> NDArray[Any]:
    """``a`` seen as integers of its item size (a float array's bits copied unchanged)."""
    return a.view(np.int64) if a.dtype == np.float64 else a


def zeros_aligned(shape: tuple[int, ...], dtype: Any) -> NDArray[Any]:
    """A C-contiguous array of zeros starting on an :data:`ALIGN`-byte boundary.

    NumPy aligns its arrays to their item size (or 16 bytes) only; the array here is a
    view into a slightly longer zeroed buffer (which it keeps alive).
    """
    dt = np.dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    buf = np.zeros(nbytes + ALIGN, dtype=np.uint8)
    start = -buf.ctypes.data % ALIGN
    return buf[start : start + nbytes].view(dt).reshape(shape)


def link_ring_views(rows: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The link rings' array of ``rows`` rows as ``(rf, ri)``: the same aligned memory,
    one row a packet, seen as floats and as integers (columns in ``_core``: ``RF_*``
    float, ``RI_*`` integer)."""
    rf = zeros_aligned((rows, C.NRF), np.float64)
    return rf, rf.view(np.int64)
