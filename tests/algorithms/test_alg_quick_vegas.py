"""Quick Vegas (the Quick Vegas paper, §3.2), unit-tested without an engine.

Δ is made exact in floating point by choosing BaseRTT/RTT as a power-of-two fraction:
BaseRTT 0.5 s with RTT 1 s gives Δ = W/2; 0.4375 s with 0.5 s gives Δ = W/8.
"""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import apply, drive, sample
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    QuickVegas,
)

TABLE1_QUICK_VEGAS = [2, 3, 4.5, 6.75, 10.13, 15.19, 22.78, 34.17, 51.26]
#: a sender's slow-start windows by hand from §3.2.1's rule: a window w is ⌊w⌋ packets,
#: whose ⌊w⌋ ACKs add one packet per two (2 + 1, 3 + 1.5, 4.5 + 2, 6.5 + 3, 9.5 + 4.5, ...)
SENDER_WINDOWS = [2, 3, 4.5, 6.5, 9.5, 14, 21, 31.5, 47, 70.5]


def test_slow_start_grows_the_windows_of_a_sender_with_whole_packets():
    # One ACK per unit of window (the driver's fluid count, as a fluid engine counts): the
    # cap keeps each round's growth at half the window's whole packets, as a packet sender
    # grows. Driven with the sender's own ⌊w⌋ ACKs the windows are the same (the cap never
    # binds a packet sender).
    fluid, _ = drive(QuickVegas(), 10, lambda k, w: sample(w))
    assert [w[0] for w in fluid] == SENDER_WINDOWS
    law = QuickVegas()
    state = law.init_state(1)
    action, w = law.initial_action(state), 2.0
    for expected in SENDER_WINDOWS[1:]:
        w = float(apply(action, np.floor(np.array([w])))[0])
        assert w == expected
        action = law.on_round(state, sample(w))


def test_slow_start_is_table1_of_document_000_while_the_windows_are_whole():
    # Table 1 of the Quick Vegas paper counts a fractional window's ACKs (×1.5 a round);
    # the law agrees with it while the windows are whole (2, 3, 4.5) and falls below it
    # by less than 8.5 % over the table's nine rounds (the paper prints two decimals).
    fluid, _ = drive(QuickVegas(), 9, lambda k, w: sample(w))
    got = np.array([w[0] for w in fluid])
    np.testing.assert_allclose(got[:3], TABLE1_QUICK_VEGAS[:3], atol=0.005)
    ratio = got / np.array(TABLE1_QUICK_VEGAS)
    assert np.all(ratio <= 1.0) and np.all(ratio > 0.915)
    assert ratio[-1] < 0.93  # the fractional ACKs are counted: not Table 1 itself


def test_slow_start_is_one_packet_per_two_acks_every_round():
    law = QuickVegas()
    state = law.init_state(1)
    first = law.initial_action(state)
    assert (first.cwnd[0], first.incr[0], first.cap[0]) == (2.0, 0.5, 3.0)
    act = law.on_round(state, sample(10.0))
    assert (act.cwnd[0], act.incr[0], act.cap[0]) == (10.0, 0.5, 15.0)


def test_leaving_slow_start_cuts_by_one_eighth():
    law = QuickVegas()
    state = law.init_state(1)
    act = law.on_round(state, sample(16.0, 0.4375, 0.5))  # Δ = 16/8 = 2 > γ = 1
    assert act.cwnd[0] == 14.0 and act.incr[0] == 0.0
    assert state["phase"][0] == CONGESTION_AVOIDANCE


def _ca(n=1, **kw):
    law = QuickVegas(**kw)
    state = law.init_state(n)
    state["phase"][:] = CONGESTION_AVOIDANCE
    return law, state


