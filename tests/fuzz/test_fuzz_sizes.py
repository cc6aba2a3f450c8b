"""Fuzzing the sizes: lags, round counts, flow counts, durations and extreme magnitudes.

Every input that scales the work or the memory (a lag of 10^7 rounds, 2^63 flows, a run of
1e300 s) must end at once with a ValueError/TypeError naming it, or with a result that is
finite and physically possible (a spectral radius >= 0 on the right side of the stability
boundary, rates that fill the link, a Jain index in [1/n, 1]).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from _fuzz_budget import FUZZ, NUMBERS, TEXTS, assert_finite, call_checked
from hypothesis import assume, example, given
from hypothesis import strategies as st

import tcpfluid
from tcpfluid import Path
from tcpfluid.analytic import blb_equilibrium, jain_index, predict
from tcpfluid.analytic.stability import (
    characteristic_polynomial,
    companion_matrix,
    critical_gain,
    decrease_undershoot,
    spectral_radius,
)
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.model import MAX_FLOWS

LAGS = st.one_of(st.integers(-3, 40), st.integers(41, 10**12), NUMBERS)
GAINS = st.one_of(st.floats(0.0, 10.0), NUMBERS)


@FUZZ
@given(gain=GAINS, lag=LAGS)
def test_spectral_radius_of_any_lag(gain: Any, lag: Any) -> None:
    ok, rho = call_checked(spectral_radius, ["gain", "lag_rounds"], gain, lag)
    if not ok:
        return
    assert math.isfinite(rho) and rho >= 0.0
    # the boundary in closed form (derived in SymPy): converges iff 0 < K < 2 sin(π/(2(2L−1)))
    kc = critical_gain(lag)
    # |ρ − 1| shrinks like |K − Kc|/L: beyond float resolution ρ rounds to 1
    if rho == 1.0 and (lag > 10**6 or gain < 1e-12):
        return
    if 0.0 < gain < kc * (1 - 1e-6):
        assert rho < 1.0
    elif gain > kc * (1 + 1e-6):
        assert rho > 1.0


@FUZZ
@given(gain=GAINS, lag=LAGS)
def test_companion_forms_refuse_what_does_not_fit(gain: Any, lag: Any) -> None:
    for fn in (companion_matrix, characteristic_polynomial):
        ok, out = call_checked(fn, ["gain", "lag_rounds"], gain, lag)
        if ok:
            assert_finite(out)


@FUZZ
@given(gain=GAINS, lag=LAGS, rounds=st.one_of(st.integers(-3, 10**13), NUMBERS))
def test_decrease_undershoot_of_any_size(gain: Any, lag: Any, rounds: Any) -> None:
    ok, out = call_checked(decrease_undershoot, ["gain", "lag_rounds", "rounds"], gain, lag, rounds)
    if ok:
        assert math.isfinite(out) and out >= 0.0


@FUZZ
@given(
    alpha=st.lists(st.one_of(st.floats(1e-300, 1e300), NUMBERS), min_size=1, max_size=4),
    over=st.one_of(st.floats(0.0, 1e300), NUMBERS),
    capacity=st.one_of(st.floats(1e-300, 1e300), NUMBERS),
)
def test_blb_equilibrium_at_the_ends_of_the_floats(alpha: Any, over: Any, capacity: Any) -> None:
    ok, eq = call_checked(
        blb_equilibrium, ["alpha", "overestimate_s", "capacity_pps"], alpha, over, capacity
    )
    if not ok:
        return
    assert_finite(eq.to_dict()["rates_pps"])
    assert eq.queueing_delay_s >= float(over) and np.all(eq.rates_pps >= 0)
    # the rates fill the link (the model's equation), where the sum is representable
    total = float(np.sum(eq.rates_pps))
    if math.isfinite(total) and total > 0:
        assert math.isclose(total, float(capacity), rel_tol=1e-6)


@FUZZ
@given(
    x=st.lists(
        st.one_of(st.floats(0.0, 1.7e308), st.sampled_from([5e-324, 1e308])), min_size=1, max_size=6
    )
)
def test_jain_index_stays_in_its_range(x: list[float]) -> None:
    assume(any(v > 0 for v in x))
    j = float(jain_index(x))
    assert 1.0 / len(x) - 1e-12 <= j <= 1.0 + 1e-12


@FUZZ
@given(
    mu=st.floats(1e-3, 1e12),
    d=st.floats(1e-6, 1e3),
    buffer=st.one_of(st.none(), st.floats(1.0, 1e6)),
    reverse=st.one_of(st.none(), st.floats(1e-3, 1e13)),
    alg=st.sampled_from(["vegas", "quick-vegas", "enhanced-vegas", "tcp-ho"]),
    alpha=st.floats(0.0, 50.0),
    width=st.floats(0.0, 50.0),
    gamma=st.floats(1e-6, 100.0),
)
def test_predict_answers_inside_its_domain(
    mu: float,
    d: float,
    buffer: Any,
    reverse: Any,
    alg: str,
    alpha: float,
    width: float,
    gamma: float,
) -> None:
    path = Path(mu, d, buffer=buffer, reverse_bandwidth=reverse)
    beta = alpha if alg == "enhanced-vegas" else alpha + width
    kw = {} if alg == "tcp-ho" else {"alpha": alpha, "beta": beta, "gamma": gamma}
    names = ["bdp", "gamma", "alpha", "beta", "buffer", "reverse_bandwidth", "mu", "window"]
    # the closed forms' domain at the floats' ends; the round map's own bound (at most
    # MAX_SETTLING_ROUNDS rounds, checked before each run) is tested with the predictions
    ok, pr = call_checked(predict, names, alg, path, round_map=False, **kw)
    if not ok:
        return
    assert_finite(pr)
    # without the round map, Quick Vegas and TCP-Ho have no settling time (None, with a note)
    assert pr.rounds_to_equilibrium is None or pr.rounds_to_equilibrium >= 0
    assert pr.time_to_equilibrium_s is None or pr.time_to_equilibrium_s >= 0
    assert pr.rounds_to_target >= 0 and pr.time_to_target_s >= 0
    if pr.equilibrium_band_pkts is not None:
        lo, hi = pr.equilibrium_band_pkts
        assert pr.equilibrium_window_pkts is not None
        assert (
            0 < pr.equilibrium_window_pkts and lo - 1e-9 <= pr.equilibrium_window_pkts <= hi + 1e-9
        )


@FUZZ
@given(
    name=st.sampled_from(["qv-basic", "qv-many-flows", "itcp-long-delay"]),
    flows=st.one_of(st.integers(-3, 30), st.integers(MAX_FLOWS + 1, 2**63), NUMBERS, TEXTS),
)
def test_flow_counts_are_bounded_before_building(name: str, flows: Any) -> None:
    extra = {"groups": 1} if name == "qv-many-flows" else {}
    ok, sc = call_checked(build_scenario, ["flows", "groups"], name, flows=flows, **extra)
    if ok:
        assert 1 <= len(sc.flows) <= MAX_FLOWS


@FUZZ
@given(
    duration=st.one_of(
        st.floats(2e6, 1.7e308, exclude_min=True), st.sampled_from(["1e300s", "1e12 s", "4e9 h"])
    )
)
@example(duration=1.797693134862316e307)  # its default trace interval's count overflowed
def test_packet_runs_without_end_are_refused_before_running(duration: Any) -> None:
    # qv-basic's one flow sends at most 6250 packets/s, each crossing 6 links (data and
    # ACKs): at the limit of 5e10 transmissions, with a margin of 1.5 for the CBR source
    # and the estimate, every duration from 2e6 s on must be refused, naming it, before the
    # run starts (a run that started would not end within the test)
    sc = build_scenario("qv-basic", duration=duration).with_algorithm("vegas")
    assert sc.duration_s * 6250 * 6 > 5e10 * 1.5
    ok, _ = call_checked(tcpfluid.simulate, ["duration"], sc, "packet", progress=_no_progress)
    assert not ok


def _no_progress(fraction: float) -> None:
    """A packet run's progress report: a run that started instead of being refused stops
    here, at its first report."""
    raise AssertionError(f"the packet run started ({fraction:.2g} done)")
