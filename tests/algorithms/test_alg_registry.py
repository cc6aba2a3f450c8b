"""The registry: names are a public contract, errors name what was wrong."""

from __future__ import annotations

import pytest

from tcpfluid.algorithms import ALGORITHMS, ControlLaw, get_law, law_class, law_parameters


def test_names_are_the_contract():
    assert ALGORITHMS == (
        "vegas",
        "enhanced-vegas",
        "quick-vegas",
        "tcp-ho",
        "itcp-vegas",
        "forward-vegas",
        "reno",
        "fast",
    )


@pytest.mark.parametrize("name", ALGORITHMS)
def test_each_name_builds_its_law(name):
    cls = law_class(name)
    assert issubclass(cls, ControlLaw)
    assert cls.name == name
    law = get_law(name)
    assert isinstance(law, cls)
    assert set(law.params()) == set(law_parameters(name))


def test_unknown_name_lists_valid_names():
    with pytest.raises(ValueError, match=r"unknown algorithm 'cubic'.*vegas, enhanced-vegas"):
        get_law("cubic")
    with pytest.raises(ValueError, match="unknown algorithm"):
        law_class("Vegas")


def test_unknown_parameter_is_named_with_accepted_list():
    with pytest.raises(TypeError, match=r"unknown parameter 'alpah'.*accepted: alpha, beta, gamma"):
        get_law("vegas", alpah=1.0)


def test_unknown_parameter_for_reno_lists_its_options():
    with pytest.raises(
        TypeError,
        match=r"unknown parameter 'alpha' for algorithm 'reno'; accepted: recovery, "
        r"initial_window$",
    ):
        get_law("reno", alpha=1.0)


def test_parameters_reach_the_law():
    law = get_law("vegas", alpha=1, beta=3, gamma=2)
    assert law.params() == {"alpha": 1.0, "beta": 3.0, "gamma": 2.0, "initial_window": 2.0}
    with pytest.raises(ValueError, match="alpha must be <= beta"):
        get_law("vegas", alpha=4, beta=3)
