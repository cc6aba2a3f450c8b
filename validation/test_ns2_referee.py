"""ns-2.35, the documents' own simulator, as an external referee for the packet simulator on
two of the report's scenarios: the TCP-Ho paper's Table 7 dumbbell (Reno with Vegas, 20
flows, all starting at 0 s) and Tsang's thesis's two-flow RED network (Vegas α = 1, β = 3,
Table 3.16).

The ns-2 figures are constants measured by ``benchmarks/ns2_referee.py`` (Debian's ``ns2``
package, ns-2.35; not a dependency of tcpfluid, so CI cannot rerun them)::

    python benchmarks/ns2_referee.py --case table7-15-5 --case table7-10-10 \\
        --case table7-5-15 --case thesis-vegas13-1 --case thesis-vegas13-10 \
        --case thesis-vegas13-70 --case thesis-vegas13-80 --case thesis-vegas13-90 \
        --case many-red-5-15-100-vegas13-30

The script's docstring states the scenario mapping and every ns-2 setting set away from
ns-2.35's defaults to match the packet simulator (no SYN, advertised window and initial
``ssthresh`` out of reach, 1 s initial timer, 1 ms tick, the buffers' ``queue-limit``,
Vegas's α, β, γ, RED in packets with the scenario's thresholds). The packet simulator runs
the same scenario with each flow recovering as the ns-2 agent the script chose
(``Agent/TCP/Newreno`` for Reno in Table 7, ``Agent/TCP/Vegas`` for Vegas, with ns-2.35's
own agent's integer Δ and growth check, ``ns2_referee.NS2_VEGAS_OPTIONS``).

Why 10 %: the report's tolerance on throughputs and shares; the two simulators are
different implementations (ns-2 times one packet per window for its timer, the packet
simulator every ACK; ns-2.35's Vegas resets BaseRTT on a one-packet round, the thesis's
agent, which the packet simulator models, does not). Where they differ by more, the test is
a strict expected failure with the numbers; docs/ns2.md has the table of every row run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import ModuleType
from typing import Any

import pytest

from tcpfluid.scenarios import FlowSpec, Link, build_scenario

#: ns-2.35, ``--case table7-NA-NB``: mean goodput per flow (kb/s) of each scheme, 10-60 s
#: (the driver gives ns-2's Reno agents the scenario's 1000 bytes on the wire, header
#: included; with 1040 it measured 528.4/350.6, 673.8/299.2 and 1161.4/264.3)
NS2_TABLE7_KBPS: dict[tuple[int, int], dict[str, float]] = {
    (15, 5): {"reno": 546.31, "vegas": 362.24},
    (10, 10): {"reno": 678.43, "vegas": 322.56},
    (5, 15): {"reno": 1188.32, "vegas": 270.56},
}
#: ns-2.35, ``--case thesis-vegas13-X2``: the smaller flow's share of the two goodputs, 10-60 s
NS2_THESIS_SHARE: dict[int, float] = {1: 0.500, 10: 0.333, 70: 0.429, 80: 0.389, 90: 0.350}
#: ns-2.35, ``--case thesis-vegas13-1``: the two flows' goodputs (kb/s), 10-60 s
NS2_THESIS_1MS_KBPS = (749.9, 750.1)
#: ns-2.35, ``--case many-red-5-15-100-vegas13-30``: mean goodput of the 30 Vegas-1_3 flows
#: among 100 behind RED-5-15 (kb/s), 20-60 s
NS2_MANY_VEGAS_KBPS = 111.42
#: ns-2.35, ``--case qv-many-flows-vegas-100-200``: the spread (std/mean) of the 40 Vegas
#: flows' goodputs over 100-200 s on the Quick Vegas paper's 1 Gb/s × 100 ms network (the
#: paper's Table 2: 0.250)
NS2_QV_SPREAD_100_200 = 0.2512
#: the report's tolerance on a share spread
SPREAD_TOLERANCE = 0.1
#: the report's tolerance on throughputs and shares (module docstring)
TOLERANCE = 0.10
WINDOW_S = (10.0, 60.0)


@pytest.fixture(scope="module")
def referee(ns3_script: Callable[[str], ModuleType]) -> ModuleType:
    return ns3_script("ns2_referee")


def _case(referee: ModuleType, name: str) -> tuple[Any, dict[str, Any]]:
    sc, _win, matched, _report = referee.cases()[name]
    return sc, matched


def _differs(measured: str, why: str) -> pytest.MarkDecorator:
    """A strict expected failure: the packet simulator's ``measured`` value and ``why``."""
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"{measured}: {why}")


