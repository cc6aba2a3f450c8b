"""Forward-path Vegas (document 003 §V) and iTCP-Vegas (document 002 §3, our interpretation).

Δ is exact in floating point: BaseRTT 0.5 s and RTT 1 s give Δ = W/2.
"""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import drive, sample

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    ForwardVegas,
    ITcpVegas,
    Vegas,
)


def _ca(law, n=1):
    state = law.init_state(n)
    state["phase"][:] = CONGESTION_AVOIDANCE
    return state


def test_ack_path_queue_does_not_throttle_forward_vegas():
    # RTT doubled by an ACK-path queue (0.1 s -> 0.2 s) but no forward queueing:
    # Vegas: Δ = 50 (1 − 0.1/0.2) = 25 > β -> 49; forward Vegas: Δ_f = 0 < α -> +1
    s = sample(50.0, 0.1, 0.2, fwd_delay_mean=0.05, fwd_delay_base=0.05)
    fv, vg = ForwardVegas(), Vegas()
    a_f = fv.on_round(_ca(fv), s)
    a_v = vg.on_round(_ca(vg), s)
    assert a_v.cwnd[0] == 49.0
    assert (a_f.cwnd[0], a_f.cap[0]) == (50.0, 51.0) and a_f.incr[0] == pytest.approx(1 / 50)


def test_forward_queue_does_throttle_forward_vegas():
    # q_f = 0.75 − 0.25 = 0.5 s, BaseRTT 0.5 s: Δ_f = 10 × 0.5/(0.5 + 0.5) = 5 > β = 4 -> 9
    fv = ForwardVegas()
    s = sample(10.0, 0.5, 1.0, fwd_delay_mean=0.75, fwd_delay_base=0.25)
    assert fv.on_round(_ca(fv), s).cwnd[0] == 9.0


def test_forward_backlog_formula_inside_the_band():
    # q_f = 0.5 s, BaseRTT 0.5 s, W = 6: Δ_f = 6 × 0.5/(0.5 + 0.5) = 3, inside [2, 4]:
    # unchanged (Actual_f = W/(BaseRTT + q_f); dividing by BaseRTT alone would give 6 > β)
    fv = ForwardVegas()
    s = sample(6.0, 0.5, 1.0, fwd_delay_mean=0.75, fwd_delay_base=0.25)
    a = fv.on_round(_ca(fv), s)
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (6.0, 0.0, 6.0)


def test_forward_vegas_slow_start_uses_forward_backlog():
    fv = ForwardVegas()
    state = fv.init_state(1)
    # big ACK-path queue but Δ_f = 0: still growing (Vegas would leave with Δ = 32 > γ)
    a = fv.on_round(state, sample(64.0, 0.1, 0.2, fwd_delay_mean=0.05, fwd_delay_base=0.05))
    assert a.incr[0] == 1.0 and a.cap[0] == 128.0


def test_forward_vegas_requires_forward_delays():
    fv = ForwardVegas()
    with pytest.raises(ValueError, match=r"fwd_delay_mean and sample\.fwd_delay_base"):
        fv.on_round(fv.init_state(1), sample(10.0))


def test_itcp_slow_start_is_vegas():
    starts, _ = drive(ITcpVegas(), 9, lambda k, w: sample(w))
    assert [float(w[0]) for w in starts] == [2, 2, 4, 4, 8, 8, 16, 16, 32]


def test_itcp_area1_scales_p_and_raises_thresholds():
    law = ITcpVegas(alpha=2.0, beta=4.0, p_step=1.0, threshold_step=0.5)
    state = _ca(law)
    s = sample(3.0, 0.5, 1.0)  # Δ = 1.5 < a = 2
    a = law.on_round(state, s)  # P = 1: +1 over the round
    assert (state["p"][0], a.cap[0]) == (1.0, 4.0) and a.incr[0] == pytest.approx(1 / 3)
    assert (state["a"][0], state["b"][0]) == (2.5, 4.5)
    a = law.on_round(state, s)  # Δ = 1.5 < a = 2.5: P = 2: +2
    assert (state["p"][0], a.cap[0]) == (2.0, 5.0)
    assert (state["a"][0], state["b"][0]) == (3.0, 5.0)


