"""RED's fractions of packets in the hybrid model, on Tsang's thesis's many-flow network
(30 flows behind RED-5-15, half Vegas-3, half Reno; section thesis-many-flows).

RED drops a fraction ``p_b`` of every arrival; in a packet gateway each drop is a whole
packet of one flow, so a flow that has lost a fraction f of a packet has, in packets, lost
one with a probability of about f. With the fractions taken as they are
(``red_losses="whole"``: a flow reacts once its drops reach a whole packet) the thirty
flows' early drops reach about 0.2 packet each (p_b of about 0.01 of some 65 packets/s over
the 0.3 s) between two of RED's forced episodes
(the average above ``max_th``, every arrival dropped, one about every 0.4 s), which then
bring every flow over one packet at once: 90 % of the loss events fall in 0.1-s intervals
where 15 or more of the 30 flows react (packets: none), whatever each flow sends. Under
losses common to all, Vegas's cut to 3/4 keeps its flows about twice the Reno flows'
windows, and the Reno flows carry 16 % less than in packets. Dithered (the default: each
flow's event once its drops reach a threshold drawn for it in (0, 1], a shortfall carried
as a debt, docs/ode-model.md, "RED's fractions of packets, dithered"), the early drops
reach some flows before the episode, in proportion to what each sends, and the Reno mean
and the spread are the packets'; the forced episodes remain (71 % of the events in such
intervals).

Reference: the report's packet run of the section with its Vegas flows recovering as
NewReno, the hybrid's one loss rule (docs/mechanisms.md, ``hybrid-without-ns2-vegas-agent``:
ns-2's Vegas agent is the other difference, not this one).

Since the packet gateway's RED is ns-2.35's (docs/simulator.md) the packets' Reno flows
carry 43.8 pkt/s with a spread of 0.392 (47.5 and 0.333 before): the whole-packet
thresholds now give those cells and the dithered default does not (a strict expected
failure); the synchronisation the dithering removes is still measured.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid.engines import simulate
from tcpfluid.report import TOLERANCES
from tcpfluid.report._common import mean_rate_since
from tcpfluid.report._sec_thesis_many import MF_FROM_S, thesis_mix_scenario
from tcpfluid.report._thesis_ns2 import MANY_FLOWS_MIN_RTO_S, ns2_packet_options
from tcpfluid.sim import simulate_packets

ROUTER = "red-5-15"
FLOWS = 30
END_S = 60.0


def _cells(goodput_pps: Any, algorithms: Any) -> dict[str, float]:
    """The Reno flows' mean goodput (packets/s) and the spread (std/mean) of every flow's."""
    g = np.asarray(goodput_pps, dtype=float)
    reno = np.array([a == "reno" for a in algorithms])
    return {"reno": float(g[reno].mean()), "spread": float(g.std() / g.mean())}


def _synchronised(loss_times: Any) -> float:
    """The fraction of the 0.1-s intervals of 20-60 s holding loss events of 20 or more of
    the flows."""
    bins = np.arange(MF_FROM_S, END_S + 1e-9, 0.1)
    flows = np.zeros(bins.size - 1)
    for t in loss_times:
        flows += np.histogram(np.asarray(t), bins)[0] > 0
    return float(np.mean(flows >= 20))


def _hybrid(red_losses: str) -> tuple[dict[str, float], float]:
    sc = thesis_mix_scenario(FLOWS, ROUTER, "vegas-3", 50, fluid=True)
    res = simulate(sc, "ode", min_rto_s=MANY_FLOWS_MIN_RTO_S, red_losses=red_losses)
    g = mean_rate_since(res.time_s, res.series["delivered_pkts"], MF_FROM_S)
    events = [f.loss_t_s for f in res.native.hybrid.flows]
    return _cells(g, [f.algorithm for f in sc.flows]), _synchronised(events)


def _packets() -> tuple[dict[str, float], float]:
    """The report's packet run of the mix (ns-2's Reno recovery and RED spacing) with the
    Vegas flows recovering as NewReno."""
    sc = thesis_mix_scenario(FLOWS, ROUTER, "vegas-3", 50)
    opts = ns2_packet_options(sc)
    opts["fast_recovery"] = tuple(
        "newreno" if r == "ns2-vegas" else r for r in opts["fast_recovery"]
    )
    pk = simulate_packets(sc, sample_interval_s=1.0, min_rto_s=MANY_FLOWS_MIN_RTO_S, **opts)
    t = np.asarray(pk.t_s)
    g = np.array([f.goodput_pps for f in pk.flows])[:, t > MF_FROM_S].mean(axis=1)
    events = [f.loss_t_s for f in pk.flows]
    return _cells(g, [f.algorithm for f in sc.flows]), _synchronised(events)


def test_dithered_red_losses_reach_fewer_flows_at_once() -> None:
    _, packets_sync = _packets()
    _, whole_sync = _hybrid("whole")
    _, dithered_sync = _hybrid("dithered")
    # the mechanism: the 0.1-s intervals holding loss events of 20 or more flows (measured
    # 23.3 % with whole-packet thresholds, 16.8 % dithered, none in packets): RED's forced
    # episodes still reach most flows, but the early drops now reach some flows before
    # them, in proportion to what each sends
    assert whole_sync > dithered_sync > packets_sync, (whole_sync, dithered_sync, packets_sync)


@pytest.mark.xfail(
    strict=True,
    reason="since the packet gateway's RED is ns-2.35's (its average updated on every arrival; "
    "no RED drop with one packet waiting, docs/simulator.md) the packets' Reno flows carry "
    "43.8 pkt/s with a spread of 0.392 (47.5 and 0.333 before), and since the hybrid's RED "
    "events are dated by the drop that completes them the dithered default gives 48.0 and "
    "0.333: within the tolerances, as the whole-packet thresholds (39.9, 0.391) are too, so "
    "switching the dithering off no longer moves these cells out",
)
def test_hybrid_reno_flows_beside_vegas_follow_the_packets_once_red_losses_are_dithered() -> None:
    thr = TOLERANCES["throughput"]  # ±10 %
    spr = TOLERANCES["share spread"]  # ±0.10
    packets, _ = _packets()
    whole, _ = _hybrid("whole")
    dithered, _ = _hybrid("dithered")
    assert not thr.passes(whole["reno"], packets["reno"]), (whole, packets)
    assert thr.passes(dithered["reno"], packets["reno"]), (dithered, packets)
    assert spr.passes(dithered["spread"], packets["spread"]), (dithered, packets)
