"""How the round model shares a drop-tail overflow among many flows, and which losses
start a loss event.

Two rules (option ``drop_share``): ``"proportional"`` (every flow in flight loses in
proportion to its window) and ``"in-turn"`` (the overflow's whole packets fall one per
flow, flow after flow; a round that overflows drops at least one). A flow's losses in the
round after its loss reaction belong to the same loss episode (no second cut: option
``recovery_rounds``). Checked here: the in-turn rule's arithmetic against a
count by hand, that one flow peaks where the packet simulator's does under both rules,
and, on the Quick Vegas paper's §5.3 networks, what each rule gives against the packet
simulator.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.analytic import jain_index
from tcpfluid.engines import Packet
from tcpfluid.fairness import delivered_pkts, period_throughputs
from tcpfluid.fluid._rounds_law import OverflowShare
from tcpfluid.fluid.hybrid import DROP_SHARES
from tcpfluid.fluid.rounds import simulate_rounds
from tcpfluid.path import Path
from tcpfluid.scenarios import build_scenario

#: the packet simulator's senders with ns-2's ``bugFix_`` (``timeout_recover=True``: no fast
#: retransmit from the duplicate ACKs of a timeout's go-back), in every packet run here
PACKET = Packet(timeout_recover=True)


def test_in_turn_deals_whole_packets_one_per_flow_from_where_it_stopped() -> None:
    share = OverflowShare(1)
    w = np.array([10.0, 0.0, 10.0, 10.0, 10.0])  # flow 1 sends nothing
    # 2.5 packets: flows 0 and 2 lose one each, half a packet waits
    got = share(np.full(5, 0.5), w)
    np.testing.assert_array_equal(got, [1.0, 0.0, 1.0, 0.0, 0.0])
    # 1.5 more (2 with the half): flows 3 and 4, the turn then wraps to flow 0
    got = share(np.full(5, 0.3), w)
    np.testing.assert_array_equal(got, [0.0, 0.0, 0.0, 1.0, 1.0])
    # 9 packets over 4 flows: two each, and flow 0 (next in turn) one more
    got = share(np.full(5, 1.8), w)
    np.testing.assert_array_equal(got, [3.0, 0.0, 2.0, 2.0, 2.0])


def test_in_turn_an_overflow_under_one_packet_drops_one_whole_packet() -> None:
    share = OverflowShare(1)
    w = np.full(4, 10.0)
    # 0.2 packets over: the packet that did not fit is lost (flow 0), nothing is carried
    np.testing.assert_array_equal(share(np.full(4, 0.05), w), [1.0, 0.0, 0.0, 0.0])
    # 1.2 more: one packet (flow 1), 0.2 carried
    np.testing.assert_array_equal(share(np.full(4, 0.3), w), [0.0, 1.0, 0.0, 0.0])
    assert share.carry[0] == pytest.approx(0.2)


def test_in_turn_never_takes_more_than_a_window() -> None:
    got = OverflowShare(1)(np.array([6.0, 6.0]), np.array([2.0, 10.0]))
    np.testing.assert_array_equal(got, [2.0, 6.0])


def test_bad_drop_share_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="drop_share"):
        simulate_rounds(get_law("reno"), Path(1000.0, 0.1, buffer=50), rounds=3, drop_share="x")
    sc = build_scenario("qv-different-rtt", flows_per_group=1, duration="1s")
    with pytest.raises(ValueError, match="drop_share"):
        tcpfluid.simulate(sc.with_algorithm("reno"), "rounds", drop_share="random")


def _ca_peaks(w: np.ndarray) -> np.ndarray:
    """The local maxima of a round-by-round window trace."""
    mid = w[1:-1]
    return mid[(mid >= w[:-2]) & (mid > w[2:])]


@pytest.fixture(scope="module")
def one_reno_flow() -> tcpfluid.Scenario:
    """One Reno flow, 1000 packets/s, ~101 ms, a 50-packet buffer, 120 s (no CBR)."""
    sc = build_scenario("qv-basic", bandwidth="8Mbps", buffer=50, cbr="none", duration="120s")
    return sc.with_algorithm("reno")


def _rounds_peaks(sc: tcpfluid.Scenario, drop_share: str, **switches: bool) -> np.ndarray:
    tr = tcpfluid.simulate(sc, "rounds", drop_share=drop_share, **switches).native
    w = np.asarray(tr.window_pkts)[:, 0, 0]
    t = np.asarray(tr.time_s)[:, 0] if np.ndim(tr.time_s) > 1 else np.asarray(tr.time_s)
    return _ca_peaks(w[t > 20.0])


def test_one_flow_peaks_where_the_packets_do_under_either_rule(
    one_reno_flow: tcpfluid.Scenario,
) -> None:
    """A packet sender's window is a whole number of packets, so its queue overflows at the
    same window every cycle: the packet simulator's peaks lie within a quarter packet
    (152.06-152.25 packets, μd + B = 151.06). A round that overflows loses at least one
    whole packet under both rules, so the round model's peaks do too, within a packet of
    the packets'."""
    p = tcpfluid.simulate(one_reno_flow, PACKET).native.flows[0]
    t = np.asarray(p.round_t_s)
    pk = _ca_peaks(np.asarray(p.round_cwnd_pkts)[t > 20.0])
    assert pk.size >= 5
    assert np.ptp(pk) < 0.25
    for rule in DROP_SHARES:
        got = _rounds_peaks(one_reno_flow, rule)
        assert got.size >= 5, rule
        assert np.ptp(got) < 0.25, rule
        np.testing.assert_allclose(got, pk[0], rtol=0, atol=1.0, err_msg=rule)


