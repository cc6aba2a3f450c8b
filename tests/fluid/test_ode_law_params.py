"""The classical model (``simulate(sc, "ode", model="classical")``) runs each law with the
parameters the scenario gives it: every parameter its right-hand side has a place for is
read (tcpfluid.fluid.ode._ode_law_params), and one it has no place for is refused by name.

Expected numbers by hand: a lone Vegas-family flow on an uncongested ACK path rests where
its backlog Δ (here the bottleneck queue, its BaseRTT being the propagation RTT) is between
α and β; with α = β it is α packets (the ramped sign's width, 0.1 packet, is the
tolerance). A flow's window at its start is its initial window.
"""

from __future__ import annotations

from typing import Any

import pytest

import tcpfluid
from tcpfluid.algorithms import law_class
from tcpfluid.engines import Ode
from tcpfluid.fluid._ode_types import ODE_LAWS
from tcpfluid.fluid.ode import _ode_law_params
from tcpfluid.scenarios.files import scenario_from_toml

ONE_FLOW = """name = "one"
duration = "10s"
[[link]]
name = "bottleneck"
rate = "10Mbps"
delay = "5ms"
[[flow]]
name = "x"
algorithm = "vegas"
rtt = "20ms"
"""


def one(algorithm: str, **params: Any) -> tcpfluid.scenarios.Scenario:
    return scenario_from_toml(ONE_FLOW).with_algorithm(algorithm, **params)


@pytest.mark.parametrize("algorithm", ["vegas", "forward-vegas"])
@pytest.mark.parametrize("alpha", [5.0, 9.0])
def test_the_thresholds_set_the_queue_a_lone_flow_keeps(algorithm: str, alpha: float) -> None:
    res = tcpfluid.simulate(one(algorithm, alpha=alpha, beta=alpha), Ode())
    assert res.native.summary.final_queue_pkts == pytest.approx(alpha, abs=0.1)


def test_enhanced_vegas_delta_sets_both_thresholds() -> None:
    res = tcpfluid.simulate(one("enhanced-vegas", delta=7), Ode())
    assert res.native.summary.final_queue_pkts == pytest.approx(7.0, abs=0.1)
    assert _ode_law_params("enhanced-vegas", {"delta": 7})["beta_pkts"] == 7.0


@pytest.mark.parametrize("algorithm", ["vegas", "forward-vegas", "enhanced-vegas", "reno"])
@pytest.mark.parametrize("window", [1.0, 20.0])
def test_the_initial_window_is_the_window_at_the_start(algorithm: str, window: float) -> None:
    res = tcpfluid.simulate(one(algorithm, initial_window=window), Ode())
    assert res.window_pkts[0, 0] == pytest.approx(window, rel=1e-9)


#: values the classical form runs as its own rule: Reno's right-hand side halves once per
#: loss (MGT), which is recovery="halving"
OWN_RULE = {("reno", "recovery"): "halving"}


def _other_values(algorithm: str, p: Any) -> list[Any]:
    """Valid values of the law parameter ``p`` other than its default (and its rule's)."""
    if p.choices:
        rule = OWN_RULE.get((algorithm, p.name))
        return [c for c in p.choices if c not in (p.default, rule)]
    if p.upper is not None:  # inside a bounded range: halfway to the lower bound
        return [(p.default + (p.lower or 0.0)) / 2.0]
    return [p.default + 1.0]


@pytest.mark.parametrize("algorithm", ODE_LAWS)
def test_no_law_parameter_is_silently_ignored(algorithm: str) -> None:
    # every parameter the law declares, given another value than its default, either
    # changes what the classical model integrates or is refused naming it
    cls = law_class(algorithm)
    plain = _ode_law_params(algorithm, {})
    for p in cls.parameters:
        for value in _other_values(algorithm, p):
            if _ode_law_params(algorithm, {p.name: value}) != plain:
                continue
            with pytest.raises(ValueError, match=f"flow 'x'.*{p.name}="):
                tcpfluid.simulate(one(algorithm, **{p.name: value}), Ode())
            # the hybrid model takes it
            assert tcpfluid.simulate(one(algorithm, **{p.name: value}), "hybrid").summary


def test_a_refusal_names_the_flow_the_algorithm_and_the_parameter() -> None:
    with pytest.raises(ValueError) as info:
        tcpfluid.simulate(one("vegas", gamma=2.0), Ode())
    msg = str(info.value)
    assert "flow 'x' (vegas)" in msg and "gamma=2.0" in msg and "model='hybrid'" in msg
