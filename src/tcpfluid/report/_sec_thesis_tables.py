"""Sections on Tsang's thesis's tables besides Table 3.16 and Tables 3.21-3.25:
``thesis-vegas-delta`` (Tables 3.2-3.4), ``thesis-reno`` (Tables 3.12-3.13) and
``thesis-delayed-ack`` (Tables 3.26-3.28, packet runs of :mod:`._sec_thesis_many`); the
ns-2 set-up: :mod:`._thesis_ns2`, docs/thesis-tables.md."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from .. import plot
from ..analytic import jain_index
from ..engines import ENGINES as MODELS
from ..engines import _check_engine
from ..results import Result
from ..scenarios import build_scenario
from ._common import (
    COLUMN,
    ENGINES,
    STYLE,
    TWO_FLOW_SHARE,
    CaseSection,
    Runs,
    doc,
    engine_cells,
    engine_results,
    err_na,
    failure,
    mean_rate_since,
    run_cells,
    run_value,
    share_row,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_columns, render
from ._runs import checked_simulate
from ._sec_thesis_many import _MODULE as _MANY
from ._sec_thesis_many import _NO_CF, _SPREAD, _mf_grid, table_of
from ._table import DOCUMENT, NA, Row, Value, time_kind
from ._thesis_ns2 import (
    DELACK_TIMEOUT_S,
    MANY_FLOWS_MIN_RTO_S,
    ns2_initial_window,
    ns2_packet_options,
)

# ============================================================ Tables 3.2-3.4 (one Vegas-δ)
#: the thesis's δ of Tables 3.2-3.4
VEGAS_DELTAS = (1, 2, 3, 4, 5, 10)
#: "They are all measured after the simulation has started for 20 seconds" (§4.1.2)
VD_FROM_S = 20.0
#: the thesis's run: 60 s
VD_DURATION_S = 60.0
#: quick mode: a shorter run (the oscillation is periodic after the first seconds)
VD_QUICK_DURATION_S = 30.0

#: (key of the result, the thesis's table, row quantity, unit, kind)
_VD_QUANTITIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("actual_min", "3.2", "minimum actual rate", "pkts/s", "throughput"),
    ("actual_max", "3.2", "maximum actual rate", "pkts/s", "throughput"),
    ("expected_min", "3.2", "minimum expected rate", "pkts/s", "throughput"),
    ("expected_max", "3.2", "maximum expected rate", "pkts/s", "throughput"),
    ("window_min", "3.3", "minimum window", "pkts", "window"),
    ("window_max", "3.3", "maximum window", "pkts", "window"),
    ("delta_min", "3.4", "minimum v_delta_ (Δ)", "pkts", "queue"),
    ("delta_max", "3.4", "maximum v_delta_ (Δ)", "pkts", "queue"),
    ("delta_mean", "3.4", "mean v_delta_ (Δ)", "pkts", "queue"),
)


def vegas_delta_scenario(delta: float, duration_s: float = VD_DURATION_S) -> Any:
    """Tsang's thesis §4.1.2: one Enhanced Vegas flow (α = β = ``delta``) on the two-flow
    network with x1 = 30 ms (64 ms of propagation, minimum RTT 0.071211 s), RED 15/45, its
    window starting at ns-2's one packet."""
    o = {"flows": 1, "x1": "30ms", "queue": "red", "duration": f"{duration_s!r}s", "delta": delta}
    return ns2_initial_window(
        build_scenario("thesis-two-flow", **o).with_algorithm("enhanced-vegas")
    )


def round_samples(res: Any) -> dict[str, np.ndarray]:
    """Per round of flow 0 (its :class:`~tcpfluid.results.RoundLog`): time, the window the
    law saw, the round's mean RTT, BaseRTT and Δ = (W/BaseRTT − W/RTT)·BaseRTT (ns-2's
    v_delta_)."""
    r = res.rounds[0]
    return {
        "t": np.asarray(r.time_s),
        "w": np.asarray(r.window_pkts),
        "rtt": np.asarray(r.rtt_mean_s),
        "base": np.asarray(r.base_rtt_s),
        "delta": np.asarray(r.delta_pkts),
    }


