"""A round's growth in the hybrid model is the law's rule exactly, whatever the time step
(docs/ode-model.md, "The round's first packet"): a round's ACKs are those of the packets
its sender had sent when the round before it ended, so a round that adds one packet
(``incr = 1/w``, ``cap = w + 1``) gets w ACKs and adds exactly one."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.algorithms import EnhancedVegas, Vegas
from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE
from tcpfluid.fluid import simulate_hybrid

D = 0.0992  # s


@pytest.mark.parametrize("next_round", [False, True])
@pytest.mark.parametrize("steps_per_rtt", [256, 1024])
def test_a_vegas_round_below_alpha_adds_exactly_one_packet(steps_per_rtt, next_round) -> None:
    """Vegas below α (α = 10⁴ packets: every congestion-avoidance round is a +1 round, the
    Quick Vegas paper eq 2) on 1000 packets/s × 99.2 ms with an unlimited buffer: the
    window the law sees grows by 1 from each round to the next, to 1e-9, at d/256 and
    d/1024 (by 0.99991 on average before at d/256), with either reading of the boundary
    step's ACKs."""
    r = simulate_hybrid(
        Vegas(alpha=1e4, beta=2e4, gamma=1.0),
        mu_pps=1000.0,
        base_rtt_s=[D],
        duration_s=3.0,
        dt_s=D / steps_per_rtt,
        boundary_ack_next_round=next_round,
    )
    f = r.flows[0]
    ca = np.flatnonzero(np.asarray(f.round_phase) == CONGESTION_AVOIDANCE)
    w = np.asarray(f.round_cwnd_pkts)[ca[1:]]  # from the second: its round began in CA
    assert w.size >= 15
    np.testing.assert_allclose(np.diff(w), 1.0, atol=1e-9)


def test_an_enhanced_vegas_cycle_stays_on_whole_packets() -> None:
    """One Enhanced Vegas flow on 487.5 packets/s × 9.92 ms (no buffer limit) cycles by
    ±1 a round from its whole-packet slow-start exit: every round it sees is a whole
    number of packets to 1e-9 (its +1 rounds added 0.99871 on average before, and its
    cycle's fraction sank round by round)."""
    r = simulate_hybrid(EnhancedVegas(), mu_pps=487.5, base_rtt_s=[0.00992], duration_s=3.0)
    f = r.flows[0]
    w = np.asarray(f.round_cwnd_pkts)
    assert np.ptp(w[-40:]) >= 2.0  # it cycles
    np.testing.assert_allclose(w, np.round(w), atol=1e-9)
