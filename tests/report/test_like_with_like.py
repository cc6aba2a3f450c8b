"""The report's closed forms are compared with the engines' count of the same event.

The convergence-bdp section used to put the conspicuous round (the round a new connection's
window first reaches μd) and eq. (12) (the rounds until the window reaches nW) into rows
that measure the settling into the 2 % band. These tests check that each closed form now
has a row of its own quantity in which every engine counts that quantity on its own round
trace, and that the settling rows compare the engines with the packet simulator (from
hand-made runs; the real runs of Vegas at 150 kb are the validation suite's,
validation/report/test_like_with_like_runs.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tcpfluid.analytic import rounds_to_equilibrium
from tcpfluid.report import (
    NA,
    SECTIONS,
    Report,
    ReportConfig,
    Row,
    SectionResult,
    Table,
    render_html,
)
from tcpfluid.scenarios import build_scenario

#: the report's column names and the closed forms' own rows, as report.json shows them
CLOSED_FORM, ROUNDS, ODE, PACKET = "closed form", "round model", "ODE", "packet sim"
NEW_REACH = "new connection: round the window first reaches μd"
DOUBLED_REACH = "bandwidth doubled: rounds until the window reaches nW (n = 2, W = μd/2)"
NOT_RUN = {"error": "not run here"}


def _rows(sec: SectionResult) -> list[Row]:
    return [r for t in sec.tables for r in t.rows]


def test_quick_vegas_reference_counts_from_the_change() -> None:
    # eq. (12)'s i counts from the first estimation that shows the change, made two rounds
    # after it; the engines count from the change, so the reference is ⌈i⌉ + 2
    i = float(rounds_to_equilibrium("quick-vegas", 125.0, 2.0, beta=4.0))
    assert 7.0 < i < 8.0
    cfg = ReportConfig(quick=True)
    n_tasks = len(SECTIONS["new-equilibrium"].tasks(cfg))
    rows = _rows(SECTIONS["new-equilibrium"].assemble(cfg, [NOT_RUN] * n_tasks))
    cf = {(r.setting.split(",")[0], r.case["n"]): r.values[CLOSED_FORM] for r in rows}
    assert cf[("Quick Vegas", 2)] == math.ceil(i) + 2
    assert cf[("Vegas", 2)] == 125.0  # (n − 1)W, counted from the change


def _fake_run(t_change: float, b: float) -> dict[str, Any]:
    """A round trace whose window reaches μd = b at round 5 and, after a dip, at the
    fourth round boundary after the change; every settling time 1 s."""
    t = np.arange(1, 2001) * 0.1
    w = np.full(t.size, b - 1.0)
    w[4] = b  # round 5 (the trace's first entry is round 1)
    after = np.flatnonzero(t > t_change)
    w[after[:3]] = b / 2.0
    w[after[3]] = b
    return {
        "summary": {"time_to_equilibrium_s": 1.0, "convergence_times_s": [1.0, 1.0]},
        "t_s": t,
        "queue_pkts": np.zeros(t.size),
        "time_s": t,
        "window_pkts": w[:, None],
        "round_t_s": [t],
        "round_cwnd_pkts": [w],
        "start_s": [0.0],
    }


def test_settling_rows_are_judged_against_the_packets_and_closed_forms_get_their_own_rows() -> None:
    cfg = ReportConfig(quick=True)
    out: list[Any] = []
    for t in SECTIONS["convergence-bdp"].tasks(cfg):
        if t.function.endswith(":ode_run"):
            out.append(NOT_RUN)  # the ODE refused
            continue
        sc = build_scenario("qv-basic", **t.kwargs["overrides"])
        b = float(sc.fluid_view().path.mu) * 0.1  # μd of the section's 0.1-s path
        out.append(_fake_run(float(sc.cbr[0].stop_s), b))
    rows = _rows(SECTIONS["convergence-bdp"].assemble(cfg, out))
    settling = [r for r in rows if r.quantity.startswith("convergence, ")]
    assert settling and all(r.reference == PACKET for r in settling)
    assert all(isinstance(r.values[CLOSED_FORM], NA) for r in settling)
    new = [r for r in rows if r.quantity == NEW_REACH]
    doubled = [r for r in rows if r.quantity == DOUBLED_REACH]
    assert {r.setting.split(",")[0] for r in new} == {"Vegas", "TCP-Ho"}
    assert {r.setting.split(",")[0] for r in doubled} == {"Vegas", "Quick Vegas"}
    for r in new:
        assert r.reference == CLOSED_FORM
        assert r.values[ROUNDS] == r.values[PACKET] == 5.0
        assert isinstance(r.values[ODE], NA)
    for r in doubled:
        assert r.values[ROUNDS] == r.values[PACKET] == 4.0


def test_the_sections_say_what_moved_rows_compare() -> None:
    row = Row("s", "q", "", "window", {CLOSED_FORM: 1.0, PACKET: 1.0}, CLOSED_FORM)
    why = "Section x: the closed form counts another event and has a row of its own."
    sec = SectionResult("x", "X", "intro", (Table("cap", (row,)),), comparisons=(why,))
    rep = Report(ReportConfig(), (sec,), 1.0)
    assert why in render_html(rep)
    assert rep.to_dict()["sections"][0]["comparisons"] == [why]
