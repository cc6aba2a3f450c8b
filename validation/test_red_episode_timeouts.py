"""A RED episode costs each TCP-Ho sender a timeout in the packets: NewReno's timer, not a stall.

Seven TCP-Ho flows on 76.5 Mb/s × 117 ms behind RED (a 547-packet buffer, min_th 136.75,
max_th 410.25, max_p 0.1, w_q 0.002; the shape of the hold-out's seed-1 scenario 35 with
every flow TCP-Ho), 40 s. After a timeout TCP-Ho ramps from 2 packets by Table 4's rule
and meets the link at +15-20 packets a round per flow; RED's average, 52 ms behind the
queue (``1/(w_q μ)``), crosses min_th when the queue is far above it, and the episode
drops about ten packets of every flow's window before the senders hear of the first. The
packet sender's NewReno (the default ``fast_recovery``, ns-2's ``Agent/TCP/Newreno`` with
its ``newreno_changes1_ 1``: RFC 6582's "impatient" timer, restarted at the first partial
ACK only) repairs one hole per RTT, so a window with ``H`` holes outlasts the timer when
``(H - 1) RTT > RTO``: with the 0.2 s floor of the timer and RTTs of 0.12-0.17 s, three
holes are enough. Nearly every fast retransmit is followed by a timeout 0.2-0.34 s later,
and the flows restart at 2 packets together: the cycle repeats every ~3.8 s.

The switch-off experiment: the timer's floor raised to RFC 6298's 1 s (``min_rto_s=1.0``),
which lets NewReno repair ``1 + 1.0/0.117 ≈ 9.5`` holes before it fires. Nearly all
timeouts vanish, the flows cut to 3/4 and do not restart from 2, the episodes shrink and the link
is used twice as well. The sender is not stalled during recovery (it sends new packets
on the inflated window, and the partial ACKs retransmit the next holes): the timer ends
the recovery.

The hybrid follows the packets here since its RED loss events are dated by the drop that
completes them (docs/ode-model.md, "RED episodes"); the round model since it applies the
packet sender's timer rule to loss events with RED's early drops (``hole_timeouts="red"``,
docs/round-model.md, "Mechanism switches").
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import Scenario, rtt_dumbbell
from tcpfluid.sim import PacketResult, simulate_packets

RTT_S = 0.117
N_FLOWS = 7
#: the packet sender's timer floor (``simulate_packets``'s default) and RFC 6298's
MIN_RTO_S = 0.2
RFC6298_MIN_RTO_S = 1.0


def _scenario() -> Scenario:
    return rtt_dumbbell(
        76.5e6,
        [RTT_S] * N_FLOWS,
        ["tcp-ho"] * N_FLOWS,
        duration_s=40.0,
        buffer_pkts=547,
        red=True,
    )


def _holes_allowed(min_rto_s: float) -> float:
    """The holes NewReno's impatient timer lets a sender repair in one recovery: the first
    at the fast retransmit, then one per RTT until the timer (restarted at the first
    partial ACK) fires: ``1 + RTO / RTT``, with the smallest RTO and the base RTT (the
    largest number the rule allows on this path)."""
    return 1.0 + min_rto_s / RTT_S


@pytest.fixture(scope="module")
def runs() -> dict[float, PacketResult]:
    sc = _scenario()
    return {m: simulate_packets(sc, min_rto_s=m) for m in (MIN_RTO_S, RFC6298_MIN_RTO_S)}


def _counts(res: PacketResult) -> tuple[np.ndarray, np.ndarray, int]:
    fr = np.array([f.fast_retransmits for f in res.flows])
    to = np.array([f.timeouts for f in res.flows])
    drops = next(lk for lk in res.links if lk.name == "R1-R2").drops_total
    return fr, to, drops


def test_every_fast_retransmit_ends_in_a_timeout(runs):
    fr, to, drops = _counts(runs[MIN_RTO_S])
    # each flow: as many timeouts as fast retransmits (one more fast retransmit may be
    # open at the end), and episodes enough to be a cycle (measured: 10-11 each in 40 s)
    assert np.all(to >= 8)
    assert np.all((fr - to >= 0) & (fr - to <= 1))
    # the holes an episode leaves in each flow's window are more than the timer lets
    # NewReno repair (measured: 720 drops over 70 episodes, about 10 a flow)
    assert drops / to.sum() > _holes_allowed(MIN_RTO_S)
    # the next loss of a fast retransmit is a timeout within two timer floors (measured:
    # 70 of the 70 fast retransmits, 0.20-0.34 s later)
    n_fast = n_timed_out = 0
    for f in runs[MIN_RTO_S].flows:
        kind = np.asarray(f.loss_kind)
        gap = np.diff(np.asarray(f.loss_t_s))
        after_fast = np.flatnonzero(kind[:-1] == 1)
        n_fast += after_fast.size
        n_timed_out += int(
            np.sum((kind[after_fast + 1] == 3) & (gap[after_fast] < 2.0 * MIN_RTO_S))
        )
    assert n_timed_out >= 0.9 * n_fast


def test_rfc6298_timer_floor_switches_the_timeouts_off(runs):
    fr0, to0, drops0 = _counts(runs[MIN_RTO_S])
    fr1, to1, drops1 = _counts(runs[RFC6298_MIN_RTO_S])
    # with a 1 s floor NewReno repairs up to 9.5 holes: the episodes (measured 3.3 holes
    # a fast retransmit) end in fast recovery; measured: 5 timeouts among 115 fast
    # retransmits, against 70 among 70
    assert drops1 / fr1.sum() < _holes_allowed(RFC6298_MIN_RTO_S)
    assert to1.sum() <= 0.1 * fr1.sum()
    assert to0.sum() >= 0.9 * fr0.sum()
    # without the restarts from 2 packets the episodes are smaller and the link is used
    # twice as well (measured: 720 -> 388 drops, utilization 0.433 -> 0.847)
    assert drops1 < 0.7 * drops0
    assert runs[RFC6298_MIN_RTO_S].summary.utilization > 1.5 * runs[MIN_RTO_S].summary.utilization


@pytest.mark.parametrize(
    "engine",
    [
        # the round model's timer rule on loss events with RED's early drops (its default
        # hole_timeouts="red"): 0.441; without the rule (hole_timeouts=False) 0.950
        "rounds",
        # the hybrid's RED event dated by the drop that completes its threshold: 0.414
        "hybrid",
    ],
)
def test_fluid_engines_pay_the_packets_episode(engine, runs):
    util = simulate(_scenario(), engine).summary.utilization
    ref = runs[MIN_RTO_S].summary.utilization
    # the hold-out's utilization tolerance: 10 % of the packet value
    assert abs(util - ref) <= 0.1 * ref
