"""Scenario data model and the qv-basic builder (the Quick Vegas paper §5, Fig. 6)."""

from __future__ import annotations

import math

import pytest

from tcpfluid.scenarios import (
    SCENARIOS,
    CbrSource,
    FlowSpec,
    Link,
    Scenario,
    build_scenario,
    scenario_names,
)


def test_qv_basic_fluid_view_matches_eq5_by_hand() -> None:
    # The Quick Vegas paper §5: access links 1 Gb/s, 1 ms; core 50 Mb/s, 48 ms; 1000-byte data,
    # 40-byte ACKs. Eq (5): d = tau + (1 + a) * sum(1/X_i), tau = 2 * (1 + 48 + 1) ms.
    view = build_scenario("qv-basic").fluid_view()
    x = [1e9 / 8000.0, 50e6 / 8000.0, 1e9 / 8000.0]  # packets/s
    d = 0.100 + (1.0 + 40.0 / 1000.0) * sum(1.0 / xi for xi in x)
    assert view.path.mu == pytest.approx(6250.0)
    assert view.path.d == pytest.approx(d, rel=1e-12)
    assert view.path.reverse_mu is None  # ACK path is not a bottleneck
    assert math.isinf(view.path.buffer_pkts)
    assert view.duration_s == 240.0
    (cbr,) = view.cross_traffic
    assert (cbr.rate_pps, cbr.start_s, cbr.stop_s) == (25e6 / 8000.0, 80.0, 160.0)


def test_cbr_none_removes_the_cross_traffic() -> None:
    sc = build_scenario("qv-basic", cbr="none")
    assert sc.cbr == ()
    assert sc.fluid_view().cross_traffic == ()


def test_overrides_change_the_path() -> None:
    sc = build_scenario("qv-basic", bandwidth="10Mbps", rtt="200ms", buffer=100, duration=30)
    p = sc.fluid_view().path
    assert p.mu == pytest.approx(1250.0)
    # core one-way delay = rtt/2 - 2 * 1 ms = 98 ms; tau = 200 ms
    assert p.d == pytest.approx(0.2 + 1.04 * (2 * 8e-6 + 1 / 1250.0))
    assert p.buffer_pkts == 100.0
    assert sc.duration_s == 30.0
    assert sc.link("R1-R2").delay_s == pytest.approx(0.098)


def test_law_parameters_reach_every_flow() -> None:
    sc = build_scenario("qv-basic", flows=3, alpha="1", beta=3, algorithm="vegas")
    assert len(sc.flows) == 3
    for f in sc.flows:
        assert f.algorithm == "vegas"
        assert f.params == {"alpha": 1.0, "beta": 3}
    sc2 = sc.with_algorithm("quick-vegas", gamma=2.0)
    assert {f.algorithm for f in sc2.flows} == {"quick-vegas"}
    assert sc2.flows[0].params == {"alpha": 1.0, "beta": 3, "gamma": 2.0}


def test_unknown_scenario_and_key_are_named() -> None:
    with pytest.raises(ValueError, match=r"unknown scenario 'nope'.*qv-basic"):
        build_scenario("nope")
    with pytest.raises(ValueError, match=r"unknown parameter 'bandwith'.*bandwidth"):
        build_scenario("qv-basic", bandwith="10Mbps")


@pytest.mark.parametrize(
    ("key", "value", "pattern"),
    [
        ("bandwidth", "-5Mbps", "bandwidth"),
        ("rtt", "2ms", "rtt"),  # shorter than the 4 ms of access links
        ("buffer", 0.5, "buffer"),
        ("duration", 0, "duration"),
        ("cbr_stop", "10s", "stop_s must be > start_s"),
        ("flows", 0, "flows"),
        ("alpha", "two", "alpha must be a number"),
    ],
)
def test_bad_values_are_rejected(key: str, value: object, pattern: str) -> None:
    with pytest.raises((ValueError, TypeError), match=pattern):
        build_scenario("qv-basic", **{key: value})


