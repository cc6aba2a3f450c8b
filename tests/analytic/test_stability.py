"""Local stability of the round map (tcpfluid.analytic.stability), three routes.

1. SymPy: the boundary gain and the symmetric-mode gain are re-derived in
   :mod:`tcpfluid.analytic.derive` and compared with the numeric functions.
2. Linear algebra: the companion matrix's eigenvalues equal the roots of the characteristic
   polynomial (``numpy.roots``), and the spectral radius crosses 1 at the boundary.
3. Engines: the verdicts for Quick Vegas are checked against a 20-flow packet run on both
   sides of the boundary (decision every round at the packets' two-round lag: predicted to
   oscillate; a measurement round after each eq.-(3) increase near the band, the default:
   predicted to settle) and
   against the law stepped by a lagged map without packets.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE, RoundSample
from tcpfluid.analytic import critical_gain, derive, round_map_stability, spectral_radius
from tcpfluid.analytic.stability import (
    characteristic_polynomial,
    companion_matrix,
    plot_stability,
)

LAGS = range(1, 7)


@pytest.mark.parametrize("lag", LAGS)
def test_critical_gain_matches_sympy_and_is_a_root_on_the_unit_circle(lag):
    import sympy as sp

    expr = derive.critical_gain_expr()
    (sym_l,) = expr.free_symbols
    kc = float(expr.subs(sym_l, lag))
    assert critical_gain(lag) == pytest.approx(kc, rel=1e-14)
    poly = derive.round_map_polynomial(lag)
    z, k = sp.symbols("z K")
    at = complex(poly.subs({z: sp.exp(sp.I * sp.pi / (2 * lag - 1)), k: kc}).evalf(30))
    assert abs(at) < 1e-12
    # the SymPy polynomial and the numeric coefficients agree
    coeffs = [float(c) for c in sp.Poly(poly.subs(k, 0.3), z).all_coeffs()]
    np.testing.assert_allclose(characteristic_polynomial(0.3, lag), coeffs)


@pytest.mark.parametrize("lag", LAGS)
def test_spectral_radius_crosses_one_at_the_boundary(lag):
    kc = critical_gain(lag)
    assert spectral_radius(kc * 0.98, lag) < 1.0 < spectral_radius(kc * 1.02, lag)
    assert spectral_radius(kc, lag) == pytest.approx(1.0, abs=1e-9)
    # eigenvalues of the companion matrix = roots of the polynomial
    for gain in (0.1, kc, 1.7):
        ev = np.sort_complex(np.linalg.eigvals(companion_matrix(gain, lag)))
        roots = np.sort_complex(np.roots(characteristic_polynomial(gain, lag)))
        np.testing.assert_allclose(ev, roots, atol=1e-9)


def test_known_boundaries():
    # K < 2 without lag, K < 1 with one round of delay, golden ratio conjugate with two
    assert critical_gain(1) == pytest.approx(2.0)
    assert critical_gain(2) == pytest.approx(1.0)
    assert critical_gain(3) == pytest.approx((math.sqrt(5) - 1) / 2)


def test_recurrence_decays_exactly_when_the_radius_is_below_one():
    # iterate e_{k+1} = e_k − K e_{k+1−L} directly (no matrix)
    for lag in (1, 2, 3):
        for gain in (0.3, 0.9, 1.1, 1.9, 2.1):
            e = [1.0] * lag
            for _ in range(400):
                e.append(e[-1] - gain * e[-lag])
            decays = abs(e[-1]) + abs(e[-2]) < 1e-6
            assert decays == (spectral_radius(gain, lag) < 1.0), (lag, gain)


def test_symmetric_mode_moves_delta_one_for_one_whatever_n():
    assert derive.symmetric_mode_gain_expr() == 1
    # numerically: N flows at μD/N each, all + h: each Δ moves by h
    mu, d, q = 12_500.0, 0.1, 60.0
    for n in (1, 20, 60):
        w = (mu * d + q) / n
        h = 1e-4

        def delta(wi: float, n: int = n) -> float:
            rtt = d + (n * wi - mu * d) / mu
            return wi * (1 - d / rtt)

        assert (delta(w + h) - delta(w - h)) / (2 * h) == pytest.approx(1.0, rel=1e-6)


def test_verdicts():
    # Quick Vegas: every-round decisions at the packets' lag oscillate, lag 1 settles
    v = round_map_stability("quick-vegas", n_flows=60, lag_rounds=2, sampling="every-round")
    assert not v.converges and v.spectral_radius == pytest.approx(math.sqrt(2))
    for sampling in ("near-band", "after-increase", "every-other-round"):
        v = round_map_stability("quick-vegas", n_flows=60, lag_rounds=2, sampling=sampling)
        assert v.converges and v.decision_lag == 1
    assert round_map_stability("quick-vegas", lag_rounds=1, sampling="every-round").converges
    # Vegas: the dead band [2, 4] holds two steps; Enhanced Vegas (no band) cycles
    assert round_map_stability("vegas", lag_rounds=2).converges
    assert not round_map_stability("vegas", lag_rounds=3).converges
    assert not round_map_stability("enhanced-vegas", alpha=3, beta=3, lag_rounds=1).converges
    # FAST γ = 0.5 settles at lag 1 and 2; γ = 1 at lag 2 sits on the boundary
    assert round_map_stability("fast", lag_rounds=2).converges
    assert not round_map_stability("fast", gamma=0.7, lag_rounds=3).converges
    d = round_map_stability("fast").to_dict()
    assert set(d) >= {"algorithm", "converges", "spectral_radius", "critical_gain"}


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: round_map_stability("reno"), "algorithm"),
        (lambda: round_map_stability("vegas", n_flows=0), "n_flows"),
        (lambda: round_map_stability("vegas", lag_rounds=0), "lag_rounds"),
        (lambda: round_map_stability("vegas", bdp_pkts=-1.0), "bdp_pkts"),
        (lambda: round_map_stability("quick-vegas", sampling="never"), "sampling"),
        (lambda: round_map_stability("fast", gamma=1.5), "gamma"),
        (lambda: spectral_radius(-1.0, 2), "gain"),
        (lambda: critical_gain(0), "lag_rounds"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_figure_returns_its_artists():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    artists = plot_stability(ax)
    assert len(artists) >= 3 * 2 + 1 + 4
    assert ax.get_xlabel().startswith("gain")
    plt.close(fig)


# ---- the law itself, stepped with the packets' lag (no packets) -----------------------

N_FLOWS = 20
MU_PPS = 100e6 / 8000.0  # 100 Mb/s of 1000-byte packets
D_S = 0.1


def _lagged_queue(sampling: str, lag: int, rounds: int = 400) -> tuple[float, float]:
    """Queue range of N identical Quick Vegas flows whose decision sees the window of
    ``lag`` rounds before (the current window for Δ's cwnd), second half of the run."""
    law = get_law("quick-vegas", sampling=sampling)
    state = law.init_state(1)
    state["phase"][:] = CONGESTION_AVOIDANCE
    g = [MU_PPS * D_S / N_FLOWS] * (lag + 1)
    queue = []
    for _ in range(rounds):
        seen = g[-lag]
        q = max(0.0, N_FLOWS * seen - MU_PPS * D_S)
        rtt = np.array([D_S + q / MU_PPS])
        w = np.array([g[-1]])
        act = law.on_round(
            state,
            RoundSample(
                cwnd=w, base_rtt=np.array([D_S]), rtt_mean=rtt, rtt_min=rtt, rtt_max=rtt, acks=w
            ),
        )
        g.append(min(act.cwnd[0] + act.incr[0] * w[0], max(act.cap[0], act.cwnd[0])))
        queue.append(max(0.0, N_FLOWS * g[-1] - MU_PPS * D_S))
    tail = np.asarray(queue[rounds // 2 :])
    return float(tail.min()), float(tail.max())


@pytest.mark.parametrize(
    "sampling", ["every-round", "near-band", "after-increase", "every-other-round"]
)
@pytest.mark.parametrize("lag", [1, 2, 3])
def test_lagged_law_agrees_with_the_verdict(sampling, lag):
    v = round_map_stability("quick-vegas", n_flows=N_FLOWS, lag_rounds=lag, sampling=sampling)
    lo, hi = _lagged_queue(sampling, lag)
    # settled: within one packet per flow of the band [Nα, Nβ] = [40, 80]
    inside = N_FLOWS * 1.0 <= lo <= hi <= N_FLOWS * 5.0
    assert inside == v.converges, (lo, hi)


# ---- packet simulator on both sides of the boundary -----------------------------------


def _packet_queue(sampling: str) -> tuple[float, float, float]:
    from tcpfluid.scenarios import build_scenario
    from tcpfluid.sim import simulate_packets

    sc = build_scenario(
        "qv-many-flows", bandwidth="100Mbps", flows=N_FLOWS, groups=1, duration="40s", active="40s"
    ).with_algorithm("quick-vegas", sampling=sampling)
    res = simulate_packets(sc)
    t = np.asarray(res.t_s)
    q = np.asarray(res.link("R1-R2").queue_pkts)[t >= 20.0]
    return float(q.min()), float(q.max()), float(res.summary.jain_index)


@pytest.mark.slow
def test_packet_runs_fall_on_the_predicted_side():
    # packets: lag 2 (a window decided at round i is measured in round i + 2)
    osc = round_map_stability("quick-vegas", n_flows=N_FLOWS, lag_rounds=2, sampling="every-round")
    ok = round_map_stability("quick-vegas", n_flows=N_FLOWS, lag_rounds=2, sampling="near-band")
    assert not osc.converges and ok.converges
    lo, hi, _ = _packet_queue("every-round")
    assert lo <= 1.0 and hi > 3 * N_FLOWS * 4.0  # empties, peaks far above Nβ = 80
    lo, hi, jain = _packet_queue("near-band")  # the default
    # never empties, peak within about a packet and a half per flow of Nβ
    assert lo > 0.0 and hi <= N_FLOWS * 4.0 * 1.5
    assert jain >= 0.95


def test_decrease_undershoot_by_hand():
    # e_{k+1} = e_k − e_{k−1}/2 from 1, 1: 1/2, 0, −1/4, −1/4, −1/8, 0, 1/16, ... (min −1/4);
    # with L = 1 the error halves each round and never crosses the target
    from tcpfluid.analytic import decrease_undershoot

    assert decrease_undershoot(0.5, 2) == 0.25
    assert decrease_undershoot(0.5, 1) == 0.0
    assert decrease_undershoot(0.5, 3) == 0.75


@pytest.mark.parametrize(
    ("sampling", "lag", "sustains"),
    [
        ("near-band", 2, True),  # 3 unseen increases: 24 per flow, undershoot 5.25 >= 3
        ("every-round", 2, True),
        ("near-band", 1, False),  # the round model: 2 unseen, eq. (4) never undershoots
        ("after-increase", 2, False),  # one unseen increase: 4 per flow, undershoot 0.25
        ("near-band-after-overshoot", 2, False),
        ("near-band-after-overshoot", 3, False),
    ],
)
def test_empty_queue_cycle_verdicts(sampling, lag, sustains):
    from tcpfluid.analytic import empty_queue_cycle

    v = empty_queue_cycle(n_flows=60, lag_rounds=lag, sampling=sampling)
    assert v.sustains is sustains
    u = v.unseen_increases
    assert v.excess_per_flow == 4.0 * u * (u + 1) / 2
    assert v.peak_queue_pkts == 60 * v.excess_per_flow
    assert v.to_dict()["sampling"] == sampling


def test_empty_queue_cycle_bad_input():
    from tcpfluid.analytic import empty_queue_cycle

    with pytest.raises(ValueError, match="sampling"):
        empty_queue_cycle(sampling="never")
    with pytest.raises(ValueError, match="alpha"):
        empty_queue_cycle(alpha=5.0, beta=4.0)
    with pytest.raises(ValueError, match="n_flows"):
        empty_queue_cycle(n_flows=0)
