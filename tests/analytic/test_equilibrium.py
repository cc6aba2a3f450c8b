"""Equilibria and fairness: SymPy derivations, hand values and the documents' numbers."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid import Path
from tcpfluid.analytic import (
    blb_equilibrium,
    derive,
    jain_index,
    reno_max_window_asymmetric,
    reverse_path_throughput,
    vegas_equilibrium_window,
    vegas_window_band,
)


def test_jain_hand_values():
    assert jain_index([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain_index([1, 0]) == pytest.approx(0.5)  # one flow takes all: 1/n
    assert jain_index([1, 2, 3]) == pytest.approx(36 / 42)  # 6^2 / (3 * 14)
    rows = jain_index(np.array([[1, 1], [1, 0]]), axis=1)
    np.testing.assert_allclose(rows, [1.0, 0.5])


@given(st.lists(st.floats(min_value=0.0, max_value=1e9), min_size=1, max_size=50))
def test_jain_bounds(x):
    if sum(v * v for v in x) == 0 or max(x) < 1e-150:
        return
    j = jain_index(x)
    assert 1.0 / len(x) - 1e-12 <= j <= 1.0 + 1e-12


def test_vegas_equilibrium_matches_sympy():
    f = derive.lambdify(derive.vegas_equilibrium_expr(), derive.B, derive.N)
    b = np.logspace(0, 4, 9)
    for n in (0.0, 2.0, 3.5):
        np.testing.assert_allclose(vegas_equilibrium_window(b, n), f(b, n) + 0 * b)


def test_quick_vegas_paper_equilibrium_630():
    # the Quick Vegas paper, §3.2 / §5.1: on the 50 Mb/s x 100 ms path Vegas settles at 630 packets;
    # the band [mu d + alpha, mu d + beta] with alpha=2, beta=4 is [628.1, 630.1]
    path = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms")
    lo, hi = vegas_window_band(path.bdp, alpha=2, beta=4)
    assert float(lo) <= 630 <= float(hi) + 0.5  # the paper rounds to whole packets


def test_reverse_path():
    # the asymmetric-networks paper, Fig. 4: Vegas throughput is min(mu_f, mu_r)
    np.testing.assert_allclose(reverse_path_throughput([20, 50, 200], 50), [20, 50, 50])
    # w_renomax = mu_f RTT + k B_r + B_f; mu_f = 200, RTT = 0.1, k = 3, B_r = 10, B_f = 20
    assert reno_max_window_asymmetric(200, 0.1, 3, 10, 20) == pytest.approx(20 + 30 + 20)


def test_blb_no_overestimate_is_proportional_to_alpha():
    eq = blb_equilibrium([1.0, 3.0], 0.0, 187.5)
    np.testing.assert_allclose(eq.rates_pps, [187.5 / 4, 3 * 187.5 / 4])
    assert eq.queueing_delay_s == pytest.approx(4 / 187.5)  # delta = sum(alpha)/c
    assert eq.queue_pkts == pytest.approx(4.0)  # each flow keeps alpha_j packets queued


def test_blb_equal_overestimates_do_not_sit_on_the_bracket():
    # regression: with equal x_j the root is x + sum(alpha)/c, which must not be a bracket
    # end (brentq then saw f(hi) = +1e-14 and raised)
    for c in (107.0, 187.5, 1e4):
        eq = blb_equilibrium([1.0, 1.0], 0.0, c)
        assert eq.queueing_delay_s == pytest.approx(2.0 / c)
        eq = blb_equilibrium([1.0, 2.0], 0.003, c)
        assert eq.queueing_delay_s == pytest.approx(0.003 + 3.0 / c)


def test_blb_equal_alpha_equal_rates_whatever_delays():
    eq = blb_equilibrium([2.0, 2.0, 2.0], 0.0, 1000.0, prop_delay_s=[0.01, 0.1, 0.3])
    np.testing.assert_allclose(eq.rates_pps, 1000.0 / 3)
    assert eq.jain_index == pytest.approx(1.0)


def test_blb_matches_sympy_rate_and_capacity():
    rate = derive.lambdify(derive.blb_rate_expr(), derive.alpha, derive.x, derive.delta, derive.dj)
    alpha = np.array([2.0, 2.0, 3.0])
    x = np.array([0.0, 0.004, 0.01])
    eq = blb_equilibrium(alpha, x, 500.0, prop_delay_s=[0.02, 0.05, 0.1])
    np.testing.assert_allclose(eq.rates_pps, rate(alpha, x, eq.queueing_delay_s, 0.05))
    assert eq.rates_pps.sum() == pytest.approx(500.0, rel=1e-10)
    # windows satisfy the steady-state equation cwnd - (BaseRTT/RTT) cwnd = alpha
    d = np.array([0.02, 0.05, 0.1])
    lhs = eq.windows_pkts * (1 - (d + x) / (d + eq.queueing_delay_s))
    np.testing.assert_allclose(lhs, alpha, rtol=1e-9)
    # over-estimation favours the late flow (thesis ch. 2 §5)
    assert eq.rates_pps[2] > eq.rates_pps[0]


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: jain_index([]), ValueError, "at least one"),
        (lambda: jain_index([0, 0]), ValueError, "all zeros"),
        (lambda: jain_index([1, -1]), ValueError, "x must be >= 0"),
        (lambda: jain_index([1, 2], axis=5), ValueError, r"axis must be in \[-1, 0\]"),
        (lambda: jain_index([1, 2], axis=0.5), TypeError, "axis must be an int"),
        (lambda: jain_index(["1", "2"]), TypeError, "x must be a number"),
        (lambda: vegas_window_band(100, alpha=4, beta=2), ValueError, "alpha <= beta"),
        (lambda: blb_equilibrium([1, 0], 0, 100), ValueError, "alpha must be > 0"),
        (lambda: blb_equilibrium([1, 1], -0.1, 100), ValueError, "overestimate_s"),
        (lambda: blb_equilibrium([1, 1], 0, 0), ValueError, "capacity_pps"),
        (lambda: reverse_path_throughput(0, 5), ValueError, "mu_forward"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