def test_one_flow_in_turn_wanders_when_a_part_of_a_packet_is_carried(
    one_reno_flow: tcpfluid.Scenario,
) -> None:
    """The switch ``drop_at_least_one=False``: with a part of a packet carried to the next
    overflow and no loss (the whole packets of the carried total only) an overflow under
    one packet is no loss, the window passes it and the peaks wander by more than a packet."""
    got = _rounds_peaks(one_reno_flow, "in-turn", drop_at_least_one=False)
    assert np.ptp(got) > 1.0


# ---------------------------------------------- the Quick Vegas paper's different-RTT network
_EDGES_50 = [0.0, 50.0, 100.0, 150.0, 200.0]
_EDGES_100 = [0.0, 100.0, 200.0]


def _jains(res: tcpfluid.Result, edges: list[float]) -> list[float]:
    sc = res.scenario
    start = [f.start_s for f in sc.flows]
    stop = [min(f.stop_s, sc.duration_s) for f in sc.flows]
    t, dl = res.time_s, delivered_pkts(res.time_s, res.throughput_pps)
    return [float(jain_index(thr)) for _, thr in period_throughputs(t, dl, start, stop, edges)]


@pytest.fixture(scope="module")
def reno_different_rtt() -> dict[str, tcpfluid.Result]:
    """Reno on qv-different-rtt (60 flows, 50/100/200 ms, 1 Gb/s, 200 s) in every engine."""
    sc = build_scenario("qv-different-rtt").with_algorithm("reno")
    return {
        "packet": tcpfluid.simulate(sc, PACKET),
        "rounds": tcpfluid.simulate(sc, "rounds"),
        "ode": tcpfluid.simulate(sc, "ode"),
    }


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "measured: with the rest of an overflow beyond the flows' bursts dealt in runs of one"
        " flow's packets (docs/ode-model.md, 'Who loses the rest of an overflow') the hybrid's"
        " 100-s indices are 0.722 and 0.734 (0.757 and 0.806 before), 0.125 and 0.132 above"
        " the packets' 0.597 and 0.603, no longer more than 0.15"
    ),
)
def test_reno_different_rtt_packet_shares_swing_between_50s_periods(
    reno_different_rtt: dict[str, tcpfluid.Result],
) -> None:
    """The packet run moves the link between the RTT groups from one 50-s period to the
    next: its index swings by more than 0.3 between periods (0.38-0.82), while over 100-s
    periods it is steady (within 0.05: 0.597 and 0.603; 0.57 and 0.61 without ``bugFix_``).
    The round model's (0.533 and 0.545) is the next test's. The hybrid ODE engine's index is
    more than 0.15 higher (measured 0.78 and 0.81): a dropped packet holds its place until the
    sender learns of it, so each overflow costs every flow about one packet and every
    flow halves at every overflow; under such synchronised losses Reno's share goes as
    1/RTT (a 50-ms flow carries ~1.9 times a 100-ms flow, the test below), where the
    packets lock the long-RTT groups out by timeouts in turn."""
    r = reno_different_rtt
    p50 = _jains(r["packet"], _EDGES_50)
    assert max(p50) - min(p50) > 0.3
    p100 = _jains(r["packet"], _EDGES_100)
    assert abs(p100[0] - p100[1]) < 0.05
    assert np.all(np.array(_jains(r["ode"], _EDGES_100)) > np.array(p100) + 0.15)


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "with the packet senders' bugFix_ the packets' 0-100 s index is 0.597 and the round "
        "model's 0.533 (0.064 apart); within 0.05 (0.53 against 0.57) only against the go-back "
        "cuts of the sender without it"
    ),
)
def test_reno_different_rtt_round_model_index_follows_the_packets_in_0_100_s(
    reno_different_rtt: dict[str, tcpfluid.Result],
) -> None:
    """The round model's Jain's index over 0-100 s within 0.05 of the packets'."""
    r = reno_different_rtt
    p100 = _jains(r["packet"], _EDGES_100)
    assert abs(_jains(r["rounds"], _EDGES_100)[0] - p100[0]) < 0.05


