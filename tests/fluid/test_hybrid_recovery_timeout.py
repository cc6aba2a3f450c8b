"""A fast recovery that cannot repair its holes ends in a timeout, in the hybrid as in packets.

Two TCP-Ho flows on 3.73 Mb/s × 278 ms with a 229-packet buffer, the second joining at
20 s while the first holds about 130 packets: the joiner's slow-start ramp overflows the
queue at ~245 packets and loses a dozen packets in one window. The packet simulator's
NewReno sender has enough duplicate ACKs for a fast retransmit (window 245 → 184, the
law's 3/4), repairs one hole per RTT and times out when the timer restarted at the
first partial ACK fires, 1.54 s (one SRTT, ~0.77 s, plus one RTO) later; during the
recovery it keeps ~184 − holes packets in flight, so the queue stays at ~169 packets.
The hybrid model follows the same two events; the reading it replaces timed the flow
out at the detection (window 2, silent one RTO) and the queue drained at once.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios.topology import rtt_dumbbell

JOIN_S = 20.0


@pytest.fixture(scope="module")
def runs() -> dict[str, tcpfluid.Result]:
    sc = rtt_dumbbell(
        3.73e6,
        [0.278, 0.278],
        ["tcp-ho", "tcp-ho"],
        duration_s=40.0,
        buffer_pkts=229,
        start_s=[JOIN_S, 0.0],
        packet_size_bytes=1000,
    )
    return {eng: tcpfluid.simulate(sc, eng) for eng in ("packet", "hybrid")}


def _packet_events(r: tcpfluid.Result) -> tuple[float, float]:
    """The joiner's fast retransmit and the timeout that follows it (packet simulator)."""
    ft = r.native.flows[0]
    kinds = list(ft.loss_kind)
    fast = kinds.index(1.0)
    assert kinds[fast + 1] == 3.0  # the recovery ends in a timeout
    return float(ft.loss_t_s[fast]), float(ft.loss_t_s[fast + 1])


def test_the_recovery_ends_in_a_timeout_one_srtt_and_one_rto_after_the_fast_retransmit(
    runs: dict[str, tcpfluid.Result],
) -> None:
    fr_p, to_p = _packet_events(runs["packet"])
    loss_t = runs["hybrid"].native.hybrid.flows[0].loss_t_s
    assert loss_t.size >= 2
    # the same detection within one RTT, and the timeout the same time after it (10 %)
    assert abs(loss_t[0] - fr_p) < 0.278
    assert (loss_t[1] - loss_t[0]) == pytest.approx(to_p - fr_p, rel=0.10)


def test_the_flow_keeps_sending_at_its_cut_window_during_the_recovery(
    runs: dict[str, tcpfluid.Result],
) -> None:
    fr_p, to_p = _packet_events(runs["packet"])
    h = runs["hybrid"].native.hybrid
    fr_h, to_h = h.flows[0].loss_t_s[:2]
    # the fast retransmit's window: the law's 3/4 of the window it overflowed with
    f = h.flows[0]
    after = f.round_t_s > fr_h
    assert f.round_cwnd_pkts[after][0] == pytest.approx(0.75 * 245.3, rel=0.05)

    def mean_queue(r: tcpfluid.Result, a: float, b: float) -> float:
        t = np.asarray(r.time_s)
        sel = (t > a) & (t < b)
        return float(np.mean(np.asarray(r.queue_pkts)[sel]))

    # the second half of the recovery: the packets' queue stands at ~169 packets
    q_p = mean_queue(runs["packet"], 0.5 * (fr_p + to_p), to_p)
    q_h = mean_queue(runs["hybrid"], 0.5 * (fr_h + to_h), to_h)
    assert q_p > 150.0
    assert q_h == pytest.approx(q_p, rel=0.10)
