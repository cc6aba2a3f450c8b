"""RED drops a round's packets as they arrive, before they queue (docs/round-model-unequal-rtt.md,
"RED"): the queue, the round's RTTs and RED's own average see only the packets it lets in.
The rule by hand on the compiled round, and the mechanism against the packet simulator,
the independent route.

Ten Vegas flows start together on 10 Mb/s (1250 packets/s of 1000 bytes) × 8 ms, a
10-packet pipe, behind RED on a 10-packet buffer (thresholds 2.5 and 7.5 packets). Two
packets a flow already fill pipe and buffer, so the queue stands at the buffer and RED's
average climbs past ``max_th``: RED drops every arriving packet. When the round's queue was
made of every packet sent, RED's drops included, that queue stayed full while nothing got
through, the average never fell and the link carried nothing for the rest of the run: the
round model's utilization was 0.20 against the packets' 0.94 (the hybrid model, which drops
RED's share before the queue, 1.00).
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid import _rounds_kernel as rk
from tcpfluid.fluid._rounds_kernel import ClassKernel
from tcpfluid.scenarios.topology import rtt_dumbbell

RATE_BPS, RTT_S, BUFFER_PKTS, N, DURATION_S = 10e6, 0.008, 10.0, 10, 4.0
#: the hold-out benchmark's utilization tolerance (benchmarks/holdout.py, ``TOLERANCES``):
#: what the fluid layers promise for a bottleneck's utilization against the packets
REL_TOL = 0.10


def _round(admit: float, w0: float, w1: float) -> ClassKernel:
    """One round of one class on a 1000-packet/s link with a 10 ms base RTT (a 10-packet
    pipe) and a 20-packet buffer, RED letting in ``admit`` of the round's packets."""
    d, mu = np.array([0.01]), np.array([1000.0])
    ker = ClassKernel(
        1, 0, 1, d, d, mu, np.zeros(rk.RED_P + 1), model="average", spread=False,
        finite=True, reverse=False, cross=False, lag=0,
    )  # fmt: skip
    R = ker.R
    R[rk.MU_A], R[rk.INV_MU], R[rk.MUD], R[rk.B_TCP] = mu, 1.0 / mu, mu * d, 20.0
    R[rk.ADMIT] = admit
    w0_s, w1_s = np.array([w0]), np.array([w1])
    ker(np.zeros(1), np.zeros(1), w0_s, w1_s - w0_s, w1_s, 3)
    return ker


def test_only_the_packets_red_lets_in_queue_by_hand() -> None:
    # every packet let in: 30 packets over a 10-packet pipe leave 20 queued, none lost
    full = _round(1.0, 30.0, 30.0)
    assert full.R[rk.Q_1, 0] == pytest.approx(20.0)
    assert full.R[rk.LOST, 0] == 0.0
    # half of them dropped on arrival: 15 in flight, 5 queued, the round 5 ms longer
    half = _round(0.5, 30.0, 30.0)
    assert half.R[rk.Q_1, 0] == pytest.approx(5.0)
    assert half.R[rk.DURATION, 0] == pytest.approx(0.01 + 5.0 / 1000.0)
    # every packet dropped: nothing queues, the round is the base RTT
    none = _round(0.0, 30.0, 30.0)
    assert none.R[rk.Q_1, 0] == 0.0 and none.R[rk.Q_MAX, 0] == 0.0
    assert none.R[rk.DURATION, 0] == pytest.approx(0.01)
    # the growth burst is thinned too: 20 -> 40 packets, half let in, a 10-packet burst
    # on a 0-packet backlog (10 of 20 in flight at the start fill the pipe exactly)
    grow = _round(0.5, 20.0, 40.0)
    assert grow.R[rk.Q_MIN, 0] == pytest.approx(0.0)
    assert grow.R[rk.Q_MAX, 0] == pytest.approx(10.0)


def _scenario() -> tcpfluid.Scenario:
    return rtt_dumbbell(
        RATE_BPS, [RTT_S] * N, ["vegas"] * N, duration_s=DURATION_S, buffer_pkts=BUFFER_PKTS,
        red=True, packet_size_bytes=1000,
    )  # fmt: skip


def test_round_model_keeps_the_link_busy_behind_red_as_the_packets_do() -> None:
    """(Measured when the rule was written: the packets 0.939, the hybrid 1.000, the round
    model 0.993; with RED's drops queued, 0.200.)"""
    sc = _scenario()
    pk = tcpfluid.simulate(sc, "packet", seed=1).summary.utilization
    r = tcpfluid.simulate(sc, "rounds")
    assert r.summary.utilization == pytest.approx(pk, rel=REL_TOL)
    # a queue drains at the link's rate: no round with packets queued and none delivered
    # (what the collapse looked like: 8.8 packets queued, nothing delivered, from 1.1 s on)
    q = np.asarray(r.queue_pkts).ravel()
    thr = np.nansum(np.asarray(r.throughput_pps).reshape(-1, q.size), axis=0)
    assert not np.any((q > 1.0) & (thr <= 0.0))