def test_data_model_validation() -> None:
    a = Link("A", "10Mbps", "5ms")
    with pytest.raises(ValueError, match="discipline"):
        Link("B", "10Mbps", "5ms", discipline="fifo")
    with pytest.raises(ValueError, match="unknown link 'Z'"):
        Scenario("x", (a,), (FlowSpec("f", ("Z",), ()),))
    with pytest.raises(ValueError, match="duplicate link"):
        Scenario("x", (a, a), (FlowSpec("f", ("A",), ()),))
    with pytest.raises(ValueError, match="no flows"):
        Scenario("x", (a,), ())
    with pytest.raises(ValueError, match="stop_s must be > start_s"):
        CbrSource("c", "1Mbps", 5, 5, ("A",))


def test_fluid_view_rejects_flows_with_different_rtts() -> None:
    links = (Link("A", "10Mbps", "5ms"), Link("B", "10Mbps", "7ms"))
    sc = Scenario("x", links, (FlowSpec("f", ("A",), ()), FlowSpec("g", ("B",), ())))
    with pytest.raises(ValueError, match=r"do not all cross the bottleneck 'A' \('g' does not\)"):
        sc.fluid_view()


def test_fluid_view_accepts_alike_access_links() -> None:
    # three flows on their own (identical) access links share R1-R2: one path, 3 flows
    view = build_scenario("qv-basic", flows=3).fluid_view()
    assert len(view.flows) == 3
    assert view.path.d == pytest.approx(build_scenario("qv-basic").fluid_view().path.d)


def test_reverse_bottleneck_is_seen_in_acks_per_second() -> None:
    # the asymmetric-network paper §IV.A: 2.4 Mb/s forward (300 pkt/s), 32 kb/s reverse =
    # 100 ACKs/s of 40 B
    links = (
        Link("F", "2.4Mbps", "50ms", 15),
        Link("R", "32kbps", "50ms", 10),
    )
    sc = Scenario("asym", links, (FlowSpec("f", ("F",), ("R",)),), duration_s=10)
    p = sc.fluid_view().path
    assert p.mu == pytest.approx(300.0)
    assert p.reverse_mu == pytest.approx(100.0)
    assert p.reverse_buffer_pkts == 10.0
    assert p.d == pytest.approx(0.1 + 1 / 300.0 + 1 / 100.0)


def test_to_dict_is_plain() -> None:
    d = build_scenario("qv-basic").to_dict()
    assert d["name"] == "qv-basic"
    assert d["cbr"][0]["rate_bps"] == 25e6
    assert d["params"]["buffer"] == "inf"
    assert set(scenario_names()) == set(SCENARIOS)


def test_the_shared_link_is_the_bottleneck_among_equally_slow_links() -> None:
    # 1 Gb/s everywhere (the Quick Vegas paper §5.3.1): the access links are as fast as R1-R2, and
    # the bottleneck is the link the flows share
    sc = build_scenario("qv-basic", bandwidth="1Gbps", flows=2, cbr="none", buffer=1500)
    p = sc.fluid_view().path
    assert p.mu == pytest.approx(1e9 / 8000)
    assert p.buffer_pkts == 1500.0  # R1-R2's buffer, not an access link's (infinite)


def _asymmetric_two_link(red: dict | None = None) -> Scenario:
    # forward: A (10 Mb/s, 10 ms) then B (1 Gb/s, 1 ms); ACKs back over C (2 Mb/s, 5 ms)
    discipline = "drop-tail" if red is None else "red"
    return Scenario(
        name="hand",
        links=(
            Link("A", 10e6, 0.010, 50, discipline=discipline, red=red or {}),
            Link("B", 1e9, 0.001),
            Link("C", 2e6, 0.005),
        ),
        flows=(FlowSpec("f", ("A", "B"), ("C",)),),
        duration_s=1.0,
    )


def test_base_rtt_is_eq5_over_the_flows_own_links_in_every_reduction() -> None:
    from tcpfluid.fluid.ode import ode_problem

    sc = _asymmetric_two_link().with_algorithm("vegas")
    # tau = 10 + 1 + 5 ms; a 8000-bit packet on A and B: 0.8 ms + 8 µs; a 320-bit ACK on C:
    # 0.16 ms  ->  d = 16 + 0.8 + 0.008 + 0.16 = 16.968 ms
    d = 0.016968
    assert sc.base_rtt_s(sc.flows[0]) == pytest.approx(d, rel=1e-12)
    assert sc.fluid_view().path.d == pytest.approx(d, rel=1e-12)
    assert ode_problem(sc).flows[0].rtt_s == pytest.approx(d, rel=1e-12)


