"""tcpfluid.simulate: one Result and one Summary for every engine, and what they promise.

Numbers checked here come from routes independent of the summary code: Vegas's equilibrium
(each flow holds between α and β packets in the queue, the Quick Vegas paper eq. 2), the window
equation of the ODE's Reno (MGT: every lost packet cuts the window once), the window
decreases visible in a Reno trace, and the packets the bottleneck dropped.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import ENGINES, RTT_MODELS, engine_options, simulate_summary
from tcpfluid.results import Result, Summary
from tcpfluid.scenarios import build_scenario

LOSSY = {
    "bandwidth": "5Mbps",
    "rtt": "50ms",
    "buffer": 20,
    "flows": 2,
    "duration": "20s",
    "cbr_start": "8s",
    "cbr_stop": "14s",
}
MU_PPS = 625.0  # 5 Mb/s of 1000-byte packets


@pytest.fixture(scope="module", params=sorted(ENGINES))
def lossy(request: Any) -> Result:
    sc = build_scenario("qv-basic", **LOSSY).with_algorithm("reno")
    return tcpfluid.simulate(sc, request.param)


def _opt(kind: type | tuple[type, ...]) -> Any:
    return lambda v: v is None or isinstance(v, kind)


_NUM = (int, float)
#: key -> (check of one value, per flow?) ; per-flow keys hold one value per flow
CONTRACT: dict[str, tuple[Any, bool]] = {
    "ss_exit_window": (_opt(float), False),
    "ss_exit_time_s": (_opt(float), False),
    "ss_exit_round": (_opt(int), False),
    "settled_window": (_opt(float), False),
    "time_to_equilibrium_s": (_opt(float), False),
    "convergence_times_s": (lambda v: isinstance(v, list), False),
    "change_times_s": (lambda v: isinstance(v, list), False),
    "utilization": (lambda v: isinstance(v, float) and 0.0 < v <= 1.0 + 1e-9, False),
    "jain_index": (lambda v: isinstance(v, float) and 0.5 - 1e-12 <= v <= 1.0 + 1e-12, False),
    "throughput_pps": (lambda v: isinstance(v, float) and 0.0 < v <= MU_PPS * 1.001, True),
    "losses": (lambda v: isinstance(v, _NUM) and v >= 0, True),
    "flow_names": (lambda v: isinstance(v, str), True),
    "flow_start_s": (lambda v: isinstance(v, float) and v >= 0, True),
    "flow_stop_s": (_opt(float), True),
    "ss_exit_windows_pkts": (_opt(float), True),
    "ss_exit_times_s": (_opt(float), True),
    "ss_exit_rounds": (_opt(int), True),
    "settled_windows_pkts": (_opt(float), True),
    "times_to_equilibrium_s": (_opt(float), True),
    "convergence_times_per_flow_s": (lambda v: isinstance(v, list), True),
    "change_kinds": (lambda v: isinstance(v, list), False),
    "all_settled_time_s": (_opt(float), False),
    "all_converged_times_s": (lambda v: isinstance(v, list), False),
    "losses_unit": (lambda v: v == "loss events", False),
    "bottleneck": (lambda v: v == "R1-R2", False),
    "notes": (lambda v: v == [], False),
}


def test_every_engine_gives_one_summary_contract(lossy: Result) -> None:
    out = lossy.summary.to_dict()
    missing = set(CONTRACT) - set(out)
    assert not missing, f"{lossy.engine}: missing keys {sorted(missing)}"
    for key, (ok, per_flow) in CONTRACT.items():
        values = out[key] if per_flow else [out[key]]
        if per_flow:
            assert len(values) == 2, f"{lossy.engine}: {key} must have one value per flow"
        for v in values:
            assert ok(v), f"{lossy.engine}: {key} = {v!r} breaks its contract"
    # seconds: every time lies inside the 20-s run; the changes are the CBR's 8 s and 14 s
    assert out["change_times_s"] == [8.0, 14.0]
    assert out["change_kinds"] == ["cbr-start", "cbr-stop"]
    K = len(out["change_times_s"])
    assert len(out["convergence_times_s"]) == K == len(out["all_converged_times_s"])
    assert all(len(row) == K for row in out["convergence_times_per_flow_s"])
    times = [out["ss_exit_time_s"], out["time_to_equilibrium_s"], *out["ss_exit_times_s"]]
    assert all(t is None or 0.0 < t <= 20.0 for t in times)
    # the flow-0 keys are flow 0's per-flow values
    assert out["settled_window"] == out["settled_windows_pkts"][0]
    assert out["ss_exit_round"] == out["ss_exit_rounds"][0]
    # a lossy run: every engine reports loss events for both flows
    assert all(x > 0 for x in out["losses"]), (lossy.engine, out["losses"])


def test_result_arrays_have_one_shape_for_every_engine(lossy: Result) -> None:
    T = lossy.time_s.shape[0]
    assert lossy.window_pkts.shape == (2, T) == lossy.throughput_pps.shape
    assert lossy.queue_pkts.shape == (T,)
    assert lossy.flow_names == ("S1-D1", "S2-D2")
    assert np.all(np.diff(lossy.time_s) > 0)
    # the buffer holds at most 20 packets (the fluids' soft drop-tail edges aside)
    assert np.nanmax(lossy.queue_pkts) <= 20.0 + 1.0
    frame = lossy.to_frame()
    assert list(frame.columns) == ["time_s", "flow", "quantity", "value"]
    assert len(frame) == 5 * T
    w1 = frame[(frame.flow == "S2-D2") & (frame.quantity == "window_pkts")]["value"]
    np.testing.assert_array_equal(w1.to_numpy(), lossy.window_pkts[1])
    d = lossy.to_dict()
    assert d["engine"] == lossy.engine and len(d["window_pkts"]) == 2


def test_losses_are_loss_events_in_every_engine() -> None:
    """The ODE reported a fluid amount of lost packets (8.089...) where the round and packet
    engines count loss events; now every engine reports loss events (window cuts)."""
    rounds = tcpfluid.simulate(
        build_scenario("qv-basic", buffer="20").with_algorithm("reno"), "rounds"
    )
    # Reno's window only falls on a loss event: count the falls in the round trace
    w = rounds.window_pkts[0]
    assert rounds.summary.losses[0] == int(np.sum(w[1:] < w[:-1])) > 0
    reno = build_scenario("qv-basic", buffer="20").with_algorithm("reno")
    ode = tcpfluid.simulate(
        reno, "ode", model="classical", record_interval_s=reno.duration_s / 20000
    )
    # MGT Reno: dw/dt = 1/RTT - (w/2) x loss rate, so the cuts are the integral of
    # (1/RTT - dw/dt) 2/w: read from the window trajectory, not from the lost-packet state
    n = ode.native
    t, w, rtt = n.t, n.windows_pkts[0], n.rtt_s[0]
    cuts = np.sum(
        (np.diff(t) / ((rtt[1:] + rtt[:-1]) / 2) - np.diff(w)) * 2 / ((w[1:] + w[:-1]) / 2)
    )
    assert ode.summary.losses[0] == pytest.approx(cuts, rel=0.02)
    assert ode.summary.losses_unit == "loss events" == rounds.summary.losses_unit
    # the hybrid fluid model (the ODE engine's default) counts the events its law reacted
    # to: each needs at least one lost packet, and several drops in a round are one event
    out = simulate_summary("qv-basic", "reno", engine="ode", sets={"buffer": "20"})
    assert 0 < out["losses"][0] <= out["lost_pkts_per_flow"][0]


def test_packet_loss_events_are_bounded_by_the_drops() -> None:
    res = tcpfluid.simulate(build_scenario("qv-basic", **LOSSY).with_algorithm("reno"), "packet")
    drops = res.native.link("R1-R2").data_drops
    # every loss event needs at least one dropped data packet (the CBR's drops aside)
    assert 0 < sum(res.summary.losses) <= drops


def test_a_multi_flow_summary_describes_every_flow() -> None:
    """The ODE two-flow example printed flow 0's settled window only; each flow's settled
    window must satisfy Vegas's equilibrium on its own path: its packets in the queue,
    w_i (q - x_i) / (d_i + q), lie in [alpha, beta] (the Quick Vegas paper eq. 2)."""
    from tcpfluid.algorithms import get_law

    p = get_law("vegas").params()
    sc = build_scenario("thesis-two-flow", x2="90ms").with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "ode")
    out = res.summary.to_dict()
    w = out["settled_windows_pkts"]
    assert len(w) == 2 and None not in w
    assert out["settled_window"] == w[0]
    q = float(res.queue_pkts[-1]) / (1.5e6 / 8000)  # queueing delay, s
    d = [sc.base_rtt_s(f) for f in sc.flows]
    # Vegas measures against its recorded BaseRTT d_i + x_i (x_i: the model's over-estimate)
    x = out["base_rtt_overestimate_s"]
    for wi, di, xi in zip(w, d, x, strict=True):
        assert p["alpha"] - 0.15 <= wi * (q - xi) / (di + q) <= p["beta"] + 0.15
    assert w[1] > 1.5 * w[0]  # the long flow holds the larger window
    assert out["all_settled_time_s"] == pytest.approx(max(out["times_to_equilibrium_s"]))
    text = res.summary.table()
    assert "S1-D1" in text and "S2-D2" in text and f"{w[1]:.4g}" in text


def test_a_round_model_run_of_a_red_scenario_models_red() -> None:
    """It used to return exactly the drop-tail result. Reno fills a 100-packet drop-tail
    buffer; RED (thresholds 15/45) drops early, so its queue peaks far lower."""
    runs = {
        q: tcpfluid.simulate(
            build_scenario("thesis-two-flow", queue=q, x2="1ms", duration="30s"),
            "rounds",
            algorithm="reno",
        )
        for q in ("drop-tail", "red")
    }
    dt, red = runs["drop-tail"], runs["red"]
    assert np.nanmax(dt.queue_pkts) > 90.0  # the drop-tail buffer is 100 packets
    assert np.nanmax(red.queue_pkts[red.time_s > 10.0]) < 60.0
    assert sum(red.summary.losses) > sum(dt.summary.losses) > 0
    sc = build_scenario("thesis-two-flow", queue="red", duration="5s").with_algorithm("vegas")
    assert tcpfluid.simulate(sc, "ode").summary.engine == "ode"


def test_joins_and_leaves_are_changes_and_every_flow_is_summarised() -> None:
    sc = build_scenario(
        "qv-many-flows",
        flows=4,
        groups=2,
        bandwidth="10Mbps",
        buffer=200,
        group_interval="20s",
        active="40s",
        duration="50s",
    )
    s = tcpfluid.simulate(sc, "rounds", algorithm="vegas").summary
    assert s.change_times_s == (20.0, 40.0)
    assert s.change_kinds == ("flow-join", "flow-leave")
    assert [len(f.convergence_times_s) for f in s.flows] == [2, 2, 2, 2]
    # the flows joining at 20 s have no time to equilibrium before their start
    assert [f.start_s for f in s.flows] == [0.0, 0.0, 20.0, 20.0]
    assert s.flows[0].convergence_times_s[0] is not None  # flow 0 re-settles after the join


def test_a_shortened_run_leaves_out_the_flows_that_would_start_after_its_end() -> None:
    sc = build_scenario("qv-many-flows", duration="150s")
    assert len(sc.flows) == 40 and sc.flows[-1].name == "S40-D40"
    assert "20 of 60 flows (S41-D41 ... S60-D60)" in sc.notes[0]
    small = {"flows": 6, "bandwidth": "10Mbps", "duration": "150s"}
    out = simulate_summary("qv-many-flows", "vegas", engine="packet", sets=small)
    assert len(out["throughput_pps"]) == 4 and "left out" in out["notes"][0]
    from dataclasses import replace

    late = replace(sc, flows=tuple(replace(f, start_s=200.0, stop_s=300.0) for f in sc.flows))
    with pytest.raises(ValueError, match="every flow starts at or after the end"):
        late.without_late_flows()
    with pytest.raises(ValueError, match=r"carries .* less than one"):
        build_scenario("qv-basic", packet_size="1e300B")


def test_unknown_options_name_the_option_and_list_the_accepted_ones() -> None:
    sc = build_scenario("qv-basic", duration="5s", cbr="none").with_algorithm("vegas")
    with pytest.raises(TypeError, match=r"unknown option 'seed' for the rounds engine.*rtt_model"):
        tcpfluid.simulate(sc, "rounds", seed=1)
    with pytest.raises(TypeError, match=r"'dt_s'.*packet engine.*sample_interval"):
        tcpfluid.simulate(sc, "packet", dt_s=0.001)
    with pytest.raises(ValueError, match="unknown engine 'ns2'"):
        tcpfluid.simulate(sc, "ns2")
    with pytest.raises(TypeError, match="Scenario"):
        tcpfluid.simulate("qv-basic")  # type: ignore[arg-type]
    assert {"seed", "progress", "algorithm"} <= set(engine_options("packet"))
    # rtt is the deprecated alias of rtt_model: it warns and gives the same run
    a = tcpfluid.simulate(sc, "rounds", rtt_model="last").summary
    with pytest.warns(DeprecationWarning, match="'rtt' is deprecated; use 'rtt_model'"):
        b = tcpfluid.simulate(sc, "rounds", rtt="last").summary
    assert a == b
    from typing import get_args

    from tcpfluid.fluid.rounds import RttModel

    assert get_args(RttModel) == RTT_MODELS


def test_every_engine_refuses_a_flow_without_algorithm_in_the_same_words() -> None:
    """One check, one message on every engine: it names the scenario, the first flow
    without an algorithm and the way to give one (the packet engine may add its own)."""
    sc = build_scenario("qv-basic", duration="5s", cbr="none", flows=2)
    messages = {}
    for engine in ENGINES:
        with pytest.raises(ValueError) as err:
            tcpfluid.simulate(sc, engine)
        messages[engine] = str(err.value)
    first = sc.flows[0].name
    for engine, msg in messages.items():
        assert f"'{sc.name}'" in msg and f"'{first}'" in msg, (engine, msg)
        assert "with_algorithm" in msg and "--algorithm" in msg, (engine, msg)
    # the engines' messages are one text, the packet engine's extending it
    stems = {msg.split(" or pass laws=")[0] for msg in messages.values()}
    assert len(stems) == 1, messages


def test_progress_reaches_the_caller() -> None:
    sc = build_scenario("qv-basic", duration="5s", cbr="none").with_algorithm("vegas")
    seen: list[float] = []
    tcpfluid.simulate(sc, "rounds", progress=seen.append)
    assert seen and seen[-1] == 1.0 and all(0.0 <= x <= 1.0 for x in seen)


def test_the_summary_is_computed_from_the_engine_facts_only() -> None:
    """Summary.to_dict keeps every key the engines' own summaries had (nothing renamed)."""
    sc = build_scenario("qv-basic", duration="30s", cbr_start="10s", cbr_stop="20s")
    sc = sc.with_algorithm("vegas")
    res = tcpfluid.simulate(sc, "rounds")
    native = res.native.summary.to_dict()
    ours = res.summary.to_dict()
    assert set(native) <= set(ours)
    for key in ("ss_exit_window", "ss_exit_round", "settled_window", "time_to_equilibrium_s"):
        assert ours[key] == native[key]  # one computation: the same bits
    assert isinstance(res.summary, Summary)


