"""Sections on the closed forms of slow start and convergence.

* ``critical-window`` - the Quick Vegas paper's Fig. 4, eqs. (6), (9), (10);
* ``new-equilibrium`` - the Quick Vegas paper's Fig. 5, eqs. (11), (12)

(``conspicuous``, the TCP-Ho paper's §4.3, is in :mod:`._sec_conspicuous`).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .. import plot
from ..analytic import critical_window, rounds_to_equilibrium, slow_start_exit
from ._common import (
    LABEL,
    NO_FIGURE_VALUES,
    QV_DETECTION_LAG_ROUNDS,
    RUNS,
    engine_cells,
    err_na,
    matched_overrides,
    num,
    run_task,
    run_value,
    section_result,
    setting_params,
)
from ._core import Figure, ReportConfig, SectionResult, SectionSpec, Task, prose
from ._figures import draw_columns, draw_lines, render
from ._runs import first_at_least
from ._table import ALGORITHM_NAMES, CLOSED_FORM, ENGINE_COLUMNS, NA, ODE, PACKET, ROUNDS, Row

D_S = 0.1  # the documents' 100 ms paths
_NAMES = ALGORITHM_NAMES

#: how the figures draw an engine's points: round model (open circles), packets (crosses)
_ENGINE_MARKERS: dict[str, dict[str, Any]] = {
    "rm": {"linestyle": "none", "marker": "o", "fillstyle": "none"},
    "pk": {"linestyle": "none", "marker": "x"},
}


def kb_to_pkts(kb: float) -> float:
    """A BDP in kilobits to 1000-byte packets."""
    return kb * 1000.0 / 8000.0


# =============================================================== critical window (Fig. 4)
def _cw_grid(cfg: ReportConfig) -> list[float]:
    return (
        [100.0, 1000.0, 5000.0]
        if cfg.quick
        else [100.0, 250.0, 500.0, 1000.0, 2000.0, 3000.0, 4000.0, 5000.0]
    )


_CW_ALGS = ("vegas", "quick-vegas")


def _cw_cases(cfg: ReportConfig) -> list[tuple[str, str, float]]:
    """(engine, law, BDP in kb) of each run after the round model's batches."""
    return [(e, a, kb) for e in ("packet", "ode") for a in _CW_ALGS for kb in _cw_grid(cfg)]


def _cw_tasks(cfg: ReportConfig) -> list[Task]:
    bdps = [kb_to_pkts(k) for k in _cw_grid(cfg)]
    tasks = [
        Task(
            f"{RUNS}:rounds_bdp_batch",
            {"algorithm": a, "params": {}, "bdp_pkts": bdps, "d_s": D_S, "rounds": 80},
            f"critical window: round model {a}",
        )
        for a in _CW_ALGS
    ]
    for e, a, kb in _cw_cases(cfg):
        o = {"cbr": "none", "duration": "6s"}
        o = matched_overrides("qv-basic", o, bdp_pkts=kb_to_pkts(kb), d_s=D_S)
        tasks.append(run_task(e, "qv-basic", a, o, f"critical window: {LABEL[e]} {a} {kb:g} kb"))
    return tasks


#: the slow-start threshold γ a sender effectively applies, as a fraction of the law's γ
#: (Quick Vegas's Δ reads the RTTs of a window already grown ×1.5: 2γ/3,
#: validation/test_cross_layer.py::
#: test_quick_vegas_leaves_slow_start_at_eq_10_with_two_thirds_gamma)
_MEASURED_GAMMA = {"vegas": 1.0, "quick-vegas": 2.0 / 3.0}


_NOT_LEFT = "did not leave slow start"


def _cw_row(
    a: str,
    kb: float,
    b: float,
    ex_window: float,
    printed: float,
    engines: tuple[float, Any, float | NA],
) -> Row:
    """The row of law ``a`` at one BDP (``b`` packets): the documents' exit window (the
    first slow-start window at or above W* of eq. (6) or (10) with the documents' γ,
    ``printed``) against the engines' exit windows, with the form read with the sender's
    one-round lag (``ex_window``), W* and its last-packet form beside."""
    r_w, p_w, o_w = engines
    eq = "(6)" if a == "vegas" else "(10)"
    beside = {
        "exit window with the sender's one-round lag": ex_window,
        f"W* eq. {eq}": float(critical_window(a, b, rtt="average", gamma=_gamma(a))),
        "W* last-packet RTT": float(critical_window(a, b, rtt="last", gamma=_gamma(a))),
    }
    values = {**engine_cells(printed, r_w, o_w, num(p_w, _NOT_LEFT), NO_FIGURE_VALUES), **beside}
    setting = f"{_NAMES[a]}, BDP {kb:g} kb (μd = {b:g} pkts)"
    q = "window of the round that leaves slow start"
    return Row(setting, q, "pkts", "window", values, CLOSED_FORM, tuple(beside), {"bdp_kb": kb})


def _gamma(a: str) -> float:
    """The documents' γ of law ``a``."""
    return setting_params(a)["gamma"]


