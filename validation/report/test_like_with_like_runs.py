"""The report's closed forms against the engines' own count of the same event, with real
runs: the convergence-bdp section's rows of Vegas at 150 kb, the round model's and the
packet simulator's runs (two engines beside the closed forms, so the validation suite's;
the section's rows from hand-made runs are checked in tests/report)."""

from __future__ import annotations

import pytest

from tcpfluid.analytic import conspicuous_round, rounds_to_equilibrium
from tcpfluid.report import SECTIONS, ReportConfig, Row, SectionResult, Task

#: the report's column names and the closed forms' own rows, as report.json shows them
CLOSED_FORM, ROUNDS, PACKET = "closed form", "round model", "packet sim"
NEW_REACH = "new connection: round the window first reaches μd"
DOUBLED_REACH = "bandwidth doubled: rounds until the window reaches nW (n = 2, W = μd/2)"
NOT_RUN = {"error": "not run here"}


def _rows(sec: SectionResult) -> list[Row]:
    return [r for t in sec.tables for r in t.rows]


def _nominal(t: Task) -> bool:
    return "cbr_start" not in t.kwargs["overrides"]


@pytest.fixture(scope="module")
def vegas_150kb_rows() -> list[Row]:
    """The convergence-bdp section's rows with the real round-model and packet runs of Vegas
    at 150 kb (the others not run)."""
    cfg = ReportConfig()
    tasks = SECTIONS["convergence-bdp"].tasks(cfg)
    mine = {
        k
        for k, t in enumerate(tasks)
        if _nominal(t)
        and t.kwargs["algorithm"] == "vegas"
        and t.label.endswith(" 150 kb")
        and not t.function.endswith(":ode_run")
    }
    assert len(mine) == 2
    out = [t.run() if k in mine else NOT_RUN for k, t in enumerate(tasks)]
    rows = _rows(SECTIONS["convergence-bdp"].assemble(cfg, out))
    return [r for r in rows if r.setting.startswith("Vegas,") and r.case.get("bdp_kb") == 150.0]


@pytest.mark.parametrize("column", [ROUNDS, PACKET])
def test_vegas_engines_reach_the_pipe_at_the_conspicuous_round_and_nw_after_w_rounds(
    vegas_150kb_rows: list[Row], column: str
) -> None:
    # 150 kb at d = 100 ms (μd = 150 kb / 8 kb = 18.75 packets): the conspicuous round is 13
    # and Vegas, one packet per round, needs (n − 1)W = μd/2 rounds after the doubling (n = 2)
    b = 150e3 / 8000.0
    (new,) = [r for r in vegas_150kb_rows if r.quantity == NEW_REACH]
    (dbl,) = [r for r in vegas_150kb_rows if r.quantity == DOUBLED_REACH]
    assert new.values[CLOSED_FORM] == float(conspicuous_round("vegas", b)) == 13.0
    assert new.values[column] == float(conspicuous_round("vegas", b))
    doubled = float(rounds_to_equilibrium("vegas", b / 2.0, 2.0))
    assert abs(float(dbl.values[column]) - doubled) <= 1.0  # whole rounds of a fluid count
