"""Every engine run of the report's sections goes through one check
(:func:`tcpfluid.report._runs.checked_simulate`): a run that raises ``RuntimeError`` or
returns a result whose status says it failed is a failed cell that differs, with the
failure as its reason; a row whose reference failed DIFFERS, naming it (docs/report.md,
"The rule")."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import matplotlib
import pytest

from tcpfluid.report import NA, Row, _runs, _sec_thesis_many, _sec_thesis_tables, build_report
from tcpfluid.report._summary import summarize

matplotlib.use("Agg")

DOCUMENT, ODE, PACKET = "document", "ODE", "packet sim"


def _plant(
    monkeypatch: pytest.MonkeyPatch,
    engines: set[str],
    fail: Callable[[Any], Any],
    modules: tuple[Any, ...] = (),
) -> None:
    """Every run on one of ``engines`` made through :mod:`tcpfluid.report._runs` (and
    through ``modules``' own ``simulate``, where a section module has one) gives
    ``fail(run)`` (raising, or a result that reports failure); the others run."""
    real = _runs.simulate

    def simulate(sc: Any, engine: Any, *args: Any, **kwargs: Any) -> Any:
        if engine in engines:
            return fail(lambda: real(sc, engine, *args, **kwargs))
        return real(sc, engine, *args, **kwargs)

    monkeypatch.setattr(_runs, "simulate", simulate)
    for m in modules:
        if hasattr(m, "simulate"):
            monkeypatch.setattr(m, "simulate", simulate)


def _raise(msg: str) -> Callable[[Any], Any]:
    def fail(run: Any) -> Any:
        raise RuntimeError(msg)

    return fail


def _rows(report: Any) -> Iterator[Row]:
    return (r for s in report.sections for t in s.tables for r in t.rows)


def test_a_result_whose_status_says_it_failed_is_a_failed_cell(monkeypatch) -> None:
    # the ODE engine returns its result, but with the status of a solver that gave up
    def failed_status(run: Any) -> Any:
        return dataclasses.replace(run(), status=-1, message="step size too small")

    _plant(monkeypatch, {"ode"}, failed_status)
    report = build_report(["critical-window"], quick=True, jobs=1)
    rows = [r for r in _rows(report) if ODE in r.values]
    assert rows
    for r in rows:
        assert r.values[ODE] == NA("ode run failed (status -1): step size too small", failed=True)
        assert ODE in r.failures and r.verdict.startswith("DIFFERS"), r.verdict
        assert "ODE n/a (ode run failed (status -1): step size too small)" in r.verdict


def test_a_failed_packet_run_shows_the_failure_not_did_not_leave_slow_start(monkeypatch) -> None:
    _plant(monkeypatch, {"packet"}, _raise("kernel stopped"))
    report = build_report(["critical-window"], quick=True, jobs=1)
    rows = [r for r in _rows(report) if PACKET in r.values]
    assert rows
    for r in rows:
        assert r.values[PACKET] == NA("packet run failed: kernel stopped", failed=True)
        assert "packet sim n/a (packet run failed: kernel stopped)" in r.verdict
        assert "slow start" not in r.verdict


@pytest.mark.parametrize("section", ["thesis-vegas-delta", "thesis-reno", "thesis-many-flows"])
def test_a_runtime_error_in_a_thesis_run_is_a_failed_cell(monkeypatch, section) -> None:
    # every engine fails: a RuntimeError must not stop the report
    every = {"rounds", "ode", "hybrid", "packet"}
    _plant(monkeypatch, every, _raise("solver diverged"), (_sec_thesis_many, _sec_thesis_tables))
    report = build_report([section], quick=True, jobs=1)
    rows = [r for r in _rows(report) if r.compared]
    assert rows
    for r in rows:
        assert r.failures == r.compared, (r.setting, r.quantity, r.verdict)
        assert r.verdict.startswith("DIFFERS") and "run failed: solver diverged" in r.verdict
    s = summarize(report)
    assert s.verdict_cells and not any(c.agree or c.mechanisms for c in s.verdict_cells)


def test_a_row_whose_reference_failed_differs_naming_it(monkeypatch) -> None:
    # the packet simulator is the reference of the basic section's layer rows
    _plant(monkeypatch, {"packet"}, _raise("kernel stopped"))
    report = build_report(["basic"], quick=True, jobs=1)
    rows = [r for r in _rows(report) if r.reference == PACKET]
    assert len(rows) >= 5
    for r in rows:
        assert r.verdict == "DIFFERS: reference packet sim n/a (packet run failed: kernel stopped)"
        assert not r.ok
    # each compared cell of such a row counts as a differing cell no mechanism explains
    s = summarize(report)
    cells = [c for c in s.verdict_cells if c.reference == PACKET and not c.layers]
    assert len(cells) == sum(len(r.compared) for r in rows) > 0
    assert not any(c.agree or c.mechanisms for c in cells)


def test_a_failed_reference_in_a_row() -> None:
    cells = {PACKET: NA("packet run failed: x", failed=True), ODE: 10.0, "round model": 9.0}
    row = Row("Vegas on qv-basic", "settled window", "pkts", "window", cells, PACKET)
    assert row.compared == (ODE, "round model") and row.failures == row.compared
    assert row.verdict == "DIFFERS: reference packet sim n/a (packet run failed: x)"
    assert not row.ok and row.judged
    # a reference that has no such value (not a failure) still compares nothing
    legit = {**cells, PACKET: NA("engine refused: no")}
    row = Row("Vegas on qv-basic", "settled window", "pkts", "window", legit, PACKET)
    assert (
        row.failures == () and row.ok and row.verdict == "no comparison (reference packet sim n/a)"
    )
