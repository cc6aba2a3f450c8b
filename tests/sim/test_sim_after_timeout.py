"""Duplicate ACKs after a retransmission timeout (RFC 6582 section 4; ns-2's ``bugFix_``).

After a timeout the sender goes back to its first unacknowledged packet and sends again
packets the receiver may already hold; each of those brings a duplicate ACK that reports
no new loss. With ``timeout_recover=True`` the sender does as ns-2's ``Agent/TCP`` and
``Agent/TCP/Vegas`` (``bugFix_ true``, their default) and RFC 6582: no fast retransmit
until the cumulative ACK covers more than the highest packet sent before the timeout. The
default (``False``) is ns-2's ``bugFix_ false``.

The check is independent of the sender's bookkeeping: on a path whose only loss is the
bottleneck's drops and whose links keep packets in order, a duplicate ACK that starts a
loss event must follow a packet dropped since the flow's previous loss event. A loss event
with no drop between it and the one before is spurious.
"""

from __future__ import annotations

import pytest
from _simkit import spurious_fast_retransmits as _spurious

from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import simulate_packets


@pytest.mark.parametrize("law, buffer", [("reno", 20), ("vegas", 10)])
def test_no_fast_retransmit_from_the_go_back_after_a_timeout(law: str, buffer: int) -> None:
    # one flow, 10 Mb/s x 100 ms: its slow start overflows the buffer by far more than
    # NewReno repairs before its timer fires, so it times out and goes back
    sc = rtt_dumbbell(10e6, [0.1], [law], duration_s=60.0, buffer_pkts=buffer)
    # a fine trace, so that the drop counter is read within a millisecond of each event
    careful = simulate_packets(sc, sample_interval_s=0.001, timeout_recover=True)
    loose = simulate_packets(sc, sample_interval_s=0.001)
    assert careful.flows[0].timeouts >= 1
    # the default: the go-back's duplicate ACKs start loss events that no drop explains
    assert _spurious(loose) >= 1
    assert _spurious(careful) == 0
    assert careful.flows[0].fast_retransmits < loose.flows[0].fast_retransmits


def test_timeout_recover_is_checked() -> None:
    sc = rtt_dumbbell(10e6, [0.1], ["reno"], duration_s=5.0, buffer_pkts=20)
    with pytest.raises(TypeError, match="timeout_recover"):
        simulate_packets(sc, timeout_recover=1)  # type: ignore[arg-type]