def _count_calls(fn: Any) -> int:
    n = 0

    def prof(frame: Any, event: str, arg: Any) -> None:
        nonlocal n
        if event == "call":
            n += 1

    sys.setprofile(prof)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return n


def test_building_and_reducing_a_scenario_is_linear_in_flows() -> None:
    """10,000 flows used to take minutes (a quadratic duplicate check). Counted, not timed:
    the Python calls made to build and reduce n flows grow as n (doubling n at most
    doubles them, plus a constant)."""

    def calls(n: int) -> int:
        return _count_calls(
            lambda: (
                build_scenario("qv-basic", flows=n, cbr="none").with_algorithm("vegas").fluid_view()
            )
        )

    c1, c2, c4 = calls(100), calls(200), calls(400)
    assert c4 - c2 == pytest.approx(2 * (c2 - c1), rel=0.02)
    sc = build_scenario("qv-basic", flows=10_000, cbr="none")
    assert len(sc.flows) == 10_000 and sc.fluid_view().path.mu == pytest.approx(6250.0)


def test_a_buffer_reads_the_same_in_a_path_and_a_link() -> None:
    from tcpfluid import Path
    from tcpfluid.scenarios import Link

    for value in ("inf", None, math.inf, "none"):
        assert math.isinf(Path("10Mbps", "100ms", buffer=value).buffer_pkts)
        assert math.isinf(Link("A", "10Mbps", "1ms", value).buffer_pkts)
    assert Path("10Mbps", "100ms", buffer="64 kB").buffer_pkts == 64.0
    assert Link("A", "10Mbps", "1ms", "64 kB").buffer_pkts == 64.0
    for bad in (0.5, "0.5"):
        with pytest.raises(ValueError, match="at least 1 packet"):
            Path("10Mbps", "100ms", buffer=bad)
        with pytest.raises(ValueError, match="at least 1 packet"):
            Link("A", "10Mbps", "1ms", bad)


