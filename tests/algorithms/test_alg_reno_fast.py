"""Reno and FAST baselines, unit-tested without an engine (hand-computed rounds)."""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import apply, drive, sample

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    SLOW_START,
    Fast,
    Reno,
)


def test_reno_slow_start_doubles_every_round_from_round_zero():
    starts, _ = drive(Reno(), 6, lambda k, w: sample(w))
    assert [float(w[0]) for w in starts] == [2, 4, 8, 16, 32, 64]


def test_reno_slow_start_stops_at_ssthresh_then_aimd():
    law = Reno()
    state = law.init_state(1)
    state["ssthresh"][:] = 12.0
    a = law.on_round(state, sample(8.0))
    assert (a.incr[0], a.cap[0]) == (1.0, 12.0)  # min(2·8, ssthresh)
    assert apply(a, np.array([8.0]))[0] == 12.0
    a = law.on_round(state, sample(12.0))  # reached ssthresh -> CA: 1/12 per ACK, +1
    assert state["phase"][0] == CONGESTION_AVOIDANCE
    assert a.incr[0] == pytest.approx(1 / 12) and a.cap[0] == 13.0
    assert apply(a, np.array([12.0]))[0] == pytest.approx(13.0)


def test_reno_losses():
    law = Reno()
    state = law.init_state(3)
    assert law.on_loss(state, np.array([0]), LOSS_FAST, np.array([30.0]))[0] == 15.0
    assert state["ssthresh"][0] == 15.0 and state["phase"][0] == CONGESTION_AVOIDANCE
    assert law.on_loss(state, np.array([1]), LOSS_RETX, np.array([3.0]))[0] == 2.0  # floor 2
    assert law.on_loss(state, np.array([2]), LOSS_TIMEOUT, np.array([30.0]))[0] == 1.0
    assert state["ssthresh"][2] == 15.0 and state["phase"][2] == SLOW_START
    # after the timeout: slow start again, up to ssthresh 15
    a = law.on_round(state, sample([20.0, 20.0, 1.0]))
    assert (a.incr[2], a.cap[2]) == (1.0, 2.0)


def test_reno_params_report_its_loss_recovery():
    assert Reno().params() == {"recovery": "newreno", "initial_window": 2.0}


@pytest.mark.parametrize(
    ("w", "base", "rtt", "target", "phase"),
    [
        # RTT = BaseRTT, w = 10: (1−½)·10 + ½(10 + 100) = 60 > 2w = 20 -> doubling
        (10.0, 0.1, 0.1, 20.0, SLOW_START),
        # w = 100: 50 + ½(100 + 100) = 150 < 200
        (100.0, 0.1, 0.1, 150.0, CONGESTION_AVOIDANCE),
        # w = 200 with half the RTT queueing: 100 + ½(100 + 100) = 200: the fixed point
        # (w − BaseRTT/RTT·w = 100 = α packets queued)
        (200.0, 0.1, 0.2, 200.0, CONGESTION_AVOIDANCE),
        # w = 400, BaseRTT/RTT = ½: 200 + ½(200 + 100) = 350 < 400: decrease
        (400.0, 0.1, 0.2, 350.0, CONGESTION_AVOIDANCE),
    ],
)
def test_fast_update(w, base, rtt, target, phase):
    law = Fast(alpha=100.0, gamma=0.5)
    state = law.init_state(1)
    a = law.on_round(state, sample(w, base, rtt))
    assert apply(a, np.array([w]))[0] == pytest.approx(target)
    assert a.cap[0] == pytest.approx(target)
    if target > w:  # increase spread over ACKs, at most one packet per ACK
        assert a.cwnd[0] == w and 0 < a.incr[0] <= 1.0
    else:  # decrease (or no change) at the boundary
        assert a.cwnd[0] == pytest.approx(target) and a.incr[0] == 0.0
    assert state["phase"][0] == phase


def test_fast_gamma_one_jumps_to_target():
    law = Fast(alpha=100.0, gamma=1.0)
    a = law.on_round(law.init_state(1), sample(400.0, 0.1, 0.2))
    # BaseRTT/RTT·w + α = 200 + 100 = 300
    assert a.cwnd[0] == pytest.approx(300.0)


def test_fast_losses():
    law = Fast()
    state = law.init_state(2)
    assert law.on_loss(state, np.array([0]), LOSS_FAST, np.array([300.0]))[0] == 150.0
    assert law.on_loss(state, np.array([1]), LOSS_TIMEOUT, np.array([300.0]))[0] == 2.0
    assert state["phase"].tolist() == [CONGESTION_AVOIDANCE, SLOW_START]


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"alpha": 0.0}, ValueError, "alpha must be > 0"),
        ({"gamma": 0.0}, ValueError, "gamma must be > 0"),
        ({"gamma": 1.5}, ValueError, r"gamma must be in \(0, 1\], got 1\.5"),
        ({"gamma": [0.5, 2.0]}, ValueError, r"got 2\.0"),
        ({"alpha": None}, TypeError, "alpha must be a number"),
    ],
)
def test_fast_bad_parameters(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        Fast(**kwargs)