@pytest.mark.parametrize(
    ("w", "new", "incr", "cap"),
    [
        (10.0, 9.0, 0.0, 9.0),  # Δ = 5 > β: 10 − (5 − 3)/2 = 9 (eq 4)
        (8.0, 7.0, 0.0, 7.0),  # Δ = 4 = β, > m = 3: −1
        (7.0, 6.0, 0.0, 6.0),  # Δ = 3.5 in (m, β]: −1
        (6.0, 6.0, 0.0, 6.0),  # Δ = 3 = m: unchanged
        (5.0, 5.0, 0.2, 6.0),  # Δ = 2.5 in [α, m): 1/cwnd per ACK
        (4.0, 4.0, 0.25, 5.0),  # Δ = 2 = α: 1/cwnd per ACK
    ],
)
def test_congestion_avoidance_branches(w, new, incr, cap):
    law, state = _ca(alpha=2.0, beta=4.0)
    state["succ"][:] = 5.0
    act = law.on_round(state, sample(w, 0.5, 1.0))  # Δ = W/2
    assert act.cwnd[0] == pytest.approx(new)
    assert act.incr[0] == pytest.approx(incr)
    assert act.cap[0] == pytest.approx(cap)
    assert state["succ"][0] == 0.0  # "succ will be reset whenever Δ >= α"


def test_eq3_increase_grows_with_succ_and_at_most_doubles():
    # the pseudo-code read literally: a decision every round
    law, state = _ca(alpha=2.0, beta=4.0, sampling="every-round")
    s = sample(8.0, 0.4375, 0.5)  # Δ = 1 < α
    # succ = 1: (β − Δ)·1 = 3 -> 3/8 per ACK, cap 11
    a = law.on_round(state, s)
    assert (a.incr[0], a.cap[0], state["succ"][0]) == (3 / 8, 11.0, 1.0)
    # succ = 2: 6 -> 6/8 per ACK, cap 14
    a = law.on_round(state, s)
    assert (a.incr[0], a.cap[0], state["succ"][0]) == (6 / 8, 14.0, 2.0)
    # succ = 3: 9 > cwnd = 8 -> incr = 1, at most double: cap 16
    a = law.on_round(state, s)
    assert (a.incr[0], a.cap[0], state["succ"][0]) == (1.0, 16.0, 3.0)


def test_eq11_sum_with_zero_backlog():
    # The Quick Vegas paper, eq (11) with Δ = 0: after i rounds W_i = W + β·i(i+1)/2.
    # β = 4, W = 100: 104, 112, 124, 140 (no doubling limit reached).
    law, state = _ca(alpha=2.0, beta=4.0, sampling="every-round")
    w = np.array([100.0])
    seen = []
    for _ in range(4):
        act = law.on_round(state, sample(w, 0.1, 0.1))  # RTT = BaseRTT: Δ = 0
        w = apply(act, w)
        seen.append(float(w[0]))
    assert seen == [104.0, 112.0, 124.0, 140.0]


@pytest.mark.parametrize(
    ("sampling", "expected"),
    [
        # a measurement round after each eq-(3) increase: 104, hold, 112, hold, 124, ...
        ("after-increase", [104.0, 104.0, 112.0, 112.0, 124.0, 124.0]),
        # a measurement round after every decision: the same with Δ = 0 throughout
        ("every-other-round", [104.0, 104.0, 112.0, 112.0, 124.0, 124.0]),
    ],
)
def test_measurement_round_after_an_increase(sampling, expected):
    # eq (11) with Δ = 0, one decision per two rounds: succ counts the increases measured
    law, state = _ca(alpha=2.0, beta=4.0, sampling=sampling)
    w = np.array([100.0])
    seen = []
    for _ in range(6):
        act = law.on_round(state, sample(w, 0.1, 0.1))
        w = apply(act, w)
        seen.append(float(w[0]))
    assert seen == expected


def test_near_band_decides_every_round_far_from_the_band():
    # the default: with Δ = 0 (below α/4) eq (11) holds round after round, as printed
    law, state = _ca(alpha=2.0, beta=4.0)
    w = np.array([100.0])
    seen = []
    for _ in range(4):
        act = law.on_round(state, sample(w, 0.1, 0.1))
        w = apply(act, w)
        seen.append(float(w[0]))
    assert seen == [104.0, 112.0, 124.0, 140.0]


