"""A loss in slow start ends it: the slow-start exit is the first loss event's when that
comes before the round decision that leaves slow start.

One Reno flow on 10 Mb/s x 10 ms (60 ms RTT, 50-packet buffer): slow start overshoots
the 50-packet pipe plus the buffer and ends in a loss near 0.5 s. A packet sender ends no
round while it repairs its losses, so its round records keep slow start's phase through the
recovery and the timeout's new slow start after it; the exit read from them alone came a
second later, at the second slow start's window. The packet run's own loss records are the
reference.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics import FlowRecord, summarise
from tcpfluid.scenarios import load_scenario

#: the one Reno flow above, run for 20 s
EXAMPLE = Path(__file__).resolve().parents[2] / "examples/scenarios/one-reno-overshoot.toml"
OVERSHOOT = {"duration": "20s"}
#: the longest round: the base RTT and a full buffer's delay (50 packets at 1250/s), s
ROUND_S = 0.06 + 50 / 1250.0


def test_the_packet_exit_is_the_first_loss_event() -> None:
    res = tcpfluid.simulate(load_scenario(EXAMPLE, **OVERSHOOT), "packet")
    trace = res.native.flows[0]
    loss_t, loss_w = float(trace.loss_t_s[0]), float(trace.loss_cwnd_before_pkts[0])
    # the run is one the round records alone misread: still slow start's phase after the loss
    after = np.asarray(trace.round_t_s) > loss_t
    assert np.asarray(trace.round_phase)[after][0] == 0.0
    assert loss_w > 50.0 + 50.0  # past the pipe and the buffer: an overshoot
    f = res.summary.flows[0]
    assert f.ss_exit_time_s == loss_t
    assert f.ss_exit_window_pkts == loss_w
    # the round the loss falls in: the one ending at the first boundary after it
    assert f.ss_exit_round == int(np.count_nonzero(np.asarray(trace.round_t_s) < loss_t)) + 1
    own = res.native.summary  # the engine's own summary is the same computation
    assert float(np.ravel(own.ss_exit_time_s)[0]) == loss_t


def test_the_engines_exits_agree_within_a_round() -> None:
    """The round model reacts to the overflow at the end of its round, the hybrid when its
    sender learns of the loss, the packets at the third duplicate ACK: within one round
    (:data:`ROUND_S`) of each other, and the window within one slow-start doubling."""
    sc = load_scenario(EXAMPLE, **OVERSHOOT)
    got = {e: tcpfluid.simulate(sc, e).summary.flows[0] for e in ("packet", "rounds", "hybrid")}
    times = [f.ss_exit_time_s for f in got.values()]
    windows = [f.ss_exit_window_pkts for f in got.values()]
    assert max(times) - min(times) <= ROUND_S
    assert max(windows) <= 2.0 * min(windows)
    assert max(times) < 0.6  # the first slow start's, not the second's (after 0.8 s)


def test_a_loss_ends_slow_start_in_the_summary_of_records() -> None:
    """By hand: a flow whose records stay in slow start to a sample at 0.5 s and leave it
    at 0.6 s (the round rule: exit window 8 at 0.6 s) but that lost a packet at 0.25 s with
    window 5 before the cut leaves at the loss; one without a loss, by the round rule."""
    t = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    w = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 16.0])
    in_ss = np.array([True, True, True, True, False, False])

    def exit_of(loss_s: float, loss_w: float) -> tuple[float, float, float]:
        rec = FlowRecord("f", 0.0, math.inf, t, w, in_ss, w, 10.0, 1.0, 0, loss_s, loss_w)
        s = summarise("x", None, [rec], end_s=1.0, carried_pkts=10.0, capacity_pps=100.0,
                      bottleneck="b")  # fmt: skip
        f = s.flows[0]
        return f.ss_exit_time_s, f.ss_exit_window_pkts, f.ss_exit_round

    assert exit_of(math.nan, math.nan) == (0.5, 8.0, 5)
    assert exit_of(0.25, 5.0) == (0.25, 5.0, 3)  # in the round ending at 0.3 s
    # a loss after the decision that left slow start (at 0.4 s) does not move the exit
    assert exit_of(0.45, 20.0) == (0.5, 8.0, 5)
    # a loss at the decision's own time is the exit (the round model reacts there)
    assert exit_of(0.4, 8.0) == (0.4, 8.0, 4)
    assert exit_of(2.0, 5.0) == (0.5, 8.0, 5)  # (after the run: none)


def test_settling_is_judged_from_the_exit_the_summary_reports() -> None:
    """By hand: records that keep slow start's phase through a loss recovery to 1.7 s while
    the window holds 10 packets from 0.3 s on; the loss reaction at 0.25 s ended slow
    start. Judged from that exit the window settled at 10 at 0.3 s, the sample the window
    came to rest; judged from the records' exit (1.8 s, less than two tail lengths, 0.4 s,
    before the run's end at 2 s) it was "still in slow start", from an exit the summary
    does not report."""
    t = np.round(np.arange(1, 21) * 0.1, 10)
    w = np.where(t < 0.3, 2.0 ** (t * 10.0), 10.0)
    in_ss = t <= 1.7
    rec = FlowRecord("f", 0.0, math.inf, t, w, in_ss, w, 10.0, 1.0, 0, 0.25, 5.0)
    s = summarise("x", None, [rec], end_s=2.0, carried_pkts=10.0, capacity_pps=100.0,
                  bottleneck="b")  # fmt: skip
    f = s.flows[0]
    assert f.ss_exit_time_s == 0.25
    assert f.settled_window_pkts == 10.0 and f.not_settled_reason is None
    assert f.time_to_equilibrium_s == pytest.approx(0.3)
    # without the loss: the records' exit, and too late to settle
    rec = FlowRecord("f", 0.0, math.inf, t, w, in_ss, w, 10.0, 0.0, 0)
    f = summarise("x", None, [rec], end_s=2.0, carried_pkts=10.0, capacity_pps=100.0,
                  bottleneck="b").flows[0]  # fmt: skip
    assert f.ss_exit_time_s == pytest.approx(1.8) and f.settled_window_pkts is None
    assert "it left slow start at 1.8 s" in str(f.not_settled_reason)


def test_a_flow_stopped_just_after_its_loss_exit_names_that_exit() -> None:
    # stopped 11 ms after the loss reaction that ended its slow start: too soon to settle,
    # and the reason says when it left slow start (it used to say it never did)
    sc = load_scenario(EXAMPLE, **OVERSHOOT, **{"flow.1.stop": "0.52s"})
    f = tcpfluid.simulate(sc, "packet").summary.flows[0]
    assert f.ss_exit_time_s < 0.52
    assert f.not_settled_reason is not None
    assert f"it left slow start at {f.ss_exit_time_s:.6g} s" in f.not_settled_reason
