"""``tcpfluid predict SCENARIO``: per-flow predictions, their sources, --check, errors.

Expected values: μd/n + the law's target backlog computed here from the scenario's links
(the Quick Vegas paper's eq. 5), and the round model run separately through tcpfluid.simulate.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcpfluid.cli import main
from tcpfluid.engines import simulate
from tcpfluid.scenarios import build_scenario

SIX = ["--set", "flows=6", "--set", "duration=60s", "--set", "active=50s"]
SIX += ["--set", "bandwidth=100Mbps"]


def _mu_d(bandwidth_bps: float, rtt_s: float) -> tuple[float, float]:
    """μ (pkt/s) and d (s) of the dumbbell by hand: propagation plus the transmission of a
    1000-byte packet and a 40-byte ACK on the bottleneck and two 1 Gb/s access links."""
    d = rtt_s + (8000.0 + 320.0) / bandwidth_bps + 2 * (8000.0 + 320.0) / 1e9
    return bandwidth_bps / 8000.0, d


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["predict", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_many_flows_one_group_prints_per_flow_predictions(capsys) -> None:
    assert main(["predict", "qv-many-flows", "--set", "groups=1"]) == 0
    out = capsys.readouterr().out
    assert "S1-D1 .. S60-D60 (60 flows)" in out
    for alg in ("vegas", "quick-vegas", "tcp-ho"):
        assert f"algorithm: {alg}" in out
    assert "settled window (pkts)" in out and "closed form" in out


def test_group_started_together_settles_at_its_share(capsys) -> None:
    out = _json(
        capsys, "qv-many-flows", "-a", "quick-vegas", "--set", "groups=1", *SIX, "--check", "rounds"
    )
    (pred,) = out["predictions"]
    assert pred["algorithm"] == "quick-vegas" and len(pred["flows"]) == 6
    mu, d = _mu_d(100e6, 0.1)
    for flow in pred["flows"]:
        assert flow["sources"]["settled_window"] == "closed form"
        # Quick Vegas moves the backlog to (alpha + beta)/2 = 3 packets: mu*d/6 + 3
        assert flow["settled_window"] == pytest.approx(mu * d / 6 + 3.0, rel=1e-9)
    # the round model, another layer, settles with the flows' mean window inside Quick
    # Vegas's band [mu d/6 + 2, + 4]: the closed form fixes the windows' sum (the pipe plus
    # six backlogs), not how the flows share the pipe. Flows started together part by their
    # places in each round's train (docs/round-model.md, "Places in every phase"): the
    # packet simulator's settled windows are 205.4-216.3 packets (mean 211.8), the round
    # model's 205.6-216.8 (mean 211.9), against mu d/6 + 3 = 211.5.
    diffs = [x for x in pred["check"]["differences"] if x["quantity"] == "settled_window"]
    assert len(diffs) == 6
    assert abs(sum(x["difference"] for x in diffs) / 6) <= 1.0
    assert out["change_kinds"] == ["flow-leave"] and out["change_times_s"] == [50.0]


def test_a_joining_group_comes_from_the_round_model(capsys) -> None:
    sets = {
        "flows": 4,
        "groups": 2,
        "group_interval": "20s",
        "active": "40s",
        "duration": "60s",
        "bandwidth": "10Mbps",
        "buffer": 200,
    }
    argv = [x for k, v in sets.items() for x in ("--set", f"{k}={v}")]
    out = _json(capsys, "qv-many-flows", "-a", "vegas", *argv)
    flows = out["predictions"][0]["flows"]
    assert [f["sources"]["settled_window"] for f in flows] == [
        "closed form",
        "closed form",
        "round model",
        "round model",
    ]
    assert "joins 2 flow(s) already running" in flows[2]["notes"]["settled_window"]
    res = simulate(build_scenario("qv-many-flows", **sets).with_algorithm("vegas"), "rounds")
    assert flows[2]["settled_window"] == pytest.approx(res.summary.flows[2].settled_window_pkts)
    mu, d = _mu_d(10e6, 0.1)
    assert flows[0]["settled_window"] == pytest.approx(mu * d / 2 + 2.0, rel=1e-9)
    # the join at 20 s is a change: the first group's convergence after it, from the
    # round model (other flows join), the second group's convergence n/a (joins at it)
    assert out["change_times_s"] == [20.0, 40.0]
    assert flows[0]["sources"]["convergence_times_s"][0] == "round model"


def test_convergence_after_an_increase_uses_eq_11(capsys) -> None:
    # qv-basic: CBR takes half the bottleneck from 80 s to 160 s; after it stops Vegas
    # climbs one packet per round from mu d/2 + 2 to mu d + 2 (the Quick Vegas paper's eq. 11)
    out = _json(capsys, "qv-basic", "-a", "vegas")
    (flow,) = out["predictions"][0]["flows"]
    assert flow["sources"]["convergence_times_s"] == ["round model", "closed form"]
    mu, d = _mu_d(50e6, 0.1)
    rounds = (mu * d + 2) - (mu * d / 2 + 2)
    # settled (tcpfluid.metrics.settling) once within max(1, 2 %) of the new window
    band = max(1.0, 0.02 * (mu * d + 2))
    assert flow["convergence_times_s"][1] == pytest.approx(-(-(rounds - band) // 1) * d, rel=1e-9)


def test_scenario_mode_errors(capsys) -> None:
    assert main(["predict", "qv-basic", "--bandwidth", "10Mbps"]) == 2
    assert "--set bandwidth=" in capsys.readouterr().err
    assert main(["predict", "qv-basic", "--beta", "6"]) == 2
    assert "--set beta=6" in capsys.readouterr().err
    assert main(["predict", "qv-basic", "-a", "vegaz"]) == 2
    assert "vegaz" in capsys.readouterr().err
    assert main(["predict", "--check", "packet", "--bdp", "100", "--rtt", "1"]) == 2
    assert "need a SCENARIO" in capsys.readouterr().err
    assert main(["predict", "no-such-scenario"]) == 2
    assert "unknown scenario" in capsys.readouterr().err


def test_a_shipped_example_outside_the_closed_forms_domain_is_answered_by_the_round_model(
    capsys,
) -> None:
    # examples/scenarios/ho-friendliness.toml: 20 flows share 10 Mb/s x 1 ms, 0.43 packet of
    # path each, below slow start's critical window: the command answers from the round
    # model, flow by flow, and says why (it used to stop with the closed form's error)
    example = Path(__file__).parents[2] / "examples" / "scenarios" / "ho-friendliness.toml"
    out = _json(capsys, str(example), "-a", "vegas")
    (pred,) = out["predictions"]
    assert len(pred["flows"]) == 20
    sc = build_scenario("ho-friendliness").with_algorithm("vegas")
    rounds = simulate(sc, "rounds").summary
    for flow, ref in zip(pred["flows"], rounds.flows, strict=True):
        assert flow["sources"]["settled_window"] == "round model"
        assert flow["settled_window"] == ref.settled_window_pkts