def _cw_figure(kbs: list[float], rows: dict[str, list[Row]]) -> Figure:
    """W* and the exit windows (closed form, round model, packet simulator) against the BDP."""
    fig, ax = plot.new_axes()
    x = np.linspace(min(kbs), max(kbs), 200)
    for a, color in (("vegas", "C0"), ("quick-vegas", "C3")):
        eq = "6" if a == "vegas" else "10"
        w_star = critical_window(a, np.array([kb_to_pkts(v) for v in x]), rtt="average")
        draw_lines(ax, x, [(w_star, f"W* eq. ({eq})", {"linestyle": "-"})], _NAMES[a], color)
        lines = (
            (CLOSED_FORM, "exit window (closed form)", {"linestyle": ":", "marker": "."}),
            (ROUNDS, "round model", _ENGINE_MARKERS["rm"]),
            (PACKET, "packet simulator", _ENGINE_MARKERS["pk"]),
        )
        draw_columns(ax, kbs, rows[a], lines, _NAMES[a], color)
    return render(
        fig,
        ax,
        "critical_window",
        prose("critical-window", "figure"),
        xlabel="bandwidth-delay product (kb)",
        ylabel="window (packets)",
        title="Critical window vs BDP (d = 100 ms, γ = 1)",
    )


def _cw_assemble(cfg: ReportConfig, out: list[Any]) -> SectionResult:
    kbs = _cw_grid(cfg)
    # task results (see _cw_tasks): one round-model batch per law, then the runs
    rounds = dict(zip(_CW_ALGS, out, strict=False))
    runs = dict(zip(_cw_cases(cfg), out[len(_CW_ALGS) :], strict=True))
    by_alg: dict[str, list[Row]] = {a: [] for a in _CW_ALGS}
    for a in _CW_ALGS:
        g = _gamma(a)
        for j, kb in enumerate(kbs):
            b = float(kb_to_pkts(kb))
            ex = slow_start_exit(a, b, D_S, rtt="average", gamma=g * _MEASURED_GAMMA[a])
            printed = slow_start_exit(a, b, D_S, rtt="average", gamma=g).window_pkts
            p = runs[("packet", a, kb)]
            p_w = p["summary"]["ss_exit_window"] if "summary" in p else None
            o_w = run_value(runs[("ode", a, kb)], ("summary", "ss_exit_window"), _NOT_LEFT)
            r_w = float(rounds[a]["ss_exit_window_pkts"][j])
            by_alg[a].append(_cw_row(a, kb, b, ex.window_pkts, printed, (r_w, p_w, o_w)))
    rows = [r for a in _CW_ALGS for r in by_alg[a]]
    return section_result("critical-window", cfg, [rows], (_cw_figure(kbs, by_alg),))


CRITICAL_WINDOW = SectionSpec("critical-window", "Critical window vs BDP", _cw_tasks, _cw_assemble)


# ========================================================== new equilibrium (Fig. 5)
_NE_ALGS = ("vegas", "quick-vegas")
_NE_BASE_BPS = 10e6  # "original used bandwidth (10 Mbps)"


def _ne_grid(cfg: ReportConfig) -> list[int]:
    return [2, 4] if cfg.quick else list(range(2, 11))


@functools.cache  # read only; the scenario built once per case
def _ne_setup(n: int, algorithm: str) -> dict[str, Any]:
    w = _NE_BASE_BPS * D_S / 8000.0  # μd of the original 10 Mb/s, packets
    t1 = 30.0
    if algorithm == "vegas":
        t2 = 1.4 * (n - 1) * w * D_S + 10.0
    else:
        t2 = 40.0
    o = matched_overrides(
        "qv-basic",
        {
            "cbr": f"{(n - 1) * _NE_BASE_BPS / 1e6:g}Mbps",
            "cbr_start": "0s",
            "cbr_stop": f"{t1:g}s",
            "duration": f"{t1 + t2:g}s",
        },
        bdp_pkts=n * w,
        d_s=D_S,
    )
    return {"overrides": o, "t_change": t1, "w": w}


#: the runs of a case: (engine, label, options); the round model also with rtt=fluid
_NE_RUNS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("rounds", "round model", {}),
    ("packet", "packet", {}),
    ("rounds", "round model (fluid RTT)", {"rtt_model": "fluid"}),
    ("ode", "ODE", {}),
)


def _ne_tasks(cfg: ReportConfig) -> list[Task]:
    return [
        run_task(
            e,
            "qv-basic",
            a,
            _ne_setup(n, a)["overrides"],
            f"new equilibrium: {what} {a} n={n}",
            **opts,
        )
        for a in _NE_ALGS
        for n in _ne_grid(cfg)
        for e, what, opts in _NE_RUNS
    ]


def _rounds_to_reach(t: Any, w: Any, t_change: float, target: float) -> float | None:
    """Round boundaries after ``t_change`` until the window first reaches ``target``."""
    t = np.asarray(t)
    i = first_at_least(t, w, target, after=t_change)
    if i is None:
        return None
    return float(np.count_nonzero((t > t_change) & (t <= t[i])))


