"""The base RTT of flows of unequal base RTTs that start together on an idle bottleneck
(docs/round-model.md, "First packets"): six Vegas flows of 20-45 ms on a 1.5 Mb/s
bottleneck without a buffer limit (a dumbbell whose access links run at ten times its
rate, the bottleneck's one-way delay a quarter of the first RTT).

The flows' first windows reach the bottleneck at their access links' delays, 1.25 ms apart
(a quarter of their RTTs' 5-ms steps), one packet time being 5.33 ms: each flow's first
packet queues behind what is left of the windows that came before it, and the queue never
drains that far again, so each packet flow's BaseRTT is the path's plus that wait (0, 9.4,
18.8, 28.3, 37.7 and 47.1 ms above it here: two packets of each window less the 0.23
packet the bottleneck serves between them; an over-estimated BaseRTT is a larger Vegas
share). Both fluid engines take the waits from one FIFO of the first windows
(``tcpfluid.fluid._first_packets.first_packet_waits``) as a floor under their first rounds'
minimum RTT; without it they read the path's RTT (or the round model a queue of the
classes' first rounds in class order).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.engines import simulate
from tcpfluid.scenarios import rtt_dumbbell

RTTS_S = [0.020, 0.025, 0.030, 0.035, 0.040, 0.045]


def _scenario():  # type: ignore[no-untyped-def]
    return rtt_dumbbell(1.5e6, RTTS_S, ["vegas"] * len(RTTS_S), duration_s=60.0)


@pytest.fixture(scope="module")
def packet_base() -> np.ndarray:
    """The independent route: the packet simulator's BaseRTTs (its senders' least RTT
    samples), which stand above the paths' for every flow but the first."""
    sc = _scenario()
    base = np.asarray(simulate(sc, "packet").base_rtt_s)
    over = base - np.asarray(sc.base_rtts_s())
    assert over[0] == pytest.approx(0.0, abs=1e-6)
    assert np.all(np.diff(over) > 0.009)  # each flow's first packet waits longer than the last
    return base


def test_the_round_models_base_rtts_are_the_packet_simulators(packet_base: np.ndarray) -> None:
    """Every round-model flow holds its packet flow's BaseRTT (within 0.05 ms, a hundredth
    of a packet time)."""
    base = np.asarray(simulate(_scenario(), "rounds").base_rtt_s)
    np.testing.assert_allclose(base, packet_base, rtol=0, atol=5e-5)


def test_the_hybrid_models_base_rtts_are_the_packet_simulators(packet_base: np.ndarray) -> None:
    """The hybrid model's flows 1-3 hold their packet flows' BaseRTTs (within 0.05 ms;
    flow 0, without a wait, reads its path's RTT to the hybrid's time step, 0.05 ms
    above). Its last two do not keep theirs: its queue later drains below their first packets'
    waits (BaseRTTs of 79.0 and 85.0 ms against 84.3 and 98.7), where the packets' does not."""
    base = np.asarray(simulate(_scenario(), "hybrid").base_rtt_s)
    np.testing.assert_allclose(base[1:4], packet_base[1:4], rtol=0, atol=5e-5)
