"""Section ``conspicuous``: the TCP-Ho paper's §4.3 Examples 1-3 (the round at which a new Vegas or
TCP-Ho flow first uses the available bandwidth), eqs. (2)-(6) and errata E4-E8."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import plot
from ..analytic import conspicuous_round, conspicuous_round_printed
from ._common import (
    LABEL,
    RUNS,
    doc,
    engine_cells,
    err_na,
    matched_overrides,
    num,
    run_task,
    section_result,
)
from ._core import Figure, ReportConfig, SectionResult, SectionSpec, Task, prose
from ._figures import draw_columns, render
from ._runs import first_at_least
from ._sec_analytic import _NAMES, D_S, _gamma
from ._table import CLOSED_FORM, DOCUMENT, NA, ODE, PACKET, ROUNDS, Row

_EXAMPLES = ((1, 18.75), (2, 250.0), (3, 625.0))
#: ns-2's TCP agents start with windowInit_ = 1 packet; the analysis's Table 3 with 2
NS2_START = {"initial_window": 1.0}
#: the 2-packet rows' column that shows the paper's ns-2 time (judged in the one-packet rows)
_NS2_DOC_COLUMN = "document (ns-2, from one packet: judged in the row 'from one packet')"
_CR_ALGS = ("vegas", "tcp-ho")
_CR_QUANTITY = "time to reach the available bandwidth (conspicuous round × d)"


#: the runs' starts: (law, run options, round-model rounds, run length after the
#: conspicuous round (s), label suffix); Vegas from ns-2's first window (windowInit_ = 1
#: packet) comes last
_CR_STARTS: tuple[tuple[str, dict[str, Any], int, float, str], ...] = (
    ("vegas", {}, 800, 3.0, ""),
    ("tcp-ho", {}, 200, 3.0, ""),
    ("vegas", {"params": NS2_START}, 800, 3.2, " from one packet"),
)


def _cr_tasks(cfg: ReportConfig) -> list[Task]:
    """Per start (:data:`_CR_STARTS`): the round model's batch over the examples, then a
    packet and an ODE run per example."""
    tasks = []
    bdps = [b for _, b in _EXAMPLES]
    for a, opts, rounds, tail_s, suffix in _CR_STARTS:
        kw = {"algorithm": a, "params": opts.get("params", {}), "bdp_pkts": bdps, "d_s": D_S}
        kw["rounds"] = rounds
        tasks.append(Task(f"{RUNS}:rounds_bdp_batch", kw, f"conspicuous: round model {a}{suffix}"))
        for ex, b in _EXAMPLES:
            dur = 1.3 * float(conspicuous_round(a, b)) * D_S + tail_s
            o = matched_overrides(
                "qv-basic", {"cbr": "none", "duration": f"{dur:.1f}s"}, bdp_pkts=b, d_s=D_S
            )
            for e in ("packet", "ode"):
                label = f"conspicuous: {LABEL[e]} {a} example {ex}{suffix}"
                tasks.append(run_task(e, "qv-basic", a, o, label, **opts))
    return tasks


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


def _cr_engine_times(
    a: str, b: float, rb: dict[str, Any], j: int, pr: dict[str, Any]
) -> tuple[float | None, float | None, str]:
    """Round model and packet time to reach the available bandwidth at example ``j`` (None:
    did not happen), and the engine cells' reason when it did not."""
    w = rb["window_pkts"][:, j]
    if a == "tcp-ho":
        # the ramp ends at the conspicuous round, the one before the exit round
        rm: float | None = (float(rb["ss_exit_round"][j]) - 1.0) * D_S
        return rm, _run_time(a, b, pr), "TCP-Ho never left its ramp"
    i = first_at_least(np.arange(w.size), w, b)
    rm = None if i is None else (i + 1) * D_S
    return rm, _run_time(a, b, pr), "window never reached μd"


def _cr_gamma(a: str) -> float:
    """The documents' γ of Vegas's slow start (TCP-Ho's ramp has none: 1.0, unused)."""
    return _gamma(a) if a == "vegas" else 1.0


def _cr_row(
    a: str,
    ex: int,
    b: float,
    rm: float | None,
    p: float | None,
    p_na: str,
    o: float | NA,
) -> Row:
    """The row of law ``a`` at Example ``ex`` (μd = ``b`` packets), every engine from
    Table 3's / Table 4's first window of 2 packets."""
    key = f"004/ex{ex}/{a}"
    cf = float(conspicuous_round(a, b, gamma=_cr_gamma(a))) * D_S
    printed = float(conspicuous_round_printed(a, b)) * D_S
    extra: dict[str, Any] = {}
    if a == "tcp-ho":
        extra["eq. (5) root (E5)"] = float(conspicuous_round(a, b, queue="paper")) * D_S
        extra["printed eq. (6) (E6)"] = printed
    else:
        extra["printed '−1' (E4)"] = printed
        # the paper's ns-2 runs start from one packet: judged in the rows 'from one packet'
        extra[_NS2_DOC_COLUMN] = doc(f"{key}/simulation")
    extra["document analysis"] = doc(f"{key}/analysis")
    values: dict[str, Any] = {CLOSED_FORM: cf, ROUNDS: num(rm, "did not happen"), ODE: o}
    values[PACKET] = num(p, p_na)
    if a == "tcp-ho":
        values[DOCUMENT] = doc(f"{key}/simulation")
    setting = f"{_NAMES[a]}, Example {ex} (μd = {b:g} pkts, d = 0.1 s)"
    case = {"example": ex, "initial_window": 2}
    return Row(
        setting, _CR_QUANTITY, "s", "time", {**values, **extra}, CLOSED_FORM, tuple(extra), case
    )


