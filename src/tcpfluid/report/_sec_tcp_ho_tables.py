"""Sections ``ho-fairness`` (the TCP-Ho paper's Tables 5-6), ``ho-friendliness`` (its Table 7)
and ``itcp-tables`` (the iTCP-Vegas paper's Tables 1-2 and Fig. 7); their settings are the
sections' intros in ``prose.toml``, the runs' length and measurement window
docs/paper-tables.md."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from functools import partial
from typing import Any

import numpy as np

from .. import plot
from ..engines import ENGINES as MODELS
from ..metrics import jain_index
from ..results import Result
from ..scenarios import build_scenario
from ..scenarios._paper_tables import HO_DIFFERENT_RTTS_MS, HO_MEASURE_FROM_S
from ..scenarios.mix import with_flow_params
from ..scenarios.reduction import bottleneck
from ._common import (
    COLUMN,
    ENGINES,
    NO_FIGURE_VALUES,
    CaseSection,
    doc,
    engine_results,
    engine_runs_cells,
    err_na,
    map_value,
    mean_rate_since,
    run_cells,
    share_spread,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_columns, render
from ._runs import checked_simulate
from ._sec_analytic import _NAMES
from ._table import CLOSED_FORM, DOCUMENT, NA, PACKET, ROUNDS, Row, Value, time_kind
from ._thesis_ns2 import ns2_fast_options

_LAWS = ("reno", "vegas", "fast", "tcp-ho")
_NO_CLOSED_FORM = NA("the TCP-Ho paper gives no closed form for this quantity")
#: Table 7's pairings (first scheme, second scheme), in the paper's order
_PAIRS: tuple[tuple[str, str], ...] = (
    ("reno", "vegas"),
    ("tcp-ho", "vegas"),
    ("tcp-ho", "reno"),
    ("fast", "vegas"),
    ("fast", "reno"),
    ("fast", "tcp-ho"),
)
_RTTS_TEXT = ", ".join(f"{r:g}" for r in HO_DIFFERENT_RTTS_MS)
_PROPORTIONS: tuple[tuple[int, int], ...] = ((15, 5), (10, 10), (5, 15))
_ODE_SKIPPED = NA(prose("ho-friendliness", "ode_skipped"))


def ho_table_run(
    scenario: str,
    algorithm: str,
    engine: str,
    overrides: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    flow_params: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """One run of a §5.2 scenario (``algorithm``: a law or a mix such as
    ``"reno:15,vegas:5"``; ``flow_params``: law parameters by flow selector) on ``engine``
    with ``options`` (packets: FAST flows as ns-2's FAST agent,
    :func:`~._thesis_ns2.ns2_fast_options`, unless ``options`` give ``fast_recovery``):
    each flow's mean goodput from :data:`HO_MEASURE_FROM_S` (packets/s), the bottleneck's
    utilization by it, the time until every flow settled and the loss events.
    ``{"error": message}`` when the engine refuses."""
    sc = build_scenario(scenario, algorithm=algorithm, **dict(overrides or {}))
    for selector, params in (flow_params or {}).items():
        sc = with_flow_params(sc, selector, params)
    opts = dict(options or {})
    if MODELS[engine].granularity == "packet":  # the paper ran ns-2 (§5): its FAST agent's
        opts = {**ns2_fast_options(sc), **opts}  # SACK recovery
    res = checked_simulate(sc, engine, **opts)
    if not isinstance(res, Result):
        return res
    thr = mean_rate_since(res.time_s, res.delivered_pkts(), HO_MEASURE_FROM_S)
    link = bottleneck(sc)
    assert link is not None
    mu = link.rate_bps / (8.0 * sc.packet_size_bytes)
    return {
        "algorithms": [f.algorithm for f in sc.flows],
        "base_rtt_s": [float(sc.base_rtt_s(f)) for f in sc.flows],
        "throughput_pps": thr.tolist(),
        "utilization": float(thr.sum() / mu),
        "jain": float(jain_index(thr)),
        "settled_s": res.summary.all_settled_time_s,
        "losses": [float(x) for x in res.summary.losses],
    }


_RUN = f"{__name__}:ho_table_run"


# ====================================================================== Tables 5 and 6
def _fair_laws(cfg: ReportConfig, table: str) -> tuple[str, ...]:
    if cfg.quick:  # fewer cases, the documents' settings
        return ("vegas", "tcp-ho") if table == "5" else ("tcp-ho",)
    return _LAWS


def _fair_cases(cfg: ReportConfig) -> list[tuple[str, str, str]]:
    """(table, scenario, law) of each case, in task order."""
    tables = (("5", "ho-fairness"), ("6", "ho-different-rtt"))
    return [(t, sc, a) for t, sc in tables for a in _fair_laws(cfg, t)]


def _jain_row(
    setting: str, quantity: str, runs: Mapping[str, Mapping[str, Any] | None], document: float,
    reference: str, case: Mapping[str, Any], shown: tuple[str, ...] = (),
) -> Row:  # fmt: skip
    """A fairness row: the flows' share spread CV = √(1/J − 1) per column, and the indices
    beside (informative, ``n/a`` ones too, then ``shown``)."""
    jains = run_cells(_NO_CLOSED_FORM, runs, ("jain",), document, skipped=_ODE_SKIPPED)
    values = {c: map_value(j, share_spread) for c, j in jains.items()}
    beside = {f"Jain's index, {c}": j for c, j in jains.items() if c != CLOSED_FORM}
    values, fair = {**values, **beside}, {**case, "quantity": "fairness"}
    return Row(setting, quantity, "", "share spread", values, reference, (*beside, *shown), fair)


def _fair_rows(table: str, law: str, runs: Mapping[str, Mapping[str, Any]]) -> Iterator[Row]:
    """The rows of one law of Table 5 (judged against the document) or Table 6 (the
    document shown for context, the layers judged against the packet simulator)."""
    context = table == "6"
    ref, shown = (PACKET, (DOCUMENT,)) if context else (DOCUMENT, ())
    case = {"table": table, "algorithm": law}
    setting = f"{_NAMES[law]}, five flows, {'different RTTs' if context else 'same RTT'}"
    q = "spread of the flows' shares (std/mean), 10–60 s"
    yield _jain_row(setting, q, runs, doc(f"004/table{table}/{law}/jain_index"), ref, case, shown)
    ends: dict[str, Value] = {}
    if table == "5" and law == "reno":
        lo, hi = doc("004/table5/reno/utilization_low"), doc("004/table5/reno/utilization_high")
        ends, udoc = {"document, low end": lo, "document, high end": hi}, (lo + hi) / 2.0
    else:
        udoc = doc(f"004/table{table}/{law}/utilization")
    uv = {**run_cells(_NO_CLOSED_FORM, runs, ("utilization",), udoc, lambda u: 100.0 * u), **ends}
    middle = " (document: the middle of its printed 80–96 %)" if ends else ""
    q = "bottleneck utilization by the flows' goodput, 10–60 s"
    c = {**case, "quantity": "utilization"}
    yield Row(setting + middle, q, "%", "throughput", uv, ref, (*ends, *shown), c)
    if table == "5":  # the time to balance is in the text of Table 5's setting only
        never = prose("ho-fairness", "never_settles")
        fast = NA("the document: FAST 'never converges'")
        balance = fast if law == "fast" else doc(f"004/table5/{law}/time_to_balance")
        tv = run_cells(_NO_CLOSED_FORM, runs, ("settled_s",), balance, reason=never, fallback="")
        at_least = " (document: 'at least 6 seconds')" if law == "reno" else ""
        q, c = "time to balance: every flow settled", {**case, "quantity": "time to balance"}
        yield Row(setting + at_least, q, "s", time_kind(DOCUMENT), tv, DOCUMENT, case=c)


def _fair_figure(cfg: ReportConfig, res: Mapping[str, Mapping[str, Any]]) -> Figure:
    """Each flow's mean goodput against its RTT on the different-RTT network (Table 6)."""
    laws = _fair_laws(cfg, "6")
    fig, axes = plot.new_axes(len(laws))
    styles = {"packet": ("x", "-"), "rounds": ("o", "--"), "ode": (".", ":")}
    for ax, law in zip(np.atleast_1d(axes), laws, strict=True):
        for e, r in engine_results(res[law]):
            rtt = np.asarray(r["base_rtt_s"]) * 1e3
            mbps = np.asarray(r["throughput_pps"]) * 8000.0 / 1e6
            marker, ls = styles[e]
            plot.versus(rtt, mbps, ax=ax, label=COLUMN[e], marker=marker, linestyle=ls)
        title = f"{_NAMES[law]}: Jain's index, document {doc(f'004/table6/{law}/jain_index'):.2f}"
        xlabel = "base RTT (ms)" if law == laws[-1] else ""
        plot.finish(ax, xlabel=xlabel, ylabel="goodput (Mb/s)", title=title, fontsize=6)
    cap = prose("ho-fairness", "figure", rtts_text=_RTTS_TEXT)
    return Figure.from_matplotlib(fig, "ho_different_rtt", cap)


