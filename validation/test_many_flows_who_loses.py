"""Who loses at a drop-tail overflow in the packet simulator, against the fluid engines' rule.

The fluid engines share a round's (round model) or a time step's (hybrid ODE) drop-tail
overflow among all arriving flows in proportion to their arrivals (``drop_share=
"proportional"``), and every flow with a share takes a loss event. These tests measure
what the packet simulator's drop-tail queue does on a scaled-down copy of the Quick Vegas
paper's many-flows scenario (Reno, 100 Mb/s, 12 flows joining in three groups of four,
150-packet buffer): a packet flow's loss events are grouped into overflow episodes (events
less than 0.25 s, about two base RTTs, after the episode's first).

- Once every flow has left slow start, each overflow reaches every active flow: Reno's
  flows each add a packet per round, the overflow lasts about a round, so each flow has
  about one packet arriving at the full queue. The proportional rule's "every flow
  loses" is what the packets do there.
- A group that joins in slow start overflows the queue with its doubling windows: every
  joining flow takes a fast retransmit and then a retransmission timeout, while each flow
  already there takes fast retransmits. The round model cuts every flow at that overflow
  too, but the joining flows only to half their slow-start window.

So the proportional rule picks the same flows as the packets' drop-tail queue does in
congestion avoidance. The packet senders take ns-2's ``bugFix_`` (``timeout_recover=True``:
no fast retransmit from the duplicate ACKs of a timeout's go-back). Without it the joining
flows' go-backs started further fast retransmits (retransmissions lost again among them)
that left them at 2 packets, and a round model whose joining flows came out of their
first loss at 2 packets followed the packets' index; with it they come out at about 114
packets and that is not what sets the packets' index (the full-scale tests below).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import tcpfluid
from tcpfluid.analytic import jain_index
from tcpfluid.engines import Packet
from tcpfluid.fairness import delivered_pkts, period_throughputs
from tcpfluid.published import published
from tcpfluid.report import TOLERANCES
from tcpfluid.scenarios import build_scenario

#: loss kinds of the packet simulator's flow traces (tcpfluid.sim._results.FlowTrace)
DUP_ACKS, RETX_LOST, TIMEOUT = 1, 2, 3


def _scenario() -> tcpfluid.Scenario:
    o = {
        "bandwidth": "100Mbps",
        "flows": 12,
        "group_interval": "20s",
        "active": "60s",
        "duration": "60s",
    }
    return build_scenario("qv-many-flows", buffer=150, **o).with_algorithm("reno")


#: the packet senders with ns-2's ``bugFix_`` (module docstring), in every packet run here
PACKET = Packet(timeout_recover=True)

#: the packet simulator's median window (packets) of the Reno flows joining qv-many-flows at
#: 100 s, 4 s after their first overflow (asserted in the full-scale test below; 2 without
#: ``bugFix_``)
JOINING_WINDOW_PKTS = 114.0

#: the packet simulator's Reno Jain's index over 100-200 s on qv-many-flows (asserted in the
#: full-scale test below; 0.921 without ``bugFix_``)
PACKET_JAIN_100_200 = 0.769

#: a packet flow's loss event: time (s), flow, kind
Event = tuple[float, int, int]


def _episodes(events: list[Event], gap: float = 0.25) -> list[list[Event]]:
    """Loss events (time s, flow, kind), sorted, grouped into overflow episodes."""
    out: list[list[Event]] = []
    for e in events:
        if out and e[0] - out[-1][0][0] <= gap:
            out[-1].append(e)
        else:
            out.append([e])
    return out


@pytest.fixture(scope="module")
def packet_losses() -> tuple[tcpfluid.Scenario, list[list[Event]]]:
    sc = _scenario()
    res = tcpfluid.simulate(sc, PACKET)
    ev = sorted(
        (float(t), i, int(k))
        for i, f in enumerate(res.native.flows)
        for t, k in zip(f.loss_t_s, f.loss_kind, strict=True)
    )
    return sc, _episodes(ev)


def _active(sc: tcpfluid.Scenario, t: float) -> set[int]:
    return {i for i, f in enumerate(sc.flows) if f.start_s <= t < f.stop_s}


def test_a_steady_overflow_reaches_every_flow_in_packets(
    packet_losses: tuple[tcpfluid.Scenario, list[list[Event]]],
) -> None:
    """Overflows more than 5 s after the last join (every flow in congestion avoidance):
    each one gives every active flow exactly one fast retransmit, as the proportional
    rule gives every flow a loss event."""
    sc, eps = packet_losses
    joins = sorted({f.start_s for f in sc.flows})
    steady = [c for c in eps if min(c[0][0] - j for j in joins if j <= c[0][0]) > 5.0]
    assert len(steady) >= 3
    for c in steady:
        hit = [e[1] for e in c]
        assert sorted(hit) == sorted(_active(sc, c[0][0])), c[0][0]
        assert all(e[2] == DUP_ACKS for e in c)


def test_a_joining_group_times_out_while_the_others_take_one_cut(
    packet_losses: tuple[tcpfluid.Scenario, list[list[Event]]],
) -> None:
    """At each group's join (20 s, 40 s): within 5 s every joining flow suffers a
    retransmission timeout, and no flow already there does (their losses are fast
    retransmits, at most one per overflow episode)."""
    sc, eps = packet_losses
    for join in (20.0, 40.0):
        new = {i for i, f in enumerate(sc.flows) if f.start_s == join}
        old = _active(sc, join) - new
        ev = [e for c in eps for e in c if join <= e[0] < join + 5.0]
        timed_out = {e[1] for e in ev if e[2] == TIMEOUT}
        assert timed_out == new, join
        # the flows already there: fast retransmits only, at most one per episode
        assert all(e[2] == DUP_ACKS for e in ev if e[1] in old), join
        for c in eps:
            if join <= c[0][0] < join + 5.0:
                hits = [e[1] for e in c if e[1] in old]
                assert len(hits) == len(set(hits)), join


def test_the_round_model_gives_every_flow_a_loss_event_at_a_steady_overflow() -> None:
    """The fluid rule on the same scenario (``drop_share="proportional"``): every round
    that overflows after the last join cuts every active flow's window in the same round
    (a cut: the window falls by more than 30 % in one round), as each steady overflow of
    the packets reaches every flow; and it cuts the joining group once, where the
    packets' joining flows time out."""
    sc = _scenario()
    res = tcpfluid.simulate(sc, "rounds", drop_share="proportional")
    w = np.asarray(res.native.window_pkts)[:, 0, :]
    t = np.asarray(res.native.time_s)[:, 0]
    cut = w[1:] < 0.7 * w[:-1]
    rounds_with_cuts = np.flatnonzero(cut.any(axis=1))
    steady = [k for k in rounds_with_cuts if 45.0 < t[k] < 60.0]
    assert len(steady) >= 2
    for k in steady:
        assert set(np.flatnonzero(cut[k]).tolist()) == _active(sc, float(t[k]))
    # the group joining at 40 s: one cut each, to half its slow-start window (no timeout)
    new = sorted(i for i, f in enumerate(sc.flows) if f.start_s == 40.0)
    near = [k for k in rounds_with_cuts if 40.0 <= t[k] < 45.0]
    assert len(near) == 1
    k = near[0]
    np.testing.assert_allclose(w[k + 1, new], 0.5 * w[k, new], rtol=0.05)