def test_the_vectorised_summary_equals_each_flow_judged_alone() -> None:
    """Flows of unequal trace lengths are summarised in one padded pass; each flow judged
    alone by tcpfluid.metrics.settling_by_segment must give the same values."""
    from tcpfluid import metrics

    sc = build_scenario(
        "qv-many-flows",
        flows=6,
        groups=3,
        bandwidth="10Mbps",
        buffer=200,
        group_interval="20s",
        active="40s",
        duration="70s",
    )
    res = tcpfluid.simulate(sc, "packet", algorithm="vegas")
    s = res.summary
    assert s.change_times_s == (20.0, 40.0, 60.0)
    for fs, fl in zip(s.flows, res.native.flows, strict=True):
        seg = metrics.settling_by_segment(
            fl.round_t_s,
            fl.round_next_cwnd_pkts,
            start_s=fl.start_s,
            end_s=min(70.0, fl.stop_s),
            change_times_s=s.change_times_s,
        )
        eq = seg.equilibrium
        if bool(eq.settled):
            assert fs.settled_window_pkts == pytest.approx(float(eq.value), rel=1e-12)
            assert fs.time_to_equilibrium_s == pytest.approx(float(eq.time_s))
        else:
            assert fs.settled_window_pkts is None
        for got, c in zip(fs.convergence_times_s, seg.convergence, strict=True):
            assert got == (pytest.approx(float(c.time_s)) if bool(c.settled) else None)