def _group_rates(res: tcpfluid.Result) -> np.ndarray:
    """Mean delivered packets/s of a flow of each RTT group (20 flows each), per 50-s
    period: shape (periods, groups)."""
    t, dl = res.time_s, delivered_pkts(res.time_s, res.throughput_pps)
    periods = itertools.pairwise(_EDGES_50)
    got = np.array([[np.interp(b, t, x) - np.interp(a, t, x) for x in dl] for a, b in periods])
    return got.reshape(len(_EDGES_50) - 1, 3, -1).mean(axis=2) / 50.0


def _long_flow_window(res: tcpfluid.Result) -> float:
    """Mean window (packets) of the 200-ms group (flows 40-59) after 50 s."""
    late = np.asarray(res.time_s) >= 50.0
    return float(np.mean(np.asarray(res.window_pkts)[40:60][:, late]))


@pytest.fixture(scope="module")
def fast_different_rtt() -> tuple[tcpfluid.Scenario, tcpfluid.Result]:
    """FAST on qv-different-rtt (α = 100 packets per flow: 60 flows need 6000 against a
    1500-packet buffer, so the queue overflows all the time) and its packet run."""
    sc = build_scenario("qv-different-rtt").with_algorithm("fast")
    return sc, tcpfluid.simulate(sc, PACKET)


