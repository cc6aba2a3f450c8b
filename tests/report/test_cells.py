"""A row's cells from task results, and a figure's curve from a column of rows."""

from __future__ import annotations

import math

from tcpfluid.report._common import column_series, engine_cells, run_value
from tcpfluid.report._table import ENGINE_COLUMNS, NA, PACKET, ROUNDS, Row


def test_a_failed_run_gives_its_error_as_the_cell() -> None:
    cell = run_value({"error": "buffer must be >= 1"}, ("summary", "x"), "missing")
    assert isinstance(cell, NA)
    assert cell.reason == "engine refused: buffer must be >= 1"
    assert run_value(None, ("x",), "missing").reason == "no result"  # type: ignore[union-attr]


def test_a_run_gives_the_value_at_its_path_or_the_reason_it_is_missing() -> None:
    res = {"summary": {"x": [3.5, None]}}
    assert run_value(res, ("summary", "x", 0), "missing") == 3.5
    missing = run_value(res, ("summary", "x", 1), "did not settle")
    assert isinstance(missing, NA) and missing.reason == "did not settle"
    assert isinstance(run_value({"v": math.inf}, ("v",), "inf"), NA)


def test_the_five_cells_stand_in_display_order() -> None:
    cells = engine_cells(1.0, 2.0, 3.0, 4.0, NA("not printed"))
    assert tuple(cells) == ENGINE_COLUMNS
    assert [cells[c] for c in ENGINE_COLUMNS[:4]] == [1.0, 2.0, 3.0, 4.0]


def test_a_curve_is_nan_where_a_row_has_no_number() -> None:
    rows = [
        Row("Vegas", "q", "s", "time", {ROUNDS: 1.0, PACKET: 2.0}, PACKET),
        Row("Vegas", "q", "s", "time", {ROUNDS: NA("did not settle"), PACKET: 4.0}, PACKET),
        Row("Vegas", "q", "s", "time", {PACKET: 5.0}, PACKET),
    ]
    rm = column_series(rows, ROUNDS)
    assert rm[0] == 1.0 and math.isnan(rm[1]) and math.isnan(rm[2])
    assert column_series(rows, PACKET) == [2.0, 4.0, 5.0]
