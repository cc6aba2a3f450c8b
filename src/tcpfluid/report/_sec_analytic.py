"""Sections on the closed forms of slow start and convergence: ``critical-window`` (the
Quick Vegas paper's Fig. 4, eqs. (6), (9), (10)), ``new-equilibrium`` (its Fig. 5, eqs.
(11), (12)) and ``conspicuous`` (the TCP-Ho paper's §4.3 Examples 1-3, eqs. (2)-(6))."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import plot
from ..analytic import (
    conspicuous_round,
    conspicuous_round_printed,
    critical_window,
    rounds_to_equilibrium,
    slow_start_exit,
)
from ..engines import ENGINES as MODELS
from ._common import (
    DOCUMENT_PARAMS,
    LABEL,
    NO_FIGURE_VALUES,
    QV_DETECTION_LAG_ROUNDS,
    RUNS,
    CaseSection,
    Runs,
    doc,
    engine_cells,
    err_na,
    matched_overrides,
    num,
    run_task,
    run_value,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_columns, draw_lines, render
from ._runs import first_at_least
from ._table import (
    ALGORITHM_NAMES,
    CLOSED_FORM,
    DOCUMENT,
    ENGINE_COLUMNS,
    NA,
    ODE,
    PACKET,
    ROUNDS,
    Row,
    Value,
)

D_S = 0.1  # the documents' 100 ms paths
_NAMES = ALGORITHM_NAMES

#: how the figures draw an engine's points: round model (open circles), packets (crosses)
_RM_MARK = {"linestyle": "none", "marker": "o", "fillstyle": "none"}
_PK_MARK = {"linestyle": "none", "marker": "x"}


def kb_to_pkts(kb: float) -> float:
    """A BDP in kilobits to 1000-byte packets."""
    return kb * 1000.0 / 8000.0


def _qv_basic(bdp_pkts: float, **overrides: Any) -> dict[str, Any]:
    """``qv-basic``'s overrides with μd = ``bdp_pkts`` and base RTT D_S (eq. (5))."""
    return matched_overrides("qv-basic", overrides, bdp_pkts=bdp_pkts, d_s=D_S)


def _bdp_batch(a: str, params: dict[str, Any], bdps: list[float], rounds: int, label: str) -> Task:
    """The round model's batch of law ``a`` over the BDPs ``bdps`` (packets), at d = D_S."""
    kw = {"algorithm": a, "params": params, "bdp_pkts": bdps, "d_s": D_S, "rounds": rounds}
    return Task(f"{RUNS}:rounds_bdp_batch", kw, label)


# =============================================================== critical window (Fig. 4)
_CW_ALGS = ("vegas", "quick-vegas")
_NOT_LEFT = "did not leave slow start"


def _cw_grid(cfg: ReportConfig) -> list[float]:
    if cfg.quick:
        return [100.0, 1000.0, 5000.0]
    return [100.0, 250.0, 500.0, 1000.0, 2000.0, 3000.0, 4000.0, 5000.0]


def _cw_task(cfg: ReportConfig, case: tuple[str, tuple[float, ...]], run: str) -> Task:
    a, kbs = case
    if run == "batch":
        bdps = [kb_to_pkts(k) for k in kbs]
        return _bdp_batch(a, {}, bdps, 80, f"critical window: round model {a}")
    e, kb = run.split()[0], float(run.split()[1])
    o = _qv_basic(kb_to_pkts(kb), cbr="none", duration="6s")
    return run_task(e, "qv-basic", a, o, f"critical window: {LABEL[e]} {a} {kb:g} kb")


def _cw_rows(case: tuple[str, tuple[float, ...]], runs: Runs) -> Iterator[tuple[str, Row]]:
    """Per BDP: the documents' exit window (the first slow-start window at or above W* of
    eq. (6) or (10) with the documents' γ) against the engines' exit windows, with the form
    read with the sender's one-round lag (the sender's rule, docs/analytic.md), W* and its
    last-packet form beside."""
    a, kbs = case
    g, eq = DOCUMENT_PARAMS[a]["gamma"], "(6)" if a == "vegas" else "(10)"
    for j, kb in enumerate(kbs):
        b = float(kb_to_pkts(kb))
        lag = slow_start_exit(a, b, D_S, rtt="average", gamma=g, rule="sender")
        printed = slow_start_exit(a, b, D_S, rtt="average", gamma=g).window_pkts
        p = runs[f"packet {kb:g}"]
        p_w = run_value(p, ("summary", "ss_exit_window"), _NOT_LEFT)
        o_w = run_value(runs[f"ode {kb:g}"], ("summary", "ss_exit_window"), _NOT_LEFT)
        r_w = float(runs["batch"]["ss_exit_window_pkts"][j])
        beside = {
            "exit window with the sender's one-round lag": lag.window_pkts,
            f"W* eq. {eq}": float(critical_window(a, b, rtt="average", gamma=g)),
            "W* last-packet RTT": float(critical_window(a, b, rtt="last", gamma=g)),
        }
        values = {**engine_cells(printed, r_w, o_w, p_w, NO_FIGURE_VALUES), **beside}
        setting = f"{_NAMES[a]}, BDP {kb:g} kb (μd = {b:g} pkts)"
        q, c = "window of the round that leaves slow start", {"bdp_kb": kb}
        yield "", Row(setting, q, "pkts", "window", values, CLOSED_FORM, (*beside,), c)


