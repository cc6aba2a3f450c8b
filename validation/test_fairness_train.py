"""Two Enhanced Vegas flows (α = β = δ) whose long flow arrives as a train.

Tsang's thesis (chapter 3 §4.3, Table 3.16) measures Jain's index 0.86-0.93 for Vegas-1
(δ = 1) at x2 = 80-110 ms, where the Boutremans–Le Boudec equilibrium (all packets see
one queueing delay) gives 1.00. The packet simulator shows the mechanism: the long flow's
window reaches the bottleneck as one ACK-clocked train covering about half its round
(the shape its slow start leaves), the short flow fills the gaps between trains, and
:func:`tcpfluid.analytic.blb_train_equilibrium` with the measured train fraction predicts
the index. Changing only the start-up (γ) switches the train off and the index returns to
one.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp

from tcpfluid.analytic import blb_equilibrium, jain_index
from tcpfluid.analytic.equilibrium import blb_train_equilibrium
from tcpfluid.fairness.trains import train_fraction
from tcpfluid.fluid.ode import ode_problem
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.scenarios import Scenario, build_scenario
from tcpfluid.sim import simulate_packets

C = 187.5  # 1.5 Mb/s in 1000-byte packets


def test_train_equilibrium_is_the_phase_conditions_solved_in_sympy() -> None:
    a1, a2, f, c, dt, dg = sp.symbols("a1 a2 f c d_t d_g", positive=True)
    # train phase: the other flow sends at a1/δt, the train flow its whole window in a
    # fraction f of its round; gap: the other flow alone fills the link
    d_t = sp.solve(sp.Eq(a1 / dt + a2 / (f * dt), c), dt)[0]
    d_g = sp.solve(sp.Eq(a1 / dg, c), dg)[0]
    r_train = a2 / d_t
    r_other = f * a1 / d_t + (1 - f) * a1 / d_g
    assert sp.simplify(r_train + r_other - c) == 0  # the link stays full
    jain = sp.simplify((r_train + r_other) ** 2 / (2 * (r_train**2 + r_other**2)))
    assert sp.simplify(jain.subs(a1, a2) - (1 + f) ** 2 / (2 * (1 + f**2))) == 0
    for av1, av2, fv in ((1.0, 1.0, 0.5), (1.0, 2.0, 0.3), (3.0, 1.0, 0.8), (2.0, 2.0, 1.0)):
        sub = {a1: av1, a2: av2, f: fv, c: C}
        eq = blb_train_equilibrium([av1, av2], 0.0, C, train_fraction=fv)
        assert eq.rates_pps == pytest.approx(
            [float(r_other.subs(sub)), float(r_train.subs(sub))], rel=1e-10
        )
        assert eq.queueing_delay_train_s == pytest.approx(float(d_t.subs(sub)), rel=1e-10)
        assert eq.jain_index == pytest.approx(float(jain.subs(sub)), rel=1e-10)


def test_a_train_spread_over_the_round_is_the_boutremans_le_boudec_equilibrium() -> None:
    for x in ([0.0, 0.005], [0.002, 0.0], [0.001, 0.003, 0.0]):
        a = [1.0, 2.0, 1.5][: len(x)]
        eq = blb_train_equilibrium(a, x, C, train_fraction=1.0)
        ref = blb_equilibrium(a, x, C)
        assert eq.rates_pps == pytest.approx(ref.rates_pps, rel=1e-9)
        assert eq.queueing_delay_train_s == pytest.approx(ref.queueing_delay_s, rel=1e-9)


def test_train_equilibrium_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="train_fraction"):
        blb_train_equilibrium([1, 1], 0.0, C, train_fraction=0.0)
    with pytest.raises(ValueError, match="train_fraction"):
        blb_train_equilibrium([1, 1], 0.0, C, train_fraction=1.5)
    with pytest.raises(ValueError, match="at least two"):
        blb_train_equilibrium([1], 0.0, C, train_fraction=0.5)
    with pytest.raises(ValueError, match="train_flow"):
        blb_train_equilibrium([1, 1], 0.0, C, train_fraction=0.5, train_flow=2)
    with pytest.raises(ValueError, match="sampled every"):
        t = np.arange(1, 601) * 0.1
        train_fraction(t, np.ones_like(t), C, start_s=10.0, end_s=60.0)


def _thesis_vegas_1(x2_ms: int, gamma: float = 1.0) -> tuple[float, float, float]:
    """Packet Jain's index (10-60 s), the long flow's train fraction and the closed form
    with that fraction and the BaseRTT over-estimates the run measured."""
    packet, f, closed, _, _ = _thesis_vegas_1_run(x2_ms, gamma)
    return packet, f, closed


@functools.cache
def _thesis_vegas_1_run(x2_ms: int, gamma: float) -> tuple[float, float, float, float, float]:
    """As :func:`_thesis_vegas_1`, plus the closed form's queueing delay while the train
    passes and the mean queueing delay of the long flow's rounds (its mean RTT minus its
    propagation delay), s."""
    sc = build_scenario(
        "thesis-two-flow", x2=f"{x2_ms}ms", queue="red", duration="60s", delta=1.0, gamma=gamma
    ).with_algorithm("enhanced-vegas")
    prop = np.array([f.rtt_s for f in ode_problem(sc).flows])
    res = simulate_packets(sc, sample_interval_s=0.001)
    m = (res.t_s > 10.0) & (res.t_s <= 60.0)
    packet = float(jain_index([f.goodput_pps[m].mean() for f in res.flows]))
    x = np.maximum(np.array([f.base_rtt_s for f in res.flows]) - prop, 0.0)
    f = train_fraction(res.t_s, res.flows[1].goodput_pps, C, start_s=10.0, end_s=60.0)
    eq = blb_train_equilibrium([1.0, 1.0], x, C, train_fraction=f)
    long_flow = res.flows[1]
    r = (long_flow.round_t_s > 10.0) & (long_flow.round_t_s <= 60.0)
    seen = float(np.mean(long_flow.round_rtt_mean_s[r]) - prop[1])
    return packet, f, eq.jain_index, eq.queueing_delay_train_s, seen


@pytest.mark.parametrize("x2_ms", [80, 90, 100, 110])
def test_long_flow_train_sets_the_thesis_vegas_1_index(x2_ms: int) -> None:
    packet, f, closed = _thesis_vegas_1(x2_ms)
    doc = THESIS_TABLE_3_16[x2_ms]["vegas-1"]
    assert f < 0.65  # the long flow is at the bottleneck about half its round
    assert abs(closed - packet) <= 0.05
    assert abs(closed - doc) <= 0.05
    assert packet < 0.95  # the one-delay equilibrium (1.00 here) is off


@pytest.mark.parametrize("x2_ms", [80, 110])
def test_the_long_flow_measures_the_train_queue_the_closed_form_predicts(x2_ms: int) -> None:
    """An independent check: f comes from when the long flow's packets leave the bottleneck;
    the queueing delay its RTT samples carry is the closed form's δ_t within 10 %."""
    _, f, _, delta_train, seen = _thesis_vegas_1_run(x2_ms, 1.0)
    assert f < 0.65
    assert seen == pytest.approx(delta_train, rel=0.10)