@pytest.mark.slow
def test_full_scale_reno_join_times_out_and_steady_overflows_reach_every_flow() -> None:
    """The Quick Vegas paper's many-flows scenario itself (Reno, 1 Gb/s, 1500-packet
    buffer, the first 200 s: 20 flows, 20 more joining at 100 s), and what sets its
    100-200 s index (0.769; 0.921 without ``bugFix_``): at the join all 20
    joining flows time out within 2 s (each after one fast retransmit) while no flow of
    the first group does, and the first group comes out of the join above the joining
    group. The steady overflows in 110-200 s reach most flows, not all: 36-38 of the 40
    (measured 36, 37, 36, 38, 38, 38); with a recovery window three packets short of RFC
    6582's they reached 38-40 (the scaled-down copy above: every flow)."""
    sc = build_scenario("qv-many-flows", duration="200s").with_algorithm("reno")
    res = tcpfluid.simulate(sc, PACKET)
    ev = sorted(
        (float(t), i, int(k))
        for i, f in enumerate(res.native.flows)
        for t, k in zip(f.loss_t_s, f.loss_kind, strict=True)
    )
    eps = _episodes(ev)
    steady = [c for c in eps if 110.0 <= c[0][0] < 199.0]
    assert len(steady) >= 4
    new = {i for i, f in enumerate(sc.flows) if f.start_s == 100.0}
    assert len(new) == 20
    at_join = [e for e in ev if 100.0 <= e[0] < 102.0]
    assert {e[1] for e in at_join if e[2] == TIMEOUT} == new
    # each joining flow: one fast retransmit, then the timeout, and no retransmission lost
    # again (without bugFix_ the go-back's duplicate ACKs started fast retransmits of
    # retransmissions lost again)
    joined = [e for e in ev if 100.0 <= e[0] < 105.0 and e[1] in new]
    assert sorted(e[1] for e in joined if e[2] == DUP_ACKS) == sorted(new)
    assert not any(e[2] == RETX_LOST for e in joined)
    # how the groups come out of the join: windows at 104 s (first group 216-407 packets,
    # median 406; joining group 112-208, median 114; the round model: 240 and 160)
    k = int(np.searchsorted(np.asarray(res.native.t_s), 104.0))
    w = np.array([f.cwnd_pkts[k] for f in res.native.flows])
    assert np.median(w[:20]) > 3.0 * np.median(w[20:40])
    assert np.median(w[20:40]) == pytest.approx(JOINING_WINDOW_PKTS, rel=0.05)
    assert np.max(w[20:40]) < 250.0
    # the index the round model and hybrid experiments below compare with
    t, dl = res.time_s, delivered_pkts(res.time_s, res.throughput_pps)
    start = [f.start_s for f in sc.flows]
    stop = [min(f.stop_s, 200.0) for f in sc.flows]
    [(_, thr)] = period_throughputs(t, dl, start, stop, [100.0, 200.0])
    jain = float(jain_index(thr))
    assert jain == pytest.approx(PACKET_JAIN_100_200, abs=0.0005)
    # what sets it: flows that escape the steady overflows (two of the first group take no
    # loss event in 105-200 s, a third 3, the others 5-6) and carry 2.0-2.9 times the median
    # flow; without them the index is 0.974

    flows = res.native.flows[:40]
    n_ev = np.array([np.sum((f.loss_t_s >= 105.0) & (f.loss_t_s < 200.0)) for f in flows])
    got = np.array([np.interp(200.0, t, x) - np.interp(100.0, t, x) for x in dl[:40]])
    escaped = np.flatnonzero(n_ev <= 3)
    assert 1 <= escaped.size <= 5, n_ev
    assert np.all(got[escaped] > 1.9 * np.median(got))
    assert jain_index(np.delete(got, escaped)) > 0.95