HO_FAIRNESS = CaseSection(
    "ho-fairness", "TCP-Ho paper Tables 5-6", _fair_cases,
    lambda cfg, c, e: Task(
        _RUN, {"scenario": c[1], "algorithm": c[2], "engine": e},
        f"TCP-Ho paper Table {c[0]}: {e} {c[2]}",
    ),
    lambda c, runs: ((c[0], r) for r in _fair_rows(c[0], c[2], runs)), ("5", "6"),
    figures=lambda cfg, runs, _: (_fair_figure(cfg, {c[2]: r for c, r in runs if c[0] == "6"}),),
    fields=lambda cfg: {"rtts_text": _RTTS_TEXT},
).spec  # fmt: skip


# ============================================================================= Table 7
def _friend_cases(cfg: ReportConfig) -> list[tuple[str, str, int, int, tuple[str, ...]]]:
    """(first, second, n_first, n_second, engines) of each mix, in task order. The ODE runs
    the even split of every pairing (the report's CPU budget: an ODE run of these 20 flows
    on 6-ms rounds costs 1.1-1.8 s, the 12 uneven splits 18 s); quick mode runs one
    pairing."""
    pairs = (("tcp-ho", "vegas"),) if cfg.quick else _PAIRS
    props = ((10, 10),) if cfg.quick else _PROPORTIONS
    even: tuple[str, ...] = ENGINES
    uneven = ("packet", "rounds")
    return [(a, b, na, nb, even if na == nb else uneven) for a, b in pairs for na, nb in props]


