"""The flows of a start spread start together as far as the summary is concerned.

``start_spread`` moves each flow's start (and stop) by a seeded offset in
``[0, start_spread)`` (docs/your-own-scenario.md) to vary the order in which flows declared
simultaneous meet at a link. The summary counts the starts (stops) of one spread as one
change, at the first of them, and those of the run's start as none, so every flow is
judged from its own start to the next real change, as without the spread.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics import run_changes
from tcpfluid.scenarios import Scenario, build_scenario

SPREAD_S = 5e-5


def test_the_starts_and_stops_of_one_spread_are_one_change() -> None:
    flows = [
        (1e-5, math.inf), (3e-5, math.inf),  # the run's start: no change
        (5.0, math.inf), (5.00006, math.inf),  # a spread apart: two joins
        (9.0, 20.0), (9.00004, 20.00004),  # one join, one leave
        (12.00001, math.inf),  # a spread after a CBR start: that change
    ]  # fmt: skip
    cbr = [(12.0, 16.0)]
    got = run_changes(cbr, flows, 30.0, start_spread_s=SPREAD_S)
    assert got == (
        (5.0, 5.00006, 9.0, 12.0, 16.0, 20.0),
        ("flow-join", "flow-join", "flow-join", "cbr-start+flow-join", "cbr-stop", "flow-leave"),
    )
    # without a spread every distinct time is a change of its own
    times, kinds = run_changes(cbr, flows, 30.0)
    assert times == (1e-5, 3e-5, 5.0, 5.00006, 9.0, 9.00004, 12.0, 12.00001, 16.0, 20.0, 20.00004)
    assert kinds[7] == "flow-join" and kinds[6] == "cbr-start"


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_budget_check_counts_the_changes_the_summary_lists(seed: int) -> None:
    from tcpfluid.metrics._records import _count_changes

    rng = np.random.default_rng(seed)
    declared = rng.choice([0.0, 2.0, 2.00003, 5.0, 7.5, 9.0], size=40)
    start = declared + rng.uniform(0.0, SPREAD_S, 40)
    stop = np.where(rng.random(40) < 0.5, start + 3.0, math.inf)
    cbr = [SimpleNamespace(start_s=5.0, stop_s=8.0)]
    sc = SimpleNamespace(cbr=cbr, start_spread_s=SPREAD_S)
    listed, _ = run_changes(
        [(5.0, 8.0)], list(zip(start, stop, strict=True)), 10.0, start_spread_s=SPREAD_S
    )
    assert _count_changes(sc, start, stop, 10.0) == len(listed)


def _summary(engine: str, spread: str | int) -> tcpfluid.Summary:
    sc = build_scenario("ho-fairness", duration="10s", start_spread=spread)
    return tcpfluid.simulate(sc.with_algorithm("vegas"), engine).summary


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "packet"])
def test_five_flows_of_a_spread_start_settle_as_five_flows_starting_together(engine: str) -> None:
    # the TCP-Ho paper's five Vegas flows, 100 Mb/s x 23 ms, started within 50 us (four
    # packet times of the trunk)
    spread = _summary(engine, "50us")
    assert spread.change_times_s == () and spread.change_kinds == ()
    assert all(f.not_settled_reason is None for f in spread.flows)
    assert spread.all_settled_time_s is not None
    if engine == "packet":  # another start order: other shares (docs/your-own-scenario.md)
        return
    together = _summary(engine, 0)
    d = build_scenario("ho-fairness").base_rtts_s()[0]
    for a, b in zip(spread.flows, together.flows, strict=True):
        assert a.settled_window_pkts == pytest.approx(b.settled_window_pkts, abs=1.0)
        # the round model starts a flow that starts after 0 at its next round boundary:
        # up to one round later
        assert a.time_to_equilibrium_s == pytest.approx(b.time_to_equilibrium_s, abs=d + 5e-5)


def test_a_scenario_keeps_its_start_spread() -> None:
    assert build_scenario("ho-fairness", start_spread="8us").start_spread_s == pytest.approx(8e-6)
    assert build_scenario("ho-fairness").start_spread_s == 0.0
    sc = build_scenario("ho-fairness")
    with pytest.raises(ValueError, match=r"start_spread_s must be >= 0, got -1"):
        Scenario(name="x", links=sc.links, flows=sc.flows, start_spread_s=-1)
