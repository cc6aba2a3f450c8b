"""A flow that starts with others keeps the BaseRTT of its place behind their first packets.

Flows that start together on an idle bottleneck send their first windows at once, and the
bottleneck serves the first packets one per flow in the flows' order: flow j's first packet
waits behind j packets, and in the next slow-start rounds its packets keep their place
behind the earlier flows' (docs/round-model.md, "First packets" and "Places in the
burst"). A Vegas sender takes the least RTT its own packets saw as its BaseRTT, so the
later flows' BaseRTTs stand above the path's, and their Δ in the round that decides the
slow-start exit is about the earlier flows'. Read from the round's least RTT instead, the
last flow's Δ was twice the first's: it left slow start a round early (4 → 3.5 packets
against the packets' 8 → 7) and rested at 5.5 packets beside three flows at 7.

The numbers asserted come from the packet simulator on the same dumbbell (each flow's
BaseRTT per round as its sender records it, its windows): another layer of the library.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

#: four Vegas flows starting together: 9.4 Mb/s × 10.9 ms, a 65-packet buffer (a pipe of
#: 12.8 packets, about three windows of 4 per flow)
N_FLOWS = 4


@pytest.fixture(scope="module")
def runs() -> dict[str, tcpfluid.Result]:
    sc = rtt_dumbbell(
        9.4e6, [0.0109] * N_FLOWS, ["vegas"] * N_FLOWS, duration_s=3.0, buffer_pkts=65
    )
    return {eng: tcpfluid.simulate(sc, eng) for eng in ("packet", "rounds", "hybrid")}


def _base_at(res: tcpfluid.Result, j: int, k: int) -> float:
    return float(np.asarray(res.rounds[j].base_rtt_s)[k])


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_each_flow_keeps_the_base_rtt_of_its_place(runs, engine) -> None:
    """Each flow's BaseRTT from its fourth round on (slow start holds its window every
    other round: the round after the doubling to 8) is the packet sender's within 0.05 ms,
    a twentieth of a packet time (0.85 ms): flows 0 and 1 one and two packets' waits
    apart, flows 2 and 3 both two packets above the path, where the queue they met last
    left them."""
    packet, fluid = runs["packet"], runs[engine]
    for j in range(N_FLOWS):
        want = _base_at(packet, j, 3)
        assert _base_at(fluid, j, 3) == pytest.approx(want, abs=5e-5), j
    assert _base_at(packet, 3, 3) - _base_at(packet, 0, 3) > 1.5e-3  # the test's premise


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_every_flow_leaves_slow_start_and_rests_at_the_packets_window(runs, engine) -> None:
    """Every flow doubles to 8 packets and rests at 7 in packets; so in the fluid engine
    (the windows are whole packets in both, the fluid's to the rounding of its ACK sums)."""
    for res in (runs["packet"], runs[engine]):
        for log in res.rounds:
            w, phase = np.asarray(log.window_pkts), np.asarray(log.phase)
            assert w[phase == 0].max() == pytest.approx(8.0, abs=1e-9)
            assert w[-1] == pytest.approx(7.0, abs=1e-9)
