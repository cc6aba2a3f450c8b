"""The hybrid model's flows read the RTTs of their places in a slow-start round's burst
(:func:`tcpfluid.fluid._rounds_physics.place_offset`; docs/ode-model.md, "Places in the
slow-start burst").

The numbers asserted are the packet simulator's on the same dumbbell, run here: each
flow's Δ as its Vegas sender computes it in the round that measures the doubling to 16
packets, and which flows double to 32 (docs/round-model.md, "Places in the burst").
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE
from tcpfluid.scenarios import rtt_dumbbell

#: 12 Vegas flows that start together, 200 Mb/s × 30 ms, unlimited buffer
N_FLOWS = 12


@pytest.fixture(scope="module")
def runs() -> tuple[object, object]:
    sc = rtt_dumbbell(200e6, [0.03] * N_FLOWS, ["vegas"] * N_FLOWS, duration_s=0.45)
    return tcpfluid.simulate(sc, "packet").native, tcpfluid.simulate(sc, "hybrid").native.hybrid


def _delta_at(flow: object, cwnd: float) -> float:
    """Δ of the flow's second round at window ``cwnd`` (Vegas grows every other round:
    the round that measures the doubling's packets); the hybrid's windows are a fluid's,
    within half a packet of the sender's."""
    cw = np.asarray(flow.round_cwnd_pkts)  # type: ignore[attr-defined]
    dl = np.asarray(flow.round_delta_pkts)  # type: ignore[attr-defined]
    ks = [k for k in range(1, cw.size) if abs(cw[k] - cwnd) < 0.5 and abs(cw[k - 1] - cwnd) < 0.5]
    assert ks, f"no second round at {cwnd}"
    return float(dl[ks[0]])


def test_each_flow_reads_the_queue_of_its_place_in_the_burst(runs) -> None:
    """Δ at 16 packets rises with the flow's place as in the packets (0.535 … 1.315):
    every flow's within 10 % of its packet flow's (the packets' first flows queue one
    packet less per flow than the model's cycles: 4 % at flow 0, under 2 % from flow 6).
    One Δ for all flows, as without places (0.92), is 72 % above the first packet flow's
    and 30 % below the last's."""
    packet, hybrid = runs
    want = np.array([_delta_at(f, 16.0) for f in packet.flows])  # type: ignore[attr-defined]
    model = np.array([_delta_at(f, 16.0) for f in hybrid.flows])  # type: ignore[attr-defined]
    assert model == pytest.approx(want, rel=0.10)
    assert np.all(np.diff(model) > 0)


def test_the_later_flows_leave_slow_start_first_as_in_the_packets(runs) -> None:
    """The flows that double to 32 packets are the packets' (the first seven; the last
    five stop at 16); without places all twelve stop together."""
    packet, hybrid = runs
    peak = [np.asarray(f.round_cwnd_pkts).max() for f in packet.flows]  # type: ignore[attr-defined]
    model = [np.asarray(f.round_cwnd_pkts).max() for f in hybrid.flows]  # type: ignore[attr-defined]
    doubled = set(np.flatnonzero(np.array(peak) >= 32.0).tolist())
    assert doubled == set(range(7))
    assert set(np.flatnonzero(np.array(model) >= 31.5).tolist()) == doubled


def test_a_loss_ends_the_places_until_the_law_is_in_slow_start_again() -> None:
    """Places are read in slow-start rounds only (docs/ode-model.md): the round a loss
    reaction begins is run in the phase the law chose at the loss, not the slow start
    of the round the loss ended. Two Vegas flows that start together on 10 Mb/s × 100 ms
    with a 12-packet buffer each lose once in slow start and enter congestion avoidance
    (measured at 11.36 and 11.55 packets, 15.15 and 15.40 at their losses: the boundary
    ACKs their last slow-start hold rounds left unused grow their doubling rounds,
    docs/ode-model.md, "The round's first packet"); the rounds after their losses end
    within 1 ms of each other on the one queue, so without places they read the same mean
    RTT (measured 0.01 ms apart; with the slow-start places of the round before the loss,
    ±1.2 ms around it: 2.45 ms apart)."""
    sc = rtt_dumbbell(10e6, [0.1, 0.1], ["vegas"] * 2, duration_s=2.0, buffer_pkts=12)
    res = tcpfluid.simulate(sc, "hybrid")
    rows = []
    for k, log in enumerate(res.rounds):
        lost = float(np.asarray(res.native.hybrid.flows[k].loss_t_s)[0])
        rows.append(int(np.flatnonzero(log.time_s > lost)[0]))
    a, b = (res.rounds[k] for k in range(2))
    assert abs(a.time_s[rows[0]] - b.time_s[rows[1]]) < 1e-3
    assert a.phase[rows[0]] == b.phase[rows[1]] == CONGESTION_AVOIDANCE
    assert abs(a.rtt_mean_s[rows[0]] - b.rtt_mean_s[rows[1]]) < 2e-4
