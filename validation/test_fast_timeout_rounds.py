"""FAST in the packet simulator after a retransmission timeout: which ACKs end a round.

The packet sender ends a round when the cumulative ACK passes the round's first packet
(the Quick Vegas paper §4). A timeout goes back to the oldest unacknowledged packet and starts a
round there, while copies sent before the timeout may still be queued at the bottleneck: their
ACKs pass the round's first packet at once, so rounds end within a millisecond of the timeout
(and of each other), far less than the flows' 50-200 ms base RTTs. ns-2's FAST TCP module
(University of Melbourne / Caltech, ``tcp-fast.cc``) ends its measurement periods on time
instead (a period ends once an RTT has passed since the last one; the window is updated every
other period), so such rounds are an artefact of the sequence-number round marking after a
go-back. The tests pin the mechanism down from the public round and loss records: the round
ended right after a timeout is ended by the ACK of a packet sent before it (its send time is
the boundary time minus the round's RTT sample), and rounds a few milliseconds apart occur only
in a timeout's loss episode: after a timeout, before the flow's next fast retransmit of a
packet sent once (its retransmissions lost again and re-sent belong to the same episode). With
the sender of an earlier release (without ns-2's ``bugFix_``, before the retransmission timer's
gains were divided per window) most came within ten base RTTs of the timeout (47 of 51 short
rounds); with today's default sender, which the tests run, 183 of 274 short rounds come within
ten of the flow's base RTTs of a timeout (151 timeouts in all; measured on the run below).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tcpfluid.algorithms import LOSS_FAST, LOSS_TIMEOUT
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import FlowTrace, simulate_packets

#: Far below every flow's base RTT (50, 100, 200 ms): no round of a sender that marks rounds
#: by the ACK of a packet sent in the round can be this short.
_QUICK_S = 2e-3


@cache
def _flows() -> tuple[FlowTrace, ...]:
    """FAST on a scaled-down different-RTT scenario (the report's quick mode), which times
    out often: 150-packet buffer, 100 Mb/s, two flows per RTT group, 40 s."""
    sc = build_scenario(
        "qv-different-rtt", bandwidth="100Mbps", flows_per_group=2, duration="40s", buffer=150
    ).with_algorithm("fast")
    return tuple(simulate_packets(sc).flows)


def _timeouts(f: FlowTrace) -> np.ndarray:
    return np.asarray(f.loss_t_s)[np.asarray(f.loss_kind) == LOSS_TIMEOUT]


def test_the_round_ended_right_after_a_timeout_is_ended_by_a_copy_sent_before_it() -> None:
    quick = old_copy = 0
    for f in _flows():
        rt = np.asarray(f.round_t_s)
        for t in _timeouts(f):
            j = int(np.searchsorted(rt, t, side="right"))
            if j < rt.shape[0] and rt[j] - t < _QUICK_S:
                quick += 1
                # the round's acknowledged packets were sent at boundary time − RTT sample
                sent = rt[j] - float(np.asarray(f.round_rtt_min_s)[j])
                old_copy += int(sent < t)
    assert quick >= 10
    assert old_copy == quick


def test_rounds_milliseconds_apart_occur_only_in_a_timeouts_loss_episode() -> None:
    quick = in_episode = 0
    for f in _flows():
        rt = np.asarray(f.round_t_s)
        to = _timeouts(f)
        lt, kind = np.asarray(f.loss_t_s), np.asarray(f.loss_kind)
        gaps = np.diff(rt)
        for k in np.flatnonzero(gaps < _QUICK_S):
            quick += 1
            # a timeout before the short round, and no fast retransmit of a packet sent once
            # (a new loss episode) between them
            t = rt[k + 1]
            i = int(np.searchsorted(to, t)) - 1
            if i < 0:
                continue
            between = kind[(lt > to[i]) & (lt < t)]
            in_episode += int(not np.any(between == LOSS_FAST))
    assert quick >= 10
    assert in_episode == quick
