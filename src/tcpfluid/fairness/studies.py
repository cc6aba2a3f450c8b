"""The fairness studies: one function per document table (see :mod:`tcpfluid.fairness`)."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import check_choice, check_int, check_positive
from ..fluid.ode import ODE_LAWS, OdeFlow, _ode_law_params, ode_problem, simulate_ode
from ..path import Path
from ..published import THESIS_TABLE_3_16
from ..scenarios import Scenario, build_scenario
from . import (
    _HO_TABLE_6,
    _HO_TABLE_7,
    _NO_RHS,
    _QV_TABLE_2,
    _QV_TABLE_3,
    _THESIS_SETTINGS,
    FairnessStudy,
    FloatArray,
    PacketEngine,
    _active_over,
    _check_algorithms,
    _check_engine,
    _check_window,
    _jain_or_nan,
    _listed,
    _ode,
    _packet_base_rtts,
    _packet_delivered,
    _summary,
    _throughputs,
    _window_rates,
    period_throughputs,
)

__all__ = [
    "ho_different_rtt_study",
    "ho_friendliness_study",
    "qv_different_rtt_study",
    "qv_many_flows_study",
    "thesis_two_flow_study",
]


def thesis_two_flow_study(
    *,
    x2_ms: Sequence[float] = tuple(THESIS_TABLE_3_16),
    settings: Sequence[str] = ("vegas-1_3", "vegas-1", "vegas-2", "vegas-3"),
    queue: str = "red",
    duration_s: float = 60.0,
    measure_from_s: float = 10.0,
    packet_engine: PacketEngine | None = None,
) -> FairnessStudy:
    """Tsang's thesis Table 3.16: Jain's index of the two-flow network over x2.

    Parameters
    ----------
    x2_ms
        Access delays of the long connection, ms (the table's rows; x1 = 1 ms).
    settings
        ``"vegas-1_3"`` (α = 1, β = 3), ``"vegas-1"``, ``"vegas-2"``, ``"vegas-3"``
        (Enhanced Vegas, δ = 1, 2, 3).
    queue
        ``"red"`` (the thesis's) or ``"drop-tail"``.
    duration_s, measure_from_s
        Run length and start of the averaging window, s (the thesis: 60 and 10).
    packet_engine
        Optional packet simulator (module docstring).

    Returns
    -------
    FairnessStudy
        Columns ``x2_ms, setting, min_rtt_long_s, ode_jain, ode_ratio`` (short/long),
        ``ode_overestimate_long_s``; with an engine ``packet_jain, packet_ratio``, the
        BaseRTT errors the packet flows recorded (``packet_base_rtt_error_short_s``,
        ``packet_base_rtt_error_long_s``) and ``ode_measured_x_jain`` (the ODE given those
        errors: Boutremans–Le Boudec); ``doc_jain`` (NaN for x2 not in the table, and for
        a configuration not the thesis's: another queue, run length or window).
    """
    engine = _check_engine(packet_engine)
    settings = _listed("settings", settings, "setting names")
    for s in settings:
        check_choice("settings", s, tuple(_THESIS_SETTINGS))
    if not settings:
        raise ValueError(f"settings must list at least one of {', '.join(_THESIS_SETTINGS)}")
    check_choice("queue", queue, ("red", "drop-tail"))
    T, m0 = _check_window(duration_s, measure_from_s)
    xs = [check_positive("x2_ms", x) for x in _listed("x2_ms", x2_ms, "access delays (ms)")]
    if not xs:
        raise ValueError("x2_ms must list at least one access delay, got none")
    # the document's numbers belong to its configuration only (RED, 60 s from 10 s)
    thesis = queue == "red" and (T, m0) == (60.0, 10.0)
    rows = []
    for x2 in xs:
        for setting in settings:
            algo, params = _THESIS_SETTINGS[setting]
            sc = build_scenario(
                "thesis-two-flow", x2=f"{x2}ms", queue=queue, duration=f"{T}s"
            ).with_algorithm(algo, **params)
            summ = _summary(_ode(sc, measure_from_s=m0))
            thr = _throughputs(summ)
            row: dict[str, Any] = {
                "x2_ms": x2,
                "setting": setting,
                "min_rtt_long_s": sc.base_rtt_s(sc.flows[1]),
                "ode_jain": summ.jain_index,
                "ode_ratio": float(thr[0] / thr[1]),
                "ode_overestimate_long_s": summ.extras["base_rtt_overestimate_s"][1],
            }
            if engine is not None:
                row.update(_thesis_packet_columns(sc, engine(sc), m0, T))
            doc = THESIS_TABLE_3_16.get(int(x2)) if float(x2).is_integer() and thesis else None
            row["doc_jain"] = doc[setting] if doc is not None else math.nan
            rows.append(row)
    return _study(
        "thesis-two-flow",
        "Tsang's thesis (2000), Table 3.16",
        rows,
        (
            "Both connections start at 0 s in the model (the thesis starts connection 1 "
            "first, by an unstated amount), so neither over-estimates its BaseRTT unless the "
            "queue it first sees is non-empty; the ODE has no slow start and no packet "
            f"bursts. Throughputs averaged over [{m0:g}, {T:g}] s. Queue: {queue}."
        ),
    )


def _thesis_packet_columns(sc: Scenario, pres: Any, m0: float, T: float) -> dict[str, Any]:
    """The packet columns of a thesis row: Jain's index and throughput ratio over
    ``[m0, T]`` s, the BaseRTT errors the packet flows recorded, and the ODE run again
    given those errors (Boutremans-Le Boudec with measured x_j, as the thesis's Table 3.6)."""
    pt = _window_rates(*_packet_delivered(pres), m0, T)
    prob = ode_problem(sc)
    err = [
        max(0.0, b - of.rtt_s) for b, of in zip(_packet_base_rtts(pres), prob.flows, strict=True)
    ]
    flows_x = [replace(of, base_rtt_error_s=e) for of, e in zip(prob.flows, err, strict=True)]
    sx = _summary(
        simulate_ode(
            flows_x,
            prob.path,
            t_end_s=T,
            red=prob.red,
            cross_traffic=prob.cross_traffic,
            measure_from_s=m0,
        )
    )
    return {
        "packet_jain": _jain_or_nan(pt),
        "packet_ratio": float(pt[0] / pt[1]) if pt[1] > 0 else math.nan,
        "packet_base_rtt_error_long_s": err[1],
        "packet_base_rtt_error_short_s": err[0],
        "ode_measured_x_jain": sx.jain_index,
    }


def _study(name: str, source: str, rows: list[dict[str, Any]], notes: str) -> FairnessStudy:
    """A :class:`FairnessStudy` of ``rows`` (one dict a row)."""
    import pandas as pd

    return FairnessStudy(name=name, source=source, table=pd.DataFrame(rows), notes=notes)


def _doc_columns(doc: Sequence[float] | None, names: Sequence[str]) -> dict[str, float]:
    """The document's printed values as ``doc_<name>`` columns (NaN where it prints none)."""
    return {f"doc_{n}": float(doc[i]) if doc else math.nan for i, n in enumerate(names)}


# ----------------------------------------------------------------------------- periods
def _check_edges_sampled(n_points: int, edges: Sequence[float], duration_s: float) -> None:
    """Refuse an ODE grid of ``n_points`` samples over ``duration_s`` that misses a period
    edge: a period's rate is read from the cumulative counts at its edges, and between
    samples those are interpolated (a flow joining mid-interval, read wrong)."""
    steps = [Fraction(e / duration_s).limit_denominator(10**6).denominator for e in edges]
    need = math.lcm(*steps)
    if (n_points - 1) % need:
        raise ValueError(
            f"n_points must put a sample on every period edge ({', '.join(f'{e:g}' for e in edges)}"
            f" s of a {duration_s:g}-s run): n_points - 1 a multiple of {need}, got "
            f"n_points={n_points} (e.g. {need * max(1, round((n_points - 1) / need)) + 1})"
        )


def _period_study(
    scenario_name: str,
    algorithms: Sequence[str],
    edges: Sequence[float],
    doc: dict[str, tuple[float, ...]],
    packet_engine: PacketEngine | None,
    overrides: dict[str, Any],
    n_points: int,
) -> list[dict[str, Any]]:
    n_points = check_int("n_points", n_points, minimum=2)  # the run's first and last sample
    base = build_scenario(scenario_name, **overrides)
    _check_edges_sampled(n_points, edges, base.duration_s)
    rows: list[dict[str, Any]] = []
    for algo in algorithms:
        sc = base.with_algorithm(algo)
        starts = [f.start_s for f in sc.flows]
        stops = [min(f.stop_s, sc.duration_s) for f in sc.flows]
        ode: list[tuple[NDArray[np.intp], FloatArray]] | None = None
        if algo in ODE_LAWS:
            r = _ode(sc, n_points=n_points).raise_for_status()
            ode = period_throughputs(r.time_s, r.series["delivered_pkts"], starts, stops, edges)
        pkt = None
        if packet_engine is not None:
            pkt = period_throughputs(*_packet_delivered(packet_engine(sc)), starts, stops, edges)
        printed = doc.get(algo, ())
        for i, (a, b) in enumerate(itertools.pairwise(edges)):
            row: dict[str, Any] = {"algorithm": algo, "period": f"{a:g}-{b:g} s"}
            # the flows active during all of the period: the scenario's, whichever engine ran
            row["active_flows"] = int(_active_over(starts, stops, a, b).size)
            row["ode_jain"] = math.nan if ode is None else _jain_or_nan(ode[i][1])
            if pkt is not None:
                row["packet_jain"] = _jain_or_nan(pkt[i][1])
            row["doc_jain"] = printed[i] if i < len(printed) else math.nan
            row["note"] = "" if ode is not None else _NO_RHS
            rows.append(row)
    return rows


def qv_many_flows_study(
    *,
    algorithms: Sequence[str] = ("vegas", "quick-vegas", "fast", "reno"),
    flows: int = 60,
    packet_engine: PacketEngine | None = None,
    n_points: int = 2001,
    **overrides: Any,
) -> FairnessStudy:
    """The Quick Vegas paper Table 2: Jain's index per 100-s period, 60 flows on 1 Gb/s.

    Flows C1–C20, C21–C40, C41–C60 start at 0, 100, 200 s and stay 300 s (scenario
    ``qv-many-flows``); the index of a period is over the flows active during all of it.
    ``flows`` (a multiple of the number of groups, 3 unless ``groups`` is overridden) and
    ``overrides`` (scenario parameters) allow smaller runs; the document's column is
    filled only for the defaults. Vegas and Quick Vegas use α = 2, β = 4 and FAST
    α = 100 (the Quick Vegas paper §5); New Reno is modelled as Reno. ``packet_engine``:
    optional packet simulator (:mod:`tcpfluid.fairness`); ``n_points``: the ODE's samples
    over the run, with one on every period edge (for the defaults' five periods,
    ``n_points - 1`` a multiple of 5).
    """
    n = check_int("flows", flows, minimum=3)
    algorithms = _check_algorithms("algorithms", algorithms)
    engine = _check_engine(packet_engine)
    sc0 = build_scenario("qv-many-flows", flows=n, **overrides)
    sizes = sorted(Counter(f.start_s for f in sc0.flows).values())
    if sizes[0] != sizes[-1]:
        raise ValueError(
            f"flows must be a multiple of the number of groups ({len(sizes)}), got flows={flows!r} "
            f"(groups of {', '.join(map(str, sizes))} flows)"
        )
    T = sc0.duration_s
    # periods between consecutive joins and leaves (0-100-...-500 s for the defaults)
    edges = sorted({0.0, T} | {t for f in sc0.flows for t in (f.start_s, f.stop_s) if t < T})
    # the document's numbers belong to its configuration only
    doc = _QV_TABLE_2 if (n == 60 and not overrides) else {}
    rows = _period_study(
        "qv-many-flows", algorithms, edges, doc, engine, {"flows": n, **overrides}, n_points
    )
    return _study(
        "qv-many-flows",
        "Quick Vegas paper (Chan, Lin, Ho 2008), Table 2",
        rows,
        (
            "Late joiners record the queue they find in their BaseRTT (Boutremans-Le "
            "Boudec over-estimation), which the model keeps; the model has no slow start, "
            "so its transients differ from ns-2's."
        ),
    )


def qv_different_rtt_study(
    *,
    algorithms: Sequence[str] = ("vegas", "quick-vegas", "fast", "reno"),
    packet_engine: PacketEngine | None = None,
    n_points: int = 2001,
    **overrides: Any,
) -> FairnessStudy:
    """The Quick Vegas paper Table 3: Jain's index per 50-s period, three RTT groups.

    Runs scenario ``qv-different-rtt``; the paper's Fig. 15 with the groups' delays is
    not in its text, so the RTTs (``rtt1``, ``rtt2``, ``rtt3`` overrides) are the
    scenario's choice and the document column is a reference, not a target.
    ``packet_engine``: optional packet simulator (:mod:`tcpfluid.fairness`); ``n_points``:
    the ODE's samples over the run, with one on every period edge (for the four periods,
    ``n_points - 1`` a multiple of 4).
    """
    algorithms = _check_algorithms("algorithms", algorithms)
    engine = _check_engine(packet_engine)
    sc0 = build_scenario("qv-different-rtt", **overrides)
    T = sc0.duration_s
    edges = list(np.linspace(0.0, T, 5))
    doc = _QV_TABLE_3 if not overrides else {}
    rows = _period_study("qv-different-rtt", algorithms, edges, doc, engine, overrides, n_points)
    return _study(
        "qv-different-rtt",
        "Quick Vegas paper (Chan, Lin, Ho 2008), Table 3",
        rows,
        (
            "Group RTTs are the scenario's (the paper's Fig. 15 is missing from its text). "
            "All flows start together, so none over-estimates its BaseRTT. A fluid Vegas "
            "flow holds its window wherever its backlog is in [α, β]: with α < β the "
            "equilibrium is not unique, and the short-RTT flows, whose windows grow "
            "fastest, settle higher in the band (α = 2, β = 4 on the scenario's defaults: "
            "about 4, 2.6 and 2 packets queued for the 50, 100 and 200 ms groups, Jain's "
            "index 0.92). With α = β (Enhanced Vegas, or the overrides alpha = beta) every "
            "flow keeps α packets queued and the flows share equally whatever the RTT."
        ),
    )


# ----------------------------------------------------------------------------- TCP-Ho
#: the TCP-Ho paper's parameters where they are not the registry's (its footnote: FAST
#: α = 100), as registry parameters
_PAPER_PARAMS: dict[str, dict[str, float]] = {"fast": {"alpha": 100.0}}


def ho_different_rtt_study(
    rtts_s: Sequence[float],
    *,
    algorithms: Sequence[str] = ("reno", "vegas", "fast", "tcp-ho"),
    bandwidth_pps: float = 100e6 / 8000.0,
    buffer_pkts: float = 300.0,
    duration_s: float = 200.0,
    measure_from_s: float = 100.0,
) -> FairnessStudy:
    """The TCP-Ho paper Table 6: fairness and utilization of five flows with different RTTs.

    Parameters
    ----------
    rtts_s
        Propagation RTT of each flow, s: the caller's choice (the paper's Fig. 13 is
        missing from its text), e.g. ``[0.05, 0.07, 0.09, 0.11, 0.13]``.
    algorithms
        Laws to run (``"tcp-ho"``, without an ODE right-hand side, gets the document's
        value only).
    bandwidth_pps, buffer_pkts
        Trunk rate (100 Mb/s in 1000-byte packets) and buffer (Table 5's 300 packets).
    duration_s, measure_from_s
        Run length and averaging window start, s.

    The ``doc_*`` columns are the paper's for five flows on its path (the defaults'
    rate and buffer), NaN otherwise. Every law runs with the registry's parameters
    (:mod:`tcpfluid.algorithms`; Vegas α = 2, β = 4, Enhanced Vegas δ = 3) except FAST,
    α = 100 (the paper's footnote). No
    packet column: the ODE runs the bare path of these propagation RTTs, which the
    registered scenario ``ho-different-rtt`` does not reproduce (its RTTs, set by its
    sources' access delays, add the links' transmission times); run that scenario on the
    ``"packet"`` engine for the packet simulator's values.
    """
    d = [check_positive("rtts_s", v) for v in _listed("rtts_s", rtts_s, "RTTs (s)")]
    if len(d) < 2:
        raise ValueError(f"rtts_s must list at least 2 flows, got {rtts_s!r}")
    algorithms = _check_algorithms("algorithms", algorithms)
    C = check_positive("bandwidth_pps", bandwidth_pps)
    T, m0 = _check_window(duration_s, measure_from_s)
    path = Path(C, min(d), buffer=buffer_pkts)
    # the document's numbers belong to its configuration only: five flows on 100 Mb/s
    # with 300 packets of buffer (the RTTs are the caller's: the paper's figure is missing)
    paper = len(d) == 5 and C == 100e6 / 8000.0 and float(buffer_pkts) == 300.0
    rows = []
    for algo in algorithms:
        row: dict[str, Any] = {"algorithm": algo}
        if algo in ODE_LAWS:
            params = _PAPER_PARAMS.get(algo, {})
            form = _ode_law_params(algo, params)  # the registry's law in the ODE's form
            law = tuple(sorted(params.items()))
            flows = [OdeFlow(algo, di, law_params=law, **form) for di in d]
            summ = _summary(simulate_ode(flows, path, t_end_s=T, measure_from_s=m0))
            row.update(ode_jain=summ.jain_index, ode_utilization=summ.utilization, note="")
        else:
            row.update(ode_jain=math.nan, ode_utilization=math.nan, note=_NO_RHS)
        row.update(_doc_columns(_HO_TABLE_6.get(algo) if paper else None, ("jain", "utilization")))
        rows.append(row)
    return _study(
        "ho-different-rtt",
        "TCP-Ho paper (Ho, Chan, Chen 2007), Table 6",
        rows,
        f"RTTs (caller's choice, Fig. 13 missing): {d}; buffer {buffer_pkts:g} packets.",
    )


def ho_friendliness_study(
    *,
    pairs: Sequence[tuple[str, str]] = tuple(_HO_TABLE_7),
    mixes: Sequence[tuple[int, int]] = ((15, 5), (10, 10), (5, 15)),
    duration_s: float = 60.0,
    measure_from_s: float = 20.0,
    packet_engine: PacketEngine | None = None,
) -> FairnessStudy:
    """The TCP-Ho paper Table 7: two kinds of flows sharing 10 Mb/s, 1 ms trunk, 120 packets.

    Each row is a pair of laws and a mix (number of flows of each, 20 in all): Jain's
    index over all 20 flows and the mean throughput of each kind (kbit/s), from the ODE
    (when both laws have a right-hand side), the packet engine (if given) and the paper.
    Built on scenario ``ho-basic`` (1 Gb/s x 1 ms access links) with the trunk's
    parameters of §5.2.2 and no CBR; Vegas uses the registry's α = 2, β = 4 and FAST
    α = 100.
    """
    engine = _check_engine(packet_engine)
    T, m0 = _check_window(duration_s, measure_from_s)
    kinds = [
        _check_algorithms("pairs", _two("pairs", pair))
        for pair in _listed("pairs", pairs, "pairs of algorithm names")
    ]
    counts = [_check_mix(m) for m in _listed("mixes", mixes, "pairs of flow counts")]
    if not kinds or not counts:
        raise ValueError(f"pairs and mixes must each list at least one, got {pairs!r}, {mixes!r}")
    rows = []
    for first, second in kinds:
        for n1, n2 in counts:
            base = build_scenario(
                "ho-basic",
                flows=n1 + n2,
                bandwidth="10Mbps",
                rtt="6ms",
                buffer=120,
                cbr="none",
                duration=f"{T}s",
            )
            sc = _mixed(base, [first] * n1 + [second] * n2)
            pkt_bits = 8.0 * sc.packet_size_bytes
            row: dict[str, Any] = {"pair": f"{first}-{second}", "mix": f"{n1:02d}-{n2:02d}"}
            fluid = first in ODE_LAWS and second in ODE_LAWS
            thr = np.full(n1 + n2, math.nan)  # no right-hand side: NaN ode_* columns
            if fluid:
                thr = _throughputs(_summary(_ode(sc, measure_from_s=m0)))
            row.update(_mix_columns("ode", thr, n1, pkt_bits), note="" if fluid else _NO_RHS)
            if engine is not None:
                pt = _window_rates(*_packet_delivered(engine(sc)), m0, T)
                row.update(_mix_columns("packet", pt, n1, pkt_bits))
            doc = _HO_TABLE_7.get((first, second), {}).get((n1, n2))
            row.update(_doc_columns(doc, ("jain", "mean_kbps_1", "mean_kbps_2")))
            rows.append(row)
    return _study(
        "ho-friendliness",
        "TCP-Ho paper (Ho, Chan, Chen 2007), Table 7",
        rows,
        (
            "Mean throughput of the first and second kind in kbit/s (1000-byte packets). "
            "The fluid Reno halves once per lost packet-rate unit (MGT), which over a "
            "120-packet drop-tail buffer is an approximation of ns-2's bursty losses."
        ),
    )


def _two(name: str, value: Any) -> tuple[Any, Any]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{name}: each entry must be a pair (first, second), got {value!r}")
    return value[0], value[1]


def _check_mix(mix: Any) -> tuple[int, int]:
    """A mix ``(n_first, n_second)``: flow counts >= 0, at least one flow."""
    n1, n2 = (check_int("mixes", n, minimum=0) for n in _two("mixes", mix))
    if n1 + n2 < 1:
        raise ValueError(f"mixes: a mix needs at least one flow, got {mix!r}")
    return n1, n2


def _mixed(base: Scenario, algorithms: Sequence[str]) -> Scenario:
    """``base`` with flow j running ``algorithms[j]`` (registry defaults, FAST α = 100)."""
    flows = tuple(
        replace(f, algorithm=a, params=_PAPER_PARAMS.get(a, {}))
        for f, a in zip(base.flows, algorithms, strict=True)
    )
    return replace(base, flows=flows)


def _mix_columns(prefix: str, thr: FloatArray, n1: int, pkt_bits: float) -> dict[str, float]:
    kbps = np.asarray(thr, dtype=np.float64) * pkt_bits / 1000.0
    first, second = kbps[:n1], kbps[n1:]
    return {
        f"{prefix}_jain": _jain_or_nan(thr),
        f"{prefix}_mean_kbps_1": float(first.mean()) if first.size else math.nan,
        f"{prefix}_mean_kbps_2": float(second.mean()) if second.size else math.nan,
    }
