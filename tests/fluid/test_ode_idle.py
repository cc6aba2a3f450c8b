"""The classical model (tcpfluid.fluid.ode.simulate_ode) while no flow is active: the link
keeps working (the queue drains at its rate, cross traffic arrives, unused service counts
as idle) by the same equations as while flows are active.

Expected numbers are worked out by hand from the fluid picture: one Enhanced Vegas flow
alone keeps α packets queued and fills the link (thesis ch. 2 §5, the Boutremans–Le Boudec
argument); once it stops, those α packets leave at the link rate C.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid import Path
from tcpfluid.engines import Ode
from tcpfluid.fluid.ode import OdeFlow, simulate_ode
from tcpfluid.scenarios.files import scenario_from_toml

C = 187.5  # 1.5 Mb/s in 1000-byte packets/s
D = 0.02  # propagation RTT, s
ALPHA = 4.0  # packets the flow keeps queued


def ev(**kw: float) -> OdeFlow:
    return OdeFlow("enhanced-vegas", D, alpha_pkts=ALPHA, beta_pkts=ALPHA, **kw)  # type: ignore[arg-type]


def at(r: object, when: float, row: np.ndarray) -> float:
    return float(row[np.argmin(abs(r.t - when))])  # type: ignore[attr-defined]


def test_queue_drains_and_idle_service_counts_after_the_last_flow_stops() -> None:
    # one flow 0-10 s, then nothing but a 100 pkt/s source 12-16 s, on a 20-s run
    cbr = 100.0
    r = simulate_ode(
        [ev(stop_s=10.0)], Path(C, D), t_end_s=20.0, n_points=2001, measure_from_s=0.0,
        cross_traffic=[(cbr, 12.0, 16.0)],
    )  # fmt: skip
    assert r.success, r.message
    # hand: α = 4 packets queued when the flow stops; they leave at C, gone after
    # α/C = 21 ms; the source (100 < C pkt/s) builds no queue
    assert at(r, 9.9, r.queue_pkts) == pytest.approx(ALPHA, rel=1e-2)
    assert at(r, 10.01, r.queue_pkts) == pytest.approx(ALPHA - C * 0.01, abs=0.05)
    for when in (10.5, 13.0, 19.0):
        assert at(r, when, r.queue_pkts) < 1e-3, when
    # hand: the flow fills the link for 10 s (its start-up from 2 packets to C·D + α =
    # 7.75 takes about 6 RTTs, 0.12 s, at no less than half the link rate), the α
    # queued packets leave after it stops, the source carries 100 pkt/s for 4 s
    carried = C * 10.0 + ALPHA + cbr * 4.0
    assert r.summary.utilization == pytest.approx(carried / (C * 20.0), abs=0.12 * C / 2 / (C * 20))
    # hand: α packets queued for 10 s of the 20 (start-up and drain: a few 0.01 s)
    assert r.summary.mean_queue_pkts == pytest.approx(ALPHA * 10.0 / 20.0, rel=2e-2)


def test_flow_joining_an_idle_link_finds_the_queue_drained() -> None:
    # flow 1 stops at 10 s with α packets queued; flow 2 joins at 15 s: it records its
    # BaseRTT on an empty queue (hand: overestimate 0; on the α packets flow 1 left it
    # would start α/C = 21 ms too high and forget only what drains while it starts), so
    # alone it keeps α packets queued: window C·D + α (hand)
    r = simulate_ode(
        [ev(stop_s=10.0), ev(start_s=15.0)], Path(C, D), t_end_s=30.0, measure_from_s=25.0
    )
    assert r.success, r.message
    assert r.summary.base_rtt_overestimate_s[1] == pytest.approx(0.0, abs=1e-4)
    assert r.windows_pkts[1, -1] == pytest.approx(C * D + ALPHA, rel=1e-2)
    assert r.summary.final_queue_pkts == pytest.approx(ALPHA, rel=1e-2)


def test_engine_utilization_counts_the_idle_time() -> None:
    # one Vegas flow active 2-5 s of a 10-s run: the link carries what the flow delivered
    # (its throughput over its 3 active seconds) plus the α..β packets it left queued
    sc = scenario_from_toml(
        'name = "idle"\nduration = "10s"\n[[link]]\nname = "bottleneck"\nrate = "10Mbps"\n'
        'delay = "10ms"\nbuffer = 100\n[[flow]]\nalgorithm = "vegas"\nrtt = "50ms"\n'
        'start = "2s"\nstop = "5s"\n'
    )
    res = tcpfluid.simulate(sc, Ode())
    cap = 10e6 / (8 * sc.packet_size_bytes)  # the link's rate, pkt/s
    delivered = res.summary.flows[0].throughput_pps * 3.0
    # hand: the flow's queue (between α = 1 and β = 3 packets) is its only delivery after
    # it stops, and is counted in its throughput only if it drains before 5 s
    assert res.summary.utilization == pytest.approx(delivered / (cap * 10.0), abs=3 / (cap * 10.0))