def vegas_delta_run(delta: float, engine: str, duration_s: float = VD_DURATION_S) -> dict[str, Any]:
    """Tables 3.2-3.4 on one engine: over the rounds after :data:`VD_FROM_S`, the extremes
    of the actual rate W/RTT and the expected rate W/BaseRTT (packets/s), of the window and
    of Δ, and Δ's mean; and the rounds of the last 10 s (for the figure)."""
    _check_engine(engine, ENGINES)
    sc = vegas_delta_scenario(delta, duration_s)
    res = checked_simulate(sc, engine)
    if not isinstance(res, Result):
        return res
    s = round_samples(res)
    m = s["t"] > VD_FROM_S
    if not m.any():
        return failure(f"no round after {VD_FROM_S:g} s")
    w, rtt, base, d = s["w"][m], s["rtt"][m], s["base"][m], s["delta"][m]
    series = {"actual": w / rtt, "expected": w / base, "window": w, "delta": d}
    out = {f"{k}_{f}": float(getattr(v, f)()) for k, v in series.items() for f in ("min", "max")}
    last = s["t"] > duration_s - 10.0
    return {
        **out,
        "delta_mean": float(d.mean()),
        **{k: s[k][last].tolist() for k in ("t", "w", "delta")},
    }


def _vd_deltas(cfg: ReportConfig) -> tuple[int, ...]:
    return (1, 3, 10) if cfg.quick else VEGAS_DELTAS


def _vd_duration(cfg: ReportConfig) -> float:
    return VD_QUICK_DURATION_S if cfg.quick else VD_DURATION_S


_VD_NO_CF = NA("the thesis gives no closed form for the extremes of the oscillation")


def _vd_rows(d: int, runs: Runs) -> Iterator[tuple[str, Row]]:
    setting = f"Enhanced Vegas δ = {d} (Vegas-{d}), one flow at 64 ms"
    for key, tab, quantity, unit, kind in _VD_QUANTITIES:
        ref = doc(f"001/table{tab}/vegas-{d}/{key}")
        values = run_cells(_VD_NO_CF, runs, (key,), ref, reason="no value")
        q, case = f"{quantity}, after {VD_FROM_S:g} s", {"delta": d, "quantity": key}
        yield tab, Row(setting, q, unit, kind, values, DOCUMENT, case=case)


def _vd_figure(runs: dict[Any, dict[str, Any]], deltas: tuple[int, ...]) -> Figure:
    d = 3 if 3 in deltas else deltas[0]
    fig, axes = plot.new_axes(2)
    for e, r in engine_results(runs[d]):  # the rounds' values as steps
        style = STYLE[e] if e == "ode" else {**STYLE[e], "drawstyle": "steps-post"}
        plot.versus(r["t"], r["w"], ax=axes[0], label=COLUMN[e], **style)
        plot.versus(r["t"], r["delta"], ax=axes[1], label=COLUMN[e], **style)
    plot.finish(axes[0], xlabel="", ylabel="window (pkts)", title=f"Vegas-{d}", fontsize=6)
    cap = prose("thesis-vegas-delta", "window_caption", d=d)
    return render(
        fig, axes[1], "thesis_vegas_delta", cap, xlabel="time (s)",
        ylabel="v_delta_ Δ (pkts)", fontsize=6,
    )  # fmt: skip


THESIS_VEGAS_DELTA = CaseSection(
    "thesis-vegas-delta", "One Vegas-δ flow (thesis)", _vd_deltas,
    lambda cfg, d, e: Task(
        f"{__name__}:vegas_delta_run", {"delta": d, "duration_s": _vd_duration(cfg), "engine": e},
        f"thesis vegas-delta: {e} δ={d}",
    ),
    _vd_rows, ("3.2", "3.3", "3.4"),
    figures=lambda cfg, runs, _: (_vd_figure(dict(runs), _vd_deltas(cfg)),),
    fields=lambda cfg: {"run": f"{_vd_duration(cfg):g} s", "vd_from_s": VD_FROM_S},
).spec  # fmt: skip