@pytest.mark.parametrize(
    ("mix", "scheme"),
    [
        ((15, 5), "reno"),
        ((15, 5), "vegas"),
        ((10, 10), "reno"),
        pytest.param(
            (10, 10),
            "vegas",
            marks=_differs(
                "282.5 against 322.6 kb/s (-12.4 %)",
                "unexplained: within 10 % of ns-2.35 while its Reno packets were 1040 bytes "
                "on the wire (299.2 kb/s)",
            ),
        ),
        ((5, 15), "reno"),
        ((5, 15), "vegas"),
    ],
)
def test_table7_mean_goodput_within_ten_percent_of_ns2(
    referee: ModuleType, mix: tuple[int, int], scheme: str
) -> None:
    sc, opts = _case(referee, f"table7-{mix[0]}-{mix[1]}")
    rates = referee.packet_goodput(sc, WINDOW_S, **opts)
    mine = [r * 8.0 for r, f in zip(rates, sc.flows, strict=True) if f.algorithm == scheme]
    mean_kbps = sum(mine) / len(mine)
    assert mean_kbps == pytest.approx(NS2_TABLE7_KBPS[mix][scheme], rel=TOLERANCE)


def _whole_window_equilibrium(measured: str) -> pytest.MarkDecorator:
    return _differs(measured, "the two flows settle in another pair of whole windows")


@pytest.mark.parametrize(
    "x2_ms",
    [
        1,
        pytest.param(
            10,
            marks=_whole_window_equilibrium(
                "0.375 against 0.333 (over connection 2's start 0-5 ms later: ns-2.35 0.333-0.429)"
            ),
        ),
        70,
        80,
        90,
    ],
)
def test_thesis_smaller_share_within_ten_percent_of_ns2(referee: ModuleType, x2_ms: int) -> None:
    sc, opts = _case(referee, f"thesis-vegas13-{x2_ms}")
    rates = referee.packet_goodput(sc, WINDOW_S, **opts)
    assert min(rates) / sum(rates) == pytest.approx(NS2_THESIS_SHARE[x2_ms], rel=TOLERANCE)


@pytest.mark.parametrize(
    "base_reset",
    [
        pytest.param(
            False,
            marks=pytest.mark.xfail(
                strict=True,
                raises=AssertionError,
                reason=(
                    "97.8 kb/s, -12.2 %: the thesis's Vegas agent (the report's packet runs) "
                    "keeps the BaseRTT of its first rounds; ns-2.35's also takes a "
                    "one-packet round's"
                ),
            ),
        ),
        True,
    ],
)
def test_many_flow_vegas_goodput_with_ns2_35s_base_rtt_rule(
    referee: ModuleType, base_reset: bool
) -> None:
    """The switch-off experiment of the many-flow row: with ns-2.35's BaseRTT rule
    (``ns2_vegas_base_reset``) the packet simulator's 30 Vegas-1_3 flows carry 107.3 kb/s
    each, within 10 % of ns-2.35's 111.4; with the thesis's agent's, 97.8."""
    sc, opts = _case(referee, "many-red-5-15-100-vegas13-30")
    rates = referee.packet_goodput(sc, (20.0, 60.0), **opts, ns2_vegas_base_reset=base_reset)
    kb = 8.0 * sc.packet_size_bytes / 1e3
    vegas = [r * kb for r, f in zip(rates, sc.flows, strict=True) if f.algorithm == "vegas"]
    assert sum(vegas) / len(vegas) == pytest.approx(NS2_MANY_VEGAS_KBPS, rel=TOLERANCE)