def test_red_parameters_are_read_once_for_every_engine() -> None:
    from tcpfluid.fluid.ode import ode_problem

    assert Link("D", 1e6, 0.01).red_parameters() == {}
    sc = _asymmetric_two_link({"min_th": 5, "max_th": 15}).with_algorithm("vegas")
    # the packet engine's defaults (max_p 0.1, w_q 0.002), also in the ODE reduction
    # (RedQueue's own defaults are the thesis's 0.02: not used for a scenario link)
    assert sc.link("A").red_parameters() == {
        "min_th": 5.0,
        "max_th": 15.0,
        "max_p": 0.1,
        "w_q": 0.002,
        "gentle": False,
    }
    red = ode_problem(sc).red
    assert red is not None
    assert (red.min_th_pkts, red.max_th_pkts, red.max_p, red.weight, red.gentle) == (
        5.0,
        15.0,
        0.1,
        0.002,
        False,
    )
    # a RED link without thresholds is an error in the ODE reduction too (it used to get
    # RedQueue's 15/45 silently)
    bad = _asymmetric_two_link({"max_p": 0.1}).with_algorithm("vegas")
    with pytest.raises(ValueError, match="link 'A': RED needs min_th and max_th"):
        ode_problem(bad)
    for red_bad, exc, pattern in (
        (
            {"min_th": 5, "max_th": 15, "wq": 0.1},
            ValueError,
            r"unknown RED parameter\(s\) \['wq'\]",
        ),
        ({"min_th": 5, "max_th": 15, "gentle": "yes"}, TypeError, "A.red.gentle must be True"),
        ({"min_th": 5, "max_th": 15, "max_p": 0.0}, ValueError, r"A.red.max_p must be in \(0"),
        ({"min_th": 0, "max_th": 15}, ValueError, "A.red.min_th must be > 0"),
    ):
        with pytest.raises(exc, match=pattern):
            Link("A", 10e6, 0.01, 50, discipline="red", red=red_bad).red_parameters()


def test_ode_problem_names_a_wrong_scenario_type() -> None:
    from tcpfluid.fluid.ode import ode_problem

    with pytest.raises(
        TypeError, match=r"scenario must be a tcpfluid\.scenarios\.Scenario, got str"
    ):
        ode_problem("qv-basic")


def test_equally_slow_shared_links_the_upstream_one_is_the_bottleneck_in_every_reduction() -> None:
    from tcpfluid.fluid.ode import ode_problem

    # two 10 Mb/s links in series, upstream "Z" (buffer 50) then "A" (buffer 20): with equal
    # rates the downstream link never queues, so the bottleneck is "Z" (path order, not the
    # alphabetical order of the names), in the round model's and the ODE's reductions alike
    sc = Scenario(
        name="tie",
        links=(Link("Z", 10e6, 0.01, 50), Link("A", 10e6, 0.01, 20), Link("R", 1e9, 0.01)),
        flows=(FlowSpec("f", ("Z", "A"), ("R",)),),
        duration_s=1.0,
    ).with_algorithm("vegas")
    assert sc.fluid_view().path.buffer_pkts == 50.0
    assert ode_problem(sc).path.buffer_pkts == 50.0


def test_a_run_in_which_nothing_can_happen_is_refused_naming_the_inputs() -> None:
    # qv-basic's base RTT is 100.18 ms (eq. 5): a 50-ms run ends before the first ACK
    with pytest.raises(ValueError, match=r"duration=0.05 s ends before .* 0.100183 s"):
        build_scenario("qv-basic", duration="50ms")
    assert build_scenario("qv-basic", duration="101ms").duration_s == 0.101
    with pytest.raises(ValueError, match="packet_size=1e\\+300 bytes"):
        build_scenario("qv-basic", packet_size="1e300B")


