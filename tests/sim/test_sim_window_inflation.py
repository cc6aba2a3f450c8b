"""The window during fast recovery, counted packet by packet against RFC 6582 section 3.2
(docs/simulator.md, "Fast recovery").

RFC 6582 section 3.2: at the third duplicate ACK, ``ssthresh`` is set, the lost packet is
retransmitted and ``cwnd = ssthresh + 3`` (step 2); each further duplicate ACK adds one
(step 2); a partial ACK retransmits the next hole, deflates ``cwnd`` by the packets it
acknowledges and adds one back (step 3). A sender may have ``cwnd`` packets outstanding
(``snd_nxt - snd_una``).

The tiny path (``_simkit.two_link``): 1000-byte packets take 1 ms on the forward link F
(delay 10 ms), 40-byte ACKs 1 ms on the ACK link B (delay 5 ms), so one packet's round
trip is 1 + 10 + 1 + 5 = 17 ms. A law keeps the window at 10 packets and halves it to 5 at
a loss. The 10 packets of the first window reach F at t = 0 together: F holds the one it
sends and ``buffer`` queued, and drops the rest (the test checks the drop count). The
expected counts below follow from these rules by hand.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.sim import PacketResult, simulate_packets


class _Halving(FixedWindow):
    """Window 10 packets; 5 after a loss."""

    def on_loss(self, state: Any, index: Any, kind: int, cwnd: Any) -> Any:
        return np.full(np.asarray(index).shape[0], self.w / 2)


def _run(buffer: float, duration: float, fast_recovery: str = "newreno") -> PacketResult:
    sc = two_link(buffer=buffer, duration=duration)
    return simulate_packets(sc, laws={"f": _Halving(10.0)}, fast_recovery=fast_recovery)


@pytest.mark.parametrize("fast_recovery", ["newreno", "reno", "reno-exit"])
def test_one_drop_inflates_by_every_duplicate_ack(fast_recovery: str) -> None:
    # buffer 8: packets 0-8 pass, packet 9 is dropped. The ACKs of 0-8 (new ACKs) each
    # release one packet: 10-18 are sent, 10 outstanding. Packet 10 is sent at 17 ms and
    # reaches the receiver at 28 ms, one packet a millisecond after it; the third
    # duplicate ACK (packet 12) is back at 30 + 6 = 36 ms: fast retransmit of 9, ssthresh
    # 5, cwnd = 5 + 3 = 8 < 10 outstanding. The duplicate ACKs of 13-18 (by 42 ms) raise
    # cwnd to 9, 10, 11, 12, 13, 14: new packets 19, 20, 21, 22 (4). The retransmission
    # leaves F at 37 ms and its ACK is back at 37 + 10 + 1 + 5 = 53 ms. At 48 ms:
    # 10 + 9 + 1 + 4 = 24 packets sent (inflating by the duplicate ACKs after the
    # retransmission only would send one new packet, 21 in all). ns-2's Reno inflates the
    # same way (dupwnd_ = numdupacks_ at the retransmission, one more per duplicate).
    res = _run(8, 0.048, fast_recovery)
    f = res.flows[0]
    assert res.link("F").drops_total == 1
    assert f.fast_retransmits == 1 and f.timeouts == 0
    assert f.loss_t_s[0] == pytest.approx(0.036)
    assert f.retransmissions == 1
    assert f.sent_pkts == 24


def test_partial_ack_deflates_by_the_packets_it_acknowledges_plus_one() -> None:
    # buffer 7: packets 8 and 9 are dropped. The ACKs of 0-7 release 10-17 (10
    # outstanding, 8-17). The third duplicate ACK (packet 12) at 36 ms: retransmit 8,
    # cwnd = 5 + 3 = 8. The duplicate ACKs of 13-17 raise cwnd to 9 .. 13: new packets
    # 18, 19, 20 (outstanding 8-20 = 13). At 53 ms the ACK of the retransmitted 8
    # acknowledges one packet (ACK 9 < recover = 18: partial): retransmit 9, cwnd =
    # 13 - 1 + 1 = 13 > 12 outstanding (9-20): new packet 21. Packets 18-20 reached the
    # receiver at 50-52 ms, after the retransmitted 8 (47 ms): three duplicate ACKs of 9
    # at 56-58 ms raise cwnd to 14, 15, 16: new packets 22, 23, 24. At 60 ms:
    # 10 + 8 + 1 + 3 + 1 + 1 + 3 = 27 packets sent, 2 of them retransmissions. (A full
    # deflation to ssthresh at the partial ACK, ns-2's NewReno with
    # partial_window_deflation_ 0, would send 23; no new packet before it, 20.)
    res = _run(7, 0.060)
    f = res.flows[0]
    assert res.link("F").drops_total == 2
    assert f.fast_retransmits == 1 and f.timeouts == 0
    assert f.retransmissions == 2
    assert f.sent_pkts == 27
