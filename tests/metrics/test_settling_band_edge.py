"""A time to settle that does not hinge on the base band's edge (tcpfluid.metrics.settling).

A fixed point's band and a cycle's are both the envelope of the series' steady stretch
widened by the base band, so a swing's own samples lie a whole base band inside it: a
sub-band drift of the swing, or a half-range just below rather than just above the base
band, cannot move the time, which is decided by the transient's samples alone.

Every series is synthetic, one sample a second from t = 1 s, segment from t = 0 (the
default tail, 10 %); the base band is the library's default, max(1, 2 % × value), here
2 % of about 84.5 = 1.69 packets. The expected times follow from the construction: the
ramp's samples lie far outside any band the rule could draw (70 packets and less against
a band reaching down to 81 at the lowest), so the time is the first sample of the swing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.metrics import settling
from tcpfluid.metrics._settling import DRIFTING, SETTLED_CYCLE, SETTLED_FIXED

#: 399 samples: the tail (t >= 359.1 s) holds 40, ten whole periods of the swing
T = np.arange(1.0, 400.0)
#: where the swing begins: the ramp 10 t reaches 70 at t = 7
T_SWING = 8.0
#: one period of the swing around 84.5: 83, 84.5, 86, 84.5 (half-range 1.5)
PATTERN = np.array([-1.0, 0.0, 1.0, 0.0])


def _swing(half_range: float, drift_per_s: float = 0.0, centre: float = 84.5) -> np.ndarray:
    """The ramp 10 t up to t = 7 s, then ``centre`` ± ``half_range`` (period 4 s) moving by
    ``drift_per_s`` a second from t = 8 s on."""
    k = (T - T_SWING).astype(int)
    swing = centre + half_range * PATTERN[k % 4] + drift_per_s * (T - T_SWING)
    return np.where(T < T_SWING, 10.0 * T, swing)


def _base(v: np.ndarray) -> float:
    """The default base band around the mean of the segment's last 10 % (t >= 360 s)."""
    return max(1.0, 0.02 * abs(float(np.mean(v[T >= 360.0]))))


@pytest.mark.parametrize("drift", [0.0, 1e-4, 4e-4, 6e-4, 1e-3, 2e-3])
def test_a_sub_band_drift_of_a_swing_does_not_move_its_time(drift: float) -> None:
    # the swing 84.5 ± 1.5 drifting down by `drift` a second: over the 391 s of the swing
    # at most 0.78 packets, and over a tail length (40 s) at most 0.08, far inside the
    # base band 1.69, so the series is steady at every drift. Its first crest (86 - 2 ×
    # drift at t = 10 s) lies about 1.5 + 370 × drift above the tail's mean: past the
    # base band (a band around the mean alone) from drift ≈ 5e-4 on, which a rule drawing
    # the band around the mean answers with a time late in the run (71, 195, 291 s at
    # 6e-4, 1e-3, 2e-3); the swing's own envelope keeps them inside. The time is the
    # swing's first sample at every drift: continuous (constant) as the drift goes to 0
    v = _swing(1.5, -drift)
    base = _base(v)
    tail_mean = float(np.mean(v[T >= 360.0]))
    crest_out = (86.0 - tail_mean) > base
    assert crest_out == (drift >= 6e-4)  # the band edge this series straddles
    r = settling(T, v, settle_band=math.inf)
    assert bool(r.settled), r.reason()
    assert float(r.time_s) == T_SWING
    # and the same with settle_band 0 (fixed points only): the swing fits the base band
    f = settling(T, v)
    assert bool(f.settled) and int(np.asarray(f.status)) == SETTLED_FIXED
    assert float(f.time_s) == T_SWING


def test_a_half_range_just_below_or_just_above_the_base_band_settles_at_the_same_time() -> None:
    # the swing 84.5 ± a with a = 1.68 (inside the base band 1.69: a fixed point) and
    # a = 1.70 (outside: a cycle), the ramp's last sample before it placed at 81.5, in
    # either band (84.5 - a - 1.69 = 81.13 and 81.11) but outside the base band around the
    # mean (82.81): the two settle at that sample, 7 s, not one at 7 s and one at 8 s
    times, codes = [], []
    for a in (1.68, 1.70):
        v = _swing(a)
        v[T == 7.0] = 81.5
        assert _base(v) == pytest.approx(1.69)
        assert abs(81.5 - 84.5) > _base(v) and abs(81.5 - 84.5) <= a + _base(v)
        r = settling(T, v, settle_band=math.inf)
        assert bool(r.settled), r.reason()
        times.append(float(r.time_s))
        codes.append(int(np.asarray(r.status)))
    assert codes == [SETTLED_FIXED, SETTLED_CYCLE]
    assert times == [7.0, 7.0]


def test_a_fixed_point_settles_when_it_enters_its_resting_values_band() -> None:
    # a ramp by 1 a sample onto a constant 84.5 (the envelope of the steady stretch is
    # the single value 84.5): the band is the base band around it, 82.81..86.19, entered
    # at 83 (t = 79 s with the ramp v = t + 4 up to 84.5 at t = 80.5), as a band around
    # the settled value alone gives
    v = np.minimum(T + 4.0, 84.5)
    r = settling(T, v)
    assert bool(r.settled) and float(r.tolerance) == pytest.approx(1.69)
    assert float(r.time_s) == 79.0


@pytest.mark.parametrize("drift", [0.1, -0.1])
def test_a_swing_that_keeps_drifting_does_not_settle(drift: float) -> None:
    # the swing 84.5 ± 1.5 moving 0.1 packets a second: 4 packets per tail length (40 s),
    # more than the base band (2 % of the tail's mean, about 121.7 or 47.3: 2.43 or 1),
    # so its mean keeps moving by more than its band: drifting, whatever settle_band
    # admits
    v = _swing(1.5, drift)
    r = settling(T, v, settle_band=math.inf)
    assert not bool(r.settled) and math.isnan(float(r.time_s))
    assert int(np.asarray(r.status)) == DRIFTING
    assert "drifting" in r.reason()


def test_an_excursion_wider_than_the_base_band_is_not_a_fixed_points_rest() -> None:
    # a window of 3.5 ± 0.5 (inside the base band, 1 packet: a fixed point) with one
    # excursion to 5.8 at t = 200 s, 2.3 packets above its mean: the series left its
    # fixed point's band there, so it settles after the excursion (201 s), whatever
    # settle_band admits for a cycle; only a cycle's steady stretch may swing as wide as
    # settle_band
    k = T.astype(int)
    v = 3.5 + 0.5 * PATTERN[k % 4]
    v[T == 200.0] = 5.8
    for band in (0.0, 2.0, math.inf):
        r = settling(T, v, settle_band=band)
        assert bool(r.settled) and int(np.asarray(r.status)) == SETTLED_FIXED, r.reason()
        assert float(r.time_s) == 201.0
