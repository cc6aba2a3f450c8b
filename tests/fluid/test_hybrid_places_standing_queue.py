"""The hybrid model's placed flows read their places in a slow-start round only if the
round's queue empties (docs/ode-model.md, "Places in slow start: in the rounds whose queue
empties too").

Twenty-one TCP-Ho flows start together on 227 Mb/s (28,376 packets/s of 1000 bytes) ×
47.3 ms behind a 557-packet buffer (0.41 BDP; hold-out seed 121's scenario 43 before its
joins). Their quick shifts pass the pipe at about 65 packets each; from then on the queue
stands through every round and each flow's packets meet the whole ramp the round's growth
makes: in the round at window 91 the packet senders read RTTs of 54.0-60.7 ms (the first
flow) to 54.7-61.4 ms (the last), their throughput interval falls below round k − 2's,
and every one of them leaves the quick shift there, before any loss. With the place
offsets of an emptying queue in that round the hybrid's flows read 54.8-58.2 ms, all stay
in the quick shift and grow 9 packets a round into the full buffer.

The numbers asserted are the packet simulator's on the same dumbbell
(``tcpfluid.simulate(sc, "packet")``): an independent route. The window tolerance is the
hold-out benchmark's for a settled window (``benchmarks/holdout.py``, ``TOLERANCES``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

N = 21
#: the hold-out benchmark's tolerance for a window
REL_TOL = 0.10


Exits = list[tuple[float, float] | None]


def _exits(flows: Any) -> Exits:
    """Each flow's first round out of slow start: (time, window), None if it has none."""
    out: list[tuple[float, float] | None] = []
    for f in flows:
        phase = np.asarray(f.round_phase)
        if not (phase > 0).any():
            out.append(None)
            continue
        i = int(np.argmax(phase > 0))
        out.append((float(np.asarray(f.round_t_s)[i]), float(np.asarray(f.round_cwnd_pkts)[i])))
    return out


@pytest.fixture(scope="module")
def exits() -> tuple[Exits, Exits]:
    sc = rtt_dumbbell(
        227.0095e6, [0.047290] * N, ["tcp-ho"] * N, duration_s=1.0, buffer_pkts=557.0,
        packet_size_bytes=1000,
    )  # fmt: skip
    packet = tcpfluid.simulate(sc, "packet")
    hybrid = tcpfluid.simulate(sc, "hybrid")
    assert all(len(f.loss_t_s) == 0 for f in packet.native.flows)  # no loss within 1 s
    return _exits(packet.native.flows), _exits(hybrid.native.hybrid.flows)


def test_every_packet_sender_leaves_the_quick_shift_at_one_window(
    exits: tuple[Exits, Exits],
) -> None:
    """The packets: all 21 flows leave the quick shift in one round, at 91.0 packets
    (measured 0.967-0.978 s)."""
    packet, _ = exits
    assert all(e is not None for e in packet)
    windows = np.array([e[1] for e in packet if e is not None])
    assert windows.max() - windows.min() < 1.0


def test_most_hybrid_flows_leave_it_with_the_packets(exits: tuple[Exits, Exits]) -> None:
    """The hybrid: at least half of the flows leave the quick shift in that round, at the
    packets' window within 10 % (measured 17 of 21 at 91.9 packets; none with places in
    every slow-start round)."""
    packet, hybrid = exits
    want = float(np.median([e[1] for e in packet if e is not None]))
    t_end = max(e[0] for e in packet if e is not None) + 0.05
    left = [e for e in hybrid if e is not None and e[0] <= t_end]
    assert len(left) >= N / 2
    assert [e[1] for e in left] == pytest.approx([want] * len(left), rel=REL_TOL)
