"""A row's cells from task results: each engine's run in its column, a failed run as the
engine's error, a missing value with the reason it is missing.

Read through the sections' public contract (:class:`tcpfluid.report.SectionSpec`): the
thesis-vegas-delta section's ``assemble`` given hand-made results (one per δ and engine,
in task order), and the convergence-bdp rows of runs that did not settle.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from _report_columns import CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS

from tcpfluid.report import NA, SECTIONS, ReportConfig, Row, Task

QUICK = ReportConfig(quick=True)
#: what the thesis-vegas-delta rows read of a run (Tables 3.2-3.4), and its traces
KEYS = ("actual_min", "actual_max", "expected_min", "expected_max", "window_min",
        "window_max", "delta_min", "delta_max", "delta_mean")  # fmt: skip


def _engine(task: Task) -> str:
    return str(task.kwargs["engine"])


def _run(value: float) -> dict[str, Any]:
    return {**dict.fromkeys(KEYS, value), "t": [0.0, 1.0], "w": [1.0, 2.0], "delta": [0.0, 1.0]}


@pytest.fixture(scope="module")
def vd_tasks() -> list[Task]:
    return SECTIONS["thesis-vegas-delta"].tasks(QUICK)


def _rows(results: list[Any]) -> list[Row]:
    sec = SECTIONS["thesis-vegas-delta"].assemble(QUICK, results)
    return [r for t in sec.tables for r in t.rows]


def test_each_run_fills_its_engines_column_of_its_cases_rows(vd_tasks: list[Task]) -> None:
    # every run returns a value of its own: δ × 10 plus 1 (packet), 2 (rounds), 3 (ODE)
    code = {"packet": 1.0, "rounds": 2.0, "ode": 3.0}
    engines = {_engine(t) for t in vd_tasks}
    assert engines == set(code), engines
    out = [_run(10.0 * t.kwargs["delta"] + code[_engine(t)]) for t in vd_tasks]
    rows = _rows(out)
    deltas = sorted({t.kwargs["delta"] for t in vd_tasks})
    assert len(rows) == len(deltas) * len(KEYS)
    for r in rows:
        d = r.case["delta"]
        assert (r.values[PACKET], r.values[ROUNDS], r.values[ODE]) == (
            10.0 * d + 1.0, 10.0 * d + 2.0, 10.0 * d + 3.0,
        ), r.setting  # fmt: skip
        assert isinstance(r.values[CLOSED_FORM], NA) and r.reference == DOCUMENT


def test_a_missing_result_is_refused_never_a_silent_shift(vd_tasks: list[Task]) -> None:
    out = [_run(1.0) for _ in vd_tasks]
    with pytest.raises(ValueError):
        _rows(out[:-1])


def test_a_failed_run_gives_its_error_as_the_cell_and_a_missing_value_its_reason(
    vd_tasks: list[Task],
) -> None:
    out: list[Any] = []
    for t in vd_tasks:
        if _engine(t) == "rounds":
            out.append({"error": "buffer must be >= 1"})
        elif _engine(t) == "ode":
            out.append({**_run(5.0), "window_max": None, "delta_max": math.inf})
        else:
            out.append(_run(4.0))
    for r in _rows(out):
        cell = r.values[ROUNDS]
        assert isinstance(cell, NA) and cell.reason == "engine refused: buffer must be >= 1"
        assert r.values[PACKET] == 4.0
        if r.case["quantity"] in ("window_max", "delta_max"):  # None, inf: no number
            assert isinstance(r.values[ODE], NA) and r.values[ODE].reason == "no value"
        else:
            assert r.values[ODE] == 5.0


def test_a_run_that_did_not_settle_is_na_with_that_reason() -> None:
    tasks = SECTIONS["convergence-bdp"].tasks(QUICK)

    def run(halved: float | None) -> dict[str, Any]:
        conv = [halved, 1.0]
        return {"summary": {"convergence_times_s": conv, "time_to_equilibrium_s": 1.0},
                "t_s": [1.0, 100.0], "queue_pkts": [0.0, 0.0]}  # fmt: skip

    # the packet runs did not settle after the halving; the fluid runs did, after 1 s
    out = [run(None if t.function.endswith(":packet_run") else 1.0) for t in tasks]
    sec = SECTIONS["convergence-bdp"].assemble(QUICK, out)
    rows = [r for t in sec.tables for r in t.rows if r.quantity.startswith("convergence, ")]
    for r in rows:
        if r.quantity == "convergence, bandwidth halved":
            assert isinstance(r.values[PACKET], NA) and "did not settle" in r.values[PACKET].reason
        else:
            assert r.values[PACKET] == pytest.approx(10.0)  # 1 s in RTTs of the 0.1-s path
        assert r.values[ROUNDS] == pytest.approx(10.0)