def test_quick_vegas_table2_spread_within_a_tenth_of_ns2(referee: ModuleType) -> None:
    """The 40 flows of the first two groups over 100-200 s: ns-2.35's settle at a few
    levels, and so do the packet simulator's once their Vegas agents round Δ to an integer
    as ns-2.35's (0.251; with the thesis's double Δ or the window's, 0.112)."""
    sc, opts = _case(referee, "qv-many-flows-vegas-100-200")
    rates = referee.packet_goodput(sc, (100.0, 200.0), **opts)
    mean = sum(rates) / len(rates)
    spread = (sum((r - mean) ** 2 for r in rates) / len(rates)) ** 0.5 / mean
    assert spread == pytest.approx(NS2_QV_SPREAD_100_200, abs=SPREAD_TOLERANCE)


# ------------------------------------------------------------------- the script writer
def test_the_script_names_every_link_with_its_rate_delay_and_buffer(referee: ModuleType) -> None:
    sc, opts = _case(referee, "table7-15-5")
    script = referee.ns2_script(sc, window_s=WINDOW_S, **referee.ns2_options(opts))
    lines = script.splitlines()
    links = [ln for ln in lines if " simplex-link " in ln]
    limits = [ln for ln in lines if " queue-limit " in ln]
    assert len(links) == len(limits) == len(sc.links)
    bottleneck = next(i for i, ln in enumerate(lines) if ln.startswith("# R1-R2:"))
    assert lines[bottleneck + 1].endswith(" 10000000b 0.001s DropTail")
    # 120 waiting, the packet on the wire not counted: ns-2's DropTail limit one more
    assert lines[bottleneck + 2].endswith(" 121")
    assert script.count("new Agent/TCP/Newreno") == 15
    assert script.count("new Agent/TCP/Vegas") == 5
    assert script.count("set v_alpha_ 2.0") == script.count("set v_beta_ 4.0") == 5


def test_reno_agents_carry_the_scenarios_packet_size_on_the_wire(referee: ModuleType) -> None:
    """ns-2.35's Reno and NewReno agents add their 40-byte TCP/IP header to ``packetSize_``
    on the wire, its Vegas agent adds none: the script gives each Reno agent the scenario's
    size less the header (the 15 NewReno flows of Table 7's 15/5 mix: 960), the Vegas
    agents the scenario's 1000; ns-2's defaults (``ns2_defaults``) leave every agent at
    the scenario's size, 1040 bytes on the wire for Reno."""
    sc, opts = _case(referee, "table7-15-5")
    script = referee.ns2_script(sc, window_s=WINDOW_S, **referee.ns2_options(opts))
    assert "Agent/TCP set packetSize_ 1000\n" in script
    assert script.count(" set packetSize_ 960\n") == 15
    reno = [ln for ln in script.splitlines() if ln.endswith(" set packetSize_ 960")]
    assert reno == [f"$tcp({i}) set packetSize_ 960" for i in range(15)]
    defaults = referee.ns2_script(
        sc, window_s=WINDOW_S, ns2_defaults=True, **referee.ns2_options(opts)
    )
    assert " set packetSize_ 960" not in defaults