# ===================================================== Tables 3.12-3.13 (two Reno flows)
#: the x2 of Tables 3.12-3.13, ms
RENO_X2_MS = (100, 80, 60, 40, 20, 10, 1)
#: goodputs are averaged from 10 s to the end of the 60-s run (§4.3: "Average goodputs are
#: measured after the simulation has started for 10 seconds"; §4.2.4 gives the same setting)
RENO_FROM_S = 10.0
#: the thesis's agents' maximum window (§1: "I set the window size to 30"), packets
THESIS_MAX_WINDOW = 30.0


def reno_two_flow_scenario(x2_ms: float, duration_s: float = 60.0) -> Any:
    """Tsang's thesis §4.2.4: two Reno flows on the two-flow network, x1 = 1 ms and
    ``x2_ms``, RED 15/45, buffer 100, each window starting at ns-2's one packet."""
    o = {"x2": f"{x2_ms!r}ms", "queue": "red", "duration": f"{duration_s!r}s"}
    return ns2_initial_window(build_scenario("thesis-two-flow", **o).with_algorithm("reno"))


def reno_two_flow_run(x2_ms: float, engine: str) -> dict[str, Any]:
    """Tables 3.12-3.13 on one engine: the two flows' goodputs (b/s) over 10-60 s and their
    Jain's index, and the largest window either flow reached."""
    sc = reno_two_flow_scenario(x2_ms)
    bits = 8.0 * sc.packet_size_bytes
    packets = MODELS[engine].granularity == "packet"
    # the packet senders recover as the thesis's ns-2 agents (_thesis_ns2)
    res = checked_simulate(sc, engine, **(ns2_packet_options(sc) if packets else {}))
    if not isinstance(res, Result):
        return res
    # goodput: the packets delivered in order to the receiver (retransmissions counted once)
    g = mean_rate_since(res.time_s, res.delivered_pkts(), RENO_FROM_S).tolist()
    out = {"goodput_bps": [x * bits for x in g], "jain": float(jain_index(g))}
    if not packets:
        return {**out, "max_window_pkts": float(np.max(np.asarray(res.window_pkts)))}
    windows = [np.asarray(f.window_pkts)[np.asarray(f.time_s) > RENO_FROM_S] for f in res.rounds]
    out["max_window_pkts"] = max(float(np.max(w, initial=0.0)) for w in windows)
    out["rounds_at_max_window"] = [float(np.mean(w >= THESIS_MAX_WINDOW)) for w in windows]
    return out


def _reno_grid(cfg: ReportConfig) -> tuple[int, ...]:
    return (100, 40, 1) if cfg.quick else RENO_X2_MS


_RENO_NO_CF = NA("the thesis gives no closed form for Reno's sharing")


def _reno_rows(x2: int, runs: Runs) -> Iterator[tuple[str, Row]]:
    setting, case = f"Reno, x2 = {x2} ms", {"x2_ms": x2}
    ref = doc(f"001/table3.12/reno/x2_{x2}")
    jains = run_cells(_RENO_NO_CF, runs, ("jain",), ref, reason="no value")
    yield "fair", share_row(setting, TWO_FLOW_SHARE, jains, DOCUMENT, two_flows=True, case=case)
    for i, name in ((0, "reno1"), (1, "reno2")):
        ref = doc(f"001/table3.13/{name}/x2_{x2}") / 1e3
        kb = run_cells(
            _RENO_NO_CF, runs, ("goodput_bps", i), ref, lambda x: x / 1e3, reason="no value"
        )
        rtt = "6 ms" if i == 0 else f"{2 * (x2 + 2)} ms"
        q = f"goodput of connection {i + 1} ({rtt}), 10–60 s"
        c = {"x2_ms": x2, "connection": i + 1}
        yield "goodput", Row(setting, q, "kb/s", "throughput", kb, DOCUMENT, case=c)


