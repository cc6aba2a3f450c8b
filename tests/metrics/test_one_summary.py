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


def test_a_law_object_of_the_users_own_is_judged_with_its_own_limit_cycle() -> None:
    # a renamed subclass of Quick Vegas (a name the registry does not know) keeps Quick
    # Vegas's limit cycle, so the engines' own summaries settle it where they settle Quick
    # Vegas itself (a band looked up by name would have been 0: "did not settle")
    from tcpfluid.algorithms.registry import law_class
    from tcpfluid.fluid.hybrid import simulate_hybrid
    from tcpfluid.sim import simulate_packets

    mine = type("Mine", (law_class("quick-vegas"),), {"name": "my-quick-vegas"})
    sc = build_scenario("qv-basic", bandwidth="10Mbps", duration="120s").with_algorithm(
        "quick-vegas"
    )
    ref = simulate_packets(sc).summary
    own = simulate_packets(sc, laws={sc.flows[0].name: mine()}).summary
    assert bool(ref.converged.all())
    np.testing.assert_array_equal(own.convergence_times_s, ref.convergence_times_s)
    kw = {
        "mu_pps": 1000.0,
        "base_rtt_s": [0.1, 0.1],
        "duration_s": 60.0,
        "flow_start_s": [0.0, 5.0],
    }
    ref_h = simulate_hybrid(law_class("quick-vegas")(), **kw).summary
    own_h = simulate_hybrid(mine(), **kw).summary
    assert bool(ref_h.reached_equilibrium.all())
    np.testing.assert_array_equal(own_h.time_to_equilibrium_s, ref_h.time_to_equilibrium_s)
