"""Losses on the ODE engine's hybrid model as a packet sender sees them, against the
packet simulator (the referee of the fluid layers).

A packet sender's dropped packet keeps its place in the window until the duplicate ACKs
of the packets behind it tell the sender, about one RTT later; meanwhile the sender goes
on at its ACK clock, and a loss event costs the overflow of about one window's growth.
The hybrid model reads a drop that way (``hold_drops=True``, the overflow first on the
packets beyond each flow's ACK clock, ``drop_share="growth"``, the sender learning of its
losses when the duplicate ACKs arrive and deciding timeout or fast retransmit as NewReno
does). The earlier reading freed a dropped packet's place at once, so the flow sent the
dropped fluid again in the next step into the full queue: that reading is still
selectable (``hold_drops=False, timeout_loss_fraction=0.5``) and shows the mechanism.
"""

from __future__ import annotations

import dataclasses

import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario

#: the earlier reading of a drop (its place freed at once, timeouts by lost fraction)
FREED = {"hold_drops": False, "timeout_loss_fraction": 0.5, "drop_share": "proportional"}


def _reno(buffer: int) -> tcpfluid.Scenario:
    """One Reno flow, 10 Mb/s x 100 ms (1000-byte packets), drop-tail buffer, 100 s."""
    sc = build_scenario("qv-basic", bandwidth="10Mbps", buffer=buffer, cbr="none", duration="100s")
    return sc.with_algorithm("reno")


def _vegas_beside_reno() -> tcpfluid.Scenario:
    sc = build_scenario(
        "qv-basic", bandwidth="10Mbps", buffer=25, cbr="none", duration="100s", flows=2
    )
    a, b = sc.flows
    return dataclasses.replace(
        sc,
        flows=(
            dataclasses.replace(a, algorithm="vegas"),
            dataclasses.replace(b, algorithm="reno"),
        ),
    )


@pytest.fixture(scope="module")
def reno_25() -> tuple[tcpfluid.Scenario, tcpfluid.Result]:
    sc = _reno(25)
    return sc, tcpfluid.simulate(sc, "packet")


def test_reno_goodput_and_loss_events_on_a_small_buffer_are_the_packets(
    reno_25: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """Goodput within 10 % of the packet simulator's (a Reno sawtooth's goodput depends on
    how deep each loss cuts: one halving per event, no refill of the dropped fluid) and
    loss events of the same order (within a factor of two: the fluid's events are
    expected values of whole-packet events)."""
    sc, pk = reno_25
    od = tcpfluid.simulate(sc, "ode")
    got, ref = od.summary.flows[0], pk.summary.flows[0]
    assert ref.throughput_pps is not None and got.throughput_pps is not None
    assert got.throughput_pps == pytest.approx(ref.throughput_pps, rel=0.10)
    assert ref.losses / 2 <= got.losses <= 2 * ref.losses


def test_a_drop_that_frees_its_place_at_once_costs_far_more_than_a_packet_senders(
    reno_25: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """The mechanism: with the place freed at the drop, the dropped fluid is sent again
    into the full queue until the sender learns of it, losing more than ten times the
    packet sender's retransmissions and more than 10 % of its goodput; held until the
    sender learns of the drop, the lost packets are within a factor of two of the packets
    the packet simulator's bottleneck drops (43 in 100 s; the hybrid loses 30). The
    retransmissions (96) are not the comparison: after its timeout the packet sender also
    resends packets that were not lost."""
    sc, pk = reno_25
    retx = pk.native.flows[0].retransmissions
    assert retx > 10
    drops = float(pk.native.link("R1-R2").data_drops)
    assert drops > 10
    held = tcpfluid.simulate(sc, "ode").native.hybrid
    freed = tcpfluid.simulate(sc, "ode", **FREED)
    lost_held = float(held.lost_pkts[0, -1])
    lost_freed = float(freed.native.hybrid.lost_pkts[0, -1])
    assert drops / 2 <= lost_held <= 2 * drops
    assert lost_freed > 10 * retx
    ref = pk.summary.flows[0].throughput_pps
    assert ref is not None and freed.summary.flows[0].throughput_pps is not None
    assert freed.summary.flows[0].throughput_pps < 0.9 * ref


def test_vegas_beside_reno_is_not_charged_the_reno_flows_losses() -> None:
    """Beside a Reno flow on a 25-packet buffer the packet simulator's Vegas flow loses
    no packet (Reno's growth packet meets the full queue); the hybrid charges Vegas at
    most the one event of the two flows' first overflow, where the earlier reading
    charged it one at nearly every Reno overflow."""
    sc = _vegas_beside_reno()
    pk = tcpfluid.simulate(sc, "packet").summary.flows
    od = tcpfluid.simulate(sc, "ode").summary.flows
    old = tcpfluid.simulate(sc, "ode", **FREED).summary.flows
    assert pk[0].losses == 0 and pk[1].losses >= 10
    assert od[0].losses <= 1
    assert od[1].losses >= pk[1].losses / 2
    assert old[0].losses >= 5
