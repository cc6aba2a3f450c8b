"""Rounds to equilibrium and conspicuous rounds against SymPy and the documents."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid.analytic import (
    conspicuous_round,
    conspicuous_round_printed,
    derive,
    rounds_to_equilibrium,
    slow_start_exit,
    tcp_ho_cubic,
    tcp_ho_cubic_root,
)

W = np.array([2.0, 10.0, 125.0, 630.0, 5000.0])[:, None]
N = np.arange(1, 11, dtype=float)[None, :]


@pytest.mark.parametrize("beta", [2.0, 4.0, 8.0])
@pytest.mark.parametrize("delta", [0.0, 1.0])
def test_quick_vegas_rounds_match_sympy(beta, delta):
    f = derive.lambdify(
        derive.rounds_expr("quick-vegas"), derive.W, derive.n, derive.beta, derive.Delta
    )
    np.testing.assert_allclose(
        rounds_to_equilibrium("quick-vegas", W, N, beta=beta, delta=delta),
        f(W, N, beta, delta),
        rtol=1e-12,
        atol=1e-12,
    )


def test_vegas_rounds_match_sympy_and_doc():
    f = derive.lambdify(derive.rounds_expr("vegas"), derive.W, derive.n)
    np.testing.assert_allclose(rounds_to_equilibrium("vegas", W, N), f(W, N))
    # the Quick Vegas paper, §4.2: "(n-1)W RTTs"
    assert rounds_to_equilibrium("vegas", 125.0, 3.0) == 250.0


def test_quick_vegas_printed_eq12():
    # eq. (12) typed from the paper
    b = 4.0
    printed = (-1 + np.sqrt((b + 8 * W * (N - 1)) / b)) / 2
    np.testing.assert_allclose(rounds_to_equilibrium("quick-vegas", W, N, beta=b), printed)


def test_eq11_sum_of_increments_for_integer_rounds():
    # W = 10, beta = 4: after 5 rounds the increments 4+8+12+16+20 = 60 reach 70 = 7W
    assert rounds_to_equilibrium("quick-vegas", 10.0, 7.0) == pytest.approx(5.0)


@given(
    w=st.floats(min_value=2.0, max_value=1e6),
    n=st.floats(min_value=1.0001, max_value=1e3),
    beta=st.floats(min_value=2.0, max_value=100.0),
)
def test_quick_vegas_faster_than_vegas(w, n, beta):
    assert rounds_to_equilibrium("quick-vegas", w, n, beta=beta) < rounds_to_equilibrium(
        "vegas", w, n
    )


@given(w=st.floats(min_value=1.0, max_value=1e6), n1=st.floats(min_value=1.0, max_value=1e3))
def test_rounds_increase_with_window(w, n1):
    n = 1.0 + n1
    assert rounds_to_equilibrium("quick-vegas", w * 1.5, n) > rounds_to_equilibrium(
        "quick-vegas", w, n
    )


# ------------------------------------------------------------ TCP-Ho (the TCP-Ho paper)
def test_eq5_follows_from_eqs_3_and_4():
    # SymPy derives eq. (5) from eqs. (3), (4) and Table 4; compare coefficients on a grid
    f = derive.lambdify(derive.tcp_ho_cubic_expr(), derive.k, derive.B)
    ks = np.linspace(2, 200, 50)[:, None]
    bs = np.logspace(0, 4, 9)[None, :]
    np.testing.assert_allclose(tcp_ho_cubic(ks, bs), f(ks, bs), rtol=1e-12, atol=1e-6)
    # and the printed eq. (5), typed from the paper
    printed = ks**3 - 10 * ks**2 + (40 - 8 * bs) * ks + (16 * bs - 64)
    np.testing.assert_allclose(tcp_ho_cubic(ks, bs), printed)


@pytest.mark.parametrize("bdp", [0.1, 0.5, 0.9, 2.0, 18.75, 250.0, 625.0, 1e4, 1e6])
def test_cubic_root_is_a_root(bdp):
    r = float(tcp_ho_cubic_root(bdp))
    scale = max(r**3, 8 * bdp * r, 1.0)
    assert abs(float(tcp_ho_cubic(r, bdp))) < 1e-9 * scale
    # largest real root: the cubic is positive beyond it (leading coefficient +1)
    assert float(tcp_ho_cubic(r + 1e-3 * max(r, 1.0), bdp)) > 0


def test_depressed_cubic_matches_shipped_constants():
    p, q = derive.tcp_ho_depressed_cubic()
    fp, fq = derive.lambdify(p, derive.B), derive.lambdify(q, derive.B)
    b = 250.0
    assert fp(b) == pytest.approx(20 / 3 - 8 * b)
    assert fq(b) == pytest.approx(-128 / 27 - 32 * b / 3)


@pytest.mark.parametrize("queue", ["bottleneck", "paper", "table"])
def test_conspicuous_round_is_first_even_round_meeting_condition(queue):
    cond = derive.lambdify(derive.tcp_ho_condition(queue), derive.k, derive.B)
    for bdp in [5.0, 18.75, 100.0, 250.0, 625.0, 3000.0]:
        k = float(conspicuous_round("tcp-ho", bdp, queue=queue))
        assert k % 2 == 0
        assert cond(k, bdp) >= 0
        assert cond(k - 2, bdp) < 0


def test_table_queue_closed_form():
    # SymPy factors the Table-4 condition as (k - 2)(k^2 - 6k + 16 - 8 mu d)
    b = np.array([18.75, 250.0, 625.0])
    k = conspicuous_round("tcp-ho", b, queue="table")
    bound = 3 + np.sqrt(8 * b - 7)
    assert np.all(k >= bound) and np.all(k - 2 < bound)


def test_bottleneck_form_matches_sympy():
    f = derive.lambdify(derive.tcp_ho_bottleneck_round_expr(), derive.B)
    b = np.array([18.75, 250.0, 625.0, 1e4])
    k = conspicuous_round("tcp-ho", b)
    assert np.all(k >= f(b)) and np.all(k - 2 < f(b))


def _table4_lagged_round(bdp: float) -> int:
    """By hand: Table 4's windows (W_2 = 2, W_{i+1} = W_i + floor(i/2)) and the first even
    k >= 4 whose window three rounds earlier reaches μd."""
    w = {2: 2.0}
    for i in range(2, 10_000):
        w[i + 1] = w[i] + i // 2
    return next(k for k in range(6, 10_000, 2) if w[k - 3] >= bdp)


def test_bottleneck_form_a_round_late_matches_sympy_and_table4():
    f = derive.lambdify(derive.tcp_ho_bottleneck_round_expr(1), derive.B)
    b = np.array([8.0, 30.0, 40.0, 200.0, 625.0, 1e4])
    k = conspicuous_round("tcp-ho", b, feedback_rounds=1)
    assert np.all(k >= f(b)) and np.all(k - 2 < f(b))
    assert list(k) == [_table4_lagged_round(x) for x in b]
    # two rounds later than the paper's own analysis where W_{k-3} < μd <= W_{k-2}, the
    # same elsewhere (625: both 54)
    now = conspicuous_round("tcp-ho", b)
    assert list(k - now) == [2.0, 2.0, 2.0, 2.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"feedback_rounds": 2}, "feedback_rounds must be 0 or 1; got 2"),
        ({"feedback_rounds": True}, "feedback_rounds must be 0 or 1; got True"),
        ({"feedback_rounds": 1, "queue": "paper"}, "applies to TCP-Ho with queue='bottleneck'"),
    ],
)
def test_feedback_rounds_refused_where_it_has_no_meaning(kwargs, match):
    with pytest.raises(ValueError, match=match):
        conspicuous_round("tcp-ho", 625.0, **kwargs)
    with pytest.raises(ValueError, match="feedback_rounds"):
        conspicuous_round("vegas", 625.0, feedback_rounds=1)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: rounds_to_equilibrium("vegas", 625, 2, beta=-1), ValueError, "beta must be > 0"),
        (lambda: tcp_ho_cubic(float("nan"), 5), ValueError, "k must be finite"),
        (lambda: tcp_ho_cubic(10, -5), ValueError, "bdp must be > 0"),
    ],
)
def test_bad_input_names_the_parameter(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_bottleneck_form_against_the_papers_simulations():
    # the TCP-Ho paper, §4.3 simulations: 3.8 s and 5.1 s (Examples 2, 3). The bottleneck-aware
    # form (erratum E8) gives 3.6 s and 5.4 s: within 6 %, the spread one expects between a
    # fluid round model and ns-2 (one or two rounds of 0.1 s). The forms without the
    # bottleneck queue are 30-50 % high.
    for bdp, simulated in ((250.0, 3.8), (625.0, 5.1)):
        t = float(conspicuous_round("tcp-ho", bdp)) * 0.1
        assert t == pytest.approx(simulated, rel=0.06)
        for queue in ("paper", "table"):
            other = float(conspicuous_round("tcp-ho", bdp, queue=queue)) * 0.1
            assert abs(other - simulated) > 2 * abs(t - simulated)


def test_tcp_ho_examples():
    # the TCP-Ho paper, §4.3, d = 0.1 s: Example 1 (mu = 187.5): k = 16, 1.6 s from eq. (5)
    assert conspicuous_round("tcp-ho", 18.75, queue="paper") == 16
    # Examples 2 and 3 print 3.4 s and 4.7 s, which come from the printed eq. (6)
    # (k = 34.6 and 46.9), not from eq. (5) (erratum E6): eq. (6) reproduces them to the
    # 0.1 s the paper prints.
    assert conspicuous_round_printed("tcp-ho", 250.0) * 0.1 == pytest.approx(3.4, abs=0.1)
    assert conspicuous_round_printed("tcp-ho", 625.0) * 0.1 == pytest.approx(4.7, abs=0.05)
    # ... and eq. (6) is not a root of eq. (5)
    for b in (250.0, 625.0):
        kp = float(conspicuous_round_printed("tcp-ho", b))
        assert tcp_ho_cubic(kp, b) < -1e3


def test_vegas_examples():
    # the TCP-Ho paper, §4.3: Vegas reaches the bandwidth at 1.3 s, 20.7 s and 58.1 s (d = 0.1).
    assert conspicuous_round("vegas", 18.75) == 13
    assert conspicuous_round("vegas", 625.0) == 581
    # Example 2: l = 12, W_l = 64, ceil(250 - 56) = 194 -> 206 rounds = 20.6 s; the paper
    # prints 20.7 s (erratum E7): one round apart.
    assert conspicuous_round("vegas", 250.0) == pytest.approx(207, abs=1)
    # the printed round of leaving slow start (exponent "- 1") misses Example 3 (erratum E4)
    assert conspicuous_round_printed("vegas", 625.0) == 527


def test_vegas_slow_start_round_derivation():
    # SymPy: l = 2 log2(1 + sqrt(1 + 16 mu d)) - 2 (the paper prints "- 1")
    f = derive.lambdify(derive.vegas_slow_start_round_expr(), derive.B)
    b = np.array([18.75, 250.0, 625.0])
    np.testing.assert_allclose(f(b), 2 * np.log2(1 + np.sqrt(1 + 16 * b)) - 2)


@given(b=st.floats(min_value=0.01, max_value=1e7), factor=st.floats(min_value=1.5, max_value=50))
def test_conspicuous_rounds_increase_with_bdp(b, factor):
    # Vegas's closed form holds from μd = 5 (W* = (1 + sqrt(1 + 16 μd))/2 <= μd)
    for alg in ("vegas", "tcp-ho") if b >= 5.0 else ("tcp-ho",):
        assert conspicuous_round(alg, b * factor) >= conspicuous_round(alg, b)


@pytest.mark.parametrize(
    ("algorithm", "kwargs"),
    [
        ("tcp-ho", {"gamma": 50}),
        ("tcp-ho", {"rtt_model": "last"}),
        ("tcp-ho", {"rtt": "average"}),
        ("tcp-ho", {"initial_window": 1}),
        ("vegas", {"queue": "table"}),
        ("vegas", {"queue": "bottleneck"}),
    ],
)
def test_options_the_law_does_not_read_are_refused_by_name(algorithm, kwargs):
    ((key, value),) = kwargs.items()
    with pytest.raises(ValueError, match=rf"^{key}={value!r} does not apply to {algorithm}"):
        conspicuous_round(algorithm, 625.0, **kwargs)


@pytest.mark.parametrize(("bdp", "w_star"), [(60.0, 16.0), (248.0, 32.0)])
def test_a_window_of_exactly_the_critical_window_grows_on(bdp, w_star):
    # W* = (1 + sqrt(1 + 16 μd))/2 is a power of two here (sqrt(961) = 31, sqrt(3969) = 63);
    # slow start ends when Δ > γ (the Quick Vegas paper, §2), and Δ = γ at W*: the exit
    # window is the next doubling, 2W*, in the even round l with 2 · 2^(l/2 − 1) = 2W*
    assert (1.0 + math.sqrt(1.0 + 16.0 * bdp)) / 2.0 == w_star
    exit_w = 2.0 * w_star
    l_round = 2.0 * (math.log2(exit_w / 2.0) + 1.0)
    expected = l_round + math.ceil(bdp - 7.0 * exit_w / 8.0)  # eq. (2): 42 and 204
    assert float(conspicuous_round("vegas", bdp)) == expected
    assert slow_start_exit("vegas", bdp, 0.1).window_pkts == exit_w


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: rounds_to_equilibrium("reno", 10, 2), ValueError, "algorithm"),
        (lambda: rounds_to_equilibrium("vegas", 0, 2), ValueError, "window must be > 0"),
        (lambda: rounds_to_equilibrium("vegas", 10, 0.5), ValueError, "n must be >= 1.0"),
        (lambda: rounds_to_equilibrium("quick-vegas", 10, 2, delta=4), ValueError, "delta"),
        (lambda: rounds_to_equilibrium("quick-vegas", 10, 2, beta="4"), TypeError, "beta"),
        (lambda: conspicuous_round("quick-vegas", 10), ValueError, "algorithm"),
        (lambda: conspicuous_round("tcp-ho", 0), ValueError, "bdp"),
        (lambda: conspicuous_round("tcp-ho", 10, queue="sender"), ValueError, "queue"),
        # gamma and rtt shape only Vegas's round, but are refused for TCP-Ho too
        (lambda: conspicuous_round("vegas", 10, rtt="smoothed"), ValueError, "rtt must be one"),
        (lambda: conspicuous_round("vegas", 10, gamma=0), ValueError, "gamma must be > 0"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
