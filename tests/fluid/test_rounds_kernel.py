"""The round model's compiled round (tcpfluid.fluid._rounds_kernel) against the round
model's formulas worked by hand (docs/round-model.md: the standing backlog
``max(0, W − μd)``, the burst term of the per-ACK growth, the overflow beyond the
buffer, the RTTs and the one-round feedback lag; docs/round-model-unequal-rtt.md: the
shared backlog of several classes, the root of ``Σ W_k/(μ d_k + q) = 1``)."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.fluid import _rounds_kernel as rk

# (the formulas below are the same IEEE operations in another order: rounding only)
REL = 1e-12


def _kernel(
    S: int, d: np.ndarray, mu: np.ndarray, buffer: np.ndarray, **kw: object
) -> rk.ClassKernel:
    options = {"model": "average", "spread": False, "finite": True, "reverse": False}
    options.update({"cross": False, "lag": 0, **kw})
    k = rk.ClassKernel(S, 0, 1, d, d[:1], mu, None, **options)  # type: ignore[arg-type]
    R = k.R
    R[rk.MU_A], R[rk.INV_MU], R[rk.MUD], R[rk.B_TCP] = mu, 1.0 / mu, mu * d, buffer
    return k


def test_one_class_round_is_the_burst_over_the_standing_backlog() -> None:
    mu, d = np.array([1000.0, 500.0, 2000.0]), np.array([0.1, 0.04, 0.05])
    buffer = np.array([100.0, 100.0, 5.0])
    w0, z = np.array([80.0, 50.0, 104.0]), np.array([4.0, 2.0, 3.0])
    w1 = w0 + z
    k = _kernel(3, d, mu, buffer)
    k(np.zeros(1), np.zeros(3), w0, z, w1, 3)
    # by hand: pipes 100, 20, 100 packets
    q0 = np.array([0.0, 30.0, 4.0])
    q1 = np.array([0.0, 32.0, 7.0])
    q_max = q0 + z  # the last packet of the round sees the whole growth
    q_mean = q0 + z / 2  # its packets on average half of it
    lost = np.array([0.0, 0.0, 2.0])  # 4 + 3 beyond the buffer of 5
    np.testing.assert_allclose(k.lost, lost, rtol=REL)
    # some scenario overflows: every backlog is capped at its buffer
    cap = np.minimum
    np.testing.assert_allclose(k.qf[0], cap(q0, buffer), rtol=REL)
    np.testing.assert_allclose(k.qf[1], cap(q_mean, buffer), rtol=REL)
    np.testing.assert_allclose(k.qf[2], cap(q_max, buffer), rtol=REL)
    np.testing.assert_allclose(k.qf[3], cap(q1, buffer), rtol=REL)
    np.testing.assert_allclose(k.duration, d + cap(q1, buffer) / mu, rtol=REL)
    r_min, r_mean, r_max, f_min, f_mean = k.rtts
    np.testing.assert_allclose(r_min, d + cap(q0, buffer) / mu, rtol=REL)
    np.testing.assert_allclose(r_mean, d + cap(q_mean, buffer) / mu, rtol=REL)
    np.testing.assert_allclose(r_max, d + cap(q_max, buffer) / mu, rtol=REL)
    np.testing.assert_allclose(f_min, d / 2 + cap(q0, buffer) / mu, rtol=REL)
    np.testing.assert_allclose(f_mean, d / 2 + cap(q_mean, buffer) / mu, rtol=REL)


def test_rtt_model_last_puts_the_whole_growth_on_every_packet() -> None:
    mu, d, b = np.array([1000.0]), np.array([0.1]), np.array([np.inf])
    k = _kernel(1, d, mu, b, model="last", finite=False)
    w0, z = np.array([110.0]), np.array([6.0])
    k(np.zeros(1), np.zeros(1), w0, z, w0 + z, 3)
    assert k.lost is None
    assert float(k.rtts[1][0]) == pytest.approx(0.1 + 16.0 / 1000.0, rel=REL)
    assert float(k.rtts[2][0]) == pytest.approx(0.1 + 16.0 / 1000.0, rel=REL)


def test_the_law_reads_the_last_rounds_rtts_with_a_feedback_lag() -> None:
    mu, d, b = np.array([1000.0]), np.array([0.1]), np.array([np.inf])
    k = _kernel(1, d, mu, b, lag=1, finite=False)
    ws, t0 = np.zeros(1), np.zeros(1)
    k(ws, t0, np.array([120.0]), np.array([4.0]), np.array([124.0]), 3)  # q0 20, mean 22
    first_mean = 0.1 + 22.0 / 1000.0
    assert float(k.rtts[1][0]) == pytest.approx(first_mean, rel=REL)  # none older yet
    k(ws, t0, np.array([104.0]), np.array([2.0]), np.array([106.0]), 3)  # q0 4, mean 5
    r_min, r_mean, r_max = (float(x[0]) for x in k.rtts[:3])
    assert r_mean == pytest.approx(first_mean, rel=REL)  # the round before's
    # this round's first packet (queue 4) enters the minimum and the maximum
    assert r_min == pytest.approx(0.1 + 4.0 / 1000.0, rel=REL)
    assert r_max == pytest.approx(0.1 + 24.0 / 1000.0, rel=REL)


def test_two_classes_share_the_backlog_of_their_windows() -> None:
    # class 0 (d 10 ms) and class 1 (d 30 ms) at 1000 packets/s: pipes 10 and 30; with
    # windows 10 and 20 the backlog q solves 10/(10 + q) + 20/(30 + q) = 1: q = 10
    mu = np.array([1000.0])
    k = rk.ClassKernel(
        1, 0, 2, np.array([0.01]), np.array([0.01, 0.03]), mu, None, model="average",
        spread=False, finite=False, reverse=False, cross=False, lag=0,
    )  # fmt: skip
    k.R[rk.MU_A], k.R[rk.INV_MU], k.R[rk.MUD] = mu, 1.0 / mu, mu * 0.01
    w = np.array([10.0])
    k(np.array([0.0, 20.0]), np.zeros(1), w, np.zeros(1), w, 3)
    assert k.others() is not None
    assert float(k.qf[0][0]) == pytest.approx(10.0, rel=1e-9)
    assert float(k.duration[0]) == pytest.approx(0.01 + 10.0 / 1000.0, rel=1e-9)
    # the other class not sending: the class's own standing backlog, none
    k(np.array([0.0, 0.0]), np.zeros(1), w, np.zeros(1), w, 3)
    assert k.others() is None
    assert float(k.qf[0][0]) == 0.0


def _sample(base: np.ndarray, act: np.ndarray, off: bool, rtts: np.ndarray) -> np.ndarray:
    """The sample rule's rows for windows 10, 11, ... (inactive flows' last: 5)."""
    n = base.size
    out, w1 = np.empty((8, n)), 10.0 + np.arange(n)
    fwd = base.copy()
    args = (out, True, True, rtts, rtts[0].copy(), off, w1, w1, np.empty(0))
    rk.rule("sample")(base, fwd, act, np.full(n, 5.0), *args)
    np.testing.assert_array_equal(fwd, base)  # (the forward minimum, from the same RTTs)
    return out


def test_running_minimum_skips_inactive_flows_and_reads_now_for_a_new_one() -> None:
    least = np.array([0.05, np.inf, 0.07, 0.2])
    now = np.array([0.06, 0.08, 0.01, 0.1])
    act = np.array([True, True, False, True])
    out = _sample(least, act, True, np.tile(now, (5, 1)))
    np.testing.assert_array_equal(least, [0.05, 0.08, 0.07, 0.1])
    np.testing.assert_array_equal(out[1], [0.05, 0.08, 0.07, 0.1])
    np.testing.assert_array_equal(out[0], [10.0, 11.0, 5.0, 13.0])
    least = np.array([np.inf, 0.3])
    # (one column for both flows: the scenario's RTTs)
    out = _sample(least, np.array([False, True]), True, np.array([[0.1]] * 5))
    np.testing.assert_array_equal(out[1], [0.1, 0.1])  # none yet: this round's
    assert least[0] == np.inf
    np.testing.assert_array_equal(out[2:5], [[0.1, 0.1]] * 3)