def _cw_figure(kbs: list[float], rows: list[Row]) -> Figure:
    """W* against the BDP with the exit windows (``rows``: Vegas's, then Quick Vegas's)."""
    fig, ax = plot.new_axes()
    x = np.linspace(min(kbs), max(kbs), 200)
    for i, (a, color) in enumerate((("vegas", "C0"), ("quick-vegas", "C3"))):
        w_star = critical_window(a, np.array([kb_to_pkts(v) for v in x]), rtt="average")
        eq = "6" if a == "vegas" else "10"
        draw_lines(ax, x, [(w_star, f"W* eq. ({eq})", {"linestyle": "-"})], _NAMES[a], color)
        lines = (
            (CLOSED_FORM, "exit window (closed form)", {"linestyle": ":", "marker": "."}),
            (ROUNDS, "round model", _RM_MARK),
            (PACKET, "packet simulator", _PK_MARK),
        )
        draw_columns(ax, kbs, rows[i * len(kbs) : (i + 1) * len(kbs)], lines, _NAMES[a], color)
    return render(
        fig, ax, "critical_window", prose("critical-window", "figure"),
        xlabel="bandwidth-delay product (kb)", ylabel="window (packets)",
        title="Critical window vs BDP (d = 100 ms, γ = 1)",
    )  # fmt: skip


CRITICAL_WINDOW = CaseSection(
    "critical-window", "Critical window vs BDP",
    lambda cfg: [(a, tuple(_cw_grid(cfg))) for a in _CW_ALGS],  # (law, the BDPs in kb)
    _cw_task, _cw_rows,
    figures=lambda cfg, _, tables: (_cw_figure(_cw_grid(cfg), tables[""]),),
    # a law's runs: the round model's batch over the BDPs, then a packet and an ODE run each
    engines=lambda c: ("batch", *(f"{e} {kb:g}" for kb in c[1] for e in ("packet", "ode"))),
).spec  # fmt: skip


# ========================================================== new equilibrium (Fig. 5)
_NE_BASE_BPS = 10e6  # "original used bandwidth (10 Mbps)"
_NEVER_NW = "window never reached nW"
_FLUID_RTT = "round model, rtt=fluid"
#: the runs of a case: label -> (engine, options); the round model also with rtt=fluid
_NE_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    "round model": ("rounds", {}),
    "packet": ("packet", {}),
    "round model (fluid RTT)": ("rounds", {"rtt_model": "fluid"}),
    "ODE": ("ode", {}),
}


def _ne_grid(cfg: ReportConfig) -> list[int]:
    return [2, 4] if cfg.quick else list(range(2, 11))


@functools.cache  # read only; the scenario built once per case
def _ne_setup(n: int, algorithm: str) -> dict[str, Any]:
    w = _NE_BASE_BPS * D_S / 8000.0  # μd of the original 10 Mb/s, packets
    t1 = 30.0
    t2 = 1.4 * (n - 1) * w * D_S + 10.0 if algorithm == "vegas" else 40.0
    cbr = f"{(n - 1) * _NE_BASE_BPS / 1e6:g}Mbps"
    o = _qv_basic(n * w, cbr=cbr, cbr_start="0s", cbr_stop=f"{t1:g}s", duration=f"{t1 + t2:g}s")
    return {"overrides": o, "t_change": t1, "w": w}


def _ne_task(cfg: ReportConfig, case: tuple[str, int], run: str) -> Task:
    (a, n), (e, o) = case, _NE_RUNS[run]
    label = f"new equilibrium: {run} {a} n={n}"
    return run_task(e, "qv-basic", a, _ne_setup(n, a)["overrides"], label, **o)