def _scheme_mean_kbps(r: Mapping[str, Any] | None, alg: str) -> float | NA:
    if r is None:
        return _ODE_SKIPPED
    if "error" in r:
        return err_na(r, "no result")
    thr = [x for x, g in zip(r["throughput_pps"], r["algorithms"], strict=True) if g == alg]
    return float(np.mean(thr)) * 8.0 if thr else NA(f"no {alg} flow")


def _friend_rows(
    a: str, b: str, na: int, nb: int, runs: Mapping[str, Mapping[str, Any] | None]
) -> Iterator[Row]:
    base = f"004/table7/{a}-{b}/{na}-{nb}"
    setting = f"{_NAMES[a]} ×{na} with {_NAMES[b]} ×{nb}"
    case = {"pair": f"{a}-{b}", "proportion": f"{na}-{nb}"}
    q = "spread of the 20 flows' shares (std/mean), 10–60 s"
    yield _jain_row(setting, q, runs, doc(f"{base}/jain_index"), DOCUMENT, case)
    for alg in (a, b):
        mean = partial(_scheme_mean_kbps, alg=alg)
        tv = engine_runs_cells(_NO_CLOSED_FORM, runs, mean, doc(f"{base}/{alg}"))
        q = f"mean throughput of a {_NAMES[alg]} flow, 10–60 s"
        c = {**case, "quantity": "mean throughput", "scheme": alg}
        yield Row(setting, q, "kb/s", "throughput", tv, DOCUMENT, case=c)


