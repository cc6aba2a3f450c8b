"""The round model with per-flow base RTTs (asynchronous rounds on one shared queue).

Checked three ways: with one base RTT it is the synchronous round model (same traces);
its shared standing backlog against the closed form it must reduce to; and its Jain's
indices against the packet simulator (the referee) on the two scenarios with unequal
base RTTs: the thesis's two-flow network and the Quick Vegas paper's different-RTT
network.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.analytic import jain_index
from tcpfluid.fairness import period_throughputs
from tcpfluid.fluid.rounds import (
    CrossTraffic,
    rtt_classes,
    shared_backlog,
    simulate_rounds,
    simulate_rounds_async,
)
from tcpfluid.path import Path
from tcpfluid.scenarios import build_scenario

SERIES = ("time_s", "window_pkts", "phase", "delta_pkts", "rtt_s", "queue_pkts", "throughput_pps")


# ------------------------------------------------------------ one base RTT: the synchronous model
@pytest.mark.parametrize("alg", ["vegas", "quick-vegas", "fast", "reno", "tcp-ho"])
def test_one_base_rtt_reproduces_the_synchronous_model(alg: str) -> None:
    """Four flows of one base RTT (joins, a leave, CBR cross traffic, a finite buffer): every
    recorded series is identical to the synchronous round model's, and so are the loss
    events and each flow's exit, settled window, convergence times and throughput (one class
    of the one round engine is the synchronous clock)."""
    path = Path(1000.0, 0.1, buffer=200)
    kw = {
        "duration_s": 60.0,
        "flow_start_s": [0.0, 0.0, 5.0, 12.0],
        "flow_stop_s": [math.inf, 50.0, math.inf, math.inf],
        "cross_traffic": [CrossTraffic(300.0, 20.0, 40.0)],
    }
    sync = simulate_rounds(get_law(alg), path, n_flows=4, **kw)
    asyn = simulate_rounds_async(get_law(alg), path, [0.1] * 4, **kw)
    for name in SERIES:
        np.testing.assert_array_equal(getattr(asyn, name), getattr(sync, name), err_msg=name)
    assert asyn.round_end is not None and bool(asyn.round_end.all())
    np.testing.assert_array_equal(asyn.losses, sync.losses)
    a, s = asyn.summary, sync.summary
    for name in ("ss_exit_round", "ss_exit_time_s", "ss_exit_window_pkts", "reached_equilibrium"):
        np.testing.assert_array_equal(getattr(a, name), getattr(s, name), err_msg=name)
    # the settled window is a mean over the settled rounds: summed per flow here, over the
    # flows together there (rounding order only)
    np.testing.assert_allclose(a.settled_window_pkts, s.settled_window_pkts, rtol=1e-12)
    np.testing.assert_array_equal(a.convergence_times_s, s.convergence_times_s)
    np.testing.assert_array_equal(a.throughput_pps, s.throughput_pps)
    np.testing.assert_array_equal(asyn.carried_pkts, sync.carried_pkts)


def test_one_base_rtt_scenario_gives_the_synchronous_result_through_simulate() -> None:
    """A scenario of one base RTT stays on the synchronous model; the same flows given
    through the asynchronous model directly give the same windows."""
    sc = build_scenario("qv-basic", flows=3, duration="20s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "rounds")
    view = sc.fluid_view()
    direct = simulate_rounds_async(
        get_law("vegas"),
        view.path,
        view.base_rtt_s,
        duration_s=20.0,
        cross_traffic=[CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic],
    )
    np.testing.assert_array_equal(direct.window_pkts[:, 0, :].T, res.window_pkts)


# ------------------------------------------------------------------------- the shared backlog
@pytest.mark.parametrize("red", [False, True])
@pytest.mark.parametrize("alg", ["vegas", "reno", "tcp-ho"])
def test_a_class_deciding_alone_is_the_whole_law_deciding(alg: str, red: bool) -> None:
    """Two RTT classes of two consecutive flows each (joins, an 8-packet buffer or RED):
    with one value of each parameter a class's flows decide alone, on views of their
    state; with the same values given once per flow the law decides for every flow and
    the other classes' decisions are discarded. The two routes give identical traces and
    loss events, and so does a MixedLaw of the law with itself on two groups."""
    from tcpfluid.algorithms.mixed import MixedLaw
    from tcpfluid.queueing import RedParameters

    law = get_law(alg)
    per_flow = get_law(
        alg,
        **{
            k: [v] * 4
            for k, v in law.params().items()
            if isinstance(v, float) and k != "initial_window"
        },
    )
    mixed = MixedLaw([get_law(alg), get_law(alg)], [[0, 1], [2, 3]])
    path = Path(500.0, 0.02, buffer=8)
    kw = {
        "duration_s": 30.0,
        "flow_start_s": [0.0, 2.0, 0.0, 4.0],
        "red": RedParameters(5.0, 15.0, max_p=0.1) if red else None,
    }
    d = [0.02, 0.02, 0.07, 0.07]
    runs = [simulate_rounds_async(lw, path, d, **kw) for lw in (law, per_flow, mixed)]
    for other in runs[1:]:
        for name in SERIES:
            np.testing.assert_array_equal(getattr(other, name), getattr(runs[0], name), name)
        np.testing.assert_array_equal(other.losses, runs[0].losses)
        np.testing.assert_array_equal(other.delivered_pkts, runs[0].delivered_pkts)
    assert int(runs[0].losses.sum()) > 0  # (the loss reactions are compared too)


def test_shared_backlog_reduces_to_the_closed_forms() -> None:
    # one class: W - mu d (the synchronous model's backlog), 0 when the window fits the pipe
    assert shared_backlog([30.0], [20.0]) == 10.0
    assert shared_backlog([15.0], [20.0]) == 0.0
    # classes of equal pipes behave as one: sum W - mu d
    assert shared_backlog([10.0, 25.0, 5.0], [12.0, 12.0, 12.0]) == pytest.approx(28.0, rel=1e-12)
    # windows that together fit their pipes (sum of rates W/d below mu) queue nothing
    assert shared_backlog([10.0, 10.0], [20.0, 40.0]) == 0.0
    # two pipes: the quadratic's root, (20/(10+q) + 20/(30+q) = 1 -> q^2 = 500)
    assert shared_backlog([20.0, 20.0], [10.0, 30.0]) == pytest.approx(math.sqrt(500.0), rel=1e-12)


def test_flows_are_grouped_by_base_rtt_into_round_clocks() -> None:
    d = np.array([0.05, 0.1, 0.05, 0.1 + 1e-15, 0.2])
    assert [g.tolist() for g in rtt_classes(d)] == [[0, 2], [1, 3], [4]]


def test_unequal_base_rtts_conserve_the_link_and_keep_each_flows_clock() -> None:
    """Two Vegas flows, 20 ms and 100 ms: the link is full once they settle (throughputs sum
    to μ within 1 %), each flow's rounds last its base RTT plus the common queueing delay,
    and each flow's Δ (eq. 1 of the Quick Vegas paper) settles within [α, β]."""
    law = get_law("vegas")
    tr = simulate_rounds_async(law, Path(500.0, 0.02), [0.02, 0.1], duration_s=30.0)
    assert tr.summary.utilization[0] == pytest.approx(1.0, abs=0.02)
    late = tr.time_s[:, 0] > 20.0
    thr = tr.throughput_pps[late, 0, :].mean(axis=0)
    assert thr.sum() == pytest.approx(500.0, rel=0.01)
    q_delay = tr.queue_pkts[late, 0].mean() / 500.0
    for f, d in enumerate((0.02, 0.1)):
        t = tr.time_s[tr.flow_rows(f), 0]
        rounds = np.diff(t[t > 20.0])
        assert rounds.mean() == pytest.approx(d + q_delay, rel=0.1)
        delta = tr.delta_pkts[tr.flow_rows(f) & late, 0, f]
        lo, hi = law.params()["alpha"], law.params()["beta"]
        assert np.all((delta >= lo - 0.5) & (delta <= hi + 0.5)), (f, delta.min(), delta.max())


