"""Where a limit cycle was entered: the cycle's band is the envelope of its whole steady
stretch, not of the hold window alone (tcpfluid.metrics.settling, every engine's rule).

A window that wanders in its cycle reaches, somewhere in a long segment, a little beyond
the range it happens to cover in the hold window (the last two tail lengths); a band taken
from the hold window alone makes the time to settle the last such excursion, which comes
later the longer the segment. The steady stretch starts at the truncation point of the
MSER rule (the sample from which on the standard error of the mean is smallest); the band
is the stretch's range widened by the base band.

Every series is synthetic, one sample a second, with the default tail (10 % of the
segment). The expected truncation points are checked against the MSER statistic written
out sample by sample with :func:`numpy.var` (not the code under test); the expected
times, centres and amplitudes follow from the construction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.metrics import settling

#: a base band narrower than the synthetic cycle, so that only the cycle test admits it
BASE = {"abs_tol": 0.5, "rel_tol": 0.0}
T = np.arange(1.0, 101.0)
#: the ramp 5 t up to t = 19 (95), then the cycle 100 + 3 sin(2πt/20), period 20 s: its
#: samples span 97 (t = 15 + 20 k) to 103 (t = 5 + 20 k)
CYCLE = np.where(T < 20, 5.0 * T, 100.0 + 3.0 * np.sin(2.0 * math.pi * T / 20.0))


def _mser_start(t: np.ndarray, v: np.ndarray, latest: float) -> float:
    """The MSER truncation point by its definition: the time of the sample d (at the
    latest ``latest``) minimising var(v[d:]) / len(v[d:]), the earliest on ties."""
    best, at = math.inf, math.nan
    for d in range(len(v)):
        if t[d] > latest:
            break
        m = float(np.var(v[d:])) / (len(v) - d)
        if m < best - 1e-12:
            best, at = m, float(t[d])
    return at


def test_an_excursion_of_the_cycles_own_size_before_the_hold_window_is_steady() -> None:
    # the cycle reaches 104.2 once, at t = 40 (1.2 above its crest), never again: the hold
    # window (t >= 80) spans 97..103, whose band 100 ± 3.5 leaves t = 40 out (a time of
    # 41 s from the hold window alone). The steady stretch starts at t = 20, where the
    # ramp ends: its range 97..104.2, centre 100.6, amplitude 3.6, band 96.5..104.7, is
    # entered for good at t = 20 (the ramp's 95 at t = 19 is out)
    v = CYCLE.copy()
    v[T == 40] = 104.2
    hold = v[T >= 80]
    assert (hold.min(), hold.max()) == pytest.approx((97.0, 103.0))
    assert abs(104.2 - 100.0) > 3.0 + 0.5
    assert _mser_start(T, v, 80.0) == 20.0
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.time_s) == 20.0
    assert float(r.centre) == pytest.approx(100.6)
    assert float(r.amplitude) == pytest.approx(3.6)
    assert float(r.tolerance) == pytest.approx(4.1)


def test_an_excursion_far_wider_than_the_cycle_is_still_the_transient() -> None:
    # the same cycle with one sample at 130 at t = 40 (ten times the cycle's amplitude
    # above its centre): keeping it costs more than the 21 samples up to it add, so the
    # steady stretch starts after it, at t = 41; its range is the cycle's, 97..103
    # (t = 55 and t = 45 lie in it): band 100 ± 3.5, entered for good at t = 41
    v = CYCLE.copy()
    v[T == 40] = 130.0
    assert _mser_start(T, v, 80.0) == 41.0
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.time_s) == 41.0
    assert float(r.centre) == pytest.approx(100.0)
    assert float(r.amplitude) == pytest.approx(3.0)


def test_a_ringing_wider_than_the_cycle_is_the_transient() -> None:
    # after the ramp, a ringing of ±20 (120 at even t, 80 at odd t) up to t = 39, then the
    # cycle from t = 40: the steady stretch starts at t = 40; its range 97..103 (centre
    # 100, amplitude 3) is entered for good at t = 40 (the ringing's 80 at t = 39 is out)
    v = CYCLE.copy()
    ring = (T >= 20) & (T < 40)
    v[ring] = np.where(T[ring] % 2 == 0, 120.0, 80.0)
    assert _mser_start(T, v, 80.0) == 40.0
    r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.time_s) == 40.0
    assert float(r.centre) == pytest.approx(100.0)
    assert float(r.amplitude) == pytest.approx(3.0)


@pytest.mark.parametrize("n", [100, 200, 400])
def test_a_wandering_window_settles_where_its_transient_ends_whatever_the_length(
    n: int,
) -> None:
    # 50 up to t = 19, then a stationary wander 100 + 4 (2 frac(t φ) - 1)^5 (φ the golden
    # ratio: a deterministic sequence, mostly near 100, reaching towards 96 and 104 now and
    # then, all along) from t = 20 to t = n. The steady stretch starts at t = 20 and its
    # range holds every sample from there: the time is 20 s for every length. From the
    # hold window alone (the last 20 %) the band of the 100-s series is left at t = 76
    t = np.arange(1.0, n + 1.0)
    phi = (1.0 + math.sqrt(5.0)) / 2.0
    v = np.where(t < 20, 50.0, 100.0 + 4.0 * (2.0 * np.mod(t * phi, 1.0) - 1.0) ** 5)
    t_hold = float(t[t >= 0.8 * n][0])
    if n == 100:
        hold = v[t >= t_hold]
        mid, amp = 0.5 * (hold.max() + hold.min()), 0.5 * (hold.max() - hold.min())
        assert float(t[(t >= 20) & (np.abs(v - mid) > amp + 0.5)].max()) == 76.0
    # the stretch starts at t = 22 (the wander's 103.2 at t = 21 costs more than the two
    # samples add); its range, widened by the base band, holds t = 20 and 21 too
    start = _mser_start(t, v, t_hold)
    assert start == 22.0
    steady = v[t >= start]
    lo, hi = steady.min() - 0.5, steady.max() + 0.5
    assert np.all((v[t >= 20] >= lo) & (v[t >= 20] <= hi)) and not lo <= 50.0 <= hi
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.time_s) == 20.0
    assert float(r.amplitude) == pytest.approx(0.5 * (steady.max() - steady.min()))
    assert float(r.centre) == pytest.approx(0.5 * (steady.max() + steady.min()))


def test_the_steady_stretch_never_swings_wider_than_the_settle_band() -> None:
    # the excursion to 104.2 at t = 40 widens the stretch from t = 20 to an amplitude of
    # 3.6; with settle_band = 3.2 the hold window (amplitude 3.0) is a cycle, but a stretch
    # wider than 3.2 is not: it may only begin after t = 40, and MSER's choice among those
    # starts is its earliest sample (the cycle's own samples from t = 41 on: 97..103)
    v = CYCLE.copy()
    v[T == 40] = 104.2
    r = settling(T, v, settle_band=3.2, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.amplitude) <= 3.2
    assert float(r.amplitude) == pytest.approx(3.0)
    assert float(r.time_s) == 41.0  # the sample after the excursion, back in 100 ± 3.5


def test_a_non_finite_sample_before_the_hold_window_cannot_begin_the_stretch() -> None:
    # an infinite sample at t = 30 (a value an engine may record): the stretch starts after
    # it, the centre and amplitude stay the cycle's (100, 3), the time is the next sample's
    v = CYCLE.copy()
    v[T == 30] = math.inf
    with np.errstate(all="raise"):
        r = settling(T, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling), r.reason()
    assert float(r.centre) == pytest.approx(100.0)
    assert float(r.amplitude) == pytest.approx(3.0)
    assert float(r.time_s) == 31.0
