"""Settling that means "steady": a law's own limit cycle is settled in every engine, and a
cycle whose window means swing back and forth is not a drift (tcpfluid.metrics.settling).

The numbers asserted come from the construction of the synthetic series (a sine sampled
once a second) or from the law's rule (Enhanced Vegas has no dead band: Tsang's thesis,
chapter 2 §4), never from the code under test."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics import law_settle_band, settling
from tcpfluid.scenarios import rtt_dumbbell

#: a base band narrower than the synthetic cycle, so that only the cycle test admits it
BASE = {"abs_tol": 0.5, "rel_tol": 0.0}


def _ramp_then_sine() -> tuple[np.ndarray, np.ndarray]:
    """One sample a second, t = 1..100: a ramp 5 t up to t = 19 (95), then
    100 + 3 sin(2πt/20): a cycle of period 20 s, twice the tail (10 % of 100 s)."""
    t = np.arange(1.0, 101.0)
    return t, np.where(t < 20, 5.0 * t, 100.0 + 3.0 * np.sin(2.0 * math.pi * t / 20.0))


def test_a_cycle_longer_than_the_tail_is_not_a_drift() -> None:
    t, v = _ramp_then_sine()
    # the windows (tail: t >= 90; before it: 80..89; before that: 70..79) hold the lower,
    # upper and lower half-periods: their means are 100 - 3 cot(π/20)/11 = 98.28,
    # 100 + 3 cot(π/20)/10 = 101.89 and 100 - 1.89 = 98.11, so the tail's mean moved by
    # -3.6, more than the base band 0.5, but back: the previous window's moved by +3.8
    cot = 1.0 / math.tan(math.pi / 20.0)
    tail, before, earlier = 100.0 - 3.0 * cot / 11.0, 100.0 + 0.3 * cot, 100.0 - 0.3 * cot
    assert np.mean(v[89:]) == pytest.approx(tail)
    assert np.mean(v[79:89]) == pytest.approx(before)
    assert np.mean(v[69:79]) == pytest.approx(earlier)
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    # the hold window (t >= 80) spans the whole cycle: 97..103, centre 100, amplitude 3;
    # its band 100 ± 3.5 is entered for good at t = 20 (the ramp's 95 at t = 19 is out)
    assert float(r.centre) == pytest.approx(100.0) and float(r.amplitude) == pytest.approx(3.0)
    assert float(r.time_s) == 20.0
    assert float(r.value) == pytest.approx(tail)


def test_a_drift_that_keeps_its_direction_under_a_long_cycle_is_still_a_drift() -> None:
    # the same cycle on a slope of 0.4 per second: the windows' means move by about
    # +4 - 3.6 and +4 + 3.8 -- both upwards, more than the base band
    t, v = _ramp_then_sine()
    r = settling(t, v + 0.4 * t, settle_band=math.inf, **BASE)
    assert not bool(r.settled)
    assert "drifting" in r.reason()


def test_enhanced_vegas_cycle_is_settled_in_every_engine() -> None:
    # one Enhanced Vegas flow, 5 Mb/s x 50 ms, no buffer limit. The law has no dead band
    # (+1 a round while Δ < δ, -1 while Δ >= δ; δ = 3), so its window never rests: it
    # cycles around w* = μd + δ = 625 x 0.05 + 3 = 34.25 packets (one flow's Δ is its
    # queue, w - μd), moving every round (a range of at least one packet). At these
    # windows the base band is one packet, so a cycle of more than ±1 packet is settled
    # only as the law's own limit cycle.
    sc = rtt_dumbbell(
        5e6, [0.05], ["enhanced-vegas"], duration_s=60.0, buffer_pkts=math.inf,
        packet_size_bytes=1000.0, name="ev-cycle",
    )  # fmt: skip
    w_star = 5e6 / 8000.0 * 0.05 + 3.0
    assert law_settle_band("enhanced-vegas") > 1.0
    for engine in ("rounds", "hybrid", "packet"):
        f = tcpfluid.simulate(sc, engine).summary.flows[0]
        assert f.not_settled_reason is None, (engine, f.not_settled_reason)
        assert f.time_to_equilibrium_s is not None
        c, a = f.cycle_centre_pkts, f.cycle_amplitude_pkts
        assert c is not None and a is not None
        assert a >= 0.5, engine
        assert c - a <= w_star <= c + a, (engine, c, a)


def test_an_overshoot_that_comes_to_rest_is_a_fixed_point_that_must_hold() -> None:
    # t = 1..100: a ramp v = t up to 81, an overshoot to 92 over 82..89, then at rest at 88.
    # The tail (90..100) sits at 88 in the base band: a fixed point, held 10 s of the 20 s
    # (two tail lengths) it needs. The windows' means (74.5, then (80 + 81 + 8 x 92)/10 =
    # 89.7, then 88) went up and came back, but a tail at rest is no cycle: still drifting,
    # whatever settle_band admits.
    t = np.arange(1.0, 101.0)
    v = np.where(t <= 81, t, np.where(t <= 89, 92.0, 88.0))
    assert np.mean(v[79:89]) == pytest.approx(89.7)
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert not bool(r.settled)
    assert "drifting" in r.reason()
