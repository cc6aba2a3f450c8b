"""Packet conservation, losses handed to the laws, timeouts, ring growth, determinism."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.scenarios import Scenario, build_scenario
from tcpfluid.sim import PacketResult, simulate_packets

TX = 1000 * 8 / 8e6
ATX = 40 * 8 / 320e3


def _lossy(alg_a: str, alg_b: str, *, buffer: int = 20, red: dict | None = None) -> Scenario:
    sc = build_scenario(
        "qv-basic", bandwidth="10Mbps", buffer=buffer, duration="20s", cbr="none", flows=2
    )
    flows = (
        dataclasses.replace(sc.flows[0], algorithm=alg_a),
        dataclasses.replace(sc.flows[1], algorithm=alg_b),
    )
    links = sc.links
    if red is not None:
        links = tuple(
            dataclasses.replace(lk, discipline="red", red=red) if lk.name == "R1-R2" else lk
            for lk in links
        )
    return dataclasses.replace(sc, flows=flows, links=links)


@pytest.fixture(scope="module")
def lossy() -> PacketResult:
    return simulate_packets(_lossy("vegas", "reno", buffer=10))


def test_conservation_holds_and_adds_up(lossy: PacketResult) -> None:
    c = lossy.conservation
    assert lossy.conserved
    for kind in ("data", "ack", "cbr"):
        e = c[kind]
        assert e["sent"] == e["delivered"] + e["dropped"] + e["in_flight"]
    # the counters agree with the per-flow and per-link totals
    assert c["data"]["sent"] == sum(f.sent_pkts for f in lossy.flows)
    assert c["data"]["dropped"] == sum(lk.data_drops for lk in lossy.links)
    assert c["data"]["dropped"] > 0  # the scenario is lossy
    assert c["ack"]["sent"] == sum(f.acks_sent for f in lossy.flows)
    # every in-order delivered packet was sent at least once
    for f in lossy.flows:
        assert f.delivered_pkts <= f.sent_pkts - f.retransmissions


def test_each_links_trace_adds_up_to_its_own_counters() -> None:
    """Each link's sampled series are its own: its utilization integrated over the sample
    intervals gives the bytes it transmitted, which are the bytes its counter says left it
    plus at most what was still on the wire at the end (its rate times its propagation
    delay, and one packet), its drop series ends at its drop count, and its sampled queue
    never exceeds the largest queue it recorded."""
    sc = _lossy("vegas", "reno", buffer=10)
    res = simulate_packets(sc, sample_interval_s=0.5)
    dt = np.diff(res.t_s, prepend=res.t_s[:1])
    assert res.t_s[-1] == pytest.approx(20.0)  # the last sample at the end of the run
    for lk, spec in zip(res.links, sc.links, strict=True):
        sent = float(np.sum(lk.utilization * dt * lk.rate_bps / 8.0))
        on_wire = spec.rate_bps / 8.0 * spec.delay_s + sc.packet_size_bytes
        assert lk.bytes_out * (1 - 1e-9) <= sent <= lk.bytes_out + on_wire, lk.name
        assert lk.drops[-1] == lk.drops_total, lk.name
        assert np.max(lk.queue_pkts) <= lk.max_queue_pkts, lk.name
    assert len({lk.bytes_out for lk in res.links}) == len(res.links)  # no two the same


def test_loss_reactions_are_the_laws(lossy: PacketResult) -> None:
    # document 000 §3.1: Vegas keeps 3/4 of its window after a first-transmission loss
    # detected by duplicate ACKs, 1/2 when the packet was a retransmission; Reno halves,
    # to no less than 2 packets (RFC 5681: ssthresh = max(FlightSize / 2, 2 SMSS))
    vegas, reno = lossy.flows
    assert vegas.algorithm == "vegas" and reno.algorithm == "reno"
    k1 = vegas.loss_kind == 1
    assert k1.any()
    np.testing.assert_allclose(
        vegas.loss_cwnd_after_pkts[k1], np.maximum(0.75 * vegas.loss_cwnd_before_pkts[k1], 2.0)
    )
    k2 = vegas.loss_kind == 2
    np.testing.assert_allclose(
        vegas.loss_cwnd_after_pkts[k2], np.maximum(0.5 * vegas.loss_cwnd_before_pkts[k2], 2.0)
    )
    r1 = reno.loss_kind == 1
    assert r1.any()
    half = np.maximum(0.5 * reno.loss_cwnd_before_pkts[r1], 2.0)
    assert np.all(reno.loss_cwnd_after_pkts[r1] <= half + 1e-9)
    # every loss event is counted once: fast retransmits + timeouts
    for f in lossy.flows:
        assert f.loss_t_s.size == f.fast_retransmits + f.timeouts


def test_retransmission_timeout_by_hand() -> None:
    # window 4 into F with room for one waiting packet: 0 is transmitted, 1 waits, 2 and 3
    # are dropped. ACKs 1 and 2 arrive at 17 and 18 ms (RTT samples 17 and 18 ms), each
    # restarting the timer with RTO = max(SRTT + 4 RTTVAR, min_rto) = 0.2 s (SRTT + 4 RTTVAR
    # is about 50 ms here). Packets 4 and 5 give only two duplicate ACKs (fine-grained
    # check off), so the timer expires at 18 ms + 200 ms.
    law = FixedWindow(4)
    res = simulate_packets(
        two_link(buffer=1, duration=0.23), laws={"f": law}, fine_retransmit=False, min_rto_s=0.2
    )
    f = res.flows[0]
    assert f.timeouts == 1
    assert f.loss_kind.tolist() == [3.0]
    expected = 2 * TX + 0.010 + ATX + 0.005 + 0.2
    assert f.loss_t_s[0] == pytest.approx(expected, abs=1e-12)
    # go-back-N from the first lost packet: 2, 3, 4, 5 are sent again (4 and 5, already
    # received out of order, are dropped again at F, which has room for one waiting packet)
    assert f.retransmissions == 4
    assert res.link("F").data_drops == 4
    assert res.conserved


def test_rings_grow_with_the_window() -> None:
    # Reno with an unlimited buffer never leaves slow start: the window outgrows the
    # initial per-flow ring (1024 sequence numbers) and the link rings
    sc = build_scenario(
        "qv-basic", bandwidth="10Mbps", rtt="20ms", duration="3s", cbr="none"
    ).with_algorithm("reno")
    res = simulate_packets(sc)
    f = res.flows[0]
    assert f.round_next_cwnd_pkts.max() >= 2048
    assert res.link("R1-R2").max_queue_pkts > 1500
    assert res.conserved
    # nothing lost, everything delivered in order: one ACK per packet
    assert res.conservation["data"]["dropped"] == 0
    assert f.retransmissions == 0


def _red_run(seed: int) -> PacketResult:
    sc = _lossy(
        "vegas", "vegas", buffer=60, red={"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.02}
    )
    sc = dataclasses.replace(sc, duration_s=10.0)
    return simulate_packets(sc, seed=seed)


def test_same_seed_same_trace_and_red_randomness() -> None:
    a, b, c = _red_run(1), _red_run(1), _red_run(2)
    assert a.link("R1-R2").drops_total > 0  # RED dropped early (well below the buffer)
    assert a.link("R1-R2").max_queue_pkts < 60
    for fa, fb in zip(a.flows, b.flows, strict=True):
        np.testing.assert_array_equal(fa.round_t_s, fb.round_t_s)
        np.testing.assert_array_equal(fa.round_next_cwnd_pkts, fb.round_next_cwnd_pkts)
        np.testing.assert_array_equal(fa.loss_t_s, fb.loss_t_s)
    np.testing.assert_array_equal(a.link("R1-R2").queue_pkts, b.link("R1-R2").queue_pkts)
    assert a.events == b.events
    # another seed draws other numbers, hence other early drops
    assert not np.array_equal(a.link("R1-R2").drops, c.link("R1-R2").drops)


def test_red_average_follows_the_queue() -> None:
    res = _red_run(3)
    lk = res.link("R1-R2")
    # the EWMA stays between 0 and the largest queue seen
    assert np.all(lk.red_avg_pkts >= 0)
    assert lk.red_avg_pkts.max() <= lk.max_queue_pkts
    assert lk.red_avg_pkts.max() > 0
