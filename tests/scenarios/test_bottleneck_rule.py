"""Which link is the bottleneck: the link of the first flow's path with the least rate per
flow crossing it. Checked on networks whose shared link is known by construction, and by
the packet run's utilization against the packets its flows delivered."""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import FlowSpec, Link, Scenario, bottleneck, build_scenario


@pytest.mark.parametrize("flows", [30, 100, 200])
def test_the_thesis_network_shares_its_10_mbps_link_not_an_access_link(flows):
    """Tsang's thesis, Table 3.19: N flows share a 10 Mb/s RED link; each flow's access
    link runs at 10 x 10/N Mb/s, slower than 10 Mb/s but ten times a flow's share of it."""
    sc = build_scenario("thesis-many-flows", flows=flows)
    assert bottleneck(sc).name == "R1-R2"
    assert bottleneck(sc, reverse=True).name == "R2-R1"


def _two_hop(access_mbps: list[float], shared_mbps: float) -> Scenario:
    links = [Link("S", f"{shared_mbps}Mbps", "10ms")]
    links += [Link(f"A{i}", f"{r}Mbps", "1ms") for i, r in enumerate(access_mbps)]
    flows = [FlowSpec(f"f{i}", (f"A{i}", "S"), ()) for i in range(len(access_mbps))]
    return Scenario("two-hop", tuple(links), tuple(flows))


def test_a_share_of_a_link_below_every_access_rate_makes_it_the_bottleneck():
    # four flows on 2-Mb/s access links through 5 Mb/s: 1.25 Mb/s each at the shared link
    assert bottleneck(_two_hop([2, 2, 2, 2], 5)).name == "S"


def test_an_access_link_below_the_flows_share_is_the_first_flows_bottleneck():
    # two flows through 5 Mb/s (2.5 each); the first one's own link carries 1 Mb/s
    assert bottleneck(_two_hop([1, 10], 5)).name == "A0"


def test_the_packet_runs_utilization_is_the_shared_links():
    """The link carries what the flows delivered, plus retransmissions and what is still in
    flight at the end: at least the delivered packets per capacity, within 5 % of them."""
    sc = build_scenario("thesis-many-flows", duration="20s").with_algorithm("vegas")
    run = tcpfluid.simulate(sc, "packet")
    mu_pps = 10e6 / (8 * sc.packet_size_bytes)
    delivered = float(np.asarray(run.delivered_pkts())[:, -1].sum()) / (mu_pps * 20.0)
    assert delivered <= run.summary.utilization <= 1.05 * delivered
