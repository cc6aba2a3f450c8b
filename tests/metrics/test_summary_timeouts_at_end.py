"""A packet flow whose retransmissions keep timing out ends no round after them: its
summary describes the window the timeouts left it, not that of its last round.

One Vegas flow on 10 Mb/s x 10 ms (40 ms RTT, 100-packet buffer) beside a CBR source at
the link's whole rate: the queue stays full of CBR packets, the flow's rounds stop after
about a second and its timeouts, backed off, cut its window to 2 packets (a sender's
window after a timeout) until the end of the run. Its window sampled every 0.1 s (the
simulator's own series, another record of the same window) is the reference.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios.files import scenario_from_toml

STARVED = """
name = "starved"
duration = "20s"
[[link]]
name = "b"
rate = "10Mbps"
delay = "10ms"
buffer = 100
[[flow]]
algorithm = "vegas"
rtt = "40ms"
[[cbr]]
rate = "10Mbps"
"""


def test_a_flow_left_in_timeouts_settles_at_the_window_they_left() -> None:
    res = tcpfluid.simulate(scenario_from_toml(STARVED), "packet")
    trace = res.native.flows[0]
    last_round = float(trace.round_t_s[-1])
    assert last_round < 2.0 and res.summary.extras["timeouts"][0] >= 3
    tail = res.window_pkts[0, res.time_s > 2.0]
    assert tail.size > 100 and np.all(tail == 2.0)  # every sample from 2 s to the end
    f = res.summary.flows[0]
    assert f.settled_window_pkts == pytest.approx(2.0)
    # settled from the first timeout after the last round on: the window it left holds
    first_timeout = float(trace.loss_t_s[trace.loss_t_s > last_round][0])
    assert f.time_to_equilibrium_s == pytest.approx(first_timeout)
    # the engine's own summary is the same computation
    own = res.native.summary
    assert float(np.ravel(own.settled_window_pkts)[0]) == f.settled_window_pkts
