"""Metrics on plain (time, value) arrays; every expected number is worked out by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tcpfluid.analytic import jain_index as jain_closed_form
from tcpfluid.metrics import (
    bandwidth_changes,
    jain_index,
    settling,
    settling_by_segment,
    slow_start_exit,
    time_average,
    utilization,
)


# ----------------------------------------------------------------------------- slow start
def test_slow_start_exit_is_the_last_slow_start_sample() -> None:
    t = [0.1, 0.2, 0.3, 0.4, 0.5]
    w = [2, 4, 8, 16, 14]  # the cut (16 -> 14) shows in the first sample out of slow start
    ss = [True, True, True, True, False]
    e = slow_start_exit(t, w, ss)
    # the window is the last slow-start sample's (16, before the cut); the time is that of
    # the decision, the first sample out of slow start (0.5)
    assert (float(e.index), float(e.time_s), float(e.value), bool(e.found)) == (3, 0.5, 16, True)


def test_slow_start_exit_batched_and_missing() -> None:
    t = np.array([1.0, 2.0, 3.0])[:, None]
    w = np.array([[2, 2, 2], [4, 3, 5], [8, 4, 9]], dtype=float)
    ss = np.array([[True, False, True], [False, False, True], [False, False, True]])
    e = slow_start_exit(t, w, ss)
    # column 0 exits after sample 0; column 1 never was in slow start; column 2 never left
    np.testing.assert_array_equal(e.found, [True, False, False])
    assert e.value[0] == 2 and e.time_s[0] == 2.0
    assert np.isnan(e.value[1]) and np.isnan(e.time_s[2])
    d = e.to_dict()
    assert d["value"] == [2.0, None, None]
    json.dumps(d, allow_nan=False)


# ----------------------------------------------------------------------------- settling
def test_settling_of_a_ramp_then_flat() -> None:
    # 0..99 s: the window climbs by 10 per second from 0 to 500 at t = 50 and stays there.
    t = np.arange(1.0, 101.0)
    w = np.minimum(10.0 * t, 500.0)
    r = settling(t, w, rel_tol=0.02, abs_tol=1.0)
    # settled value 500; band 2 % = 10: the first sample after which it stays within is
    # w = 490 at t = 49 (w(48) = 480 is outside)
    assert float(r.value) == 500.0 and float(r.tolerance) == 10.0
    assert float(r.time_s) == 49.0 and bool(r.settled)


def test_settling_counts_from_the_segment_start() -> None:
    # a step from 100 to 200 at t = 10; linear decline back... segment (10, 30]
    t = np.arange(1.0, 31.0)
    w = np.where(t <= 10, 100.0, np.minimum(100.0 + 20.0 * (t - 10), 200.0))
    r = settling(t, w, t_start=10.0, t_end=30.0, rel_tol=0.0, abs_tol=0.5)
    # w reaches 200 at t = 15 and stays: 5 s after the change
    assert float(r.time_s) == 5.0 and float(r.value) == 200.0


def test_sawtooth_never_settles() -> None:
    t = np.arange(1.0, 201.0)
    w = 100.0 + 50.0 * ((t % 20) / 20.0)  # between 100 and 147.5 forever
    r = settling(t, w)
    assert not bool(r.settled) and np.isnan(float(r.time_s))


def test_a_segment_cut_short_in_a_transient_is_not_settled() -> None:
    # a decline of 10 per second that stops at t = 18 (w = 420), observed until t = 20:
    # the tail (t >= 20 - 0.1 * 19 = 18.1) is flat at 420, but the series has been in the
    # band (8.4) for 2 s only, less than twice the tail (3.8 s): not settled
    t = np.arange(1.0, 21.0)
    w = 600.0 - 10.0 * np.minimum(t, 18.0)
    r = settling(t, w)
    assert float(r.value) == 420.0
    assert not bool(r.settled)
    # observed until t = 40 the same series has settled, at t = 18
    t2 = np.arange(1.0, 41.0)
    r2 = settling(t2, 600.0 - 10.0 * np.minimum(t2, 18.0))
    assert bool(r2.settled) and float(r2.time_s) == 18.0


def test_settling_batched_with_per_column_segments() -> None:
    t = np.arange(1.0, 11.0)[:, None]
    w = np.stack([np.minimum(t[:, 0], 5.0), np.full(10, 3.0)], axis=1)
    r = settling(t, w, t_end=np.array([10.0, 6.0]), rel_tol=0.0, abs_tol=0.0, tail_fraction=0.2)
    # column 0 reaches 5 at t = 5; column 1 is constant: settled from its first sample, 1 s
    np.testing.assert_array_equal(r.time_s, [5.0, 1.0])
    np.testing.assert_array_equal(r.value, [5.0, 3.0])


def test_settling_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="tail_fraction"):
        settling([1, 2], [1, 2], tail_fraction=0.0)
    with pytest.raises(ValueError, match="rel_tol must be >= 0"):
        settling([1, 2], [1, 2], rel_tol=-0.1)
    with pytest.raises(ValueError, match="same number of samples"):
        settling([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="no samples"):
        settling([], [])
    with pytest.raises(ValueError, match="NaN"):
        settling([1.0, np.nan], [1, 2])
    with pytest.raises(ValueError, match="values must not contain NaN, got NaN at sample 1"):
        settling([1.0, 2.0], [1.0, np.nan])
    with pytest.raises(ValueError, match="t_start must be a time in s"):
        settling([1.0, 2.0], [1.0, 1.0], t_start=np.nan)
    with pytest.raises(ValueError, match="t_end must be a time in s"):
        settling([1.0, 2.0], [1.0, 1.0], t_end=[0.0, np.nan])
    with pytest.raises(TypeError, match=r"time_s must be a number or an array.*got \['a'\]"):
        settling(["a"], [1.0])
    with pytest.raises(TypeError, match="values must be a number or an array of numbers"):
        settling([1.0], "1")


# ----------------------------------------------------------------------------- segments
def test_segments_of_a_flow_that_starts_after_a_change() -> None:
    # one time axis, two flows (columns): flow 0 from 0 s, flow 1 from 6 s; the bandwidth
    # changes at 5 s and 15 s; the run ends at 20 s. Samples every second, t = 1..20.
    t = np.arange(1.0, 21.0)
    w0 = np.array([2, 4, 8, 8, 8, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 9, 9, 9, 9, 9], dtype=float)
    w1 = np.array([0, 0, 0, 0, 0, 0, 2, 5, 5, 5, 5, 5, 5, 5, 5, 3, 3, 3, 3, 3], dtype=float)
    r = settling_by_segment(
        t,
        np.stack([w0, w1], axis=1),
        start_s=np.array([0.0, 6.0]),
        end_s=20.0,
        change_times_s=[5.0, 15.0],
    )
    # equilibrium segments: flow 0 (0, 5], flow 1 (6, 15] (its first change after 6 s).
    # Flow 0: tail = last 10 % of 5 s -> t >= 4.5: t = 5 (8) -> settled value 8; band 1;
    # out of band at t = 1, 2 -> settles at t = 3; held 5 - 3 = 2 >= 2 × 0.5 -> time 3 s.
    # Flow 1: span 9 s, tail t >= 14.1: t = 15 (5); out at t = 7 (2) -> settles at t = 8,
    # 2 s after its start; held 15 - 8 = 7 >= 1.8.
    np.testing.assert_allclose(r.equilibrium.value, [8.0, 5.0])
    np.testing.assert_allclose(r.equilibrium.time_s, [3.0, 2.0])
    assert r.equilibrium.settled.tolist() == [True, True]
    # after the change at 5 s: flow 0 over (5, 15] (6 throughout -> 1 s after the change);
    # flow 1 over (6, 15], counted from its own start: the same 2 s as above
    np.testing.assert_allclose(r.convergence[0].value, [6.0, 5.0])
    np.testing.assert_allclose(r.convergence[0].time_s, [1.0, 2.0])
    # after the change at 15 s: (15, 20], flat at 9 and 3 -> 1 s
    np.testing.assert_allclose(r.convergence[1].value, [9.0, 3.0])
    np.testing.assert_allclose(r.convergence[1].time_s, [1.0, 1.0])
    d = r.to_dict()
    assert d["equilibrium"]["time_s"] == [3.0, 2.0] and len(d["convergence"]) == 2


def test_segments_reject_bad_change_times() -> None:
    with pytest.raises(ValueError, match=r"change_times_s must be increasing, got \[5.0, 5.0\]"):
        settling_by_segment([1.0, 2.0], [1.0, 1.0], change_times_s=[5.0, 5.0])
    with pytest.raises(ValueError, match=r"change_times_s\[0\] must be finite"):
        settling_by_segment([1.0, 2.0], [1.0, 1.0], change_times_s=[float("nan")])
    with pytest.raises(TypeError, match=r"change_times_s\[1\] must be a real number"):
        settling_by_segment([1.0, 2.0], [1.0, 1.0], change_times_s=[1.0, "2"])  # type: ignore[list-item]


# ----------------------------------------------------------------------------- averages
def test_time_average_and_utilization_by_hand() -> None:
    # 10 pkt/s over (0, 2], 40 pkt/s over (2, 3]: (20 + 40) / 3 = 20 pkt/s
    assert float(time_average([2.0, 3.0], [10.0, 40.0])) == pytest.approx(20.0)
    assert float(utilization([2.0, 3.0], [10.0, 40.0], 80.0)) == pytest.approx(0.25)
    # from t_start = 1: (10 * 1 + 40 * 1) / 2 = 25
    assert float(time_average([2.0, 3.0], [10.0, 40.0], t_start=1.0)) == pytest.approx(25.0)
    # batched over columns
    v = np.array([[10.0, 0.0], [40.0, 30.0]])
    np.testing.assert_allclose(time_average([2.0, 3.0], v), [20.0, 10.0])


def test_time_average_rejects_bad_series() -> None:
    with pytest.raises(ValueError, match="non-decreasing"):
        time_average([2.0, 1.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="after the first sample"):
        time_average([2.0, 3.0], [1.0, 1.0], t_start=2.5)
    with pytest.raises(ValueError, match="capacity_pps must be > 0"):
        utilization([1.0], [1.0], 0.0)
    # a missing sample is an error, not a silently NaN average
    with pytest.raises(ValueError, match="values must not contain NaN, got NaN at sample 1"):
        time_average([1.0, 2.0], [1.0, np.nan])
    with pytest.raises(ValueError, match="t_start must be finite, got nan"):
        time_average([1.0, 2.0], [1.0, 1.0], t_start=np.nan)
    with pytest.raises(ValueError, match="rate_pps must not contain NaN"):
        utilization([1.0, 2.0], [[1.0, np.nan], [1.0, 1.0]], 2.0)


# ----------------------------------------------------------------------------- Jain
def test_jain_index_eq13_by_hand() -> None:
    # (1 + 2 + 3)^2 / (3 * (1 + 4 + 9)) = 36 / 42
    assert float(jain_index([1.0, 2.0, 3.0])) == pytest.approx(36.0 / 42.0)
    assert float(jain_index([5.0, 5.0])) == 1.0
    assert float(jain_index([1.0, 0.0, 0.0, 0.0])) == 0.25
    x = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 4.0]])
    np.testing.assert_allclose(jain_index(x, axis=-1), [36.0 / 42.0, 1.0])
    # the closed-form layer's implementation agrees
    np.testing.assert_allclose(jain_index(x), jain_closed_form(x))


def test_jain_index_rejects_negative_and_all_zero() -> None:
    with pytest.raises(ValueError, match="throughput must be >= 0"):
        jain_index([1.0, -1.0])
    with pytest.raises(ValueError, match="undefined"):
        jain_index([0.0, 0.0])
    # every message names this function's own parameter, throughput
    for bad in ([], [0.0, 0.0], [[]]):
        with pytest.raises(ValueError, match=r"^throughput must"):
            jain_index(bad)
    with pytest.raises(ValueError, match=r"axis must be in \[-1, 0\] for throughput of 1"):
        jain_index([1.0], axis=3)


def test_bandwidth_changes_inside_the_run() -> None:
    # in a 240 s run, CBR over [80, 160), [0, 300) and [80, 240): 0 is the start and 240
    # the end (no change the run sees), 300 is after it; 80 is listed once
    assert bandwidth_changes([(80.0, 160.0), (0.0, 300.0), (80.0, 240.0)], 240.0) == (80.0, 160.0)
    assert bandwidth_changes([], 10.0) == ()
    assert bandwidth_changes([(5.0, math.inf)], math.inf) == (5.0,)
    with pytest.raises(ValueError, match="end_s must be > 0"):
        bandwidth_changes([(1.0, 2.0)], 0.0)
