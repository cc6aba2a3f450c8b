"""The report's closed forms are compared with the engines' count of the same event.

The convergence-bdp section used to put the conspicuous round (the round a new connection's
window first reaches μd) and eq. (12) (the rounds until the window reaches nW) into rows
that measure the settling into the 2 % band. These tests check that each closed form now
has a row of its own quantity in which every engine counts that quantity on its own round
trace, and that the settling rows compare the engines with the packet simulator.
"""

from __future__ import annotations

import math

import pytest

from tcpfluid.analytic import conspicuous_round, rounds_to_equilibrium
from tcpfluid.report import NA, ReportConfig
from tcpfluid.report._runs import packet_run, rounds_run
from tcpfluid.report._sec_analytic import _ne_closed, kb_to_pkts
from tcpfluid.report._sec_convergence import (
    _DOUBLED_REACH,
    _NEW_REACH,
    _cb_doubling_time,
    _cb_overrides,
    _cb_rows,
    _reach_counts,
)
from tcpfluid.report._table import CLOSED_FORM, ODE, PACKET, ROUNDS


@pytest.mark.parametrize("engine", ["rounds", "packet"])
def test_vegas_engines_reach_the_pipe_at_the_conspicuous_round_and_nw_after_w_rounds(
    engine: str,
) -> None:
    # 150 kb at d = 100 ms (μd = 18.75 packets): the conspicuous round is 13 and Vegas,
    # one packet per round, needs (n − 1)W = μd/2 rounds after the doubling (n = 2)
    kb = 150.0
    b = kb_to_pkts(kb)
    run = rounds_run if engine == "rounds" else packet_run
    res = run("qv-basic", "vegas", _cb_overrides(kb))
    counts = _reach_counts(res, engine, b, _cb_doubling_time(kb))
    assert counts["new"] == float(conspicuous_round("vegas", b))
    doubled = float(rounds_to_equilibrium("vegas", b / 2.0, 2.0))
    assert abs(float(counts["doubled"]) - doubled) <= 1.0  # whole rounds of a fluid count


def test_quick_vegas_reference_counts_from_the_change() -> None:
    # eq. (12)'s i counts from the first estimation that shows the change, made two rounds
    # after it; the engines count from the change, so the reference is ⌈i⌉ + 2
    i = float(rounds_to_equilibrium("quick-vegas", 125.0, 2.0, beta=4.0))
    assert 7.0 < i < 8.0
    assert _ne_closed("quick-vegas", 125.0, 2, 4.0) == math.ceil(i) + 2
    assert _ne_closed("vegas", 125.0, 2, 4.0) == 125.0


def _fake_run(t_change: float, b: float) -> dict:
    """A round trace whose window reaches μd = b at round 5 and, after a dip, at the
    fourth round boundary after the change."""
    import numpy as np

    t = np.arange(1, 2001) * 0.1
    w = np.full(t.size, b - 1.0)
    w[4] = b  # round 5 (the trace's first entry is round 1)
    after = np.flatnonzero(t > t_change)
    w[after[:3]] = b / 2.0
    w[after[3]] = b
    return {
        "summary": {},
        "time_s": t,
        "window_pkts": w[:, None],
        "round_t_s": [t],
        "round_cwnd_pkts": [w],
        "start_s": [0.0],
    }


def test_settling_rows_are_judged_against_the_packets_and_closed_forms_get_their_own_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import tcpfluid.report._sec_convergence as cb

    cfg = ReportConfig(quick=True)
    kbs = cb._cb_grid(cfg)
    na = {"error": "not run here"}
    out: list = []
    for _a in cb._CB_ALGS:
        for kb in kbs:
            fake = _fake_run(_cb_doubling_time(kb), kb_to_pkts(kb))
            out += [fake, fake, na]  # round model, packet, ODE (refused)
    out += [fake] * len(cb._phase_keys(cfg))  # the packet runs over the change's phase
    monkeypatch.setattr(cb, "_engine_values", lambda res, kind: dict.fromkeys(
        ("time_to_equilibrium_s", "halved", "doubled"), 1.0))  # fmt: skip
    rows, _ = _cb_rows(cfg, out)
    settling = [r for r in rows if r.quantity.startswith("convergence, ")]
    assert settling and all(r.reference == PACKET for r in settling)
    assert all(isinstance(r.values[CLOSED_FORM], NA) for r in settling)
    new = [r for r in rows if r.quantity == _NEW_REACH]
    doubled = [r for r in rows if r.quantity == _DOUBLED_REACH]
    assert {r.setting.split(",")[0] for r in new} == {"Vegas", "TCP-Ho"}
    assert {r.setting.split(",")[0] for r in doubled} == {"Vegas", "Quick Vegas"}
    for r in new:
        assert r.reference == CLOSED_FORM
        assert r.values[ROUNDS] == r.values[PACKET] == 5.0
        assert isinstance(r.values[ODE], NA)
    for r in doubled:
        assert r.values[ROUNDS] == r.values[PACKET] == 4.0


def test_the_sections_say_what_moved_rows_compare() -> None:
    from tcpfluid.report import Report, Row, SectionResult, Table
    from tcpfluid.report._writer import render_html

    row = Row("s", "q", "", "window", {CLOSED_FORM: 1.0, PACKET: 1.0}, CLOSED_FORM)
    why = "Section x: the closed form counts another event and has a row of its own."
    sec = SectionResult("x", "X", "intro", (Table("cap", (row,)),), comparisons=(why,))
    rep = Report(ReportConfig(), (sec,), 1.0)
    assert why in render_html(rep)
    assert rep.to_dict()["sections"][0]["comparisons"] == [why]
