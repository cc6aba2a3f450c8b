"""The ODE engine's hybrid model with many flows on a finite buffer, and its memory.

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

import tracemalloc

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.fluid import _hybrid_inputs
from tcpfluid.fluid.hybrid import simulate_hybrid
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


def _peak_bytes(flows: int) -> int:
    law = get_law("vegas")
    tracemalloc.start()
    try:
        simulate_hybrid(
            law,
            mu_pps=125_000.0,
            base_rtt_s=np.full(flows, 0.1),
            duration_s=1.0,
            buffer_pkts=1500.0,
            record_every_s=0.002,
        )
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_grows_linearly_with_flows_and_stays_under_the_estimate() -> None:
    """The peak traced allocation of a run doubles (not more) when the flows double, and
    the estimate checked before a run allocates is above it."""
    small, large = _peak_bytes(500), _peak_bytes(1000)
    assert large < 2.2 * small
    run = _hybrid_inputs.check_run(
        125_000.0, np.full(1000, 0.1), 1.0, 1500.0, (), None, None, None, 0.002, None
    )
    assert _hybrid_inputs.memory_estimate(run, 257, 64 * 256) > large


def test_a_run_over_the_memory_budget_is_refused_before_it_allocates() -> None:
    with pytest.raises(ValueError, match="record_every_s"):
        simulate_hybrid(
            get_law("vegas"),
            mu_pps=1e7,
            base_rtt_s=np.full(200_000, 0.1),
            duration_s=100.0,
            record_every_s=0.01,
        )
