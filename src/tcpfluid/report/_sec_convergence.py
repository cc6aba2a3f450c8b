"""Section ``convergence-bdp``: convergence time against the BDP (the Quick Vegas paper's
Figs. 10-12, the TCP-Ho paper's Figs. 5, 11, 12): round model, ODE and packet simulator
beside the closed forms."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import plot
from ..algorithms import get_law
from ..analytic import conspicuous_round, rounds_to_equilibrium, tcp_ho_reach_round
from ..scenarios import build_scenario
from ._common import (
    COLUMN,
    DOCUMENT_PARAMS,
    LABEL,
    NO_FIGURE_VALUES,
    QV_DETECTION_LAG_ROUNDS,
    CaseSection,
    Runs,
    column_series,
    engine_cells,
    err_na,
    num,
    phase_range,
    run_task,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_columns, draw_lines
from ._sec_analytic import _NAMES, D_S, _qv_basic, _rounds_to_reach, kb_to_pkts
from ._sec_dynamics import _engine_values
from ._table import CLOSED_FORM, NA, ODE, PACKET, PHASE_MAX, PHASE_MIN, ROUNDS, Row

# ============================================================ convergence time vs BDP
_CB_ALGS = ("vegas", "quick-vegas", "fast", "tcp-ho")


def _cb_grid(cfg: ReportConfig) -> list[float]:
    return [500.0, 2000.0] if cfg.quick else [150.0, 500.0, 1000.0, 2000.0, 3000.0, 4000.0, 5000.0]


def _cb_overrides(kb: float) -> dict[str, Any]:
    b = kb_to_pkts(kb)
    return _qv_basic(b, cbr=f"{b / D_S * 8000.0 / 2 / 1e6:g}Mbps")


#: the engines of a case, in the order of its tasks
_CB_ENGINES = ("rounds", "packet", "ode")


#: the changes whose settling time is shown over the phase of the change ("halved": the
#: CBR start, "doubled": its stop), moved by these fractions of the flow's round at the
#: change (docs/report.md, "Spreads are shown, not used to pass")
_PHASE_KINDS = ("halved", "doubled")
_PHASE_FRACTIONS = (0.25, 0.5, 0.75)
#: a case's runs: the engines' nominal ones, then the packet runs over the phase
_CB_RUNS = (*_CB_ENGINES, *(f"phase {f}" for f in _PHASE_FRACTIONS))
#: seconds a phase run goes on after its last change (the slowest row settles in ~6 s)
_PHASE_TAIL_S = 40.0


def _round_at_change(a: str, b: float, kind: str) -> float:
    """The flow's round (s) just before the change: d + q*/μ_before, q* the law's
    equilibrium backlog (FAST: α; Vegas, Quick Vegas: (α + β)/2; TCP-Ho: 0) and μ_before
    the whole rate b/d before the halving, half of it before the doubling."""
    p = get_law(a).params()
    q = p["alpha"] if a == "fast" else (p["alpha"] + p["beta"]) / 2.0 if "beta" in p else 0.0
    rate = b / D_S if kind == "halved" else b / D_S / 2.0
    return D_S + float(q) / rate


def _phase_overrides(a: str, kb: float, frac: float) -> dict[str, Any]:
    """Overrides of one phase run of (law ``a``, ``kb``): the CBR's start and stop moved by
    ``frac`` of the round at that change."""
    b, o = kb_to_pkts(kb), _cb_overrides(kb)
    cbr = build_scenario("qv-basic", **o).cbr[0]
    t_on = float(cbr.start_s) + frac * _round_at_change(a, b, "halved")
    t_off = float(cbr.stop_s) + frac * _round_at_change(a, b, "doubled")
    times = {"duration": t_off + _PHASE_TAIL_S, "cbr_start": t_on, "cbr_stop": t_off}
    return o | {k: f"{v:.6f}s" for k, v in times.items()}


def _in_rtts(v: float | NA) -> float | NA:
    return v if isinstance(v, NA) else v / D_S


def _cb_closed(a: str, b: float) -> dict[str, float | NA]:
    """The closed forms of law ``a`` at μd = ``b`` packets, each of its own quantity:
    ``new``, the round a new connection's window first reaches μd (Vegas: eq. (2); TCP-Ho:
    its first Table-4 window at or above μd); ``doubled``, the rounds from the doubling
    until the window reaches nW (n = 2, W = μd/2: (n − 1)W for Vegas, eq. (12)'s ⌈i⌉ + 2
    for Quick Vegas; ``doubled_i``: eq. (12)'s i)."""
    none = NA("no closed form in the documents")
    p = DOCUMENT_PARAMS[a]
    out: dict[str, float | NA] = {"new": none, "doubled": none, "doubled_i": none}
    if a == "vegas":
        out["new"] = float(conspicuous_round(a, b, gamma=p["gamma"]))
    if a == "tcp-ho":
        out["new"] = float(tcp_ho_reach_round(b))
    if a in ("vegas", "quick-vegas"):
        i = float(rounds_to_equilibrium(a, b / 2.0, 2.0, beta=p["beta"]))
        out["doubled_i"] = i
        out["doubled"] = i if a == "vegas" else math.ceil(i) + QV_DETECTION_LAG_ROUNDS
    return out


#: the settling rows' closed-form cell: the closed forms count another quantity
_CF_OTHER = {
    "new": NA(prose("convergence-bdp", "cf_other_new")),
    "doubled": NA(prose("convergence-bdp", "cf_other_doubled")),
}


def _mark_not_settled(ax: Any, xs: list[float], color: str, marker: str) -> None:
    """Mark the BDPs ``xs`` whose run did not settle on a band at the top of ``ax``."""
    from matplotlib.patches import Rectangle

    if not xs:
        return
    if not any(p.get_gid() == "not-settled" for p in ax.patches):
        band = {"transform": ax.transAxes, "color": "0.92", "gid": "not-settled", "zorder": 0}
        ax.add_patch(Rectangle((0.0, 0.92), 1.0, 0.08, **band))
        text = {"transform": ax.transAxes, "fontsize": 6, "va": "center", "color": "0.35"}
        ax.text(1.005, 0.96, "did not\nsettle", **text)
    hollow: dict[str, Any] = {"facecolors": "none"} if marker == "o" else {}
    ax.scatter(
        xs, [0.96] * len(xs), transform=ax.get_xaxis_transform(), color=color,
        marker=marker, s=24, clip_on=False, zorder=5, **hollow,
    )  # fmt: skip


_CB_KINDS = (
    ("new", "new connection"),
    ("halved", "bandwidth halved"),
    ("doubled", "bandwidth doubled"),
)
_CB_COLORS = {"vegas": "C0", "quick-vegas": "C3", "fast": "C2", "tcp-ho": "C4"}
#: (column, legend, line style) of the engines' curves: round model dashed, packets solid
_CB_ENGINE_LINES: tuple[tuple[str, str, dict[str, Any]], ...] = (
    (ROUNDS, "round model", {"linestyle": "--", "marker": "o", "fillstyle": "none"}),
    (ODE, "ODE", {"linestyle": ":", "marker": "+", "linewidth": 0.8}),
    (PACKET, "packet sim", {"linestyle": "-", "marker": "x"}),
)
#: engine column -> its marker on the 'did not settle' band
_CB_MARKERS = {ROUNDS: "o", ODE: "+", PACKET: "x"}
#: the quantity of each closed form's own row (:func:`_cb_closed`'s keys)
_REACH = {
    "new": "new connection: round the window first reaches μd",
    "doubled": "bandwidth doubled: rounds until the window reaches nW (n = 2, W = μd/2)",
}


def _cb_row(
    a: str, kb: float, quantity: str, unit: str, cf: float | NA, eng: dict[str, float | NA],
    reference: str, beside: dict[str, float | NA],
) -> tuple[str, Row]:  # fmt: skip
    """A row of one law and BDP (``eng``: the engines' values; ``beside``: informative
    columns), as ``(table, row)``: its table is its quantity."""
    values = engine_cells(cf, eng[ROUNDS], eng[ODE], eng[PACKET], NO_FIGURE_VALUES) | beside
    setting = f"{_NAMES[a]}, BDP {kb:g} kb (μd = {kb_to_pkts(kb):g} pkts)"
    return quantity, Row(
        setting, quantity, unit, "rounds", values, reference, (*beside,), {"bdp_kb": kb}
    )


def _reach_counts(res: dict[str, Any], b: float, t_double: float) -> dict[str, float | NA]:
    """``new``: the round (1-based) whose window first reaches μd = ``b``; ``doubled``: the
    round boundaries from ``t_double`` until the window first reaches ``b``."""
    if "error" in res or "round_t_s" not in res:  # flow 0's per-round trace
        why = "the ODE run integrates a classical right-hand side: no rounds to count"
        na = err_na(res, "") if "error" in res else NA(why)
        return {"new": na, "doubled": na}
    t, w = np.asarray(res["round_t_s"][0]), np.asarray(res["round_cwnd_pkts"][0])
    start = float(np.asarray(res["start_s"], dtype=float)[0])
    return {
        "new": num(_rounds_to_reach(t, w, start, b), "the window never reached μd"),
        "doubled": num(_rounds_to_reach(t, w, t_double, b), "the window never reached nW"),
    }


def _cb_task(cfg: ReportConfig, case: tuple[str, float], run: str) -> Task:
    """A nominal run on engine ``run``, or the packet run over the change's phase ``run``."""
    a, kb = case
    if run in _CB_ENGINES:
        o, what = _cb_overrides(kb), f"{LABEL[run]} {a} {kb:g} kb"
    else:
        f = float(run.split()[1])
        o, what = _phase_overrides(a, kb, f), f"packet {a} {kb:g} kb, change moved by {f:.2f} round"
        run = "packet"
    return run_task(run, "qv-basic", a, o, f"convergence: {what}")


def _cb_rows(case: tuple[str, float], runs: Runs) -> Iterator[tuple[str, Row]]:
    """The rows of one law and BDP: the settling rows, each with the packets' range in RTTs
    over the nominal run and the phase runs, and the closed forms' own quantities."""
    a, kb = case
    b = kb_to_pkts(kb)
    ev = {e: _engine_values(r) for e, r in runs.items()}
    phase = {
        kind: phase_range([_in_rtts(ev[e][kind]) for e in ("packet", *_CB_RUNS[3:])])
        for kind in _PHASE_KINDS
    }
    # the available bandwidth doubles when the CBR stops
    t_double = float(build_scenario("qv-basic", **_cb_overrides(kb)).cbr[0].stop_s)
    cf = _cb_closed(a, b)
    reach = {COLUMN[e]: _reach_counts(runs[e], b, t_double) for e in _CB_ENGINES}
    for key, label in _CB_KINDS:
        vkey = "time_to_equilibrium_s" if key == "new" else key
        in_rtts = {COLUMN[e]: _in_rtts(ev[e][vkey]) for e in _CB_ENGINES}
        # the settling row, judged against the packet simulator (with the packets' range
        # over the change's phase); the closed forms count another quantity (their rows next)
        has = key in _CF_OTHER and not isinstance(cf[key], NA)
        other = _CF_OTHER[key] if has else NA("no closed form in the documents")
        spread = dict(zip((PHASE_MIN, PHASE_MAX), phase[key], strict=True)) if key in phase else {}
        yield _cb_row(a, kb, f"convergence, {label}", "RTTs", other, in_rtts, PACKET, spread)
        if key in _REACH and not isinstance(cf[key], NA):  # counted in each engine's rounds
            i = {"eq. (12) i": cf["doubled_i"]} if key == "doubled" and a == "quick-vegas" else {}
            eng = {c: reach[c][key] for c in reach}
            yield _cb_row(a, kb, _REACH[key], "rounds", cf[key], eng, CLOSED_FORM, i)


def _law_rows(tables: dict[str, list[Row]], quantity: str, a: str) -> list[Row]:
    """Law ``a``'s rows of the table of ``quantity`` (none: no such table)."""
    return [r for r in tables.get(quantity, []) if r.setting.startswith(_NAMES[a] + ",")]


def _cb_panel(
    ax: Any, kbs: list[float], tables: dict[str, list[Row]], key: str, label: str
) -> None:
    """One panel (one kind of change): every law's curves against the BDP."""
    for a in _CB_ALGS:
        col, settle = _CB_COLORS[a], _law_rows(tables, f"convergence, {label}", a)
        draw_columns(ax, kbs, settle, _CB_ENGINE_LINES, _NAMES[a], col)
        for c, marker in _CB_MARKERS.items():  # a run that did not settle: marked, not dropped
            # an n/a that says the run did not settle (not an engine error)
            cells = zip(kbs, (r.values[c] for r in settle), strict=True)
            xs = [x for x, v in cells if isinstance(v, NA) and "did not settle" in v.reason]
            _mark_not_settled(ax, xs, col, marker)
        cf = column_series(_law_rows(tables, _REACH.get(key, ""), a), CLOSED_FORM)
        if np.isfinite(cf).any():
            draw_lines(ax, kbs, [(cf, "closed form", {"linestyle": ":"})], _NAMES[a], col)
    ys = np.concatenate([np.empty(0)] + [np.asarray(ln.get_ydata(), float) for ln in ax.lines])
    if (ys[np.isfinite(ys)] > 0).any():  # a panel whose every run did not settle has no data
        ax.set_yscale("log")
        if any(p.get_gid() == "not-settled" for p in ax.patches):
            lo, hi = ax.get_ylim()  # room above the data for the 'did not settle' band
            ax.set_ylim(lo, hi * (hi / lo) ** 0.15)
    xlabel = "bandwidth-delay product (kb)" if key == "doubled" else ""
    plot.finish(ax, xlabel=xlabel, ylabel="convergence time (RTTs)", title=label, legend=False)


def _cb_figure(kbs: list[float], tables: dict[str, list[Row]]) -> Figure:
    """Convergence time against the BDP: one panel per kind of change, one shared legend."""
    fig, axes = plot.new_axes(3)
    for ax, (key, label) in zip(axes, _CB_KINDS, strict=True):
        _cb_panel(ax, kbs, tables, key, label)
    handles: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    legend = {"loc": "center left", "bbox_to_anchor": (0.95, 0.5), "fontsize": 7}
    fig.legend(list(handles.values()), list(handles), **legend)
    return Figure.from_matplotlib(fig, "convergence_vs_bdp", prose("convergence-bdp", "figure"))


CONVERGENCE_BDP = CaseSection(
    "convergence-bdp", "Convergence time vs BDP",
    lambda cfg: [(a, kb) for a in _CB_ALGS for kb in _cb_grid(cfg)], _cb_task, _cb_rows,
    ("convergence, new connection", _REACH["new"], "convergence, bandwidth halved",
     "convergence, bandwidth doubled", _REACH["doubled"]),
    figures=lambda cfg, _, tables: (_cb_figure(_cb_grid(cfg), tables),),
    engines=lambda case: _CB_RUNS,
    caption=lambda q: f"Convergence time vs BDP: {q}",
).spec  # fmt: skip
