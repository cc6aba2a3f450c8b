"""The packet simulator's Python side: build the arrays, drive the laws, collect results.

:func:`simulate_packets` runs a :class:`~tcpfluid.scenarios.Scenario` packet by packet. The
per-packet work (links, queues, ACK clocking, retransmissions, timers) runs in the compiled
loop of :mod:`tcpfluid.sim._core`; at every round boundary and every loss it returns here,
the flow's control law (the same object the round model steps, :mod:`tcpfluid.algorithms`)
decides, and the loop resumes. See ``docs/simulator.md`` for the model's assumptions.
"""

from __future__ import annotations

import gc
import math
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._validation import check_int, check_positive
from ..algorithms._common import backlog
from ..algorithms.base import ControlLaw, RoundSample
from ..scenarios import Scenario
from . import _core as C
from .summary import PacketSummary, summarise

__all__ = ["FlowTrace", "LinkTrace", "PacketResult", "simulate_packets"]

FloatArray = NDArray[np.float64]

#: largest number of fixed-interval trace samples (bounded memory)
MAX_SAMPLES = 2_000_000
#: largest number of values in the fixed-interval traces (4 per flow and per link and
#: sample: 160 MB of float64)
MAX_TRACE_VALUES = 20_000_000
DEFAULT_SAMPLE_INTERVAL = 0.1
#: events between two returns of the compiled loop when progress is reported
_YIELD_EVENTS = 1 << 20
_PROGRESS_EVERY_S = 0.1
_NEVER = 1 << 62
#: what a progress callable with a ``note`` method (tcpfluid._progress.ProgressBar) is
#: told when the first run of a process has not started after ``_COMPILE_NOTICE_S``
#: (the kernels are being compiled: about 20 s, once per install and Numba version)
COMPILE_NOTICE = "compiling the simulator (first run only)"  # ProgressBar.note: <= 40
_COMPILE_NOTICE_S = 1.0
_kernels_ready = False
#: defer round decisions into batches (exact; False takes each at once, for tests)
_DEFER = True
#: initial ring slots of a link and of a flow (rings double on demand)
_LINK_RING0 = 16
_FLOW_RING0 = 64
#: default ceiling on the packets the simulator's rings may hold (``max_packets``)
MAX_PACKETS = 4_000_000
_RAND_BLOCK = 1 << 16
_LAW_NAMES_WITHOUT_FINE_CHECK = ("reno",)


@dataclass(frozen=True, eq=False)
class FlowTrace:
    """What one flow did (all arrays are numpy float64 arrays).

    Round-boundary records (one per round, when the ACK of the round's first packet
    arrives; document 000 §4 / 004 §4):

    ``round_t_s``
        time of the boundary, s;
    ``round_cwnd_pkts``
        window at the end of the round (what the law saw), packets;
    ``round_next_cwnd_pkts``
        window the law set for the next round, packets;
    ``round_rtt_mean_s``, ``round_rtt_min_s``, ``round_rtt_max_s``
        RTT samples of the round (one per ACK that acknowledged new data), s;
    ``round_base_rtt_s``
        BaseRTT, the minimum RTT ever measured, s;
    ``round_delta_pkts``
        Δ = cwnd (1 − BaseRTT/RTT) (document 000 eq 1), packets;
    ``round_phase``
        the law's phase after the decision (0 slow start, 1 congestion avoidance);
    ``round_ssthresh_pkts``
        the law's ``ssthresh`` state if it has one (``inf`` otherwise).

    Fixed-interval samples (at the result's ``t_s``): ``cwnd_pkts``, ``goodput_pps``
    (in-order delivered packets per second over the preceding interval), ``srtt_s``.

    Losses: ``loss_t_s``, ``loss_kind`` (1 duplicate ACKs/fine-grained check, 2 a
    retransmission lost again, 3 timeout), ``loss_cwnd_before_pkts``,
    ``loss_cwnd_after_pkts``.
    """

    name: str
    algorithm: str
    start_s: float
    stop_s: float
    round_t_s: FloatArray
    round_cwnd_pkts: FloatArray
    round_next_cwnd_pkts: FloatArray
    round_rtt_mean_s: FloatArray
    round_rtt_min_s: FloatArray
    round_rtt_max_s: FloatArray
    round_base_rtt_s: FloatArray
    round_delta_pkts: FloatArray
    round_phase: FloatArray
    round_ssthresh_pkts: FloatArray
    cwnd_pkts: FloatArray
    goodput_pps: FloatArray
    srtt_s: FloatArray
    loss_t_s: FloatArray
    loss_kind: FloatArray
    loss_cwnd_before_pkts: FloatArray
    loss_cwnd_after_pkts: FloatArray
    sent_pkts: int
    delivered_pkts: int
    retransmissions: int
    fast_retransmits: int
    timeouts: int
    acks_sent: int
    base_rtt_s: float

    def to_dict(self) -> dict[str, Any]:
        """Counters and the round trace as plain lists (JSON-ready)."""
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "sent_pkts": self.sent_pkts,
            "delivered_pkts": self.delivered_pkts,
            "retransmissions": self.retransmissions,
            "fast_retransmits": self.fast_retransmits,
            "timeouts": self.timeouts,
            "acks_sent": self.acks_sent,
            "base_rtt_s": None if math.isinf(self.base_rtt_s) else self.base_rtt_s,
            "rounds": int(self.round_t_s.size),
        }

    def to_frame(self) -> pd.DataFrame:
        """The round records as a :class:`pandas.DataFrame`, one row per round boundary."""
        return pd.DataFrame(
            {
                "t_s": self.round_t_s,
                "cwnd_pkts": self.round_cwnd_pkts,
                "next_cwnd_pkts": self.round_next_cwnd_pkts,
                "rtt_mean_s": self.round_rtt_mean_s,
                "rtt_min_s": self.round_rtt_min_s,
                "rtt_max_s": self.round_rtt_max_s,
                "base_rtt_s": self.round_base_rtt_s,
                "delta_pkts": self.round_delta_pkts,
                "phase": self.round_phase,
                "ssthresh_pkts": self.round_ssthresh_pkts,
            }
        )


