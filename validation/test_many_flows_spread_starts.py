"""The scenario keys ``start_spread`` / ``start_seed`` (every scenario): each flow starts a
seeded offset in [0, start_spread) later; off by default."""

from __future__ import annotations

import math

import pytest

from tcpfluid.scenarios import build_scenario, scenario_names


@pytest.mark.parametrize("name", scenario_names())
def test_every_scenario_takes_the_spread_and_is_unchanged_without_it(name: str) -> None:
    plain = build_scenario(name)
    off = build_scenario(name, start_spread=0, start_seed=5)
    spans = [(f.start_s, f.stop_s) for f in plain.flows]
    assert [(f.start_s, f.stop_s) for f in off.flows] == spans
    assert off.notes == plain.notes
    spread = build_scenario(name, start_spread="1ms", start_seed=1)
    moved = [b.start_s - a.start_s for a, b in zip(plain.flows, spread.flows, strict=True)]
    assert all(0.0 <= m < 1e-3 for m in moved), moved
    assert any(m > 0.0 for m in moved)
    assert any("start_spread" in n for n in spread.notes)


def test_offsets_are_seeded_per_flow_and_move_each_flows_whole_life() -> None:
    plain = build_scenario("qv-many-flows")
    a = build_scenario("qv-many-flows", start_spread="8us", start_seed=1)
    b = build_scenario("qv-many-flows", start_spread="8us", start_seed=1)
    c = build_scenario("qv-many-flows", start_spread="8us", start_seed=2)
    starts = [f.start_s for f in a.flows]
    assert starts == [f.start_s for f in b.flows]  # same seed, same starts
    assert starts != [f.start_s for f in c.flows]
    offsets = [f.start_s - p.start_s for f, p in zip(a.flows, plain.flows, strict=True)]
    assert len(set(offsets)) == len(offsets)  # one draw per flow
    assert all(0.0 <= o < 8e-6 for o in offsets)
    # uniform over [0, 8 us): 60 draws have a mean near 4 us (its standard error is
    # 8 us / sqrt(12 * 60) = 0.3 us)
    assert math.isclose(sum(offsets) / len(offsets), 4e-6, abs_tol=1.2e-6)
    # the groups keep their 300 s of activity
    assert all(math.isclose(f.stop_s - f.start_s, 300.0, rel_tol=0, abs_tol=1e-9) for f in a.flows)


@pytest.mark.parametrize(
    ("key", "value", "exc", "words"),
    [
        ("start_spread", -1, ValueError, "start_spread must be a finite time >= 0"),
        ("start_spread", "-2ms", ValueError, "start_spread must be a finite time >= 0"),
        ("start_spread", "inf", ValueError, "start_spread must be a finite time >= 0"),
        ("start_spread", float("nan"), ValueError, "start_spread must be a finite time >= 0"),
        ("start_spread", "soon", ValueError, "start_spread"),
        ("start_seed", -1, ValueError, "start_seed must be >= 0"),
        ("start_seed", 1.5, TypeError, "start_seed must be an integer"),
    ],
)
def test_bad_spread_values_are_refused_naming_the_key(
    key: str, value: object, exc: type[Exception], words: str
) -> None:
    with pytest.raises(exc, match=words):
        build_scenario("qv-different-rtt", **{key: value})
