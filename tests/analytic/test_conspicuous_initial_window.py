"""Eq. (2) of the TCP-Ho paper from ns-2's first window: a Vegas slow start from w0 packets
doubles every other round (W_l = w0 · 2^(l/2 − 1)), so from one packet every window of
Table 3 comes two rounds later and the conspicuous round is two rounds later; the round
model (another layer, stepping the Vegas law round by round) counts the same rounds."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.analytic import conspicuous_round
from tcpfluid.scenarios import Scenario, build_scenario

D_S = 0.1
PACKET_BITS = 8000.0


def _vegas_on_an_exact_path(bdp: float, initial_window: float, margin_s: float) -> Scenario:
    """Vegas on qv-basic without CBR on a path whose base RTT (eq. 5 of the Quick Vegas
    paper) is exactly 0.1 s and whose μd is ``bdp`` packets, run ``margin_s`` past 1.3 times
    the two-packet conspicuous round."""
    k = float(conspicuous_round("vegas", bdp))
    over = {
        "cbr": "none",
        "bandwidth": f"{float(bdp / D_S * PACKET_BITS)!r}bps",
        "rtt": D_S,
        "duration": f"{1.3 * k * D_S + margin_s:.1f}s",
    }
    d = build_scenario("qv-basic", **over).fluid_view().path.d
    over["rtt"] = D_S - (d - D_S)
    return build_scenario("qv-basic", **over).with_algorithm("vegas", initial_window=initial_window)


def _round_model_rounds(bdp: float, initial_window: float) -> int:
    """Rounds until the round model's Vegas window first reaches μd on an empty path with a
    base RTT of exactly 0.1 s (round 1 = the first round)."""
    sc = _vegas_on_an_exact_path(bdp, initial_window, 3.0)
    w = np.asarray(simulate(sc, "rounds").window_pkts)[0]
    return int(np.flatnonzero(w >= bdp - 1e-9)[0]) + 1


# μd = 60 and 248: W* = 16 and 32 exactly (Δ = γ there: the window grows on)
@pytest.mark.parametrize("bdp", [18.75, 60.0, 100.0, 248.0, 250.0])
def test_eq_2_from_one_packet_counts_the_round_models_rounds(bdp):
    for w0 in (1.0, 2.0):
        cf = float(conspicuous_round("vegas", bdp, initial_window=w0))
        assert _round_model_rounds(bdp, w0) == cf, w0


def test_one_packet_costs_two_rounds_and_four_packets_save_two():
    b = np.array([5.0, 18.75, 250.0, 625.0, 5000.0])
    two = conspicuous_round("vegas", b)
    np.testing.assert_array_equal(conspicuous_round("vegas", b, initial_window=1.0), two + 2.0)
    np.testing.assert_array_equal(
        conspicuous_round("vegas", b[1:], initial_window=4.0), two[1:] - 2.0
    )


def test_the_ns2_start_gives_the_papers_ns2_times_within_a_round():
    # the TCP-Ho paper's §4.3: ns-2 (windowInit_ = 1) reaches the bandwidth at 1.5 / 20.9 /
    # 58.4 s; a round is 0.1 s
    for bdp, ns2 in ((18.75, 1.5), (250.0, 20.9), (625.0, 58.4)):
        t = float(conspicuous_round("vegas", bdp, initial_window=1.0)) * D_S
        assert t == pytest.approx(ns2, abs=D_S + 1e-9)


def test_a_first_window_below_one_packet_is_refused():
    with pytest.raises(ValueError, match=r"initial_window must be in \[1.0, inf\), got 0.5"):
        conspicuous_round("vegas", 18.75, initial_window=0.5)


@pytest.mark.parametrize("bdp", [18.75, 250.0])
def test_the_hybrid_ode_from_one_packet_reaches_mu_d_at_eq_2_from_one_packet(bdp):
    # the ODE engine's hybrid model keeps each flow's round trace as the packets do
    sc = _vegas_on_an_exact_path(bdp, 1.0, 3.2)
    f = simulate(sc, "ode").native.hybrid.flows[0]
    t, w = np.asarray(f.round_t_s), np.asarray(f.round_cwnd_pkts)
    reached = float(t[int(np.flatnonzero(w >= bdp - 1e-9)[0])])
    cf = float(conspicuous_round("vegas", bdp, initial_window=1.0)) * D_S
    # within a round: at Example 2 the hybrid, like the packets (and ns-2: 20.9 s), reaches
    # μd one round after eq. (2)'s 20.8 s, as from two packets (20.7 s against 20.6 s)
    assert reached == pytest.approx(cf, abs=D_S + 0.01)
    assert reached >= cf - 0.01