#: the curves of a Table 7 panel: (column, what, style)
_FRIEND_LINES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (DOCUMENT, "document", {"marker": "s"}),
    (PACKET, PACKET, {"marker": "x", "linestyle": "none", "fillstyle": "none"}),
    (ROUNDS, ROUNDS, {"marker": "o", "linestyle": "--", "fillstyle": "none"}),
)


def _friend_figure(mixes: list[tuple[str, str, int, int, Any]], rows: list[Row]) -> Figure:
    """Mean throughput per scheme (the rows of each mix: fairness, then the first and the
    second scheme's mean) against the first scheme's count, per pairing."""
    pairs = list(dict.fromkeys(m[:2] for m in mixes))
    fig, axes = plot.new_axes(len(pairs))
    for ax, (a, b) in zip(np.atleast_1d(axes), pairs, strict=True):
        items = [i for i, m in enumerate(mixes) if m[:2] == (a, b)]
        xs = [mixes[i][2] for i in items]
        for j, alg in enumerate((a, b)):
            scheme_rows = [rows[3 * i + 1 + j] for i in items]
            draw_columns(ax, xs, scheme_rows, _FRIEND_LINES, _NAMES[alg], f"C{j}")
        xlabel = f"{_NAMES[a]} flows of 20" if (a, b) == pairs[-1] else ""
        title = f"{_NAMES[a]} with {_NAMES[b]}"
        plot.finish(ax, xlabel=xlabel, ylabel="kb/s per flow", title=title, fontsize=5)
    return Figure.from_matplotlib(fig, "ho_friendliness", prose("ho-friendliness", "figure"))


HO_FRIENDLINESS = CaseSection(
    "ho-friendliness", "TCP-Ho paper Table 7", _friend_cases,
    lambda cfg, c, e: Task(
        _RUN, {"scenario": "ho-friendliness", "algorithm": f"{c[0]}:{c[2]},{c[1]}:{c[3]}",
               "engine": e}, f"TCP-Ho paper Table 7: {e} {c[0]}-{c[1]} {c[2]}-{c[3]}",
    ),
    lambda c, runs: (("", r) for r in _friend_rows(c[0], c[1], c[2], c[3], runs)),
    figures=lambda cfg, runs, t: (_friend_figure([c for c, _ in runs], t[""]),),
    engines=lambda c: c[4],
).spec  # fmt: skip


# ============================================================= the iTCP-Vegas paper
_ITCP_SCENARIO = "itcp-long-delay"
#: Table 2's RTTs, ms (errata N4: the table's values are RTTs, as its header says)
_TABLE2_RTTS_MS = (240, 440, 640, 840)
_ITCP_NO_CF = NA("the iTCP-Vegas paper gives no closed form for this quantity")


