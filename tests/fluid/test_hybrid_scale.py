"""The hybrid model's memory with many flows: linear in the flows, under the estimate
checked before a run allocates, and a run over the budget refused before it allocates;
the small-pages block a run allocates in restores NumPy's huge-page setting.
(Its utilisation with hundreds of flows against the packets: the validation suite.)
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import _hybrid_inputs
from tcpfluid.fluid.hybrid import simulate_hybrid


def _peak_bytes(flows: int) -> int:
    law = get_law("vegas")
    tracemalloc.start()
    try:
        simulate_hybrid(
            law,
            mu_pps=125_000.0,
            base_rtt_s=np.full(flows, 0.1),
            duration_s=1.0,
            buffer_pkts=1500.0,
            record_every_s=0.002,
        )
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_grows_linearly_with_flows_and_stays_under_the_estimate() -> None:
    """The peak traced allocation of a run doubles (not more) when the flows double, and
    the estimate checked before a run allocates is above it."""
    small, large = _peak_bytes(500), _peak_bytes(1000)
    assert large < 2.2 * small
    run = _hybrid_inputs.check_run(
        125_000.0, np.full(1000, 0.1), 1.0, 1500.0, (), None, None, None, 0.002, None
    )
    assert _hybrid_inputs.memory_estimate(run, 257, 64 * 256) > large


def test_a_run_over_the_memory_budget_is_refused_before_it_allocates() -> None:
    with pytest.raises(ValueError, match="record_every_s"):
        simulate_hybrid(
            get_law("vegas"),
            mu_pps=1e7,
            base_rtt_s=np.full(200_000, 0.1),
            duration_s=100.0,
            record_every_s=0.01,
        )


def test_small_pages_restores_numpy_setting() -> None:
    setter = _hybrid_inputs._hugepage_setter()
    if setter is None:
        pytest.skip("this NumPy has no huge-page switch")
    before = setter(True)
    try:
        with _hybrid_inputs.small_pages():
            assert setter(False) is False  # off inside the block
        assert setter(True) is True  # back on after it
        with pytest.raises(RuntimeError), _hybrid_inputs.small_pages():
            raise RuntimeError
        assert setter(True) is True  # and after an error
    finally:
        setter(before)
