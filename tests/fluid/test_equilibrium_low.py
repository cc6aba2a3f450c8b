"""Tests of tcpfluid.fluid.equilibrium: Low's utility form and the Reno fixed point.

Independent routes: the Boutremans–Le Boudec root-finding in tcpfluid.analytic
(thesis ch. 2 §5), hand formulas written out below, and the ODE model integrated in time.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid import Path
from tcpfluid.analytic import blb_equilibrium
from tcpfluid.fluid.equilibrium import low_utility_equilibrium, reno_equilibrium
from tcpfluid.fluid.ode import OdeFlow, RedQueue, simulate_ode

C = 187.5  # 1.5 Mb/s in 1000-byte packets per second


def test_low_without_overestimation_is_weighted_proportional_fairness() -> None:
    # hand: maximise Σ α_j log r_j on Σ r_j = C -> r_j = C α_j / Σα, price δ = Σα / C
    alpha = np.array([1.0, 2.0, 5.0])
    low = low_utility_equilibrium(alpha, 0.0, C)
    np.testing.assert_allclose(low.rates_pps, C * alpha / alpha.sum(), rtol=1e-6)
    assert low.queueing_delay_s == pytest.approx(8.0 / C, rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(
    alpha=st.lists(st.floats(0.5, 6.0), min_size=2, max_size=5),
    x_ms=st.lists(st.floats(0.0, 40.0), min_size=5, max_size=5),
    capacity=st.floats(50.0, 1.25e5),
)
def test_low_and_blb_agree(alpha: list[float], x_ms: list[float], capacity: float) -> None:
    a = np.array(alpha)
    x = np.array(x_ms[: a.size]) * 1e-3
    if len(alpha) % 2 == 0:  # half the examples: all-equal over-estimates (a former bug)
        x = np.full(a.size, x[0])
    low = low_utility_equilibrium(a, x, capacity)
    blb = blb_equilibrium(a, x, capacity)
    np.testing.assert_allclose(low.rates_pps, blb.rates_pps, rtol=1e-5)
    assert low.queueing_delay_s == pytest.approx(blb.queueing_delay_s, rel=1e-5)
    assert low.kkt_residual_s <= 1e-6 * max(1.0, blb.queueing_delay_s)
    assert low.rates_pps.sum() == pytest.approx(capacity, rel=1e-9)


def test_low_windows_follow_rates_times_rtt() -> None:
    d = np.array([0.0132, 0.1912])
    low = low_utility_equilibrium([2.0, 2.0], [0.0, 0.005], C, prop_delay_s=d)
    blb = blb_equilibrium([2.0, 2.0], [0.0, 0.005], C, prop_delay_s=d)
    assert low.windows_pkts is not None
    np.testing.assert_allclose(low.windows_pkts, blb.windows_pkts, rtol=1e-5)


def test_ode_reaches_low_and_blb_from_several_starts() -> None:
    # three Enhanced Vegas flows joining one after the other (each joiner records the
    # queue it finds as part of its BaseRTT); the equilibrium the ODE settles at must be
    # the one both closed forms give for the over-estimates it recorded, from any start
    alpha = [1.0, 2.0, 3.0]
    d = [0.02, 0.05, 0.1]
    for w0, starts in [((2, 2, 2), (0.0, 10.0, 20.0)), ((20, 5, 40), (0.0, 15.0, 30.0))]:
        flows = [
            OdeFlow(
                "enhanced-vegas",
                d[j],
                alpha_pkts=alpha[j],
                beta_pkts=alpha[j],
                start_s=starts[j],
                initial_window_pkts=w0[j],
            )
            for j in range(3)
        ]
        r = simulate_ode(flows, Path(C, 0.02), t_end_s=140, measure_from_s=110)
        x = np.array(r.summary.base_rtt_overestimate_s)
        assert x[0] == pytest.approx(0.0, abs=1e-9) and x[1] > 0 and x[2] > x[1]
        blb = blb_equilibrium(alpha, x, C)
        low = low_utility_equilibrium(alpha, x, C)
        np.testing.assert_allclose(r.summary.throughput_pps, blb.rates_pps, rtol=1e-2)
        np.testing.assert_allclose(r.summary.throughput_pps, low.rates_pps, rtol=1e-2)


def test_low_validation() -> None:
    with pytest.raises(ValueError, match="alpha_pkts"):
        low_utility_equilibrium([1.0, -1.0], 0.0, C)
    with pytest.raises(ValueError, match="overestimate_s"):
        low_utility_equilibrium([1.0, 1.0], [-0.1, 0.0], C)
    with pytest.raises(ValueError, match="broadcast"):
        low_utility_equilibrium([1.0, 1.0], [0.0, 0.0, 0.0], C)
    with pytest.raises(ValueError, match="capacity_pps"):
        low_utility_equilibrium([1.0], 0.0, 0.0)


def test_reno_fixed_point_equal_windows_rates_inverse_to_rtt() -> None:
    eq = reno_equilibrium([0.02, 0.08, 0.2], C, buffer_pkts=100, red=RedQueue())
    # MGT at rest: w = sqrt(2/p) for every flow, rate = w / RTT_j
    assert eq.window_pkts == pytest.approx(np.sqrt(2.0 / eq.loss_probability))
    np.testing.assert_allclose(eq.rates_pps * eq.rtt_s, eq.window_pkts)
    # the link is exactly full after the drops
    assert (1 - eq.loss_probability) * eq.rates_pps.sum() == pytest.approx(C, rel=1e-9)
    # RED holds the average queue between its thresholds here
    assert 15.0 < eq.queue_pkts < 45.0


def test_reno_fixed_point_drop_tail_sits_in_the_last_packet_of_buffer() -> None:
    # with the model's drop-tail ramp of width 1 packet the queue rests within [B-1, B]
    eq = reno_equilibrium([0.02, 0.05], C, buffer_pkts=50)
    assert 49.0 < eq.queue_pkts < 50.0


def test_reno_validation() -> None:
    with pytest.raises(ValueError, match="loss mechanism"):
        reno_equilibrium([0.02], C)
    with pytest.raises(ValueError, match="prop_delay_s"):
        reno_equilibrium([0.0], C, buffer_pkts=10)
    with pytest.raises(TypeError, match="red"):
        reno_equilibrium([0.02], C, red={"min_th": 5})  # type: ignore[arg-type]
