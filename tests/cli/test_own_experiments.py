"""An analyst's own experiment from the command line: scenario files, algorithm mixes,
per-flow parameters, machine-readable errors, ``python -m tcpfluid``, one ``--jobs`` rule,
access links that stay faster than a bottleneck the user sets, one Numba cache rule."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tcpfluid.cli import build_parser, main
from tcpfluid.scenarios import SCENARIOS, bottleneck, build_scenario, load_scenario
from tcpfluid.scenarios.mix import with_flow_params, with_mix

ROOT = Path(__file__).resolve().parents[2]

MIXED = """
name = "two-vegas-one-reno"
duration = "30s"

[[link]]
name = "core"
rate = "10Mbps"
delay = "10ms"
buffer = 60

[[flow]]
algorithm = "vegas"
count = 2
rtt = "40ms"

[[flow]]
algorithm = "reno"
rtt = "40ms"
"""


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.toml"
    path.write_text(MIXED, encoding="utf-8")
    return path


def _json(capsys: Any, *argv: str) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("engine", ["ode", "packet"])
def test_a_file_with_its_own_mix_runs_as_written(capsys: Any, mixed: Path, engine: str) -> None:
    out = _json(capsys, "simulate", str(mixed), "-e", engine, "-q")
    assert out["algorithm"] == "vegas:2,reno:1" and out["engine"] == engine
    assert out["flow_names"] == ["vegas-1", "vegas-2", "reno-1"]
    # Reno fills the 60-packet buffer until it loses; each Vegas flow keeps only alpha..beta
    # packets queued: Reno takes more than either Vegas flow (Mo et al., and Tsang's thesis
    # ch. 3 on Vegas against Reno)
    thr = out["throughput_pps"]
    assert thr[2] > max(thr[0], thr[1])


def test_a_file_with_a_mix_runs_on_the_round_engine(capsys: Any, mixed: Path) -> None:
    out = _json(capsys, "simulate", str(mixed), "-e", "rounds")
    assert out["algorithm"] == "vegas:2,reno:1"


def _error(capsys: Any, *argv: str) -> str:
    """The message of a refused command, from its ``--json`` error on stdout."""
    assert main([*argv, "--json"]) == 2
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert out["exit_status"] == 2
    message: str = out["error"]
    return message


def test_algorithm_mixes_on_named_scenarios(capsys: Any) -> None:
    sc = with_mix(build_scenario("qv-basic", flows=3), "vegas:2,reno:1")
    assert [f.algorithm for f in sc.flows] == ["vegas", "vegas", "reno"]
    # the last entry may take the rest; a single name still means every flow
    sc = with_mix(build_scenario("qv-basic", flows=4), "reno:1,vegas")
    assert [f.algorithm for f in sc.flows] == ["reno", "vegas", "vegas", "vegas"]
    sc = with_mix(build_scenario("qv-basic", flows=3), "vegas")
    assert {f.algorithm for f in sc.flows} == {"vegas"}
    # the command gives the mix to the flows in order: on qv-basic's unlimited buffer the
    # Reno flow never loses and keeps growing, each Vegas flow keeps alpha..beta packets
    # queued, so the Reno flow (the first) takes more than any Vegas flow
    out = _json(capsys, "simulate", "qv-basic", "-a", "reno:1,vegas", "--set", "flows=4",
                "--set", "duration=5s")  # fmt: skip
    assert out["algorithm"] == "reno:1,vegas:3"  # the rest, counted
    thr = out["throughput_pps"]
    assert len(thr) == 4 and thr[0] > max(thr[1:])
    base = ["simulate", "qv-basic", "--set", "duration=0.5s", "-a"]
    msg = _error(capsys, *base, "vegas:8,reno:2")
    assert re.search(r"names 10 flows.*has 1.*--set flows=10", msg), msg
    assert "needs a count" in _error(capsys, *base, "vegas,reno:2")
    assert "unknown algorithm 'vegaz'" in _error(capsys, *base, "vegaz:1")


def test_per_flow_parameters(capsys: Any, mixed: Path) -> None:
    # the library's selectors: an algorithm, a range of positions from 1, a flow's name
    sc = with_flow_params(load_scenario(mixed), "vegas", {"alpha": 1})
    sc = with_flow_params(sc, "vegas", {"beta": 3})
    assert [dict(f.params) for f in sc.flows] == [{"alpha": 1, "beta": 3}] * 2 + [{}]
    for selector in ("2-2", "vegas-2"):
        sc = with_flow_params(load_scenario(mixed), selector, {"beta": 6})
        assert [dict(f.params) for f in sc.flows] == [{}, {"beta": 6}, {}]
    # the command's --param items run as the file that gives the Vegas flows those
    # parameters itself (the same summary), and not as the file without them (Vegas's
    # own are alpha = 2, beta = 4)
    run = ["simulate", "-e", "rounds", "--set", "duration=20s"]
    plain = _json(capsys, *run, str(mixed))
    by_option = _json(capsys, *run, str(mixed), "--param", "vegas:alpha=1", "--param",
                      "vegas:beta=3")  # fmt: skip
    own = mixed.with_name("own-params.toml")
    vegas = 'algorithm = "vegas"\n'
    own.write_text(MIXED.replace(vegas, vegas + "params = { alpha = 1, beta = 3 }\n"))
    by_file = _json(capsys, *run, str(own))
    assert by_option["scenario"] != by_file["scenario"]
    del by_option["scenario"], by_file["scenario"]
    assert by_option == by_file
    assert by_option["throughput_pps"] != plain["throughput_pps"]
    # one flow of a group, by its position or by its name: the same run, not the plain one
    by_range = _json(capsys, *run, str(mixed), "--param", "2-2:beta=6")
    by_name = _json(capsys, *run, str(mixed), "--param", "vegas-2:beta=6")
    assert by_range == by_name
    thr, was = by_range["throughput_pps"], plain["throughput_pps"]
    assert thr[1] != was[1]
    base = ["simulate", str(mixed), "--set", "duration=0.5s"]
    assert "unknown parameter 'alpha' for algorithm 'reno'" in _error(
        capsys, *base, "--param", "alpha=1"
    )  # Reno has no alpha
    assert "names no flow" in _error(capsys, *base, "--param", "fast:alpha=1")
    # --set alpha applies to every flow: with a mix including Reno, that is an error that
    # says how to give it to some flows
    msg = _error(capsys, "simulate", "qv-basic", "-a", "vegas:1,reno:1", "--set", "flows=2",
                 "--set", "alpha=1", "--set", "duration=0.5s")  # fmt: skip
    assert "--param" in msg


def test_predict_a_file(capsys: Any, mixed: Path) -> None:
    out = _json(capsys, "predict", str(mixed))
    (pred,) = out["predictions"]
    assert pred["algorithm"] == "vegas:2,reno:1"
    assert [f["name"] for f in pred["flows"]] == ["vegas-1", "vegas-2", "reno-1"]


def test_sweep_over_a_file(capsys: Any, mixed: Path, tmp_path: Path) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text(
        'engine = "rounds"\nscenario = "mixed.toml"\nalgorithm = "vegas"\n'
        'metrics = ["utilization"]\n[grid]\nbandwidth = ["5Mbps", "10Mbps"]\n',
        encoding="utf-8",
    )
    out = tmp_path / "s.csv"
    assert main(["sweep", str(config), "--out", str(out), "-q"]) == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 3 and all(",ok," in r for r in rows[1:])


def test_scenario_show_toml_loads_back(capsys: Any, tmp_path: Path) -> None:
    assert main(["scenario", "show", "thesis-two-flow", "--set", "queue=red", "--toml"]) == 0
    path = tmp_path / "t.toml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    assert load_scenario(path) == build_scenario("thesis-two-flow", queue="red")


def test_scenario_show_writes_a_mix_that_simulate_runs_as_written(
    capsys: Any, tmp_path: Path
) -> None:
    # the file written with -a/--param is the scenario simulate builds with the same options
    opts = ["--set", "flows=3", "-a", "vegas:2,reno:1", "--param", "vegas:alpha=1"]
    assert main(["scenario", "show", "qv-basic", *opts, "--toml"]) == 0
    path = tmp_path / "mix.toml"
    path.write_text(capsys.readouterr().out, encoding="utf-8")
    expected = with_flow_params(
        with_mix(build_scenario("qv-basic", flows="3"), "vegas:2,reno:1"), "vegas", {"alpha": 1}
    )
    assert load_scenario(path) == expected
    assert [f.algorithm for f in load_scenario(path).flows] == ["vegas", "vegas", "reno"]


def test_simulate_help_lists_no_set_key_that_set_refuses(capsys: Any) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    listed = re.findall(r"parameters \(--set\): (.*)", capsys.readouterr().out)
    assert listed and not any("algorithm" in keys.split(", ") for keys in listed)
    assert main(["simulate", "qv-basic", "--set", "algorithm=vegas"]) == 2
    assert "--algorithm" in capsys.readouterr().err


def test_a_mix_that_does_not_fit_the_flows_names_algorithm_in_json(capsys: Any) -> None:
    args = ["simulate", "qv-basic", "-a", "vegas:8,reno:2", "--set", "flows=5", "--json"]
    assert main(args) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["parameter"] == "algorithm" and "names 10 flows" in out["error"]


def test_engine_names_come_from_tcpfluid_engines(capsys: Any) -> None:
    from tcpfluid.engines import ENGINES

    assert main(["simulate", "qv-basic", "-a", "vegas", "-e", "warp"]) == 2
    err = capsys.readouterr().err
    assert all(name in err for name in ENGINES)


def test_json_errors_are_json_on_stdout(capsys: Any) -> None:
    assert main(["simulate", "qv-basic", "-a", "vegas", "--set", "buffer=-3", "--json"]) == 2
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["parameter"] == "buffer" and "buffer" in out["error"]
    assert out["exit_status"] == 2 and captured.err == ""
    # a usage error, too
    assert main(["predict", "--bandwidth", "10Mbps", "--jobs", "3", "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["parameter"] == "--jobs" and "unrecognized" in out["error"]
    # a run too long for the packet simulator names the duration
    sets = ["--set", "duration=1e300s", "-e", "packet", "--json"]
    assert main(["simulate", "qv-basic", "-a", "vegas", *sets]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["parameter"] == "duration" and "duration" in out["error"]
    # a per-flow option of the wrong length (qv-basic has one flow)
    opts = ["-e", "packet", "--option", "delayed_ack=true,false", "--json"]
    assert main(["simulate", "qv-basic", "-a", "vegas", *opts]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["parameter"] == "delayed_ack" and "one True or False per flow" in out["error"]
    # without --json: one line on stderr, as before
    assert main(["simulate", "qv-basic", "-a", "vegas", "--set", "buffer=-3"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("tcpfluid simulate: error: buffer")


def test_predict_and_simulate_share_their_key_names(capsys: Any) -> None:
    sim = _json(capsys, "simulate", "qv-basic", "-a", "vegas", "--set", "cbr=none",
                "--set", "duration=80s")  # fmt: skip
    (pred,) = _json(capsys, "predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt",
                    "100ms")["predictions"]  # fmt: skip
    shared = {"ss_exit_window", "ss_exit_window_pkts", "ss_exit_time_s", "ss_exit_round",
              "settled_window", "settled_window_pkts", "equilibrium_window_pkts",
              "time_to_equilibrium_s"}  # fmt: skip
    assert shared <= set(sim) and shared <= set(pred)
    # the same meaning: settled within 2 % of each other (the predicted path's d is
    # 100 ms, the scenario's 100.17 ms with transmission times)
    assert pred["time_to_equilibrium_s"] == pytest.approx(sim["time_to_equilibrium_s"], rel=0.02)
    assert sim["ss_exit_window_pkts"] == sim["ss_exit_window"] == pred["ss_exit_window"] == 64


def test_python_dash_m_tcpfluid() -> None:
    res = subprocess.run(
        [sys.executable, "-m", "tcpfluid", "predict", "-a", "vegas", "--bdp", "625", "--rtt",
         "0.1", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    (pred,) = json.loads(res.stdout)["predictions"]
    assert pred["ss_exit_window"] == 64  # the Quick Vegas paper's Fig. 1


def test_one_jobs_default_for_report_and_sweep() -> None:
    from tcpfluid.cli.report import parse_jobs as report_jobs
    from tcpfluid.sweep.execution import pool_size, usable_cpus

    parser = build_parser()
    rep = parser.parse_args(["report"])
    swp = parser.parse_args(["sweep", "x.toml", "--out", "x.csv"])
    assert rep.jobs is None and swp.jobs is None
    assert report_jobs(None) == report_jobs("0") == usable_cpus()
    # the sweep caps the same default at its points
    assert pool_size(None, 1) == 1 and pool_size(None, 10**6) == usable_cpus()
    with pytest.raises(ValueError, match="--jobs"):
        report_jobs("-2")


WITH_ACCESS = [n for n, s in SCENARIOS.items() if "access_bandwidth" in s.defaults]


@pytest.mark.parametrize("name", WITH_ACCESS)
def test_access_links_stay_faster_than_the_bottleneck_a_user_sets(name: str) -> None:
    from tcpfluid import units

    acc = build_scenario(name).params["access_bandwidth"]
    fast = 2 * units.bits_per_second(acc)
    sc = build_scenario(name, bandwidth=f"{fast!r}bps")  # a bare number has no unit
    link = bottleneck(sc)
    assert link is not None and link.rate_bps == fast
    assert any("access_bandwidth" in n for n in sc.notes)
    # the user's own access rate is kept
    sc = build_scenario(name, bandwidth=f"{fast!r}bps", access_bandwidth=acc)
    assert not any("access_bandwidth" in n for n in sc.notes)


def test_the_bottleneck_trap_of_the_documents_scenario(capsys: Any) -> None:
    # 1 Gb/s on qv-basic (whose access links are 1 Gb/s) with a 100-packet buffer: the
    # queue builds where the user set the buffer, and the error-free run names only that
    out = _json(
        capsys, "simulate", "qv-basic", "-a", "vegas", "-e", "ode",
        "--set", "bandwidth=1Gbps", "--set", "buffer=100", "--set", "duration=90s",
    )  # fmt: skip
    assert out["bottleneck"] == "R1-R2"
    assert len(out["change_times_s"]) == 1  # the CBR started at 80 s crosses it


def test_dev_extra_runs_the_notebooks() -> None:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        extras = tomllib.load(fh)["project"]["optional-dependencies"]
    dev = {r.split(">")[0].split("[")[0] for r in extras["dev"]}
    assert {r.split(">")[0].split("[")[0] for r in extras["notebooks"]} <= dev
