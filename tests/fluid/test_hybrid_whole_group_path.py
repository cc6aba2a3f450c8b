"""The hybrid model's boundaries of several flows with one law for every flow.

With one law for every flow (the report's 60-flow runs), the law's state arrays are the
flows' own, in flow order: ``hybrid._Laws`` then hands the law the round sample's rows
as they are, instead of gathering the group's rows and scattering its actions back
(``hybrid.WHOLE_GROUP_PATH``). It may not change a single result: the reference is the
same run through the general route (``WHOLE_GROUP_PATH = False``), which serves any
grouping of flows by law.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _hashkit import assert_same

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import hybrid
from tcpfluid.fluid.hybrid import HybridResult, simulate_hybrid, simulate_scenario_hybrid
from tcpfluid.scenarios import build_scenario


def _both(
    run: Callable[[], HybridResult],
    monkeypatch: pytest.MonkeyPatch,
    taken: int,
    partial: int = 0,
) -> None:
    """``run`` with the whole-group route (taken at least ``taken`` times, ``partial`` of
    them with flows whose round did not end) and with the general route: the same
    result."""
    calls = {"whole": 0, "partial": 0}
    decide = hybrid._Laws.decide

    def counting(self: Any, ends: Any, sample: Any) -> Any:
        if self.whole:
            calls["whole"] += 1
            calls["partial"] += int(not ends.all())
        return decide(self, ends, sample)

    monkeypatch.setattr(hybrid._Laws, "decide", counting)
    fast = run()
    assert calls["whole"] >= taken
    assert calls["partial"] >= partial  # the other flows' state was kept (restored)
    monkeypatch.setattr(hybrid, "WHOLE_GROUP_PATH", False)
    calls["whole"] = 0
    ref = run()
    assert calls["whole"] == 0  # the reference took the general route
    assert_same(fast, ref)


@pytest.mark.parametrize(
    ("algorithm", "scenario", "partial"),
    [
        ("vegas", "qv-many-flows", 0),  # 40 s: one RTT, every round ends together
        ("quick-vegas", "qv-many-flows", 0),
        ("reno", "qv-many-flows", 0),  # losses: the loss reactions after the decisions
        ("fast", "qv-different-rtt", 50),  # three RTTs: some flows' rounds run on
        ("vegas", "qv-different-rtt", 50),
        ("tcp-ho", "qv-many-flows", 0),  # a law with more state (a throughput history)
    ],
)
def test_whole_group_route_equals_the_general_route(
    algorithm: str, scenario: str, partial: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = build_scenario(scenario, duration="40s").with_algorithm(algorithm)
    _both(lambda: simulate_scenario_hybrid(sc), monkeypatch, taken=50, partial=partial)


def test_whole_group_route_on_a_red_queue_with_staggered_flows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    law = get_law("enhanced-vegas", delta=2.0)

    def run() -> HybridResult:
        return simulate_hybrid(
            law,
            mu_pps=800.0,
            base_rtt_s=np.array([0.04, 0.04, 0.04, 0.08, 0.08]),
            duration_s=30.0,
            buffer_pkts=60.0,
            flow_start_s=np.array([0.0, 0.0, 2.0, 0.0, 5.0]),
            flow_stop_s=np.array([np.inf, 20.0, np.inf, np.inf, np.inf]),
        )

    _both(run, monkeypatch, taken=20, partial=20)


def test_several_laws_take_the_general_route() -> None:
    laws = hybrid._Laws([get_law("vegas"), get_law("reno")], 2)
    assert not laws.whole
    one = get_law("vegas")
    assert hybrid._Laws([one, one, one], 3).whole  # the same law object for every flow
    assert hybrid._Laws(one, 4).whole
