"""How the round model shares a drop-tail overflow among many flows.

Two rules (option ``drop_share``): ``"proportional"`` (every flow in flight loses in
proportion to its window) and ``"in-turn"`` (the overflow's whole packets fall one per
flow, flow after flow). Checked here: the in-turn rule's arithmetic against a count by
hand, that with one flow both rules lose the same packets, and, on the Quick Vegas
paper's §5.3 networks, what each rule gives against the packet simulator.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.fairness import _delivered_pkts, _packet_delivered, _period_jains
from tcpfluid.fluid._rounds_law import OverflowShare
from tcpfluid.fluid.rounds import simulate_rounds
from tcpfluid.path import Path
from tcpfluid.scenarios import build_scenario


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


def test_in_turn_never_takes_more_than_a_window() -> None:
    got = OverflowShare(1)(np.array([6.0, 6.0]), np.array([2.0, 10.0]))
    np.testing.assert_array_equal(got, [2.0, 6.0])


def test_bad_drop_share_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="drop_share"):
        simulate_rounds(get_law("reno"), Path(1000.0, 0.1, buffer=50), rounds=3, drop_share="x")
    sc = build_scenario("qv-different-rtt", flows_per_group=1, duration="1s")
    with pytest.raises(ValueError, match="drop_share"):
        tcpfluid.simulate(sc.with_algorithm("reno"), "rounds", drop_share="random")


def test_one_flow_loses_the_same_whole_packets_either_way() -> None:
    """One Reno flow: its overflows are whole packets or more (slow start, then one packet
    a round over the buffer), so both rules give its windows within a packet."""
    path = Path(1000.0, 0.1, buffer=50)
    kw = {"duration_s": 30.0}
    a = simulate_rounds(get_law("reno"), path, **kw)
    b = simulate_rounds(get_law("reno"), path, drop_share="in-turn", **kw)
    assert int(np.asarray(a.losses).sum()) > 3
    np.testing.assert_allclose(b.window_pkts[:40], a.window_pkts[:40], rtol=0, atol=1.0)


# ---------------------------------------------- the Quick Vegas paper's different-RTT network
_EDGES_50 = [0.0, 50.0, 100.0, 150.0, 200.0]
_EDGES_100 = [0.0, 100.0, 200.0]


def _jains(res: tcpfluid.Result, edges: list[float], packet: bool = False) -> list[float]:
    sc = res.scenario
    start = [f.start_s for f in sc.flows]
    stop = [min(f.stop_s, sc.duration_s) for f in sc.flows]
    if packet:
        t, dl = _packet_delivered(res)
    else:
        t, dl = res.time_s, _delivered_pkts(res.time_s, res.throughput_pps)
    return _period_jains(t, dl, start, stop, edges)


@pytest.fixture(scope="module")
def reno_different_rtt() -> dict[str, tcpfluid.Result]:
    """Reno on qv-different-rtt (60 flows, 50/100/200 ms, 1 Gb/s, 200 s) in every engine."""
    sc = build_scenario("qv-different-rtt").with_algorithm("reno")
    return {
        "packet": tcpfluid.simulate(sc, "packet"),
        "rounds": tcpfluid.simulate(sc, "rounds"),
        "ode": tcpfluid.simulate(sc, "ode"),
    }


@pytest.mark.slow
def test_reno_different_rtt_packet_shares_swing_between_50s_periods(
    reno_different_rtt: dict[str, tcpfluid.Result],
) -> None:
    """The packet run moves the link between the RTT groups from one 50-s period to the
    next: its index swings by more than 0.3 between periods, while over 100-s periods it
    is steady (within 0.05) and both fluid engines agree with it within 0.05 there."""
    r = reno_different_rtt
    p50 = _jains(r["packet"], _EDGES_50, packet=True)
    assert max(p50) - min(p50) > 0.3
    p100 = _jains(r["packet"], _EDGES_100, packet=True)
    assert abs(p100[0] - p100[1]) < 0.05
    np.testing.assert_allclose(_jains(r["rounds"], _EDGES_100), p100, rtol=0, atol=0.05)
    np.testing.assert_allclose(_jains(r["ode"], _EDGES_100), p100, rtol=0, atol=0.05)


@pytest.mark.slow
def test_fast_different_rtt_long_flows_lose_as_often_as_the_packets_but_do_not_regrow() -> None:
    """FAST on qv-different-rtt (α = 100 packets per flow: 60 flows need 6000 against a
    1500-packet buffer, so the queue overflows every round). The round model's 200-ms
    flows take about as many loss events as the packet simulator's (within 25 %: their
    share of every group's overflows), but FAST halves on each and doubles at most once a
    round, so they sit at a few packets where the packet flows keep windows of tens: their
    mean window is under a third of the packets' and the round model's index is below
    the packet run's in every 50-s period."""
    sc = build_scenario("qv-different-rtt").with_algorithm("fast")
    pk = tcpfluid.simulate(sc, "packet")
    rm = tcpfluid.simulate(sc, "rounds")
    long_flows = list(range(40, 60))  # the third group: 200 ms
    ev_pk = np.mean([pk.summary.flows[i].losses for i in long_flows])
    ev_rm = np.mean([rm.summary.flows[i].losses for i in long_flows])
    assert ev_rm == pytest.approx(ev_pk, rel=0.25)
    late_pk = pk.time_s >= 50.0
    late_rm = rm.time_s >= 50.0
    w_pk = float(np.mean(np.asarray(pk.window_pkts)[long_flows][:, late_pk]))
    w_rm = float(np.mean(np.asarray(rm.window_pkts)[long_flows][:, late_rm]))
    assert w_rm < w_pk / 3.0
    j_pk = _jains(pk, _EDGES_50, packet=True)
    j_rm = _jains(rm, _EDGES_50)
    assert all(r < p for r, p in zip(j_rm, j_pk, strict=True))