def _reno_figure(good_rows: list[Row], grid: tuple[int, ...]) -> Figure:
    """The goodput rows (connection 1 and 2 of each x2 of ``grid``) against x2."""
    fig, ax = plot.new_axes()
    lines: list[tuple[str, str, dict[str, Any]]] = [
        (DOCUMENT, "thesis", {"marker": "s", "markersize": 3}),
        *(
            (COLUMN[e], COLUMN[e], {"linestyle": "none", "marker": m, "fillstyle": "none"})
            for e, m in (("packet", "x"), ("rounds", "o"), ("ode", "."))
        ),
    ]
    for i in (0, 1):
        draw_columns(ax, list(grid), good_rows[i::2], lines, f"connection {i + 1}", f"C{i}")
    cap = prose("thesis-reno", "figure")
    return render(
        fig, ax, "thesis_reno", cap, xlabel="access delay x2 of connection 2 (ms)",
        ylabel="goodput, 10–60 s (kb/s)", title="Two Reno flows on 1.5 Mb/s, RED 15/45",
        fontsize=6,
    )  # fmt: skip


THESIS_RENO = CaseSection(
    "thesis-reno", "Two Reno flows (thesis)", _reno_grid,
    lambda cfg, x2, e: Task(
        f"{__name__}:reno_two_flow_run", {"x2_ms": x2, "engine": e}, f"thesis reno: {e} x2={x2} ms"
    ),
    _reno_rows, ("fair", "goodput"),
    figures=lambda cfg, _, tables: (_reno_figure(tables["goodput"], _reno_grid(cfg)),),
    fields=lambda cfg: {"reno_from_s": RENO_FROM_S},
).spec  # fmt: skip


# ======================================== Tables 3.26-3.28 (delayed ACKs, packets only)
#: the Vegas-3 shares (%) of Table 3.26, all its columns (their immediate-ACK runs are
#: Table 3.22's mixes and Table 3.21's Vegas-3, in thesis-many-flows)
DA_PERCENTS = (10, 30, 50, 70, 90, 100)
#: Table 3.27's run: 30 flows, half Vegas-3, delayed ACKs; the thesis does not name the
#: router: RED-5-15, its first (one of Table 3.26's runs)
T327_CASE = ("red-5-15", 30, 50)


def _da_cases(cfg: ReportConfig) -> list[tuple[str, int, int]]:
    counts, routers = _mf_grid(cfg)
    return [(r, n, p) for r in routers for n in counts for p in DA_PERCENTS]


#: the section's runs besides Table 3.26's: label -> (run function, its options): Table
#: 3.28's receivers (connection 1, connection 2; True: delaying); beside them, the library's
#: defaults: the initial window of 2 packets; the ACK of two packets echoing the first one
#: (RFC 7323), the rounds timed from the echoed samples; and Table 3.27's run from the
#: initial window of 2 packets
_RFC = {"delayed_ack_echo": "first", "ns2_vegas_timing": False}
_DA_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "IA-IA": ("two_flow_ack_run", {"delayed_ack": False}),
    "DA-DA": ("two_flow_ack_run", {"delayed_ack": True}),
    "DA-IA": ("two_flow_ack_run", {"delayed_ack": [True, False]}),
    "DA, initial window 2": ("two_flow_ack_run", {"delayed_ack": True, "initial_window": 2.0}),
    "DA-IA, ACK echoing the first packet": (
        "two_flow_ack_run", {"delayed_ack": [True, False], **_RFC}
    ),
    ", initial window 2": ("many_flows_run", {"initial_window": 2.0}),
}  # fmt: skip


def _da_task(cfg: ReportConfig, case: Any, run: tuple[str, int, int] | str) -> Task:
    """A delayed-ACK run of Table 3.26 (``run``: router, flows, Vegas-3 %), or one of
    :data:`_DA_RUNS`."""
    fn, kw = _DA_RUNS[run] if isinstance(run, str) else ("many_flows_run", {})
    if fn == "two_flow_ack_run":
        return Task(f"{_MANY}:{fn}", kw, f"thesis delayed ACKs: two flows {run}")
    (r, n, p), suffix = (T327_CASE, run) if isinstance(run, str) else (run, "")
    base = {"flows": n, "router": r, "law": "vegas-3", "vegas_percent": p, "delayed_ack": True}
    label = f"thesis delayed ACKs: packet {r} {n} {p} % vegas-3{suffix}"
    return Task(f"{_MANY}:{fn}", {**base, **kw}, label)


