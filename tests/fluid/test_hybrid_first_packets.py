"""The BaseRTT of flows that start together on an idle bottleneck, in the hybrid model
(docs/round-model.md, "First packets"; docs/ode-model.md).

Twelve Vegas flows on the TCP-Ho paper's Table 7 network (10 Mb/s x 1 ms, 1 Gb/s access
links, 120-packet buffer) start with two packets each: 24 packets on a pipe of 8.6, so the
queue never falls below 15 packets again and each flow's BaseRTT is what its first window
measured. The packet simulator's first packets reach the bottleneck one per flow in the
flows' order, so flow k's queues behind k packets (6.85 ms + k x 0.8 ms). The fluid mixes
the flows' first windows: read from the fluid queue, every flow's BaseRTT was the path's
(6.86-6.89 ms).
"""

from __future__ import annotations

import numpy as np

from tcpfluid.engines import simulate
from tcpfluid.scenarios import build_scenario


def test_hybrid_base_rtts_of_flows_starting_together_are_the_packet_simulators() -> None:
    """Flow by flow within 20 µs (the hybrid's time step is d/256 = 27 µs: its first
    sample may find a step's queue), the packet simulator's BaseRTTs 6.85 ... 15.65 ms."""
    sc = build_scenario("ho-friendliness", algorithm="vegas:12", flows=12, duration="1s")
    packet = np.asarray(simulate(sc, "packet").base_rtt_s)
    assert packet[-1] - packet[0] > 8e-3  # (the independent route: 11 packet times apart)
    hybrid = np.asarray(simulate(sc, "ode").base_rtt_s)
    np.testing.assert_allclose(hybrid, packet, rtol=0, atol=2e-5)


def test_hybrid_flows_with_unequal_start_times_keep_the_fluid_reading() -> None:
    """The rule is for flows that start together: one flow alone and flows starting apart
    read their BaseRTT from the fluid queue (the propagation RTT here, within a step)."""
    sc = build_scenario(
        "ho-friendliness", algorithm="vegas:2", flows=2, duration="0.5s", start_spread="50ms"
    )
    r = simulate(sc, "ode")
    d = sc.base_rtt_s(sc.flows[0])
    assert [f.start_s for f in sc.flows][1] > 0.0
    np.testing.assert_allclose(r.base_rtt_s, d, rtol=0, atol=1e-4)
