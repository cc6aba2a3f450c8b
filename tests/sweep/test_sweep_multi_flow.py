"""Every engine's sweep row of a point whose flows start together is its run alone.

docs/sweeps.md: each row is, value for value, the summary of :func:`tcpfluid.simulate` of
the point's scenario. The reference is that single run (the round model's scenario route,
:func:`tcpfluid.fluid.simulate_scenario_rounds`, one scenario per call: independent of the
sweep's batched calls). Flows starting together make the first packets' places at the
bottleneck matter (docs/round-model.md, "First packets": their access links' lead and
spacing), which a batched call must take as the run alone does.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.mix import with_mix
from tcpfluid.sweep import grid, sweep

KEYS = (
    "ss_exit_window",
    "ss_exit_time_s",
    "settled_window",
    "time_to_equilibrium_s",
    "utilization",
    "jain_index",
)
QV2 = {"flows": 2, "cbr": "none", "duration": "30s"}
#: (scenario, algorithm, grid): several flows starting together on one bottleneck
POINTS = [
    ("ho-fairness", "vegas", {}),
    ("ho-fairness", "quick-vegas", {}),
    ("qv-basic", "quick-vegas", {**QV2, "bandwidth": "20Mbps"}),
    # two paths in one batched call
    ("qv-basic", "vegas", {**QV2, "bandwidth": ["10Mbps", "20Mbps"]}),
    ("ho-different-rtt", "vegas", {}),  # flows of their own base RTTs
    ("ho-fairness", "vegas:3,quick-vegas:2", {}),  # a mix of laws
]


def same(a: Any, b: Any) -> bool:
    """Table value ``a`` (NaN: did not happen) against the single run's ``b``: the same bits."""
    if b is None:
        return isinstance(a, float) and math.isnan(a)
    return float(a) == float(b)


def check_rows(engine: str, scenario: str, algorithm: str, axes: dict[str, Any]) -> None:
    points = list(grid(scenario=scenario, algorithm=algorithm, **axes))
    res = sweep(points, engine=engine, metrics=[*KEYS, "throughput_pps"], jobs=1)
    for row, p in zip(res.table.to_dict("records"), points, strict=True):
        assert row["status"] == "ok", row["message"]
        sets = {k: v for k, v in p.items() if k not in ("scenario", "algorithm")}
        single = tcpfluid.simulate(
            with_mix(build_scenario(scenario, **sets), algorithm), engine
        ).summary.to_dict()
        for key in KEYS:
            assert same(row[key], single[key]), (p, key, row[key], single[key])
        for k, v in enumerate(single["throughput_pps"]):
            assert same(row[f"throughput_pps[{k}]"], v), (p, k, row[f"throughput_pps[{k}]"], v)


@pytest.mark.parametrize(("scenario", "algorithm", "axes"), POINTS)
def test_a_rounds_row_is_the_run_alone(scenario: str, algorithm: str, axes: dict[str, Any]) -> None:
    check_rows("rounds", scenario, algorithm, axes)


@pytest.mark.parametrize("engine", ["ode", "packet"])
@pytest.mark.parametrize(("scenario", "algorithm", "axes"), POINTS)
def test_an_ode_or_packet_row_is_the_run_alone(
    engine: str, scenario: str, algorithm: str, axes: dict[str, Any]
) -> None:
    check_rows(engine, scenario, algorithm, {**axes, "duration": "10s"})
