"""The fluid view places a CBR source's changes when they reach the bottleneck.

The fluid engines queue a flow's packets at the bottleneck when the flow sends them; a CBR
source whose access path is shorter than the flows' reaches the bottleneck earlier than a
flow that starts at the same instant (docs/fluid-promises.md, "Why joiners' shares part").
Every expected time below is worked by hand from the links' delays and rates.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

import tcpfluid
from tcpfluid.scenarios import Scenario, rtt_dumbbell


def _dumbbell(rtts: list[float], cbr: tuple[float, float, float]) -> Scenario:
    return rtt_dumbbell(
        8e6, rtts, ["vegas"] * len(rtts), duration_s=30.0, buffer_pkts=100.0, cbr=cbr,
        start_s=[0.0] + [10.0] * (len(rtts) - 1),
    )  # fmt: skip


def test_a_cbr_on_a_shorter_access_link_reaches_the_bottleneck_earlier() -> None:
    # 72 ms: core 18 ms one way, flow access (72 - 36) / 4 = 9 ms, CBR access 0.5 ms; both
    # access links at 80 Mb/s (the same transmission time): the CBR leads by 8.5 ms
    view = _dumbbell([0.072, 0.072], (3e6, 10.0, 20.0)).fluid_view()
    ((c,),) = [view.cross_traffic]
    assert c.rate_pps == pytest.approx(3e6 / 8000.0, rel=1e-12)
    assert c.start_s == pytest.approx(10.0 - 0.0085, abs=1e-12)
    assert c.stop_s == pytest.approx(20.0 - 0.0085, abs=1e-12)
    assert view.start_s == (0.0, 10.0)  # the flows keep their times


def test_the_cbr_access_links_transmission_time_counts() -> None:
    # the CBR's access link at 8 Mb/s (1 ms per 1000-byte packet) and 2 ms long: it reaches
    # the bottleneck 3 ms after it sends; the flows 9 ms + 0.1 ms (80 Mb/s) after
    sc = _dumbbell([0.072, 0.072], (3e6, 10.0, math.inf))
    links = tuple(
        dataclasses.replace(lk, rate_bps=8e6, delay_s=0.002) if lk.name == "C-R1" else lk
        for lk in sc.links
    )
    (c,) = dataclasses.replace(sc, links=links).fluid_view().cross_traffic
    assert c.start_s == pytest.approx(10.0 + 0.003 - 0.0091, abs=1e-12)
    assert math.isinf(c.stop_s)


def test_the_first_flows_clock_is_the_reference_and_time_zero_the_floor() -> None:
    # unequal RTTs: the first flow's access is (40 - 20) / 4 = 5 ms, the second's
    # (100 - 20) / 4 = 20 ms; the lead is measured against the first flow's; a CBR that
    # starts at 0 cannot start before the run
    view = _dumbbell([0.04, 0.1], (2e6, 0.0, 5.0)).fluid_view()
    (c,) = view.cross_traffic
    assert c.start_s == 0.0
    assert c.stop_s == pytest.approx(5.0 - 0.0045, abs=1e-12)


def test_a_cbr_that_ends_within_its_lead_of_the_start_is_left_out() -> None:
    # the 72-ms dumbbell's CBR leads the first flow by 8.5 ms (first test); a source on from
    # 0 to 2 ms has reached the bottleneck and stopped before the first flow's clock starts,
    # so the fluid engines see no cross traffic (not a source that stops before it starts)
    sc = _dumbbell([0.072, 0.072], (3e6, 0.0, 0.002))
    assert sc.fluid_view().cross_traffic == ()
    for engine in ("rounds", "hybrid"):
        res = tcpfluid.simulate(dataclasses.replace(sc, duration_s=2.0), engine)
        assert res.summary.flows[0].throughput_pps is not None
    # one that ends 1 ms after the lead is kept, on for that 1 ms
    (c,) = _dumbbell([0.072, 0.072], (3e6, 0.0, 0.0095)).fluid_view().cross_traffic
    assert (c.start_s, c.stop_s) == (0.0, pytest.approx(0.001, abs=1e-12))
