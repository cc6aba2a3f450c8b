"""tcpfluid.plot: functions take results and an optional ax and return artists."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tcpfluid import Path, plot
from tcpfluid.algorithms import get_law
from tcpfluid.fluid import simulate_rounds
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
