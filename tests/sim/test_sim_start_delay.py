"""``start_delay_s``: each sender starts that long after its flow's start; the run's changes
and summary keep the scenario's start times."""

from __future__ import annotations

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import simulate_packets

# two_link(): 1 ms per data packet on F, 10 ms on F's wire, 1 ms per ACK on B, 5 ms on B's
RTT_IDLE_S = 0.001 + 0.010 + 0.001 + 0.005


@pytest.mark.parametrize(("start", "delay"), [(0.0, 0.0), (0.0, 0.0063), (0.05, 0.0021)])
def test_the_first_ack_comes_one_idle_rtt_after_the_delayed_start(
    start: float, delay: float
) -> None:
    res = simulate_packets(
        two_link(duration=0.3, start=start), laws={"f": FixedWindow(1)}, start_delay_s=delay
    )
    fl = res.flows[0]
    # one packet a round on an idle path: the first round ends at its ACK
    first_ack = float(np.asarray(fl.round_t_s)[0])
    assert first_ack == pytest.approx(start + delay + RTT_IDLE_S, abs=1e-12)
    assert fl.start_s == start  # the scenario's start, not the sender's


def test_changes_and_summary_keep_the_scenarios_start_times() -> None:
    # two flows from 0 s and one joining at 1 s: one change, whatever the senders' delays
    sc = rtt_dumbbell(8e6, [0.02] * 3, ["vegas"] * 3, duration_s=2.0, start_s=[0.0, 0.0, 1.0])
    plain = tcpfluid.simulate(sc, "packet")
    late = tcpfluid.simulate(sc, "packet", start_delay_s=(0.0004, 0.0, 0.0003))
    assert plain.summary.change_times_s == late.summary.change_times_s == (1.0,)
    assert [f.start_s for f in late.summary.flows] == [0.0, 0.0, 1.0]
    assert late.summary.flows[0].throughput_pps != plain.summary.flows[0].throughput_pps
    # a delay of zero is the run without it
    zero = tcpfluid.simulate(sc, "packet", start_delay_s=0.0)
    np.testing.assert_array_equal(zero.window_pkts, plain.window_pkts)
    assert zero.summary.throughput_pps == plain.summary.throughput_pps


def test_a_sender_starting_at_or_after_its_flows_stop_is_refused() -> None:
    sc = rtt_dumbbell(8e6, [0.02, 0.02], ["vegas"] * 2, duration_s=2.0, stop_s=[1.0, 2.0])
    with pytest.raises(ValueError, match="start_delay_s must end before each flow's stop"):
        simulate_packets(sc, start_delay_s=(1.0, 0.0))
