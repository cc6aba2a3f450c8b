"""Re-entering the compiled loop through its entry point.

The packet simulator returns from its compiled loop to Python at every round decision and
re-enters it through the entry point of the loop's compiled version for the arguments'
types (``engine._entry``), not through Numba's dispatcher, which works the types out again
on every call. The reference here is the same run re-entered through the dispatcher every
time: every event, trace and counter must be the same, including runs whose rings grow
(the arguments are made again) and a RED run that draws new random numbers (in blocks
made small here, so that it does).
"""

from __future__ import annotations

from typing import Any

import pytest
from _simkit import assert_same_run, joining_groups

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import _core as C
from tcpfluid.sim import engine, simulate_packets


def _through_dispatcher(args: tuple[Any, ...]) -> Any:
    return C.run


@pytest.mark.parametrize(
    "scenario",
    [
        pytest.param(lambda: joining_groups("reno"), id="joining-reno"),
        pytest.param(
            lambda: build_scenario("qv-basic", duration="20s").with_algorithm("vegas"),
            id="qv-basic-vegas",
        ),
        pytest.param(
            lambda: build_scenario(
                "thesis-two-flow", x2="90ms", queue="red", duration="30s"
            ).with_algorithm("reno"),
            id="thesis-red-reno",
        ),
    ],
)
def test_entry_point_gives_the_dispatchers_run(
    scenario: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sc = scenario()
    monkeypatch.setattr(engine, "_RAND_BLOCK", 256)
    kernels: list[Any] = []
    entry = engine._entry

    def recording(args: tuple[Any, ...]) -> Any:
        kernels.append(entry(args))
        return kernels[-1]

    monkeypatch.setattr(engine, "_entry", recording)
    fast = simulate_packets(sc, seed=3)
    # the fast path is taken: each kernel is the entry point of a compiled version (looked
    # up again after every array that grew), never the dispatcher
    compiled = [C.run.overloads[sig].entry_point for sig in C.run.signatures]
    assert len(kernels) > 1
    assert all(any(k is c for c in compiled) for k in kernels)
    monkeypatch.setattr(engine, "_entry", _through_dispatcher)
    slow = simulate_packets(sc, seed=3)
    assert_same_run(fast, slow)
    assert fast.law_calls == slow.law_calls
