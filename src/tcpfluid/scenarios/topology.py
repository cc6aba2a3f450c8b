"""The building blocks of the registered scenarios (:mod:`tcpfluid.scenarios.catalogue`):
host pairs, the dumbbell, CBR schedules, each reading the builder's parameters ``p``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .. import units
from .._validation import check_nonnegative
from ..algorithms.registry import scenario_parameter_keys
from ._columns import FlowSeq, FlowTable, LinkSeq, LinkTable, check_intervals, law_index
from ._names import Family, Names
from .model import CbrSource, FlowSpec, Link, Scenario, _buffer, _real

__all__ = ["LAW_PARAMETER_KEYS", "RATE_KEYS", "law_params", "rates_with_units", "rtt_dumbbell"]

#: the builder parameters that are parameters of the control law: those the laws declare
#: as scenario keys (:func:`tcpfluid.algorithms.registry.scenario_parameter_keys`)
LAW_PARAMETER_KEYS: tuple[str, ...] = scenario_parameter_keys()

#: the builder parameters that are link or source rates: each needs a unit
#: (:func:`tcpfluid.units.link_rate_bps`); ``cbr`` also takes a share (``"50%"``) or ``"none"``
RATE_KEYS = ("bandwidth", "access_bandwidth", "cbr")

#: access links run this many times faster than the bottleneck a user's ``bandwidth`` sets
#: (:mod:`tcpfluid.scenarios.catalogue`) or the fastest link a scenario file declares
ACCESS_FACTOR = 10.0

_NO_CBR = ("none", "off", "0")


def rates_with_units(p: Mapping[str, Any]) -> dict[str, Any]:
    """``p`` with each rate of :data:`RATE_KEYS` checked for a unit, a packet rate
    (``"6250pps"``) turned into the bit rate of ``packet_size`` bytes per packet."""
    out = dict(p)
    pkt: float | None = None
    for key in RATE_KEYS:
        v = out.get(key)
        if v is None:  # absent or None
            continue
        if key == "cbr" and isinstance(v, str):
            text = v.strip().lower()
            if text in _NO_CBR or text.endswith("%"):
                continue
        if pkt is None:
            pkt = units.bytes_(out.get("packet_size", 1000.0), name="packet_size")
        bps = units.link_rate_bps(v, packet_size_bytes=pkt, name=key)
        try:
            units.bits_per_second(v)
        except ValueError:  # a packet rate: the builders read bit rates
            out[key] = f"{bps!r}bps"
    return out


def law_params(p: Mapping[str, Any]) -> dict[str, Any]:
    """The control-law parameters among builder parameters ``p`` (not ``None``), as floats."""
    out: dict[str, Any] = {}
    for key in LAW_PARAMETER_KEYS:
        v = p.get(key)
        if v is None:
            continue
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise ValueError(f"{key} must be a number, got {v!r}") from None
        out[key] = v
    return out


def _host_pairs(
    head: Sequence[Link],
    n: int,
    src_router: str,
    dst_router: str,
    acc_bw: float,
    src_delay: Any,
    dst_delay: Any,
    *,
    laws: Sequence[tuple[str | None, Mapping[str, Any]]],
    law: Any = 0,
    start_s: Any = 0.0,
    stop_s: Any = math.inf,
    tail: Sequence[Link] = (),
) -> tuple[LinkSeq, FlowSeq]:
    """The links (``head``, four per pair, ``tail``) and flows of ``n`` host pairs, as columns:
    flow ``S{i}-D{i}`` crosses ``S{i}-{src_router}``, ``head[0]``, ``{dst_router}-D{i}``
    (ACKs back over ``head[1]``), access wires of ``acc_bw`` and one-way delays
    ``src_delay``/``dst_delay``, running ``laws[law[i]]`` from ``start_s`` to ``stop_s``."""
    a, b = src_router, dst_router
    access = Family(1, n, (("S", f"-{a}"), (f"{a}-S", ""), (f"{b}-D", ""), ("D", f"-{b}")))
    ends = LinkTable.from_links([*head, *tail])
    h = len(head)
    src = np.broadcast_to(np.asarray(src_delay, dtype=np.float64), (n,))
    dst = np.broadcast_to(np.asarray(dst_delay, dtype=np.float64), (n,))
    links = LinkTable(
        Names([[lk.name for lk in head], access, [lk.name for lk in tail]]),
        np.concatenate([ends.rate_bps[:h], np.full(4 * n, acc_bw), ends.rate_bps[h:]]),
        np.concatenate(
            [ends.delay_s[:h], np.stack([src, src, dst, dst], axis=1).reshape(-1), ends.delay_s[h:]]
        ),
        np.concatenate([ends.buffer_pkts[:h], np.full(4 * n, math.inf), ends.buffer_pkts[h:]]),
        {k if k < h else k + 4 * n: v for k, v in ends.special.items()},
    )
    links.check()
    first = h + 4 * np.arange(n, dtype=np.int64)
    ptr = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    fwd = np.stack([first, np.zeros(n, dtype=np.int64), first + 2], axis=1).reshape(-1)
    rev = np.stack([first + 3, np.ones(n, dtype=np.int64), first + 1], axis=1).reshape(-1)
    flows = FlowTable(
        Names([Family(1, n, (("S", "-D", ""),))]),
        (ptr, fwd),
        (ptr.copy(), rev),
        np.broadcast_to(np.asarray(start_s, dtype=np.float64), (n,)).copy(),
        np.broadcast_to(np.asarray(stop_s, dtype=np.float64), (n,)).copy(),
        np.broadcast_to(np.asarray(law, dtype=np.int64), (n,)).copy(),
        laws,
    )
    check_intervals(flows.names, flows.start_s, flows.stop_s, "flow")
    return LinkSeq(links), FlowSeq(flows, links)


def _law(p: Mapping[str, Any]) -> list[Any]:
    """The one law of a builder's flows: ``p``'s algorithm and its law parameters."""
    return [(p.get("algorithm"), law_params(p))]


def _scenario(
    name: str,
    p: Mapping[str, Any],
    links: Sequence[Link],
    flows: Sequence[FlowSpec],
    cbr: Sequence[CbrSource] = (),
) -> Scenario:
    from .catalogue import SCENARIOS

    return Scenario(
        name=name,
        links=links,
        flows=flows,
        cbr=tuple(cbr),
        duration_s=units.seconds(p["duration"], name="duration"),
        packet_size_bytes=units.bytes_(p["packet_size"], name="packet_size"),
        ack_size_bytes=units.bytes_(p["ack_size"], name="ack_size"),
        params={k: v for k, v in p.items() if v is not None},
        description=SCENARIOS[name].description,
    )


def _access_topology(
    p: Mapping[str, Any],
    *,
    n_flows: int,
    scenario: str,
    cbr: Sequence[tuple[Any, float, float]] = (),
) -> Scenario:
    """The dumbbell of the Quick Vegas paper's Fig. 6 / the TCP-Ho paper's Fig. 4: S_i - R1 -
    R2 - D_i, R1-R2's delay making the round trip ``rtt``; CBR sources on their own wires."""
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    acc_d = units.time_or_zero(p["access_delay"], name="access_delay")
    rtt = units.seconds(p["rtt"], name="rtt")
    core_d = rtt / 2.0 - 2.0 * acc_d
    if core_d < 0.0:
        raise ValueError(
            f"rtt={p['rtt']!r} is shorter than the access links' round trip "
            f"(4 x access_delay = {4.0 * acc_d:g} s); give rtt >= {4.0 * acc_d:g} s"
        )
    buf = _buffer("buffer", p["buffer"], pkt)
    n = n_flows
    head = [Link("R1-R2", bw, core_d, buf), Link("R2-R1", bw, core_d, buf)]
    tail: list[Link] = []
    sources: list[CbrSource] = []
    for j, (rate, start, stop) in enumerate(cbr, start=n_flows + 1):
        tail += [Link(f"S{j}-R1", acc_bw, acc_d), Link(f"R2-D{j}", acc_bw, acc_d)]
        rate_bps = units.bits_per_second(rate, name="cbr")
        sources.append(
            CbrSource(f"CBR{j}", rate_bps, start, stop, (f"S{j}-R1", "R1-R2", f"R2-D{j}"))
        )
    links, flows = _host_pairs(head, n, "R1", "R2", acc_bw, acc_d, acc_d, laws=_law(p), tail=tail)
    return _scenario(scenario, p, links, flows, sources)