@dataclass(frozen=True, eq=False)
class LinkTrace:
    """What one link did.

    ``queue_pkts`` (packets queued or in transmission at each sample time),
    ``drops`` (cumulative drops at each sample time), ``utilization`` (fraction of the
    link's capacity used over the interval ending at each sample; the first is 0),
    ``red_avg_pkts`` (RED's average queue; 0 for drop-tail). Totals: ``arrivals``,
    ``drops_total``, ``data_drops``, ``max_queue_pkts``, ``bytes_out`` (bytes that left the
    link, all traffic).
    """

    name: str
    rate_bps: float
    queue_pkts: FloatArray
    drops: FloatArray
    utilization: FloatArray
    red_avg_pkts: FloatArray
    arrivals: int
    drops_total: int
    data_drops: int
    max_queue_pkts: int
    bytes_out: float

    def to_dict(self) -> dict[str, Any]:
        """Totals (JSON-ready)."""
        return {
            "name": self.name,
            "arrivals": self.arrivals,
            "drops": self.drops_total,
            "data_drops": self.data_drops,
            "max_queue_pkts": self.max_queue_pkts,
        }

    def to_frame(self, t_s: FloatArray) -> pd.DataFrame:
        """The fixed-interval samples as a :class:`pandas.DataFrame` (``t_s``: the
        result's sample times)."""
        return pd.DataFrame(
            {
                "t_s": t_s,
                "queue_pkts": self.queue_pkts,
                "drops": self.drops,
                "utilization": self.utilization,
                "red_avg_pkts": self.red_avg_pkts,
            }
        )


