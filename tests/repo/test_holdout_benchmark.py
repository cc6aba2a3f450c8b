"""``benchmarks/holdout.py``: the seeded scenario draw and the comparison rule, on values
worked out by hand (the engines' runs are the benchmark's business, not this test's)."""

from __future__ import annotations

import importlib.util
import math
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tcpfluid.algorithms.registry import ALGORITHMS

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "holdout.py"


@pytest.fixture(scope="module")
def holdout() -> Any:
    spec = importlib.util.spec_from_file_location("benchmark_holdout", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["benchmark_holdout"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_same_seed_same_scenarios_and_another_seed_others(holdout: Any) -> None:
    a = [holdout.draw_case(i, 1).scenario.to_dict() for i in range(8)]
    b = [holdout.draw_case(i, 1).scenario.to_dict() for i in range(8)]
    c = [holdout.draw_case(i, 2).scenario.to_dict() for i in range(8)]
    assert a == b
    assert all(x["links"] != y["links"] for x, y in zip(a, c, strict=True))


def test_the_draw_covers_every_law_and_stays_in_its_ranges(holdout: Any) -> None:
    cases = [holdout.draw_case(i, 7) for i in range(48)]
    assert {c.law for c in cases} == set(ALGORITHMS)
    for c in cases:
        sc = c.scenario
        assert 1 <= len(sc.flows) <= 50
        assert 1e6 <= sc.link("R1-R2").rate_bps <= 1e9
        for f in sc.flows:
            rtt = sc.base_rtt_s(f)
            # propagation 5-400 ms plus the transmission of one packet and one ACK
            assert 0.005 <= rtt <= 0.4 + 2 * 8000.0 / 1e6 + 1e-9
            assert f.algorithm in ALGORITHMS
        if any(f.algorithm == "reno" for f in sc.flows):
            assert math.isfinite(sc.link("R1-R2").buffer_pkts)
        assert sc.link("R1-R2").rate_bps * sc.duration_s / 8000.0 <= holdout.PACKET_BUDGET + 1


def _run(packet: dict[str, Any], fluid: dict[str, Any], capped: bool = False) -> dict[str, Any]:
    base = {
        "throughput share": [0.5, 0.5],
        "settled window": [100.0, 100.0],
        "utilization": 0.9,
        "time to equilibrium": 10.0,
        "convergence time": [],
    }
    return {
        "spec": {"capped": capped},
        "rtt_max_s": 0.1,
        "engines": {
            "packet": {"status": "ok", "values": {**base, **packet}},
            "rounds": {"status": "ok", "values": {**base, **fluid}},
        },
    }


def _verdicts(holdout: Any, run: dict[str, Any]) -> dict[str, str]:
    return {c["quantity"]: c["verdict"] for c in holdout.compare(run, "rounds")}


def test_comparison_rule_on_hand_made_values(holdout: Any) -> None:
    # shares 0.54/0.46 against 0.5/0.5: the worst flow is 8 % off (agrees); 0.56 is 12 %
    v = _verdicts(holdout, _run({}, {"throughput share": [0.54, 0.46]}))
    assert v["throughput share"] == "agree"
    v = _verdicts(holdout, _run({}, {"throughput share": [0.56, 0.44]}))
    assert v["throughput share"] == "differ"
    # a time of 10 s: 25 % (2.5 s) beats 3 RTTs of 0.1 s; 12.4 agrees, 12.6 differs
    assert _verdicts(holdout, _run({}, {"time to equilibrium": 12.4}))["time to equilibrium"] == (
        "agree"
    )
    assert _verdicts(holdout, _run({}, {"time to equilibrium": 12.6}))["time to equilibrium"] == (
        "differ"
    )
    # a short time: the absolute part, 3 RTTs = 0.3 s, decides (0.2 vs 0.45 agrees)
    v = _verdicts(holdout, _run({"time to equilibrium": 0.2}, {"time to equilibrium": 0.45}))
    assert v["time to equilibrium"] == "agree"
    # settled in one engine only differs; in neither is counted apart
    v = _verdicts(holdout, _run({}, {"settled window": [100.0, None]}))
    assert v["settled window"] == "differ"
    v = _verdicts(holdout, _run({"settled window": [None, None]}, {"settled window": [None, None]}))
    assert v["settled window"] == "neither"
    # a run shorter than its laws need: no settling comparison, shares still judged
    v = _verdicts(holdout, _run({}, {"throughput share": [0.56, 0.44]}, capped=True))
    assert v["settled window"] == "capped" and v["throughput share"] == "differ"


def test_a_refused_run_gives_no_comparison(holdout: Any) -> None:
    run = _run({}, {})
    run["engines"]["rounds"] = {"status": "refused", "message": "mixed algorithms"}
    assert holdout.compare(run, "rounds") == []


def test_classes_partition_the_scenarios_by_flows_windows_and_buffer(holdout: Any) -> None:
    one, wide, small = holdout.CLASSES

    def spec(flows: int, bdp_per_flow: float, buffer_bdp: float) -> dict[str, Any]:
        return {"flows": flows, "bdp_per_flow_pkts": bdp_per_flow, "buffer_bdp": buffer_bdp}

    assert holdout.scenario_class(spec(1, 0.5, 0.1)) == one
    assert holdout.scenario_class(spec(3, 4.0, 0.5)) == wide
    assert holdout.scenario_class(spec(3, 4.0, math.inf)) == wide
    assert holdout.scenario_class(spec(3, 3.9, 2.0)) == small
    assert holdout.scenario_class(spec(3, 40.0, 0.49)) == small


def _stored(holdout: Any, seed: int, fluid_share: float) -> dict[str, Any]:
    """One stored scenario as ``--json`` writes it (no buffer limit written as null): the
    round model's share ``fluid_share``, the hybrid's the packet simulator's (0.5)."""
    run = _run({}, {"throughput share": [fluid_share, 1 - fluid_share]})
    run["engines"]["hybrid"] = _run({}, {})["engines"]["rounds"]
    run["spec"] = {
        "capped": False,
        "flows": 2,
        "bdp_per_flow_pkts": 50.0,
        "buffer_bdp": None,
        "red": False,
        "unequal_rtt": False,
        "cbr_share": 0.0,
        "joins": 0,
        "leaves": 0,
    }
    run.update(index=0, law="vegas", mixed=False, describe="#0 vegas x2")
    return {"seed": seed, "runs": [run]}


def test_pool_judges_the_stored_runs_of_several_seeds_together(
    holdout: Any, tmp_path: Path, capsys: Any
) -> None:
    import json

    paths = []
    for seed, share in ((1, 0.5), (2, 0.6)):  # 0.6 against 0.5: 20 % off, differs
        p = tmp_path / f"h{seed}.json"
        stored = _stored(holdout, seed, share)
        if seed == 2:  # run with --packet-repeat: a repeat 0.56 against 0.5, differs
            repeat = _run({}, {"throughput share": [0.56, 0.44]})["engines"]["rounds"]
            stored["runs"][0]["engines"][holdout.REPEAT] = repeat
        p.write_text(json.dumps(stored))
        paths.append(str(p))
    assert holdout.main(["--pool", *paths]) == 0
    out = capsys.readouterr().out
    assert "2 scenarios pooled from 2 run(s)" in out
    per_quantity = out.split("Agreement per quantity:")[1]
    share_row = next(r for r in per_quantity.splitlines() if r.startswith("throughput share"))
    # the round model's column, the hybrid's (which agrees on both seeds), the repeat's (of
    # the one seed that has it)
    assert share_row.split()[2:] == ["1/2", "(50", "%)", "2/2", "(100", "%)", "0/1", "(0", "%)"]
    assert "several flows, BDP/flow >= 4 pkts, buffer >= 0.5 BDP (2 scenarios)" in out
    # the fluid verdicts of seed 2 split by the repeat's: it reproduces the packet run on
    # the other three compared quantities (the fluid engines too), not on the shares (where
    # the round model differs and the hybrid agrees)
    by_repeat = out.split("and where not:")[1].splitlines()
    assert by_repeat[3].split() == ["repeat", "agrees", "3/3", "(100", "%)", "3/3", "(100", "%)"]
    assert by_repeat[4].split() == ["repeat", "differs", "0/1", "(0", "%)", "1/1", "(100", "%)"]
    # the same split where the repeat agrees, per quantity and per law: the shares are not
    # there (the repeat differs on them), the utilization is; one law, Vegas
    split = out.split("agrees, per quantity and per law:")[1].split("\n\n")[0].splitlines()
    rows = {r.split("  ")[0]: r.split()[-6:] for r in split[3:]}
    assert "throughput share" not in rows
    assert rows["utilization"] == ["1/1", "(100", "%)", "1/1", "(100", "%)"]
    assert rows["vegas"] == ["3/3", "(100", "%)", "3/3", "(100", "%)"]
    assert set(rows) == {"utilization", "time to equilibrium", "settled window", "vegas"}
    with pytest.raises(SystemExit, match="not a hold-out --json output"):
        holdout.main(["--pool", str(tmp_path / "missing.json")])


def test_start_jitter_moves_only_the_senders_starts_within_its_bound(holdout: Any) -> None:
    for i in range(48):
        case = holdout.draw_case(i, 7)
        sc = case.scenario
        delays = holdout.start_delays(case)
        assert delays == holdout.start_delays(case)  # seeded
        # below 2 packet times of the bottleneck and 1 % of the shortest base RTT
        packet_s = 8000.0 / sc.link("R1-R2").rate_bps
        shortest = min(sc.base_rtt_s(f) for f in sc.flows)
        assert len(delays) == len(sc.flows)
        assert all(0.0 <= d < min(2.0 * packet_s, 0.01 * shortest) for d in delays)
        if len(delays) > 1:
            assert len(set(delays)) == len(delays)  # an order among the first packets
        # the same engine, scenario and seed: only the senders' start delays are added
        name, opts = holdout.engine_options(case, holdout.REPEAT)
        assert (name, opts) == ("packet", {"seed": 7, "start_delay_s": delays})
        assert holdout.engine_options(case, "packet") == ("packet", {"seed": 7})


def test_an_unjittered_repeat_agrees_with_the_packet_run_on_every_comparison(
    holdout: Any, monkeypatch: Any
) -> None:
    # scenario 2 of seed 1: six Quick Vegas flows, a CBR step, 15 s (a fraction of a second)
    monkeypatch.setattr(holdout, "start_delays", lambda case: (0.0,) * len(case.scenario.flows))
    run = holdout.run_case(2, 1, (holdout.REPEAT,))
    first, again = run["engines"]["packet"], run["engines"][holdout.REPEAT]
    assert first["status"] == again["status"] == "ok"
    assert again["values"] == first["values"]
    s = holdout.summarise_runs([run])
    verdicts = [c["verdict"] for c in run["comparisons"][holdout.REPEAT]]
    assert len(verdicts) == len(holdout.TOLERANCES)
    assert set(verdicts) <= {"agree", "neither"} and verdicts.count("agree") >= 3
    agree, differ, _, _ = s["counts"][(holdout.REPEAT, "*", "*")]
    assert (agree, differ) == (verdicts.count("agree"), 0)
    assert s["engines"] == (*holdout.FLUID_ENGINES, holdout.REPEAT)


def test_ns2_senders_are_ns2s_agents_and_other_laws_are_refused(holdout: Any) -> None:
    case = holdout.draw_case(56, 112)  # one Vegas flow
    assert holdout.ns2_senders(case.scenario) == ("ns2-vegas",)
    sc = holdout.rtt_dumbbell(10e6, [0.05, 0.05], ["reno", "fast"], duration_s=5.0)
    with pytest.raises(ValueError, match="no agent for 'fast'"):
        holdout.ns2_senders(sc)


def test_ns2_is_judged_against_the_packet_run_with_its_senders_on_its_quantities(
    holdout: Any,
) -> None:
    run = _run({}, {})
    # the first packet run (NewReno Vegas) splits 0.5/0.5; the run with ns-2's senders
    # 0.6/0.4, which ns-2 matches: the ns-2 column agrees, on its two quantities only
    run["engines"][holdout.NS2_PACKET] = _run({"throughput share": [0.6, 0.4]}, {})["engines"][
        "packet"
    ]
    run["engines"][holdout.NS2] = {
        "status": "ok",
        "values": {"throughput share": [0.6, 0.4], "utilization": 0.9},
    }
    cmps = holdout.compare(run, holdout.NS2)
    assert [c["quantity"] for c in cmps] == list(holdout.NS2_QUANTITIES)
    assert [c["verdict"] for c in cmps] == ["agree", "agree"]
    run["engines"][holdout.NS2]["values"]["throughput share"] = [0.5, 0.5]
    assert holdout.compare(run, holdout.NS2)[0]["verdict"] == "differ"


def test_a_scenario_ns2_cannot_run_is_marked_not_run(holdout: Any) -> None:
    out: dict[str, Any] = {"engines": {}}
    holdout._ns2_runs(holdout.draw_case(3, 112), out, None)  # TCP-Ho flows
    assert out["engines"][holdout.NS2]["status"] == "not run"
    assert "tcp-ho" in out["engines"][holdout.NS2]["message"]
    assert holdout.NS2_PACKET not in out["engines"]


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (apt-get ns2)")
def test_ns2_and_the_packet_simulator_carry_the_same_utilization(holdout: Any) -> None:
    """One Vegas flow, 12.1 Mb/s x 163 ms, a 42-packet buffer (0.17 BDP), 115 s (seed 112's
    56): every fast retransmit of ns-2's Vegas agent and of the packet simulator with its
    recovery (``"ns2-vegas"``) idles the link for a while; ns-2 carried 0.876 of the
    capacity when this test was written, the packet simulator 0.847. The two simulators
    are different implementations: the hold-out's 10 % on utilization."""
    run = holdout.run_case(56, 112, (holdout.NS2,))
    ns2 = run["engines"][holdout.NS2]
    assert ns2["status"] == "ok", ns2
    packet = run["engines"][holdout.NS2_PACKET]["values"]["utilization"]
    assert ns2["values"]["utilization"] == pytest.approx(packet, rel=0.10)
    assert ns2["values"]["throughput share"] == [1.0]


def _rerun_files(holdout: Any, tmp_path: Path, stored: dict[str, Any]) -> tuple[str, str]:
    import json

    path = tmp_path / "stored.json"
    path.write_text(json.dumps({"seed": 1, "engines": ["packet"], "runs": [stored]}))
    return str(path), str(tmp_path / "again.json")


def test_rerun_runs_the_fluid_engines_again_against_the_stored_packet_run(
    holdout: Any, tmp_path: Path, capsys: Any
) -> None:
    import copy
    import json

    # scenario 2 of seed 1: six Quick Vegas flows, a CBR step, 15 s (a fraction of a second)
    fresh = holdout.run_case(2, 1)  # the packet run and every fluid engine, from scratch
    # stored with a round-model utilization whose verdict is the opposite of the fresh one
    util = next(c for c in holdout.compare(fresh, "rounds") if c["quantity"] == "utilization")
    packet_util = fresh["engines"]["packet"]["values"]["utilization"]
    stored = copy.deepcopy(fresh)
    stored.pop("comparisons", None)
    stored_util = 2.0 * packet_util if util["verdict"] == "agree" else packet_util
    stored["engines"]["rounds"]["values"]["utilization"] = stored_util
    was = "differ" if util["verdict"] == "agree" else "agree"
    path, out = _rerun_files(holdout, tmp_path, stored)
    assert holdout.main(["--rerun", path, "--jobs", "1", "--json", out]) == 0
    printed = capsys.readouterr().out
    assert f"rounds utilization {was} -> {util['verdict']}" in printed
    again = json.loads(Path(out).read_text())["runs"][0]["engines"]
    # the stored packet run is kept; the fluid engines' values are a fresh run's
    assert again["packet"] == json.loads(json.dumps(fresh["engines"]["packet"]))
    for eng in holdout.FLUID_ENGINES:
        assert again[eng]["values"] == json.loads(json.dumps(fresh["engines"][eng]["values"]))
    # each file's counts before and after, by the comparison rule
    fresh_counts = [c["verdict"] for c in holdout.compare(fresh, "rounds")]
    after = f"{fresh_counts.count('agree')}/{sum(v in ('agree', 'differ') for v in fresh_counts)}"
    assert "(seed 1): rounds " in printed and f"-> {after};" in printed


def test_rerun_refuses_a_scenario_the_seed_no_longer_draws(holdout: Any, tmp_path: Path) -> None:
    stored = holdout.run_case(2, 1, ())  # the packet run only: six Quick Vegas flows
    # its stored scenario file says Vegas: another scenario than the seed's
    stored["scenario_toml"] = stored["scenario_toml"].replace("quick-vegas", "vegas")
    path, _ = _rerun_files(holdout, tmp_path, stored)
    with pytest.raises(SystemExit, match="the draw changed since the file was written"):
        holdout.main(["--rerun", path, "--jobs", "1"])
    # a file written before runs stored their scenario file: the draw's own choices
    del stored["scenario_toml"]
    stored["spec"] = {**stored["spec"], "laws": ["vegas"]}
    path, _ = _rerun_files(holdout, tmp_path, stored)
    with pytest.raises(SystemExit, match="the draw changed since the file was written"):
        holdout.main(["--rerun", path, "--jobs", "1"])
    with pytest.raises(SystemExit, match=r"--rerun: .* is not a hold-out --json output"):
        holdout.main(["--rerun", str(tmp_path / "missing.json"), "--jobs", "1"])


def test_rerun_with_classical_runs_it_on_a_file_stored_without_it(
    holdout: Any, tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    import copy
    import json

    # --classical adds the engine to the module's list: put the list back afterwards
    monkeypatch.setattr(holdout, "FLUID_ENGINES", holdout.FLUID_ENGINES)
    # scenario 16 of seed 1: two Vegas flows (a law the classical model has), RED, 5 s
    fresh = holdout.run_case(16, 1, (*holdout.FLUID_ENGINES, holdout.CLASSICAL))
    assert fresh["engines"][holdout.CLASSICAL]["status"] == "ok"
    stored = copy.deepcopy(fresh)
    del stored["engines"][holdout.CLASSICAL]
    # written before runs stored their scenario file, with the description and spec of
    # then (from the drawn propagation RTT and buffer multiple): the draw's own choices match
    stored.pop("scenario_toml", None)
    stored["describe"] = "#16 vegas x2, 17.2 Mb/s, RTT 5.58 ms, buf 73 pkts (6.1 BDP), RED, 5 s"
    old = {"rtt_ms": [5.579], "rtt_max_ms": 5.5787, "bdp_pkts": 11.979, "buffer_bdp": 6.0617}
    stored["spec"] = {**stored["spec"], **old, "buffer": "73 pkts (6.1 BDP)"}
    path, out = _rerun_files(holdout, tmp_path, stored)
    assert holdout.main(["--rerun", path, "--classical", "--jobs", "1", "--json", out]) == 0
    printed = capsys.readouterr().out
    verdicts = [c["verdict"] for c in holdout.compare(fresh, holdout.CLASSICAL)]
    counted = sum(v in ("agree", "differ") for v in verdicts)
    assert counted == 4  # two flows, no change: no convergence time (module docstring)
    assert f"{holdout.CLASSICAL} not run -> {verdicts.count('agree')}/{counted}" in printed
    again = json.loads(Path(out).read_text())["runs"][0]
    # judged against the stored packet run; the run's record is this tree's draw's
    assert again["engines"]["packet"] == json.loads(json.dumps(fresh["engines"]["packet"]))
    classical = fresh["engines"][holdout.CLASSICAL]["values"]
    assert again["engines"][holdout.CLASSICAL]["values"] == json.loads(json.dumps(classical))
    assert again["describe"] == fresh["describe"] and again["spec"] == fresh["spec"]
    assert again["scenario_toml"] == fresh["scenario_toml"]


def test_a_lone_flows_share_and_the_convergence_of_no_change_are_not_compared(
    holdout: Any,
) -> None:
    one = {
        "throughput share": [1.0],
        "settled window": [100.0],
        "time to equilibrium": 10.0,
        "convergence time": [],
    }
    run = _run(one, one)
    run["spec"].update(flows=1, bdp_per_flow_pkts=50.0, buffer_bdp=1.0)
    run["spec"].update(red=False, unequal_rtt=False, cbr_share=0.0, joins=0, leaves=0)
    run.update(index=0, law="vegas", mixed=False, describe="#0 vegas x1")
    # the three other quantities agree (equal values); the share of one flow is 1 in every
    # engine and there is no change: nothing to compare, no verdict
    assert _verdicts(holdout, run) == {
        "settled window": "agree",
        "utilization": "agree",
        "time to equilibrium": "agree",
    }
    s = holdout.summarise_runs([run])
    assert s["counts"][("rounds", "*", "*")] == [3, 0, 0, 0]
    assert ("rounds", "throughput share", "*") not in s["counts"]
    assert ("rounds", "convergence time", "*") not in s["counts"]
    # capped, the same: no "capped" convergence time where there is none
    run["spec"]["capped"] = True
    assert _verdicts(holdout, run) == {
        "settled window": "capped",
        "utilization": "agree",
        "time to equilibrium": "capped",
    }
    # "neither": a change after which neither run settled; one run settled: differs
    run["spec"]["capped"] = False
    run["engines"]["packet"]["values"]["convergence time"] = [None, None]
    run["engines"]["rounds"]["values"]["convergence time"] = [None, None]
    assert _verdicts(holdout, run)["convergence time"] == "neither"
    run["engines"]["rounds"]["values"]["convergence time"] = [None, 2.0]
    assert _verdicts(holdout, run)["convergence time"] == "differ"
    # the tables say what is not compared
    text = holdout.report([run], holdout.summarise_runs([run]))
    assert "not compared, in no count (nothing to compare): the throughput share where" in text
    assert "'neither': no flow (or change) has the value in either run" in text


def _base_rtt_by_hand(sc: Any, flow: Any) -> float:
    """Quick Vegas paper eq. 5 written out: each link's delay both ways, a data packet's
    transmission on the forward links, an ACK's on the reverse ones."""
    fwd = sum(sc.link(n).delay_s + 8.0 * sc.packet_size_bytes / sc.link(n).rate_bps
              for n in flow.forward)  # fmt: skip
    rev = sum(sc.link(n).delay_s + 8.0 * sc.ack_size_bytes / sc.link(n).rate_bps
              for n in flow.reverse)  # fmt: skip
    return fwd + rev


def test_the_description_and_classes_read_the_built_scenario(holdout: Any) -> None:
    # seed 89's scenario 3: 43 TCP-Ho flows on 1.2 Mb/s, a propagation RTT of 6.05 ms and
    # a 2-packet buffer, as drawn when these were described from the drawn values (the
    # draw must not change)
    case = holdout.draw_case(3, 89)
    sc = case.scenario
    assert len(sc.flows) == 43 and {f.algorithm for f in sc.flows} == {"tcp-ho"}
    propagation = sum(2.0 * sc.link(n).delay_s for n in sc.flows[0].forward)
    assert propagation == pytest.approx(6.05e-3, abs=0.005e-3)
    assert sc.link("R1-R2").buffer_pkts == 2.0
    # the base RTT adds a packet's transmission at 1.2 Mb/s, 6.7 ms, and more
    rtt = _base_rtt_by_hand(sc, sc.flows[0])
    assert rtt == pytest.approx(14.4e-3, abs=0.05e-3)
    mu = sc.link("R1-R2").rate_bps / 8000.0
    assert f"RTT {rtt * 1e3:.3g} ms" in holdout.describe(case)
    assert f"buf 2 pkts ({2.0 / (mu * rtt):.2g} BDP)" in holdout.describe(case)
    assert case.spec["buffer_bdp"] == pytest.approx(2.0 / (mu * rtt), rel=1e-9)
    assert case.spec["bdp_per_flow_pkts"] == pytest.approx(mu * rtt / 43, rel=1e-9)
    # seed 88's scenario 6: four Reno flows on 1.61 Mb/s, 77.1 ms drawn, 83.3 ms base: a
    # BDP of 3.9 packets a flow over the drawn RTT, 4.2 over the base RTT, which classes it
    # with the flows that have windows
    case = holdout.draw_case(6, 88)
    sc = case.scenario
    mu = sc.link("R1-R2").rate_bps / 8000.0
    propagation = sum(2.0 * sc.link(n).delay_s for n in sc.flows[0].forward)
    rtt = _base_rtt_by_hand(sc, sc.flows[0])
    assert (propagation, rtt) == (
        pytest.approx(77.1e-3, abs=0.05e-3),
        pytest.approx(83.3e-3, abs=0.05e-3),
    )
    assert mu * propagation / 4 < 4.0 <= mu * rtt / 4
    assert holdout.scenario_class(case.spec) == holdout.CLASSES[1]
    assert "BDP/flow 4-20 pkts" in holdout.regimes(case.spec, False)
    # unequal RTTs: every flow's base RTT, the BDP over the shortest
    case = holdout.draw_case(13, 1)
    sc = case.scenario
    rtts = [_base_rtt_by_hand(sc, f) for f in sc.flows]
    assert case.spec["rtt_max_ms"] == pytest.approx(max(rtts) * 1e3, rel=1e-9)
    mu = sc.link("R1-R2").rate_bps / 8000.0
    assert case.spec["bdp_pkts"] == pytest.approx(mu * min(rtts), rel=1e-9)


def test_a_stored_run_carries_its_scenario_file_which_loads_back_to_it(
    holdout: Any, tmp_path: Path, capsys: Any
) -> None:
    import json

    from tcpfluid import load_scenario
    from tcpfluid.cli import main as cli

    # scenarios with and without a buffer limit, RED, CBR, joins and leaves, unequal RTTs
    for seed, index in ((1, 2), (1, 13), (1, 16), (1, 51), (88, 6), (89, 3)):
        case = holdout.draw_case(index, seed)
        stored = json.loads(json.dumps(holdout._finite(holdout.run_record(case))))
        path = tmp_path / f"s{seed}-{index}.toml"
        path.write_text(stored["scenario_toml"])
        back = load_scenario(path)
        assert back == case.scenario
        assert back.to_dict() == case.scenario.to_dict()
    # the packet run again from the stored file, on the command line (docs/fluid-promises.md)
    run = holdout.run_case(16, 1, ())
    path = tmp_path / "case.toml"
    path.write_text(run["scenario_toml"])
    assert cli(["simulate", str(path), "-e", "packet", "--seed", "1", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    packet = run["engines"]["packet"]["values"]
    assert again["utilization"] == packet["utilization"]
    thr = again["throughput_pps"]
    assert [x / sum(thr) for x in thr] == pytest.approx(packet["throughput share"], rel=1e-12)
