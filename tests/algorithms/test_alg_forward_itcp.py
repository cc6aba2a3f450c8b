"""Forward-path Vegas (the asymmetric-networks paper, §V).

iTCP-Vegas is tested in test_alg_itcp_vegas.py.

Δ is exact in floating point: BaseRTT 0.5 s and RTT 1 s give Δ = W/2.
"""

from __future__ import annotations

import pytest
from _lawkit import sample

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    ForwardVegas,
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
    # q_f = 0.5 s, BaseRTT 0.5 s, RTT 1.0 s (no ACK-path queue), W = 6: Δ_f = 6 × 0.5/1.0
    # = 3, inside [2, 4]: unchanged (dividing by BaseRTT alone would give 6 > β)
    fv = ForwardVegas()
    s = sample(6.0, 0.5, 1.0, fwd_delay_mean=0.75, fwd_delay_base=0.25)
    a = fv.on_round(_ca(fv), s)
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (6.0, 0.0, 6.0)


def test_forward_backlog_is_read_at_the_measured_rate_behind_an_ack_queue():
    # BaseRTT 0.1 s, forward queueing 0.02 s, an ACK-path queue of 0.18 s: RTT 0.3 s, W = 20.
    # The forward backlog by Little's law is the rate W/RTT times q_f: 20 × 0.02/0.3 = 1.33
    # packets < α = 2 -> +1. Read at the forward-path RTT's rate, W q_f/(BaseRTT + q_f) =
    # 20 × 0.02/0.12 = 3.33 would be inside [2, 4] and hold the window.
    fv = ForwardVegas()
    s = sample(20.0, 0.1, 0.3, fwd_delay_mean=0.07, fwd_delay_base=0.05)
    a = fv.on_round(_ca(fv), s)
    assert (a.cwnd[0], a.cap[0]) == (20.0, 21.0) and a.incr[0] == pytest.approx(1 / 20)


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