def _ne_count(a: str, n: int, res: dict[str, Any], engine: str) -> float | None:
    """Rounds from the change to nW of one run (None: never reached, or the run failed):
    the round model's per-round trace, else flow 0's round log."""
    if "error" in res:
        return None
    s = _ne_setup(n, a)
    t, w = (
        (res["time_s"], res["window_pkts"][:, 0])
        if engine == "rounds"
        else (res["round_t_s"][0], res["round_cwnd_pkts"][0])
    )
    return _rounds_to_reach(t, w, s["t_change"], n * s["w"])


def _ne_closed(a: str, w: float, n: int, beta: float) -> float:
    """The closed form of the engines' count from the change: (n − 1)W for Vegas; for Quick
    Vegas eq. (12) counted from the change, ⌈i⌉ + 2 (:data:`QV_DETECTION_LAG_ROUNDS`)."""
    i = float(rounds_to_equilibrium(a, w, n, beta=beta))
    return i if a == "vegas" else float(math.ceil(i) + QV_DETECTION_LAG_ROUNDS)


def _ne_ode_count(a: str, n: int, orr: dict[str, Any]) -> float | NA:
    """Rounds from the change to nW of the ODE run (the hybrid model's round trace)."""
    if "round_t_s" not in orr:
        return err_na(orr, "the ODE run kept no round trace")
    r = _ne_count(a, n, orr, "ode")
    return NA("window never reached nW") if r is None else r


_FLUID_RTT = "round model, rtt=fluid"


def _ne_row(
    a: str,
    n: int,
    cf: float,
    rm: float | None,
    pk: float | None,
    fl: float | None,
    od: float | NA,
) -> Row:
    """The row of law ``a`` at growth factor ``n`` (``od``: the ODE engine's count)."""
    never = "window never reached nW"
    w = _ne_setup(n, a)["w"]
    values = engine_cells(cf, num(rm, never), od, num(pk, never), NO_FIGURE_VALUES)
    values[_FLUID_RTT] = num(fl, never)
    if a == "quick-vegas":  # eq. (12)'s own count, from the first estimation showing the change
        values["eq. (12) i"] = float(rounds_to_equilibrium(a, w, n, beta=setting_params(a)["beta"]))
    setting = f"{_NAMES[a]}, 10 Mb/s → {10 * n} Mb/s (n = {n}, W = {w:g})"
    q = "rounds from the change until the window reaches nW"
    informative = tuple(values)[len(ENGINE_COLUMNS) :]
    return Row(setting, q, "rounds", "rounds", values, CLOSED_FORM, informative, {"n": n})


def _ne_figure(grid: list[int], rows: dict[str, list[Row]]) -> Figure:
    """Rounds to reach nW against n: closed forms (lines) and every engine (markers)."""
    fig, ax = plot.new_axes()
    for a, color in (("vegas", "C0"), ("quick-vegas", "C3")):
        eq = "(n−1)W" if a == "vegas" else "eq. (12) from the change, ⌈i⌉ + 2"
        lines = [
            (CLOSED_FORM, f"closed form {eq}", {"linestyle": "-"}),
            (ROUNDS, "round model", _ENGINE_MARKERS["rm"]),
            (ODE, "ODE", {"linestyle": "none", "marker": "^", "fillstyle": "none"}),
            (PACKET, "packet simulator", _ENGINE_MARKERS["pk"]),
        ]
        if a == "quick-vegas":
            lines.append((_FLUID_RTT, _FLUID_RTT, {"linestyle": "none", "marker": "+"}))
        draw_columns(ax, grid, rows[a], lines, _NAMES[a], color)
    ax.set_yscale("log")
    return render(
        fig,
        ax,
        "new_equilibrium",
        prose("new-equilibrium", "figure"),
        xlabel="bandwidth growth factor n",
        ylabel="rounds to reach nW (RTTs)",
        title="Rounds to a new equilibrium (10 Mb/s × 100 ms, W = 125 pkts)",
    )


def _ne_assemble(cfg: ReportConfig, out: list[Any]) -> SectionResult:
    by_alg: dict[str, list[Row]] = {a: [] for a in _NE_ALGS}
    out_it = iter(out)
    for a in _NE_ALGS:
        for n in _ne_grid(cfg):
            # task results (see _ne_tasks): round model, packet, round model with rtt=fluid,
            # ODE (its hybrid model keeps the packet simulator's round trace)
            rr, pr, fr, orr = (next(out_it) for _ in range(4))
            cf = _ne_closed(a, _ne_setup(n, a)["w"], n, setting_params(a)["beta"])
            rm, pk, fl = (
                _ne_count(a, n, r, e) for r, e in ((rr, "rounds"), (pr, "packet"), (fr, "rounds"))
            )
            by_alg[a].append(_ne_row(a, n, cf, rm, pk, fl, _ne_ode_count(a, n, orr)))
    rows = [r for a in _NE_ALGS for r in by_alg[a]]
    return section_result("new-equilibrium", cfg, [rows], (_ne_figure(_ne_grid(cfg), by_alg),))


NEW_EQUILIBRIUM = SectionSpec(
    "new-equilibrium", "Rounds to a new equilibrium", _ne_tasks, _ne_assemble
)