_DA_FLUID = NA("the fluid engines do not model delayed ACKs")
#: Table 3.28's mixed row: connection 1's receiver delays its ACKs, connection 2's does not
_DA_IA = "connection 1's receiver delays its ACKs, connection 2's does not (DA, IA)"
#: informative column: the same packet run with the library's initial window of 2 packets
_IW2 = "packet sim, initial window 2 (the library's)"
#: informative column: the same packet run with each delayed ACK of two packets echoing the
#: first one's send time (RFC 7323, the packet simulator's default), not the latest's
#: (ns-2's DelAckSink, the report's run), the senders' rounds timed from the echoed samples
_ECHO_RFC = "packet sim, delayed ACK echoing the first packet (RFC 7323)"
#: the setting of Table 3.28's rows, and its receivers
_T328_SETTING = "vegas-1_3, x1 = x2 = 1 ms, "
_IA_IA = "both receivers acknowledge at once (IA, IA)"
_DA_DA = "both receivers delay their ACKs (DA, DA)"


def _packet_row(
    setting: str, quantity: str, unit: str, kind: str, packet: Value, document: float,
    case: dict[str, Any], informative: Mapping[str, Value] | None = None,
) -> Row:  # fmt: skip
    """A row only the packet simulator runs (the fluid engines model no delayed ACKs), with
    ``informative`` packet columns beside."""
    extra = dict(informative or {})
    values = {**engine_cells(_NO_CF, _DA_FLUID, _DA_FLUID, packet, document), **extra}
    return Row(setting, quantity, unit, kind, values, DOCUMENT, informative=tuple(extra), case=case)


def _t26_rows(cases: tuple[tuple[str, int, int], ...], runs: Runs) -> Iterator[Row]:
    for router, n, pct in cases:
        ref = doc(f"001/table{table_of('3.26', router)}/{router}/n{n}/vegas{pct}/delayed_ack")
        pv = run_value(runs[(router, n, pct)], ("jain",), "no value")
        values = engine_cells(_NO_CF, _DA_FLUID, _DA_FLUID, pv, ref)
        who = "vegas-3" if pct == 100 else f"vegas-3 + Reno ({pct} % Vegas-3)"
        setting = f"{who}, delayed ACKs, {n} flows, {router.upper()}"
        case = {"router": router, "flows": n, "vegas_percent": pct, "delayed_ack": True}
        yield share_row(setting, _SPREAD, values, DOCUMENT, two_flows=False, case=case)


def _t27_medians(r27: Mapping[str, Any] | None) -> tuple[Value, Value]:
    """Over the Vegas flows of a run: the median first recorded BaseRTT and the median
    excess of the last one over the round-trip propagation (``n/a`` with the run's error,
    twice, when it gave none)."""
    if r27 is None or "error" in r27:
        na = err_na(r27 or {}, "not run")
        return na, na
    veg = [i for i, a in enumerate(r27["algorithm"]) if a != "reno"]
    first = float(np.median([r27["first_base_rtt_s"][i] for i in veg]))
    excess = float(np.median([r27["last_base_rtt_s"][i] - r27["prop_rtt_s"][i] for i in veg]))
    return first, excess


def _t27_rows(r27: Mapping[str, Any] | None, r27_iw2: Mapping[str, Any] | None) -> Iterator[Row]:
    """Table 3.27's rows from its run, with the same run from the library's initial window
    of 2 packets beside (a run that gave no values: its cells ``n/a`` with its error)."""
    beside = _t27_medians(r27_iw2)
    setting = "vegas-3, flows of a 50 % mix with Reno, delayed ACKs, 30 flows, RED-5-15"
    last = "last recorded BaseRTT minus the round-trip propagation, median over the Vegas flows"
    quantities = (
        ("first recorded BaseRTT, median over the Vegas flows", "first_base_rtt_median"),
        (last, "last_base_rtt_excess_median"),
    )
    for j, ((q, key), v) in enumerate(zip(quantities, _t27_medians(r27), strict=True)):
        ref, case = doc(f"001/table3.27/{key}"), {"quantity": key}
        yield _packet_row(setting, q, "s", time_kind(DOCUMENT), v, ref, case, {_IW2: beside[j]})