def test_cbr_taking_the_whole_bottleneck_is_refused_by_the_fluid_engines() -> None:
    # 10 Mb/s of CBR on a 10 Mb/s link: the fluid queues would grow without bound; the
    # refusal names the link and the packets/s (10 Mb/s / 8000 bits = 1250)
    sc = build_scenario("qv-basic", bandwidth="10Mbps", cbr="10Mbps", duration="90s")
    for engine in ("rounds", "hybrid", "ode"):
        with pytest.raises(ValueError, match=rf"the {engine} engine cannot model CBR taking "
                           r"the whole bottleneck 'R1-R2': up to 1250 of its 1250"):  # fmt: skip
            tcpfluid.simulate(sc.with_algorithm("vegas"), engine)
    assert tcpfluid.simulate(sc.with_algorithm("vegas"), "packet").summary.utilization <= 1.0
    # a source that starts after the run's end takes nothing
    early = build_scenario("qv-basic", bandwidth="10Mbps", cbr="10Mbps", duration="60s")
    assert tcpfluid.simulate(early.with_algorithm("vegas"), "rounds").summary.utilization > 0.9


def test_every_fluid_engine_refuses_what_it_cannot_model_by_name() -> None:
    from tcpfluid.scenarios import FlowSpec, Link, Scenario

    links = (Link("A", "10Mbps", "5ms"), Link("B", "10Mbps", "7ms"))
    flows = (FlowSpec("f", ("A",), (), algorithm="vegas"), FlowSpec("g", ("B",), ()))
    sc = Scenario("x", links, flows).with_algorithm("vegas")
    for engine in ("rounds", "ode", "hybrid"):
        with pytest.raises(ValueError, match=rf"the {engine} engine cannot model flows that do"):
            tcpfluid.simulate(sc, engine)
    # unequal base RTTs and an ACK-path bottleneck: the round model refuses that pair
    links = (
        Link("A", "10Mbps", "5ms"),
        Link("B", "100Mbps", "7ms"),
        Link("C", "1Gbps", "1ms"),
        Link("R", "100kbps", "5ms"),
    )
    flows = (FlowSpec("f", ("A", "C"), ("R",)), FlowSpec("g", ("A", "B"), ("R",)))
    sc = Scenario("z", links, flows, duration_s=5.0).with_algorithm("vegas")
    with pytest.raises(ValueError, match=r"rounds engine cannot model an ACK-path bottleneck"):
        tcpfluid.simulate(sc, "rounds")
    # and the asynchronous round model itself, called directly
    from tcpfluid.algorithms import get_law
    from tcpfluid.fluid.rounds import simulate_rounds_async
    from tcpfluid.path import Path

    slow_acks = Path(1000.0, 0.05, reverse_bandwidth=500.0)
    with pytest.raises(ValueError, match=r"per-flow base RTTs or RED cannot model an ACK-path"):
        simulate_rounds_async(get_law("vegas"), slow_acks, [0.05, 0.1], duration_s=1.0)