def test_near_band_measures_after_an_increase_near_the_band():
    # Δ = W/8 = 1 >= α/4 = 0.5: the eq-(3) increase (β − Δ = 3, succ 1) is followed by a
    # measurement round (no decision, succ kept), then succ = 2 (6 packets)
    law, state = _ca(alpha=2.0, beta=4.0)
    s = sample(8.0, 0.4375, 0.5)
    a = law.on_round(state, s)
    assert (a.cap[0] - a.cwnd[0], state["succ"][0]) == (3.0, 1.0)
    a = law.on_round(state, s)
    assert (a.incr[0], a.cap[0], state["succ"][0]) == (0.0, 8.0, 1.0)
    a = law.on_round(state, s)
    assert (a.cap[0] - a.cwnd[0], state["succ"][0]) == (6.0, 2.0)


def test_after_increase_decides_decreases_every_round():
    # Δ = W/2 = 5 > β = 4 twice in a row: eq (4) acts in both rounds (no measurement
    # round after a decrease, unlike "every-other-round")
    law, state = _ca(alpha=2.0, beta=4.0)
    a1 = law.on_round(state, sample(10.0, 0.5, 1.0))
    a2 = law.on_round(state, sample(10.0, 0.5, 1.0))
    assert a1.cwnd[0] == a2.cwnd[0] == 9.0
    law, state = _ca(alpha=2.0, beta=4.0, sampling="every-other-round")
    a1 = law.on_round(state, sample(10.0, 0.5, 1.0))
    a2 = law.on_round(state, sample(10.0, 0.5, 1.0))
    assert (a1.cwnd[0], a2.cwnd[0], a2.incr[0]) == (9.0, 10.0, 0.0)


def test_sampling_is_checked_and_reported():
    with pytest.raises(ValueError, match="sampling must be one of"):
        QuickVegas(sampling="sometimes")  # type: ignore[arg-type]
    assert QuickVegas().params()["sampling"] == "near-band"


def test_losses_reset_succ():
    law, state = _ca(n=2)
    state["succ"][:] = 4.0
    assert law.on_loss(state, np.array([0]), LOSS_FAST, np.array([40.0]))[0] == 30.0
    assert state["succ"].tolist() == [0.0, 4.0]
    assert law.on_loss(state, np.array([1]), LOSS_TIMEOUT, np.array([40.0]))[0] == 2.0
    assert state["phase"][1] == SLOW_START and state["ssthresh"][1] == 20.0


def test_bad_parameters():
    with pytest.raises(ValueError, match=r"alpha must be <= beta.*alpha=3\.0 > beta=1\.0"):
        QuickVegas(alpha=3.0, beta=1.0)
    with pytest.raises(ValueError, match="gamma must be > 0"):
        QuickVegas(gamma=0)


@st.composite
def ca_batch(draw):
    n = draw(st.integers(1, 6))
    fl = st.floats
    cw = draw(st.lists(fl(2.0, 3000.0), min_size=n, max_size=n))
    q = draw(st.lists(fl(0.0, 0.3), min_size=n, max_size=n))
    succ = draw(st.lists(st.integers(0, 20).map(float), min_size=n, max_size=n))
    alpha = draw(st.lists(fl(0.0, 4.0), min_size=n, max_size=n))
    width = draw(st.lists(fl(0.0, 4.0), min_size=n, max_size=n))
    phase = draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))
    return n, cw, q, succ, alpha, width, phase