# ------------------------------------------------------------------ against the packet simulator
def _thesis(x2_ms: int, setting: str) -> tcpfluid.scenarios.Scenario:
    alg, params = {
        "vegas-1_3": ("vegas", {"alpha": 1.0, "beta": 3.0}),
        "vegas-1": ("enhanced-vegas", {"delta": 1.0}),
    }[setting]
    return build_scenario(
        "thesis-two-flow", x2=f"{x2_ms}ms", queue="red", duration="60s", **params
    ).with_algorithm(alg)


def _delivered(res: tcpfluid.Result) -> np.ndarray:
    """Each flow's cumulative delivered packets at ``res.time_s``: the public per-sample
    rates integrated, sample ``j`` covering ``(t_{j-1}, t_j]`` with ``t_{-1} = 0``."""
    return np.cumsum(res.throughput_pps * np.diff(res.time_s, prepend=0.0), axis=-1)


def _jain_10_60(res: tcpfluid.Result) -> float:
    """Jain's index of the flows' goodputs over 10-60 s (as the report computes it)."""
    t, dl = res.time_s, _delivered(res)
    thr = [np.interp(60.0, t, row) - np.interp(10.0, t, row) for row in dl]
    return float(jain_index(np.array(thr)))


@pytest.mark.parametrize("setting", ["vegas-1_3", "vegas-1"])
def test_thesis_two_flow_jain_agrees_with_the_packet_simulator(setting: str) -> None:
    """The thesis's two connections (short RTT 13.2 ms, long 13.2 ms + 2 x2) behind RED:
    Jain's index of the goodputs over 10-60 s within 0.05 of the packet simulator's at
    x2 = 20 ms and 90 ms. (All thirteen x2 of the thesis's table, with the points where the
    difference exceeds 0.05, are in docs/round-model-unequal-rtt.md.)"""
    for x2 in (20, 90):
        sc = _thesis(x2, setting)
        rounds = _jain_10_60(tcpfluid.simulate(sc, "rounds"))
        packet = _jain_10_60(tcpfluid.simulate(sc, "packet"))
        assert rounds == pytest.approx(packet, abs=0.05), (x2, rounds, packet)