def _rounds_to_reach(t: Any, w: Any, t_change: float, target: float) -> float | None:
    """Round boundaries after ``t_change`` until the window first reaches ``target``."""
    t = np.asarray(t)
    i = first_at_least(t, w, target, after=t_change)
    return None if i is None else float(np.count_nonzero((t > t_change) & (t <= t[i])))


def _ne_count(a: str, n: int, res: dict[str, Any], engine: str) -> float | NA:
    """Rounds from the change to nW of one run: the round model's per-round trace, else
    flow 0's round log (the ODE's hybrid model keeps the packet simulator's)."""
    if MODELS[engine].granularity == "continuous" and "round_t_s" not in res:
        return err_na(res, "the ODE run kept no round trace")
    if "error" in res:
        return err_na(res, _NEVER_NW)
    s = _ne_setup(n, a)
    if MODELS[engine].granularity == "round":
        t, w = res["t_s"], res["window_pkts"][0]
    else:
        t, w = res["round_t_s"][0], res["round_cwnd_pkts"][0]
    return num(_rounds_to_reach(t, w, s["t_change"], n * s["w"]), _NEVER_NW)


def _ne_closed(a: str, w: float, n: int, beta: float) -> float:
    """The closed form of the engines' count from the change: (n − 1)W for Vegas; for Quick
    Vegas eq. (12) counted from the change, ⌈i⌉ + 2 (:data:`QV_DETECTION_LAG_ROUNDS`)."""
    i = float(rounds_to_equilibrium(a, w, n, beta=beta))
    return i if a == "vegas" else float(math.ceil(i) + QV_DETECTION_LAG_ROUNDS)


def _ne_rows(case: tuple[str, int], runs: Runs) -> Iterator[tuple[str, Row]]:
    a, n = case
    beta = DOCUMENT_PARAMS[a]["beta"]
    rm, pk, fl, od = (_ne_count(a, n, runs[k], e) for k, (e, _) in _NE_RUNS.items())
    w = _ne_setup(n, a)["w"]
    values = engine_cells(_ne_closed(a, w, n, beta), rm, od, pk, NO_FIGURE_VALUES)
    values[_FLUID_RTT] = fl
    if a == "quick-vegas":  # eq. (12)'s own count, from the first estimation showing it
        values["eq. (12) i"] = float(rounds_to_equilibrium(a, w, n, beta=beta))
    setting = f"{_NAMES[a]}, 10 Mb/s → {10 * n} Mb/s (n = {n}, W = {w:g})"
    q = "rounds from the change until the window reaches nW"
    inf = tuple(values)[len(ENGINE_COLUMNS) :]
    yield "", Row(setting, q, "rounds", "rounds", values, CLOSED_FORM, inf, {"n": n})


def _ne_figure(cfg: ReportConfig, rows: list[Row]) -> Figure:
    fig, ax = plot.new_axes()
    for i, (a, color) in enumerate((("vegas", "C0"), ("quick-vegas", "C3"))):
        eq = "(n−1)W" if a == "vegas" else "eq. (12) from the change, ⌈i⌉ + 2"
        lines = [
            (CLOSED_FORM, f"closed form {eq}", {"linestyle": "-"}),
            (ROUNDS, "round model", _RM_MARK),
            (ODE, "ODE", {"linestyle": "none", "marker": "^", "fillstyle": "none"}),
            (PACKET, "packet simulator", _PK_MARK),
        ]
        if a == "quick-vegas":
            lines.append((_FLUID_RTT, _FLUID_RTT, {"linestyle": "none", "marker": "+"}))
        grid = _ne_grid(cfg)
        draw_columns(ax, grid, rows[i * len(grid) : (i + 1) * len(grid)], lines, _NAMES[a], color)
    ax.set_yscale("log")
    return render(
        fig, ax, "new_equilibrium", prose("new-equilibrium", "figure"),
        xlabel="bandwidth growth factor n", ylabel="rounds to reach nW (RTTs)",
        title="Rounds to a new equilibrium (10 Mb/s × 100 ms, W = 125 pkts)",
    )  # fmt: skip


NEW_EQUILIBRIUM = CaseSection(
    "new-equilibrium", "Rounds to a new equilibrium",
    lambda cfg: [(a, n) for a in _CW_ALGS for n in _ne_grid(cfg)], _ne_task, _ne_rows,
    figures=lambda cfg, _, tables: (_ne_figure(cfg, tables[""]),),
    engines=lambda case: tuple(_NE_RUNS),
).spec  # fmt: skip

