"""Why the packet simulator's Vegas flows lose nothing against Reno in the TCP-Ho paper's
Table 7 (scenario ho-friendliness: 20 connections on 10 Mb/s x 1 ms, 120-packet drop-tail
buffer): a deterministic phase effect (Floyd and Jacobson, "On Traffic Phase Effects in
Packet-Switched Gateways", 1991), shown by switching it off.

With ACK clocking and no randomness in the senders' timing, each packet that leaves the
full bottleneck is replaced, one ACK-path delay later, by the packet its ACK releases; the
departures and the ACK-clocked arrivals alternate, so an arrival always finds the slot the
previous departure freed. The only packets that find the buffer full are the ones a window
increase adds right behind an ACK-clocked one: Reno's additive increases. Vegas increases
its window only while the queue is short (its backlog below α), so none of its packets is
ever dropped, and it holds its [α, β] backlog at the queueing delay Reno sets.

The switch: a random wait before each data packet (ns-2's ``Agent/TCP`` ``overhead_``, the
packet simulator's ``send_overhead_s``), uniform over up to one bottleneck packet time (the
randomisation Floyd and Jacobson add at the gateway), mixes the arrival order: the
overflows then fall on whichever packets arrive, Vegas's included. Every Vegas flow loses
packets and times out, and in every proportion of Table 7 both schemes' mean throughputs
move toward the paper's (the paper's Vegas rows stay about twice lower: no agreement is
claimed here; the report keeps ns-2's default, no overhead).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.engines import simulate
from tcpfluid.fairness import delivered_pkts
from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios._paper_tables import HO_MEASURE_FROM_S

PKT_BITS = 1000 * 8
#: one 1000-byte packet's transmission time on the 10 Mb/s bottleneck, s
PACKET_TIME_S = PKT_BITS / 10e6
PROPORTIONS = [(15, 5), (10, 10), (5, 15)]


def _run(n_reno: int, n_vegas: int, overhead_s: float) -> dict[str, np.ndarray]:
    sc = build_scenario("ho-friendliness", algorithm=f"reno:{n_reno},vegas:{n_vegas}")
    res = simulate(sc, "packet", send_overhead_s=overhead_s)
    t = np.asarray(res.time_s)
    dl = delivered_pkts(t, res.throughput_pps)
    t0 = HO_MEASURE_FROM_S
    thr = (dl[:, -1] - np.array([np.interp(t0, t, row) for row in dl])) / (t[-1] - t0)
    kbps = thr * PKT_BITS / 1e3
    losses = np.asarray(res.summary.losses)
    return {
        "reno_kbps": kbps[:n_reno],
        "vegas_kbps": kbps[n_reno:],
        "reno_losses": losses[:n_reno],
        "vegas_losses": losses[n_reno:],
    }


@pytest.fixture(scope="module", params=PROPORTIONS, ids=lambda p: f"{p[0]}-{p[1]}")
def pair(request):
    n_reno, n_vegas = request.param
    return (
        request.param,
        _run(n_reno, n_vegas, 0.0),
        _run(n_reno, n_vegas, PACKET_TIME_S),
    )


def test_deterministic_timing_spares_every_vegas_packet(pair):
    _, off, _ = pair
    assert np.all(off["reno_losses"] > 0)  # Reno overflows the buffer
    assert np.all(off["vegas_losses"] == 0)  # and never hits a Vegas packet


def test_random_send_times_make_the_overflows_hit_vegas(pair):
    _, _, on = pair
    assert np.all(on["reno_losses"] > 0)
    assert np.all(on["vegas_losses"] > 0)


def test_random_send_times_move_both_schemes_toward_the_paper(pair):
    (n_reno, n_vegas), off, on = pair
    for scheme in ("reno", "vegas"):
        paper = published(f"004/table7/reno-vegas/{n_reno}-{n_vegas}/{scheme}").value
        before = abs(math.log(off[f"{scheme}_kbps"].mean() / paper))
        after = abs(math.log(on[f"{scheme}_kbps"].mean() / paper))
        assert after < before, (
            scheme,
            paper,
            off[f"{scheme}_kbps"].mean(),
            on[f"{scheme}_kbps"].mean(),
        )
