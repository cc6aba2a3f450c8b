"""``benchmarks/sim.py``: the end-to-end marginal rate where the long run is no slower than
the short one (hand-made timings; the timed runs are the benchmark's business)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def sim() -> Any:
    import sys

    sys.path.insert(0, str(_BENCH))  # sim.py imports its neighbour _worker.py
    try:
        spec = importlib.util.spec_from_file_location("benchmark_sim", _BENCH / "sim.py")
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(_BENCH))
    return mod


def test_a_long_run_no_slower_than_the_short_one_is_not_measurable(sim: Any) -> None:
    # 784 packets in the short run, 204,972 in the long one (qv-basic, 2 s and 60 s); the
    # long run's wall 2.15 s against the short one's 2.65 s, CPU 1.44 s both: no rate
    m = sim._cli_marginal((784, 204_972), [((2.65, 1.44), (2.15, 1.44))])
    assert m["marginal_packets_per_s"] is None
    assert m["marginal_packets_per_cpu_s"] is None
    assert m["median_pair_packets_per_s"] is None
    line = sim._cli_line("new", m)
    assert "marginal not measurable" in line and "inf" not in line
    assert "not measurable; median of the pairs' own: not measurable)" in line
    record = {"name": "x", "tree": "new", "value": m["marginal_packets_per_s"], "unit": "p/s"}
    assert json.loads(json.dumps(record, allow_nan=False))["value"] is None
    assert sim._ratio(None, 2.0) == "not measurable"


def test_the_marginal_rates_of_measurable_runs(sim: Any) -> None:
    # (204,972 - 784) packets over 0.5 s more wall: 408,376 a second; over 0.25 s more CPU:
    # 816,752 per CPU second; the pairs' own: 0.5 s and 1.0 s more, and a pair whose long
    # run was quicker (not measurable, ranked above every rate): the median is the 0.5 s one
    pairs = [((1.0, 0.5), (1.5, 0.75)), ((1.2, 0.6), (2.2, 0.9)), ((2.0, 0.7), (1.9, 0.8))]
    m = sim._cli_marginal((784, 204_972), pairs)
    assert m["marginal_packets_per_s"] == pytest.approx(204_188 / 0.5)
    assert m["marginal_packets_per_cpu_s"] == pytest.approx(204_188 / 0.25)
    assert m["median_pair_packets_per_s"] == pytest.approx(204_188 / 0.5)
    assert "marginal 408,376 packets/s" in sim._cli_line("new", m)
    assert sim._ratio(3.0, 2.0) == "1.50x"
