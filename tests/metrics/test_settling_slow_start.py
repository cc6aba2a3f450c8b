"""A flow settles only out of slow start (tcpfluid.metrics.settling, ``left_slow_start_s``;
every engine's summary): its steady stretch and its time to settle begin at its first
slow-start exit in the segment at the earliest, and a flow still in slow start at the
segment's end (or leaving it in the rule's hold window) did not settle.

The runs are the ones whose windows the rule read as settled while in slow start; what
says that slow start had not ended is another route than the rule: each engine's phase
trace (``Result.rounds``), its window trace, the packet simulator's loss records."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms.base import SLOW_START
from tcpfluid.metrics import _settling, settling
from tcpfluid.scenarios import build_scenario

STILL = "still in slow start"


def _run(engine: str, algorithm: str, **sets: str) -> tcpfluid.Result:
    return tcpfluid.simulate(build_scenario("qv-basic", algorithm=algorithm, **sets), engine)


@pytest.mark.parametrize("engine", ["rounds", "packet"])
def test_vegas_that_ends_in_slow_start_did_not_settle(engine: str) -> None:
    res = _run(engine, "vegas", duration="0.5s")
    log = res.rounds[0]
    # the phase trace: slow start at every round of the run; the window trace: doubled
    # every other round (2, 4, 4, 8, 8), held on the rounds between
    assert (np.asarray(log.phase) == SLOW_START).all()
    w = np.asarray(log.window_pkts)
    assert np.isin(w, [2.0, 4.0, 8.0]).all() and w[-1] == 8.0
    f = res.summary.flows[0]
    assert f.ss_exit_time_s is None
    assert f.time_to_equilibrium_s is None and f.settled_window_pkts is None
    assert f.not_settled_reason is not None and f.not_settled_reason.startswith(STILL)
    assert res.summary.all_settled_time_s is None


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "ode", "packet"])
def test_reno_halfway_through_a_long_slow_start_round_did_not_settle(engine: str) -> None:
    # an unlimited buffer: nothing is lost, so Reno's slow start never ends; its round has
    # stretched to seconds behind the queue it builds, a flat stretch of the window
    res = _run(engine, "reno", bandwidth="10Mbps", rtt="20ms", cbr="none", duration="20s")
    log = res.rounds[0]
    assert (np.asarray(log.phase) == SLOW_START).all()
    assert res.summary.flows[0].losses == 0
    w = np.asarray(log.window_pkts)
    assert w[-1] > 16000 and np.all(np.diff(w) >= 0)  # 16384 packets (in floats); never cut
    f = res.summary.flows[0]
    assert f.time_to_equilibrium_s is None and f.settled_window_pkts is None
    assert f.not_settled_reason is not None and f.not_settled_reason.startswith(STILL)


@pytest.mark.parametrize("engine", ["packet", "ode", "rounds"])
def test_a_loss_cycle_from_the_initial_window_is_not_settled_at_its_first_round(
    engine: str,
) -> None:
    res = _run(engine, "tcp-ho", bandwidth="10Mbps", rtt="100ms", buffer="20", cbr="none",
               duration="30s")  # fmt: skip
    f = res.summary.flows[0]
    first_round = float(np.asarray(res.rounds[0].time_s)[0])
    if engine == "packet":
        # the packet run's loss records: the ramp from 2 packets ends in the first loss
        # at 2.66 s, which starts the cycle (a loss, then a timeout, each round of it)
        loss_t = np.asarray(res.native.flows[0].loss_t_s)
        assert loss_t.size >= 10 and 2.5 < loss_t[0] < 2.8
        assert f.time_to_equilibrium_s is None or f.time_to_equilibrium_s >= loss_t[0]
    phase = np.asarray(res.rounds[0].phase)
    if (phase == SLOW_START).all():
        # the law's phase never left slow start at a round (each loss a timeout and a new
        # slow start): the first loss reaction ended the first slow start, the exit the
        # summary reports, and settling is judged from there, not from the phase records
        assert f.ss_exit_time_s is not None
        if engine == "packet":
            assert f.ss_exit_time_s == loss_t[0]
        left = f.ss_exit_time_s
    else:
        left = float(np.asarray(res.rounds[0].time_s)[np.argmax(phase != SLOW_START)])
    assert f.time_to_equilibrium_s is None or f.time_to_equilibrium_s >= left
    assert f.time_to_equilibrium_s is None or f.time_to_equilibrium_s > first_round


# a loss cycle built by hand, one sample a second over 120 s: slow start doubles 2 .. 64 at
# t = 1 .. 6 and leaves it (exit at t = 7); each cycle then repeats the ramp, a loss at 64
# restarting it from 2 packets (period 6 s: the 12-s tail holds two whole cycles)
T = np.arange(1.0, 121.0)
SAW = np.tile([2.0, 4.0, 8.0, 16.0, 32.0, 64.0], 20)


def test_the_time_to_settle_of_a_cycle_is_at_or_after_the_exit() -> None:
    # every sample lies in the cycle's range 2 .. 64, the initial windows too: read alone,
    # the series is in its band from its first sample; out of slow start only from t = 7
    alone = settling(T, SAW, settle_band=math.inf)
    assert bool(alone.settled) and float(alone.time_s) == 1.0
    r = settling(T, SAW, settle_band=math.inf, left_slow_start_s=7.0)
    assert bool(r.settled) and int(r.status) == _settling.SETTLED_CYCLE
    assert float(r.time_s) == 7.0  # the first sample at the exit
    # the envelope of the samples from t = 7 on: 2 .. 64
    assert float(r.centre) == 33.0 and float(r.amplitude) == 31.0


@pytest.mark.parametrize(("left", "text"), [(math.inf, "did not leave"), (100.0, "at 100 s")])
def test_still_in_slow_start_at_the_end_or_in_the_hold_window(left: float, text: str) -> None:
    # the hold window of a 120-s segment: its last 24 s (two tail lengths of 10 %), t >= 96
    r = settling(T, SAW, settle_band=math.inf, left_slow_start_s=left)
    assert not bool(r.settled) and int(r.status) == _settling.IN_SLOW_START
    assert math.isnan(float(r.time_s))
    assert r.reason().startswith(STILL) and text in r.reason()
    # one that left it before the hold window is judged as a cycle, from its exit
    early = settling(T, SAW, settle_band=math.inf, left_slow_start_s=90.0)
    assert bool(early.settled) and float(early.time_s) == 90.0


def test_left_slow_start_is_checked() -> None:
    with pytest.raises(ValueError, match="left_slow_start_s"):
        settling(T, SAW, left_slow_start_s=math.nan)