@settings(max_examples=60, deadline=None)
@given(ca_batch())
def test_batched_equals_single_and_window_bounds(b):
    n, cw, q, succ, alpha, width, phase = b
    beta = [a + w for a, w in zip(alpha, width, strict=True)]
    rtt = [0.1 * (1 + x) for x in q]
    law = QuickVegas(alpha=alpha, beta=beta)
    state = law.init_state(n)
    state["succ"][:] = succ
    state["phase"][:] = phase
    act = law.on_round(state, sample(cw, 0.1, rtt))
    w = np.array(cw)
    end = apply(act, w)
    assert np.all(act.cwnd >= 2.0)
    assert np.all(end <= 2.0 * w + 1e-9)  # never more than doubles in a round
    for i in range(n):
        one = QuickVegas(alpha=alpha[i], beta=beta[i])
        s1 = one.init_state(1)
        s1["succ"][:] = succ[i]
        s1["phase"][:] = phase[i]
        a1 = one.on_round(s1, sample([cw[i]], 0.1, [rtt[i]]))
        assert (a1.cwnd[0], a1.incr[0], a1.cap[0]) == (act.cwnd[i], act.incr[i], act.cap[i])
        assert s1["succ"][0] == state["succ"][i]


def _ramp(law, state, w0, rounds):
    """Windows after ``rounds`` rounds with Δ = 0 (RTT = BaseRTT)."""
    w, seen = np.array([w0]), []
    for _ in range(rounds):
        w = apply(law.on_round(state, sample(w, 0.1, 0.1)), w)
        seen.append(float(w[0]))
    return seen


@pytest.mark.parametrize(
    ("sampling", "expected"),
    [
        # the near-band rule alone: Δ = 0 is far from the band, a decision every round
        ("near-band", [104.0, 112.0, 124.0, 140.0]),
        # after the overshoot every eq-(3) increase is measured: 104, hold, 112, hold
        ("near-band-after-overshoot", [104.0, 104.0, 112.0, 112.0]),
    ],
)
def test_an_overshoot_makes_the_next_increases_measured(sampling, expected):
    law, state = _ca(alpha=2.0, beta=4.0, sampling=sampling)
    # Δ = W/2 = 10 > 2β = 8: an overshoot, eq (4) cuts (10 − 3)/2
    a = law.on_round(state, sample(20.0, 0.5, 1.0))
    assert a.cwnd[0] == 16.5
    assert _ramp(law, state, 100.0, 4) == expected


def test_the_overshoot_flag_clears_when_an_increase_is_seen_back_in_the_band():
    law, state = _ca(alpha=2.0, beta=4.0, sampling="near-band-after-overshoot")
    law.on_round(state, sample(20.0, 0.5, 1.0))  # overshoot: Δ = 10
    assert state["wary"][0] == 1.0
    law.on_round(state, sample(100.0, 0.1, 0.1))  # Δ = 0: increase, measured
    law.on_round(state, sample(104.0, 0.1, 0.1))  # the measurement round
    assert state["wary"][0] == 1.0
    # the decision after the increase finds Δ = W/2 = 2.5 >= α: back in the band
    law.on_round(state, sample(5.0, 0.5, 1.0))
    assert state["wary"][0] == 0.0
    # a band decision that does not follow an increase leaves the flag as it is
    law.on_round(state, sample(20.0, 0.5, 1.0))
    law.on_round(state, sample(5.0, 0.5, 1.0))
    assert state["wary"][0] == 1.0
    # Δ just above β (not an overshoot) does not set it: near-band decides every round
    law, state = _ca(alpha=2.0, beta=4.0, sampling="near-band-after-overshoot")
    law.on_round(state, sample(10.0, 0.5, 1.0))  # Δ = 5: eq (4), not an overshoot
    assert _ramp(law, state, 100.0, 3) == [104.0, 112.0, 124.0]


def test_the_overshoot_flag_clears_after_two_decisions_in_the_lower_half_of_the_band():
    # settling from above: eq (4) decreases, then Δ = W/8 = 2.5 in [α, m) twice in a row
    law, state = _ca(alpha=2.0, beta=4.0, sampling="near-band-after-overshoot")
    law.on_round(state, sample(20.0, 0.5, 1.0))  # overshoot
    law.on_round(state, sample(20.0, 0.4375, 0.5))  # Δ = 2.5 after a decrease: kept
    assert state["wary"][0] == 1.0
    law.on_round(state, sample(20.0, 0.4375, 0.5))  # and again: back in the band
    assert state["wary"][0] == 0.0
