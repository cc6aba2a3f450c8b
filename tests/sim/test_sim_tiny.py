"""Exact, hand-checked event sequences on tiny topologies.

Every expected time below is computed in the test from the link rates and delays:
a 1000-byte packet on an 8 Mb/s link takes 1000·8/8e6 = 1 ms to transmit, a 40-byte ACK on
a 320 kb/s link 40·8/320e3 = 1 ms; propagation delays are 10 ms forward and 5 ms back.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.scenarios import CbrSource, FlowSpec, Link, Scenario
from tcpfluid.sim import simulate_packets

TX = 1000 * 8 / 8e6  # data transmission time on F, s
ATX = 40 * 8 / 320e3  # ACK transmission time on B, s
D_F = 0.010
D_B = 0.005


def test_one_packet_one_ack() -> None:
    law = FixedWindow(1)
    res = simulate_packets(two_link(duration=0.03), laws={"f": law}, sample_interval_s=0.001)
    rtt = TX + D_F + ATX + D_B  # 17 ms: the ACK of packet 0 closes round 0
    fl = res.flows[0]
    assert fl.round_t_s.tolist() == pytest.approx([rtt], abs=1e-12)
    seen = law.seen[0]
    assert seen["rtt_mean"] == pytest.approx(rtt, abs=1e-12)
    assert seen["rtt_min"] == seen["rtt_max"] == pytest.approx(rtt, abs=1e-12)
    assert seen["base_rtt"] == pytest.approx(rtt, abs=1e-12)
    assert seen["acks"] == 1.0
    assert seen["cwnd"] == 1.0
    # forward one-way delay from the timestamps: transmission + propagation on F
    assert seen["fwd_mean"] == pytest.approx(TX + D_F, abs=1e-12)
    assert fl.round_delta_pkts[0] == pytest.approx(0.0, abs=1e-12)
    # packet 1 leaves at 17 ms and reaches the receiver at 28 ms (< 30 ms); its ACK would
    # reach the sender at 34 ms, after the end
    c = res.conservation
    assert c["data"] == {"sent": 2, "delivered": 2, "dropped": 0, "in_flight": 0, "conserved": True}
    assert c["ack"] == {"sent": 2, "delivered": 1, "dropped": 0, "in_flight": 1, "conserved": True}
    assert fl.delivered_pkts == 2
    assert res.conserved


def test_start_time_shifts_everything() -> None:
    law = FixedWindow(1)
    res = simulate_packets(two_link(duration=0.05, start=0.02), laws={"f": law})
    assert res.flows[0].round_t_s[0] == pytest.approx(0.02 + TX + D_F + ATX + D_B, abs=1e-12)


def test_stop_time_ends_new_data_not_the_senders_rounds() -> None:
    # rounds end every 17 ms (packets sent at 0, 17, 34 ms); the flow stops at 50 ms, so
    # the ACK arriving at 51 ms releases no packet (no new data after the stop) but still
    # ends the round of packet 2 (the sender goes on until all it sent is acknowledged)
    sc = two_link(duration=0.1)
    sc = dataclasses.replace(sc, flows=(dataclasses.replace(sc.flows[0], stop_s=0.05),))
    res = simulate_packets(sc, laws={"f": FixedWindow(1)})
    rtt = TX + D_F + ATX + D_B
    assert res.flows[0].round_t_s.tolist() == pytest.approx([rtt, 2 * rtt, 3 * rtt], abs=1e-12)
    assert res.flows[0].sent_pkts == 3
    assert res.conservation["data"]["delivered"] == 3
    assert res.conservation["ack"]["delivered"] == 3


def test_window_of_three_back_to_back() -> None:
    # three packets at t=0 queue behind each other on F: they reach the receiver at
    # TX + D_F, 2 TX + D_F, 3 TX + D_F, and their ACKs (1 ms each on B, no queueing since
    # they are 1 ms apart) reach the sender 1 ms + 5 ms later
    law = FixedWindow(3)
    res = simulate_packets(two_link(duration=0.0195), laws={"f": law})
    # only the first ACK (17 ms) ends a round; the 2nd (18 ms) and 3rd (19 ms) belong to
    # the next round, which ends with the ACK of packet 3 sent at 17 ms (34 ms)
    assert res.flows[0].round_t_s.tolist() == pytest.approx([0.017], abs=1e-12)
    assert law.seen[0]["acks"] == 1.0
    # ACK-clocked: 3 + one new packet per ACK received (at 17, 18, 19 ms)
    assert res.conservation["data"]["sent"] == 6


def test_queue_fills_and_drops() -> None:
    # five packets hit F at t=0 with room for 2 waiting: packet 0 is transmitted, 1 and 2
    # wait, 3 and 4 are dropped (drop-tail)
    law = FixedWindow(5)
    res = simulate_packets(
        two_link(buffer=2, duration=0.0125), laws={"f": law}, sample_interval_s=0.0005
    )
    lk = res.link("F")
    assert lk.drops_total == 2
    assert lk.data_drops == 2
    assert lk.max_queue_pkts == 3
    # queue at the sample times: packets finish at 1, 2, 3 ms
    q = dict(zip(np.round(res.t_s, 7).tolist(), lk.queue_pkts.tolist(), strict=True))
    assert q[0.0005] == 3
    assert q[0.0015] == 2
    assert q[0.0025] == 1
    assert q[0.0035] == 0
    assert lk.drops[-1] == 2
    # arrivals at the receiver: 11 and 12 ms (the third at 13 ms is after the end)
    c = res.conservation
    assert c["data"] == {"sent": 5, "delivered": 2, "dropped": 2, "in_flight": 1, "conserved": True}
    assert c["ack"]["sent"] == 2 and c["ack"]["in_flight"] == 2


def test_delayed_ack_timer() -> None:
    # a lone packet reaches the receiver at TX + D_F; the delayed ACK leaves 40 ms later
    law = FixedWindow(1)
    res = simulate_packets(
        two_link(duration=0.06), laws={"f": law}, delayed_ack=True, delack_timeout_s=0.04
    )
    expected = TX + D_F + 0.04 + ATX + D_B
    assert res.flows[0].round_t_s.tolist() == pytest.approx([expected], abs=1e-12)
    # the RTT sample includes the ACK delay (echoed timestamp of the packet)
    assert law.seen[0]["rtt_mean"] == pytest.approx(expected, abs=1e-12)
    assert res.flows[0].acks_sent == 1


def test_delayed_ack_every_second_packet() -> None:
    # two packets arrive at 11 and 12 ms: the second triggers the ACK at once (12 ms),
    # echoing the first packet's timestamp (0)
    law = FixedWindow(2)
    res = simulate_packets(
        two_link(duration=0.0185), laws={"f": law}, delayed_ack=True, delack_timeout_s=0.04
    )
    expected = 2 * TX + D_F + ATX + D_B
    assert res.flows[0].round_t_s.tolist() == pytest.approx([expected], abs=1e-12)
    assert law.seen[0]["rtt_mean"] == pytest.approx(expected, abs=1e-12)
    assert res.flows[0].acks_sent == 1


def test_cbr_schedule_count() -> None:
    # 1 Mb/s of 1000-byte packets = 125 packets/s over [0.5, 1.5): packets at 0.5 + n/125
    # for n = 0..124
    sc = Scenario(
        name="cbr",
        links=(Link("F", 8e6, 0.01), Link("B", 8e6, 0.01)),
        flows=(FlowSpec("f", ("F",), ("B",), start_s=1.9),),
        cbr=(CbrSource("c", 1e6, 0.5, 1.5, ("F",)),),
        duration_s=2.0,
    )
    res = simulate_packets(sc, laws={"f": FixedWindow(1)})
    assert res.conservation["cbr"] == {
        "sent": 125,
        "delivered": 125,
        "dropped": 0,
        "in_flight": 0,
        "conserved": True,
    }
    # utilization of F over the run: 125 CBR packets + the flow's packets, in bytes
    fl = res.flows[0]
    carried = 125 * 1000 + fl.sent_pkts * 1000 - (res.conservation["data"]["in_flight"]) * 1000
    assert res.link("F").bytes_out == pytest.approx(carried)


def test_two_flows_share_a_link_fifo() -> None:
    # flows a and b each send one packet at t=0 into the shared link F after private
    # access links of different delays; F serves them in arrival order
    sc = Scenario(
        name="share",
        links=(
            Link("Aa", 8e6, 0.001),
            Link("Ab", 8e6, 0.002),
            Link("F", 8e6, 0.010),
            Link("B", 8e6, 0.010),
        ),
        flows=(
            FlowSpec("a", ("Aa", "F"), ("B",)),
            FlowSpec("b", ("Ab", "F"), ("B",)),
        ),
        duration_s=0.03,
    )
    la, lb = FixedWindow(1), FixedWindow(1)
    res = simulate_packets(sc, laws={"a": la, "b": lb})
    atx = 40 * 8 / 8e6
    # a reaches F at 2 ms, b at 3 ms (F is idle again at 3 ms): no queueing
    assert la.seen[0]["rtt_mean"] == pytest.approx(TX + 0.001 + TX + 0.010 + atx + 0.010)
    assert lb.seen[0]["rtt_mean"] == pytest.approx(TX + 0.002 + TX + 0.010 + atx + 0.010)
    assert res.link("F").max_queue_pkts == 1


def test_two_flows_queue_behind_each_other() -> None:
    # same access delays: both packets reach F at 2 ms; the one with the smaller
    # tie-break number (flow a's, scheduled first) is served first, b's waits 1 ms
    sc = Scenario(
        name="share",
        links=(
            Link("Aa", 8e6, 0.001),
            Link("Ab", 8e6, 0.001),
            Link("F", 8e6, 0.010),
            Link("B", 8e6, 0.010),
        ),
        flows=(FlowSpec("a", ("Aa", "F"), ("B",)), FlowSpec("b", ("Ab", "F"), ("B",))),
        duration_s=0.03,
    )
    la, lb = FixedWindow(1), FixedWindow(1)
    res = simulate_packets(sc, laws={"a": la, "b": lb})
    atx = 40 * 8 / 8e6
    base = TX + 0.001 + TX + 0.010 + atx + 0.010
    assert la.seen[0]["rtt_mean"] == pytest.approx(base)
    assert lb.seen[0]["rtt_mean"] == pytest.approx(base + TX)
    assert res.link("F").max_queue_pkts == 2
    assert not math.isnan(res.flows[1].round_delta_pkts[0])


def test_frames_and_dicts() -> None:
    res = simulate_packets(two_link(duration=0.06), laws={"f": FixedWindow(1)})
    fr = res.flows[0].to_frame()
    assert list(fr["t_s"]) == pytest.approx([0.017, 0.034, 0.051], abs=1e-12)
    wide = res.to_frame()
    assert len(wide) == len(res.t_s) and "F/queue_pkts" in wide and "f/cwnd_pkts" in wide
    assert len(res.link("F").to_frame(res.t_s)) == len(res.t_s)
    d = res.to_dict()
    assert d["conservation"]["conserved"] is True
    assert d["flows"][0]["rounds"] == 3
    import json

    json.dumps(d)  # JSON-ready
    json.dumps(res.summary.to_dict())


def _red_link(red: dict) -> Scenario:
    sc = two_link(duration=0.0105)
    lk = Link("F", 8e6, 0.010, 100, discipline="red", red=red)
    return dataclasses.replace(sc, links=(lk, sc.links[1]))


def test_red_deterministic_drops() -> None:
    # w_q = 1: the average is the waiting queue seen on arrival. Five packets arrive at
    # t = 0 and find 0, 0, 1, 2, 2 packets waiting (packet 0 is in transmission; a dropped
    # packet does not wait): with min_th = 1, max_th = 2 the first three are admitted
    # (p_b = 0 at avg = min_th), packets 3 and 4 see avg >= max_th and are dropped
    sc = _red_link({"min_th": 1, "max_th": 2, "max_p": 0.1, "w_q": 1.0})
    res = simulate_packets(sc, laws={"f": FixedWindow(5)})
    assert res.link("F").drops_total == 2
    assert res.link("F").max_queue_pkts == 3


# seeds 3 and 25 give two drops, 11 and 29 one random drop, the others the forced one
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 11, 25, 29])
def test_red_random_drops_by_hand(seed: int) -> None:
    # min_th = 1, max_th = 3, max_p = 0.5, w_q = 1. Packet 3 sees avg = 2:
    # p_b = 0.5 (2 − 1)/(3 − 1) = 0.25, count 0 → p_a = 0.25, dropped iff u0 < 0.25.
    # If dropped, packet 4 sees avg = 2 again with count 1: p_a = 0.25/(1 − 0.25) = 1/3,
    # dropped iff u1 < 1/3. If packet 3 was admitted, packet 4 sees avg = 3 = max_th and
    # is dropped. u0, u1: the first draws of numpy.random.default_rng(seed).
    u0, u1 = np.random.default_rng(seed).random(2)
    expected = (1 + int(u1 < 1 / 3)) if u0 < 0.25 else 1
    sc = _red_link({"min_th": 1, "max_th": 3, "max_p": 0.5, "w_q": 1.0})
    res = simulate_packets(sc, laws={"f": FixedWindow(5)}, seed=seed)
    assert res.link("F").drops_total == expected


def test_plot_returns_artists() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = simulate_packets(two_link(duration=0.06), laws={"f": FixedWindow(1)})
    fig, ax = plt.subplots()
    artists = res.plot(ax)
    assert len(artists) == 2  # one window line, one queue line
    assert ax.get_xlabel() == "time (s)"
    plt.close(fig)
    with pytest.raises(ValueError, match="no link 'X'"):
        res.plot(ax, link="X")
