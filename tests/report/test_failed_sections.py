"""A run that fails (raises ``RuntimeError``, or returns a result whose status says it
failed) in the sections whose tasks run several engines or several runs of their own (the
delayed-ACK tables, the TCP-Ho and iTCP-Vegas papers' tables, the thesis's two-flow
fairness) keeps every row of the section: each differs, naming the failure
(docs/report.md, "The rule")."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import matplotlib
import pytest

from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.report import Row, _runs, build_report

matplotlib.use("Agg")

EVERY = frozenset({"rounds", "ode", "hybrid", "packet"})


def _plant(monkeypatch: pytest.MonkeyPatch, fail: Callable[[Any], Any]) -> None:
    """Every engine run made through :mod:`tcpfluid.report._runs` gives ``fail(run)``."""
    real = _runs.simulate

    def simulate(sc: Any, engine: Any, *args: Any, **kwargs: Any) -> Any:
        return fail(lambda: real(sc, engine, *args, **kwargs))

    monkeypatch.setattr(_runs, "simulate", simulate)


def _raise(run: Any) -> Any:
    raise RuntimeError("kernel stopped")


def _rows(section: str) -> list[Row]:
    report = build_report([section], quick=True, jobs=1)
    return [r for s in report.sections for t in s.tables for r in t.rows]


def _all_differ(rows: list[Row], words: str) -> None:
    for r in rows:
        assert r.compared and r.failures == r.compared, (r.setting, r.quantity, r.verdict)
        assert r.verdict.startswith("DIFFERS") and words in r.verdict, r.verdict


def test_a_failed_delayed_ack_run_keeps_every_row(monkeypatch) -> None:
    _plant(monkeypatch, _raise)
    rows = _rows("thesis-delayed-ack")
    # quick: Table 3.26 at 30 flows behind both routers, its six Vegas-3 shares (12 rows);
    # Table 3.27's two medians; Table 3.28: two goodputs of each of its three runs (6),
    # first and final BaseRTT of both connections of DA-IA and DA-DA (8), IA-IA's one (1)
    assert len(rows) == 12 + 2 + 6 + 8 + 1
    _all_differ(rows, "packet run failed: kernel stopped")


def test_a_failed_two_flow_fairness_run_keeps_every_row(monkeypatch) -> None:
    _plant(monkeypatch, _raise)
    rows = _rows("thesis-fairness")
    # quick: Table 3.16's four settings at x2 = 10, 50 and 90 ms
    assert len(rows) == len(THESIS_TABLE_3_16[10]) * 3 == 12
    _all_differ(rows, "packet run failed: kernel stopped")
    for r in rows:  # the round model and the ODE name their own failures
        assert "rounds run failed: kernel stopped" in r.verdict
        assert "hybrid run failed: kernel stopped" in r.verdict


@pytest.mark.parametrize(
    ("section", "n_rows"),
    [
        # quick: Table 5's Vegas and TCP-Ho (spread, utilization, time to balance: 3 rows
        # each) and Table 6's TCP-Ho (spread, utilization)
        ("ho-fairness", 3 * 2 + 2),
        # quick: Table 7's TCP-Ho with Vegas, 10 and 10 (spread, each scheme's mean)
        ("ho-friendliness", 3),
        # quick: Table 1's two laws (one row each), Table 2 at 240 and 840 ms (two rows each)
        ("itcp-tables", 2 + 2 * 2),
    ],
)
def test_a_result_whose_status_says_it_failed_in_the_papers_tables(
    monkeypatch, section, n_rows
) -> None:
    def failed_status(run: Any) -> Any:  # what the check reads of a failed result
        return SimpleNamespace(success=False, status=-1, message="step size too small")

    _plant(monkeypatch, failed_status)
    rows = _rows(section)
    assert len(rows) == n_rows
    _all_differ(rows, "run failed (status -1): step size too small")