@pytest.mark.parametrize("x2_ms", [1, 50, 70])
def test_a_spread_long_flow_keeps_the_thesis_vegas_1_index_near_one(x2_ms: int) -> None:
    packet, f, closed = _thesis_vegas_1(x2_ms)
    assert f > 0.7
    assert abs(closed - packet) <= 0.05
    assert abs(closed - THESIS_TABLE_3_16[x2_ms]["vegas-1"]) <= 0.05


def test_a_start_up_without_the_train_makes_vegas_1_fair_at_x2_80ms() -> None:
    """Switch: γ = 8 changes only the slow-start exit; the long flow's train spreads over its
    round and the index returns to one, as the closed form says."""
    packet, f, closed = _thesis_vegas_1(80, gamma=8.0)
    assert f > 0.75
    assert packet > 0.95
    assert abs(closed - packet) <= 0.05


def test_the_round_model_has_no_train_and_agrees_with_a_packet_run_without_one() -> None:
    """The round model spreads each window over its round (f = 1: no train). At x2 = 80 ms
    it is more than 0.05 above the packet run that carries the train, and within 0.05 of
    the packet run whose start-up (γ = 8) leaves none."""
    import tcpfluid
    from tcpfluid.fairness import delivered_pkts

    def jain_10_60(r: tcpfluid.Result) -> float:
        t = np.asarray(r.time_s)
        dl = delivered_pkts(t, np.asarray(r.throughput_pps))
        thr = dl[:, -1] - np.array([np.interp(10.0, t, row) for row in dl])
        return float(jain_index(thr))

    def scenario(gamma: float) -> Scenario:
        return build_scenario(
            "thesis-two-flow", x2="80ms", queue="red", duration="60s", delta=1.0, gamma=gamma
        ).with_algorithm("enhanced-vegas")

    rounds = jain_10_60(tcpfluid.simulate(scenario(1.0), "rounds"))
    train, _, _ = _thesis_vegas_1(80)
    no_train, _, _ = _thesis_vegas_1(80, gamma=8.0)
    assert rounds - train > 0.05
    assert abs(rounds - no_train) <= 0.05
    assert abs(jain_10_60(tcpfluid.simulate(scenario(8.0), "rounds")) - no_train) <= 0.05


def test_train_equilibrium_with_over_estimates_solves_the_phase_conditions() -> None:
    """With BaseRTT over-estimates the train phase has no closed root: SymPy's nsolve of the
    phase conditions (bisection above the largest over-estimate) against the library's
    bracketed root, for three flows, the last one the train."""
    d = sp.symbols("d", positive=True)
    others = [(1.0, 0.0), (2.0, 0.0008)]  # (α_j, x_j) of the spread flows
    a_k, x_k, f = 1.5, 0.003, 0.45
    spread = sum(a / (d - x) for a, x in others)
    d_t = float(
        sp.nsolve(spread + a_k / (f * (d - x_k)) - C, d, (x_k + 1e-9, 1.0), solver="bisect")
    )
    d_g = float(sp.nsolve(spread - C, d, (0.0008 + 1e-9, 1.0), solver="bisect"))
    eq = blb_train_equilibrium([1.0, 2.0, a_k], [0.0, 0.0008, x_k], C, train_fraction=f)
    assert eq.queueing_delay_train_s == pytest.approx(d_t, rel=1e-9)
    assert eq.queueing_delay_gap_s == pytest.approx(d_g, rel=1e-9)
    expect = [f * a / (d_t - x) + (1 - f) * a / (d_g - x) for a, x in others]
    expect.append(a_k / (d_t - x_k))
    assert eq.rates_pps == pytest.approx(expect, rel=1e-9)
    assert float(np.sum(eq.rates_pps)) == pytest.approx(C, rel=1e-9)