def test_itcp_area1_increase_at_most_doubles_and_threshold_ceiling():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_max=4.0)
    state = _ca(law)
    state["p"][:] = 9.0
    a = law.on_round(state, sample(3.0, 0.5, 1.0))  # P = 10 > cwnd 3: +3 (doubling)
    assert (a.incr[0], a.cap[0]) == (1.0, 6.0)
    # b stays at the ceiling 4, a rises to at most b − min_gap = 3
    assert (state["a"][0], state["b"][0]) == (2.5, 4.0)
    law.on_round(state, sample(3.0, 0.5, 1.0))
    law.on_round(state, sample(3.0, 0.5, 1.0))
    assert (state["a"][0], state["b"][0]) == (3.0, 4.0)


def test_itcp_area2_halves_p_and_narrows():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_step=0.5, min_gap=1.0)
    state = _ca(law)
    state["p"][:] = 6.0
    a = law.on_round(state, sample(5.0, 0.5, 1.0))  # Δ = 2.5 in (2, 3): P = 3, +3
    assert state["p"][0] == 3.0 and a.cap[0] == 8.0 and a.incr[0] == pytest.approx(3 / 5)
    assert (state["a"][0], state["b"][0]) == (2.25, 3.75)
    state["p"][:] = 0.0
    a = law.on_round(state, sample(5.0, 0.5, 1.0))  # Δ = 2.5 in (2.25, 3): P = max(0, 1)
    assert state["p"][0] == 1.0 and a.cap[0] == 6.0


def test_itcp_area3_keeps_window_and_narrows_to_min_gap():
    law = ITcpVegas(alpha=2.0, beta=4.0, threshold_step=0.5, min_gap=1.0)
    state = _ca(law)
    state["p"][:] = 4.0
    a = law.on_round(state, sample(7.0, 0.5, 1.0))  # Δ = 3.5 in (3, 4)
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (7.0, 0.0, 7.0)
    assert state["p"][0] == 0.0
    assert (state["a"][0], state["b"][0]) == (2.25, 3.75)
    law.on_round(state, sample(6.5, 0.5, 1.0))  # Δ = 3.25: a 2.5, b 3.5 (gap 1 = min)
    law.on_round(state, sample(6.5, 0.5, 1.0))  # at the minimum gap: unchanged
    assert (state["a"][0], state["b"][0]) == (2.5, 3.5)


def test_itcp_area4_drains_excess_and_resets_thresholds():
    law = ITcpVegas(alpha=2.0, beta=4.0)
    state = _ca(law)
    state["a"][:] = 3.0
    state["b"][:] = 6.0
    state["p"][:] = 5.0
    a = law.on_round(state, sample(14.0, 0.5, 1.0))  # Δ = 7 > 6: 14 − (7 − 4.5) = 11.5
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (11.5, 0.0, 11.5)
    assert (state["p"][0], state["a"][0], state["b"][0]) == (0.0, 2.0, 4.0)


@pytest.mark.parametrize("w", [4.0, 6.0, 8.0])  # Δ = 2 = a, 3 = m, 4 = b
def test_itcp_partition_points_only_reset_p(w):
    law = ITcpVegas(alpha=2.0, beta=4.0)
    state = _ca(law)
    state["p"][:] = 5.0
    a = law.on_round(state, sample(w, 0.5, 1.0))
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (w, 0.0, w)
    assert (state["p"][0], state["a"][0], state["b"][0]) == (0.0, 2.0, 4.0)


def test_itcp_loss_resets_p_and_thresholds():
    law = ITcpVegas(alpha=[1.0, 2.0], beta=[3.0, 4.0])
    state = _ca(law, 2)
    state["p"][:] = 5.0
    state["a"][:] = 7.0
    state["b"][:] = 9.0
    assert law.on_loss(state, np.array([1]), LOSS_FAST, np.array([40.0]))[0] == 30.0
    assert state["p"].tolist() == [5.0, 0.0]
    assert state["a"].tolist() == [7.0, 2.0] and state["b"].tolist() == [9.0, 4.0]


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"alpha": 4.0, "beta": 2.0}, ValueError, r"alpha must be <= beta"),
        ({"beta": 20.0}, ValueError, r"beta must be <= threshold_max.*beta=20\.0"),
        ({"min_gap": 3.0}, ValueError, r"min_gap must be <= beta - alpha"),
        ({"min_gap": 0.0}, ValueError, "min_gap must be > 0"),
        ({"p_step": -1.0}, ValueError, "p_step must be > 0"),
        ({"threshold_step": -0.5}, ValueError, "threshold_step must be >= 0"),
        ({"threshold_step": "x"}, TypeError, "threshold_step must be a number"),
    ],
)
def test_itcp_bad_parameters(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        ITcpVegas(**kwargs)