def _cbr_schedule(p: Mapping[str, Any]) -> list[tuple[Any, float, float]]:
    """``cbr`` (a bit rate, a share of the bottleneck such as ``"50%"``, or ``"none"``),
    ``cbr_start`` and ``cbr_stop`` as (rate, start, stop) entries."""
    spec = p["cbr"]
    if isinstance(spec, str) and spec.strip().lower() in _NO_CBR:
        return []
    start = units.time_or_inf(p["cbr_start"], name="cbr_start")
    stop = units.time_or_inf(p["cbr_stop"], name="cbr_stop")
    check_nonnegative("cbr_start", start)
    if isinstance(spec, str) and spec.strip().endswith("%"):
        share = units.share(spec, name="cbr")
        bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
        return [(bw * share, start, stop)]
    return [(spec, start, stop)]


def rtt_dumbbell(
    rate_bps: float,
    rtts_s: Sequence[float],
    laws: Sequence[str],
    *,
    duration_s: float,
    buffer_pkts: float = math.inf,
    red: bool = False,
    start_s: Sequence[float] | None = None,
    stop_s: Sequence[float] | None = None,
    cbr: tuple[float, float, float] | None = None,
    name: str = "dumbbell",
    packet_size_bytes: float = 1000.0,
) -> Scenario:
    """A dumbbell whose flows each have their own base RTT: flow ``S{i}-D{i}`` runs
    ``S{i} - R1 - R2 - D{i}``, the bottleneck's one-way delay a quarter of the first RTT,
    access links ten times its rate with the delays that make each flow's RTT.

    Parameters
    ----------
    rate_bps
        Bottleneck rate, bits/s.
    rtts_s, laws
        Each flow's round-trip propagation delay, s, and control law (same length).
    duration_s
        Length of the run, s.
    buffer_pkts, red
        The bottleneck's buffer, packets, and whether it drops by RED (thresholds at a
        quarter and three quarters of the buffer, ``max_p`` 0.1, ``w_q`` 0.002) or at its
        tail.
    start_s, stop_s
        Each flow's start and stop, s (default: the whole run).
    cbr
        ``(rate_bps, start_s, stop_s)`` of one constant-bit-rate source ``CBR`` across the
        bottleneck on its own access links (``C-R1``, ``R2-C``; 0.5 ms), or ``None``.
    name, packet_size_bytes
        The scenario's name and packet size, bytes.

    Examples
    --------
    >>> sc = rtt_dumbbell(10e6, [0.04, 0.1], ["vegas", "reno"], duration_s=20.0)
    >>> [round(2 * sum(sc.link(n).delay_s for n in f.forward), 3) for f in sc.flows]
    [0.04, 0.1]
    """
    n = len(rtts_s)
    starts = [0.0] * n if start_s is None else list(start_s)
    stops = [math.inf] * n if stop_s is None else list(stop_s)
    if n == 0 or {len(laws), len(starts), len(stops)} != {n}:
        raise ValueError(
            f"rtts_s, laws, start_s and stop_s need one entry per flow (at least one), "
            f"got lengths {n}, {len(laws)}, {len(starts)}, {len(stops)}"
        )
    core = 0.25 * rtts_s[0]
    acc_bps = 10.0 * rate_bps
    red_params = (
        {"min_th": 0.25 * buffer_pkts, "max_th": 0.75 * buffer_pkts, "max_p": 0.1, "w_q": 0.002}
        if red
        else {}
    )
    disc = "red" if red else "drop-tail"
    head = [
        Link("R1-R2", rate_bps, core, float(buffer_pkts), disc, red_params),
        Link("R2-R1", rate_bps, core),
    ]
    tail: list[Link] = []
    sources = []
    if cbr is not None:
        tail = [Link("C-R1", acc_bps, 0.0005), Link("R2-C", acc_bps, 0.0005)]
        sources.append(CbrSource("CBR", *cbr, ("C-R1", "R1-R2", "R2-C")))
    acc = [max(0.0, (rtt - 2.0 * core) / 4.0) for rtt in rtts_s]
    distinct, which = law_index([(alg, {}) for alg in laws])
    links, flows = _host_pairs(
        head, n, "R1", "R2", acc_bps, acc, acc, laws=distinct, law=which,
        start_s=starts, stop_s=stops, tail=tail,
    )  # fmt: skip
    return Scenario(
        name=name,
        links=links,
        flows=flows,
        cbr=tuple(sources),
        duration_s=duration_s,
        packet_size_bytes=packet_size_bytes,
    )


def _red(p: Mapping[str, Any], min_th: float, max_th: float) -> dict[str, float]:
    max_p = _real("red_max_p", p["red_max_p"], "a probability in (0, 1] such as 0.02")
    w_q = _real("red_w_q", p["red_w_q"], "a weight in (0, 1] such as 0.002")
    return {"min_th": min_th, "max_th": max_th, "max_p": max_p, "w_q": w_q}


def _core_wire(p: Mapping[str, Any]) -> tuple[float, float, float, float]:
    """``bandwidth``, ``access_bandwidth`` (bits/s), ``core_delay`` (s), ``buffer`` (packets)."""
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    return (
        units.bits_per_second(p["bandwidth"], name="bandwidth"),
        units.bits_per_second(p["access_bandwidth"], name="access_bandwidth"),
        units.time_or_zero(p["core_delay"], name="core_delay"),
        _buffer("buffer", p["buffer"], pkt),
    )
