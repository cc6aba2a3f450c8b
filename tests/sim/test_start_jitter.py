"""``tcpfluid.sim.start_jitter``: the senders' start delays of the same scenario with
another start order, below 2 packet times of the bottleneck and 1 % of the shortest base
RTT, drawn from a seed.

Independent route: the bound is worked out here from the scenario's own numbers (the
bottleneck's rate and the packet size given to the scenario, its flows' base RTTs).
"""

from __future__ import annotations

import pytest

from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import start_jitter


@pytest.mark.parametrize(
    ("rate_bps", "rtts_s"),
    [
        (8e6, [0.02, 0.02, 0.02]),  # 1 ms a packet: 1 % of the RTT (0.2 ms) binds
        (1e6, [0.3, 0.05]),  # 8 ms a packet: 1 % of the shorter RTT (0.5 ms) binds
        (1e9, [0.1] * 5),  # 8 us a packet: two packet times (16 us) bind
    ],
)
def test_delays_are_seeded_distinct_and_below_the_bound(rate_bps: float, rtts_s: list) -> None:
    sc = rtt_dumbbell(rate_bps, rtts_s, ["vegas"] * len(rtts_s), duration_s=5.0)
    bound = min(2 * 8 * sc.packet_size_bytes / rate_bps, 0.01 * min(map(sc.base_rtt_s, sc.flows)))
    for seed in (0, 7, (3, 1), [3, 2]):
        d = start_jitter(sc, seed)
        assert d == start_jitter(sc, seed)  # same seed, same delays
        assert len(d) == len(sc.flows) and len(set(d)) == len(d)  # an order among them
        assert all(0.0 <= x < bound for x in d)
        assert all(isinstance(x, float) for x in d)
    assert start_jitter(sc, 0) != start_jitter(sc, 1)
    assert start_jitter(sc, (3, 1)) != start_jitter(sc, (3, 2))


@pytest.mark.parametrize(
    ("seed", "error", "message"),
    [
        (-1, ValueError, "seed must be >= 0, got -1"),
        ((1, -2), ValueError, r"seed\[1\] must be >= 0, got -2"),
        ((), ValueError, "seed must be an integer >= 0 or a non-empty sequence"),
        (1.5, TypeError, "seed must be an integer, got 1.5"),
        (True, TypeError, "seed must be an integer"),
    ],
)
def test_bad_seeds_are_refused_naming_the_value(seed: object, error: type, message: str) -> None:
    sc = rtt_dumbbell(8e6, [0.02], ["vegas"], duration_s=5.0)
    with pytest.raises(error, match=message):
        start_jitter(sc, seed)  # type: ignore[arg-type]


def test_a_scenario_is_required() -> None:
    with pytest.raises(TypeError, match=r"scenario must be a tcpfluid\.scenarios\.Scenario"):
        start_jitter("qv-basic", 0)  # type: ignore[arg-type]


def test_the_docstring_example_runs() -> None:
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(start_jitter, "start_jitter"):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 1 and result.failed == 0
