"""The document-table sections' shared pieces: runs keyed by case and engine, a row's cells
from the engines' runs, and a mean delivery rate over the end of a run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.report._common import (
    ENGINES,
    engine_runs_cells,
    map_value,
    mean_rate_since,
    run_value,
    runs_by_case,
)
from tcpfluid.report._table import CLOSED_FORM, DOCUMENT, NA, ODE, PACKET, ROUNDS


def test_results_are_keyed_by_case_then_engine_in_task_order() -> None:
    runs = runs_by_case([10, 20], ["p10", "r10", "o10", "p20", "r20", "o20"])
    assert runs[10]["packet"] == "p10" and runs[10]["ode"] == "o10"
    assert runs[20]["rounds"] == "r20"
    with pytest.raises(ValueError):  # a task result missing: never a silent shift
        runs_by_case([10, 20], ["p10", "r10", "o10", "p20"])


def test_a_rows_cells_follow_the_task_order_and_keep_a_failed_run_as_na() -> None:
    runs = {"packet": {"x": 1.5}, "rounds": {"error": "no rounds"}, "ode": {"x": 2.5}}
    cells = engine_runs_cells(
        NA("none"), runs, lambda r: run_value(r, ("x",), "missing"), 4.0
    )  # fmt: skip
    assert list(cells) == [CLOSED_FORM, PACKET, ROUNDS, ODE, DOCUMENT]
    assert cells[PACKET] == 1.5 and cells[ODE] == 2.5 and cells[DOCUMENT] == 4.0
    assert isinstance(cells[ROUNDS], NA) and "no rounds" in cells[ROUNDS].reason
    assert ENGINES == ("packet", "rounds", "ode")


def test_map_value_scales_numbers_and_passes_na() -> None:
    assert map_value(0.25, lambda u: 100.0 * u) == 25.0
    na = NA("no result")
    assert map_value(na, lambda u: 100.0 * u) is na


def test_the_mean_rate_counts_only_the_packets_delivered_after_the_start() -> None:
    # two flows delivering 10 and 4 packets/s from 0 s, flow 2 stopping at 15 s
    t = np.linspace(0.0, 60.0, 61)
    dl = np.vstack([10.0 * t, 4.0 * np.minimum(t, 15.0)])
    rate = mean_rate_since(t, dl, 10.0)
    assert rate[0] == pytest.approx(10.0)
    assert rate[1] == pytest.approx(4.0 * 5.0 / 50.0)  # 20 packets over 10-60 s
    # a start between samples: the delivered count is interpolated
    assert math.isclose(mean_rate_since(t, dl, 10.5)[0], 10.0)
