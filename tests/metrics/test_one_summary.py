"""An engine's own summary (``result.native.summary``) and the summary of
:func:`tcpfluid.simulate` (``result.summary``) are one computation: the same slow-start
exit, settled window and times for every flow of one run, also where the round model
runs many scenarios at once (a sweep) and in the classical continuous-time model."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario
from tcpfluid.sweep import Sweep, grid


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


#: the summary keys a round-model sweep reads from the batched run's own summary
SWEPT = (
    "ss_exit_window", "ss_exit_time_s", "ss_exit_round", "settled_window",
    "time_to_equilibrium_s", "convergence_times_s", "utilization", "throughput_pps",
    "jain_index", "losses",
)  # fmt: skip


@pytest.mark.parametrize("flows", [1, 2])
@pytest.mark.parametrize("law", ["vegas", "fast"])
def test_a_batched_round_model_run_summarises_each_scenario_as_its_own_run(
    flows: int, law: str
) -> None:
    # a round-model sweep runs its points as the scenarios of one batched call (paths of
    # two base RTTs: the longer one's rows go on past its end) and reads the batch's own
    # summary (RoundSummary); each point's values are those of its run alone, bit for bit
    # (one flow; or two, the second joining at 10 s and both leaving at 50 s)
    name = "qv-basic" if flows == 1 else "qv-many-flows"
    more = {} if flows == 1 else {"groups": 2, "group_interval": "10s", "active": "40s"}
    pts = grid(
        scenario=name, algorithm=law, bandwidth=["6Mbps", "10Mbps"], rtt=["60ms", "100ms"],
        duration="60s", flows=flows, **more,
    )  # fmt: skip
    table = Sweep(pts, engine="rounds", metrics=SWEPT).run().table.to_dict("records")
    for row, p in zip(table, pts, strict=True):
        sets = {k: v for k, v in p.items() if k not in ("algorithm", "scenario")}
        sc = build_scenario(name, **sets).with_algorithm(law)
        one = tcpfluid.simulate(sc, "rounds").summary.to_dict()
        for key in SWEPT:
            values = one[key] if isinstance(one[key], list) else [one[key]]
            cols = (
                [f"{key}[{i}]" for i in range(len(values))] if isinstance(one[key], list) else [key]
            )
            for col, v in zip(cols, values, strict=True):
                assert _same(float(row[col]), v), (p, col, row[col], v)


def test_the_classical_models_own_summary_is_the_results_summary() -> None:
    # two Vegas flows of different base RTTs (64 ms and 184 ms): each flow's settled
    # window, time to equilibrium and throughput, and Jain's index
    sc = build_scenario("thesis-two-flow", x2="90ms", duration="60s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "ode", model="classical")
    own, public = res.native.summary, res.summary
    assert own.change_times_s == public.change_times_s
    for i, fl in enumerate(public.flows):
        for a, b in (
            (own.settled_window_pkts[i], fl.settled_window_pkts),
            (own.time_to_equilibrium_s[i], fl.time_to_equilibrium_s),
            (own.throughput_pps[i], fl.throughput_pps),
        ):
            assert _same(math.nan if a is None else a, b)
    assert any(v is not None for v in own.settled_window_pkts)
    assert own.convergence_times_s == public.flows[0].convergence_times_s
    assert own.jain_index == public.jain_index


@pytest.mark.parametrize("engine", ["hybrid", "packet"])
def test_a_round_traced_engines_own_summary_judges_at_flows_joining_and_leaving(
    engine: str,
) -> None:
    # two Vegas flows on 6 Mb/s x 60 ms, the first from 0 to 40 s, the second from 10 s
    # to 50 s of a 60 s run, no CBR source: the run's changes are the join (10 s) and the
    # leaves (40 s, 50 s), so the first flow's settled window is judged before the join
    # (at the CBR changes only, there are none: its segment ran past the join); every
    # per-flow value, the throughputs over each flow's active time and Jain's index as
    # the result's summary, bit for bit
    sc = build_scenario(
        "qv-many-flows", bandwidth="6Mbps", rtt="60ms", duration="60s", flows=2, groups=2,
        group_interval="10s", active="40s",
    ).with_algorithm("vegas")  # fmt: skip
    res = tcpfluid.simulate(sc, engine)
    own = res.native.summary if engine == "packet" else res.native.hybrid.summary
    public = res.summary
    assert own.change_times_s == public.change_times_s == (10.0, 40.0, 50.0)
    assert public.flows[0].settled_window_pkts is not None
    for i, fl in enumerate(public.flows):
        for a, b in (
            (own.ss_exit_time_s[i], fl.ss_exit_time_s),
            (own.ss_exit_window_pkts[i], fl.ss_exit_window_pkts),
            (own.settled_window_pkts[i], fl.settled_window_pkts),
            (own.time_to_equilibrium_s[i], fl.time_to_equilibrium_s),
            (own.throughput_pps[i], fl.throughput_pps),
        ):
            assert _same(float(a), b), (i, a, b)
        conv = own.convergence_times_s[i]
        assert len(conv) == len(fl.convergence_times_s) == 3
        for a, b in zip(conv, fl.convergence_times_s, strict=True):
            assert _same(float(a), b), (i, a, b)
    assert _same(float(own.jain_index), public.jain_index)