def test_one_bottleneck_rule_with_its_tie_breaks() -> None:
    """The slowest link of flow 0's path; among equally slow links the one most flows cross,
    then the first on the path (the one that queues)."""
    from tcpfluid.scenarios import bottleneck, fluid_view

    # one flow, its access link as slow as the core: the first on the path queues
    links = (
        Link("S-R1", "10Mbps", "1ms"),
        Link("R1-R2", "10Mbps", "5ms"),
        Link("R2-D", "100Mbps", "1ms"),
    )
    one = Scenario("one", links, (FlowSpec("f", ("S-R1", "R1-R2", "R2-D"), ()),))
    assert bottleneck(one).name == "S-R1" == fluid_view(one).bottleneck
    # two flows with their own equally slow access links: the shared link wins the tie
    links2 = (*links, Link("S2-R1", "10Mbps", "1ms"))
    two = Scenario(
        "two",
        links2,
        (
            FlowSpec("f", ("S-R1", "R1-R2", "R2-D"), ()),
            FlowSpec("g", ("S2-R1", "R1-R2", "R2-D"), ()),
        ),
    )
    assert bottleneck(two).name == "R1-R2"
    # a strictly slower link is the bottleneck whoever shares it
    slow = (Link("S-R1", "5Mbps", "1ms"), *links[1:])
    three = Scenario("three", slow, one.flows)
    assert bottleneck(three).name == "S-R1"
    # the documents' setups: the trunk between the two routers (R1-R2), and R3-R4 in the
    # different-RTT topology (their figures); the asymmetric network's ACK path is R2-R1
    for name in ("qv-basic", "ho-basic", "thesis-two-flow", "asymmetric", "itcp-long-delay"):
        assert fluid_view(build_scenario(name)).bottleneck == "R1-R2"
    assert bottleneck(build_scenario("qv-different-rtt", flows_per_group=2)).name == "R3-R4"
    assert fluid_view(build_scenario("asymmetric")).reverse_bottleneck == "R2-R1"


def test_build_scenario_takes_a_mix_of_laws_as_the_command_line_does() -> None:
    """``algorithm="vegas:8,reno:2"`` gives the flows the laws ``-a vegas:8,reno:2`` gives
    them (eight Vegas flows, then two Reno flows), and an unknown name in a mix is refused
    with the valid names listed."""
    from tcpfluid.scenarios.mix import with_mix

    sc = build_scenario("qv-many-flows", algorithm="vegas:8,reno:2", flows=10, groups=1)
    assert [f.algorithm for f in sc.flows] == ["vegas"] * 8 + ["reno"] * 2
    assert sc == with_mix(build_scenario("qv-many-flows", flows=10, groups=1), "vegas:8,reno:2")
    with pytest.raises(ValueError, match=r"unknown algorithm 'warp'.*vegas"):
        build_scenario("qv-basic", algorithm="vegas:1,warp:1")


def test_rtt_dumbbell_gives_each_flow_its_round_trip() -> None:
    """Each flow's round-trip propagation is the sum of its links' one-way delays both
    ways (the scenario's own route), which must be the RTT asked for; the bottleneck is
    the one slow link and the flows' laws and times are the ones given."""
    from tcpfluid.scenarios import rtt_dumbbell

    rtts = [0.02, 0.05, 0.08]
    sc = rtt_dumbbell(
        8e6,
        rtts,
        ["vegas", "reno", "fast"],
        duration_s=9.0,
        buffer_pkts=40.0,
        red=True,
        start_s=[0.0, 3.0, 0.0],
        stop_s=[math.inf, math.inf, 6.0],
        cbr=(2e6, 3.0, 6.0),
    )
    for f, rtt in zip(sc.flows, rtts, strict=True):
        links = (*f.forward, *f.reverse)
        assert sum(sc.link(n).delay_s for n in links) == pytest.approx(rtt, rel=1e-12)
    assert [f.algorithm for f in sc.flows] == ["vegas", "reno", "fast"]
    assert [(f.start_s, f.stop_s) for f in sc.flows] == [(0, math.inf), (3, math.inf), (0, 6)]
    view = sc.fluid_view()
    assert view.bottleneck == "R1-R2" and view.discipline == "red"
    # the CBR's changes as they reach the bottleneck, on the first flow's clock: its access
    # link (0.5 ms) against the first flow's ((20 ms - 2 x 5 ms) / 4 = 2.5 ms), both at ten
    # times the bottleneck's rate (equal transmission times)
    ((start, stop),) = [(c.start_s, c.stop_s) for c in view.cross_traffic]
    assert start == pytest.approx(3.0 - 0.002, abs=1e-12)
    assert stop == pytest.approx(6.0 - 0.002, abs=1e-12)
    with pytest.raises(ValueError, match="one entry per flow"):
        rtt_dumbbell(8e6, rtts, ["vegas"], duration_s=9.0)
