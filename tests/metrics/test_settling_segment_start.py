"""The value in effect when a segment begins counts as a sample at its start
(tcpfluid.metrics, "Settled value and time to settle").

Each trace is built by hand so that the expected time follows from its construction: a
window that a change does not move out of its new band converged in 0 s, whatever the
phase of its sampling clock (a flow's round boundaries) against the change; a window that
the change moves, or that leaves its band later, keeps the time of the sample that brought
it back."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.metrics import settling, settling_by_segment


def _clock(period: float, phase: float, end: float) -> np.ndarray:
    """Sample times ``phase, phase + period, ...`` up to ``end`` (a round clock)."""
    return np.arange(phase, end + 1e-9, period)


@pytest.mark.parametrize("phase", [0.1, 0.45, 0.9])
def test_a_window_the_change_does_not_move_converges_at_once(phase: float) -> None:
    # 10 packets before and after the change at 50 s: in the new band (±1) at the change;
    # the old rule gave the first sample after the change, 50 + (phase - 50 mod 1) - 50
    t = _clock(1.0, phase, 100.0)
    w = np.full(t.size, 10.0)
    r = settling_by_segment(t, w, change_times_s=[50.0], end_s=100.0)
    assert float(r.convergence[0].time_s) == 0.0
    assert bool(r.convergence[0].settled)


def test_two_clocks_of_one_window_give_one_time() -> None:
    # the same window (40 -> 20 at the change, back in 20's band at once) on two round
    # clocks of different phase: both converge at 0 s (before: 0.1 s and 0.8 s)
    times = []
    for phase in (0.1, 0.8):
        t = _clock(1.0, phase, 60.0)
        w = np.where(t < 30.0, 20.5, 20.0)
        r = settling_by_segment(t, w, change_times_s=[30.0], end_s=60.0)
        times.append(float(r.convergence[0].time_s))
    assert times == [0.0, 0.0]


def test_a_window_the_change_moves_keeps_its_first_sample_in_band() -> None:
    # 20 before, 10 after: the window in effect at the change (20) is out of 10's band;
    # the first sample after the change (50.4 s) brings it in: 0.4 s, as before
    t = _clock(1.0, 0.4, 100.0)
    w = np.where(t < 50.0, 20.0, 10.0)
    r = settling_by_segment(t, w, change_times_s=[50.0], end_s=100.0)
    assert float(r.convergence[0].time_s) == pytest.approx(0.4)


def test_a_later_excursion_still_sets_the_time() -> None:
    # in band at the change, out at 55.5 s (13 packets, band ±1 around 10), back at 56.5 s
    t = _clock(1.0, 0.5, 100.0)
    w = np.full(t.size, 10.0)
    w[t == 55.5] = 13.0
    r = settling(t, w, t_start=50.0, t_end=100.0)
    assert float(r.time_s) == pytest.approx(6.5)
    assert float(r.last_out_s) == pytest.approx(55.5)


def test_a_cycle_in_its_band_at_the_segment_start_settles_at_once() -> None:
    # a ±2 cycle of period 4 around 30 (law band inf); the sample at 20 s (the segment's
    # start) is inside the cycle's band and no later sample leaves it
    t = np.arange(1.0, 81.0)
    w = 30.0 + 2.0 * np.sin(np.pi * t / 2.0)
    r = settling(t, w, t_start=20.0, t_end=80.0, settle_band=math.inf)
    assert bool(r.cycling)
    assert float(r.time_s) == 0.0


def test_no_sample_before_the_start_keeps_the_first_sample() -> None:
    # a flow's first segment has no sample at or before its start: 10 packets from the
    # first sample (0.3 s) on settle at 0.3 s
    t = _clock(1.0, 0.3, 50.0)
    w = np.full(t.size, 10.0)
    r = settling(t, w, t_start=0.0, t_end=50.0)
    assert float(r.time_s) == pytest.approx(0.3)


def test_the_value_at_the_start_is_the_last_sample_at_or_before_it() -> None:
    # two samples before the change: 10 (in band) at 48.6 s, then 25 (out) at 49.6 s; the
    # window in effect at 50 s is 25, so the first sample after (50.6 s) sets the time
    t = _clock(1.0, 0.6, 100.0)
    w = np.full(t.size, 10.0)
    w[np.isclose(t, 49.6)] = 25.0
    r = settling(t, w, t_start=50.0, t_end=100.0)
    assert float(r.time_s) == pytest.approx(0.6)
