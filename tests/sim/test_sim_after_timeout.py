"""Duplicate ACKs after a retransmission timeout (RFC 6582 section 4; ns-2's ``bugFix_``).

After a timeout the sender goes back to its first unacknowledged packet and sends again
packets the receiver may already hold; each of those brings a duplicate ACK that reports
no new loss. With ``timeout_recover=True`` the sender does as ns-2's ``Agent/TCP`` and
``Agent/TCP/Vegas`` (``bugFix_ true``, their default) and RFC 6582: no fast retransmit
until the cumulative ACK covers more than the highest packet sent before the timeout (the
default). ``False`` is ns-2's ``bugFix_ false``.

The check is independent of the sender's bookkeeping: on a path whose only loss is the
bottleneck's drops and whose links keep packets in order, a duplicate ACK that starts a
loss event must follow a packet dropped since the flow's previous loss event. A loss event
with no drop between it and the one before is spurious.
"""

from __future__ import annotations

from typing import Any

import pytest
from _simkit import spurious_fast_retransmits as _spurious

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import simulate_packets


@pytest.mark.parametrize("law, buffer", [("reno", 20), ("vegas", 10)])
def test_no_fast_retransmit_from_the_go_back_after_a_timeout(law: str, buffer: int) -> None:
    # one flow, 10 Mb/s x 100 ms: its slow start overflows the buffer by far more than
    # NewReno repairs before its timer fires, so it times out and goes back
    sc = rtt_dumbbell(10e6, [0.1], [law], duration_s=60.0, buffer_pkts=buffer)
    # a fine trace, so that the drop counter is read within a millisecond of each event
    careful = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=True)
    loose = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=False)
    assert careful.flows[0].timeouts >= 1
    # without bugFix_: the go-back's duplicate ACKs start loss events that no drop explains
    assert _spurious(loose) >= 1
    assert _spurious(careful) == 0
    assert careful.flows[0].fast_retransmits < loose.flows[0].fast_retransmits


def test_the_default_sender_is_ns2s_with_bug_fix() -> None:
    # ns-2's Agent/TCP defaults to bugFix_ true: the default run is the timeout_recover=True
    # run, loss by loss, and not the go-back sender's (which takes spurious fast retransmits)
    sc = rtt_dumbbell(10e6, [0.1], ["reno"], duration_s=20.0, buffer_pkts=20)
    default = simulate_packets(sc, sample_interval_s=0.001)
    careful = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=True)
    loose = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=False)
    f, c, g = default.flows[0], careful.flows[0], loose.flows[0]
    assert list(f.loss_t_s) == list(c.loss_t_s) and list(f.loss_kind) == list(c.loss_kind)
    assert f.delivered_pkts == c.delivered_pkts
    assert list(f.loss_t_s) != list(g.loss_t_s)


def test_timeout_recover_is_checked() -> None:
    sc = rtt_dumbbell(10e6, [0.1], ["reno"], duration_s=5.0, buffer_pkts=20)
    with pytest.raises(TypeError, match="timeout_recover"):
        simulate_packets(sc, timeout_recover=1)  # type: ignore[arg-type]


def test_the_go_back_leaves_ssthresh_where_the_timeout_set_it() -> None:
    # ns-2's Reno and NewReno agents (bugFix_ true): the timeout sets ssthresh to half the
    # window (TcpAgent::slowdown, at least 2 packets), and the go-back's duplicate ACKs
    # cut nothing more, so the flow slow-starts back up to that ssthresh. One Reno flow,
    # 20 Mb/s x 200 ms (500 packets), a 100-packet buffer: the slow start overshoots by
    # hundreds of packets, more holes than NewReno repairs before its timer fires
    sc = rtt_dumbbell(20e6, [0.2], ["reno"], duration_s=8.0, buffer_pkts=100)
    res = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=True)
    loose = simulate_packets(sc, timeout_recover=False)  # ns-2's bugFix_ false
    f = res.flows[0]
    timeout = 3
    first = list(f.loss_kind).index(timeout)
    after = f.round_t_s > f.loss_t_s[first]
    # ssthresh after the timeout: half the window it cut, and the window slow-starts
    # back up to it (a fifth of the path's 500 packets within the run)
    expected = max(f.loss_cwnd_before_pkts[first] / 2.0, 2.0)
    assert expected > 50
    assert f.round_ssthresh_pkts[after][0] == expected
    assert f.round_cwnd_pkts[after].max() >= expected
    # every later loss event follows a drop at the bottleneck (none from the go-back)
    assert _spurious(res) == 0
    # without bugFix_ the go-back's duplicate ACKs cut ssthresh to the
    # 2-packet floor
    g = loose.flows[0]
    t_to = g.loss_t_s[list(g.loss_kind).index(timeout)]
    assert g.round_ssthresh_pkts[g.round_t_s > t_to + 0.5][0] == 2.0


def test_reno_flows_keep_the_link_after_a_slow_start_overshoot_with_bug_fix() -> None:
    # four Reno flows, 20 Mb/s x 200 ms (500 packets) with a 900-packet buffer: every
    # flow's slow start overshoots, times out and goes back. With ns-2's bugFix_ the flows
    # slow-start back to half the window (ssthresh 128-192 packets) and keep the link
    # busy, as the fluid engines (independent route: their loss events take no cut from a
    # go-back) predict; the go-back's cuts of the sender without it (bugFix_ false) take two
    # of the four flows' ssthresh to the 2-packet floor, and they regrow one packet per
    # RTT (the other two flows take part of what they leave: 0.91 of the link against
    # 0.95 with bugFix_)
    sc = rtt_dumbbell(20e6, [0.2] * 4, ["reno"] * 4, duration_s=60.0, buffer_pkts=900)
    careful = simulate_packets(sc, timeout_recover=True)
    loose = simulate_packets(sc, timeout_recover=False)

    def floor_flows(res: Any) -> int:
        return sum(float(min(f.round_ssthresh_pkts[f.round_t_s > 5.0])) <= 2.0 for f in res.flows)

    assert floor_flows(careful) == 0
    assert floor_flows(loose) >= 1
    packets = careful.summary.utilization
    assert loose.summary.utilization < packets
    for engine in ("rounds", "hybrid"):
        fluid = tcpfluid.simulate(sc, engine).summary.utilization
        assert abs(packets - fluid) <= 0.10 * packets  # the hold-out's tolerance
