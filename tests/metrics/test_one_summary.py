"""An engine's own summary (``result.native.summary``) and the summary of
:func:`tcpfluid.simulate` (``result.summary``) are one computation: the same slow-start
exit, settled window and times for every flow of one run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario


def _same(native: float, public: float | None) -> bool:
    """The same value (one computation: the same bits), or both "did not happen"."""
    return math.isnan(native) if public is None else native == public


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "packet"])
@pytest.mark.parametrize("law", ["vegas", "quick-vegas", "fast"])
def test_an_engines_own_summary_is_the_results_summary(engine: str, law: str) -> None:
    # 10 Mb/s x 100 ms, a CBR source from 80 s to 160 s: a slow-start exit, a settling
    # and two convergences per flow
    sc = build_scenario("qv-basic", bandwidth="10Mbps", duration="200s").with_algorithm(law)
    res = tcpfluid.simulate(sc, engine)
    own = res.native.summary
    if engine == "hybrid":  # the hybrid engine's result wraps the hybrid model's own
        own = res.native.hybrid.summary
    public = res.summary.flows[0]
    assert _same(float(np.ravel(own.ss_exit_time_s)[0]), public.ss_exit_time_s)
    assert _same(float(np.ravel(own.ss_exit_window_pkts)[0]), public.ss_exit_window_pkts)
    assert _same(float(np.ravel(own.time_to_equilibrium_s)[0]), public.time_to_equilibrium_s)
    assert _same(float(np.ravel(own.settled_window_pkts)[0]), public.settled_window_pkts)
    conv = np.ravel(own.convergence_times_s)
    assert len(conv) == len(public.convergence_times_s) == 2
    for a, b in zip(conv, public.convergence_times_s, strict=True):
        assert _same(float(a), b)
