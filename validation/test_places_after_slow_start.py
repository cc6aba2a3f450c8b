"""Flows on one round clock part after slow start through their places in each round's train.

Two iTCP-Vegas flows, 12.3 Mb/s × 117 ms, unlimited buffer (hold-out seed 80, scenario 44's
path without its departure). Started together, their packets reach the bottleneck in the
flows' order and the ACK clock keeps it: in the ramp after slow start the second flow's
packets queue behind the first flow's growth, it reads the larger Δ, stops ramping first
and the flows part (packets: peaks 140.8 and 90.2 packets). The round model keeps the
flows' places in every phase (docs/round-model.md, "Places in the burst") and parts them
the same way; with places in slow start only both of its flows ramp to 117.4.

The experiment switches the places off in the packets: the second flow starts half a round
later, so its train is half a round behind the first one's and no longer queues behind
its growth. The packet flows then ramp nearly together (124.7 and 116.6), and the round
model, which places only flows that start together, gives both 117.4.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

RTT_S = 0.117


def _peaks(start_s: list[float], engine: str) -> tuple[float, float]:
    sc = rtt_dumbbell(12.3e6, [RTT_S, RTT_S], ["itcp-vegas"] * 2, duration_s=3.2, start_s=start_s)
    first, second = tcpfluid.simulate(sc, engine).rounds
    return float(np.max(first.window_pkts)), float(np.max(second.window_pkts))


def test_flows_started_together_part_in_the_ramp_in_both_engines() -> None:
    """Each ramp peak within 10 % of the packets' (round model 133.0 and 90.9)."""
    packets = _peaks([0.0, 0.0], "packet")
    assert packets[0] > 1.4 * packets[1]  # they part: 140.8 against 90.2
    model = _peaks([0.0, 0.0], "rounds")
    assert model == pytest.approx(packets, rel=0.10)


def test_flows_half_a_round_apart_keep_no_places_and_ramp_together() -> None:
    """The switch-off: the packet flows' peaks within 7 % of each other (124.7, 116.6) and
    the round model's (117.4 each, no places) within 7 % of each packet flow's."""
    start = [0.0, RTT_S / 2.0]
    packets = _peaks(start, "packet")
    assert packets[0] == pytest.approx(packets[1], rel=0.07)
    model = _peaks(start, "rounds")
    assert model[0] == pytest.approx(model[1], rel=1e-9)
    assert model == pytest.approx(packets, rel=0.07)
