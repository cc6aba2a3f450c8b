"""Critical windows and slow-start tables against SymPy and the documents' printed values."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid import Path
from tcpfluid.analytic import critical_window, derive, slow_start_exit, slow_start_windows

BDP = np.logspace(0, 4, 41)
GAMMAS = [0.25, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("algorithm", ["vegas", "quick-vegas"])
@pytest.mark.parametrize("rtt", ["average", "last"])
@pytest.mark.parametrize("gamma", GAMMAS)
def test_matches_sympy_derivation(algorithm, rtt, gamma):
    expr = derive.critical_window_expr(algorithm, rtt)
    f = derive.lambdify(expr, derive.gamma, derive.B)
    np.testing.assert_allclose(
        critical_window(algorithm, BDP, gamma=gamma, rtt=rtt), f(gamma, BDP), rtol=1e-12
    )


def test_printed_equations_6_9_10():
    # the Quick Vegas paper, eqs. (6), (9), (10), typed from the paper
    g, b = 1.0, BDP
    eq6 = (g + np.sqrt(g**2 + 16 * g * b)) / 2
    eq9 = (g + np.sqrt(g**2 + 12 * g * b)) / 2
    eq10 = (g + np.sqrt(g**2 + 24 * g * b)) / 2
    np.testing.assert_allclose(critical_window("vegas", b), eq6, rtol=1e-13)
    np.testing.assert_allclose(critical_window("quick-vegas", b, rtt="last"), eq9, rtol=1e-13)
    np.testing.assert_allclose(critical_window("quick-vegas", b), eq10, rtol=1e-13)
    # the Vegas "last packet" form quoted in the TCP-Ho paper, §4.1
    np.testing.assert_allclose(
        critical_window("vegas", b, rtt="last"), (1 + np.sqrt(1 + 8 * b)) / 2, rtol=1e-13
    )


def test_shape_is_preserved():
    out = critical_window("vegas", np.ones((3, 4)) * 100)
    assert out.shape == (3, 4)
    assert np.ndim(critical_window("vegas", 100.0)) == 0


@given(
    bdp=st.floats(min_value=1e-3, max_value=1e7),
    gamma=st.floats(min_value=1e-3, max_value=100.0),
)
def test_quick_vegas_eq10_above_vegas_eq6(bdp, gamma):
    assert critical_window("quick-vegas", bdp, gamma=gamma) > critical_window(
        "vegas", bdp, gamma=gamma
    )


@given(
    bdp=st.floats(min_value=1e-3, max_value=1e7),
    factor=st.floats(min_value=1.001, max_value=100.0),
    gamma=st.floats(min_value=1e-3, max_value=100.0),
    algorithm=st.sampled_from(["vegas", "quick-vegas"]),
    rtt=st.sampled_from(["average", "last"]),
)
def test_increases_with_bdp(bdp, factor, gamma, algorithm, rtt):
    lo = critical_window(algorithm, bdp, gamma=gamma, rtt=rtt)
    hi = critical_window(algorithm, bdp * factor, gamma=gamma, rtt=rtt)
    assert hi > lo


def test_quick_vegas_table1():
    # the Quick Vegas paper, Table 1, printed to two decimals
    printed_qv = [2, 3, 4.5, 6.75, 10.13, 15.19, 22.78, 34.17, 51.26]
    np.testing.assert_allclose(slow_start_windows("quick-vegas", 9), printed_qv, atol=0.006)
    np.testing.assert_array_equal(slow_start_windows("vegas", 9), [2, 2, 4, 4, 8, 8, 16, 16, 32])
    # and SymPy's solution of the recursion W_{i+1} = 1.5 W_i
    f = derive.lambdify(derive.quick_vegas_slow_start_expr(), derive.i)
    np.testing.assert_allclose(slow_start_windows("quick-vegas", 30), f(np.arange(30.0)))


def test_tcp_ho_tables_3_and_4():
    # the TCP-Ho paper, Table 3 (Vegas, one more initial round) and Table 4 (TCP-Ho)
    np.testing.assert_array_equal(
        slow_start_windows("vegas", 11, indexing="tcp-ho"), [2, 2, 2, 4, 4, 8, 8, 16, 16, 32, 32]
    )
    np.testing.assert_array_equal(
        slow_start_windows("tcp-ho", 11), [2, 2, 2, 3, 4, 6, 8, 11, 14, 18, 22]
    )
    w_even, w_odd, _, _ = derive.tcp_ho_table_windows()
    fe, fo = derive.lambdify(w_even, derive.i), derive.lambdify(w_odd, derive.i)
    ks = np.arange(2, 40)
    expected = np.where(ks % 2 == 0, fe(ks.astype(float)), fo(ks.astype(float)))
    np.testing.assert_allclose(slow_start_windows("tcp-ho", 40)[2:], expected)


def test_whole_acks_quick_vegas():
    # one extra packet per two whole ACKs: w -> w + floor(w/2), by hand from w = 2
    assert slow_start_windows("quick-vegas", 10, whole_acks=True).tolist() == [
        2, 3, 4, 6, 9, 13, 19, 28, 42, 63,
    ]  # fmt: skip


def test_figure1_exit_window():
    # the Quick Vegas paper, Fig. 1 / §5.1: Vegas on 50 Mb/s x 100 ms leaves slow start with cwnd 64
    # at 1.2 s. The fluid model gives the same table window; its time (end of round 10,
    # 11 d = 1.10 s) omits connection set-up and queueing, so we allow 10 %.
    path = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms")
    ex = slow_start_exit("vegas", path.bdp, path.d)
    assert ex.window_pkts == 64
    assert ex.exit_window_pkts == 56  # 64 - 64/8
    assert ex.time_s == pytest.approx(1.2, rel=0.10)
    # the exit window is the first growth window at or above W*, the previous one below it
    assert ex.window_pkts >= ex.critical_window_pkts > ex.window_pkts / 2


@pytest.mark.parametrize("bdp", [8.0, 50.0, 626.0, 5000.0, 1e5])
def test_quick_vegas_exit_is_first_window_above_critical(bdp):
    ex = slow_start_exit("quick-vegas", bdp, 0.1)
    table = slow_start_windows("quick-vegas", ex.round + 1)
    assert table[ex.round] >= ex.critical_window_pkts
    assert ex.round == 1 or table[ex.round - 1] < ex.critical_window_pkts


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: critical_window("reno", 100), ValueError, "algorithm"),
        (lambda: critical_window("vegas", -1), ValueError, "bdp must be > 0"),
        (lambda: critical_window("vegas", [1, np.nan]), ValueError, "bdp must be finite"),
        (lambda: critical_window("vegas", "lots"), TypeError, "bdp"),
        (lambda: critical_window("vegas", 10, gamma=0), ValueError, "gamma must be > 0"),
        (lambda: critical_window("vegas", 10, rtt="median"), ValueError, "rtt"),
        (lambda: critical_window("vegas", 10, rtt_model="median"), ValueError, "rtt_model"),
        (
            lambda: critical_window("vegas", 10, rtt_model="last", rtt="average"),
            ValueError,
            "not both",
        ),
        (lambda: slow_start_windows("vegas", 0), ValueError, "rounds must be >= 1"),
        (lambda: slow_start_windows("vegas", 2.5), TypeError, "rounds"),
        (lambda: slow_start_windows("vegas", 3, whole_acks="yes"), TypeError, "whole_acks"),
        (lambda: slow_start_exit("vegas", 100, 0), ValueError, "rtt_s"),
    ],
)
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_a_tiny_gamma_gives_a_finite_window_without_warnings():
    # γ = 5e-324: c/γ overflows; W* = (γ + sqrt(γ² + 16γμd))/2 -> sqrt(16γμd)/2 = 2 sqrt(γμd)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = float(critical_window("vegas", 625.0, gamma=5e-324))
    assert w == pytest.approx(2.0 * np.sqrt(5e-324 * 625.0), rel=1e-6)


@pytest.mark.parametrize(("bdp", "window"), [(60.0, 32.0), (248.0, 64.0), (1008.0, 128.0)])
def test_a_window_of_exactly_w_star_grows_on(bdp, window):
    # W* = (1 + sqrt(1 + 16μd))/2 is a table window at these μd (16, 32, 64): there
    # Δ = γ, and the rule is Δ > γ, so slow start goes on to the next doubling. The round
    # model, which applies the rule to its own RTTs, exits there too.
    from tcpfluid.algorithms import get_law
    from tcpfluid.fluid import simulate_rounds

    assert float(critical_window("vegas", bdp)) == window / 2
    assert slow_start_exit("vegas", bdp, 0.1).window_pkts == window
    tr = simulate_rounds(get_law("vegas"), Path(bdp * 10.0, 0.1), rounds=60)
    assert float(tr.summary.ss_exit_window_pkts[0, 0]) == window


@pytest.mark.parametrize("algorithm", ["vegas", "quick-vegas"])
@pytest.mark.parametrize("gamma", GAMMAS)
def test_sender_rule_matches_sympy_derivation(algorithm, gamma):
    expr = derive.critical_window_expr(algorithm, "average", rule="sender")
    f = derive.lambdify(expr, derive.gamma, derive.B)
    np.testing.assert_allclose(
        critical_window(algorithm, BDP, gamma=gamma, rule="sender"), f(gamma, BDP), rtol=1e-12
    )


def test_sender_rule_is_eq_10_with_two_thirds_gamma_for_quick_vegas_and_eq_6_for_vegas():
    # typed from the paper: eq. (10) with γ -> 2γ/3 (the deciding round's window is 1.5 W);
    # eq. (6) unchanged (Vegas's deciding round does not grow)
    g, b = 2.0 / 3.0, BDP
    eq10 = (g + np.sqrt(g**2 + 24 * g * b)) / 2
    eq6 = (1.0 + np.sqrt(1.0 + 16 * b)) / 2
    np.testing.assert_allclose(critical_window("quick-vegas", b, rule="sender"), eq10, rtol=1e-12)
    np.testing.assert_allclose(critical_window("vegas", b, rule="sender"), eq6, rtol=1e-12)


@pytest.mark.parametrize("bdp", [6.0, 25.0, 250.0, 625.0, 6250.0, 1e5])
def test_vegas_exit_is_the_same_under_both_rules(bdp):
    assert slow_start_exit("vegas", bdp, 0.1, rule="sender") == slow_start_exit("vegas", bdp, 0.1)


def test_sender_rule_quick_vegas_exit_on_the_documents_path():
    # 50 Mb/s x 100 ms (μd = 625): W* = (2/3 + sqrt(4/9 + 16·625))/2 = 50.33; the sender's
    # windows 2, 3, 4.5, 6.5, 9.5, 14, 21, 31.5, 47, 70.5: 70.5 (Table index 9) is read,
    # the deciding round's 105.5 is cut by 1/8, the decision one round after the
    # documents' (round 9 + 3)
    ex = slow_start_exit("quick-vegas", 625.0, 0.1, rule="sender")
    assert ex.critical_window_pkts == pytest.approx((2 / 3 + np.sqrt(4 / 9 + 16 * 625)) / 2)
    assert (ex.round, ex.window_pkts, ex.exit_round) == (9, 70.5, 12)
    assert ex.exit_window_pkts == pytest.approx(105.5 * 7 / 8)
    assert ex.exit_time_s == pytest.approx(1.2)
    assert slow_start_windows("quick-vegas", 10, rule="sender").tolist() == [
        2,
        3,
        4.5,
        6.5,
        9.5,
        14,
        21,
        31.5,
        47,
        70.5,
    ]


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        ({"rule": "ns2"}, "rule"),
        ({"rule": "sender", "rtt_model": "last"}, "rtt_model"),
        ({"rule": "sender", "whole_acks": True}, "whole_acks"),
    ],
)
def test_sender_rule_refuses_what_it_excludes(kwargs, names):
    with pytest.raises(ValueError, match=names):
        slow_start_exit("quick-vegas", 625.0, 0.1, **kwargs)