# ============================================= conspicuous rounds (TCP-Ho paper §4.3)
_EXAMPLES = ((1, 18.75), (2, 250.0), (3, 625.0))
#: ns-2's TCP agents start with windowInit_ = 1 packet; the analysis's Table 3 with 2
NS2_START = {"initial_window": 1.0}
#: the 2-packet rows' column that shows the paper's ns-2 time (judged in the one-packet rows)
_NS2_DOC_COLUMN = "document (ns-2, from one packet: judged in the row 'from one packet')"
_CR_QUANTITY = "time to reach the available bandwidth (conspicuous round × d)"
_NEVER_MUD = "window never reached μd"
#: the runs' starts: (law, run options, round-model rounds, run length after the
#: conspicuous round (s), label suffix); Vegas from ns-2's first window (windowInit_ = 1
#: packet) comes last
_Start = tuple[str, dict[str, Any], int, float, str]
_CR_STARTS: tuple[_Start, ...] = (
    ("vegas", {}, 800, 3.0, ""),
    ("tcp-ho", {}, 200, 3.0, ""),
    ("vegas", {"params": NS2_START}, 800, 3.2, " from one packet"),
)


def _cr_task(cfg: ReportConfig, start: _Start, run: str) -> Task:
    a, opts, rounds, tail_s, suffix = start
    if run == "batch":
        label = f"conspicuous: round model {a}{suffix}"
        return _bdp_batch(a, opts.get("params", {}), [b for _, b in _EXAMPLES], rounds, label)
    e, ex = run.split()[0], int(run.split()[1])
    b = dict(_EXAMPLES)[ex]
    dur = 1.3 * float(conspicuous_round(a, b)) * D_S + tail_s
    o = _qv_basic(b, cbr="none", duration=f"{dur:.1f}s")
    label = f"conspicuous: {LABEL[e]} {a} example {ex}{suffix}"
    return run_task(e, "qv-basic", a, o, label, **opts)


def _run_time(a: str, b: float, run: dict[str, Any]) -> float | None:
    """Time a packet or ODE (hybrid) run took to reach the available bandwidth (None: did
    not happen), as the closed form counts it from the run's round trace: TCP-Ho, the
    first round boundary that leaves its Table-4 ramp; Vegas, the end of the first round
    whose window reaches μd."""
    if "summary" not in run or "round_t_s" not in run:
        return None
    t = np.asarray(run["round_t_s"][0])
    if a == "tcp-ho":
        left = np.flatnonzero(np.asarray(run["round_phase"][0]) != 0)
        return float(t[left[0]]) if left.size else None
    i = first_at_least(t, run["round_cwnd_pkts"][0], b)
    return None if i is None else float(t[i])


def _batch_time(a: str, b: float, rb: dict[str, Any], j: int) -> float | None:
    """The round model's time to reach the available bandwidth at example ``j`` (None: did
    not happen); TCP-Ho's ramp ends at the conspicuous round, the one before the exit."""
    if a == "tcp-ho":
        return (float(rb["ss_exit_round"][j]) - 1.0) * D_S
    w = rb["window_pkts"][:, j]
    i = first_at_least(np.arange(w.size), w, b)
    return None if i is None else (i + 1) * D_S


def _cr_row(a: str, ex: int, b: float, rm: float | None, p: Value, o: Value, from_one: bool) -> Row:
    """The row of law ``a`` at Example ``ex`` (μd = ``b`` packets), every engine from Table
    3's / Table 4's first window of 2 packets; ``from_one`` (Vegas): from ns-2's first
    window (one packet) in every engine, against eq. (2) from one packet and the paper's
    ns-2 time."""
    key, where = f"004/ex{ex}/{a}", f"μd = {b:g} pkts, d = 0.1 s"
    # TCP-Ho's ramp has no γ (conspicuous_round refuses one)
    g = DOCUMENT_PARAMS[a]["gamma"] if a == "vegas" else None
    two = float(conspicuous_round(a, b, gamma=g)) * D_S
    if from_one:
        cf = float(conspicuous_round(a, b, initial_window=1.0, gamma=g)) * D_S
        values = engine_cells(cf, num(rm, _NEVER_MUD), o, p, doc(f"{key}/simulation"))
        extra = {"closed form from two packets (Table 3)": two}
        setting = f"Vegas, Example {ex} from one packet (ns-2's first window; {where})"
    else:
        printed = float(conspicuous_round_printed(a, b)) * D_S
        values = {CLOSED_FORM: two, ROUNDS: num(rm, "did not happen"), ODE: o, PACKET: p}
        if a == "tcp-ho":
            values[DOCUMENT] = doc(f"{key}/simulation")
            extra = {
                "eq. (5) root (E5)": float(conspicuous_round(a, b, queue="paper")) * D_S,
                "printed eq. (6) (E6)": printed,
            }
        else:  # the paper's ns-2 runs start from one packet: judged in the rows 'from one packet'
            extra = {"printed '−1' (E4)": printed, _NS2_DOC_COLUMN: doc(f"{key}/simulation")}
        extra["document analysis"] = doc(f"{key}/analysis")
        setting = f"{_NAMES[a]}, Example {ex} ({where})"
    values.update(extra)
    case = {"example": ex, "initial_window": 1 if from_one else 2}
    return Row(setting, _CR_QUANTITY, "s", "time", values, CLOSED_FORM, (*extra,), case)


