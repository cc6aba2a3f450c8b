"""A loss event's holes are repaired at the RTTs after the flows' cuts, not at the queue the
overflow filled: the packet senders recover without a timeout where the hybrid model,
timing the repair with its last RTT sample, times out (docs/ode-model.md, "Losses as a
sender sees them", *Measured, not kept: the repairs timed by the round's least RTT*).

Ten TCP-Ho flows start together on 50 Mb/s (4,167 packets/s of 1500 bytes) × 40 ms, a
167-packet pipe, behind a 70-packet buffer (0.42 BDP). Their quick shifts overflow the
buffer together at about 27 packets each; every flow loses 4-5 packets of one window. In
the packet simulator every flow takes a fast retransmit and none a timeout: NewReno
repairs one hole per RTT after the flows' cuts have lowered the queue (RTTs 45-51 ms,
the queue 23-45 packets), within the 0.2-s timer, and the flows go on from three quarters
of their windows (utilization 0.85 over 1.5 s). Timed with the RTT of the full queue
(57 ms), 4.7 holes outlast the timer, every hybrid flow times out at once, sits out the
timer and restarts from 2 packets, and the link carries 0.41 (0.865 with the repair
timed by the round's least RTT, a rule not kept: it moves a report row to differ).

The numbers asserted are the packet simulator's on the same dumbbell
(``tcpfluid.simulate(sc, "packet")``): an independent route. The tolerance is the
hold-out benchmark's for utilization (``benchmarks/holdout.py``, ``TOLERANCES``).
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

N = 10
#: the hold-out benchmark's utilization tolerance: what the fluid layers promise
REL_TOL = 0.10


@pytest.fixture(scope="module")
def runs() -> tuple[tcpfluid.Result, tcpfluid.Result]:
    sc = rtt_dumbbell(
        50e6, [0.04] * N, ["tcp-ho"] * N, duration_s=1.5, buffer_pkts=70.0,
        packet_size_bytes=1500,
    )  # fmt: skip
    return tcpfluid.simulate(sc, "packet"), tcpfluid.simulate(sc, "hybrid")


def test_the_packet_senders_repair_their_holes_before_the_timer(
    runs: tuple[tcpfluid.Result, tcpfluid.Result],
) -> None:
    """The packets: every flow loses (a fast retransmit) and none times out (measured: 2
    fast retransmits a flow, 0 timeouts)."""
    packet, _ = runs
    assert all(int(f.fast_retransmits) >= 1 for f in packet.native.flows)
    assert sum(int(f.timeouts) for f in packet.native.flows) == 0


@pytest.mark.xfail(
    strict=True,
    reason="measured: the hybrid times the repair of 4.7 holes with its last RTT sample "
    "(57 ms, the full queue), every flow times out together and the link carries 0.409 "
    "against the packets' 0.850 (0.865 with the round's least RTT, not kept)",
)
def test_the_hybrid_flows_recover_without_a_timeout_and_carry_what_the_packets_carry(
    runs: tuple[tcpfluid.Result, tcpfluid.Result],
) -> None:
    """The hybrid within 10 % of the packets' utilization, and no flow's window falls to
    the 2-packet restart after its first loss event (measured: all ten do, 0.409)."""
    packet, hybrid = runs
    util = packet.summary.utilization
    assert hybrid.summary.utilization == pytest.approx(util, rel=REL_TOL)
    for f in hybrid.native.hybrid.flows:
        t = np.asarray(f.round_t_s)
        w = np.asarray(f.round_next_cwnd_pkts)
        first = float(np.asarray(f.loss_t_s)[0])
        assert w[t > first].min() > 2.5
