"""The fluid view's per-flow lead to the bottleneck and packet spacing there, worked by hand
from the links' delays and rates.

A flow's first packet reaches the bottleneck after the delay and the transmission time of
every link before it on its route (its lead), and its packets arrive there no closer than
the packet time of the slowest of those links (its spacing); a flow that starts at the
bottleneck has neither. The fluid engines place each flow's first window with them
(docs/round-model.md, "First packets").
"""

from __future__ import annotations

import dataclasses

import pytest

from tcpfluid.scenarios import rtt_dumbbell

#: 1000-byte packets: 0.1 ms at 80 Mb/s, 1 ms at 8 Mb/s
PACKET_BITS = 8000.0


def test_each_flows_lead_is_its_access_links_delay_and_packet_time() -> None:
    # core 8 Mb/s, 18 ms one way; access links 80 Mb/s, (RTT - 36 ms) / 4 each
    sc = rtt_dumbbell(8e6, [0.072, 0.040], ["vegas"] * 2, duration_s=30.0, buffer_pkts=100.0)
    view = sc.fluid_view()
    assert view.lead_s == pytest.approx((0.009 + 0.0001, 0.001 + 0.0001), abs=1e-15)
    assert view.spacing_s == pytest.approx((0.0001, 0.0001), abs=1e-15)


def test_the_slowest_link_before_the_bottleneck_sets_the_spacing() -> None:
    sc = rtt_dumbbell(8e6, [0.072, 0.040], ["vegas"] * 2, duration_s=30.0, buffer_pkts=100.0)
    # the second flow's access link at 10 Mb/s (0.8 ms a packet): still faster than the core
    links = tuple(
        dataclasses.replace(lk, rate_bps=10e6) if lk.name == "S2-R1" else lk for lk in sc.links
    )
    view = dataclasses.replace(sc, links=links).fluid_view()
    assert view.lead_s == pytest.approx((0.0091, 0.001 + PACKET_BITS / 10e6), abs=1e-15)
    assert view.spacing_s == pytest.approx((0.0001, PACKET_BITS / 10e6), abs=1e-15)