def _cr_row_one_packet(ex: int, b: float, rm: float | None, p: float | None, o: float | NA) -> Row:
    """Vegas at Example ``ex`` from ns-2's first window (one packet) in every engine, against
    eq. (2) from one packet and the paper's ns-2 time."""
    never, g = "window never reached μd", _gamma("vegas")
    two = "closed form from two packets (Table 3)"
    cf = float(conspicuous_round("vegas", b, initial_window=1.0, gamma=g)) * D_S
    values = engine_cells(cf, num(rm, never), o, num(p, never), doc(f"004/ex{ex}/vegas/simulation"))
    values[two] = float(conspicuous_round("vegas", b, gamma=g)) * D_S
    setting = (
        f"Vegas, Example {ex} from one packet (ns-2's first window; μd = {b:g} pkts, d = 0.1 s)"
    )
    case = {"example": ex, "initial_window": 1}
    return Row(setting, _CR_QUANTITY, "s", "time", values, CLOSED_FORM, (two,), case)


def _cr_figure(rows: dict[str, list[Row]]) -> Figure:
    """The closed forms (corrected and printed) against μd, with the engines' and the
    document's points at Examples 1-3."""
    fig, ax = plot.new_axes()
    x = np.geomspace(10.0, 1000.0, 300)
    ex_b = [b for _, b in _EXAMPLES]
    curves = (  # (rounds, colour, line style, label)
        (conspicuous_round("vegas", x), "C0", "-", "Vegas, eq. (2) with E4 (closed form)"),
        (conspicuous_round_printed("vegas", x), "C0", ":", "Vegas, printed '−1' (E4)"),
        (conspicuous_round("tcp-ho", x), "C3", "-", "TCP-Ho, bottleneck-aware (E8, closed form)"),
        (
            conspicuous_round("tcp-ho", x, queue="paper"),
            "C3",
            "--",
            "TCP-Ho, root of printed eq. (5)",
        ),
        (conspicuous_round_printed("tcp-ho", x), "C3", ":", "TCP-Ho, printed eq. (6) (E6)"),
    )
    for rounds, col, ls, label in curves:
        plot.versus(x, rounds * D_S, ax=ax, color=col, linestyle=ls, label=label)
    for a, col in (("vegas", "C0"), ("tcp-ho", "C3")):
        doc_col = DOCUMENT if a == "tcp-ho" else _NS2_DOC_COLUMN
        markers = (  # (column, label, style)
            (ROUNDS, "round model", {"linestyle": "none", "marker": "o", "fillstyle": "none"}),
            (ODE, "ODE", {"linestyle": "none", "marker": "+"}),
            (PACKET, "packet simulator", {"linestyle": "none", "marker": "x"}),
            (doc_col, "the TCP-Ho paper's simulation", {"linestyle": "none", "marker": "s"}),
        )
        draw_columns(ax, ex_b, rows[a], markers, _NAMES[a], col)
    ax.set_xscale("log")
    ax.set_yscale("log")
    return render(
        fig,
        ax,
        "conspicuous_rounds",
        prose("conspicuous", "figure"),
        xlabel="μd (packets), d = 0.1 s",
        ylabel="time to reach the available bandwidth (s)",
        title="Conspicuous rounds: corrected and printed forms",
        fontsize=6,
    )


def _cr_assemble(cfg: ReportConfig, out: list[Any]) -> SectionResult:
    by_alg: dict[str, list[Row]] = {a: [] for a in _CR_ALGS}
    one: list[Row] = []  # Vegas from one packet
    it = iter(out)  # per start: the round model's batch, then a packet and an ODE run each
    for a, _opts, _rounds, _tail, from_one in _CR_STARTS:
        rb = next(it)
        for j, (ex, b) in enumerate(_EXAMPLES):
            pr, orr = next(it), next(it)
            rm, p, p_na = _cr_engine_times(a, b, rb, j, pr)
            ot = _run_time(a, b, orr)
            o: float | NA = err_na(orr, p_na) if ot is None else ot
            if from_one:
                one.append(_cr_row_one_packet(ex, b, rm, p, o))
            else:
                by_alg[a].append(_cr_row(a, ex, b, rm, p, p_na, o))
    rows = [*by_alg["vegas"], *by_alg["tcp-ho"], *one]
    return section_result("conspicuous", cfg, [rows], (_cr_figure(by_alg),))


CONSPICUOUS = SectionSpec("conspicuous", "TCP-Ho conspicuous rounds", _cr_tasks, _cr_assemble)
