"""The ``ode`` engine (:class:`tcpfluid.engines.Ode`, :class:`tcpfluid.engines.Hybrid`).

* Its common-result series: the per-sample throughput is the packets that arrive, as the
  summary counts them, not the sending rate (lost packets included); recording never
  changes the summary.
* It passes the hybrid model's time step ``dt_s`` through. The step is the hybrid's
  resolution of slow start's ACK-clocked trains (docs/ode-model.md, "Time step"); a user of
  ``tcpfluid.simulate(..., "ode")`` can set it as the hybrid's own entry point does, and
  the classical model, which has no fixed step, refuses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid.hybrid import simulate_scenario_hybrid
from tcpfluid.scenarios import Scenario, build_scenario, rtt_dumbbell


@pytest.mark.parametrize(
    ("name", "extra", "model"),
    [("qv-basic", {"buffer": 50, "cbr": "none"}, "hybrid"), ("thesis-two-flow", {}, "classical")],
)
def test_throughput_series_adds_up_to_the_delivered_packets(
    name: str, extra: dict[str, Any], model: str
) -> None:
    # Reno on a finite buffer loses packets: a sending rate (w/RTT) would add up to more
    # than what arrived
    sc = build_scenario(name, duration="20s", **extra).with_algorithm("reno")
    r = tcpfluid.simulate(sc, "ode", model=model)
    assert r.series["lost_pkts"][0, -1] > 0.1
    gaps = np.diff(r.time_s, prepend=0.0)
    added = float(np.sum(r.throughput_pps[0] * gaps))
    # the recorded cumulative delivered packets (another record of the same run)
    assert added == pytest.approx(float(r.series["delivered_pkts"][0, -1]), rel=1e-9)
    # and the summary's throughput: the packets delivered by the end of the run over it
    # (the last sample is within one sample interval of the end)
    thr = r.summary.flows[0].throughput_pps
    assert thr is not None
    assert added / sc.duration_s == pytest.approx(thr, rel=2e-3)
    assert np.all(r.throughput_pps >= 0.0)


@pytest.mark.parametrize("algorithm", ["vegas", "reno"])
def test_recording_never_changes_the_summary(algorithm: str) -> None:
    # the totals (delivered and lost packets, the final queue and windows, the mean queue)
    # come from the whole run, not from the last recorded sample
    sc = build_scenario("qv-basic", duration="30s", buffer=60).with_algorithm(algorithm)
    base = tcpfluid.simulate(sc, "ode").summary.to_dict()
    for interval in (0.37, 2.9):
        r = tcpfluid.simulate(sc, "ode", record_interval_s=interval)
        assert r.time_s.size < 100
        assert r.summary.to_dict() == base


def test_many_flows_record_fewer_samples_by_default_and_any_on_request() -> None:
    # the documented default: duration / 1000, or about two million flow-samples in all
    # beyond 2,000 flows; an interval given is kept, and neither changes the summary
    flows = 4000
    sc = build_scenario("qv-many-flows", flows=flows, groups=1, duration="0.5s", algorithm="vegas")
    coarse = tcpfluid.simulate(sc, "ode")
    assert 100 < coarse.time_s.size and coarse.time_s.size * flows <= 2_000_000 + flows
    assert coarse.window_pkts.shape == (flows, coarse.time_s.size)
    fine = tcpfluid.simulate(sc, "ode", record_interval_s=0.5 / 1000)
    assert fine.time_s.size >= 990
    assert fine.summary.to_dict() == coarse.summary.to_dict()


def test_a_few_flows_keep_a_thousand_samples() -> None:
    sc = build_scenario("qv-basic", duration="20s", cbr="none").with_algorithm("vegas")
    assert tcpfluid.simulate(sc, "ode").time_s.size >= 990


def test_recording_never_changes_the_summary_of_a_later_measured_time() -> None:
    # the counts at the start of the measured time come from the run, not from samples
    sc = build_scenario("qv-basic", duration="30s", buffer=60).with_algorithm("reno")
    runs = [
        tcpfluid.simulate(sc, "ode", measure_from_s=7.3, record_interval_s=interval)
        for interval in (None, 0.41, 3.1)
    ]
    first = runs[0].summary.to_dict()
    assert first["measure_from_s"] == 7.3
    for r in runs[1:]:
        assert r.summary.to_dict() == first


# ------------------------------------------------------------------ the hybrid's time step
D_S = 0.1  # qv-basic's base RTT


def _scenario() -> Scenario:
    return build_scenario("qv-basic", cbr="none", duration="4s")


def test_the_ode_engine_runs_the_hybrid_at_the_step_it_is_given() -> None:
    sc = _scenario()
    dt = D_S / 1024
    res = tcpfluid.simulate(
        sc, "ode", algorithm="quick-vegas", dt_s=dt, record_interval_s=4.0 / 400
    )
    # the same run through the hybrid's own entry point, recorded on the same grid
    direct = simulate_scenario_hybrid(
        sc.with_algorithm("quick-vegas"), dt_s=dt, record_every_s=4.0 / 400
    )
    np.testing.assert_array_equal(res.window_pkts, direct.window_pkts)
    # and the step is used: the default step (d/256) gives other windows
    default = tcpfluid.simulate(sc, "ode", algorithm="quick-vegas", record_interval_s=4.0 / 400)
    assert not np.array_equal(res.window_pkts, default.window_pkts)


def test_a_bad_step_is_refused_by_name() -> None:
    sc = _scenario()
    with pytest.raises(ValueError, match=r"dt_s must be > 0, got -1"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=-1)
    with pytest.raises(ValueError, match="dt_s must be at most a quarter of the smallest base RTT"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=D_S)
    with pytest.raises(TypeError, match=r"'dt_s' applies to the hybrid model only"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=D_S / 256, model="classical")


def test_a_measured_time_without_deliveries_has_no_jain_index() -> None:
    # a flow starting 30 ms before the end of a 10-s run on a 50-ms path delivers nothing
    # in the measured time: Jain's index (Σx)²/(nΣx²) is 0/0, undefined, not an error
    sc = rtt_dumbbell(20e6, [0.05], ["vegas"], duration_s=10.0, start_s=[9.97])
    s = tcpfluid.simulate(sc, "hybrid").summary
    assert s.throughput_pps == (0.0,)
    assert s.jain_index is None
