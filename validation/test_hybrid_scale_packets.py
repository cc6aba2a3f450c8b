"""The ODE engine's hybrid model with many flows on a finite buffer, against the packets.

Hundreds of Vegas flows starting together on the many-flows path (1 Gb/s x 100 ms, a
1500-packet buffer) overflow the buffer at once. A packet bottleneck drops whole packets
of the bursts that arrive at the full queue, so some flows lose their burst and others
none; a fluid share of every burst gives every flow the same loss, and identical flows
then time out together and restart together, leaving the link idle (utilisation ~0.5
where the packets carry 0.9). The hybrid deals the overflow's share of the packets beyond
the ACK clock to whole bursts of one flow after another, and keeps the utilisation of the
packets (the referee) within 10 %.
"""

from __future__ import annotations

import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario


def _vegas(flows: int, scale: int = 1) -> tcpfluid.Scenario:
    """``flows`` Vegas flows in one group on the many-flows path, its rate and buffer
    ``scale`` times the scenario's (the access links faster than it), 20 s."""
    more = {} if scale == 1 else {"access_bandwidth": f"{10 * scale}Gbps"}
    return build_scenario(
        "qv-many-flows",
        flows=flows,
        groups=1,
        duration="20s",
        bandwidth=f"{scale}Gbps",
        buffer=1500 * scale,
        **more,
    ).with_algorithm("vegas")


@pytest.fixture(scope="module")
def packet_400() -> float:
    util = tcpfluid.simulate(_vegas(400), "packet").summary.utilization
    assert util is not None
    return float(util)


def test_400_vegas_flows_use_the_link_as_the_packets_do(packet_400: float) -> None:
    util = tcpfluid.simulate(_vegas(400), "ode").summary.utilization
    assert packet_400 > 0.85
    assert util == pytest.approx(packet_400, rel=0.10)


def test_scaled_many_vegas_flows_use_the_link_as_the_packets_do(packet_400: float) -> None:
    """Three times the flows on three times the rate and buffer: each flow's share of the
    path is the 400-flow run's, so a packet run would carry the same fraction; the hybrid
    stays within 10 % of the packets' 400-flow utilisation."""
    util = tcpfluid.simulate(_vegas(1200, scale=3), "ode").summary.utilization
    assert util == pytest.approx(packet_400, rel=0.10)
