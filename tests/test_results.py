"""What every engine's :class:`~tcpfluid.results.Result` carries so that no consumer needs
the engine's own result: each flow's round log with what its law read at each boundary
(RTTs, BaseRTT, Δ), and the queue of each link the engine models."""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.results import FlowSummary, Summary
from tcpfluid.scenarios import build_scenario


@pytest.mark.parametrize("engine", ["rounds", "ode", "packet"])
def test_each_rounds_delta_is_eq_1_of_its_window_rtt_and_base_rtt(engine: str) -> None:
    # two Vegas flows of different base RTTs (the round model gives each its own round
    # clock): the Δ each law decided on, recorded by the engine, is eq 1 of the Quick Vegas
    # paper, (W/BaseRTT - W/RTT) BaseRTT, of the same row's window, mean RTT and BaseRTT,
    # each recorded on its own; and each flow's RTT is never below its BaseRTT
    sc = build_scenario("thesis-two-flow", duration="10s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, engine)
    assert len(res.rounds) == 2
    for r in res.rounds:
        w, rtt, base = r.window_pkts, r.rtt_mean_s, r.base_rtt_s
        assert r.delta_pkts.shape == rtt.shape == base.shape == r.time_s.shape
        assert np.isfinite(r.delta_pkts).all() and np.isfinite(rtt).all()
        # (the rounding of three divisions, relative to windows of tens of packets)
        np.testing.assert_allclose(r.delta_pkts, (w / base - w / rtt) * base, atol=1e-9)
        assert (rtt >= base - 1e-12).all()


def test_the_rtt_extremes_are_given_where_the_engine_keeps_them() -> None:
    # the packet simulator keeps each round's smallest and largest RTT sample (min <= mean
    # <= max); the hybrid model the mean only (NaN, None in the JSON); in the round model
    # every packet of a round has its one RTT
    sc = build_scenario("qv-basic", duration="10s").with_algorithm("vegas")
    pk = tcpfluid.simulate(sc, "packet").rounds[0]
    assert (pk.rtt_min_s <= pk.rtt_mean_s + 1e-15).all()
    assert (pk.rtt_mean_s <= pk.rtt_max_s + 1e-15).all()
    assert (pk.rtt_max_s > pk.rtt_min_s).any()
    hy = tcpfluid.simulate(sc, "ode").rounds[0]
    assert np.isnan(hy.rtt_min_s).all() and np.isnan(hy.rtt_max_s).all()
    got = hy.to_dict()
    assert set(got) == {
        "time_s", "window_pkts", "next_window_pkts", "phase", "rtt_mean_s", "rtt_min_s",
        "rtt_max_s", "base_rtt_s", "delta_pkts",
    }  # fmt: skip
    assert got["rtt_min_s"] == [None] * len(hy.time_s)
    ro = tcpfluid.simulate(sc, "rounds").rounds[0]
    # three columns a caller may write to independently
    assert not np.shares_memory(ro.rtt_min_s, ro.rtt_mean_s)
    assert not np.shares_memory(ro.rtt_max_s, ro.rtt_min_s)
    # not recorded: not kept
    bare = tcpfluid.simulate(sc, "rounds", record=()).rounds[0]
    assert np.isnan(bare.rtt_mean_s).all() and np.isnan(bare.delta_pkts).all()


def test_a_links_queue_is_read_from_the_result() -> None:
    # the packet simulator answers for every link of the scenario (its own trace of the
    # link), the bottleneck's being the result's queue; a fluid engine for its bottleneck;
    # any other name is refused naming the links the engine has
    sc = build_scenario("thesis-two-flow", duration="5s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "packet")
    for lk in res.native.links:
        np.testing.assert_array_equal(res.link_queue_pkts(lk.name), lk.queue_pkts)
    np.testing.assert_array_equal(res.link_queue_pkts(res.summary.bottleneck), res.queue_pkts)
    assert len(res.native.links) > 1
    rounds = tcpfluid.simulate(sc, "rounds")
    assert rounds.link_queue_pkts(rounds.summary.bottleneck) is rounds.queue_pkts
    other = next(lk.name for lk in res.native.links if lk.name != res.summary.bottleneck)
    with pytest.raises(ValueError, match=f"link must be a link the rounds engine models .*{other}"):
        rounds.link_queue_pkts(other)
    with pytest.raises(ValueError, match="got 'nowhere'"):
        res.link_queue_pkts("nowhere")


def test_the_round_models_rtt_series_is_each_flows_own() -> None:
    # flows of different base RTTs run their own round clocks in the round model: each
    # flow's recorded RTT (the series on the samples and its round log) is its own, never
    # below its own base RTT (13.2 ms and 71.2 ms here; the series once gave every flow
    # the first flow's RTT)
    sc = build_scenario("thesis-two-flow", duration="10s").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "rounds")
    d = sc.base_rtts_s()
    rtt = res.series["rtt_s"]
    for k in range(2):
        assert (rtt[k] >= d[k] - 1e-12).all()
        assert (res.rounds[k].rtt_mean_s >= d[k] - 1e-12).all()
    assert d[1] > 5 * d[0]


@pytest.mark.parametrize("bad", [3, None, ["R1-R2"], b"R1-R2"])
def test_a_link_name_of_another_type_is_refused_naming_the_parameter(bad: object) -> None:
    # a link is named by a string: anything else is a TypeError naming the parameter and
    # the type it got (a list once raised "unhashable type", an int a ValueError)
    res = tcpfluid.simulate(
        build_scenario("qv-basic", duration="1s").with_algorithm("vegas"), "rounds"
    )
    with pytest.raises(TypeError, match=r"link must be a str \(a link's name\), got "):
        res.link_queue_pkts(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "column", ["window_pkts", "next_window_pkts", "phase", "rtt_mean_s", "delta_pkts"]
)
def test_a_round_log_column_of_another_length_than_time_s_is_refused(column: str) -> None:
    # every column has one value per round boundary: a column one row short of time_s's
    # three rows is a ValueError naming the column, its length and the expected length
    from tcpfluid.results import RoundLog

    t = np.array([0.1, 0.2, 0.3])
    cols = {
        "window_pkts": np.array([2.0, 4.0, 8.0]),
        "next_window_pkts": np.array([4.0, 8.0, 16.0]),
        "phase": np.zeros(3, dtype=np.int8),
    }
    RoundLog(t, **cols)  # three rows each: accepted, the optional columns NaN
    cols[column] = np.ones(2, dtype=np.int8 if column == "phase" else np.float64)
    with pytest.raises(ValueError, match=rf"column {column} has 2 values; expected 3"):
        RoundLog(t, **cols)


@pytest.mark.parametrize("engine", ["packet", "ode"])
def test_delivered_packets_end_at_each_flows_summary_throughput(engine: str) -> None:
    """The delivered-packet curves (the packets' goodput integrated over the sample
    intervals; the ODE's own count) end at what the summary's throughputs, computed from
    the engine's run totals, give over the run: flows active for all 20 s."""
    sc = build_scenario("qv-different-rtt", duration=20.0, flows_per_group=1, algorithm="vegas")
    res = tcpfluid.simulate(sc, engine)
    dl = res.delivered_pkts()
    assert dl.shape == res.window_pkts.shape
    assert np.all(np.diff(dl, axis=1) >= 0.0)
    np.testing.assert_allclose(dl[:, -1], np.asarray(res.summary.throughput_pps) * 20.0, rtol=1e-9)


def _flow(name: str, settled: float, centre: float, amplitude: float) -> FlowSummary:
    return FlowSummary(
        name, 0.0, float("inf"), None, None, None, settled, 1.0, (), 100.0, 0,
        cycle_centre_pkts=centre, cycle_amplitude_pkts=amplitude,
    )  # fmt: skip


def test_the_text_table_puts_the_amplitude_with_the_cycles_centre() -> None:
    # an Enhanced Vegas window cycling 15, 16, 17, 18 settles at the tail mean 16.33 of
    # its last samples 15, 16, 18 (say) but cycles about 16.5 ± 1.5: the ± is the cycle's
    s = Summary("rounds", [_flow("ev", 49 / 3, 16.5, 1.5), _flow("va", 9.0, 9.0, 1.0)], (),
                (), 1.0, (), 1.0, 1.0, "bottleneck")  # fmt: skip
    rows = {line.split()[0]: line for line in s.table().splitlines()[-2:]}
    assert "16.33 (cycle 16.5 ±1.5)" in rows["ev"]
    assert "16.33 ±" not in rows["ev"]
    # where the centre reads as the settled window, the amplitude follows it
    assert " 9 ±1 " in rows["va"]


def test_the_text_table_shows_neither_rounding_noise_nor_raw_floats() -> None:
    # a classical ODE fixed point at 316 packets with an amplitude of 8e-10 (the solver's
    # rounding) is a fixed point at the table's 4 digits; a fluid loss count of 2.2117...
    # reads at those digits too
    f = FlowSummary(
        "ode", 0.0, float("inf"), None, None, None, 316.0, 1.0, (), 100.0, 2.2117539212488344,
        cycle_centre_pkts=316.0, cycle_amplitude_pkts=8.18e-10,
    )  # fmt: skip
    s = Summary("ode", [f], (), (), 1.0, (), 1.0, 1.0, "bottleneck")
    row = s.table().splitlines()[-1]
    assert "±" not in row
    assert "2.212" in row and "2.2117539" not in row
