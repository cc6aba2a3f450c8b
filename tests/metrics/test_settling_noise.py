"""Settling that means "steady" under noise: a window that swings irregularly around a fixed
centre, or leaves it for one excursion, has settled; one whose level keeps moving, or whose
swing keeps widening, has not (tcpfluid.metrics.settling, every engine's rule).

Every series is synthetic, one sample a second over t = 1..100 s with the default tail
(10 % of the segment): the tail is t >= 90 (11 samples), the window before it 80..89, the
one before that 70..79, the hold window t >= 80. The expected windows' means, centres,
amplitudes and times are worked out below from the construction; the trend's slope and its
standard error from a least-squares fit by :func:`numpy.polyfit` on the quarter-tail means
listed by hand, never from the code under test. The first and third series are "did not
settle" under a rule that calls every step of the tail's mean beyond the base band in the
direction of the previous one a drift, and every tail swinging more than the base band
wider than the window before it a growth."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.metrics import settling

#: a base band narrower than the swings, so that only the cycle test can admit them
BASE = {"abs_tol": 0.5, "rel_tol": 0.0}
T = np.arange(1.0, 101.0)
#: a ramp 5 t (95 at t = 19), then the level 100
LEVEL = np.where(T < 20, 5.0 * T, 100.0)


def _spiky() -> np.ndarray:
    """At rest at 100 after the ramp, with one-sample spikes to 110 at t = 76; 86, 88;
    91, 93, 97 (one, two and three in the last three tail-long windows)."""
    v = LEVEL.copy()
    v[np.isin(T, [76, 86, 88, 91, 93, 97])] = 110.0
    return v


def _quarter_tail_means(v: np.ndarray) -> np.ndarray:
    """Means of v over the quarter-tail windows of the last three tail lengths, by hand:
    [70 + 2.5k, 72.5 + 2.5k) for k = 0..11 (the last one closed at 100)."""
    out = []
    for k in range(12):
        lo, hi = 70.0 + 2.5 * k, 72.5 + 2.5 * k
        sel = (T > 70) & (T >= lo) & ((T < hi) | ((k == 11) & (T <= 100)))
        out.append(float(np.mean(v[sel])))
    return np.array(out)


def _slope_and_error(means: np.ndarray) -> tuple[float, float]:
    """Least-squares slope (per tail length) through the quarter-tail means at their
    midpoints, and its standard error (numpy.polyfit's covariance, n - 2 dof)."""
    x = (np.arange(12) + 0.5) / 4.0
    (slope, _), cov = np.polyfit(x, means, 1, cov=True)
    return float(slope), float(math.sqrt(cov[0, 0]))


def test_rare_spikes_whose_count_happens_to_rise_are_not_a_drift() -> None:
    v = _spiky()
    # the windows' means rise 101 -> 102 -> 100 + 30/11 = 102.73: the tail's moved by
    # +0.73, more than the base band 0.5, the same way as the window before it moved
    assert np.mean(v[69:79]) == pytest.approx(101.0)
    assert np.mean(v[79:89]) == pytest.approx(102.0)
    assert np.mean(v[89:]) == pytest.approx(100.0 + 30.0 / 11.0)
    # but the quarter-tail means (100, 100, 103.3, 100, 100, 100, 103.3, 105, 103.3, 105,
    # 103.3, 100) hold no trend: a slope of 1.07 per tail length against a standard error
    # of 0.66 (1.6 standard errors, fewer than three)
    means = _quarter_tail_means(v)
    third = 100.0 + 10.0 / 3.0
    expected = [100, 100, third, 100, 100, 100, third, 105, third, 105, third, 100]
    assert means == pytest.approx(expected)
    slope, se = _slope_and_error(means)
    assert slope == pytest.approx(1.0723, abs=1e-4) and se == pytest.approx(0.6589, abs=1e-4)
    assert 0.5 < abs(slope) < 3.0 * se
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    # the hold window (t >= 80) spans 100..110: centre 105, amplitude 5, band 105 ± 5.5,
    # entered for good at t = 20 (the ramp's 95 at t = 19 is out)
    assert float(r.centre) == pytest.approx(105.0)
    assert float(r.amplitude) == pytest.approx(5.0)
    assert float(r.time_s) == 20.0
    assert float(r.value) == pytest.approx(100.0 + 30.0 / 11.0)


def test_the_same_spikes_on_a_slope_are_a_drift() -> None:
    # the same spikes on a level rising 0.5 a second from t = 20 (5 per tail length): the
    # quarter-tail means rise by 5 per tail length plus the spikes' 1.07, against a
    # standard error of 0.64 (the spikes' scatter, and the slope's own: the samples of a
    # quarter-tail window of two lie 0.25 s after its midpoint on average, of three 0.25 s
    # before): nine standard errors, a trend
    v = _spiky() + np.where(T >= 20, 0.5 * (T - 20.0), 0.0)
    slope, se = _slope_and_error(_quarter_tail_means(v))
    assert slope == pytest.approx(5.0 + 1.0723, abs=1e-4) and se == pytest.approx(0.643, abs=1e-3)
    assert abs(slope) > 3.0 * se
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert not bool(r.settled)
    assert "drifting" in r.reason()


def test_one_wide_excursion_in_the_tail_is_not_a_growing_swing() -> None:
    # a ±1 dither (101 at even t, 99 at odd t) after the ramp, with one excursion to 107 at
    # t = 95. The tail swings ±4 (99..107) against ±1 in the window before it: more than
    # the base band wider, but that window swung no wider than the one before it (±1):
    # nothing grows over two windows. The tail's mean (1100 + 1 + 8) / 11 = 100.82 moved by
    # +0.82 from the window before it (100), but that window's had not moved (100): no drift
    v = np.where(T < 20, 5.0 * T, 100.0 + np.where(T % 2 == 0, 1.0, -1.0))
    v[T == 95] = 107.0
    assert np.mean(v[89:]) == pytest.approx(1109.0 / 11.0)
    assert np.mean(v[79:89]) == pytest.approx(100.0) and np.mean(v[69:79]) == pytest.approx(100.0)
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    # the hold window spans 99..107: centre 103, amplitude 4, band 103 ± 4.5 = 98.5..107.5,
    # entered for good at t = 20 (101; the ramp's 95 at t = 19 is out)
    assert float(r.centre) == pytest.approx(103.0)
    assert float(r.amplitude) == pytest.approx(4.0)
    assert float(r.time_s) == 20.0
    assert float(r.value) == pytest.approx(1109.0 / 11.0)


def test_a_swing_that_widens_window_after_window_is_still_growing() -> None:
    # the dither's amplitude 1 up to t = 79, 2 over 80..89, 4 from t = 90: each window
    # swings more than the base band wider than the one before it. The tail's mean
    # 100 + 4/11 (six even, five odd samples) is within the base band of the window
    # before it (100): no drift, a growth
    amp = np.where(T < 80, 1.0, np.where(T < 90, 2.0, 4.0))
    v = np.where(T < 20, 5.0 * T, 100.0 + amp * np.where(T % 2 == 0, 1.0, -1.0))
    assert np.mean(v[89:]) == pytest.approx(100.0 + 4.0 / 11.0)
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert not bool(r.settled)
    assert "still growing" in r.reason()


def test_each_series_on_its_own_time_grid_is_judged_alike() -> None:
    # the spiky level and the same on a slope as two series, each with its own copy of
    # the time grid (a (100, 2) array, as flows sampled at their own round boundaries):
    # the first settles as above (centre 105, amplitude 5, 20 s), the second drifts
    v = np.stack([_spiky(), _spiky() + np.where(T >= 20, 0.5 * (T - 20.0), 0.0)], axis=1)
    t = np.stack([T, T.copy()], axis=1)
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert r.settled.tolist() == [True, False]
    assert float(r.centre[0]) == pytest.approx(105.0)
    assert float(r.amplitude[0]) == pytest.approx(5.0)
    assert float(r.time_s[0]) == 20.0
    assert "drifting" in r.reason(1)
