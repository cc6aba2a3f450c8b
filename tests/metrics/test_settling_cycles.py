"""Settling that recognises a law's own limit cycle (tcpfluid.metrics.settling, settle_band).

Synthetic series whose centre, amplitude and settling time are known by construction, and
one run of the round engine checked against Quick Vegas's band (the Quick Vegas paper,
§3.2.2: the window moves by ±1 around the band α <= Δ <= β)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics import law_settle_band, settling
from tcpfluid.scenarios import build_scenario

#: a base band narrower than the synthetic cycles, so that only settle_band admits them
BASE = {"abs_tol": 0.5, "rel_tol": 0.0}


def _ramp_then_cycle(centre: float, t_cycle: float, end: float) -> tuple[np.ndarray, np.ndarray]:
    """One sample per second: a ramp from 0 reaching ``centre`` at ``t_cycle``, then the
    pure cycle centre, centre + 1, centre, centre - 1, ... (amplitude 1)."""
    t = np.arange(1.0, end + 1.0)
    ramp = centre * t / t_cycle
    cycle = centre + np.array([0.0, 1.0, 0.0, -1.0])[(t.astype(int) - int(t_cycle)) % 4]
    return t, np.where(t < t_cycle, ramp, cycle)


def test_a_pure_cycle_settles_at_its_start_with_its_centre_and_amplitude() -> None:
    t, v = _ramp_then_cycle(100.0, 30.0, 200.0)
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert bool(r.settled) and bool(r.cycling)
    # by construction: centre 100, amplitude 1; the band 1 + 0.5 around 100 is first
    # entered for good at t = 30 (the ramp's sample at t = 29 is 96.7)
    assert float(r.centre) == 100.0 and float(r.amplitude) == 1.0
    assert float(r.time_s) == 30.0
    assert float(r.tolerance) == 1.5
    assert r.reasons().tolist() == ""


def test_a_cycle_wider_than_settle_band_does_not_settle_and_says_why() -> None:
    t, v = _ramp_then_cycle(100.0, 30.0, 200.0)
    for band in (0.0, 0.5):  # 0: fixed points only (the default); 0.5 < the amplitude 1
        r = settling(t, v, settle_band=band, **BASE)
        assert not bool(r.settled) and math.isnan(float(r.time_s))
        assert "wider than" in str(r.reasons())
    r = settling(t, v, settle_band=1.0, **BASE)  # exactly the cycle's amplitude
    assert bool(r.settled) and float(r.time_s) == 30.0


def test_a_cycle_inside_the_base_band_is_a_fixed_point() -> None:
    t, v = _ramp_then_cycle(100.0, 30.0, 200.0)
    # base band 2 around the tail mean: the ±1 cycle fits it; settle_band changes nothing
    a = settling(t, v, abs_tol=2.0, rel_tol=0.0)
    b = settling(t, v, abs_tol=2.0, rel_tol=0.0, settle_band=math.inf)
    assert bool(a.settled) and not bool(a.cycling)
    assert float(a.time_s) == float(b.time_s)
    assert float(a.value) == float(b.value)


@pytest.mark.parametrize("end", [200.0, 400.0, 1000.0, 5000.0])
def test_a_slow_drift_never_settles(end: float) -> None:
    # 0.05 per second under a ±1 cycle: over a tail (10 % of the run, >= 20 s) the mean
    # moves by >= 1, more than the base band 0.5 -- however long the run
    t, cyc = _ramp_then_cycle(100.0, 30.0, end)
    v = cyc + 0.05 * t
    for band in (0.0, math.inf):
        r = settling(t, v, settle_band=band, **BASE)
        assert not bool(r.settled), (end, band)
        assert "drifting" in str(r.reasons())


def test_a_decaying_oscillation_settles_when_it_enters_the_band() -> None:
    # v = 100 + 20 exp(-t/50) sin(2πt/10), sampled every 0.1 s: the envelope reaches the
    # base band 0.5 at t* = 50 ln(20/0.5) = 184.4 s; the last excursion beyond it is a
    # peak less than half a period (5 s) before t*
    t = np.arange(0.1, 600.0, 0.1)
    v = 100.0 + 20.0 * np.exp(-t / 50.0) * np.sin(2.0 * np.pi * t / 10.0)
    t_star = 50.0 * math.log(20.0 / 0.5)
    for band in (0.0, math.inf):
        r = settling(t, v, settle_band=band, **BASE)
        assert bool(r.settled)
        assert t_star - 5.0 <= float(r.time_s) <= t_star + 0.1


def test_a_growing_oscillation_does_not_settle() -> None:
    t = np.arange(0.1, 600.0, 0.1)
    v = 100.0 + 0.5 * np.exp(t / 150.0) * np.sin(2.0 * np.pi * t / 10.0)
    r = settling(t, v, settle_band=math.inf, **BASE)
    assert not bool(r.settled)
    assert "growing" in str(r.reasons())


def test_settling_batches_per_column_bands_and_json() -> None:
    t, v = _ramp_then_cycle(100.0, 30.0, 200.0)
    both = np.stack([v, v], axis=1)
    r = settling(t, both, settle_band=np.array([0.0, math.inf]), **BASE)
    assert r.settled.tolist() == [False, True]
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["centre"] == [None, 100.0] and d["amplitude"] == [None, 1.0]
    assert d["reason"][1] == "" and "wider than" in d["reason"][0]


def test_settle_band_is_validated() -> None:
    with pytest.raises(ValueError, match="settle_band"):
        settling([1.0, 2.0], [1.0, 2.0], settle_band=-1.0)
    with pytest.raises(ValueError, match="settle_band"):
        settling([1.0, 2.0], [1.0, 2.0], settle_band=math.nan)


def test_quick_vegas_one_flow_settles_in_its_own_cycle_on_the_round_engine() -> None:
    # 5 Mb/s × 100 ms: the window cycles ±1-2 packets for ever (Quick Vegas's ±1 moves,
    # §3.2.2), wider than the base band max(1 packet, 2 %) = 1.3 packets
    sc = build_scenario(
        "qv-basic", bandwidth="5Mbps", rtt="100ms", cbr="none", duration="60s"
    ).with_algorithm("quick-vegas")
    res = tcpfluid.simulate(sc, "rounds")
    f = res.summary.flows[0]
    assert law_settle_band("quick-vegas") == math.inf
    assert f.time_to_equilibrium_s is not None and f.not_settled_reason is None
    # the independent route: the law's band. One flow's Δ is the queue, so the window
    # sits at μd + Δ with α = 2 <= Δ <= β = 4 (the Quick Vegas paper's §5 values): the
    # centre lies in [μd + α, μd + β] and the swing spans at least the band's half-width
    # (β − α)/2 and at most one move of one packet past each edge more (the move made
    # before the lagged measurement sees the edge)
    d = sc.base_rtt_s(sc.flows[0])
    mu_d = 5e6 / 8000.0 * d
    assert mu_d + 2.0 <= f.cycle_centre_pkts <= mu_d + 4.0
    assert 1.0 <= f.cycle_amplitude_pkts <= 2.0
    # the fixed-point band alone (settle_band 0) calls the same window "not settled"
    t = res.native.time_s[:, 0]
    w = res.window_pkts[0]
    fixed = settling(t, w, settle_band=0.0)
    assert not bool(fixed.settled) and "wider than" in str(fixed.reasons())
