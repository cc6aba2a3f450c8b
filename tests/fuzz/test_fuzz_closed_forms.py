"""Fuzzing the closed forms and ``Path``: hostile numbers in, a named error or finite out."""

from __future__ import annotations

from typing import Any

from _fuzz_budget import ANYTHING, FUZZ, NUMBERS, TEXTS, assert_finite, call_checked
from hypothesis import given
from hypothesis import strategies as st

from tcpfluid import Path
from tcpfluid.analytic import (
    critical_window,
    jain_index,
    predict,
    rounds_to_equilibrium,
    slow_start_exit,
    slow_start_windows,
    vegas_window_band,
)
from tcpfluid.analytic.predict import PREDICT_ALGORITHMS

ALGS = st.sampled_from([*PREDICT_ALGORITHMS, "nope", ""])
SS_ALGS = st.sampled_from(["vegas", "quick-vegas", "tcp-ho", "enhanced-vegas", "nope"])


@FUZZ
@given(alg=ALGS, bdp=NUMBERS, gamma=NUMBERS)
def test_critical_window(alg: str, bdp: Any, gamma: Any) -> None:
    ok, out = call_checked(critical_window, ["algorithm", "bdp", "gamma"], alg, bdp, gamma=gamma)
    if ok:
        assert_finite(out)


@FUZZ
@given(alg=SS_ALGS, bdp=NUMBERS, rtt=NUMBERS, gamma=NUMBERS, whole=st.booleans())
def test_slow_start_exit(alg: str, bdp: Any, rtt: Any, gamma: Any, whole: bool) -> None:
    ok, out = call_checked(
        slow_start_exit,
        ["algorithm", "bdp", "rtt_s", "gamma", "whole_acks"],
        alg,
        bdp,
        rtt,
        gamma=gamma,
        whole_acks=whole,
    )
    if ok:
        assert_finite(out)


@FUZZ
@given(
    alg=SS_ALGS,
    rounds=st.one_of(st.integers(-5, 5000), NUMBERS),
    whole=st.booleans(),
)
def test_slow_start_windows(alg: str, rounds: Any, whole: bool) -> None:
    ok, out = call_checked(
        slow_start_windows, ["algorithm", "rounds", "whole_acks"], alg, rounds, whole_acks=whole
    )
    if ok:
        assert_finite(out)


@FUZZ
@given(alg=ALGS, window=NUMBERS, n=NUMBERS, beta=NUMBERS)
def test_rounds_to_equilibrium(alg: str, window: Any, n: Any, beta: Any) -> None:
    ok, out = call_checked(
        rounds_to_equilibrium, ["algorithm", "window", "n", "beta"], alg, window, n, beta=beta
    )
    if ok:
        assert_finite(out)


@FUZZ
@given(bdp=NUMBERS, alpha=NUMBERS, beta=NUMBERS)
def test_vegas_window_band(bdp: Any, alpha: Any, beta: Any) -> None:
    ok, out = call_checked(vegas_window_band, ["bdp", "alpha", "beta"], bdp, alpha=alpha, beta=beta)
    if ok:
        assert_finite(out)


@FUZZ
@given(x=st.one_of(st.lists(NUMBERS, max_size=5), NUMBERS, TEXTS))
def test_jain_index(x: Any) -> None:
    ok, out = call_checked(jain_index, ["x"], x)
    if ok:
        assert_finite(out)


@FUZZ
@given(
    bandwidth=st.one_of(NUMBERS, TEXTS),
    rtt=st.one_of(NUMBERS, TEXTS),
    buffer=ANYTHING,
    packet_size=st.one_of(NUMBERS, TEXTS),
)
def test_path(bandwidth: Any, rtt: Any, buffer: Any, packet_size: Any) -> None:
    ok, out = call_checked(
        Path,
        ["bandwidth", "rtt", "buffer", "packet_size"],
        bandwidth,
        rtt,
        buffer=buffer,
        packet_size=packet_size,
    )
    if ok:
        assert_finite([out.mu, out.d, out.bdp])


@FUZZ
@given(
    alg=ALGS,
    mu=st.floats(1e-3, 1e7),
    d=st.floats(1e-4, 10.0),
    gamma=NUMBERS,
    alpha=NUMBERS,
    beta=NUMBERS,
)
def test_predict(alg: str, mu: float, d: float, gamma: Any, alpha: Any, beta: Any) -> None:
    path = Path(mu, d)
    ok, out = call_checked(
        predict,
        ["algorithm", "gamma", "alpha", "beta", "bdp", "mu"],
        alg,
        path,
        gamma=gamma,
        alpha=alpha,
        beta=beta,
    )
    if ok:
        assert_finite(out)
