"""Reno flows behind a buffer below one bandwidth-delay product: the round model cuts every
flow with a share of an overflow, and its link idles after the cut as the packet
simulator's does (docs/round-model.md, "Finite buffer", *who loses at an overflow does not
hold the link full*); the packet simulator is the independent route.

Six Reno flows on 10 Mb/s (1250 packets/s of 1000 bytes) × 40 ms, a 50-packet pipe, with
a 10-packet buffer (0.2 BDP), 20 s. The windows peak at pipe + buffer = 60 packets in all
and halve to about 30, below the pipe, so the link idles until they grow back: the
packets' utilization is 0.87. With the overflow's losses spread over fewer flows at a time
(`loss_event_rule="windows-in-turn"`), the flows not cut keep the sum of windows above the
pipe and the link stays full (0.996): who is cut decides the idle time.
"""

from __future__ import annotations

import tcpfluid
from tcpfluid.engines import Rounds
from tcpfluid.scenarios.topology import rtt_dumbbell

#: the hold-out benchmark's utilization tolerance (benchmarks/holdout.py, ``TOLERANCES``):
#: what the fluid layers promise for a bottleneck's utilization against the packets
REL_TOL = 0.10


def _scenario() -> tcpfluid.Scenario:
    return rtt_dumbbell(
        10e6, [0.04] * 6, ["reno"] * 6, duration_s=20.0, buffer_pkts=10.0, packet_size_bytes=1000
    )


def test_reno_link_idles_after_the_cut_as_in_packets_only_when_every_flow_is_cut() -> None:
    sc = _scenario()
    packets = tcpfluid.simulate(sc, "packet").summary.utilization
    rounds = tcpfluid.simulate(sc, "rounds").summary.utilization
    spread = tcpfluid.simulate(sc, Rounds(loss_event_rule="windows-in-turn")).summary.utilization
    # the packets' link idles after each cut (0.2-BDP buffer: the halved windows < pipe)
    assert packets < 0.95
    assert abs(rounds - packets) <= REL_TOL * packets
    # the losses spread over the flows keep the link full, beyond the tolerance
    assert spread - packets > REL_TOL * packets
