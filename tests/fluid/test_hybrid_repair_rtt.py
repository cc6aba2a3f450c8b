"""A loss event's holes are repaired at the RTTs after the flows' cuts, not at the queue the
overflow filled (docs/ode-model.md, "Losses as a sender sees them": the hybrid times the
repair with :func:`tcpfluid.fluid._hybrid_kernel.repair_rtt`).

Ten TCP-Ho flows start together on 50 Mb/s (4,167 packets/s of 1500 bytes) × 40 ms, a
167-packet pipe, behind a 70-packet buffer (0.42 BDP). Their quick shifts overflow the
buffer together at about 27 packets each; every flow loses 4-5 packets of one window. In
the packet simulator every flow takes a fast retransmit and none a timeout: NewReno
repairs one hole per RTT after the flows' cuts have lowered the queue (RTTs 45-51 ms,
the queue 23-45 packets), within the 0.2-s timer, and the flows go on from three quarters
of their windows (utilization 0.85 over 1.5 s). Timed with the RTT of the full queue
(57 ms), 4.7 holes outlasted the timer and every hybrid flow timed out at once (0.41).

The numbers asserted are the packet simulator's on the same dumbbell
(``tcpfluid.simulate(sc, "packet")``): an independent route. The tolerance is the
hold-out benchmark's for utilization (``benchmarks/holdout.py``, ``TOLERANCES``). The
repair RTT itself is checked against the queue worked by hand: the windows after the
cuts filling the link, ``sum w_k / (d_k + q / mu) = mu``, linear in ``q`` for one base
RTT and a quadratic for two.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid import _hybrid_kernel as K
from tcpfluid.scenarios import rtt_dumbbell

N = 10
#: the hold-out benchmark's utilization tolerance: what the fluid layers promise
REL_TOL = 0.10


@pytest.fixture(scope="module")
def runs() -> tuple[tcpfluid.Result, tcpfluid.Result]:
    sc = rtt_dumbbell(
        50e6, [0.04] * N, ["tcp-ho"] * N, duration_s=1.5, buffer_pkts=70.0,
        packet_size_bytes=1500,
    )  # fmt: skip
    return tcpfluid.simulate(sc, "packet"), tcpfluid.simulate(sc, "hybrid")


def test_the_packet_senders_repair_their_holes_before_the_timer(
    runs: tuple[tcpfluid.Result, tcpfluid.Result],
) -> None:
    """The packets: every flow loses (a fast retransmit) and none times out (measured: 2
    fast retransmits a flow, 0 timeouts)."""
    packet, _ = runs
    assert all(int(f.fast_retransmits) >= 1 for f in packet.native.flows)
    assert sum(int(f.timeouts) for f in packet.native.flows) == 0


def test_the_hybrid_flows_recover_without_a_timeout_and_carry_what_the_packets_carry(
    runs: tuple[tcpfluid.Result, tcpfluid.Result],
) -> None:
    """The hybrid within 10 % of the packets' utilization, and no flow's window falls to
    the 2-packet restart after its first loss event (measured: none does, 0.865; timed
    with the full queue's RTT all ten did, 0.409)."""
    packet, hybrid = runs
    util = packet.summary.utilization
    assert hybrid.summary.utilization == pytest.approx(util, rel=REL_TOL)
    for f in hybrid.native.hybrid.flows:
        t = np.asarray(f.round_t_s)
        w = np.asarray(f.round_next_cwnd_pkts)
        first = float(np.asarray(f.loss_t_s)[0])
        assert w[t > first].min() > 2.5


MU = 50e6 / (8 * 1500)  # packets/s
D = 0.04  # s


def _flows(windows: list[float], d: list[float], pending: list[bool]) -> np.ndarray:
    """The kernel's per-flow state of flows sending ``windows`` over base RTTs ``d`` at a
    full queue, those ``pending`` with losses their senders have not yet reacted to."""
    ff = np.zeros((len(windows), K.N_FLOW_ROWS))
    ff[:, K.F_D] = d
    ff[:, K.F_W] = windows
    ff[:, K.F_STARTED] = 1.0
    ff[:, K.F_STOP] = np.inf
    ff[:, K.F_FIRST_DROP] = np.where(pending, 0.5, np.inf)
    ff[:, K.F_LAST_RTT] = np.asarray(d) + 70.0 / MU  # the full buffer's RTT
    return ff


def test_every_flow_cuts_the_repairs_see_the_queue_the_cut_windows_keep() -> None:
    """Ten flows of one base RTT fill pipe and buffer (236.7 packets) and all lost: each
    cut to 3/4 (TCP-Ho's fast retransmit), the windows keep ``0.75 × 236.7 − 166.7 =
    10.8`` packets queued, an RTT of 42.6 ms, not the full queue's 56.8 ms; 3.7 further
    holes one per RTT then take 158 ms, within the 0.2-s timer (at 56.8 ms, 210 ms)."""
    w = (MU * D + 70.0) / 10
    ff = _flows([w] * 10, [D] * 10, [True] * 10)
    q = 0.75 * 10 * w - MU * D
    rtt = K.repair_rtt(ff, 0, 0.6, 0.75 * w, MU, 70.0, 0.0)
    assert rtt == pytest.approx(D + q / MU, rel=1e-9)
    assert rtt == pytest.approx(0.0426, abs=5e-5)
    assert not K.holes_outlast_timer(w, 4.7, rtt, 0.2, 3.0)
    assert K.holes_outlast_timer(w, 4.7, D + 70.0 / MU, 0.2, 3.0)


def test_a_flow_that_loses_alone_repairs_at_the_queue_the_others_keep() -> None:
    """One flow of ten lost: the nine others keep their windows, the queue falls by its own
    cut only, ``236.7 − 0.25 × 23.7 − 166.7 = 64.1`` packets."""
    w = (MU * D + 70.0) / 10
    ff = _flows([w] * 10, [D] * 10, [True] + [False] * 9)
    q = 10 * w - 0.25 * w - MU * D
    assert K.repair_rtt(ff, 0, 0.6, 0.75 * w, MU, 70.0, 0.0) == pytest.approx(D + q / MU, rel=1e-9)


def test_two_base_rtts_the_queue_is_the_root_of_the_quadratic() -> None:
    """Two flows of 40 and 120 ms, both cut to half: ``w1 / (d1 + x) + w2 / (d2 + x) = mu``
    with ``x = q / mu`` is ``mu x^2 + (mu (d1 + d2) − w1 − w2) x + mu d1 d2 − w1 d2 − w2 d1
    = 0``, its larger root."""
    d1, d2 = 0.04, 0.12
    w1, w2 = 300.0, 500.0
    ff = _flows([w1, w2], [d1, d2], [True, True])
    ff[:, K.F_LAST_RTT] = [d1 + 0.05, d2 + 0.05]
    c1, c2 = 0.5 * w1, 0.5 * w2
    a, b, c = MU, MU * (d1 + d2) - c1 - c2, MU * d1 * d2 - c1 * d2 - c2 * d1
    x = (-b + np.sqrt(b * b - 4 * a * c)) / (2 * a)
    assert x > 0.0
    assert K.repair_rtt(ff, 0, 0.6, c1, MU, 1000.0, 0.0) == pytest.approx(d1 + x, rel=1e-9)
    # the cut windows no longer fill the link: the queue empties, the base RTT
    ff[:, K.F_W] = [100.0, 200.0]
    assert K.repair_rtt(ff, 0, 0.6, 50.0, MU, 1000.0, 0.0) == pytest.approx(d1, rel=1e-12)


def test_cross_traffic_keeps_its_share_of_the_link_after_the_cuts() -> None:
    """One flow of 11 packets over 58 ms halves beside cross traffic of 76 of the link's
    141 packets/s: ``5.5 / (d + x) + 76 = 141`` gives ``x = 5.5 / 65 − d`` = 26.6 ms of
    queue, more than the 2-packet buffer's 14.2 ms, so the queue stays full and the repairs
    see the last sample's RTT; without the cross traffic the cut window no longer fills the
    link and they see the base RTT."""
    mu, d, buf = 141.0, 0.058, 2.0
    ff = _flows([11.0], [d], [True])
    ff[:, K.F_LAST_RTT] = d + buf / mu
    assert 5.5 / 65.0 - d > buf / mu
    assert K.repair_rtt(ff, 0, 0.6, 5.5, mu, buf, 76.0) == pytest.approx(d + buf / mu, rel=1e-9)
    assert K.repair_rtt(ff, 0, 0.6, 5.5, mu, buf, 0.0) == pytest.approx(d, rel=1e-12)
    # a cross rate that leaves the cut window a standing queue inside the buffer
    x = 5.5 / (mu - 60.0) - d
    assert 0.0 < x < 30.0 / mu
    ff[:, K.F_LAST_RTT] = d + 30.0 / mu
    assert K.repair_rtt(ff, 0, 0.6, 5.5, mu, 30.0, 60.0) == pytest.approx(d + x, rel=1e-9)
