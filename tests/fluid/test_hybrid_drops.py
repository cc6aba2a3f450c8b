"""Who loses at a drop-tail overflow in the fluid engines, against the packet simulator.

Measured on a scaled-down copy of the Quick Vegas paper's many-flows scenario (Reno,
100 Mb/s, 12 flows joining in groups of four at 0, 20 and 40 s, a 150-packet buffer):
when the second group joins in slow start and overflows the queue, the packet
simulator's drops fall on the joining flows (each retransmits dozens of packets in the
next 5 s) and hardly on the four flows already there (at most a couple each). Two
readings of the hybrid decide how close it comes:

- a dropped packet keeps its place in the sender's window until the ACKs of the packets
  behind it tell the sender, one base RTT later (``hold_drops=True``); with the place
  freed at the drop, the flow sends the dropped fluid again in the next step while the
  queue is still full, and each flow already there "loses" thousands of packets, dozens
  of windows, in one overflow episode;
- ``drop_share="growth"``: the overflow falls first on the packets each flow sends beyond
  its ACK clock (a sender sends them back to back after the packet an ACK clocks out, so
  they meet the full queue), which at a slow-start join are the joining flows' packets.

The round model's ``drop_share="growth"`` deals a round's overflow the same way (first on
each flow's per-ACK growth of the round) and gives a flow a loss event once its losses
reach a whole packet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.fluid import rounds
from tcpfluid.fluid.hybrid import simulate_hybrid
from tcpfluid.scenarios import build_scenario

_SCALED = {"bandwidth": "100Mbps", "flows": 12, "group_interval": "20s", "active": "60s"}
OLD, NEW = slice(0, 4), slice(4, 8)  # the first group, and the group joining at 20 s
JOIN_S, AFTER_S = 20.0, 25.0


def _scenario(duration: str) -> tcpfluid.Scenario:
    return build_scenario("qv-many-flows", buffer=150, duration=duration, **_SCALED).with_algorithm(
        "reno"
    )


@pytest.fixture(scope="module")
def packet_drops() -> np.ndarray:
    """The packet simulator's retransmissions of flows 0-7 from just before the join at
    20 s to 25 s (two runs of the same deterministic scenario, differenced)."""
    before = tcpfluid.simulate(_scenario("19.9s"), "packet").native.flows
    after = tcpfluid.simulate(_scenario("25s"), "packet").native.flows
    got = np.array([f.retransmissions for f in after], dtype=float)
    got[OLD] -= [f.retransmissions for f in before[:4]]
    return got


def _hybrid_drops(monkeypatch: pytest.MonkeyPatch, hold: bool, drop_share: str) -> np.ndarray:
    """The hybrid's dropped packets of flows 0-7 from just before the join to 25 s."""
    h = tcpfluid.simulate(
        _scenario("30s"), "ode", drop_share=drop_share, hold_drops=hold
    ).native.hybrid
    t, lost = np.asarray(h.time_s), np.asarray(h.lost_pkts)
    a, b = np.searchsorted(t, JOIN_S - 0.1), np.searchsorted(t, AFTER_S)
    return (lost[:, b] - lost[:, a])[:8]


def test_packet_drops_at_a_slow_start_join_fall_on_the_joining_flows(
    packet_drops: np.ndarray,
) -> None:
    assert np.all(packet_drops[NEW] >= 50.0)
    assert np.all(packet_drops[OLD] <= 2.0)


