"""Lock-out at a small buffer: the flows locked out are the last to reach the queue.

Fourteen iTCP-Vegas flows start together on 1.28 Mb/s × 12.8 ms (1500-byte packets: 1.4
packets of bandwidth-delay product) with a 3-packet drop-tail buffer, 15 s (the shape of
hold-out seed 1's scenario 12 without its leaving flows). Every flow sends its initial
window of 2 packets at once; the access links are ten times faster than the bottleneck, so
the flows' first packets reach the queue side by side, in the order the flows start (ties:
the flows' order), then their second packets. The queue keeps the first few; the flows
later in that order lose their whole window, get no duplicate ACK and no RTT sample, time
out after RFC 6298's initial 1 s, and each retransmission meets the queue the others keep
full while the timer doubles: they deliver nothing in 15 s (docs/fluid-promises.md,
"Lock-out at small buffers").

The switch-off experiments, in the packet simulator:

- the flows start 1 µs apart in reverse order (the last flow first): the per-flow packet
  counts are reversed exactly, so who is locked out is set by the arrival order at the
  first overflow, not by a flow's index or the seed;
- the retransmission timer without its 1-s first value and its backoff (``initial_rto_s``
  and ``max_rto_s`` at the 0.2-s floor): every flow delivers and Jain's index goes from
  0.469 to 0.937.

Both fluid engines lock out the flows whose first packets come after the first four
(docs/round-model.md, "Lock-out at a simultaneous start"): the round model carries flows
0-3 (400 packets each) and none of flows 4-13, where the packets' flows 4-7 win a place
with a retransmission. In the hybrid model the four keep a packet of their first window
(the first windows lose their last packets first, as in the packets), but its growth-first
share then deals the later slow-start overflows as whole bursts from the first flow on, so
flows 2 and 3 carry the link (663 and 886 packets, flows 0 and 1 23 and 25). Dealing the
hybrid's overflows from the last flow was measured and not kept (docs/fluid-promises.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.results import Result
from tcpfluid.scenarios import Scenario, rtt_dumbbell

N_FLOWS = 14
DURATION_S = 15.0
#: the flows that keep a place at the first overflow or win one with a retransmission
#: (measured: 73-380 packets each); the others deliver nothing
SURVIVORS = 8


def _scenario(reverse: bool = False) -> Scenario:
    starts = [1e-6 * (N_FLOWS - 1 - i) if reverse else 0.0 for i in range(N_FLOWS)]
    return rtt_dumbbell(
        1.28e6,
        [0.0128] * N_FLOWS,
        ["itcp-vegas"] * N_FLOWS,
        duration_s=DURATION_S,
        buffer_pkts=3,
        start_s=starts,
        packet_size_bytes=1500,
    )


def _delivered(res: Result) -> np.ndarray:
    """Packets each flow delivered: its throughput over its active time."""
    return np.array(
        [
            (f.throughput_pps or 0.0) * (DURATION_S - flow.start_s)
            for f, flow in zip(res.summary.flows, res.scenario.flows, strict=True)
        ]
    )


@pytest.fixture(scope="module")
def together() -> Result:
    return simulate(_scenario(), "packet", seed=1)


def test_packet_flows_last_in_the_arrival_order_are_locked_out(together: Result) -> None:
    delivered = _delivered(together)
    flows = together.native.flows
    # the first flows in the order deliver; the rest lose their whole initial window
    # and never get a packet through: timeouts only (1, 3, 7 and 15 s), no fast retransmit
    assert delivered[:SURVIVORS].min() > 50.0
    assert delivered[SURVIVORS:].max() == 0.0
    assert all(int(f.fast_retransmits) == 0 for f in flows[SURVIVORS:])
    assert all(int(f.timeouts) >= 3 for f in flows[SURVIVORS:])


def test_packet_reversed_start_order_reverses_who_is_locked_out(together: Result) -> None:
    reversed_run = simulate(_scenario(reverse=True), "packet", seed=1)
    np.testing.assert_allclose(_delivered(reversed_run), _delivered(together)[::-1], rtol=1e-9)


def test_packet_lockout_goes_without_the_timer_backoff() -> None:
    # switched off: no 1-s first timer, no doubling (every timeout waits the 0.2-s floor)
    res = simulate(_scenario(), "packet", seed=1, initial_rto_s=0.2, max_rto_s=0.2)
    delivered = _delivered(res)
    assert delivered.min() > 50.0
    jain = res.summary.jain_index
    # measured 0.937 (0.469 with the backoff): no flow is far below the others
    assert jain is not None and jain > 0.9


@pytest.mark.xfail(
    strict=True,
    reason="the hybrid model locks out flows 4-13 at the start (their first packets come "
    "after the first four), and its growth-first share deals the four survivors' later "
    "slow-start overflows as whole bursts from flow 0 on, so flows 2 and 3 carry the link "
    "(663 and 886 packets in 15 s; flows 0 and 1 23 and 25, flows 4-13 none) where the "
    "packets' first eight do (73-380 each; flows 8-13 none); dealing it from the last flow "
    "was measured and not kept (docs/fluid-promises.md, 'Lock-out at small buffers')",
)
def test_hybrid_locks_out_the_flows_the_packets_lock_out(together: Result) -> None:
    hybrid = _delivered(simulate(_scenario(), "hybrid"))
    carrying = hybrid > 0.01 * hybrid.sum()
    expected = _delivered(together) > 0.01 * _delivered(together).sum()
    np.testing.assert_array_equal(carrying, expected)