def _cr_figure(table: list[Row]) -> Figure:
    """The closed forms (corrected and printed) against μd, with the engines' and the
    document's points at Examples 1-3 (``table``: Vegas's rows, TCP-Ho's, then Vegas's
    from one packet)."""
    rows = {"vegas": table[:3], "tcp-ho": table[3:6]}
    fig, ax = plot.new_axes()
    x = np.geomspace(10.0, 1000.0, 300)
    ex_b = [b for _, b in _EXAMPLES]
    paper = conspicuous_round("tcp-ho", x, queue="paper")
    curves = (  # (rounds, colour, line style, label)
        (conspicuous_round("vegas", x), "C0", "-", "Vegas, eq. (2) with E4 (closed form)"),
        (conspicuous_round_printed("vegas", x), "C0", ":", "Vegas, printed '−1' (E4)"),
        (conspicuous_round("tcp-ho", x), "C3", "-", "TCP-Ho, bottleneck-aware (E8, closed form)"),
        (paper, "C3", "--", "TCP-Ho, root of printed eq. (5)"),
        (conspicuous_round_printed("tcp-ho", x), "C3", ":", "TCP-Ho, printed eq. (6) (E6)"),
    )
    for rounds, col, ls, label in curves:
        plot.versus(x, rounds * D_S, ax=ax, color=col, linestyle=ls, label=label)
    for a, col in (("vegas", "C0"), ("tcp-ho", "C3")):
        doc_col = DOCUMENT if a == "tcp-ho" else _NS2_DOC_COLUMN
        markers = (  # (column, label, style)
            (ROUNDS, "round model", _RM_MARK),
            (ODE, "ODE", {"linestyle": "none", "marker": "+"}),
            (PACKET, "packet simulator", _PK_MARK),
            (doc_col, "the TCP-Ho paper's simulation", {"linestyle": "none", "marker": "s"}),
        )
        draw_columns(ax, ex_b, rows[a], markers, _NAMES[a], col)
    ax.set_xscale("log")
    ax.set_yscale("log")
    return render(
        fig, ax, "conspicuous_rounds", prose("conspicuous", "figure"),
        xlabel="μd (packets), d = 0.1 s", ylabel="time to reach the available bandwidth (s)",
        title="Conspicuous rounds: corrected and printed forms", fontsize=6,
    )  # fmt: skip


def _cr_rows(start: _Start, runs: Runs) -> Iterator[tuple[str, Row]]:
    a, from_one, rb = start[0], start[4], runs["batch"]
    never = "TCP-Ho never left its ramp" if a == "tcp-ho" else _NEVER_MUD
    for j, (ex, b) in enumerate(_EXAMPLES):
        pr, orr = runs[f"packet {ex}"], runs[f"ode {ex}"]
        rm, ot = _batch_time(a, b, rb, j), _run_time(a, b, orr)
        p = num(_run_time(a, b, pr), never)
        o: Value = err_na(orr, never) if ot is None else ot
        yield "", _cr_row(a, ex, b, rm, p, o, bool(from_one))


CONSPICUOUS = CaseSection(
    "conspicuous", "TCP-Ho conspicuous rounds", lambda cfg: _CR_STARTS, _cr_task, _cr_rows,
    figures=lambda cfg, _, tables: (_cr_figure(tables[""]),),
    # a start's runs: the round model's batch over the examples, then packet and ODE runs
    engines=lambda _: ("batch", *(f"{e} {ex}" for ex, _ in _EXAMPLES for e in ("packet", "ode"))),
).spec  # fmt: skip
