"""The retransmission timer with an RTT sample on every ACK (RFC 7323 appendix G).

RFC 6298's gains (1/8 for SRTT, 1/4 for RTTVAR) are meant for about one sample per round
trip. Taken on every ACK, they shrink RTTVAR by (3/4)^n over a window of n ACKs whose
samples are alike, so the timer falls to about the last RTT, and a round whose RTT is
longer than the one before, or whose ACKs come after a pause, ends in a timeout with
nothing lost. RFC 7323 appendix G divides the gains by the samples expected per window;
ns-2 takes one timed sample per window; either way RTTVAR keeps the round-to-round
variation.

The check is independent of the sender: on a path whose only loss is the bottleneck's
drops, a run with no drop has nothing to retransmit.
"""

from __future__ import annotations

from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import simulate_packets


def test_no_timeout_without_a_drop() -> None:
    # 35 iTCP-Vegas flows, 60 Mb/s x 287 ms, a buffer of 1.2 bandwidth-delay products
    # (a scaled-down hold-out scenario): the windows of the flows with the lowest
    # thresholds shrink round after round while the queue rises and falls by a few ms;
    # with RFC 6298's gains on every ACK the flows took 1152 timeouts and 1950 fast
    # retransmits in 80 s without one drop
    rate, rtt, n = 60e6, 0.287, 35
    bdp = rate / 8000.0 * rtt
    sc = rtt_dumbbell(
        rate, [rtt] * n, ["itcp-vegas"] * n, duration_s=80.0, buffer_pkts=round(1.2 * bdp)
    )
    res = simulate_packets(sc)
    assert sum(link.drops_total for link in res.links) == 0
    # the flows did queue (the timer's SRTT rose above the base RTT), so the check is not
    # one of an idle path
    assert res.links[0].max_queue_pkts > 100
    assert sum(f.timeouts for f in res.flows) == 0
    assert sum(f.fast_retransmits for f in res.flows) == 0
