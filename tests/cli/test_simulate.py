"""``tcpfluid simulate``: the public JSON keys, overrides, the human table and every error.

Numbers asserted here come from hand computations (Vegas's equilibrium band mu d + [α, β]
of the Quick Vegas paper eq 2 / the asymmetric-network paper eq 4; the CBR halving) or from
the API layer the command wraps (same result through both doors).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from tcpfluid.cli import build_parser, main
from tcpfluid.cli.simulate import ENGINES, PLANNED_ENGINES, parse_sets
from tcpfluid.engines import simulate
from tcpfluid.fluid import simulate_scenario_rounds
from tcpfluid.results import PUBLIC_KEYS
from tcpfluid.scenarios import build_scenario


def run_json(capsys: Any, *argv: str) -> dict[str, Any]:
    assert main(["simulate", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_has_the_public_keys_and_hand_checked_values(capsys: Any) -> None:
    out = run_json(capsys, "qv-basic", "--algorithm", "vegas", "--set", "duration=100s")
    assert set(PUBLIC_KEYS) <= set(out)
    assert (out["scenario"], out["algorithm"], out["engine"]) == ("qv-basic", "vegas", "rounds")
    # mu d of the §5.1 path by eq (5): 6250 * (0.1 + 1.04 * (2/125000 + 1/6250)) = 626.144
    bdp = 6250 * (0.1 + 1.04 * (2 / 125000 + 1 / 6250))
    assert bdp + 2 - 1e-9 <= out["settled_window"] <= bdp + 4 + 1e-9
    assert out["ss_exit_window"] == 64
    # one change (the CBR starts at 80 s, the run ends at 100 s before it stops)
    assert len(out["convergence_times_s"]) == 1
    assert len(out["throughput_pps"]) == 1 and out["jain_index"] == 1.0


def test_same_numbers_as_the_api(capsys: Any) -> None:
    out = run_json(
        capsys, "qv-basic", "-a", "quick-vegas", "--set", "cbr=none", "--set", "duration=30"
    )
    sc = build_scenario("qv-basic", cbr="none", duration="30").with_algorithm("quick-vegas")
    api = simulate_scenario_rounds(sc).summary.to_dict()
    for key in PUBLIC_KEYS:
        assert out[key] == api[key]
    assert out["convergence_times_s"] == []


def test_overrides_reach_the_law_and_the_path(capsys: Any) -> None:
    # alpha = beta = 1 and a 10 Mb/s x 200 ms path: mu = 1250, mu d = 1250 * d;
    # Vegas settles with exactly one packet queued (eq 2 with α = β).
    out = run_json(
        capsys,
        "qv-basic", "-a", "vegas",
        "--set", "bandwidth=10Mbps", "--set", "rtt=200ms", "--set", "alpha=1",
        "--set", "beta=1", "--set", "cbr=none", "--set", "duration=400s",
    )  # fmt: skip
    d = 0.2 + 1.04 * (2 * 8000 / 1e9 + 8000 / 10e6)
    assert out["settled_window"] == pytest.approx(1250 * d + 1, abs=1.0)
    assert out["params"]["alpha"] == "1"


def test_cbr_halves_the_available_rate(capsys: Any) -> None:
    # with the 25 Mb/s CBR from 80 s to 160 s and a run ending at 160 s, the flow's mean
    # throughput lies between the halved (3125) and the full (6250) rate
    out = run_json(capsys, "qv-basic", "-a", "fast", "--set", "duration=160s")
    assert 3125 < out["throughput_pps"][0] < 6250
    assert out["utilization"] > 0.9


def test_multi_flow_scenario(capsys: Any) -> None:
    out = run_json(capsys, "qv-basic", "-a", "vegas", "--set", "flows=3", "--set", "duration=60s")
    assert len(out["throughput_pps"]) == 3
    # the flows leave slow start in their order (the first at 64 packets, the others at 32:
    # docs/round-model.md, "Places in the burst"); the packet simulator's index on this
    # scenario is 0.9961
    assert out["jain_index"] == pytest.approx(0.9961, abs=0.002)


def test_human_table(capsys: Any) -> None:
    assert main(["simulate", "qv-basic", "-a", "vegas", "--set", "duration=20s"]) == 0
    text = capsys.readouterr().out
    assert "qv-basic / vegas / engine rounds" in text
    assert "slow-start exit window (pkts)" in text and "Jain's index" in text


def test_help_documents_every_option(capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["simulate", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in ("--algorithm", "--engine", "--set", "--rtt-model", "--json", "qv-basic"):
        assert option in text
    for key in ("bandwidth", "rtt", "buffer", "duration", "cbr", "alpha", "beta", "gamma"):
        assert key in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nope", "-a", "vegas"], "unknown scenario 'nope'"),
        (["qv-basic", "-a", "tahoe"], "unknown algorithm 'tahoe'"),
        (
            ["qv-basic", "-a", "vegas", "--set", "alpha=5", "--set", "beta=3"],
            "alpha must be <= beta",
        ),
        (["qv-basic", "-a", "vegas", "--set", "gamma=0"], "gamma must be > 0"),
        (["qv-basic", "-a", "vegas", "--set", "gamma=-1"], "gamma must be > 0"),
        (["qv-basic", "-a", "vegas", "--set", "bandwith=1Mbps"], "unknown parameter 'bandwith'"),
        (["qv-basic", "-a", "vegas", "--set", "alpha"], "--set expects KEY=VALUE"),
        (["qv-basic", "-a", "vegas", "--set", "duration=0"], "duration"),
        (["qv-basic", "-a", "vegas", "--set", "duration=-3s"], "duration"),
        (["qv-basic", "-a", "vegas", "--set", "bandwidth=fast"], "bandwidth"),
        (["qv-basic", "-a", "vegas", "--set", "cbr=60Mbps"], "sum to less than its rate"),
        (["qv-basic", "-a", "reno", "--set", "gamma=1"], "unknown parameter 'gamma'"),
        (["qv-basic", "-a", "vegas", "-e", "warp"], "unknown engine 'warp'"),
        (["qv-basic", "-a", "vegas", "--set", "algorithm=reno"], "use --algorithm"),
        (
            ["qv-basic", "-a", "vegas", "-e", "packet", "--rtt-model", "last"],
            "--rtt-model applies to the rounds engine only",
        ),
        (["qv-basic", "-a", "vegas", "--option", "feedback_rounds"], "--option expects KEY=VALUE"),
        (
            ["qv-basic", "-a", "vegas", "-e", "packet", "--option", "bogus=1"],
            "the packet engine has no option 'bogus'; its options: record_interval_s",
        ),
        (["qv-basic", "-a", "vegas", "-e", "packet", "--option", "seed=1"], "use --seed"),
        (["qv-basic", "-a", "vegas", "--option", "rtt_model=last"], "use --rtt-model"),
        (
            ["qv-basic", "-a", "vegas", "--option", "feedback_rounds=9"],
            "feedback_rounds must be in [0, 8], got 9",
        ),
        (
            ["qv-basic", "-a", "vegas", "-e", "packet", "--option", "send_overhead_s=-1"],
            "send_overhead_s must be >= 0, got -1",
        ),
        (
            [
                "qv-basic",
                "-a",
                "vegas",
                "--option",
                "feedback_rounds=1",
                "--option",
                "feedback_rounds=2",
            ],
            "--option feedback_rounds is given twice",
        ),
    ],
)
def test_errors_exit_2_with_a_message(capsys: Any, argv: list[str], message: str) -> None:
    assert main(["simulate", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcpfluid simulate: error:")
    assert message in err


def test_an_unknown_engine_is_refused_naming_the_option_and_the_engines(capsys: Any) -> None:
    # every planned engine is available: a name outside them is refused, listing them
    assert set(PLANNED_ENGINES) <= set(ENGINES)
    assert main(["simulate", "qv-basic", "-a", "vegas", "-e", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert "--engine" in err and "'nonsense'" in err
    assert all(name in err for name in ENGINES)


def test_missing_algorithm_is_an_error_naming_the_option(capsys: Any) -> None:
    # a named scenario's flows have no algorithm: --algorithm is needed (a scenario file
    # may name its own)
    assert main(["simulate", "qv-basic"]) == 2
    assert "--algorithm" in capsys.readouterr().err


def test_parse_sets() -> None:
    assert parse_sets(["a=1", " b = 2Mbps "]) == {"a": "1", "b": "2Mbps"}
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_sets(["=3"])
    assert math.isclose(float(parse_sets(["x=0.5"])["x"]), 0.5)


def test_the_table_shows_every_flow_and_quiet_is_accepted(capsys: Any) -> None:
    argv = ["simulate", "qv-basic", "-a", "vegas", "--set", "flows=3", "--set", "duration=20s"]
    assert main([*argv, "--quiet"]) == 0
    text = capsys.readouterr().out
    for name in ("S1-D1", "S2-D2", "S3-D3"):
        assert name in text
    assert "loss events" in text and "all flows settled at (s)" in text


def test_json_per_flow_keys_beside_the_flow_0_keys(capsys: Any) -> None:
    out = run_json(capsys, "qv-basic", "-a", "vegas", "--set", "flows=2", "--set", "duration=20s")
    assert out["flow_names"] == ["S1-D1", "S2-D2"]
    assert out["settled_window"] == out["settled_windows_pkts"][0]
    assert out["ss_exit_window"] == out["ss_exit_windows_pkts"][0] == 64
    assert out["losses_unit"] == "loss events" and out["notes"] == []


@pytest.mark.parametrize(
    ("engine", "options", "api"),
    [
        # delayed ACKs (RFC 1122) slow the packet senders' slow start: a different run
        ("packet", ["delayed_ack=true"], {"delayed_ack": True}),
        ("packet", ["fast_recovery=reno", "send_overhead_s=0.0005"],
         {"fast_recovery": "reno", "send_overhead_s": 0.0005}),
        ("rounds", ["feedback_rounds=0", "ack_train=false"],
         {"feedback_rounds": 0, "ack_train": False}),
    ],
)  # fmt: skip
def test_engine_options_reach_the_engine_as_the_api_takes_them(
    capsys: Any, engine: str, options: list[str], api: dict[str, Any]
) -> None:
    sets = ["--set", "duration=5s", "--set", "cbr=none"]
    argv = ["qv-basic", "-a", "vegas", "-e", engine, *sets]
    out = run_json(capsys, *argv, *[w for o in options for w in ("--option", o)])
    plain = run_json(capsys, *argv)
    sc = build_scenario("qv-basic", duration="5s", cbr="none").with_algorithm("vegas")
    expected = simulate(sc, engine, **api).summary.to_dict()
    for key in PUBLIC_KEYS:
        assert out[key] == expected[key], key
    assert any(out[key] != plain[key] for key in PUBLIC_KEYS)  # the options changed the run
    assert out["engine_options"] == dict(o.split("=") for o in options)
    assert "engine_options" not in plain


def test_a_comma_list_is_one_value_per_flow(capsys: Any) -> None:
    argv = ["thesis-two-flow", "-a", "vegas", "-e", "packet", "--set", "duration=5s"]
    out = run_json(capsys, *argv, "--option", "delayed_ack=true,false")
    sc = build_scenario("thesis-two-flow", duration="5s").with_algorithm("vegas")
    expected = simulate(sc, "packet", delayed_ack=(True, False)).summary.to_dict()
    assert [out[k] for k in PUBLIC_KEYS] == [expected[k] for k in PUBLIC_KEYS]