@pytest.mark.slow
def test_full_scale_reno_index_follows_the_paper_once_random_send_times_break_the_phase() -> None:
    """Switch for the flows that escape the steady overflows (the full-scale test above):
    with each data packet sent after a random wait of up to one bottleneck packet time
    (``send_overhead_s`` = 8 us, ns-2's ``overhead_``; seed 1) the overflows fall on
    whichever packets arrive (the phase effect of docs/mechanisms.md, ``phase-effect``):
    every flow takes at least 3 loss events in 105-200 s (3-8) and the 100-200 s index is
    0.926, within 0.05 of the Quick Vegas paper's 0.946 (deterministic: 0.769), and the
    report's cell, the spread of the shares, agrees with the paper's (mechanism
    ``escaped-overflows`` of docs/mechanisms.md)."""

    sc = build_scenario("qv-many-flows", duration="200s").with_algorithm("reno")
    res = tcpfluid.simulate(sc, Packet(timeout_recover=True, send_overhead_s=8e-6, seed=1))
    flows = res.native.flows[:40]
    n_ev = np.array([np.sum((f.loss_t_s >= 105.0) & (f.loss_t_s < 200.0)) for f in flows])
    assert n_ev.min() >= 3, n_ev
    t, dl = res.time_s, delivered_pkts(res.time_s, res.throughput_pps)
    got = [np.interp(200.0, t, x) - np.interp(100.0, t, x) for x in dl[:40]]
    jain = float(jain_index(got))
    paper = float(published("000/table2/reno/100-200").value)
    assert jain == pytest.approx(paper, abs=0.05)
    assert jain > PACKET_JAIN_100_200 + 0.1
    # the report's cell (the spread of the shares, std/mean = sqrt(1/J - 1)): 0.283 against
    # the paper's 0.239 within the report's tolerance (deterministic: 0.548)
    spread = TOLERANCES["share spread"]
    assert spread.passes(np.sqrt(1.0 / jain - 1.0), np.sqrt(1.0 / paper - 1.0))
    assert not spread.passes(np.sqrt(1.0 / PACKET_JAIN_100_200 - 1.0), np.sqrt(1.0 / paper - 1.0))


