"""Every link's trace (made when read) agrees with the link's own counters: the bytes its
sampled utilization sums to are the bytes that left it plus at most what was on its wire at
the end, its last sampled drop count is its drop counter, and its sampled queue never
passes the largest queue it counted. The series
come from the run's samples and the counters from the links' own totals, two routes; a
trace built from another link's or another column's samples fails them."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets


@pytest.fixture(scope="module")
def lossy():
    sc = build_scenario("qv-basic", duration="20s", buffer=20, flows=3, bandwidth="5Mbps")
    return simulate_packets(sc.with_algorithm("reno"))


def test_the_traces_are_the_scenarios_links_in_order(lossy):
    assert [lk.name for lk in lossy.links] == [lk.name for lk in lossy.scenario.links]
    last = lossy.scenario.links[-1].name
    by_name, by_index = lossy.link(last), lossy.links[-1]
    assert by_name.name == by_index.name == last
    np.testing.assert_array_equal(by_name.queue_pkts, by_index.queue_pkts)


def test_each_links_series_add_up_to_its_counters(lossy):
    assert lossy.t_s[-1] == pytest.approx(20.0)  # the last sample is the run's end
    dt = np.diff(lossy.t_s)
    sc = lossy.scenario
    for lk, spec in zip(lossy.links, sc.links, strict=True):
        sent_bytes = float(np.sum(lk.utilization[1:] * dt * lk.rate_bps / 8.0))
        # transmitted by the end: what left, and at most a propagation delay's worth of
        # bytes and one packet still on the wire
        on_wire = spec.rate_bps / 8.0 * spec.delay_s + sc.packet_size_bytes
        assert lk.bytes_out * (1 - 1e-9) <= sent_bytes <= lk.bytes_out + on_wire, lk.name
        assert lk.drops[-1] == lk.drops_total, lk.name
        assert lk.queue_pkts.max() <= lk.max_queue_pkts, lk.name
    assert lossy.link("R1-R2").drops_total > 0  # the test sees drops somewhere
