"""A flow's throughput counts its deliveries over the time they took: from its start to the
later of its stop and its last delivery, so it is never above what its path carried.

One Reno flow that stops 1 ms after its start (its first window, 2 packets, is sent at
once and delivered a one-way delay or a round later) beside a CBR source. Over its 1-ms
active time alone its 2 packets read 2000 packets/s on a 1250 packets/s link.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics._records import flow_rates
from tcpfluid.scenarios.files import scenario_from_toml

BRIEF = """
name = "brief"
duration = "10s"
[[link]]
name = "bn"
rate = "10Mbps"
delay = "10ms"
buffer = 50
queue = "red"
red = {{ min_th = 5, max_th = 15, max_p = 0.1, w_q = 0.002, gentle = false }}
[[flow]]
algorithm = "reno"
rtt = "60ms"
stop = "0.001s"
[[cbr]]
name = "c"
rate = "{cbr}"
"""
#: the bottleneck's rate, packets/s (10 Mb/s of 1000-byte packets)
LINK_PPS = 10e6 / 8 / 1000


@pytest.mark.parametrize(
    ("engine", "cbr"),
    [
        ("packet", "12Mbps"),  # the CBR above the link's rate: only the packets model it
        ("packet", "5Mbps"),
        ("rounds", "5Mbps"),
        ("hybrid", "5Mbps"),
        ("ode", "5Mbps"),
    ],
)
def test_no_flow_is_faster_than_the_bottleneck(engine: str, cbr: str) -> None:
    res = tcpfluid.simulate(scenario_from_toml(BRIEF.format(cbr=cbr)), engine)
    f = res.summary.flows
    assert res.summary.flows.stop_s[0] == pytest.approx(0.001)
    delivered = 2.0  # its first window: the packets it sent before its stop
    assert np.all(f.throughput_pps <= LINK_PPS)
    # delivered within a round (60 ms and at most a 50-packet queue: 0.1 s) of its start
    assert delivered / 0.1 <= f.throughput_pps[0] <= delivered / 0.03


def test_the_rate_counts_up_to_the_later_of_stop_and_last_delivery() -> None:
    """By hand: 10 packets from 1 s, stopped at 3 s, the last delivered at 3.5 s: 10 / 2.5;
    delivered by the stop: 10 / 2; unknown (NaN): to the stop; the measured time's end
    (3.2 s) caps it: 10 / 2.2."""
    got = flow_rates(
        np.array([10.0, 10.0, 10.0, 10.0]),
        np.array([1.0, 1.0, 1.0, 1.0]),
        np.array([3.0, 3.0, 3.0, 3.0]),
        (0.0, np.array([10.0, 10.0, 10.0, 3.2])),
        np.array([3.5, 2.5, np.nan, 3.5]),
    )
    assert got.tolist() == pytest.approx([4.0, 5.0, 5.0, 10.0 / 2.2])