def _different_rtt_jains(alg: str, buffer: int) -> dict[str, list[float]]:
    # the report's quick setup: 100 Mb/s, two flows per RTT group (50/100/200 ms), 40 s
    sc = build_scenario(
        "qv-different-rtt", bandwidth="100Mbps", flows_per_group=2, duration="40s", buffer=buffer
    ).with_algorithm(alg)
    start = [f.start_s for f in sc.flows]
    stop = [min(f.stop_s, sc.duration_s) for f in sc.flows]
    edges = [0.0, 10.0, 20.0, 30.0, 40.0]
    out = {}
    for engine in ("rounds", "packet"):
        res = tcpfluid.simulate(sc, engine)
        periods = period_throughputs(res.time_s, _delivered(res), start, stop, edges)
        out[engine] = [float(jain_index(thr)) for _flows, thr in periods]
    return out


def test_different_rtt_vegas_jain_per_period_agrees_with_the_packet_simulator() -> None:
    """Vegas, three RTT groups on a 150-packet buffer: every 10-s period's index within 0.05
    (the longer-RTT flows get less, in both)."""
    j = _different_rtt_jains("vegas", 150)
    np.testing.assert_allclose(j["rounds"], j["packet"], rtol=0, atol=0.05)
    assert max(j["rounds"]) < 0.95  # unequal RTTs: not fair, in both engines


