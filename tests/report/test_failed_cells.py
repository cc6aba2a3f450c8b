"""A cell whose layer should have given a value and did not (its run failed, its value is
NaN, its flow never settled) is compared and differs; a layer that has no such value (no
closed form, a configuration the engine refuses) stays ``n/a`` and is not compared
(docs/report.md, "The rule")."""

from __future__ import annotations

import math
from typing import Any

import matplotlib
import pytest

from tcpfluid.report import NA, Row, _runs, build_report
from tcpfluid.report._common import num
from tcpfluid.report._summary import summarize

matplotlib.use("Agg")

DOCUMENT, ROUNDS, ODE, PACKET = "document", "round model", "ODE", "packet sim"


def _ode_raises(monkeypatch: pytest.MonkeyPatch, exc: Exception) -> None:
    """Every ODE run of the report's tasks raises ``exc``; the other engines run."""
    real = _runs.simulate

    def simulate(sc: Any, engine: Any, *args: Any, **kwargs: Any) -> Any:
        if engine == "ode":
            raise exc
        return real(sc, engine, *args, **kwargs)

    monkeypatch.setattr(_runs, "simulate", simulate)


def _ode_rows(report: Any) -> list[Row]:
    """Rows whose ODE cell is compared with a reference that has a number."""
    return [
        r
        for s in report.sections
        for t in s.tables
        for r in t.rows
        if ODE in r.values
        and ODE not in (r.reference, *r.informative)
        and not isinstance(r.values[r.reference], NA)
    ]


def test_a_failed_ode_run_makes_every_row_with_an_ode_cell_differ(monkeypatch) -> None:
    _ode_raises(monkeypatch, RuntimeError("solver diverged"))
    report = build_report(["basic"], quick=True, jobs=1)
    rows = _ode_rows(report)
    assert len(rows) >= 10  # the basic section's rows of every law with an ODE column
    for r in rows:
        assert ODE in r.compared and ODE in r.failures, (r.setting, r.quantity, r.verdict)
        assert r.verdict.startswith("DIFFERS") and "solver diverged" in r.verdict
    # the summary counts the failed cells as compared and differing, explained by nothing
    s = summarize(report)
    failed = [c for c in s.verdict_cells if c.column == ODE]
    assert len(failed) == len(rows) and not any(c.agree or c.mechanisms for c in failed)


def test_an_engine_refusing_a_configuration_stays_na(monkeypatch) -> None:
    _ode_raises(monkeypatch, ValueError("the ODE engine does not model this"))
    report = build_report(["basic"], quick=True, jobs=1)
    rows = _ode_rows(report)
    assert rows
    for r in rows:
        assert ODE not in r.compared and "ODE" not in r.verdict
        assert r.values[ODE] == NA("engine refused: the ODE engine does not model this")


def test_nan_and_did_not_settle_are_failed_cells_that_differ() -> None:
    # window: ±10 %; the document's 10 packets; the packet sim never settled (None), the
    # ODE gave NaN, the round model 10.5 (+5 %, inside)
    cells = {
        DOCUMENT: 10.0,
        PACKET: num(None, "did not settle"),
        ODE: num(math.nan, "no value"),
        ROUNDS: num(10.5, "no value"),
    }
    row = Row("Vegas on qv-basic", "settled window", "pkts", "window", cells, DOCUMENT)
    assert row.compared == (PACKET, ODE, ROUNDS)
    assert row.failures == (PACKET, ODE)
    assert row.verdict == "DIFFERS: packet sim n/a (did not settle), ODE n/a (no value)"
    assert row.to_dict()["values"][PACKET] == {"na": "did not settle", "failed": True}
    # no closed form (a legitimate n/a) is not compared: the row agrees on its numbers
    legit = {DOCUMENT: 10.0, PACKET: 10.5, "closed form": NA("no closed form")}
    ok = Row("Vegas on qv-basic", "settled window", "pkts", "window", legit, DOCUMENT)
    assert ok.compared == (PACKET,) and ok.verdict == "agree"


def test_a_failed_fluid_cell_differs_from_the_packets_beside_the_verdict() -> None:
    cells = {"closed form": 10.0, PACKET: 10.0, ODE: NA("ode run failed: x", failed=True)}
    row = Row("Vegas on qv-basic", "settled window", "pkts", "window", cells, "closed form")
    assert row.layers_compared == (ODE,) and row.layers_failures == (ODE,)
    assert row.layers_verdict == "DIFFERS: ODE n/a (ode run failed: x)"
