"""The compiled law contract (:mod:`tcpfluid.algorithms.base`): every registered law decides
through its compiled rules, and a rule bound once to a flow's arrays (the packet simulator's
per-flow calls) decides as the law's ``on_round`` and ``on_loss`` on a copy of the same
state and samples.

These reach the binding the engines use (``ControlLaw._bind_round``, ``_bind_loss``,
``Kernel.bind``), which has no public name, for every law. Through the public route, the
packet simulator's runs of bound laws are the runs of the same laws deciding in Python
(``tests/sim/test_sim_decisions.py``, Vegas and Reno).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.algorithms import ALGORITHMS, RoundAction, RoundSample, get_law, law_class
from tcpfluid.algorithms.base import _runs_rule
from tcpfluid.algorithms.reno import _RENO


@pytest.mark.parametrize("name", ALGORITHMS)
def test_every_law_decides_through_its_compiled_rules(name):
    # the engines' compiled loops call a law's decision only through the rules it binds:
    # a law whose on_round or on_loss is its own Python code cannot be called from them
    cls = law_class(name)
    assert _runs_rule(cls, "on_round", "_round_rule"), name
    assert _runs_rule(cls, "on_loss", "_loss_rule"), name


@pytest.mark.parametrize("name", ALGORITHMS)
def test_a_bound_rule_decides_as_on_round_and_on_loss(name):
    # ControlLaw._bind_round / _bind_loss (the engines' per-flow calls, bound once to arrays
    # whose values change in place) against on_round / on_loss on a copy of the same state
    # and samples: the binding reads each new sample and writes where the engine reads
    law = get_law(name)
    bound_state, plain_state = law.init_state(1), law.init_state(1)
    cols = np.zeros(8)  # cwnd, base, mean, min, max, acks, forward mean and base delays
    bound_sample = RoundSample(*(cols[i : i + 1] for i in range(8)))
    action = RoundAction.empty(1)
    decide = law._bind_round(bound_state, bound_sample, action)
    assert decide is not None
    rng = np.random.default_rng(11)
    for step in range(80):
        base = 0.1
        mean = base * (1.0 + rng.random() * 0.6)
        fwd = 0.05 + (mean - base) * rng.random()
        cols[:] = [2.0 + rng.random() * 40.0, base, mean, base, mean * 1.1, 10.0, fwd, 0.05]
        want = law.on_round(plain_state, RoundSample(*(cols[i : i + 1].copy() for i in range(8))))
        decide()
        assert (action.cwnd[0], action.incr[0], action.cap[0]) == (
            want.cwnd[0],
            want.incr[0],
            want.cap[0],
        ), step
        if step % 7 == 3:  # a loss of each kind in turn
            kind = 1 + (step // 7) % 5
            w, new = np.array([cols[0]]), np.zeros(1)
            lose = law._bind_loss(bound_state, w, new, kind)
            assert lose is not None
            lose()
            expected = law.on_loss(plain_state, np.zeros(1, dtype=np.intp), kind, w.copy())
            assert new[0] == expected[0], kind
        for key in plain_state:
            np.testing.assert_array_equal(bound_state[key], plain_state[key], err_msg=key)


def test_a_rule_bound_to_arguments_of_another_type_goes_through_the_dispatcher() -> None:
    # Kernel.bind: the entry point only for arguments of the signature's types; others are
    # checked (and rejected) by Numba's dispatcher, never passed to the compiled code as is
    phase, ssthresh = np.zeros(1), np.full(1, np.inf)
    cwnd = np.full(1, 4.0, dtype=np.float32)  # the rule takes float64
    call = _RENO.bind(phase, ssthresh, cwnd, np.zeros(1), np.zeros(1), np.zeros(1))
    with pytest.raises(TypeError):
        call()
    new, incr, cap = np.zeros(1), np.zeros(1), np.zeros(1)
    _RENO.bind(phase, ssthresh, cwnd.astype(np.float64), new, incr, cap)()
    assert (new[0], incr[0], cap[0]) == (4.0, 1.0, 8.0)  # slow start: one per ACK, doubling
