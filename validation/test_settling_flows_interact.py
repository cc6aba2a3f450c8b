"""Time to equilibrium of identical flows on one bottleneck: the packets' flows interact, the
fluid engines' identical flows behave as one flow on its share of the link.

The switch-off experiment of docs/fluid-promises.md, "Identical flows that interact": the
same law, RTT and share per flow, once as n flows on the link and once as one flow alone on
1/n of the link and of the buffer. The reference for the fluid engines is the packet
simulator's one flow alone (an independent run of the referee); the tolerance is the
hold-out's for a time (25 % or 3 RTTs, benchmarks/holdout.py).
"""

from __future__ import annotations

import pytest

from tcpfluid import simulate
from tcpfluid.scenarios.topology import rtt_dumbbell

#: the hold-out's tolerance for a time: 25 % of the packet value, or 3 RTTs
REL, RTTS = 0.25, 3.0

# hold-out seed 87's scenario 41: Enhanced Vegas x2, 1.8 Mb/s, 344 ms, a 29-packet buffer
RATE_BPS, RTT_S, BUFFER_PKTS, DURATION_S = 1.79624e6, 0.34442, 29.0, 84.64


def _tte(n: int, engine: str, **options: float | bool) -> float:
    sc = rtt_dumbbell(
        RATE_BPS * n / 2,
        [RTT_S] * n,
        ["enhanced-vegas"] * n,
        duration_s=DURATION_S,
        buffer_pkts=max(2.0, round(BUFFER_PKTS * n / 2)),
        packet_size_bytes=1000,
    )
    opts = {"seed": 87} if engine == "packet" else dict(options)
    t = simulate(sc, engine, **opts).summary.all_settled_time_s
    assert t is not None
    return t


def _agree(fluid: float, packet: float) -> bool:
    return abs(fluid - packet) <= max(REL * packet, RTTS * RTT_S)


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_two_identical_fluid_flows_settle_as_the_packets_one_flow_alone(engine: str) -> None:
    # packets: two flows 35.4 s, one flow on half the link 12.5 s; round model 11.5 s,
    # hybrid 11.9 s with two flows (measured on the tree of this test)
    one_packet = _tte(1, "packet")
    two_packet = _tte(2, "packet")
    two_fluid = _tte(2, engine)
    assert _agree(two_fluid, one_packet)
    # the packets' two flows interact: their time is not their one flow's
    assert not _agree(one_packet, two_packet)
    assert two_packet > one_packet


def test_hybrid_with_whole_packets_follows_one_enhanced_vegas_flow_whose_cycle_drifts() -> None:
    # hold-out seed 1's scenario 33 cut to one of its 25 flows: 3.224 Mb/s, 186 ms, 106
    # packets of buffer. A packet sender's increase adds floor(w)/w per round, the cycle's
    # low point drifts down (78.27 -> 78.11 packets over 15-50 s) until the cycle takes one
    # more step (78-81 -> 78-82) at 48 s; fluid windows of whole steps never drift. The
    # drift and the step lie within the base band of the cycle's steady envelope, so they
    # no longer move the packets' time (11.4 s): the hybrid settles with them with whole
    # packets and without (11.2 s; with a band around the tail's mean alone the drift
    # made the packets late and the default hybrid differed)
    sc = rtt_dumbbell(
        80.6e6 / 25,
        [0.186],
        ["enhanced-vegas"],
        duration_s=115.0,
        buffer_pkts=106.0,
        packet_size_bytes=1000,
    )
    packet = simulate(sc, "packet", seed=1).summary.all_settled_time_s
    whole = simulate(sc, "hybrid", whole_packets=True).summary.all_settled_time_s
    default = simulate(sc, "hybrid").summary.all_settled_time_s
    assert packet is not None and whole is not None and default is not None
    assert abs(whole - packet) <= max(REL * packet, RTTS * 0.186)
    assert abs(default - packet) <= max(REL * packet, RTTS * 0.186)
