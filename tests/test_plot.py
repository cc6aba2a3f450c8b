"""tcpfluid.plot: functions take results and an optional ax and return artists."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tcpfluid import Path, plot
from tcpfluid.algorithms import get_law
from tcpfluid.fluid import simulate_rounds, simulate_scenario_ode, simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets


@pytest.fixture(scope="module")
def trace():
    return simulate_rounds(get_law("vegas"), Path("10Mbps", "100ms"), duration_s=20)


def test_window_draws_the_trace_on_the_given_axes(trace) -> None:
    fig, ax = plt.subplots()
    arts = plot.window(trace, ax=ax)
    assert len(arts) == 1 and arts[0].axes is ax
    np.testing.assert_array_equal(arts[0].get_ydata(), trace.window_pkts[:, 0, 0])
    assert ax.get_xlabel() == "time (s)" and "packets" in ax.get_ylabel()
    plt.close(fig)


def test_packet_result_queue_and_throughput() -> None:
    res = simulate_packets(
        build_scenario("qv-basic", bandwidth="5Mbps", cbr="none", duration="3s").with_algorithm(
            "vegas"
        )
    )
    fig, ax = plt.subplots()
    q = plot.queue(res, ax=ax)
    np.testing.assert_array_equal(q[0].get_ydata(), res.link(res.summary.bottleneck).queue_pkts)
    th = plot.throughput(res, ax=ax)
    assert len(th) == 1
    plt.close(fig)


def test_a_results_link_queue_is_drawn_from_the_result_alone() -> None:
    # a packet Result: any link of the scenario, the simulator's own trace of it; a
    # round-model Result: its bottleneck, and a link it does not model is refused
    import tcpfluid

    sc = build_scenario("thesis-two-flow", duration="3s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "packet")
    other = next(lk for lk in res.native.links if lk.name != res.summary.bottleneck)
    fig, ax = plt.subplots()
    (line,) = plot.queue(res, ax=ax, link=other.name)
    np.testing.assert_array_equal(line.get_ydata(), other.queue_pkts)
    rounds = tcpfluid.simulate(sc, "rounds")
    (line,) = plot.queue(rounds, ax=ax, link=rounds.summary.bottleneck)
    np.testing.assert_array_equal(line.get_ydata(), rounds.queue_pkts)
    with pytest.raises(ValueError, match="the rounds engine models"):
        plot.queue(rounds, ax=ax, link=other.name)
    plt.close(fig)


def test_versus_leaves_out_nan_and_checks_shapes() -> None:
    fig, ax = plt.subplots()
    (line,) = plot.versus([1, 2, 3], [1.0, np.nan, 3.0], ax=ax, label="x")
    np.testing.assert_array_equal(line.get_xdata(), [1, 3])
    with pytest.raises(ValueError, match="same shape"):
        plot.versus([1, 2], [1.0], ax=ax, label="x")
    plt.close(fig)


def test_bad_inputs() -> None:
    with pytest.raises(TypeError, match="RoundTrace, OdeResult or PacketResult"):
        plot.window(object())
    with pytest.raises(ValueError, match="nrows"):
        plot.new_axes(0)
    with pytest.raises(TypeError, match="nrows must be an integer, got True"):
        plot.new_axes(True)
    with pytest.raises(ValueError, match="height must be > 0, got -1"):
        plot.new_axes(1, height=-1)


def _lines(arts):
    return [(a.get_label(), np.asarray(a.get_xdata()), np.asarray(a.get_ydata())) for a in arts]


def test_every_engine_draws_its_own_arrays_with_engine_labels() -> None:
    """Each engine's window/throughput/queue lines carry exactly the result's arrays (the
    round model's scenario 0, the ODE's per-flow rows, the packet flows' samples)."""
    sc = build_scenario("qv-basic", bandwidth="5Mbps", cbr="none", duration="3s", flows=2)
    sc = sc.with_algorithm("vegas")
    rt = simulate_scenario_rounds(sc, record=("queue_pkts", "throughput_pps"))
    od = simulate_scenario_ode(sc)
    pk = simulate_packets(sc)
    fig, ax = plt.subplots()
    # round model: (rounds, scenario, flow) arrays, scenario 0
    t = rt.time_s[:, 0]
    for fn, arr in ((plot.window, rt.window_pkts), (plot.throughput, rt.throughput_pps)):
        got = _lines(fn(rt, ax=ax))
        assert [g[0] for g in got] == ["round model flow 0", "round model flow 1"]
        for f, (_, x, y) in enumerate(got):
            np.testing.assert_array_equal(x, t)
            np.testing.assert_array_equal(y, arr[:, 0, f])
    ((lab, x, y),) = _lines(plot.queue(rt, ax=ax))
    assert lab == "round model"
    np.testing.assert_array_equal(y, rt.queue_pkts[:, 0])
    # ODE: (flow, time) arrays; its throughput is the packets delivered per sample
    # interval (as for a Result), not the sending rate w/RTT, which counts lost packets
    delivered = np.diff(od.delivered_pkts[1]) / np.diff(od.t)
    for fn, arr in ((plot.window, od.windows_pkts[1]), (plot.throughput, None)):
        got = _lines(fn(od, ax=ax, flows=[1]))
        assert [g[0] for g in got] == ["ODE flow 1"]
        np.testing.assert_array_equal(got[0][1], od.t)
        if arr is not None:
            np.testing.assert_array_equal(got[0][2], arr)
        else:
            np.testing.assert_allclose(got[0][2][1:], delivered, rtol=1e-12)
    ((lab, _, y),) = _lines(plot.queue(od, ax=ax, label="fluid"))
    assert lab == "fluid"
    np.testing.assert_array_equal(y, od.queue_pkts)
    # packet simulator: one FlowTrace per flow, labelled by its name
    for fn, attr in ((plot.window, "cwnd_pkts"), (plot.throughput, "goodput_pps")):
        got = _lines(fn(pk, ax=ax))
        assert [g[0] for g in got] == [f"packet sim {fl.name}" for fl in pk.flows]
        for fl, (_, x, y) in zip(pk.flows, got, strict=True):
            np.testing.assert_array_equal(x, pk.t_s)
            np.testing.assert_array_equal(y, getattr(fl, attr))
    assert ax.get_xlabel() == "time (s)"
    plt.close(fig)


@pytest.mark.parametrize("flows", [[2], [-1]])
def test_flows_out_of_range_are_refused(trace, flows) -> None:
    for fn in (plot.window, plot.throughput):
        with pytest.raises(ValueError, match=r"flows must be in \[0, 1\)"):
            fn(trace, flows=flows)


@pytest.mark.parametrize(
    ("flows", "match"),
    [(0, "a sequence of flow indices, got 0"), ([0.5], "flows must be an integer, got 0.5")],
)
def test_flows_must_be_a_sequence_of_integers(trace, flows, match) -> None:
    # 0.5 used to be truncated to flow 0 without a word
    for fn in (plot.window, plot.throughput):
        with pytest.raises(TypeError, match=match):
            fn(trace, flows=flows)


@pytest.mark.parametrize("engine", ["rounds", "ode", "packet"])
def test_a_result_of_simulate_draws_its_own_arrays_labelled_by_flow_name(engine) -> None:
    from tcpfluid import simulate

    sc = build_scenario("qv-basic", bandwidth="5Mbps", cbr="none", duration="3s", flows=2)
    res = simulate(sc, engine, algorithm="vegas")
    fig, ax = plt.subplots()
    for fn, arr in ((plot.window, res.window_pkts), (plot.throughput, res.throughput_pps)):
        got = _lines(fn(res, ax=ax))
        assert [g[0].split(" ")[-1] for g in got] == ["S1-D1", "S2-D2"]
        for f, (_, x, y) in enumerate(got):
            np.testing.assert_array_equal(x, res.time_s)
            np.testing.assert_array_equal(y, arr[f])
    ((lab, _, y),) = _lines(res.plot(ax=ax, quantity="queue_pkts"))
    assert lab.endswith("R1-R2")
    np.testing.assert_array_equal(y, res.queue_pkts)
    plt.close(fig)


def test_result_plot_takes_flows_for_flow_quantities_and_link_for_the_queue() -> None:
    from tcpfluid import simulate

    sc = build_scenario("qv-basic", bandwidth="5Mbps", cbr="none", duration="3s", flows=2)
    res = simulate(sc, "rounds", algorithm="vegas")
    fig, ax = plt.subplots()
    ((lab, _, y),) = _lines(res.plot(ax=ax, quantity="throughput_pps", flows=[1], label="r"))
    assert lab == "r S2-D2"
    np.testing.assert_array_equal(y, res.throughput_pps[1])
    ((lab, _, y),) = _lines(res.plot(ax=ax, quantity="queue_pkts", link="R1-R2"))
    np.testing.assert_array_equal(y, res.queue_pkts)
    # a keyword that does not apply is named, not passed on to matplotlib
    with pytest.raises(TypeError, match="flows=\\[0\\] does not apply to quantity='queue_pkts'"):
        res.plot(ax=ax, quantity="queue_pkts", flows=[0])
    with pytest.raises(TypeError, match="link='R1-R2' applies only to quantity='queue_pkts'"):
        res.plot(ax=ax, link="R1-R2")
    plt.close(fig)