def test_an_ns2_reno_flow_fills_the_link_with_the_scenarios_packets(referee: ModuleType) -> None:
    """One Reno flow alone on the Quick Vegas paper's 50 Mb/s path with no buffer limit (no
    loss: the link is busy from the first seconds on) delivers the link's rate in the
    scenario's 1000-byte packets, 50e6 / 8000 = 6250 packets/s worked by hand, as the packet
    simulator does; with 1040 bytes on the wire it would be 6009.6 (3.8 % less). 0.1 %: a
    packet or two at the ends of the 15-s window."""
    ns = referee.find_ns()
    if ns is None:
        pytest.skip("ns-2 is not installed (apt-get install ns2)")
    sc = build_scenario("qv-basic", algorithm="reno", cbr="none", duration="20s")
    win = (5.0, 20.0)
    got = referee.run_ns2(referee.ns2_script(sc, window_s=win), ns, win)
    assert got["goodput_pps"][0] == pytest.approx(50e6 / 8000.0, rel=1e-3)
    assert referee.packet_goodput(sc, win)[0] == pytest.approx(50e6 / 8000.0, rel=1e-3)


def test_the_script_turns_ns2s_bugfix_off_with_the_packet_simulators_switch(
    referee: ModuleType,
) -> None:
    sc, opts = _case(referee, "asym-reno-k5")
    on = referee.ns2_script(sc, window_s=(0.0, 60.0), **referee.ns2_options(opts))
    off = referee.ns2_script(
        sc, window_s=(0.0, 60.0), **referee.ns2_options({**opts, "timeout_recover": False})
    )
    assert "bugFix_" not in on
    assert off.count("Agent/TCP set bugFix_ false\n") == 1


#: the asymmetric-networks paper's Table I, Reno's throughput (packets/s) at k = 3, 5, 7
ASYM_PAPER_RENO_PPS = {3: 138.3, 5: 109.4, 7: 71.5}


@pytest.mark.parametrize("k", [3, 5, 7])
def test_ns2_gives_the_asymmetric_papers_reno_throughput_without_bugfix(
    referee: ModuleType, k: int
) -> None:
    """The asymmetric-networks paper's Table I, Reno (the report's 60-s runs, the whole
    run's throughput): ns-2.35 with ``bugFix_ false`` gives the paper's numbers within the
    report's 10 % (132.5, 103.8, 66.8 packets/s), with its default ``bugFix_ true`` it
    carries 8-33 % more (143.8, 123.7, 89.1: 4-25 % above the paper), as the packet
    simulator does with its
    ``timeout_recover`` on and off (docs/mechanisms.md, ``ns2-timeout-bugfix``)."""
    ns = referee.find_ns()
    if ns is None:
        pytest.skip("ns-2 is not installed (apt-get install ns2)")
    sc, opts = _case(referee, f"asym-reno-k{k}")
    win = (0.0, 60.0)
    paper = ASYM_PAPER_RENO_PPS[k]
    off = {**opts, "timeout_recover": False}
    ns2_off = referee.run_ns2(
        referee.ns2_script(sc, window_s=win, **referee.ns2_options(off)), ns, win
    )
    ns2_on = referee.run_ns2(
        referee.ns2_script(sc, window_s=win, **referee.ns2_options(opts)), ns, win
    )
    assert ns2_off["goodput_pps"][0] == pytest.approx(paper, rel=TOLERANCE)
    assert ns2_on["goodput_pps"][0] > ns2_off["goodput_pps"][0] * 1.03
    for o, got in ((off, ns2_off), (opts, ns2_on)):
        mine = referee.packet_goodput(sc, win, **o)[0]
        assert mine == pytest.approx(got["goodput_pps"][0], rel=TOLERANCE)


def test_the_script_sets_red_in_packets_with_the_scenarios_parameters(
    referee: ModuleType,
) -> None:
    sc, opts = _case(referee, "thesis-vegas13-10")
    script = referee.ns2_script(sc, window_s=WINDOW_S, **referee.ns2_options(opts))
    for setting in ("thresh_ 15.0", "maxthresh_ 45.0", "linterm_ 50.0", "q_weight_ 0.002",
                    "gentle_ false", "queue_in_bytes_ false", "wait_ true"):  # fmt: skip
        assert f"Queue/RED set {setting}\n" in script
    assert "$tcp(0) set windowInit_ 1.0" in script  # the thesis's one-packet start


