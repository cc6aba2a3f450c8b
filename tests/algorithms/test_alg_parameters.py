"""Each law declares its parameters once, on its class: the constructor, the registry's
``law_parameters``, ``params()``, the scenario keys and the aliases all follow the
declarations. The expected names, ranges and aliases below are those the laws' documents
and docstrings state (the Quick Vegas paper §5 defaults, FAST's γ in (0, 1], Enhanced
Vegas's α = β = δ from Tsang's thesis chapter 2 §4).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tcpfluid.algorithms import (
    ALGORITHMS,
    EnhancedVegas,
    QuickVegas,
    expand_aliases,
    get_law,
    law_class,
    law_parameters,
    parameter_declarations,
)
from tcpfluid.scenarios import LAW_PARAMETER_KEYS


def test_scenario_keys_are_the_backlog_thresholds() -> None:
    # ``--set alpha=... beta=... gamma=... delta=...`` reach the flows' law
    assert LAW_PARAMETER_KEYS == ("alpha", "beta", "gamma", "delta")


def test_constructor_signature_is_the_declarations() -> None:
    sig = inspect.signature(QuickVegas)
    assert list(sig.parameters) == ["alpha", "beta", "gamma", "sampling"]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in sig.parameters.values())
    assert sig.parameters["sampling"].default == "near-band"
    assert law_parameters("quick-vegas") == {
        "alpha": 2.0,
        "beta": 4.0,
        "gamma": 1.0,
        "sampling": "near-band",
    }


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_declared_parameter_is_documented_and_reported(name: str) -> None:
    cls = law_class(name)
    doc = inspect.getdoc(cls) or ""
    for p in parameter_declarations(name):
        assert p.name in doc, (name, p.name)
        assert p.description
    assert list(get_law(name).params()) == [p.name for p in parameter_declarations(name)]


def test_ranges_are_enforced_naming_the_parameter() -> None:
    get_law("fast", gamma=1.0)  # the step may move all the way to the target
    with pytest.raises(ValueError, match=r"gamma must be in \(0, 1\], got 1\.5"):
        get_law("fast", gamma=1.5)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        get_law("fast", alpha=0.0)
    get_law("itcp-vegas", area2_factor=0.0)
    with pytest.raises(ValueError, match=r"area2_factor must be in \[0, 1\), got 1\.0"):
        get_law("itcp-vegas", area2_factor=1.0)
    with pytest.raises(ValueError, match="beta must be <= threshold_max"):
        get_law("itcp-vegas", threshold_max=3.0)
    with pytest.raises(ValueError, match=r"recovery must be one of 'halving'.*got 'tahoe'"):
        get_law("reno", recovery="tahoe")
    with pytest.raises(TypeError, match="alpha must be a number"):
        get_law("vegas", alpha="two")


def test_enhanced_vegas_delta_sets_alpha_and_beta() -> None:
    assert expand_aliases("enhanced-vegas", {"delta": 2.0, "gamma": 1.0}) == {
        "delta": 2.0,
        "gamma": 1.0,
        "alpha": 2.0,
        "beta": 2.0,
    }
    assert expand_aliases("vegas", {"alpha": 1.0}) == {"alpha": 1.0}
    # the other way: α = β given without δ are δ; unequal ones are an error
    assert EnhancedVegas.fold_aliases({"alpha": 2.0, "beta": 2.0, "gamma": 1.0}) == {
        "gamma": 1.0,
        "delta": 2.0,
    }
    assert EnhancedVegas.fold_aliases({"delta": 2.0}) == {"delta": 2.0}
    with pytest.raises(ValueError, match=r"alpha == beta \(its delta\), got alpha=2.0, beta=3.0"):
        EnhancedVegas.fold_aliases({"alpha": 2.0, "beta": 3.0})
    law = EnhancedVegas(delta=2.5)
    assert law.params() == {"delta": 2.5, "gamma": 1.0, "initial_window": 2.0}


def test_enhanced_vegas_decides_as_vegas_with_alpha_and_beta_at_delta() -> None:
    # Tsang's thesis: Enhanced Vegas-δ is Vegas with α = β = δ (it also decreases at Δ = δ
    # exactly, which these fluid runs never hit); the round model's windows of two flows
    # are the same, and differ when α or β is not δ
    from tcpfluid import simulate
    from tcpfluid.scenarios import build_scenario

    base = build_scenario("qv-basic", duration="30s", flows=2)
    enhanced = simulate(base.with_algorithm("enhanced-vegas", delta=2.5), "rounds").window_pkts
    for (alpha, beta), same in (((2.5, 2.5), True), ((2.5, 3.0), False), ((2.0, 2.5), False)):
        vegas = simulate(base.with_algorithm("vegas", alpha=alpha, beta=beta), "rounds")
        assert np.array_equal(enhanced, vegas.window_pkts) == same, (alpha, beta)
