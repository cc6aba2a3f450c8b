"""Vegas and Enhanced Vegas, unit-tested without an engine.

Expected numbers are computed by hand in each test from the rules of the Quick Vegas paper, §3.1
(eqs 1–2) and Tsang's thesis, chapter 2 §4, or read from the Quick Vegas paper, Table 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import apply, drive, rtt_for_delta, sample
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    SLOW_START,
    EnhancedVegas,
    Vegas,
)


def test_slow_start_reproduces_table1_of_document_000():
    # The Quick Vegas paper, Table 1, Vegas row, with Δ never above γ (RTT = BaseRTT).
    law = Vegas()
    starts, _ = drive(law, 9, lambda k, w: sample(w))
    assert [float(w[0]) for w in starts] == [2, 2, 4, 4, 8, 8, 16, 16, 32]


def test_slow_start_actions_alternate_growing_and_fixed():
    law = Vegas()
    state = law.init_state(1)
    first = law.initial_action(state)
    assert first.cwnd[0] == 2.0 and first.incr[0] == 0.0
    grow = law.on_round(state, sample(2.0))
    # one packet per ACK, at most doubling
    assert (grow.cwnd[0], grow.incr[0], grow.cap[0]) == (2.0, 1.0, 4.0)
    fixed = law.on_round(state, sample(4.0))
    assert (fixed.cwnd[0], fixed.incr[0], fixed.cap[0]) == (4.0, 0.0, 4.0)
    assert state["phase"][0] == SLOW_START


def test_leaving_slow_start_cuts_by_one_eighth():
    law = Vegas(gamma=1.0)
    state = law.init_state(1)
    # W = 64, Δ = 1.5 > γ = 1  ->  64 × 7/8 = 56, congestion avoidance
    act = law.on_round(state, sample(64.0, 0.1, rtt_for_delta(64.0, 1.5)))
    assert act.cwnd[0] == pytest.approx(56.0)
    assert act.incr[0] == 0.0
    assert state["phase"][0] == CONGESTION_AVOIDANCE


def test_delta_equal_to_gamma_stays_in_slow_start():
    # "If the estimated amount of extra data is greater than γ" – strict inequality.
    # BaseRTT 0.5 s, RTT 1 s: Δ = W (1 − 1/2) = W/2 exactly in floating point; W = 2 -> Δ = 1.
    law = Vegas(gamma=1.0)
    state = law.init_state(1)
    act = law.on_round(state, sample(2.0, 0.5, 1.0))
    assert state["phase"][0] == SLOW_START
    assert act.incr[0] == 1.0 and act.cap[0] == 4.0


@pytest.mark.parametrize(
    ("rtt", "expected_cwnd", "expected_incr", "expected_cap"),
    [
        # Δ = 100 (1 − 0.1/0.101) = 0.990 < α = 2  -> +1 spread: 1/100 per ACK, cap 101
        (0.101, 100.0, 0.01, 101.0),
        # Δ = 100 (1 − 0.1/0.103) = 2.913 in [2, 4]  -> unchanged
        (0.103, 100.0, 0.0, 100.0),
        # Δ = 100 (1 − 0.1/0.105) = 4.762 > β = 4  -> 99 at the boundary
        (0.105, 99.0, 0.0, 99.0),
    ],
)
def test_congestion_avoidance_eq2(rtt, expected_cwnd, expected_incr, expected_cap):
    law = Vegas(alpha=2.0, beta=4.0)
    state = law.init_state(1)
    state["phase"][:] = CONGESTION_AVOIDANCE
    act = law.on_round(state, sample(100.0, 0.1, rtt))
    assert act.cwnd[0] == pytest.approx(expected_cwnd)
    assert act.incr[0] == pytest.approx(expected_incr)
    assert act.cap[0] == pytest.approx(expected_cap)
    # a full round of 100 ACKs moves the window by exactly the eq-(2) step
    assert apply(act, np.array([100.0]))[0] == pytest.approx(expected_cap)


def test_band_edges_are_inclusive():
    # α <= Δ <= β keeps the window (eq 2): Δ = α and Δ = β exactly
    law = Vegas(alpha=2.0, beta=4.0)
    state = law.init_state(2)
    state["phase"][:] = CONGESTION_AVOIDANCE
    # BaseRTT 0.5 s, RTT 1 s: Δ = W/2 exactly; W = 4 -> Δ = α = 2, W = 8 -> Δ = β = 4
    act = law.on_round(state, sample([4.0, 8.0], 0.5, 1.0))
    np.testing.assert_allclose(act.cwnd, [4.0, 8.0])
    np.testing.assert_allclose(act.incr, [0.0, 0.0], atol=1e-15)


def test_window_floor_is_two_packets():
    law = Vegas(alpha=0.0, beta=0.1)
    state = law.init_state(1)
    state["phase"][:] = CONGESTION_AVOIDANCE
    # W = 2.5, Δ = 2.5 (1 − 0.1/0.2) = 1.25 > β: 2.5 − 1 = 1.5 -> floored at 2
    act = law.on_round(state, sample(2.5, 0.1, 0.2))
    assert act.cwnd[0] == 2.0


def test_losses_fast_retx_timeout():
    law = Vegas()
    state = law.init_state(3)
    idx = np.array([0])
    assert law.on_loss(state, idx, LOSS_FAST, np.array([40.0]))[0] == 30.0  # 3/4
    assert state["phase"][0] == CONGESTION_AVOIDANCE
    assert law.on_loss(state, np.array([1]), LOSS_RETX, np.array([40.0]))[0] == 20.0  # 1/2
    new = law.on_loss(state, np.array([2]), LOSS_TIMEOUT, np.array([40.0]))
    assert new[0] == 2.0
    assert state["ssthresh"][2] == 20.0 and state["phase"][2] == SLOW_START


def test_after_timeout_slow_start_stops_at_ssthresh_without_cut():
    law = Vegas()
    state = law.init_state(1)
    law.on_loss(state, np.array([0]), LOSS_TIMEOUT, np.array([12.0]))  # ssthresh 6
    a = law.on_round(state, sample(2.0))  # growing round: cap min(4, 6)
    assert (a.incr[0], a.cap[0]) == (1.0, 4.0)
    a = law.on_round(state, sample(4.0))  # fixed round
    a = law.on_round(state, sample(4.0))  # growing round: cap min(8, 6) = 6
    assert a.cap[0] == 6.0
    a = law.on_round(state, sample(6.0))  # reached ssthresh: CA, no 1/8 cut
    assert a.cwnd[0] == 6.0 and state["phase"][0] == CONGESTION_AVOIDANCE


def test_bad_loss_kind_and_shapes():
    law = Vegas()
    state = law.init_state(2)
    with pytest.raises(ValueError, match="kind"):
        law.on_loss(state, np.array([0]), 7, np.array([10.0]))
    with pytest.raises(ValueError, match="one window per index"):
        law.on_loss(state, np.array([0, 1]), LOSS_FAST, np.array([10.0]))


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"alpha": 5.0, "beta": 4.0}, ValueError, r"alpha must be <= beta.*alpha=5\.0.*beta=4\.0"),
        ({"alpha": [1.0, 3.0], "beta": [2.0, 2.5]}, ValueError, r"alpha=3\.0 > beta=2\.5"),
        ({"gamma": 0.0}, ValueError, "gamma must be > 0"),
        ({"gamma": -1.0}, ValueError, "gamma must be > 0"),
        ({"alpha": -1.0}, ValueError, "alpha must be >= 0"),
        ({"beta": float("nan")}, ValueError, "beta must be finite"),
        ({"alpha": "2"}, TypeError, "alpha must be a number"),
        ({"alpha": [[1.0]], "beta": 4.0}, ValueError, "1-d array"),
        ({"alpha": [1.0, 2.0], "gamma": [1.0, 1.0, 1.0]}, ValueError, "same length"),
    ],
)
def test_bad_parameters(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        Vegas(**kwargs)


def test_parameter_array_length_must_match_flows():
    law = Vegas(alpha=[1.0, 2.0, 3.0], beta=4.0)
    with pytest.raises(ValueError, match="n=5"):
        law.init_state(5)
    with pytest.raises(ValueError, match="n must be >= 1"):
        law.init_state(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        law.init_state(2.0)


flows = st.integers(min_value=1, max_value=6)


@st.composite
def batch(draw):
    n = draw(flows)
    f = st.floats
    cw = draw(st.lists(f(2.0, 5000.0), min_size=n, max_size=n))
    q = draw(st.lists(f(0.0, 0.5), min_size=n, max_size=n))  # queueing delay / base
    phase = draw(
        st.lists(st.sampled_from([SLOW_START, CONGESTION_AVOIDANCE]), min_size=n, max_size=n)
    )
    grow = draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))
    alpha = draw(st.lists(f(0.0, 5.0), min_size=n, max_size=n))
    width = draw(st.lists(f(0.0, 5.0), min_size=n, max_size=n))
    gamma = draw(st.lists(f(0.1, 5.0), min_size=n, max_size=n))
    return n, cw, q, phase, grow, alpha, width, gamma


@settings(max_examples=60, deadline=None)
@given(batch())
def test_batched_equals_single_flow_calls(b):
    n, cw, q, phase, grow, alpha, width, gamma = b
    beta = [a + w for a, w in zip(alpha, width, strict=True)]
    rtt = [0.1 * (1 + x) for x in q]
    law = Vegas(alpha=alpha, beta=beta, gamma=gamma)
    state = law.init_state(n)
    state["phase"][:] = phase
    state["ss_grow"][:] = grow
    act = law.on_round(state, sample(cw, 0.1, rtt))
    for i in range(n):
        one = Vegas(alpha=alpha[i], beta=beta[i], gamma=gamma[i])
        s1 = one.init_state(1)
        s1["phase"][:] = phase[i]
        s1["ss_grow"][:] = grow[i]
        a1 = one.on_round(s1, sample([cw[i]], 0.1, [rtt[i]]))
        assert (a1.cwnd[0], a1.incr[0], a1.cap[0]) == (act.cwnd[i], act.incr[i], act.cap[i])
        for key in state:
            assert s1[key][0] == state[key][i]


@settings(max_examples=80, deadline=None)
@given(batch())
def test_properties_floor_and_at_most_one_per_ca_round(b):
    n, cw, q, _phase, _grow, alpha, width, gamma = b
    beta = [a + w for a, w in zip(alpha, width, strict=True)]
    law = Vegas(alpha=alpha, beta=beta, gamma=gamma)
    state = law.init_state(n)
    state["phase"][:] = CONGESTION_AVOIDANCE
    w = np.array(cw)
    act = law.on_round(state, sample(w, 0.1, [0.1 * (1 + x) for x in q]))
    end = apply(act, w)
    assert np.all(act.cwnd >= 2.0) and np.all(end >= 2.0)
    assert np.all(np.abs(end - w) <= 1.0 + 1e-12)


def test_enhanced_vegas_has_no_dead_band():
    # Tsang's thesis, ch. 2 §4: +1 if Δ < δ, −1 if Δ >= δ.
    ev = EnhancedVegas(delta=3.0)
    vg = Vegas(alpha=3.0, beta=3.0)
    # BaseRTT 0.5 s, RTT 1 s: Δ = W/2 exactly, so W = 4, 6, 8 give Δ = 2, 3 (= δ), 4
    s = sample([4.0, 6.0, 8.0], 0.5, 1.0)
    st_e = ev.init_state(3)
    st_v = vg.init_state(3)
    st_e["phase"][:] = CONGESTION_AVOIDANCE
    st_v["phase"][:] = CONGESTION_AVOIDANCE
    a_e = ev.on_round(st_e, s)
    a_v = vg.on_round(st_v, s)
    np.testing.assert_allclose(apply(a_e, s.acks), [5.0, 5.0, 7.0])
    np.testing.assert_allclose(apply(a_v, s.acks), [5.0, 6.0, 7.0])


def test_enhanced_vegas_parameters():
    assert EnhancedVegas().params() == {"delta": 3.0, "gamma": 1.0, "initial_window": 2.0}
    with pytest.raises(ValueError, match="delta must be > 0"):
        EnhancedVegas(delta=0.0)
    with pytest.raises(ValueError, match=r"initial_window must be in \[1.0, inf\)"):
        EnhancedVegas(initial_window=0.5)
    with pytest.raises(
        TypeError, match=r"unknown parameter 'alpha'.*accepted: delta, gamma, initial_window"
    ):
        EnhancedVegas(alpha=1.0)


def test_slow_start_matches_table3_of_document_004_shifted_by_one_round():
    # The TCP-Ho paper, Table 3 (Vegas): W = 2, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32 and
    # z = 0, 0, 2, 0, 4, 0, 8, 0, 16, 0, 32. It counts one more initial round than
    # the Quick Vegas paper, Table 1 (2, 2, 4, 4, 8, ...), so its round i is our round i − 1.
    table3_w = [2, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32]
    table3_z = [0, 0, 2, 0, 4, 0, 8, 0, 16, 0, 32]
    starts, actions = drive(Vegas(), 10, lambda k, w: sample(w))
    assert [float(w[0]) for w in starts] == table3_w[1:]
    added = [float(apply(a, a.cwnd)[0] - a.cwnd[0]) for a in actions[:10]]
    assert added == table3_z[1:]
