"""A batch of series settles as each series alone (tcpfluid.metrics.settling).

Sweeps and batched runs summarise thousands of series in one call and promise each row the
value its run gives alone; the steady-stretch search is compiled and keeps per-series
state, so a series must not see its neighbours. Checked on random batches (ramps, cycles,
noise, an infinite or outlying sample now and then (NaN is refused at the door),
per-series segments and settle bands) against the same function called on one column at
a time: how each series settled and when exactly, its values to 1e-12. (NumPy sums a
contiguous column pairwise and the columns of a row-major batch in sequence, so a mean
may differ in its last bit between the two calls: the sweeps' exact promise is kept by
the engines handing their batches column by column, ``fluid._rounds_results``.) The
examples are derandomised: the same 150 on every run."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.metrics import settling

EXACT = ("time_s", "settled", "status")
CLOSE = ("value", "tolerance", "centre", "amplitude")


@st.composite
def batches(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 80))
    m = draw(st.integers(1, 7))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    t = np.arange(1.0, n + 1.0)
    ramp = np.minimum(t[:, None] * rng.uniform(0.5, 10.0, m), rng.uniform(10.0, 100.0, m))
    cycle = rng.uniform(0.0, 4.0, m) * np.sin(t[:, None] * rng.uniform(0.1, 2.0, m))
    v = np.round(ramp + cycle + rng.normal(0.0, rng.uniform(0.0, 2.0), (n, m)), 1)
    for _ in range(draw(st.integers(0, 2))):
        v[rng.integers(n), rng.integers(m)] = draw(st.sampled_from([math.inf, -math.inf, 1e9]))
    t0 = rng.choice([0.0, 0.3 * n], m)
    band = rng.choice([0.0, 1.0, 3.0, math.inf], m)
    return t, v, t0, band


@settings(max_examples=150, deadline=None, derandomize=True)
@given(batches())
def test_each_series_of_a_batch_settles_as_it_does_alone(
    case: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> None:
    t, v, t0, band = case
    with np.errstate(all="ignore"):
        batch = settling(t, v, t_start=t0, settle_band=band, abs_tol=0.5, rel_tol=0.01)
        for j in range(v.shape[1]):
            alone = settling(
                t, v[:, j], t_start=t0[j], settle_band=band[j], abs_tol=0.5, rel_tol=0.01
            )
            for name in (*EXACT, *CLOSE):
                got = np.asarray(getattr(batch, name))[j]
                want = np.asarray(getattr(alone, name))
                if name in EXACT:
                    assert np.array_equal(got, want, equal_nan=True), (name, j, got, want)
                else:
                    assert np.allclose(got, want, rtol=1e-12, atol=0.0, equal_nan=True), (
                        name,
                        j,
                        got,
                        want,
                    )


def test_a_sweep_sized_batch_settles_as_its_series_alone() -> None:
    # 2,500 series (a sweep's batch: judged in blocks of series, to keep its temporaries
    # small) with per-series starts and bands; 40 of them checked against their own call
    rng = np.random.default_rng(2500)
    n, m = 120, 2500
    t = np.arange(1.0, n + 1.0)
    ramp = np.minimum(t[:, None] * rng.uniform(0.5, 10.0, m), rng.uniform(10.0, 100.0, m))
    cycle = rng.uniform(0.0, 4.0, m) * np.sin(t[:, None] * rng.uniform(0.1, 2.0, m))
    v = np.round(ramp + cycle + rng.normal(0.0, 0.5, (n, m)), 1)
    t0 = rng.choice([0.0, 30.0], m)
    band = rng.choice([0.0, 1.0, 3.0, math.inf], m)
    batch = settling(t, v, t_start=t0, settle_band=band, abs_tol=0.5, rel_tol=0.01)
    assert 0 < int(np.sum(batch.settled)) < m  # both outcomes occur
    for j in rng.choice(m, 40, replace=False).tolist():
        alone = settling(t, v[:, j], t_start=t0[j], settle_band=band[j], abs_tol=0.5, rel_tol=0.01)
        for name in EXACT:
            got, want = np.asarray(getattr(batch, name))[j], np.asarray(getattr(alone, name))
            assert np.array_equal(got, want, equal_nan=True), (name, j, got, want)
        for name in CLOSE:
            got, want = np.asarray(getattr(batch, name))[j], np.asarray(getattr(alone, name))
            assert np.allclose(got, want, rtol=1e-12, atol=0.0, equal_nan=True), (name, j)