def test_every_fluid_engine_runs_flows_of_unequal_base_rtt() -> None:
    """Unequal base RTTs on one shared bottleneck: the round model gives each flow its own
    round clock and a per-flow summary."""
    from tcpfluid.scenarios import FlowSpec, Link, Scenario

    links = (Link("A", "10Mbps", "5ms"), Link("B", "100Mbps", "7ms"), Link("C", "1Gbps", "1ms"))
    flows = (FlowSpec("f", ("A", "C"), ()), FlowSpec("g", ("A", "B"), ()))
    sc = Scenario("y", links, flows, duration_s=5.0).with_algorithm("vegas")
    d_f, d_g = (sc.base_rtt_s(f) for f in sc.flows)
    assert d_g > 1.8 * d_f  # 6.8 ms and 12.9 ms
    res = tcpfluid.simulate(sc, "rounds")
    assert isinstance(res, Result) and res.engine == "rounds"
    assert res.window_pkts.shape == (2, res.time_s.size)
    assert [f.name for f in res.summary.flows] == ["f", "g"]
    ends = res.native.round_end[:, 0, :].sum(axis=0)
    # each flow's own rounds last its base RTT plus the shared queueing delay: the short
    # flow has more of them, but fewer than d_g / d_f times as many
    assert 1.2 < ends[0] / ends[1] < d_g / d_f
    assert all(f.throughput_pps is not None and f.throughput_pps > 0 for f in res.summary.flows)
    assert len(tcpfluid.simulate(sc, "ode").summary.flows) == 2