def _round_model_jain(
    law: str, a: float, b: float, **switch: Any
) -> tuple[float, NDArray[np.int64]]:
    """Round-model Jain's index of the flows active over [a, b) s on qv-many-flows (with the
    round engine's options ``switch``), and each flow's loss events."""

    sc = build_scenario("qv-many-flows").with_algorithm(law)
    res = tcpfluid.simulate(sc, "rounds", **switch)
    t = np.asarray(res.time_s)
    dl = delivered_pkts(t, np.asarray(res.throughput_pps))
    act = [i for i, f in enumerate(sc.flows) if f.start_s <= a and f.stop_s >= b]
    jain = float(jain_index([np.interp(b, t, dl[i]) - np.interp(a, t, dl[i]) for i in act]))
    return jain, np.asarray(res.summary.to_dict()["losses"], dtype=np.int64)


def test_a_timeout_at_each_flows_first_loss_leaves_the_round_models_reno_index() -> None:
    """Switch (``first_loss_timeout=True``): each flow's first loss event in the round
    model (its slow-start overflow, where the packet flows of a joining group time out) is
    a timeout. The round model's Reno index in 100-200 s stays where it was (0.996 against
    the packets' 0.769): a timeout that restarts slow start at once, without a timeout's
    idle time or retransmissions lost again, does not keep the joining group behind."""
    before, _ = _round_model_jain("reno", 100.0, 200.0)
    after, losses = _round_model_jain("reno", 100.0, 200.0, first_loss_timeout=True)
    assert losses.size == 60 and np.all(losses >= 1)  # every flow's first loss was switched
    assert before > 0.99
    assert after == pytest.approx(before, abs=0.01)


def test_joining_flows_leaving_their_first_overflow_at_the_packets_window_keep_the_index() -> None:
    """Switch (``joiner_first_loss_pkts``): each round-model flow of the groups joining at
    100 s and later leaves its first loss with window and ssthresh at most the packets'
    median joining window 4 s after the join (114 packets; the round model halves them to
    ~160). The Reno 100-200 s
    index stays above 0.99 (0.995; 0.996 unswitched), far above the packets' 0.769: how the
    joining group comes out of its slow-start overflow does not set the packets' index.
    Without ``bugFix_`` the packets' joining flows came out at 2 packets (their go-backs'
    fast retransmits) and the round model capped there gave 0.970 against the packets'
    0.921; that agreement was the go-back cuts'."""
    sc = build_scenario("qv-many-flows").with_algorithm("reno")
    late = [i for i, f in enumerate(sc.flows) if f.start_s >= 100.0]
    # (the joiners of the switch: the flows joining after the start)
    assert late == [i for i, f in enumerate(sc.flows) if f.start_s > 0.0]
    got, losses = _round_model_jain(
        "reno", 100.0, 200.0, joiner_first_loss_pkts=JOINING_WINDOW_PKTS
    )
    assert np.all(losses[late] >= 1)  # every joining flow's first loss was switched
    assert got > 0.99
    assert got > PACKET_JAIN_100_200 + 0.2  # the packets' (measured with bugFix_)


