"""``record_interval_s``: which samples an engine keeps, and a request for more samples than
memory holds.

The kept samples are checked against the definition written out here in plain Python (the
first sample at or after each multiple of the interval from the first sample), on the
engine's own full recording; the refusal is checked by its type and words, before any large
allocation (a wrong check would raise numpy's MemoryError or take minutes instead).
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import Ode
from tcpfluid.scenarios import build_scenario


def first_at_or_after_each_multiple(t: np.ndarray, interval_s: float) -> list[int]:
    """The definition, one multiple at a time (``tol``: a rounding error short of one)."""
    tol = 1e-12 * max(1.0, float(t[-1]))
    kept: list[int] = []
    m = 0
    while t[0] + m * interval_s <= t[-1] + tol:
        target = t[0] + m * interval_s - tol
        i = next(i for i, x in enumerate(t) if x >= target)
        if not kept or kept[-1] != i:
            kept.append(i)
        m += 1
    return kept


@pytest.fixture(scope="module")
def vegas() -> tcpfluid.scenarios.Scenario:
    return build_scenario("qv-basic", bandwidth="10Mbps", duration="6s").with_algorithm("vegas")


@pytest.mark.parametrize("interval_s", [0.05, 0.1, 0.37, 1.0, 2.5, 100.0])
def test_rounds_keeps_the_first_round_at_or_after_each_multiple(vegas, interval_s):
    every = tcpfluid.simulate(vegas, "rounds")
    kept = tcpfluid.simulate(vegas, "rounds", record_interval_s=interval_s)
    t = np.asarray(every.time_s)
    want = first_at_or_after_each_multiple(t, interval_s)
    np.testing.assert_array_equal(np.asarray(kept.time_s), t[want])
    np.testing.assert_array_equal(
        np.asarray(kept.window_pkts), np.asarray(every.window_pkts)[:, want]
    )


@pytest.mark.parametrize("interval_s", [1e-9, 1e-6])
def test_an_interval_shorter_than_a_round_keeps_every_round(vegas, interval_s):
    """Billions of grid points over a 6-s run: every round, and nothing that large built."""
    every = tcpfluid.simulate(vegas, "rounds")
    kept = tcpfluid.simulate(vegas, "rounds", record_interval_s=interval_s)
    np.testing.assert_array_equal(np.asarray(kept.time_s), np.asarray(every.time_s))


def test_the_classical_model_refuses_more_samples_than_memory_holds(vegas):
    with pytest.raises(ValueError, match=r"n_points=.*GiB \(budget 4 GiB\).*record_interval_s >="):
        tcpfluid.simulate(vegas, Ode(record_interval_s=1e-9))


@pytest.mark.parametrize("flows", [2, 12])
def test_the_classical_models_estimate_is_above_its_measured_peak(flows):
    """The estimate the refusal reads (bytes per sample: 8 x (arrays per flow-sample x
    flows + arrays per sample)) is above the peak that tracemalloc measures for a whole
    run through the engine, the result included, so that the budget is a real bound."""
    import tracemalloc

    from tcpfluid.fluid import _ode_solve

    sc = build_scenario("ho-fairness", flows=flows, duration="20s").with_algorithm("vegas")
    n = 40_001
    tcpfluid.simulate(sc, Ode(record_interval_s=1.0))  # imports and first calls untraced
    tracemalloc.start()
    try:
        tcpfluid.simulate(sc, Ode(record_interval_s=20.0 / (n - 1)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_sample = 8 * (_ode_solve.ARRAYS_PER_FLOW_SAMPLE * flows + _ode_solve.ARRAYS_PER_SAMPLE)
    assert peak < n * per_sample