def test_different_rtt_fast_jain_per_period_agrees_where_the_packet_run_is_steady() -> None:
    """FAST with a 1500-packet buffer (the packet run loses almost nothing): 10-40 s within
    0.05. The first period (slow start of flows whose exits the two engines time
    differently) is left out; with a 150-packet buffer FAST is loss-driven (hundreds of loss
    events per flow in packets) and not compared here."""
    j = _different_rtt_jains("fast", 1500)
    np.testing.assert_allclose(j["rounds"][1:], j["packet"][1:], rtol=0, atol=0.05)


# ------------------------------------------------------------------------------------ sweeps
def test_a_round_model_sweep_runs_unequal_rtt_points_on_the_asynchronous_model() -> None:
    """The batched sweep path steps one base RTT per scenario; points with unequal base RTTs
    run alone through tcpfluid.simulate, so the table equals single runs."""
    from tcpfluid.cli.simulate import simulate_summary
    from tcpfluid.sweep import grid, sweep

    pts = list(grid(scenario="thesis-two-flow", algorithm="vegas", x2=["5ms", "50ms"]))
    pts = [{**p, "duration": "10s"} for p in pts]
    table = sweep(pts, engine="rounds").table
    for row, p in zip(table.to_dict("records"), pts, strict=True):
        single = simulate_summary(
            "thesis-two-flow", "vegas", sets={"x2": p["x2"], "duration": "10s"}, engine="rounds"
        )
        assert row["status"] == "ok", row["message"]
        assert row["time_to_equilibrium_s"] == single["time_to_equilibrium_s"]
        assert row["ss_exit_window"] == single["ss_exit_window"]


# ------------------------------------------------ reasons for the rows that differ (experiments)
def test_thesis_vegas_1_at_x2_50ms_differs_by_the_feedback_lag() -> None:
    """Enhanced Vegas δ = 1, x2 = 50 ms: the short flow's window (2-4 packets around a
    2.5-packet pipe) swings a whole packet per round when it reads the previous round's
    RTTs (the default lag of one round), and the index falls more than 0.05 below the
    thesis's 0.997 (Table 3.16). Without the lag the round model agrees with the thesis and
    with the packet simulator."""
    sc = _thesis(50, "vegas-1")
    doc = 0.997  # Tsang's thesis, Table 3.16, vegas-1 at x2 = 50 ms
    lagged = _jain_10_60(tcpfluid.simulate(sc, "rounds"))
    no_lag = _jain_10_60(tcpfluid.simulate(sc, "rounds", feedback_rounds=0))
    packet = _jain_10_60(tcpfluid.simulate(sc, "packet"))
    assert lagged < doc - 0.05
    assert no_lag == pytest.approx(doc, abs=0.05)
    assert no_lag == pytest.approx(packet, abs=0.05)


def test_thesis_vegas_1_3_at_x2_10ms_is_set_by_the_start_up_order() -> None:
    """Vegas α = 1, β = 3, x2 = 10 ms: each flow stops wherever its Δ lies in [1, 3], so
    the start-up decides the index. Both flows starting together: 0.950; the short flow
    starting 50 ms after the long one: the packet simulator's 1.000 (the thesis's 0.900 is
    its ns-2 start-up's)."""
    from dataclasses import replace

    sc = _thesis(10, "vegas-1_3")
    together = _jain_10_60(tcpfluid.simulate(sc, "rounds"))
    short, long_ = sc.flows
    later = replace(sc, flows=(replace(short, start_s=0.05), long_))
    short_later = _jain_10_60(tcpfluid.simulate(later, "rounds"))
    packet = _jain_10_60(tcpfluid.simulate(sc, "packet"))
    assert together == pytest.approx(0.95, abs=0.01)
    assert short_later == pytest.approx(packet, abs=0.01)
    assert short_later - together > 0.04