def test_round_model_joining_flows_come_out_of_the_join_high() -> None:
    """The round model on the same scenario: 4 s after the join at 100 s the joining Reno
    flows are at ~160 packets (halved once from their slow-start window) and the first
    group at ~240, where the packets' are at 112-208 (median 114) and 216-407 (median
    406)."""
    sc = build_scenario("qv-many-flows").with_algorithm("reno")
    nat = tcpfluid.simulate(sc, "rounds").native
    w = np.asarray(nat.window_pkts)[:, 0, :]
    k = int(np.searchsorted(np.asarray(nat.time_s)[:, 0], 104.0))
    # against the packets' (the full-scale test): joining flows above their median, the
    # first group below their median (406)
    assert np.min(w[k, 20:40]) > JOINING_WINDOW_PKTS
    assert np.max(w[k, :20]) < 300.0


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "measured on 2026-12-02: ratio 6.18, the groups further apart than the packets' "
        "(about 3.6: 406 against 114 packets); it was 2.11 when a timeout with duplicate "
        "ACKs behind its holes first reached the hybrid's law as a fast retransmit and then "
        "a timeout at the halved window (docs/ode-model.md, 'A recovery that ends in a "
        "timeout')"
    ),
)
def test_hybrid_groups_come_out_of_the_join_equal_when_a_drop_frees_its_place() -> None:
    """The hybrid ODE engine on the same scenario, with a dropped packet's place freed at
    once (``hold_drops=False``: the flow sends the dropped fluid again into the full
    queue): 4 s after the join at 100 s its two Reno groups are at about the same window
    (ratio below 1.2), where the packets' first group holds more than three times the
    joining group's median (406 against 114 packets)."""
    sc = build_scenario("qv-many-flows", duration="200s").with_algorithm("reno")
    res = tcpfluid.simulate(sc, "ode", hold_drops=False)
    w = np.asarray(res.window_pkts)
    k = int(np.searchsorted(np.asarray(res.time_s), 104.0))
    ratio = float(np.median(w[:20, k]) / np.median(w[20:40, k]))
    assert ratio < 1.2


def _hybrid_join(hold: bool, drop_share: str) -> tuple[float, float]:
    """The hybrid's Reno run of the first 200 s: the ratio of the first group's median
    window to the joining group's 4 s after the join, and Jain's index of 100-200 s."""
    sc = build_scenario("qv-many-flows", duration="200s").with_algorithm("reno")
    h = tcpfluid.simulate(sc, "ode", drop_share=drop_share, hold_drops=hold).native.hybrid
    w = np.asarray(h.window_pkts)
    k = int(np.searchsorted(np.asarray(h.time_s), 104.0))
    start = [f.start_s for f in h.flows]
    stop = [min(f.stop_s, 200.0) for f in h.flows]
    [(_, thr)] = period_throughputs(h.time_s, h.delivered_pkts, start, stop, [100.0, 200.0])
    jain = jain_index(thr)
    return float(np.median(w[:20, k]) / np.median(w[20:40, k])), float(jain)


def test_hybrid_groups_come_out_of_the_join_apart_when_its_drops_fall_on_the_joiners() -> None:
    """The hybrid with both packet readings of a drop-tail overflow, its default
    (tests/fluid/test_hybrid_drops.py: a dropped packet keeps its place in the window
    until the sender learns of it, ``hold_drops=True``, and the overflow falls on the
    packets beyond each flow's ACK clock, ``drop_share="growth"``): 4 s after the join the
    first group holds more than twice the joining group's median window (4.0 measured on
    2026-12-02; the packets' more than three times) and the 100-200 s index is within 0.05
    of the paper's 0.946 (0.967). It is 0.20 above the packet simulator's 0.769 (with
    ``bugFix_``), outside the report's ±0.05. Either reading alone puts the index further
    above the paper's (measured 0.976 with the place freed, 0.981 with the overflow in
    proportion to the arrivals, against 0.967)."""
    printed = float(published("000/table2/reno/100-200").value)
    ratio, jain = _hybrid_join(True, "growth")
    assert ratio > 2.0
    assert jain == pytest.approx(printed, abs=0.05)
    for hold, share in ((True, "proportional"), (False, "growth")):
        _, alone = _hybrid_join(hold, share)
        assert alone > jain, (hold, share)