def test_a_drop_that_frees_its_place_at_once_is_lost_again_and_again(
    packet_drops: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Freed at the drop, the flows already there each lose more than ten windows (their
    windows are below 300 packets) in the join's overflow, where a packet flow loses at
    most two packets; held until the ACKs tell, less than a window."""
    freed = _hybrid_drops(monkeypatch, hold=False, drop_share="proportional")
    assert np.all(freed[OLD] > 3000.0)
    held = _hybrid_drops(monkeypatch, hold=True, drop_share="proportional")
    assert np.all(held[OLD] < 300.0)
    assert np.all(held[OLD] > 10.0 * packet_drops[OLD].max())


def test_the_overflow_beyond_the_ack_clock_falls_on_the_joining_flows(
    packet_drops: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With held drops and the overflow on the packets beyond each flow's ACK clock the
    flows already there lose a few packets each, as in the packet simulator, and the
    joining flows more than ten times as many."""
    grown = _hybrid_drops(monkeypatch, hold=True, drop_share="growth")
    assert np.all(grown[OLD] <= packet_drops[OLD].max() + 3.0)
    assert grown[NEW].min() > 10.0 * grown[OLD].max()


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "measured: shared in proportion to the arrivals, the flows already there lose 15.6 "
        "packets each against the joining flows' 63.3 (36.7 against 64.1 before a timeout "
        "with duplicate ACKs behind its holes reached the law as a fast retransmit and then "
        "a timeout, docs/ode-model.md; why the proportional share then spares the flows "
        "already there is not examined); the packet simulator's flows already there lose "
        "at most 2"
    ),
)
def test_shared_in_proportion_the_flows_already_there_lose_a_third_of_the_joiners(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Shared in proportion to the arrivals, the flows already there lose more than a
    third as many as the joining flows (the contrast with the growth share)."""
    prop = _hybrid_drops(monkeypatch, hold=True, drop_share="proportional")
    assert prop[OLD].min() > prop[NEW].max() / 3.0


@pytest.mark.parametrize("hold", [False, True])
def test_one_flow_loses_the_same_under_every_sharing_rule(
    hold: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A single flow takes the whole overflow whatever the rule: the growth rule and the
    proportional one give the same run (to rounding), a Reno sawtooth with losses."""
    law = get_law("reno")
    runs = [
        simulate_hybrid(
            law,
            mu_pps=1000.0,
            base_rtt_s=[0.1],
            duration_s=60.0,
            buffer_pkts=50.0,
            drop_share=s,
            hold_drops=hold,
        )
        for s in ("proportional", "growth")
    ]
    assert runs[0].summary.losses[0] >= 3
    np.testing.assert_allclose(runs[1].window_pkts, runs[0].window_pkts, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(runs[1].lost_pkts, runs[0].lost_pkts, rtol=1e-9, atol=1e-9)


def _round_model_drops(monkeypatch: pytest.MonkeyPatch, drop_share: str) -> np.ndarray:
    """The round model's losses of flows 0-7 in the rounds starting from just before the
    join to 25 s (each round's shares, observed as the loop computes them)."""
    from tcpfluid.fluid import _rounds_engine
    from tcpfluid.fluid._rounds_engine import RoundEngine

    got = np.zeros(12)
    losses = _rounds_engine.round_losses

    def observe(eng: RoundEngine, c: int, lost_s: Any, w1: Any, z: Any, total: Any,
                others: Any, t0: Any, *rest: Any) -> Any:  # fmt: skip
        out = losses(eng, c, lost_s, w1, z, total, others, t0, *rest)
        t = float(np.ravel(t0)[0])
        if out is not None and JOIN_S - 0.1 <= t < AFTER_S:
            got[: out.size] += out
        return out

    monkeypatch.setattr(_rounds_engine, "round_losses", observe)
    tcpfluid.simulate(_scenario("30s"), "rounds", drop_share=drop_share)
    return got[:8]


def test_the_round_models_growth_share_puts_a_join_overflow_on_the_joining_flows(
    packet_drops: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shared in proportion to the windows, each flow already there loses more at the join
    than each joining flow (their windows are larger); on the growth first, a few packets
    each, as in the packet simulator, and the joining flows more than ten times as many."""
    prop = _round_model_drops(monkeypatch, "proportional")
    assert prop[OLD].min() > prop[NEW].max()
    grown = _round_model_drops(monkeypatch, "growth")
    assert np.all(grown[OLD] <= packet_drops[OLD].max() + 3.0)
    assert grown[NEW].min() > 10.0 * grown[OLD].max()


def test_one_flow_loses_the_same_under_the_round_models_growth_share() -> None:
    """One flow: the growth share and the proportional one give the same run (to
    rounding), a Reno sawtooth whose every overflow is a loss event."""
    law = get_law("reno")
    path = tcpfluid.Path(1000.0, 0.1, buffer=50)
    a, b = (
        rounds.simulate_rounds(law, path, duration_s=120.0, drop_share=s)
        for s in ("proportional", "growth")
    )
    assert a.summary.losses[0, 0] >= 3
    np.testing.assert_array_equal(b.summary.losses, a.summary.losses)
    np.testing.assert_allclose(b.window_pkts, a.window_pkts, rtol=1e-9, atol=1e-9)


def test_a_held_drop_is_not_sent_again_before_the_sender_learns_of_it() -> None:
    """A packet sender never sends a packet again before it learns it was lost, so before
    its first ACK a flow can lose at most the window it started with. Fourteen iTCP-Vegas
    flows start together with their initial window on 1.28 Mb/s x 12.8 ms with a 3-packet
    buffer: most of the 28 packets overflow, and a flow whose whole window was lost learns
    of it from the timer alone. The place of a held drop used to be freed one base RTT
    after the drop, before the sender learnt of it (a base RTT plus the queueing delay the
    drop met): the flow sent its window again, lost it again, and counted 4 losses out of
    a window of 2 (a retransmission timeout every time, for ever)."""
    law = get_law("itcp-vegas")
    w0 = float(law.initial_action(law.init_state(1)).cwnd[0])
    res = simulate_hybrid(
        law, mu_pps=1.28e6 / 8000.0, base_rtt_s=[0.0128] * 14, duration_s=0.5,
        buffer_pkts=3.0, record_every_s=0.0001,
    )  # fmt: skip
    t = res.time_s
    for j, fl in enumerate(res.flows):
        if fl.loss_t_s.size == 0:
            continue
        first = float(fl.loss_t_s[0])
        k = int(np.searchsorted(t, first, side="right")) - 1
        if res.delivered_pkts[j, k] > 0.0:
            continue  # ACKed packets grew the window: the initial window is no bound
        assert res.lost_pkts[j, k] <= w0 + 1e-9, (j, res.lost_pkts[j, k], w0)


def test_the_retransmission_timer_starts_at_1_s_and_doubles_while_nothing_gets_through() -> None:
    """RFC 6298 (the packet sender's timer): 1 s before the first RTT sample (§2.1), and
    doubled at each timeout until an ACK brings a fresh estimate (§5.5). A flow whose
    every window is lost at a full 3-packet queue (fourteen iTCP-Vegas flows starting
    together on 1.28 Mb/s x 12.8 ms; a few of them take the queue) learns of each loss a
    base RTT plus a queueing delay after sending, then waits 1, 2, 4 s: its loss events
    are 1, 2, 4 s plus that delay apart (it was 0.2 s, every time, in the hybrid model).
    The flows start 1 µs apart, so that no two start together: flows that do lose their
    first windows by the start's own rule and never send them (docs/round-model.md,
    "Lock-out at a simultaneous start"; tests/fluid/test_start_lockout.py)."""
    law = get_law("itcp-vegas")
    res = simulate_hybrid(
        law, mu_pps=1.28e6 / 8000.0, base_rtt_s=[0.0128] * 14, duration_s=8.0, buffer_pkts=3.0,
        flow_start_s=[1e-6 * j for j in range(14)],
    )  # fmt: skip
    starved = [fl for fl in res.flows if fl.delivered_pkts == 0.0]
    assert starved  # most of the flows never get a packet through
    learn = 0.0128 + 4.0 / (1.28e6 / 8000.0)  # base RTT + the full queue's delay, at most
    for fl in starved:
        gaps = np.diff(fl.loss_t_s)
        assert gaps.size >= 2
        for k, gap in enumerate(gaps):
            assert 2.0**k <= gap <= 2.0**k + learn + 1e-9, (k, gap)


@pytest.fixture(scope="module")
def five_reno() -> dict[str, Any]:
    """Five Reno flows that start together on 10 Mb/s x 50 ms with a 30-packet buffer
    (the TCP-Ho paper's Table 5 path scaled down), 30 s: the summaries of the packet
    simulator, the hybrid, and the hybrid with the overflow shared in proportion."""
    sc = build_scenario(
        "ho-fairness", algorithm="reno", bandwidth="10Mbps", buffer=30, duration="30s"
    )
    return {
        "packet": tcpfluid.simulate(sc, "packet").summary,
        "growth": tcpfluid.simulate(sc, "ode").summary,
        "proportional": tcpfluid.simulate(sc, "ode", drop_share="proportional").summary,
    }


def test_with_the_growth_share_a_fraction_carried_to_the_next_overflow_desynchronises(
    five_reno: dict[str, Any],
) -> None:
    """Every flow's growth packet of the round meets the full queue: in packets every flow
    loses one at every overflow and all five halve together (40 loss events each). With
    the growth share a hybrid flow's overflow in the round before it learns is its own
    growth, about one packet, at the whole-packet threshold; a fraction short of it is
    carried, the next overflow's first drop completes it, the flow reacts in that step
    and drains the queue before the others lose theirs (traced on the unscaled path,
    docs/ode-model.md; here 31-32 loss events each, the link busier). Shared in
    proportion to the arrivals the flows stay identical, each loses a whole packet within
    the round and all five halve together as in packets. Reference: the packet run; the
    flows' counts within 15 % (6 of the packets' 40), the utilization within 0.02; the
    growth share's counts a fifth below the packets' and its link 0.03 busier."""
    pk, gro, prop = (five_reno[k] for k in ("packet", "growth", "proportional"))
    np.testing.assert_allclose(prop.losses, pk.losses, rtol=0.15)
    assert abs(prop.utilization - pk.utilization) < 0.02
    assert np.all(np.asarray(gro.losses) < 0.85 * np.asarray(pk.losses))
    assert gro.utilization > pk.utilization + 0.03


def test_a_dithered_loss_event_before_a_whole_packet_keeps_the_shortfall_as_a_debt() -> None:
    """Behind RED (``red_losses="dithered"``) a flow's loss event may come before it has
    lost a whole packet: the shortfall is a debt its next drops pay first, and its next
    event needs its next threshold, Roberts's R2 sequence by hand: 1 - frac(n * 0.75487...
    + j * 0.56984...). With ``"whole"`` the count starts again from 0 and the threshold
    stays one packet."""
    from tcpfluid.fluid import _hybrid_kernel as K

    ff = np.zeros((2, K.N_FLOW_ROWS))
    ff[:, K.F_DITHER] = (1.0, 0.0)
    ff[:, K.F_LOSS_AT] = (K.loss_threshold(0, 0.0), 1.0)
    assert ff[0, K.F_LOSS_AT] == 1.0  # flow 0's first threshold: 1 - frac(0)
    ff[:, K.F_LOST] = 0.3
    for j in (0, 1):
        K._loss_apply_one(ff, j, 1.0, 10.0, 0.0, 0.1)
    assert ff[0, K.F_LOST] == pytest.approx(-0.7)  # 0.3 lost, a whole packet's event
    assert ff[0, K.F_LOSS_AT] == pytest.approx(1.0 - 0.7548776662466927)  # n = 1, j = 0
    assert (ff[1, K.F_LOST], ff[1, K.F_LOSS_AT]) == (0.0, 1.0)
    # an event of more than a whole packet leaves no debt; flow 1's second threshold
    ff[:, K.F_DITHER] = 1.0
    ff[:, K.F_LOST] = 2.5
    K._loss_apply_one(ff, 1, 2.0, 10.0, 0.0, 0.1)
    assert ff[1, K.F_LOST] == 0.0
    # n = 1, j = 1: 1 - frac(0.75488 + 0.56984) = 2 - 0.75488 - 0.56984
    assert ff[1, K.F_LOSS_AT] == pytest.approx(2.0 - 0.7548776662466927 - 0.5698402909980532)
