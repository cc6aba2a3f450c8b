"""The Quick Vegas paper's §5.3.1 (Table 2): 60 flows joining in three groups on 1 Gb/s.

With ``drop_share="proportional"`` (the default) the round model shares a round's drop-tail overflow
among the flows in proportion to their windows and gives every flow with a share a loss
event, so one overflow halves every flow: Reno's flows stay equal (100-200 s: 0.996 where
the paper prints 0.946 and the packet simulator gives 0.942). With ``"in-turn"`` (the
overflow's whole packets one per flow, flow after flow; a part of a packet waits for the
next overflow) the flows no longer halve together, and Reno's index follows the paper.

FAST (α = 100 packets per flow against a 1500-packet buffer) overflows by more than a
packet per flow every other round under either rule, so every flow halves: a synchronised
two-round cycle (double, overflow, all halve) in which the third group, joining at 200 s
in slow start, is halved every other round at 2-4 packets (Jain's index 0.69 in
200-300 s where the paper prints 0.986). With the loss events falling on whole windows of
one flow after another (an overflow hits the few flows arriving then) the round model
gives the paper's index.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.analytic import jain_index
from tcpfluid.engines import Rounds
from tcpfluid.fairness import delivered_pkts
from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario


def _period_jain(
    law: str,
    a: float,
    b: float,
    drop_share: str = Rounds.drop_share,
    loss_event_rule: str = "share",
) -> float:
    """Round-model Jain's index of the flows active over [a, b) s on qv-many-flows."""
    sc = build_scenario("qv-many-flows").with_algorithm(law)
    res = tcpfluid.simulate(sc, "rounds", drop_share=drop_share, loss_event_rule=loss_event_rule)
    t = np.asarray(res.time_s)
    dl = delivered_pkts(t, np.asarray(res.throughput_pps))
    act = [i for i, f in enumerate(sc.flows) if f.start_s <= a and f.stop_s >= b]
    got = [np.interp(b, t, dl[i]) - np.interp(a, t, dl[i]) for i in act]
    return float(jain_index(got))


def _doc(law: str, period: str) -> float:
    """The paper's Table 2 index of ``law`` in ``period`` (e.g. "200-300")."""
    return float(published(f"000/table2/{law}/{period}").value)


@pytest.mark.parametrize("drop_share", ["proportional", "in-turn"])
def test_fast_third_group_is_starved_by_synchronised_halvings(drop_share: str) -> None:
    assert _period_jain("fast", 200.0, 300.0, drop_share) < _doc("fast", "200-300") - 0.05


def test_fast_many_flows_index_follows_the_paper_when_an_overflow_hits_few_flows() -> None:
    """The switch ``loss_event_rule="windows-in-turn"``: a round's lost packets fall on whole
    windows of one active flow after another, from where the last overflow stopped."""
    got = _period_jain("fast", 200.0, 300.0, "proportional", "windows-in-turn")
    assert got == pytest.approx(_doc("fast", "200-300"), abs=0.05)


def test_reno_halvings_are_synchronised_when_every_flow_shares_an_overflow() -> None:
    got = _period_jain("reno", 100.0, 200.0, "proportional")
    assert got > _doc("reno", "100-200") + 0.04


def test_reno_many_flows_index_follows_the_paper_when_an_overflow_hits_few_flows() -> None:
    got = _period_jain("reno", 100.0, 200.0, "proportional", "windows-in-turn")
    assert got == pytest.approx(_doc("reno", "100-200"), abs=0.05)


def test_reno_many_flows_index_follows_the_paper_and_the_packets_with_overflows_in_turn() -> None:
    """Whole packets one per flow in turn: 100-200 s within 0.05 of the
    paper's 0.946 and of the packet simulator's 0.942 (its value in the report; the packet
    run takes 60 s of CPU), and every other period within 0.05 of the paper's."""
    for period in ("0-100", "100-200", "200-300", "300-400", "400-500"):
        a, b = (float(x) for x in period.split("-"))
        got = _period_jain("reno", a, b, "in-turn")
        assert got == pytest.approx(_doc("reno", period), abs=0.05), period
    assert _period_jain("reno", 100.0, 200.0, "in-turn") == pytest.approx(0.942, abs=0.05)


def test_reno_many_flows_index_follows_the_paper_with_the_overflow_on_the_growth() -> None:
    """``drop_share="growth"``: the join's overflow falls on the joining flows' slow-start
    packets (tests/fluid/test_hybrid_drops.py) and a flow takes a loss event once it has
    lost a whole packet: 100-200 s within 0.05 of the paper's 0.946 and of the packet
    simulator's 0.942 (its value in the report), where the proportional share gives more
    than the paper's + 0.04 (test above)."""
    got = _period_jain("reno", 100.0, 200.0, "growth")
    assert got == pytest.approx(_doc("reno", "100-200"), abs=0.05)
    assert got == pytest.approx(0.942, abs=0.05)
