"""The TCP-Ho paper's §5.2 tables on the packet simulator: what sets the numbers the report
compares (sections ho-fairness and ho-friendliness).

Table 7 (Reno ×10 with Vegas ×10 on 10 Mb/s × 1 ms, 120-packet buffer): Reno keeps the
drop-tail buffer nearly full, and a Vegas flow that loses nothing holds a backlog in
[α, β] at that queueing delay q, so its throughput lies in [α/q, β/q] (Vegas's equilibrium,
the Quick Vegas paper's eq. (2), with the window's backlog w·(1 − d/RTT) = x·q). The paper's
Vegas throughput (120 kb/s) lies below α/q: ns-2's Vegas flows cannot have been loss-free
there, where the packet simulator's are (every loss falls on Reno's increments), which is
why the report's Vegas rows of Table 7 differ.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.engines import simulate
from tcpfluid.fairness import delivered_pkts
from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios._paper_tables import HO_MEASURE_FROM_S

ALPHA, BETA = 2.0, 4.0  # the laws' documented Vegas values (the Quick Vegas paper, §5)
MU_PPS = 10e6 / 8000.0  # 10 Mb/s of 1000-byte packets


@pytest.fixture(scope="module")
def reno_vegas():
    sc = build_scenario("ho-friendliness", algorithm="reno:10,vegas:10")
    res = simulate(sc, "packet")
    t = np.asarray(res.time_s)
    dl = delivered_pkts(t, res.throughput_pps)
    t0 = HO_MEASURE_FROM_S
    thr = (dl[:, -1] - np.array([np.interp(t0, t, row) for row in dl])) / (t[-1] - t0)
    q = np.asarray(res.queue_pkts, dtype=float)
    q = q[0] if q.ndim > 1 else q
    return {"thr_pps": thr, "queue_pkts": float(q[t > t0].mean()), "losses": res.summary.losses}


def test_vegas_flows_lose_nothing_where_reno_fills_the_buffer(reno_vegas):
    losses = reno_vegas["losses"]
    assert all(x > 0 for x in losses[:10])  # every Reno flow overflows the buffer
    assert all(x == 0 for x in losses[10:])  # no Vegas packet is ever dropped
    assert reno_vegas["queue_pkts"] > 0.75 * 120  # Reno keeps the buffer nearly full


def test_loss_free_vegas_throughput_is_its_band_over_the_queueing_delay(reno_vegas):
    # the closed form: x in [alpha / q, beta / q], q the mean queueing delay of the run;
    # 10 % either way for the queue's variation over the window (it is not constant)
    q_s = reno_vegas["queue_pkts"] / MU_PPS
    vegas = reno_vegas["thr_pps"][10:]
    assert np.all(vegas >= 0.9 * ALPHA / q_s)
    assert np.all(vegas <= 1.1 * BETA / q_s)


def test_the_papers_vegas_throughput_is_below_what_a_loss_free_vegas_holds(reno_vegas):
    # the paper's 120 kb/s per Vegas flow (Table 7, 10-10) is below alpha / q at the
    # queueing delay Reno sets here: a loss-free Vegas flow cannot hold so little
    paper_pps = published("004/table7/reno-vegas/10-10/vegas").value * 1e3 / 8000.0
    q_s = reno_vegas["queue_pkts"] / MU_PPS
    assert paper_pps < 0.9 * ALPHA / q_s