@dataclass(frozen=True, eq=False)
class PacketResult:
    """The outcome of :func:`simulate_packets`.

    Attributes
    ----------
    scenario
        The scenario that was run.
    t_s
        Times of the fixed-interval samples, s.
    flows, links
        Per-flow and per-link traces, in the scenario's order.
    conservation
        For ``data``, ``ack`` and ``cbr`` packets: ``sent``, ``delivered``, ``dropped``,
        ``in_flight`` (still in a link at the end), and ``conserved``: whether
        sent = delivered + dropped + in flight holds for all three (checked by the engine).
    events
        Events processed by the compiled loop.
    wall_time_s
        Wall-clock time of the run (compilation excluded when cached), s.
    seed
        The seed of the random numbers (RED).
    law_calls, law_time_s
        Calls into the control laws (``on_round`` and ``on_loss``) and the wall-clock time
        spent in Python handling them (included in ``wall_time_s``).
    """

    scenario: Scenario
    t_s: FloatArray
    flows: tuple[FlowTrace, ...]
    links: tuple[LinkTrace, ...]
    conservation: Mapping[str, Any]
    events: int
    wall_time_s: float
    seed: int
    law_calls: int = 0
    law_time_s: float = 0.0

    @cached_property
    def summary(self) -> PacketSummary:
        """Slow-start exit, settling, convergence, utilization, throughput, Jain's index
        (:mod:`tcpfluid.sim.summary`; same public keys as the round model)."""
        return summarise(self)

    @property
    def conserved(self) -> bool:
        """True when every packet is accounted for (sent = delivered + dropped + in flight)."""
        return bool(self.conservation["conserved"])

    @property
    def data_packets(self) -> int:
        """Data packets transmitted by all senders (with retransmissions)."""
        return int(self.conservation["data"]["sent"])

    @property
    def packets_per_s(self) -> float:
        """Simulated data packets per wall-clock second."""
        return self.data_packets / self.wall_time_s if self.wall_time_s > 0 else math.inf

    @property
    def events_per_s(self) -> float:
        """Events per wall-clock second."""
        return self.events / self.wall_time_s if self.wall_time_s > 0 else math.inf

    def flow(self, name: str) -> FlowTrace:
        """The trace of the flow called ``name``."""
        for fl in self.flows:
            if fl.name == name:
                return fl
        raise ValueError(f"no flow {name!r}; flows: {[f.name for f in self.flows]}")

    def link(self, name: str) -> LinkTrace:
        """The trace of the link called ``name``."""
        for lk in self.links:
            if lk.name == name:
                return lk
        raise ValueError(f"no link {name!r}; links: {[lk.name for lk in self.links]}")

    def plot(self, ax: Any = None, *, link: str | None = None) -> list[Any]:
        """Plot every flow's window at its round boundaries and, dashed, the queue of
        ``link`` (default: the summary's bottleneck) against time.

        Returns the artists; the library never calls ``plt.show()``.
        """
        name = self.summary.bottleneck if link is None else link
        lk = self.link(name)
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        artists: list[Any] = []
        for fl in self.flows:
            label = f"{fl.name} ({fl.algorithm}) window"
            artists += ax.plot(fl.round_t_s, fl.round_next_cwnd_pkts, label=label)
        artists += ax.plot(self.t_s, lk.queue_pkts, "k--", label=f"queue ({name})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.legend(loc="best")
        return artists

    def to_frame(self) -> pd.DataFrame:
        """Fixed-interval samples of every flow and link in one wide
        :class:`pandas.DataFrame`: ``t_s``, ``<flow>/cwnd_pkts``, ``<flow>/goodput_pps``,
        ``<link>/queue_pkts``, ``<link>/drops``."""
        cols: dict[str, FloatArray] = {"t_s": self.t_s}
        for fl in self.flows:
            cols[f"{fl.name}/cwnd_pkts"] = fl.cwnd_pkts
            cols[f"{fl.name}/goodput_pps"] = fl.goodput_pps
        for lk in self.links:
            cols[f"{lk.name}/queue_pkts"] = lk.queue_pkts
            cols[f"{lk.name}/drops"] = lk.drops
        return pd.DataFrame(cols)

    def to_dict(self) -> dict[str, Any]:
        """Counters, conservation and run statistics (JSON-ready)."""
        return {
            "scenario": self.scenario.name,
            "flows": [f.to_dict() for f in self.flows],
            "links": [lk.to_dict() for lk in self.links],
            "conservation": {
                k: (dict(v) if isinstance(v, Mapping) else v) for k, v in self.conservation.items()
            },
            "events": self.events,
            "wall_time_s": self.wall_time_s,
            "packets_per_s": self.packets_per_s,
            "events_per_s": self.events_per_s,
            "law_calls": self.law_calls,
            "law_time_s": self.law_time_s,
            "seed": self.seed,
        }


# ============================================================================ building
def _red_params(link: Any) -> tuple[int, float, float, float, float]:
    """(discipline code, min_th, max_th, max_p, w_q) of a scenario link
    (:meth:`tcpfluid.scenarios.Link.red_parameters`)."""
    red = link.red_parameters()
    if not red:
        return 0, 0.0, 0.0, 0.0, 0.0
    code = 2 if red["gentle"] else 1
    return code, red["min_th"], red["max_th"], red["max_p"], red["w_q"]


def _law_for(
    flow: Any,
    laws: Mapping[str, ControlLaw] | None,
    made: dict[tuple[str, str], ControlLaw] | None = None,
) -> ControlLaw:
    """The law of ``flow``: ``laws[flow.name]``, or one made from the flow's algorithm and
    parameters (shared, through ``made``, by the flows that have the same ones: one law
    object steps them all at once)."""
    if laws is not None and flow.name in laws:
        law = laws[flow.name]
        if not isinstance(law, ControlLaw):
            raise TypeError(f"laws[{flow.name!r}] must be a ControlLaw, got {type(law).__name__}")
        return law
    if flow.algorithm is None:
        raise ValueError(
            f"flow {flow.name!r} has no algorithm; use scenario.with_algorithm('vegas') or "
            "pass laws={name: law}"
        )
    from ..algorithms.registry import get_law

    if made is None:
        return get_law(flow.algorithm, **dict(flow.params))
    key = (str(flow.algorithm), repr(sorted(dict(flow.params).items())))
    if key not in made:
        made[key] = get_law(flow.algorithm, **dict(flow.params))
    return made[key]


def _pow2(n: float) -> int:
    return 1 << max(4, math.ceil(math.log2(max(n, 1.0))))


def _grow_ring(
    arrays: tuple[NDArray[Any], NDArray[Any]], used: int, off: int, cap: int, lo: int, hi: int
) -> tuple[tuple[NDArray[Any], NDArray[Any]], int, int]:
    """Double a ring: the rows of the ring at ``off`` (``cap`` slots, a power of two) move
    to ``2 cap`` rows starting at row ``used`` of each array of ``arrays`` (the arrays are
    reallocated, to at least twice their rows, only when they are too short), keeping the
    entries of the monotone counters ``lo <= c < hi`` at slot ``c mod capacity``.

    Returns the arrays and the ring's new offset (= ``used``) and capacity; the old slots
    are left unused, so the arrays hold at most about twice the live rings' slots.
    """
    new_cap = 2 * cap
    rows = arrays[0].shape[0]
    if used + new_cap > rows:
        extra = max(rows, used + new_cap - rows)
        arrays = (
            np.concatenate([arrays[0], np.zeros((extra, *arrays[0].shape[1:]), arrays[0].dtype)]),
            np.concatenate([arrays[1], np.zeros((extra, *arrays[1].shape[1:]), arrays[1].dtype)]),
        )
    ctr = np.arange(lo, hi, dtype=np.int64)
    old_idx = off + ctr % cap
    new_idx = used + ctr % new_cap
    for a in arrays:
        a[new_idx] = a[old_idx]
    return arrays, used, new_cap


class _Sim:
    """Mutable run state (private): the arrays handed to the compiled loop."""

    def __init__(
        self,
        scenario: Scenario,
        laws: Sequence[ControlLaw],
        *,
        seed: int,
        sample_interval_s: float,
        delayed_ack: bool,
        delack_timeout_s: float,
        min_rto_s: float,
        initial_rto_s: float,
        max_rto_s: float,
        fine_retransmit: bool | None,
        max_packets: int = 4_000_000,
    ) -> None:
        sc = scenario
        self.scenario = sc
        self.laws = list(laws)
        self.rng = np.random.default_rng(seed)
        names = {lk.name: i for i, lk in enumerate(sc.links)}
        nl = len(sc.links)
        nf = len(sc.flows)
        nc = len(sc.cbr)
        self.nl, self.nf, self.nc = nl, nf, nc
        self.gf = np.zeros(C.NGF, dtype=np.float64)  # now, end, sample interval
        pkt = sc.packet_size_bytes
        ack = sc.ack_size_bytes

        # ---- paths
        paths: list[int] = []
        fi = np.zeros((nf, C.NI), dtype=np.int64)
        ff = np.zeros((nf, C.NF), dtype=np.float64)
        for f, fl in enumerate(sc.flows):
            fi[f, C.I_FWD_OFF] = len(paths)
            fi[f, C.I_FWD_LEN] = len(fl.forward)
            paths += [names[n] for n in fl.forward]
            fi[f, C.I_REV_OFF] = len(paths)
            fi[f, C.I_REV_LEN] = len(fl.reverse)
            paths += [names[n] for n in fl.reverse]
        cf = np.zeros((nc, C.NCF), dtype=np.float64)
        ci = np.zeros((nc, C.NCI), dtype=np.int64)
        for c, src in enumerate(sc.cbr):
            ci[c, C.D_OFF] = len(paths)
            ci[c, C.D_LEN] = len(src.links)
            paths += [names[n] for n in src.links]
            cf[c, C.C_RATE] = src.rate_bps / (8.0 * pkt)
            cf[c, C.C_START] = src.start_s
            cf[c, C.C_STOP] = src.stop_s
            cf[c, C.C_SIZE] = pkt
        self.paths = np.asarray(paths, dtype=np.int64)
        self.cf, self.ci = cf, ci

        # ---- links
        lf = np.zeros((nl, C.NLF), dtype=np.float64)
        li = np.zeros((nl, C.NLI), dtype=np.int64)
        off = 0
        self.has_red = False
        for i, lk in enumerate(sc.links):
            lf[i, C.L_RATE] = lk.rate_bps / 8.0
            lf[i, C.L_DELAY] = lk.delay_s
            lf[i, C.L_BUF] = lk.buffer_pkts
            disc, mn, mx, maxp, wq = _red_params(lk)
            li[i, C.J_DISC] = disc
            li[i, C.J_COUNT] = -1
            lf[i, C.L_MIN_TH] = mn
            lf[i, C.L_MAX_TH] = mx
            lf[i, C.L_MAXP] = maxp
            lf[i, C.L_WQ] = wq
            lf[i, C.L_PTC] = lk.rate_bps / (8.0 * pkt)
            self.has_red = self.has_red or disc > 0
            # room for a full buffer plus what the propagation delay holds of data packets
            room = (0.0 if math.isinf(lk.buffer_pkts) else lk.buffer_pkts) + 8.0
            room += lk.delay_s * lk.rate_bps / (8.0 * pkt)
            cap = _pow2(min(room, _LINK_RING0))
            li[i, C.J_OFF] = off
            li[i, C.J_CAP] = cap
            off += cap
        self.lf, self.li = lf, li
        # packets held by the links: exit time, end of transmission, timestamp, forward
        # delay (float); flow or CBR source, seq or cumulative ACK, kind, hop (int)
        self.rf = np.zeros((off, 4), dtype=np.float64)
        self.ri = np.zeros((off, 4), dtype=np.int64)
        self.link_rows = off

        # ---- flows
        fring = 0
        for f, fl in enumerate(sc.flows):
            cap = _FLOW_RING0
            fi[f, C.I_RING_OFF] = fring
            fi[f, C.I_RING_CAP] = cap
            fring += cap
            ff[f, C.F_BASE] = math.inf
            ff[f, C.F_FWD_BASE] = math.inf
            ff[f, C.F_RTO] = initial_rto_s
            ff[f, C.F_RTO_DL] = math.inf
            ff[f, C.F_DACK_DL] = math.inf
            ff[f, C.F_START] = fl.start_s
            ff[f, C.F_STOP] = fl.stop_s
            ff[f, C.F_PKT] = pkt
            ff[f, C.F_ACK] = ack
            ff[f, C.F_DACK_TO] = delack_timeout_s
            ff[f, C.F_MIN_RTO] = min_rto_s
            ff[f, C.F_MAX_RTO] = max_rto_s
            fi[f, C.I_DELACK] = 1 if delayed_ack else 0
            law = self.laws[f]
            fine = (
                law.name not in _LAW_NAMES_WITHOUT_FINE_CHECK
                if fine_retransmit is None
                else fine_retransmit
            )
            fi[f, C.I_FINE] = 1 if fine else 0
            # the round accumulators are cleared when the flow starts (_core._timer)
        self.ff, self.fi = ff, fi
        self.flow_rows = fring
        self.room = off + fring  # packets the rings have room for (the ceiling's count)
        self.max_packets = max_packets
        if self.room > max_packets:
            raise ValueError(
                f"max_packets={max_packets:,} is below the {self.room:,} packets the "
                f"simulator's rings start with for {nl} links and {nf} flows; raise it"
            )
        self.fs = np.zeros(fring, dtype=np.float64)  # send time of each sequence number
        self.fq = np.zeros((fring, 2), dtype=np.int64)  # transmissions, received flag

        # ---- laws: flows sharing a law object form a group, stepped in one call
        self.group_laws: list[ControlLaw] = []
        self.group_states: list[dict[str, FloatArray]] = []
        self.group_of = np.zeros(nf, dtype=np.intp)
        self.pos = np.zeros(nf, dtype=np.intp)
        members: list[list[int]] = []
        index: dict[int, int] = {}
        for f, law in enumerate(self.laws):
            g = index.setdefault(id(law), len(members))
            if g == len(members):
                members.append([])
                self.group_laws.append(law)
            self.group_of[f] = g
            self.pos[f] = len(members[g])
            members[g].append(f)
        self.group_members = [np.asarray(m, dtype=np.intp) for m in members]
        for g, law in enumerate(self.group_laws):
            state = law.init_state(len(self.group_members[g]))
            self.group_states.append(state)
            self._write_action(self.group_members[g], law.initial_action(state))
        ff[:, C.F_SSTH] = math.inf
        # one flow's decision (the common case): its sample as views into ``ff`` and its
        # state as views into its group's arrays, made once
        self.samples = [
            RoundSample(
                cwnd=ff[f : f + 1, C.F_S_CWND],
                base_rtt=ff[f : f + 1, C.F_S_BASE],
                rtt_mean=ff[f : f + 1, C.F_S_MEAN],
                rtt_min=ff[f : f + 1, C.F_S_MIN],
                rtt_max=ff[f : f + 1, C.F_S_MAX],
                acks=ff[f : f + 1, C.F_S_ACKS],
                fwd_delay_mean=ff[f : f + 1, C.F_S_FWD],
                fwd_delay_base=ff[f : f + 1, C.F_S_FWD_BASE],
            )
            for f in range(nf)
        ]
        self.views: list[dict[str, FloatArray] | None] = [None] * nf
        # round records (written by the compiled loop): t, cwnd, next cwnd, rtt mean, min,
        # max, base, phase, ssthresh, flow
        self.rec = np.zeros((max(256, 4 * nf), 10))
        self.losses: list[list[tuple[float, ...]]] = [[] for _ in range(nf)]
        self.law_calls = 0
        self.law_time_s = 0.0
        self.pend = np.zeros(max(nf, 1), dtype=np.int64)

        # ---- heap of event sources: links, flow timers, CBR sources, sampler
        nsrc = nl + nf + nc + 1
        self.ht = np.full((2, nsrc), np.inf)
        self.hi = np.zeros((3, nsrc), dtype=np.int64)
        self.hi[C.H_HEAP] = np.arange(nsrc)
        self.hi[C.H_POS] = np.arange(nsrc)
        self.gf[C.G_END] = sc.duration_s
        self.gf[C.G_SAMPLE_DT] = sample_interval_s
        self.gi = np.zeros(C.NGI, dtype=np.int64)
        self.gi[C.G_YIELD_AT] = _NEVER
        self.gf[C.G_DEADLINE] = math.inf
        self.gf[C.G_DEFER] = 1.0 if _DEFER else 0.0
        self.rand = self.rng.random(_RAND_BLOCK) if self.has_red else np.zeros(0)
        nsamp = math.floor(sc.duration_s / sample_interval_s + 1e-9) + 1
        self.s_t = np.zeros(nsamp)
        self.s_flow = np.zeros((nsamp, nf, 4))
        self.s_link = np.zeros((nsamp, nl, 4))
        for f, fl in enumerate(sc.flows):
            C.set_key(self.hi, self.ht, self.gi, nl + f, fl.start_s)
        for c, src in enumerate(sc.cbr):
            C.set_key(self.hi, self.ht, self.gi, nl + nf + c, src.start_s)
        C.set_key(self.hi, self.ht, self.gi, nsrc - 1, 0.0)

    # ------------------------------------------------------------------ decisions
    def _write_action(self, flows: NDArray[np.intp] | slice, action: Any) -> None:
        ff = self.ff
        w = np.asarray(action.cwnd, dtype=np.float64)
        incr = np.asarray(action.incr, dtype=np.float64)
        cap = np.asarray(action.cap, dtype=np.float64)
        ff[flows, C.F_CWND] = w
        ff[flows, C.F_INCR] = incr
        ff[flows, C.F_CAP] = cap
        # cheap check first (sums are finite and the smallest window positive), then the
        # precise one that names the flow
        w_, i_, c_ = ff[flows, C.F_CWND], ff[flows, C.F_INCR], ff[flows, C.F_CAP]
        total = float(np.add.reduce(w_)) + float(np.add.reduce(i_))
        if math.isfinite(total) and float(w_.min()) > 0.0 and not math.isnan(float(c_.sum())):
            return
        bad = ~(np.isfinite(w_) & np.isfinite(i_)) | np.isnan(c_) | ~(w_ > 0.0)
        if bad.any():
            idx = np.arange(self.nf)[flows]
            i = int(np.argmax(bad))
            f = int(idx[i])
            raise RuntimeError(
                f"control law {self.laws[f]!r} of flow {self.scenario.flows[f].name!r} returned "
                f"an invalid action (cwnd={w_[i]}, incr={i_[i]}, cap={c_[i]}) at "
                f"t={self.gf[C.G_NOW]:g} s"
            )

    def _view(self, f: int) -> dict[str, FloatArray]:
        """Flow ``f``'s state: views of length 1 into its group's state arrays."""
        g = int(self.group_of[f])
        state = self.group_states[g]
        if self.group_members[g].shape[0] == 1:
            return state
        v = self.views[f]
        if v is None or any(v[key].base is not arr for key, arr in state.items()):
            p = int(self.pos[f])
            v = {key: arr[p : p + 1] for key, arr in state.items()}
            self.views[f] = v
        return v

    def _one_round(self, f: int) -> None:
        """The round decision of one flow (no fancy indexing: the common case)."""
        ff = self.ff
        g = int(self.group_of[f])
        view = self._view(f)
        sub = dict(view) if view is not self.group_states[g] else view
        action = self.group_laws[g].on_round(sub, self.samples[f])
        self.law_calls += 1
        if sub is not view:
            p = int(self.pos[f])
            for key, v in sub.items():
                if v is not view[key]:  # the law replaced the array instead of updating it
                    self.group_states[g][key][p : p + 1] = v
        w = float(np.asarray(action.cwnd).reshape(-1)[0])
        incr = float(np.asarray(action.incr).reshape(-1)[0])
        cap = float(np.asarray(action.cap).reshape(-1)[0])
        if not (math.isfinite(w) and math.isfinite(incr)) or math.isnan(cap) or w <= 0.0:
            raise RuntimeError(
                f"control law {self.laws[f]!r} of flow {self.scenario.flows[f].name!r} returned "
                f"an invalid action (cwnd={w}, incr={incr}, cap={cap}) at "
                f"t={self.gf[C.G_NOW]:g} s"
            )
        ff[f, C.F_CWND] = w
        ff[f, C.F_INCR] = incr
        ff[f, C.F_CAP] = cap
        ff[f, C.F_PHASE] = sub["phase"][0]
        ss = sub.get("ssthresh")
        ff[f, C.F_SSTH] = math.inf if ss is None else ss[0]
        self.fi[f, C.I_PENDING] = C.P_ROUND_READY

    def _rounds(self, flows: NDArray[np.intp]) -> None:
        """The round decisions of ``flows`` (pending in the compiled loop): one call into
        each law for all its flows among them."""
        if flows.shape[0] == 1:
            self._one_round(int(flows[0]))
            return
        if len(self.group_laws) == 1:
            self._group_round(0, flows)
        else:
            g_of = self.group_of[flows]
            for g in np.unique(g_of):
                self._group_round(int(g), flows[g_of == g])
        self.fi[flows, C.I_PENDING] = C.P_ROUND_READY

    def _group_round(self, g: int, flows: NDArray[np.intp]) -> None:
        ff = self.ff
        law = self.group_laws[g]
        state = self.group_states[g]
        k = flows.shape[0]
        sel: NDArray[np.intp] | slice
        if k == 1:
            f = int(flows[0])
            sel = slice(f, f + 1)
            p = int(self.pos[f])
            psel: NDArray[np.intp] | slice = slice(p, p + 1)
        else:
            pos = self.pos[flows]
            order = np.argsort(pos, kind="stable")
            sel, psel = flows[order], pos[order]
        whole = k == self.group_members[g].shape[0]
        sub = state if whole else {key: v[psel] for key, v in state.items()}
        smp = ff[sel, C.F_S_CWND : C.F_S_FWD_BASE + 1]
        sample = RoundSample(
            cwnd=smp[:, 0],
            base_rtt=smp[:, 1],
            rtt_mean=smp[:, 2],
            rtt_min=smp[:, 3],
            rtt_max=smp[:, 4],
            acks=smp[:, 5],
            fwd_delay_mean=smp[:, 6],
            fwd_delay_base=smp[:, 7],
        )
        action = law.on_round(sub, sample)
        self.law_calls += 1
        if not whole:
            for key, v in sub.items():
                state[key][psel] = v
        self._write_action(sel, action)
        ff[sel, C.F_PHASE] = sub["phase"]
        ss = sub.get("ssthresh")
        ff[sel, C.F_SSTH] = math.inf if ss is None else ss

    def _loss(self, f: int) -> None:
        kind = int(self.fi[f, C.I_KIND])
        before = float(self.ff[f, C.F_CWND])
        g = int(self.group_of[f])
        new = self.group_laws[g].on_loss(
            self.group_states[g], self.pos[f : f + 1].copy(), kind, np.array([before])
        )
        self.law_calls += 1
        w = float(np.asarray(new).reshape(-1)[0])
        if not math.isfinite(w) or w <= 0.0:
            raise RuntimeError(
                f"control law {self.laws[f]!r} returned window {w} after a loss of kind {kind}"
            )
        self.ff[f, C.F_NEWCWND] = w
        self.losses[f].append((self.ff[f, C.F_LAST_T], float(kind), before, w))
        self.fi[f, C.I_PENDING] = C.P_LOSS_READY

    def _decide(self) -> None:
        """Take the decisions the compiled loop left pending (rounds batched, then losses)."""
        gi = self.gi
        i0, n = int(gi[C.G_PEND_I]), int(gi[C.G_NPEND])
        if n == i0:
            return
        t0 = time.perf_counter()
        if n - i0 == 1:
            f = int(self.pend[i0])
            p = self.fi[f, C.I_PENDING]
            if p == C.P_ROUND:
                self._rounds(self.pend[i0:n])
            elif p == C.P_LOSS:
                self._loss(f)
        else:
            flows = self.pend[i0:n]
            st = self.fi[flows, C.I_PENDING]
            rounds = flows[st == C.P_ROUND]
            if rounds.shape[0]:
                self._rounds(rounds)
            for f in flows[st == C.P_LOSS]:
                self._loss(int(f))
        self.law_time_s += time.perf_counter() - t0

    # ------------------------------------------------------------------ growth
    def _check_room(self, cap: int) -> None:
        """Refuse to double a ring of ``cap`` slots past the ceiling ``max_packets``,
        naming the link that holds the most packets and the flow with the most packets
        sent and not acknowledged."""
        if self.room + cap <= self.max_packets:
            self.room += cap
            return
        li, fi = self.li, self.fi
        in_link = li[:, C.J_TAIL] - li[:, C.J_HEAD]
        lk = int(np.argmax(in_link))
        out = fi[:, C.I_MAXSENT] - fi[:, C.I_UNA]
        f = int(np.argmax(out))
        link = self.scenario.links[lk]
        flow = self.scenario.flows[f].name
        raise ValueError(
            f"the packet simulator would hold more than max_packets={self.max_packets:,} "
            f"packets at t={self.gf[C.G_NOW]:g} s: link {link.name!r} holds "
            f"{int(in_link[lk]):,} (buffer {link.buffer_pkts:g} packets) and flow {flow!r} "
            f"has {int(out[f]):,} sent and not acknowledged. A window that grows without a "
            "loss to stop it needs a finite bottleneck buffer (the scenario's buffer "
            "setting, e.g. --set buffer=1000, or Link(buffer_pkts=...)); otherwise give a "
            "lower rate or a shorter duration, or raise max_packets if the machine has the "
            "memory (about 250 bytes a packet)"
        )

    def _grow_flow(self, f: int) -> None:
        fi = self.fi
        cap = int(fi[f, C.I_RING_CAP])
        self._check_room(cap)
        (self.fs, self.fq), fi[f, C.I_RING_OFF], fi[f, C.I_RING_CAP] = _grow_ring(
            (self.fs, self.fq),
            self.flow_rows,
            int(fi[f, C.I_RING_OFF]),
            cap,
            int(fi[f, C.I_UNA]),
            int(fi[f, C.I_MAXSENT]),
        )
        self.flow_rows += 2 * cap

    def _grow_link(self, link: int) -> None:
        li = self.li
        cap = int(li[link, C.J_CAP])
        self._check_room(cap)
        (self.rf, self.ri), li[link, C.J_OFF], li[link, C.J_CAP] = _grow_ring(
            (self.rf, self.ri),
            self.link_rows,
            int(li[link, C.J_OFF]),
            cap,
            int(li[link, C.J_HEAD]),
            int(li[link, C.J_TAIL]),
        )
        self.link_rows += 2 * cap

    # ------------------------------------------------------------------ loop
    def run(
        self,
        progress: Callable[[float], None] | None = None,
        notice: threading.Timer | None = None,
    ) -> None:
        global _kernels_ready
        gi = self.gi
        end = float(self.gf[C.G_END])
        last = time.perf_counter()
        if progress is not None:
            gi[C.G_YIELD_AT] = _YIELD_EVENTS
        while True:
            code = C.run(
                self.ff, self.fi, self.lf, self.li, self.rf, self.ri, self.hi, self.ht,
                self.gf, gi, self.rand, self.paths, self.fs, self.fq, self.cf, self.ci,
                self.s_t, self.s_flow, self.s_link, self.pend, self.rec, self.has_red,
            )  # fmt: skip
            if not _kernels_ready:
                _kernels_ready = True
                if notice is not None:
                    notice.cancel()
            if code == C.DONE:
                if progress is not None:
                    progress(1.0)
                return
            self._decide()
            if code == C.GROW_FLOW:
                self._grow_flow(int(gi[C.G_CODE_ARG]))
            elif code == C.GROW_LINK:
                self._grow_link(int(gi[C.G_CODE_ARG]))
            elif code == C.NEED_RAND:
                self.rand = self.rng.random(_RAND_BLOCK)
                gi[C.G_RAND_I] = 0
            elif code == C.GROW_REC:
                self.rec = np.concatenate([self.rec, np.zeros_like(self.rec)])
            elif code == C.YIELD:
                gi[C.G_YIELD_AT] = gi[C.G_EVENTS] + _YIELD_EVENTS
            elif code not in (C.NEED_ROUND, C.NEED_LOSS):  # pragma: no cover - defensive
                raise RuntimeError(f"packet simulator core returned unknown code {code}")
            if progress is not None:
                now = time.perf_counter()
                if now - last >= _PROGRESS_EVERY_S:
                    last = now
                    progress(min(1.0, float(self.gf[C.G_NOW]) / end) if end > 0 else 1.0)

    # ------------------------------------------------------------------ results
    def _in_flight(self) -> dict[int, int]:
        kinds = {C.KIND_DATA: 0, C.KIND_ACK: 0, C.KIND_CBR: 0}
        li = self.li
        rkind = self.ri[:, C.RI_KIND]
        for link in range(self.nl):
            off, cap = int(li[link, C.J_OFF]), int(li[link, C.J_CAP])
            head, tail = int(li[link, C.J_HEAD]), int(li[link, C.J_TAIL])
            if tail > head:
                k = rkind[off + np.arange(head, tail) % cap]
                for kind in kinds:
                    kinds[kind] += int(np.count_nonzero(k == kind))
        return kinds

    def conservation(self) -> dict[str, Any]:
        cnt = self.gi
        fl = self._in_flight()
        out: dict[str, Any] = {}
        ok = True
        for label, kind, (s, r, d) in (
            ("data", C.KIND_DATA, (C.N_DATA_SENT, C.N_DATA_RCVD, C.N_DATA_DROP)),
            ("ack", C.KIND_ACK, (C.N_ACK_SENT, C.N_ACK_RCVD, C.N_ACK_DROP)),
            ("cbr", C.KIND_CBR, (C.N_CBR_SENT, C.N_CBR_RCVD, C.N_CBR_DROP)),
        ):
            entry = {
                "sent": int(cnt[s]),
                "delivered": int(cnt[r]),
                "dropped": int(cnt[d]),
                "in_flight": fl[kind],
            }
            entry["conserved"] = entry["sent"] == (
                entry["delivered"] + entry["dropped"] + entry["in_flight"]
            )
            ok = ok and bool(entry["conserved"])
            out[label] = entry
        out["conserved"] = ok
        return out

    def result(self, wall: float, seed: int) -> PacketResult:
        sc = self.scenario
        n = int(self.gi[C.G_NSAMP])
        t = self.s_t[:n].copy()
        dt = np.diff(t, prepend=t[:1]) if n else t
        safe_dt = np.where(dt > 0, dt, np.inf)
        flows = []
        # every per-flow array is a row of one array computed for all flows at once
        rec = self.rec[: int(self.gi[C.G_NREC])]
        order = np.argsort(rec[:, 9].astype(np.intp), kind="stable")
        cols = np.ascontiguousarray(rec[order, :9].T)
        delta = backlog(cols[1], cols[6], cols[3])
        bounds = np.searchsorted(rec[order, 9], np.arange(len(sc.flows) + 1))
        sf = np.ascontiguousarray(self.s_flow[:n].transpose(1, 2, 0))  # flow, column, time
        good = sf[:, 1, :]
        gp_all = np.diff(good, axis=1, prepend=good[:, :1]) / safe_dt
        fi, ff = self.fi, self.ff
        for f, fl in enumerate(sc.flows):
            a, b = int(bounds[f]), int(bounds[f + 1])
            loss = np.asarray(self.losses[f], dtype=np.float64).reshape(-1, 4).T.copy()
            flows.append(
                FlowTrace(
                    name=fl.name,
                    algorithm=self.laws[f].name,
                    start_s=fl.start_s,
                    stop_s=fl.stop_s,
                    round_t_s=cols[0, a:b],
                    round_cwnd_pkts=cols[1, a:b],
                    round_next_cwnd_pkts=cols[2, a:b],
                    round_rtt_mean_s=cols[3, a:b],
                    round_rtt_min_s=cols[4, a:b],
                    round_rtt_max_s=cols[5, a:b],
                    round_base_rtt_s=cols[6, a:b],
                    round_delta_pkts=delta[a:b],
                    round_phase=cols[7, a:b],
                    round_ssthresh_pkts=cols[8, a:b],
                    cwnd_pkts=sf[f, 0],
                    goodput_pps=gp_all[f],
                    srtt_s=sf[f, 3],
                    loss_t_s=loss[0],
                    loss_kind=loss[1],
                    loss_cwnd_before_pkts=loss[2],
                    loss_cwnd_after_pkts=loss[3],
                    sent_pkts=int(fi[f, C.I_SENT]),
                    delivered_pkts=int(fi[f, C.I_GOOD]),
                    retransmissions=int(fi[f, C.I_RETX]),
                    fast_retransmits=int(fi[f, C.I_FASTRETX]),
                    timeouts=int(fi[f, C.I_TIMEOUTS]),
                    acks_sent=int(fi[f, C.I_ACKS_SENT]),
                    base_rtt_s=float(ff[f, C.F_BASE]),
                )
            )
        links = []
        for i, lk in enumerate(sc.links):
            by = self.s_link[:n, i, 2]
            util = np.diff(by, prepend=by[:1]) / (safe_dt * lk.rate_bps / 8.0)
            links.append(
                LinkTrace(
                    name=lk.name,
                    rate_bps=lk.rate_bps,
                    queue_pkts=self.s_link[:n, i, 0].copy(),
                    drops=self.s_link[:n, i, 1].copy(),
                    utilization=util,
                    red_avg_pkts=self.s_link[:n, i, 3].copy(),
                    arrivals=int(self.li[i, C.J_ARR]),
                    drops_total=int(self.li[i, C.J_DROPS]),
                    data_drops=int(self.li[i, C.J_DROPS_DATA]),
                    max_queue_pkts=int(self.li[i, C.J_MAXQ]),
                    bytes_out=float(self.lf[i, C.L_BYTES_OUT]),
                )
            )
        return PacketResult(
            scenario=sc,
            t_s=t,
            flows=tuple(flows),
            links=tuple(links),
            conservation=self.conservation(),
            events=int(self.gi[C.G_EVENTS]),
            wall_time_s=wall,
            seed=seed,
            law_calls=self.law_calls,
            law_time_s=self.law_time_s,
        )


# ============================================================================ entry point
def _sample_interval(scenario: Scenario, sample_interval: float | None) -> float:
    """The trace interval: ``sample_interval`` checked against the trace bounds, or the
    default 0.1 s coarsened to fit them (to a 1-2-5 multiple of 0.1 s)."""
    per_sample = 4 * (len(scenario.flows) + len(scenario.links)) + 1
    most = max(2, min(MAX_SAMPLES, MAX_TRACE_VALUES // per_sample))
    dur = scenario.duration_s
    if sample_interval is None:
        dt = DEFAULT_SAMPLE_INTERVAL
        k = 0
        while dur / dt + 1 > most:
            dt = DEFAULT_SAMPLE_INTERVAL * (1, 2, 5)[k % 3] * 10 ** (k // 3)
            k += 1
        return dt
    dt = check_positive("sample_interval", sample_interval)
    if dur / dt + 1 > most:
        raise ValueError(
            f"sample_interval={sample_interval!r} gives {dur / dt:.0f} samples over {dur} s; "
            f"at most {most:,} are kept for {len(scenario.flows)} flows and "
            f"{len(scenario.links)} links: give sample_interval >= {dur / (most - 1):g} "
            "(or leave it out: the default coarsens itself)"
        )
    return dt


def _validate(scenario: Scenario) -> None:
    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    for lk in scenario.links:
        if not (lk.rate_bps > 0 and math.isfinite(lk.rate_bps)):
            raise ValueError(f"link {lk.name!r}: rate must be > 0 and finite, got {lk.rate_bps!r}")
        if lk.delay_s < 0 or not math.isfinite(lk.delay_s):
            raise ValueError(f"link {lk.name!r}: delay must be >= 0 and finite, got {lk.delay_s!r}")
        if not lk.buffer_pkts >= 1.0:
            raise ValueError(
                f"link {lk.name!r}: buffer must be at least 1 packet, got {lk.buffer_pkts!r}"
            )
        _red_params(lk)
    for fl in scenario.flows:
        if not fl.forward:
            raise ValueError(f"flow {fl.name!r} has no forward path (forward=())")
        if not fl.reverse:
            raise ValueError(
                f"flow {fl.name!r} has no ACK path (reverse=()); the packet simulator needs "
                "the links its ACKs cross"
            )
        if fl.start_s >= scenario.duration_s:
            raise ValueError(
                f"flow {fl.name!r} starts at start_s={fl.start_s!r}, not before the end of the "
                f"run (duration {scenario.duration_s!r} s); give start_s < duration"
            )
        if fl.start_s < 0:
            raise ValueError(f"flow {fl.name!r}: start_s must be >= 0, got {fl.start_s!r}")
    for c in scenario.cbr:
        if not (c.rate_bps > 0 and math.isfinite(c.rate_bps)):
            raise ValueError(f"CBR {c.name!r}: rate must be > 0 and finite, got {c.rate_bps!r}")
        if c.start_s < 0:
            raise ValueError(f"CBR {c.name!r}: start_s must be >= 0, got {c.start_s!r}")


def _compile_notice(progress: Any) -> threading.Timer | None:
    """On the first run of a process, a timer that tells ``progress.note`` (if it has
    one) that the kernels are compiling, should loading them take a while."""
    note = getattr(progress, "note", None)
    if _kernels_ready or not callable(note):
        return None
    timer = threading.Timer(_COMPILE_NOTICE_S, note, args=(COMPILE_NOTICE,))
    timer.daemon = True
    timer.start()
    return timer


def simulate_packets(
    scenario: Scenario,
    *,
    seed: int = 0,
    sample_interval: float | None = None,
    laws: Mapping[str, ControlLaw] | None = None,
    delayed_ack: bool = False,
    delack_timeout: float = 0.1,
    min_rto: float = 0.2,
    initial_rto: float = 1.0,
    max_rto: float = 60.0,
    fine_retransmit: bool | None = None,
    progress: Callable[[float], None] | None = None,
    max_packets: int = MAX_PACKETS,
) -> PacketResult:
    """Run ``scenario`` packet by packet.

    Parameters
    ----------
    scenario
        Links, flows (with their algorithm), CBR sources and duration
        (:mod:`tcpfluid.scenarios`).
    seed
        Seed of the ``numpy.random.Generator`` that draws RED's random numbers (the only
        randomness). Same seed, same trace.
    sample_interval
        Interval of the fixed-time traces (window, goodput, queues, drops), s. ``None``:
        0.1 s, or coarser for long runs or many flows and links, so that the traces hold
        at most :data:`MAX_SAMPLES` samples and :data:`MAX_TRACE_VALUES` values whatever
        the duration. A value that would pass those bounds is an error.
    laws
        Control-law objects by flow name, overriding the flows' ``algorithm``/``params``.
    delayed_ack
        Receivers acknowledge every second in-order packet, or after ``delack_timeout``
        seconds (ns-2's ``DelAck`` sink; out-of-order and hole-filling packets are ACKed at
        once).
    min_rto, initial_rto, max_rto
        Retransmission timer (RFC 6298: ``RTO = SRTT + 4 RTTVAR`` bounded to
        ``[min_rto, max_rto]``, ``initial_rto`` before the first sample, doubled on each
        timeout), s.
    fine_retransmit
        Vegas's fine-grained check (retransmit on the first or second duplicate ACK when
        the oldest unacknowledged packet has waited longer than ``SRTT + 4 RTTVAR``;
        document 000 §3.1). ``None``: on for every law but Reno.
    max_packets
        Ceiling on the packets the simulator holds (queued, propagating, or sent and not
        acknowledged: the slots of its rings, which double on demand). A run that would
        pass it stops with a ``ValueError`` naming the link or flow and the setting to
        change (typically: an infinite buffer under a law that never backs off). The
        default, 4,000,000, is about 1 GB at the peak (measured: 0.9 GB).
    progress
        Called with the fraction of the simulated time done, in [0, 1], at most about ten
        times per second of wall time (and with 1.0 at the end); ``None``: no reporting.

    Returns
    -------
    PacketResult
        Traces, counters, and the packet-conservation check.

    Raises
    ------
    ValueError, TypeError
        For a bad configuration, before anything runs: a flow without a path, a link of zero
        rate, a buffer below one packet, a flow starting at or after the end, a bad option.
    """
    _validate(scenario)
    check_int("seed", seed, minimum=0)
    dt = _sample_interval(scenario, sample_interval)
    cap_packets = check_int("max_packets", max_packets, minimum=1024)
    dto = check_positive("delack_timeout", delack_timeout)
    lo = check_positive("min_rto", min_rto)
    ini = check_positive("initial_rto", initial_rto)
    hi = check_positive("max_rto", max_rto)
    if not lo <= hi:
        raise ValueError(
            f"min_rto must be <= max_rto, got min_rto={min_rto!r}, max_rto={max_rto!r}"
        )
    if not isinstance(delayed_ack, bool):
        raise TypeError(f"delayed_ack must be True or False, got {delayed_ack!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable taking a float or None, got {progress!r}")
    if fine_retransmit is not None and not isinstance(fine_retransmit, bool):
        raise TypeError(f"fine_retransmit must be True, False or None, got {fine_retransmit!r}")
    if laws is not None:
        if not isinstance(laws, Mapping):
            raise TypeError(
                f"laws must map flow names to ControlLaw objects ({{'S1-D1': law}}), got "
                f"{type(laws).__name__} {laws!r}"
            )
        known = {f.name for f in scenario.flows}
        extra = sorted(set(laws) - known)
        if extra:
            raise ValueError(f"laws names unknown flow(s) {extra}; flows: {sorted(known)}")
    made: dict[tuple[str, str], ControlLaw] = {}
    law_objs = [_law_for(fl, laws, made) for fl in scenario.flows]
    sim = _Sim(
        scenario,
        law_objs,
        seed=int(seed),
        sample_interval_s=dt,
        delayed_ack=delayed_ack,
        delack_timeout_s=dto,
        min_rto_s=lo,
        initial_rto_s=ini,
        max_rto_s=hi,
        fine_retransmit=fine_retransmit,
        max_packets=cap_packets,
    )
    notice = _compile_notice(progress)
    t0 = time.perf_counter()
    # the loop allocates few Python objects; a cyclic collection in the middle of it only
    # costs time (it scanned every round record before they were arrays)
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        sim.run(progress, notice)
    finally:
        if notice is not None:
            notice.cancel()
        if gc_was_on:
            gc.enable()
    wall = time.perf_counter() - t0
    res = sim.result(wall, int(seed))
    if not res.conserved:  # pragma: no cover - a bug in the engine
        raise RuntimeError(f"packet conservation violated: {res.conservation}")
    return res