@pytest.mark.slow
def test_fast_different_rtt_one_cut_per_loss_episode_keeps_the_long_flows_and_the_link_busier(
    fast_different_rtt: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """Losses in the round after a flow's cut belong to its loss episode (a packet sender
    learns of a drop a round later and cuts once per episode). The round model's 200-ms
    flows then keep windows of tens of packets (69.9; the packets' 161.6, 46 without
    ``bugFix_``; 48.0 while a packet lost at an overflow was lost again at the next round
    clock, docs/round-model.md, "Several round clocks: a packet is lost once"; its 50-150 s
    indices are the next test's). It carries less than the packets: utilisation 0.906
    against 0.94, and a 100-ms flow ~1000 packets/s
    against the packets' 1390-1850 (the packet sender sends through its recoveries on the
    inflated window, which the round model's cut has no part of; not separated further).
    The packet run moves the link between the 50-ms and 100-ms groups from one 50-s period
    to the next (a 100-ms flow gets 1392-1848 packets/s), where the round model holds the
    100-ms group at one level (within 10 % over the periods).
    Switched off (``recovery_rounds=0``: every round's share a new loss event), the 200-ms
    flows, charged a share of the short flows' overflows every round, halve every round and
    sit at a few packets, the link idles (utilisation 0.80, further from the packets' 0.95
    than the 0.91 with the loss episodes) and every 50-s index is more than 0.05 below the
    packets'."""
    sc, pk = fast_different_rtt
    j_pk = _jains(pk, _EDGES_50)
    u_pk = float(pk.summary.utilization)
    rm = tcpfluid.simulate(sc, "rounds")
    assert _long_flow_window(rm) > 0.4 * _long_flow_window(pk)
    mid_pk, mid_rm = _group_rates(pk)[:, 1], _group_rates(rm)[:, 1]
    assert mid_pk.max() > 1.2 * mid_pk.min()
    assert mid_rm.max() < 1.1 * mid_rm.min()

    off = tcpfluid.simulate(sc, "rounds", recovery_rounds=0)
    assert _long_flow_window(off) < 5.0
    assert float(off.summary.utilization) < u_pk - 0.08
    u_rm, u_off = float(rm.summary.utilization), float(off.summary.utilization)
    assert abs(u_pk - u_rm) < abs(u_pk - u_off)
    assert all(o < p - 0.05 for o, p in zip(_jains(off, _EDGES_50), j_pk, strict=True))


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "with the packet timer's gains divided per window (no timeout without a loss) and "
        "ns-2's bugFix_ the packets' 50-150 s indices are 0.67 and 0.74 (0.59 and 0.67 "
        "without bugFix_), the round model's 0.52 and 0.53; the agreement within 0.05 "
        "(0.56-0.57) came with the timer's timeouts without a loss"
    ),
)
def test_fast_different_rtt_round_model_index_follows_the_packets_in_50_150_s(
    fast_different_rtt: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """The round model's Jain's index over 50-100 s and 100-150 s within 0.05 of the
    packets' (the loss episodes of the test above)."""
    sc, pk = fast_different_rtt
    rm = tcpfluid.simulate(sc, "rounds")
    j_pk = _jains(pk, _EDGES_50)
    np.testing.assert_allclose(_jains(rm, _EDGES_50)[1:3], j_pk[1:3], rtol=0, atol=0.05)


@pytest.mark.slow
def test_fast_different_rtt_engines_agree_once_the_buffer_holds_every_flows_alpha(
    fast_different_rtt: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """What is left between the engines is what they do at drop-tail overflows (the
    1500-packet buffer's utilisation: the next test). With a buffer that holds every flow's
    α (8000 packets) the fluid engines lose nothing and all three engines agree within 0.05
    on Jain's index in every 50-s period."""
    big = build_scenario("qv-different-rtt", buffer=8000).with_algorithm("fast")
    j_pk = _jains(tcpfluid.simulate(big, PACKET), _EDGES_50)
    for engine in ("rounds", "ode"):
        res = tcpfluid.simulate(big, engine)
        assert float(np.sum(res.summary.losses)) == 0.0, engine
        np.testing.assert_allclose(_jains(res, _EDGES_50), j_pk, rtol=0, atol=0.05)


@pytest.mark.slow
def test_fast_different_rtt_hybrid_link_idles_when_a_drop_frees_its_place_at_once(
    fast_different_rtt: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """The hybrid's idle link, and the two mechanisms that remove it. With a dropped
    packet's place freed at once (``hold_drops=False``) the flow sends it again in the
    next step while the queue is still full and its losses pile up until it learns of
    them: the 60 fluid flows time out together and the link idles (utilisation under 0.6,
    the packets' 0.94). With the place held until the sender learns of the drop and the
    packet sender's retransmission timer (the defaults) the link carries 0.84 (the next
    test); timeouts by lost fraction without the RTO's idle time
    (``timeout_loss_fraction=0.5``) keep it above 0.75 (0.95)."""
    sc, pk = fast_different_rtt
    ref = float(pk.summary.utilization)
    assert ref > 0.85
    freed = tcpfluid.simulate(sc, "ode", hold_drops=False)
    assert float(freed.summary.utilization) < 0.6
    held = tcpfluid.simulate(sc, "ode")
    assert float(held.summary.utilization) > float(freed.summary.utilization)
    by_fraction = tcpfluid.simulate(sc, "ode", timeout_loss_fraction=0.5)
    assert float(by_fraction.summary.utilization) > 0.75


@pytest.mark.slow
def test_fast_different_rtt_hybrid_carries_what_the_packets_carry(
    fast_different_rtt: tuple[tcpfluid.Scenario, tcpfluid.Result],
) -> None:
    """With the 1500-packet buffer the hybrid model's flows lose at the overflows as
    senders do (a drop holds its place until the sender learns of it, the packet sender's
    retransmission timer): its utilisation within the report's ±10 % of the packets'
    (0.969 against 0.935 since each flow's BaseRTT is its place's behind the first
    packets, docs/round-model.md, *The BaseRTT of a place*; 0.840 before, its flows
    restarting from 2 packets more often than the packets', docs/ode-model.md, "The
    repairs' RTT")."""
    sc, pk = fast_different_rtt
    ref = float(pk.summary.utilization)
    assert ref > 0.85
    held = tcpfluid.simulate(sc, "ode")
    assert abs(float(held.summary.utilization) - ref) <= 0.10 * ref


def _group_rate(res: tcpfluid.Result, a: float, b: float) -> np.ndarray:
    """Mean delivered packets/s of a flow of each RTT group (50, 100, 200 ms) over [a, b]."""
    t, dl = res.time_s, delivered_pkts(res.time_s, res.throughput_pps)
    got = np.array([np.interp(b, t, x) - np.interp(a, t, x) for x in dl]) / (b - a)
    return got.reshape(3, -1).mean(axis=1)


def _group_timeouts(res: tcpfluid.Result, a: float, b: float) -> list[int]:
    """Retransmission timeouts (the packet simulator's loss kind 3) of each RTT group in
    [a, b)."""
    out = [0, 0, 0]
    for i, f in enumerate(res.native.flows):
        inside = (f.loss_t_s >= a) & (f.loss_t_s < b)
        out[i * 3 // len(res.native.flows)] += int(np.sum(f.loss_kind[inside] == 3))
    return out


@pytest.fixture(scope="module")
def reno_different_rtt_spread() -> tcpfluid.Result:
    """Reno's packet run on qv-different-rtt with its flows started at seeded offsets within
    one packet's time at the bottleneck (8 us at 1 Gb/s; the report's first spread run)."""
    sc = build_scenario("qv-different-rtt", start_spread="8us", start_seed=1)
    return tcpfluid.simulate(sc.with_algorithm("reno"), PACKET)


@pytest.mark.slow
def test_reno_different_rtt_swing_is_timeouts_locking_groups_out_in_turn_in_every_start_order(
    reno_different_rtt: dict[str, tcpfluid.Result],
    reno_different_rtt_spread: tcpfluid.Result,
) -> None:
    """Why the packet index swings between 50-s periods, in the nominal run and in a run whose
    flows start in another order (within one packet time): from about 75 s the 100-ms and 200-ms
    flows, cut to tens of packets, time out again and again (more than 100 timeouts each group
    in 75-125 s; measured 123-209, 115-171 without ``bugFix_``) while the 50-ms group takes none
    and holds the queue near full: a 50-ms flow then carries more than ten times a 100-ms flow
    (measured 19.4-19.6; index 0.36-0.38 in 100-150 s). After 150 s the timeouts move to the
    50-ms group (61-65 in 150-200 s; 47-55 without ``bugFix_``) and the long flows come back: a
    50-ms flow carries less than 2.5 times a 100-ms flow (measured 1.8-1.9; index 0.80-0.82).
    The fluid engines take one halving per loss event and (almost) no timeout here: their 50-ms
    flow carries 2.5 to 5 times a 100-ms flow in every 25-s window after 50 s (round model;
    measured 3.5-4.1, near Reno's (RTT ratio)^2 = 4 with losses reaching every flow) or
    1.5 to 2.5 times (hybrid, whose held drops make every flow halve at every overflow:
    Reno's 1/RTT), so their index is steady where the packets' swings around it. In
    0-50 s (slow start and its overshoot) every packet group times out (at least 20
    timeouts each; measured 28-76) and a 50-ms flow carries less than a round-model one
    against a 100-ms flow (measured 3.0 and 3.5 times; 2.1-2.5 without ``bugFix_``), where
    the round model's carries 4.3 times (index 0.52 against the packets' 0.66)."""
    rm_start = _group_rate(reno_different_rtt["rounds"], 0.0, 50.0)
    assert rm_start[0] > 3.5 * rm_start[1]
    for pk in (reno_different_rtt["packet"], reno_different_rtt_spread):
        start = _group_rate(pk, 0.0, 50.0)
        assert start[0] / start[1] < rm_start[0] / rm_start[1]
        assert min(_group_timeouts(pk, 0.0, 50.0)) >= 20
        locked = _group_rate(pk, 75.0, 125.0)
        assert locked[0] > 10.0 * locked[1]
        to = _group_timeouts(pk, 75.0, 125.0)
        assert to[1] > 100 and to[2] > 100 and to[0] <= 5, to
        q = np.asarray(pk.queue_pkts)[(pk.time_s >= 75.0) & (pk.time_s < 125.0)]
        assert float(np.mean(q)) > 1000.0  # of the 1500-packet buffer
        back = _group_rate(pk, 150.0, 200.0)
        assert back[0] < 2.5 * back[1]
        assert _group_timeouts(pk, 150.0, 200.0)[0] > 30
    for a in range(50, 200, 25):
        g = _group_rate(reno_different_rtt["rounds"], float(a), float(a + 25))
        assert 2.5 < g[0] / g[1] < 5.0, ("rounds", a, g)
        # the hybrid: every flow halves at every overflow (held drops, about one packet
        # each), Reno's 1/RTT share under synchronised losses (measured 1.75-1.89)
        g = _group_rate(reno_different_rtt["ode"], float(a), float(a + 25))
        assert 1.5 < g[0] / g[1] < 2.5, ("ode", a, g)
