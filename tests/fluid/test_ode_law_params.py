"""The classical model (``simulate(sc, "ode", model="classical")``) runs each law with the
parameters the scenario gives it: every parameter its right-hand side has a place for is
read (tcpfluid.fluid.ode._ode_law_params), and one it has no place for is refused by name.

Expected numbers by hand: a lone Vegas-family flow on an uncongested ACK path rests where
its backlog Δ (here the bottleneck queue, its BaseRTT being the propagation RTT) is between
α and β; with α = β it is α packets (the ramped sign's width, 0.1 packet, is the
tolerance). A flow's window at its start is its initial window.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest

import tcpfluid
from tcpfluid.algorithms import law_class
from tcpfluid.algorithms.base import classical_ode_form
from tcpfluid.engines import Ode
from tcpfluid.fluid import OdeFlow
from tcpfluid.fluid._ode_types import ODE_LAWS
from tcpfluid.fluid.ode import _ode_law_params, check_classical_params
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


def _flow(algorithm: str, **params: Any) -> Any:
    """A scenario flow as check_classical_params reads it."""
    return SimpleNamespace(name="x", algorithm=algorithm, params=tuple(params.items()))


def _refusal(algorithm: str, ack_path: bool, **params: Any) -> str | None:
    """The classical model's refusal of a flow of ``algorithm`` given ``params``, else None."""
    try:
        check_classical_params([_flow(algorithm, **params)], ack_path)
    except ValueError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("algorithm", ODE_LAWS)
def test_every_honoured_value_is_one_the_law_declares(algorithm: str) -> None:
    declared = {p.name: p for p in law_class(algorithm).parameters}
    form = classical_ode_form(law_class(algorithm))
    assert form is not None
    for rule in form.honours:
        assert rule.parameter in declared, rule
        choices = declared[rule.parameter].choices
        assert rule.values and set(rule.values + rule.without_ack_drops) <= set(choices), rule


@pytest.mark.parametrize("ack_path", [False, True])
@pytest.mark.parametrize("algorithm", ODE_LAWS)
def test_a_choice_the_classical_form_does_not_honour_is_refused(
    algorithm: str, ack_path: bool
) -> None:
    # every value of every choice the law declares, given: the classical model runs it
    # only if its form declares it honoured on this path (a choice with no place and no
    # honoured reading is refused at every value)
    cls = law_class(algorithm)
    form = classical_ode_form(cls)
    assert form is not None
    honours = {rule.parameter: rule for rule in form.honours}
    for p in cls.parameters:
        for value in p.choices:
            rule = honours.get(p.name)
            if rule is None:
                ok: set[Any] = set()
            else:
                ok = set(rule.values) | (set() if ack_path else set(rule.without_ack_drops))
            msg = _refusal(algorithm, ack_path, **{p.name: value})
            if value in ok:
                assert msg is None, (p.name, value, msg)
            else:
                assert msg is not None, (p.name, value)
                assert f"flow 'x' ({algorithm}): {p.name}={value!r}" in msg
                assert "model='hybrid'" in msg


def test_reno_runs_classically_only_with_one_halving_per_loss() -> None:
    # MGT's Reno right-hand side halves the window once per loss: recovery="halving"; the
    # default "newreno" is that rule until ACKs are dropped (then a burst loss ends at the
    # 2-packet floor, docs/algorithms.md "reno"); "collapse" never is
    for ack_path in (False, True):
        assert _refusal("reno", ack_path, recovery="halving") is None
        collapse = _refusal("reno", ack_path, recovery="collapse")
        assert collapse is not None
        assert "flow 'x' (reno): recovery='collapse' needs model='hybrid'" in collapse
        assert "recovery='halving'" in collapse  # what it would take
    assert _refusal("reno", False) is None
    assert _refusal("reno", False, recovery="newreno") is None
    for given in ({}, {"recovery": "newreno"}):
        msg = _refusal("reno", True, **given)
        assert msg is not None
        assert "recovery='newreno' behind an ACK-path bottleneck needs model='hybrid'" in msg


def _accepts(make: Any, *args: Any, **kwargs: Any) -> bool:
    """Whether ``make(*args, **kwargs)`` takes its arguments (no ValueError)."""
    try:
        make(*args, **kwargs)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("algorithm", ODE_LAWS)
def test_an_ode_flow_keeps_the_relations_its_law_declares(algorithm: str) -> None:
    # the thresholds an ODE flow carries are accepted exactly when the law takes them
    cls = law_class(algorithm)
    form = classical_ode_form(cls)
    assert form is not None
    fields = dict(form.places)
    for a, b in [(1.0, 3.0), (3.0, 1.0), (2.0, 2.0)]:
        given = {k: v for k, v in (("alpha", a), ("beta", b)) if k in fields}
        law_ok = _accepts(lambda g: cls(**cls.fold_aliases(g)), given)
        flow_ok = _accepts(OdeFlow, algorithm, 0.1, alpha_pkts=a, beta_pkts=b)
        assert flow_ok == law_ok, (a, b)


@pytest.mark.parametrize(
    ("algorithm", "a", "b", "needs"),
    [
        ("vegas", 3.0, 1.0, "alpha_pkts must be <= beta_pkts, got alpha_pkts=3.0 > beta_pkts=1.0"),
        ("forward-vegas", 3.0, 1.0, "alpha_pkts must be <= beta_pkts"),
        ("enhanced-vegas", 1.0, 3.0, "enhanced-vegas needs alpha_pkts == beta_pkts (its delta)"),
        ("enhanced-vegas", 3.0, 1.0, "got alpha_pkts=3.0, beta_pkts=1.0"),
    ],
)
def test_an_ode_flow_refuses_thresholds_out_of_order(
    algorithm: str, a: float, b: float, needs: str
) -> None:
    # eq (2) needs α <= β (the band between them); Enhanced Vegas has one threshold δ
    with pytest.raises(ValueError, match=re.escape(needs)):
        OdeFlow(algorithm, 0.1, alpha_pkts=a, beta_pkts=b)
    assert OdeFlow(algorithm, 0.1, alpha_pkts=2.0, beta_pkts=2.0).beta_pkts == 2.0