def _kbps(r: Mapping[str, Any], i: int) -> Value:
    """Connection ``i``'s goodput (kb/s) of a two-flow run, or ``n/a`` with its error."""
    v = run_value(r, ("goodput_bps", i), "no value")
    return v if isinstance(v, NA) else v / 1e3


def _t28_rows(ia: Any, da: Any, dai: Any, da2: Any, dai_rfc: Any) -> Iterator[Row]:
    """Table 3.28's rows from the two-flow runs (IA-IA, DA-DA, DA-IA; DA-DA from an initial
    window of 2; DA-IA with ACKs echoing the first packet)."""
    for label, r, keys in ((_IA_IA, ia, "ia-ia"), (_DA_DA, da, "da-da"), (_DA_IA, dai, "da-ia")):
        for i in (0, 1):
            echo = {_ECHO_RFC: _kbps(dai_rfc, i)} if keys == "da-ia" else {}
            yield _packet_row(
                _T328_SETTING + label, f"goodput of connection {i + 1}, 10–60 s", "kb/s",
                "throughput", _kbps(r, i),
                doc(f"001/table3.28/{keys}/goodput{i + 1}") / 1e3,
                {"acks": keys, "connection": i + 1}, echo,
            )  # fmt: skip

    def base_rtt(label: str, r: Any, keys: str, q: str, i: int, key: str, **extra: Any) -> Row:
        return _packet_row(
            _T328_SETTING + label, f"{q} BaseRTT of connection {i + 1}", "s", time_kind(DOCUMENT),
            run_value(r, (f"{q}_base_rtt_s", i), "no BaseRTT"), doc(f"001/table3.28/{keys}/{key}"),
            {"acks": keys, "connection": i + 1, "quantity": q}, extra,
        )  # fmt: skip

    # connection 1 delays its ACKs, connection 2 does not; then both delay (beside: the
    # same run from an initial window of 2); then both acknowledge at once
    both = [(i, q, f"{q}_base_rtt{i + 1}") for i in (0, 1) for q in ("first", "final")]
    yield from (base_rtt(_DA_IA, dai, "da-ia", q, i, key) for i, q, key in both)
    yield from (
        base_rtt(
            _DA_DA,
            da,
            "da-da",
            q,
            i,
            key,
            **{_IW2: run_value(da2, (f"{q}_base_rtt_s", i), "no BaseRTT")},
        )
        for i, q, key in both
    )
    yield base_rtt(_IA_IA, ia, "ia-ia", "final", 0, "final_base_rtt")


def _da_rows(cases: tuple[tuple[str, int, int], ...], runs: Runs) -> Iterator[tuple[str, Row]]:
    yield from (("3.26", r) for r in _t26_rows(cases, runs))
    yield from (("3.27", r) for r in _t27_rows(runs.get(T327_CASE), runs[", initial window 2"]))
    yield from (("3.28", r) for r in _t28_rows(*(runs[k] for k in list(_DA_RUNS)[:5])))


THESIS_DELAYED_ACK = CaseSection(
    "thesis-delayed-ack", "Delayed ACKs (thesis)", lambda cfg: [tuple(_da_cases(cfg))],
    _da_task, _da_rows, ("3.26", "3.27", "3.28"),
    fields=lambda cfg: {
        "iw2": _IW2, "echo_rfc": _ECHO_RFC, "delack_timeout_s": DELACK_TIMEOUT_S,
        "many_flows_min_rto_s": MANY_FLOWS_MIN_RTO_S,
    },
    # one case: Table 3.26's runs, then the others (in the order of _DA_RUNS)
    engines=lambda cases: (*cases, *_DA_RUNS),
).spec  # fmt: skip
