"""Properties every registered law must have, checked through the registry.

* Batched equivalence: n flows stepped together give exactly what n single-flow laws give,
  through several rounds and losses (each flow with its own RTT history and parameters).
* Windows never fall below the law's floor (2 packets; 1 for Reno after a timeout).
* The registry contract: every name builds a law whose ``name`` is that name.

That every law decides through its compiled rules, bound once to a flow's arrays, is
checked with the binding itself in ``test_base.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import sample
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.algorithms import (
    ALGORITHMS,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    ControlLaw,
    get_law,
    law_class,
    law_parameters,
)

# per-law parameter values for flows 0, 1, 2 (used to check per-flow parameter arrays)
PER_FLOW = {
    "vegas": {"alpha": [1.0, 2.0, 3.0], "beta": [3.0, 4.0, 3.0], "gamma": [1.0, 0.5, 2.0]},
    "enhanced-vegas": {"delta": [1.0, 3.0, 5.0]},
    "quick-vegas": {"alpha": [1.0, 2.0, 3.0], "beta": [3.0, 4.0, 6.0]},
    "tcp-ho": {},
    "itcp-vegas": {"alpha": [1.0, 2.0, 2.0], "beta": [3.0, 4.0, 8.0], "p_step": [1.0, 2.0, 0.5]},
    "forward-vegas": {"alpha": [1.0, 2.0, 3.0], "beta": [3.0, 4.0, 5.0]},
    "reno": {},
    "fast": {"alpha": [50.0, 100.0, 20.0], "gamma": [0.5, 1.0, 0.25]},
}


@pytest.mark.parametrize("name", ALGORITHMS)
def test_registry_builds_every_law(name):
    cls = law_class(name)
    assert issubclass(cls, ControlLaw) and cls.name == name
    law = get_law(name)
    assert isinstance(law, cls)
    assert set(law.params()) == set(law_parameters(name))
    assert repr(law).startswith(cls.__name__ + "(")


def _single(name, i):
    return get_law(name, **{k: v[i] for k, v in PER_FLOW[name].items()})


def _sample(w, q, r, fq):
    base = 0.1
    return sample(
        w,
        base,
        base + q,
        base + r * q,
        base + q * (2 - r),
        fwd_delay_mean=0.05 + fq,
        fwd_delay_base=0.05,
    )


@pytest.mark.parametrize("name", ALGORITHMS)
@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    rounds=st.integers(1, 25),
)
def test_batched_equals_single_with_losses(name, data, rounds):
    n = 3
    batch = get_law(name, **PER_FLOW[name])
    state = batch.init_state(n)
    singles = [_single(name, i) for i in range(n)]
    s_states = [law.init_state(1) for law in singles]
    act = batch.initial_action(state)
    s_acts = [law.initial_action(s) for law, s in zip(singles, s_states, strict=True)]
    w = np.minimum(act.cwnd + act.incr * act.cwnd, act.cap)
    floor = 1.0 if name == "reno" else 2.0
    for _ in range(rounds):
        q = np.array(data.draw(st.lists(st.floats(0, 0.1), min_size=n, max_size=n)))
        r = np.array(data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
        fq = np.array(data.draw(st.lists(st.floats(0, 0.1), min_size=n, max_size=n)))
        act = batch.on_round(state, _sample(w, q, r, fq))
        s_acts = [
            law.on_round(s, _sample(w[i : i + 1], q[i : i + 1], r[i : i + 1], fq[i : i + 1]))
            for i, (law, s) in enumerate(zip(singles, s_states, strict=True))
        ]
        for i in range(n):
            got = (act.cwnd[i], act.incr[i], act.cap[i])
            one = (s_acts[i].cwnd[0], s_acts[i].incr[0], s_acts[i].cap[0])
            assert got == one
        assert np.all(act.cwnd >= floor) and np.all(act.incr >= 0)
        assert np.all(act.cap >= act.cwnd)
        w = np.minimum(act.cwnd + act.incr * act.cwnd, act.cap)
        kind = data.draw(st.sampled_from([0, LOSS_FAST, LOSS_RETX, LOSS_TIMEOUT]))
        if kind:
            lost = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1))))
            new = batch.on_loss(state, lost, kind, w[lost])
            for j, i in enumerate(lost):
                one = singles[i].on_loss(s_states[i], np.array([0]), kind, w[i : i + 1])
                assert one[0] == new[j]
            w[lost] = new
            assert np.all(new >= floor)
        for i in range(n):
            for key in state:
                assert s_states[i][key][0] == state[key][i] or (
                    np.isnan(s_states[i][key][0]) and np.isnan(state[key][i])
                ), key


@pytest.mark.parametrize("name", ALGORITHMS)
def test_state_is_float64_arrays_with_phase(name):
    law = get_law(name)
    state = law.init_state(4)
    assert "phase" in state
    for key, value in state.items():
        assert isinstance(value, np.ndarray) and value.dtype == np.float64, key
        assert value.shape == (4,), key
    act = law.initial_action(state)
    for arr in (act.cwnd, act.incr, act.cap):
        assert arr.shape == (4,) and arr.dtype == np.float64


@pytest.mark.parametrize("name", ALGORITHMS)
def test_on_loss_rejects_bad_arguments_before_touching_state(name):
    law = get_law(name)
    state = law.init_state(3)
    before = {k: v.copy() for k, v in state.items()}
    idx = np.array([0, 2], dtype=np.intp)
    with pytest.raises(ValueError, match=r"one window per index, got shapes \(1,\) and \(2,\)"):
        law.on_loss(state, idx, LOSS_FAST, np.array([10.0]))
    for bad_kind in (0, 6, True, 1.0, "fast"):
        with pytest.raises(ValueError, match="kind must be LOSS_FAST"):
            law.on_loss(state, idx, bad_kind, np.array([10.0, 20.0]))
    for key, value in before.items():
        np.testing.assert_array_equal(state[key], value, err_msg=key)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_a_law_decides_on_its_senders_delta_exactly_when_it_declares_so(name: str) -> None:
    """``sender.decides_on_sender_delta`` against the law's decisions: the same rounds
    (window 50 packets, no queue on the path: Δ of eq (1) is 0), once with a sender's Δ of
    40 packets in each sample and once without. A law that declares it reads that Δ, and
    at Δ = 40 (far above every threshold) it decides otherwise than at Δ = 0 in slow start
    (it leaves) or in congestion avoidance (it decreases instead of increasing); a law
    that does not declare it decides the same either way."""
    law = get_law(name)
    plain, given = law.init_state(1), law.init_state(1)
    moved = False
    for _ in range(4):  # slow start's rounds, then congestion avoidance's
        s = sample(50.0, base_rtt=0.1, fwd_delay_mean=0.05, fwd_delay_base=0.05)
        a = law.on_round(plain, s)
        s.backlog = np.array([40.0])
        b = law.on_round(given, s)
        moved |= not (
            np.array_equal(a.cwnd, b.cwnd)
            and np.array_equal(a.incr, b.incr)
            and np.array_equal(a.cap, b.cap)
        )
    assert moved == law.sender.decides_on_sender_delta
