"""A loss event ends in a timeout where the packet sender's NewReno recovery cannot repair
its holes before the retransmission timer (docs/round-model.md, "Finite buffer"): the rule
by hand, and the mechanism against the packet simulator, the independent route.

Three iTCP-Vegas flows on 1.73 Mb/s (216 packets/s of 1000 bytes) × 272.5 ms, a 59-packet
pipe, with an 11-packet buffer (0.19 BDP; hold-out seed 87's scenario 4). Each overflow
costs a flow about three packets of one window; NewReno repairs one hole per RTT, and its
timer, restarted at the first partial ACK only, fires after max(0.2 s, SRTT + 4 RTTVAR),
less than the two RTTs the repair needs: the packets' fast retransmits end in timeouts
(37 and 26), the window restarts from 2 packets, and the link carries 0.73. With a SACK
recovery that repairs every hole in one RTT (``fast_recovery="ns2-fast"``, the switch in
the packets) no timeout is left and the packets carry 0.94, the round model's value
without the rule (0.96): the timeouts are the packets' loss of capacity.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid._rounds_physics import holes_outlast_timer, sender_rto
from tcpfluid.scenarios.topology import rtt_dumbbell

RATE_BPS, RTT_S, BUFFER_PKTS, N, DURATION_S = 1.73e6, 0.2725, 11.0, 3, 43.0
#: the hold-out benchmark's utilization tolerance (benchmarks/holdout.py, ``TOLERANCES``):
#: what the fluid layers promise for a bottleneck's utilization against the packets
REL_TOL = 0.10


def _scenario() -> tcpfluid.Scenario:
    return rtt_dumbbell(
        RATE_BPS, [RTT_S] * N, ["itcp-vegas"] * N, duration_s=DURATION_S,
        buffer_pkts=BUFFER_PKTS, packet_size_bytes=1000,
    )  # fmt: skip


def test_the_timer_and_the_repair_by_hand() -> None:
    # RTO = max(0.2 s, SRTT + 2 × the round's spread): 0.3 + 2 × 0.05 = 0.4 s; the floor
    assert sender_rto(0.3, 0.05, 0.2) == pytest.approx(0.4)
    assert sender_rto(0.05, 0.01, 0.2) == pytest.approx(0.2)
    # three holes at SRTT 0.3 s: the repair needs (3 - 1) × 0.3 = 0.6 s > 0.4 s, a timeout;
    # two holes need 0.3 s < 0.4 s, a fast recovery
    assert bool(holes_outlast_timer(30.0, 3.0, 0.3, 0.4, 3.0))
    assert not bool(holes_outlast_timer(30.0, 2.0, 0.3, 0.4, 3.0))
    # one hole in a window of five: four packets behind it bring three duplicate ACKs
    assert not bool(holes_outlast_timer(5.0, 1.0, 0.3, 0.4, 3.0))
    # three holes in a window of five leave two behind: no third duplicate ACK (a
    # timeout, however short the repair), but the one that Vegas's fine-grained check needs
    assert bool(holes_outlast_timer(5.0, 3.0, 0.05, 0.4, 3.0))
    assert not bool(holes_outlast_timer(5.0, 3.0, 0.05, 0.4, 1.0))
    # arrays, as the round model calls it
    got = holes_outlast_timer(np.array([30.0, 30.0]), np.array([3.0, 2.0]), 0.3, 0.4, 3.0)
    assert got.tolist() == [True, False]


@pytest.fixture(scope="module")
def packets() -> tuple[float, float, int, int]:
    """The packets' utilization with NewReno (timeouts, fast retransmits) and with the
    SACK recovery."""
    sc = _scenario()
    res = tcpfluid.simulate(sc, "packet")
    sack = tcpfluid.simulate(sc, "packet", fast_recovery="ns2-fast")
    flows = res.native.flows
    assert res.summary.utilization is not None and sack.summary.utilization is not None
    return (
        res.summary.utilization,
        sack.summary.utilization,
        sum(f.timeouts for f in flows),
        sum(f.fast_retransmits for f in flows),
    )


def test_the_packets_lose_capacity_to_newrenos_timeouts(
    packets: tuple[float, float, int, int],
) -> None:
    util, sack, timeouts, fast = packets
    assert timeouts >= fast / 2  # most fast retransmits end in a timeout
    # switched off in the packets (every hole repaired in one RTT): a fifth more carried
    assert sack > 1.2 * util


def test_round_model_follows_the_packets_with_the_rule_and_misses_them_without(
    packets: tuple[float, float, int, int],
) -> None:
    util, sack = packets[0], packets[1]
    sc = _scenario()
    on = tcpfluid.simulate(sc, "rounds", hole_timeouts=True).summary.utilization
    off = tcpfluid.simulate(sc, "rounds", hole_timeouts=False).summary.utilization
    assert on is not None and off is not None
    assert on == pytest.approx(util, rel=REL_TOL)
    # without the rule the round model is the SACK sender's, beyond the tolerance
    assert off > (1.0 + REL_TOL) * util
    assert off == pytest.approx(sack, rel=REL_TOL)


@pytest.mark.parametrize(
    ("value", "kind"), [("blue", ValueError), (1, TypeError), (None, TypeError)]
)
def test_hole_timeouts_takes_true_false_or_red(value: object, kind: type) -> None:
    with pytest.raises(kind, match=rf"hole_timeouts must be True, False or 'red', got {value!r}"):
        tcpfluid.simulate(_scenario(), "rounds", hole_timeouts=value)
