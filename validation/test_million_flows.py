"""A million flows for ten rounds on the round model, checked by symmetry.

K identical copies of a small scenario's flows on a link K times as fast with a buffer K
times as large (and the same base RTT) are, flow by flow, the small scenario: each flow
sees the same queueing delay (K times the queue over K times the rate) and the same share
of every loss. So every per-flow value of the million-flow run must be the small run's,
whatever the law does: an independent route to the result, not a stored number.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario

#: 2 flows x 2^19 copies: 1,048,576 flows
SMALL, COPIES = 2, 2**19
RATE_BPS = 2e6  # 2 flows on 250 packets/s: 12.5 packets each in 100 ms
BUFFER = 4  # packets for the 2 flows: slow start overflows it
#: bits of a data packet and of an ACK (the default sizes): the transmission times in d
PKT_ACK_BITS = 8000.0 + 320.0


def _scenario(flows: int, scale: int) -> tcpfluid.scenarios.Scenario:
    rate = RATE_BPS * scale
    # the same base RTT d in both: the core's transmission times (data and ACK) shrink
    # with its rate, so its propagation delay makes up the difference (rtt sets it)
    rtt = 0.1 + PKT_ACK_BITS * (1.0 / RATE_BPS - 1.0 / rate)
    return build_scenario(
        "qv-many-flows",
        flows=flows,
        groups=1,
        bandwidth=f"{rate!r}bps",
        access_bandwidth=f"{10.0 * RATE_BPS * COPIES!r}bps",
        rtt=f"{rtt!r}s",
        buffer=BUFFER * scale,
        duration="1s",
    ).with_algorithm("vegas")


def test_a_million_flows_are_the_small_run_flow_by_flow() -> None:
    small, big = _scenario(SMALL, 1), _scenario(SMALL * COPIES, COPIES)
    assert len(big.flows) == 1_048_576
    # rounding of the base RTT (propagation delay made up in another order of sums)
    assert big.base_rtts_s()[0] == pytest.approx(small.base_rtts_s()[0], rel=1e-12)
    a = tcpfluid.simulate(small, "rounds")
    b = tcpfluid.simulate(big, "rounds")
    assert b.time_s.size >= 10  # ten rounds
    # the runs' rounds end at the same times and each flow's window is the small run's;
    # tolerance: rounding of sums over a million flows (the queue, the overflow's shares)
    assert b.time_s == pytest.approx(a.time_s, rel=1e-9)
    w_small = np.tile(a.window_pkts, (COPIES, 1))
    np.testing.assert_allclose(b.window_pkts, w_small, rtol=1e-9)
    np.testing.assert_allclose(b.queue_pkts, COPIES * a.queue_pkts, rtol=1e-9)
    sa, sb = a.summary, b.summary
    for key in ("throughput_pps", "ss_exit_windows_pkts", "ss_exit_times_s", "losses"):
        va = np.array(sa.to_dict()[key], dtype=float)
        vb = np.array(sb.to_dict()[key], dtype=float)
        np.testing.assert_allclose(vb, np.tile(va, COPIES), rtol=1e-9, err_msg=key)
    assert sb.to_dict()["ss_exit_rounds"][-1] == sa.to_dict()["ss_exit_rounds"][-1]
    assert sb.utilization == pytest.approx(sa.utilization, rel=1e-9)
    assert sb.jain_index == pytest.approx(1.0, rel=1e-12)  # identical flows
    # the flows' names are spelled out when read, and the last one is the millionth pair's
    assert b.flow_names[-1] == "S1048576-D1048576"
    assert b.summary.flows[-1].throughput_pps == pytest.approx(
        a.summary.flows[-1].throughput_pps, rel=1e-9
    )