def itcp_run(algorithm: str, engine: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """One run of ``itcp-long-delay`` with ``overrides``: the flow's average goodput (Mb/s),
    the first time its window reaches μd (s; NaN: never) and its running average goodput
    at each second (Mb/s). ``{"error": message}`` when the engine refuses."""
    sc = build_scenario(_ITCP_SCENARIO, **dict(overrides)).with_algorithm(algorithm)
    res = checked_simulate(sc, engine)
    if not isinstance(res, Result):
        return res
    t, dl = np.asarray(res.time_s, dtype=np.float64), res.delivered_pkts()[0]
    bits, end = 8.0 * sc.packet_size_bytes, sc.duration_s
    if res.rounds:  # the window each round's decision saw (the packet simulator's log)
        wt, w = np.asarray(res.rounds[0].time_s), np.asarray(res.rounds[0].window_pkts)
    else:
        wt, w = t, np.asarray(res.window_pkts, dtype=np.float64)[0]
    bdp = float(sc.fluid_view().path.bdp)
    full = np.flatnonzero(w >= bdp)
    secs = np.arange(1.0, math.floor(end) + 1.0)
    return {
        "mbps": float(np.interp(end, t, dl)) * bits / end / 1e6,
        "reach_s": float(wt[full[0]]) if full.size else math.nan,
        "avg_t_s": secs.tolist(),
        "avg_mbps": (np.interp(secs, t, dl) * bits / secs / 1e6).tolist(),
    }


def _itcp_cases(cfg: ReportConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(what, algorithm, overrides) of each case, in task order (quick: fewer cases)."""
    out: list[tuple[str, str, dict[str, Any]]]
    out = [("table1", a, {}) for a in ("itcp-vegas", "vegas")]
    for rtt in (240, 840) if cfg.quick else _TABLE2_RTTS_MS:
        o = {"bandwidth": "155Mbps", "rtt": f"{rtt}ms", "duration": "200s"}
        out.append((f"table2/rtt{rtt}", "itcp-vegas", o))
    if not cfg.quick:
        out.append(("fig7", "quick-vegas", {}))
    return out


_NEVER_FULL = "the window never reaches μd in the run"


def _itcp_rows(what: str, alg: str, runs: Mapping[str, Mapping[str, Any]]) -> list[Row]:
    name, case = _NAMES[alg], {"case": what, "algorithm": alg}
    if what == "table1":
        v = run_cells(_ITCP_NO_CF, runs, ("mbps",), doc(f"002/table1/{alg}"))
        setting, q = f"{name}, 622 Mb/s × 110 ms (RTT 260 ms)", "average throughput in 100 s"
        return [Row(setting, q, "Mb/s", "throughput", v, DOCUMENT, case=case)]
    if what.startswith("table2"):  # judged against the document
        secs, ref, key = 200, DOCUMENT, f"002/{what}"
        docs: tuple[Value, Value] = (doc(f"{key}/throughput"), doc(f"{key}/time_to_limit"))
        setting = f"{name}, 155 Mb/s, RTT {what.split('rtt')[1]} ms"
    else:  # Fig. 7: plotted only; the layers are compared with the packet simulator
        secs, ref, docs = 100, PACKET, (NO_FIGURE_VALUES, NO_FIGURE_VALUES)
        setting = f"{name}, 622 Mb/s × 110 ms (RTT 260 ms), Fig. 7"
    v = run_cells(_ITCP_NO_CF, runs, ("mbps",), docs[0])
    tv = run_cells(_ITCP_NO_CF, runs, ("reach_s",), docs[1], reason=_NEVER_FULL)
    reach = "time to reach the bandwidth limitation (window ≥ μd)"
    return [
        Row(setting, f"average throughput in {secs} s", "Mb/s", "throughput", v, ref, case=case),
        Row(setting, reach, "s", time_kind(ref), tv, ref, case=case),
    ]


def _itcp_figure(res: Mapping[tuple[str, str], Mapping[str, Mapping[str, Any]]]) -> Figure:
    """Running average throughput against time on the 622 Mb/s path (the paper's Fig. 7)."""
    fig, ax = plot.new_axes()
    laws = [(w, a) for (w, a) in res if w in ("table1", "fig7")]
    styles = {"packet": "-", "rounds": "--", "ode": ":"}
    for i, (w, a) in enumerate(laws):
        for e, r in engine_results(res[(w, a)]):
            plot.versus(
                r["avg_t_s"], r["avg_mbps"], ax=ax, label=f"{_NAMES[a]} {COLUMN[e]}",
                color=f"C{i}", linestyle=styles[e],
            )  # fmt: skip
    return render(
        fig, ax, "itcp_average_throughput", prose("itcp-tables", "figure"), xlabel="time (s)",
        ylabel="average throughput since 0 s (Mb/s)", title="622 Mb/s × 110 ms, one flow",
        fontsize=6,
    )  # fmt: skip


ITCP_TABLES = CaseSection(
    "itcp-tables", "iTCP-Vegas paper Tables 1-2", _itcp_cases,
    lambda cfg, c, e: Task(
        f"{__name__}:itcp_run", {"algorithm": c[1], "overrides": c[2], "engine": e},
        f"iTCP-Vegas paper {c[0]}: {e} {c[1]}",
    ),
    lambda c, runs: ((c[0].split("/")[0], r) for r in _itcp_rows(c[0], c[1], runs)),
    ("table1", "table2", "fig7"),
    figures=lambda cfg, runs, _: (_itcp_figure({(w, a): r for (w, a, _o), r in runs}),),
).spec  # fmt: skip