def test_a_run_whose_capacity_underflows_reports_no_utilization() -> None:
    """A hand-built scenario (build_scenario refuses it) whose bottleneck x duration
    underflows to 0 bytes: the packet summary said ZeroDivisionError."""
    from tcpfluid.scenarios import FlowSpec, Link, Scenario
    from tcpfluid.sim import simulate_packets

    links = (Link("A", 1e-300, 0.0), Link("B", 1e-300, 0.0))
    flows = (FlowSpec("f", ("A",), ("B",), algorithm="vegas"),)
    res = simulate_packets(Scenario("x", links, flows, duration_s=1e-300))
    assert math.isnan(res.summary.utilization) and res.summary.to_dict()["utilization"] is None


def test_the_packet_engine_leaves_the_simulators_own_summary_uncomputed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A packet run through tcpfluid.simulate summarises once (its Result's summary); the
    simulator's own PacketResult.summary is computed only when read, once, and is then the
    same object on every read."""
    from tcpfluid.sim import _results

    calls: list[int] = []
    real = _results.summarise

    def counted(res: Any) -> Any:
        calls.append(1)
        return real(res)

    monkeypatch.setattr(_results, "summarise", counted)
    sc = build_scenario("qv-basic", bandwidth="5Mbps", duration="5s", cbr="none")
    res = tcpfluid.simulate(sc.with_algorithm("reno"), "packet")
    native = res.native
    assert calls == [] and "summary" not in vars(native)  # not computed by the run
    first = native.summary
    assert native.summary is first and calls == [1]  # computed once, on first access
    # its utilization: the bytes the bottleneck carried over its capacity, from the link
    link = native.link(res.summary.bottleneck)
    assert first.utilization == pytest.approx(link.bytes_out / (MU_PPS * 1000.0 * 5.0))
