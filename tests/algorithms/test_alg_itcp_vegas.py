"""iTCP-Vegas (the iTCP-Vegas paper, §3, our interpretation: see the module docstring).

Every rule is checked on hand-made rounds. Δ is exact in floating point: BaseRTT 0.5 s and
RTT 1 s give Δ = W/2.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _lawkit import drive, rtt_for_delta, sample

from tcpfluid.algorithms import CONGESTION_AVOIDANCE, LOSS_FAST, ITcpVegas, get_law


def _ca(law, n=1):
    state = law.init_state(n)
    state["phase"][:] = CONGESTION_AVOIDANCE
    return state


def test_slow_start_is_vegas():
    # the iTCP-Vegas paper, §4.2: "the slow-start algorithm of iTCP-Vegas is the same"; Vegas's
    # doubling every other round (Table 1 of the Quick Vegas paper: 2, 2, 4, 4, 8, ...)
    starts, _ = drive(ITcpVegas(), 9, lambda k, w: sample(w))
    assert [float(w[0]) for w in starts] == [2, 2, 4, 4, 8, 8, 16, 16, 32]


def test_area1_scales_p_and_raises_thresholds_by_a_share_of_it():
    law = ITcpVegas(alpha=2.0, beta=4.0, p_step=1.0, threshold_gain=0.5)
    state = _ca(law)
    s = sample(3.0, 0.5, 1.0)  # Δ = 1.5 < a = 2
    a = law.on_round(state, s)  # P = 1: +1 over the round; thresholds + 0.5 × 1
    assert (state["p"][0], a.cwnd[0], a.cap[0]) == (1.0, 3.0, 4.0)
    assert a.incr[0] == pytest.approx(1 / 3)
    assert (state["a"][0], state["b"][0]) == (2.5, 4.5)
    a = law.on_round(state, s)  # Δ = 1.5 < a = 2.5: P = 2: +2; thresholds + 0.5 × 2
    assert (state["p"][0], a.cap[0]) == (2.0, 5.0)
    assert (state["a"][0], state["b"][0]) == (3.5, 5.5)


def test_area1_default_steps():
    # defaults p_step = 1.25, threshold_gain = 0.04: P 1.25, thresholds + 0.05
    law = ITcpVegas()
    state = _ca(law)
    a = law.on_round(state, sample(10.0, 0.9, 1.0))  # Δ = 10 × 0.1 = 1 < 2
    assert state["p"][0] == 1.25 and a.cap[0] == 11.25
    assert state["a"][0] == pytest.approx(2.05) and state["b"][0] == pytest.approx(4.05)


def test_area1_increase_at_most_doubles_and_threshold_ceiling():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=1.0, threshold_max=5.0)
    state = _ca(law)
    state["p"][:] = 9.0
    a = law.on_round(state, sample(3.0, 0.5, 1.0))  # P = 10 > cwnd 3: +3 (doubling)
    assert (a.incr[0], a.cap[0]) == (1.0, 6.0)
    # raise by 3: b to the ceiling 5, a to at most b − min_gap = 4
    assert (state["a"][0], state["b"][0]) == (4.0, 5.0)


def test_area2_halves_p_and_narrows_from_above():
    law = ITcpVegas(alpha=2.0, beta=5.0, threshold_step=0.5, min_gap=1.0, threshold_gain=0.0)
    state = _ca(law)
    state["p"][:] = 6.0
    a = law.on_round(state, sample(5.0, 0.5, 1.0))  # Δ = 2.5 in (2, 3.5): P = 3, +3
    assert state["p"][0] == 3.0 and a.cap[0] == 8.0 and a.incr[0] == pytest.approx(3 / 5)
    assert (state["a"][0], state["b"][0]) == (2.0, 4.5)  # only b moves: m 3.5 -> 3.25
    state["p"][:] = 0.0
    a = law.on_round(state, sample(5.0, 0.5, 1.0))  # Δ = 2.5 in (2, 3.25): P = max(0, 1)
    assert state["p"][0] == 1.0 and a.cap[0] == 6.0
    assert state["b"][0] == 4.0


def test_area2_raises_thresholds_by_the_share_then_narrows():
    # as Area 1, the thresholds follow the increment: P = 3, +3; a 2 + 0.5 × 3 = 3.5,
    # b 5 + 1.5 − 0.5 = 6 (m 3.5 -> 4.75: the backlog held follows the window)
    law = ITcpVegas(alpha=2.0, beta=5.0, threshold_step=0.5, min_gap=1.0, threshold_gain=0.5)
    state = _ca(law)
    state["p"][:] = 6.0
    a = law.on_round(state, sample(5.0, 0.5, 1.0))  # Δ = 2.5 in (2, 3.5)
    assert state["p"][0] == 3.0 and a.cap[0] == 8.0
    assert (state["a"][0], state["b"][0]) == (3.5, 6.0)
    # the narrowing stops at min_gap above the raised a: P 1, a 3.5 + 0.5 = 4,
    # b max(6 + 0.5 − 3, 4 + 1) = 5
    law = ITcpVegas(alpha=2.0, beta=5.0, threshold_step=3.0, min_gap=1.0, threshold_gain=0.5)
    state = _ca(law)
    state["a"][:] = 3.5
    state["b"][:] = 6.0
    law.on_round(state, sample(8.0, 0.5, 1.0))  # Δ = 4 in (3.5, 4.75)
    assert (state["a"][0], state["b"][0]) == (4.0, 5.0)


def test_leaving_slow_start_sets_thresholds_to_follow_the_window():
    # Vegas's exit (Δ = 16 > γ = 1): the window cut by 1/8 to 28; the thresholds become
    # α + 0.5 × 28 = 16 and β + 14 = 18, what Area 1 would have given them had they
    # followed the window from zero: two flows leaving slow start at different windows
    # hold thresholds α + g·W and β + g·W alike
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=0.5)
    state = law.init_state(2)
    a = law.on_round(state, sample([32.0, 8.0], 0.5, 1.0))  # Δ = 16 and 4
    assert a.cwnd.tolist() == [28.0, 7.0]
    assert state["phase"].tolist() == [CONGESTION_AVOIDANCE, CONGESTION_AVOIDANCE]
    assert state["a"].tolist() == [16.0, 5.5]
    assert state["b"].tolist() == [18.0, 7.5]
    # a flow still in slow start keeps α, β
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=0.5)
    state = law.init_state(1)
    law.on_round(state, sample(4.0))  # Δ = 0
    assert (state["a"][0], state["b"][0]) == (2.0, 4.0)


def test_area2_factor():
    # P = max(0.25 × 8, 1) = 2; with P = 2: max(0.5, 1) = 1 (Vegas's +1 per round)
    law = ITcpVegas(alpha=2.0, beta=5.0, area2_factor=0.25)
    state = _ca(law)
    state["p"][:] = 8.0
    assert law.on_round(state, sample(5.0, 0.5, 1.0)).cap[0] == 7.0
    state["p"][:] = 2.0
    assert law.on_round(state, sample(5.0, 0.5, 1.0)).cap[0] == 6.0


def test_area3_keeps_window_and_narrows_to_min_gap():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_step=0.5, min_gap=1.0)
    state = _ca(law)
    state["p"][:] = 4.0
    a = law.on_round(state, sample(7.0, 0.5, 1.0))  # Δ = 3.5 in (3, 4)
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (7.0, 0.0, 7.0)
    assert state["p"][0] == 0.0
    assert (state["a"][0], state["b"][0]) == (2.0, 3.5)
    law.on_round(state, sample(6.4, 0.5, 1.0))  # Δ = 3.2 in (2.75, 3.5): b 3.0 (gap 1)
    law.on_round(state, sample(5.4, 0.5, 1.0))  # Δ = 2.7 in (2.5, 3): at the minimum gap
    assert (state["a"][0], state["b"][0]) == (2.0, 3.0)


def test_area4_drains_excess_and_lowers_thresholds_by_the_share():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=0.2)
    state = _ca(law)
    state["a"][:] = 3.0
    state["b"][:] = 6.0
    state["p"][:] = 5.0
    a = law.on_round(state, sample(14.0, 0.5, 1.0))  # Δ = 7 > 6: 14 − (7 − 4.5) = 11.5
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (11.5, 0.0, 11.5)
    # thresholds − 0.2 × 2.5 = 0.5
    assert (state["p"][0], state["a"][0], state["b"][0]) == (0.0, 2.5, 5.5)


def test_area4_lowering_stops_at_the_initial_thresholds():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=1.0)
    state = _ca(law)
    state["a"][:] = 3.0
    state["b"][:] = 6.0
    law.on_round(state, sample(14.0, 0.5, 1.0))  # cut 2.5: a 0.5 -> 2, b 3.5 -> 4
    assert (state["a"][0], state["b"][0]) == (2.0, 4.0)
    state["a"][:] = 5.0
    state["b"][:] = 6.0
    law.on_round(state, sample(16.0, 0.5, 1.0))  # Δ 8, m 5.5, cut 2.5: a 2.5, b max(3.5, 4)
    assert (state["a"][0], state["b"][0]) == (2.5, 4.0)


def test_thresholds_do_not_ratchet_when_an_increase_is_undone():
    # a settled flow dips into Area 1 (+P = 1.25, thresholds + 0.5 × 1.25) and Area 4
    # takes the same 1.25 packets back (thresholds − 0.5 × 1.25): back where it was
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_gain=0.5)
    state = _ca(law)
    state["a"][:] = 10.0
    state["b"][:] = 12.0
    act = law.on_round(state, sample(18.0, 0.5, 1.0))  # Δ = 9 < 10: Area 1
    assert act.cap[0] == 19.25
    assert (state["a"][0], state["b"][0]) == (10.625, 12.625)
    # Δ = 12.875 > b: cut Δ − m = 12.875 − 11.625 = 1.25
    act = law.on_round(state, sample(19.25, 0.5, rtt_for_delta(19.25, 12.875, 0.5)))
    assert act.cwnd[0] == pytest.approx(18.0)
    assert state["a"][0] == pytest.approx(10.0) and state["b"][0] == pytest.approx(12.0)


def test_area4_resets_window_to_the_measured_rate_plus_the_band_middle():
    # W − (Δ − m) = W·BaseRTT/RTT + m whatever the excess: W = 40, BaseRTT/RTT = 1/100:
    # Δ = 39.6 > 4, new window 0.4 + 3 = 3.4 (not the 2-packet floor)
    law = ITcpVegas(alpha=2.0, beta=4.0)
    state = _ca(law)
    assert law.on_round(state, sample(40.0, 0.01, 1.0)).cwnd[0] == pytest.approx(3.4)


@pytest.mark.parametrize("w", [4.0, 6.0, 8.0])  # Δ = 2 = a, 3 = m, 4 = b
def test_partition_points_only_reset_p(w):
    law = ITcpVegas(alpha=2.0, beta=4.0)
    state = _ca(law)
    state["p"][:] = 5.0
    a = law.on_round(state, sample(w, 0.5, 1.0))
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (w, 0.0, w)
    assert (state["p"][0], state["a"][0], state["b"][0]) == (0.0, 2.0, 4.0)


def test_quadratic_ramp_in_area1():
    # Area 1 throughout (BaseRTT = RTT): window after n CA rounds = W0 + p_step n(n+1)/2
    law = ITcpVegas(p_step=1.0)
    state = _ca(law)
    w = np.array([100.0])
    for _ in range(20):
        act = law.on_round(state, sample(w[0], 0.1, 0.1))
        w = np.minimum(act.cwnd + act.incr * w, act.cap)
    assert w[0] == pytest.approx(100.0 + 20 * 21 / 2)
    # thresholds raised by 0.04 × the same 210 packets
    assert state["a"][0] == pytest.approx(2.0 + 0.04 * 210)


def test_loss_resets_p_and_thresholds_to_follow_the_new_window():
    # Vegas's 3/4: 40 -> 30; thresholds α + 0.5 × 30 = 17, β + 15 = 19
    law = ITcpVegas(alpha=[1.0, 2.0], beta=[3.0, 4.0], threshold_gain=0.5)
    state = _ca(law, 2)
    state["p"][:] = 5.0
    state["a"][:] = 7.0
    state["b"][:] = 9.0
    assert law.on_loss(state, np.array([1]), LOSS_FAST, np.array([40.0]))[0] == 30.0
    assert (state["p"][1], state["a"][1], state["b"][1]) == (0.0, 17.0, 19.0)
    assert (state["p"][0], state["a"][0], state["b"][0]) == (5.0, 7.0, 9.0)


def test_params_and_default_no_ceiling():
    law = get_law("itcp-vegas")
    p = law.params()
    assert p["threshold_max"] is None
    assert (p["p_step"], p["threshold_gain"], p["threshold_step"]) == (1.25, 0.04, 1.0)
    assert p["area2_factor"] == 0.5
    assert get_law("itcp-vegas", threshold_max=20.0).params()["threshold_max"] == 20.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"p_step": 0.0}, "p_step"),
        ({"threshold_gain": -0.1}, "threshold_gain"),
        ({"threshold_step": -1.0}, "threshold_step"),
        ({"threshold_max": 3.0}, "threshold_max"),
        ({"threshold_max": math.inf}, "threshold_max"),
        ({"min_gap": 3.0}, "min_gap"),
        ({"min_gap": 0.0}, "min_gap"),
        ({"area2_factor": 1.0}, r"area2_factor must be in \[0, 1\)"),
        ({"area2_factor": [0.5, -0.5]}, "area2_factor"),
    ],
)
def test_bad_parameters_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ITcpVegas(**kwargs)


def test_bad_parameter_type_is_rejected():
    with pytest.raises(TypeError, match="threshold_gain"):
        ITcpVegas(threshold_gain="a lot")
