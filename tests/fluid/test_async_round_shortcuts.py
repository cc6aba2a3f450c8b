"""The asynchronous round model skips work whose result a round already has.

Two shortcuts save most of a round's time in the report's runs of flows with different
base RTTs: the shared standing backlog of the class's window after the round's growth is
the backlog before it when the round did not grow the window (the same inputs), and a
round without a buffer overflow shares no loss (its proportional shares are all zero).
Neither may change a single result: the reference is the same run with every round doing
that work (``_rounds_async.SKIP_UNCHANGED = False``, the model's behaviour before).
"""

from __future__ import annotations

from typing import Any

import pytest
from _hashkit import assert_same

from tcpfluid.fluid import _rounds_async
from tcpfluid.fluid.rounds import simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario


@pytest.mark.parametrize(
    ("scenario", "overrides", "law", "params", "options"),
    [
        # RED drops on two one-flow classes (the thesis's runs)
        ("thesis-two-flow", {"queue": "red", "x2": "10ms", "duration": "30s"},
         "enhanced-vegas", {"delta": 1.0}, {}),
        ("thesis-two-flow", {"queue": "red", "x2": "50ms", "duration": "30s"}, "vegas", {}, {}),
        # drop-tail overflows shared between the classes, loss episodes
        ("thesis-two-flow", {"x2": "30ms", "duration": "30s"}, "reno", {}, {}),
        ("thesis-two-flow", {"x2": "30ms", "duration": "30s"}, "fast", {}, {}),
        # overflows shared in turn (the shares carry state even when nothing is lost)
        ("thesis-two-flow", {"x2": "30ms", "duration": "30s"}, "reno", {},
         {"drop_share": "in-turn"}),
        # three RTT classes of many flows joining in groups (the many-flows section)
        ("qv-different-rtt", {"duration": "60s"}, "quick-vegas", {}, {}),
        ("qv-different-rtt", {"duration": "60s"}, "reno", {}, {}),
    ],
    ids=["evegas-red", "vegas-red", "reno", "fast", "reno-in-turn", "qv-3rtt", "reno-3rtt"],
)  # fmt: skip
def test_skipped_work_changes_no_result(
    scenario: str,
    overrides: dict[str, Any],
    law: str,
    params: dict[str, Any],
    options: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sc = build_scenario(scenario, **overrides).with_algorithm(law, **params)
    calls = {"backlog": 0}
    backlog = _rounds_async.shared_backlog

    def counting(*args: Any) -> float:
        calls["backlog"] += 1
        return backlog(*args)

    monkeypatch.setattr(_rounds_async, "shared_backlog", counting)
    fast = simulate_scenario_rounds(sc, **options)
    n_fast = calls["backlog"]
    monkeypatch.setattr(_rounds_async, "SKIP_UNCHANGED", False)
    calls["backlog"] = 0
    ref = simulate_scenario_rounds(sc, **options)
    # the shortcut was taken (fewer backlog solutions), and nothing changed
    assert 0 < n_fast < calls["backlog"]
    assert_same(fast, ref)