def test_the_script_refuses_a_law_ns2_lacks_by_name(referee: ModuleType) -> None:
    sc = build_scenario("ho-friendliness", algorithm="tcp-ho:10,reno:10")
    with pytest.raises(ValueError, match="'tcp-ho'"):
        referee.ns2_script(sc, window_s=WINDOW_S)


def test_the_script_refuses_vegas_with_a_recovery_ns2s_agent_lacks(referee: ModuleType) -> None:
    sc = build_scenario("ho-friendliness", algorithm="vegas")
    with pytest.raises(ValueError, match="'newreno'"):
        referee.ns2_script(sc, window_s=WINDOW_S, fast_recovery="newreno")


def test_the_script_refuses_a_flow_that_ns2s_routing_would_move(referee: ModuleType) -> None:
    sc = build_scenario("ho-friendliness", algorithm="reno", flows=2)
    # a third flow's one-hop link from flow 1's sender to its receiver: ns-2 would route
    # flow 1's data over it rather than over the flow's three links
    direct = FlowSpec("direct", ("S1-D1",), ("D1-R2", "R2-R1", "R1-S1"), algorithm="reno")
    moved = replace(sc, links=(*sc.links, Link("S1-D1", 1e8, 0.001)), flows=(*sc.flows, direct))
    with pytest.raises(ValueError, match="hop count"):
        referee.ns2_script(moved, window_s=WINDOW_S)


def test_an_ns2_run_gives_the_measured_goodputs(referee: ModuleType) -> None:
    ns = referee.find_ns()
    if ns is None:
        pytest.skip("ns-2 is not installed (apt-get install ns2)")
    sc, opts = _case(referee, "thesis-vegas13-1")
    script = referee.ns2_script(sc, window_s=WINDOW_S, **referee.ns2_options(opts))
    kbps = [r * 8.0 for r in referee.run_ns2(script, ns, WINDOW_S)["goodput_pps"]]
    assert kbps == pytest.approx(NS2_THESIS_1MS_KBPS, rel=0.01)


def test_the_script_sends_each_cbr_source_over_its_links(referee: ModuleType) -> None:
    # the Quick Vegas paper's §5.1 path: a CBR source of half the link from 80 s to 160 s
    sc = build_scenario("qv-basic", algorithm="vegas", duration="200s")
    (cbr,) = sc.cbr
    script = referee.ns2_script(sc, window_s=(0.0, 200.0), fast_recovery="ns2-vegas")
    ends, _ = referee.topology(sc)
    src, dst = ends[cbr.links[0]][0], ends[cbr.links[-1]][1]
    assert f"$ns attach-agent $n({src}) $udp(0)" in script
    assert f"$ns attach-agent $n({dst}) $lm(0)" in script
    assert "$cbr(0) set rate_ 25000000b" in script
    assert "$cbr(0) set packetSize_ 1000" in script
    assert '$ns at 80.0 "$cbr(0) start"' in script
    assert '$ns at 160.0 "$cbr(0) stop"' in script


def test_an_ns2_cbr_source_delivers_its_rate(referee: ModuleType) -> None:
    """The CBR source alone on the §5.1 path (no flow sends before 300 s): ns-2 delivers its
    25 Mb/s, 3125 packets/s of 1000 bytes, over the 80 s it sends (the rate worked by hand:
    250,000 packets, one more when a source also sends at its stop time, as ns-2's does)."""
    ns = referee.find_ns()
    if ns is None:
        pytest.skip("ns-2 is not installed (apt-get install ns2)")
    sc = build_scenario("qv-basic", algorithm="reno", duration="200s")
    sc = replace(sc, flows=tuple(replace(f, start_s=199.0) for f in sc.flows))
    got = referee.run_ns2(referee.ns2_script(sc, window_s=(0.0, 200.0)), ns, (0.0, 200.0))
    assert round(got["cbr_pps"][0] * 200.0) in (250_000, 250_001)
