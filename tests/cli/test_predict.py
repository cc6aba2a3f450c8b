"""``tcpfluid predict``: output against hand computations, and every error path."""

import json
import math
import pathlib
import subprocess
import sys

import pytest

from tcpfluid import Path
from tcpfluid.analytic.predict import predict
from tcpfluid.cli import build_parser, main


def run_json(capsys, *argv):
    assert main(["predict", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_vegas_50mbps_100ms_by_hand(capsys):
    out = run_json(capsys, "--algorithm", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms")
    (p,) = out["predictions"]
    bdp = 625.0
    assert out["path"]["bdp_pkts"] == pytest.approx(bdp)
    # eq. 6: (1 + sqrt(1 + 16*625))/2
    assert p["critical_window_pkts"] == pytest.approx((1 + math.sqrt(1 + 16 * bdp)) / 2)
    # Table 1: first doubled window >= 50.5 is 64, at index 10 (round 11); its RTTs are
    # read in round 12, the exit round (docs/analytic.md), which ends at 12 d
    assert p["ss_exit_round"] == 12 and p["ss_exit_window_pkts"] == 64
    assert p["ss_exit_time_s"] == pytest.approx(1.2)
    assert p["ca_start_window_pkts"] == 56
    # +1 per round from 56 to mu d + alpha = 627: 571 rounds, after the 12 of slow start
    assert p["rounds_to_target"] == 12 + 571
    # 583 rounds of d, but the last (window 626) carries one packet of standing queue:
    # 626/mu instead of d
    assert p["time_to_target_s"] == pytest.approx(58.2 + 626 / 6250.0)
    # settled (tcpfluid.metrics.settling): within max(1, 0.02 * 627) = 12.54 packets of 627
    # once the window reaches 627 - 12.54, after ceil(571 - 12.54) = 559 of those rounds
    assert p["rounds_to_equilibrium"] == 12 + 559
    assert p["time_to_equilibrium_s"] == pytest.approx(57.1)
    assert p["time_to_equilibrium_route"] == "closed form"
    # the spellings of tcpfluid simulate --json beside predict's own
    assert p["ss_exit_window"] == p["ss_exit_window_pkts"] == 64
    assert p["settled_window"] == p["equilibrium_window_pkts"] == 627
    assert p["equilibrium_band_pkts"] == pytest.approx([627.0, 629.0])


def test_side_by_side_and_bdp_input(capsys):
    out = run_json(
        capsys, "-a", "vegas,quick-vegas", "-a", "tcp-ho", "--bdp", "5000Kb", "--rtt", "0.1"
    )
    names = [p["algorithm"] for p in out["predictions"]]
    assert names == ["vegas", "quick-vegas", "tcp-ho"]
    qv, ho = out["predictions"][1], out["predictions"][2]
    assert qv["critical_window_pkts"] == pytest.approx((1 + math.sqrt(1 + 24 * 625)) / 2)
    assert ho["critical_window_pkts"] is None
    # TCP-Ho's conspicuous round for mu d = 625 (erratum E8): 3 + sqrt(4*625 - 7) = 52.93,
    # the next even round is 54
    assert ho["rounds_to_target"] == 54
    # Quick Vegas reaches its target in far fewer rounds than Vegas (the Quick Vegas paper,
    # §4.2)
    assert qv["rounds_to_target"] < out["predictions"][0]["rounds_to_target"] / 5
    # their settling times come from the round map, and say so
    assert qv["time_to_equilibrium_route"] == ho["time_to_equilibrium_route"] == "round model"


def test_bandwidth_and_bdp_give_the_rtt(capsys):
    out = run_json(capsys, "-a", "vegas", "--bandwidth", "50Mbps", "--bdp", "625")
    assert out["path"]["rtt_s"] == pytest.approx(0.1)


def test_human_table(capsys):
    assert main(["predict", "--bandwidth", "1.5Mbps", "--rtt", "100ms"]) == 0
    text = capsys.readouterr().out
    assert "critical window" in text and "quick-vegas" in text and "tcp-ho" in text
    # columns: each algorithm's name starts where its dashes start, in every table row
    head, rule = text.splitlines()[1:3]
    starts = [i for i in range(len(rule)) if rule[i] == "-" and (i == 0 or rule[i - 1] == " ")]
    assert [head.index(n) for n in ("vegas", "quick-vegas", "tcp-ho")] == starts[1:]
    assert all(line == line.rstrip() for line in text.splitlines())


def test_documents_comparison(capsys):
    rows = run_json(capsys, "--documents")["comparison"]
    analysis_vegas = [r for r in rows if r["method"] == "analysis" and r["algorithm"] == "vegas"]
    assert len(analysis_vegas) == 3
    # the corrected eq. 2 reproduces the paper's own analysis to one round (erratum E7)
    assert all(abs(r["rel_err"]) < 0.01 for r in analysis_vegas)
    fig1 = [r for r in rows if r["quantity"] == "ss_exit_window"]
    assert fig1[0]["tcpfluid"] == 64 and fig1[0]["document"] == 64


ENHANCED = ("-a", "enhanced-vegas", "--bdp", "100", "--rtt", "0.1")


@pytest.mark.parametrize(
    ("extra", "delta"),
    [((), 3.0), (("--delta", "2"), 2.0), (("--alpha", "5", "--beta", "5"), 5.0)],
)
def test_enhanced_vegas_reads_its_one_threshold(capsys, extra, delta):
    """Enhanced Vegas's δ (its law's default 3, Hasegawa et al.'s example; ``--delta``; or
    α = β given): the band of eq. 2 with α = β = δ is the one window μd + δ, and the
    parameters the output records say the δ that was used."""
    out = run_json(capsys, *ENHANCED, *extra)
    (p,) = out["predictions"]
    assert out["parameters"]["delta"] == delta
    assert p["alpha_pkts"] == p["beta_pkts"] == delta
    assert p["equilibrium_band_pkts"] == pytest.approx([100.0 + delta, 100.0 + delta])
    assert p["equilibrium_window_pkts"] == pytest.approx(100.0 + delta)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((*ENHANCED, "--alpha", "2"), "enhanced-vegas has one threshold, delta"),
        ((*ENHANCED, "--alpha", "2", "--beta", "4"), "got alpha=2.0, beta=4.0"),
        ((*ENHANCED, "--delta", "0"), "delta must be > 0"),
        (("-a", "vegas", "--bdp", "100", "--rtt", "0.1", "--delta", "2"), "--delta is Enhanced"),
        (("qv-basic", "-a", "enhanced-vegas", "--delta", "1"), "--set delta=1"),
    ],
)
def test_enhanced_vegas_threshold_refusals(capsys, argv, message):
    assert main(["predict", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_law_without_thresholds_given_reads_its_declared_defaults():
    """γ = 1, α = 2, β = 4: the Quick Vegas paper's §5 settings, the laws' defaults."""
    path = Path.from_bdp(100.0, 0.1)
    for algorithm in ("vegas", "quick-vegas"):
        bare = predict(algorithm, path)
        assert (bare.gamma_pkts, bare.alpha_pkts, bare.beta_pkts) == (1.0, 2.0, 4.0)
        assert bare == predict(algorithm, path, gamma=1.0, alpha=2.0, beta=4.0)
    assert predict("enhanced-vegas", path) == predict("enhanced-vegas", path, delta=3.0)
    with pytest.raises(ValueError, match=r"delta=2 is Enhanced Vegas's one threshold"):
        predict("vegas", path, delta=2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bandwidth", "0Mbps", "--rtt", "1ms"], "bandwidth must be > 0, got '0Mbps'"),
        (["--bandwidth", "50Mbps"], "give exactly two of --bandwidth, --rtt, --bdp"),
        (["--bandwidth", "5M", "--rtt", "1", "--bdp", "3"], "give exactly two"),
        (["-a", "reno", "--bdp", "5", "--rtt", "1"], "--algorithm 'reno'"),
        (["--bdp", "5", "--rtt", "1", "--alpha", "5"], "alpha <= beta"),
        (["--bdp", "5", "--rtt", "1", "--gamma", "0"], "gamma must be > 0"),
        (["--bdp", "5 furlongs", "--rtt", "1"], "bdp"),
        (["--bdp", "5", "--rtt=-1ms"], "rtt must be > 0"),
    ],
)
def test_errors_exit_2_with_message(capsys, argv, message):
    assert main(["predict", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_help_documents_every_option(capsys):
    # what `tcpfluid predict --help` prints
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["predict", "--help"])
    assert exited.value.code == 0
    help_text = capsys.readouterr().out
    options = "--algorithm --bandwidth --rtt --bdp --gamma --alpha --beta --delta --json --rtt-kind"
    for opt in (*options.split(), "--whole-acks", "--documents", "--packet-size"):
        assert opt in help_text


def test_predict_library_rejects_non_path():
    with pytest.raises(TypeError, match=r"path must be a tcpfluid\.Path"):
        predict("vegas", 625.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="algorithm"):
        predict("fast", Path(100, 0.1))
    # every algorithm checks every option, TCP-Ho too (it has no slow start to reach)
    for alg in ("tcp-ho", "vegas", "quick-vegas"):
        with pytest.raises(ValueError, match="rtt must be one of 'average', 'last'; got 'avg'"):
            predict(alg, Path(100, 0.1), rtt="avg")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="whole_acks must be True or False, got 'yes'"):
            predict(alg, Path(100, 0.1), whole_acks="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="quick-vegas needs beta > 0"):
        predict("quick-vegas", Path(100, 0.1), alpha=0.0, beta=0.0)


def test_console_script():
    # the installed console script sits next to the interpreter running the tests (it is
    # not on PATH after `python3 -m venv .venv && .venv/bin/pip install -e .`)
    script = pathlib.Path(sys.executable).parent / "tcpfluid"
    assert script.is_file(), f"console script {script} not installed (pip install -e .)"
    res = subprocess.run(
        [str(script), "predict", "-a", "vegas", "--bdp", "625", "--rtt", "0.1", "--json"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert json.loads(res.stdout)["predictions"][0]["ss_exit_window_pkts"] == 64


def test_the_round_map_route_is_bounded_before_it_runs() -> None:
    """A path whose settling would take more rounds than the round map's bound gets no
    settling time and a note naming the bound, instead of a run that does not end
    (μd = 1e15 packets: slow start alone is ~85 rounds, its approach far longer)."""
    import time

    from tcpfluid import Path
    from tcpfluid.analytic import predict
    from tcpfluid.analytic.predict import MAX_SETTLING_ROUNDS

    t0 = time.perf_counter()
    pr = predict("quick-vegas", Path(1e12, 1e3))
    assert time.perf_counter() - t0 < 60.0  # a guard against a hang, not a speed check
    assert pr.time_to_equilibrium_s is None and pr.rounds_to_equilibrium is None
    assert f"more than {MAX_SETTLING_ROUNDS} rounds" in pr.note


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        # the default algorithms: Quick Vegas's W* = 6 > μd = 5 (eq. 10), Vegas's 5.0 fits
        (("--bdp", "5", "--rtt", "100ms"), "quick-vegas: slow_start_exit"),
        (("--documents", "-a", "vegas"), "--algorithm does not apply with --documents"),
        (("--documents", "--bdp", "100"), "--bdp does not apply with --documents"),
        (("-a", "vegas", "--bdp", "100", "--rtt", "0.1", "--whole-acks"), "--whole-acks counts"),
    ],
)
def test_refusals_name_what_does_not_apply(capsys, argv, message):
    assert main(["predict", *argv]) == 2
    assert message in capsys.readouterr().err


def test_options_a_law_does_not_read_are_refused_not_ignored():
    path = Path("50Mbps", "100ms")
    with pytest.raises(ValueError, match="gamma=7 does not apply to tcp-ho"):
        predict("tcp-ho", path, gamma=7)
    with pytest.raises(ValueError, match="beta=100 does not apply to tcp-ho"):
        predict("tcp-ho", path, beta=100)
    with pytest.raises(ValueError, match="whole_acks=True does not apply to vegas"):
        predict("vegas", path, whole_acks=True)
    # Quick Vegas reads it: the whole-ACK table (one packet more per two ACKs) exits
    # elsewhere than the documents' 1.5x table
    assert predict("quick-vegas", path, whole_acks=True) != predict("quick-vegas", path)


def test_tcp_ho_on_a_bare_path_prints_the_round_engines_settled_window(capsys):
    """TCP-Ho's analysis gives no window; the path's settled window is the round engine's,
    as its time to equilibrium: here read from a run of the round engine itself (60 s, far
    longer than the prediction's own run), in the JSON keys and the table."""
    import tcpfluid

    path = Path(1250.0, 0.06)  # 10 Mb/s of 1000-byte packets, d = 60 ms
    own = tcpfluid.simulate(path.scenario("tcp-ho", 60.0), "rounds").summary.flows[0]
    assert own.settled_window_pkts is not None
    argv = ("-a", "tcp-ho", "--bandwidth", "1250", "--rtt", "0.06")
    (p,) = run_json(capsys, *argv)["predictions"]
    for key in ("equilibrium_window_pkts", "settled_window", "settled_window_pkts"):
        assert p[key] == pytest.approx(own.settled_window_pkts, abs=1e-9)
    assert p["time_to_equilibrium_s"] == pytest.approx(own.time_to_equilibrium_s, abs=1e-9)
    assert "not a settled window" in p["note"] and "the round map gives both" in p["note"]
    assert p["equilibrium_window_route"] == "round model"
    assert main(["predict", *argv]) == 0
    row = next(r for r in capsys.readouterr().out.splitlines() if r.startswith("equilibrium w"))
    assert row.split()[-1] == f"{own.settled_window_pkts:.4g}"


def test_a_bare_bandwidth_is_packets_per_second_and_set_says_why_it_needs_a_unit(capsys):
    """``--bandwidth 1.5e6`` keeps its documented reading, 1.5e6 packets/s; ``--set
    bandwidth=1.5e6`` is refused, saying which units it takes and why a bare number is
    not read; the help states both."""
    out = run_json(capsys, "-a", "vegas", "--bandwidth", "1.5e6", "--rtt", "0.1")
    assert out["path"]["mu_pps"] == 1.5e6
    assert main(["predict", "qv-basic", "-a", "vegas", "--set", "bandwidth=1.5e6"]) == 2
    err = capsys.readouterr().err
    assert "bandwidth='1.5e6' has no unit" in err and "'6250pps'" in err and "'50Mbps'" in err
    assert "predict --bandwidth` read one as packets/s" in err
    with pytest.raises(SystemExit):
        build_parser().parse_args(["predict", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "6250 (a bare number: packets/s; --set bandwidth=... of a SCENARIO takes a unit" in text
    assert "a rate with its unit (bandwidth=50Mbps or 6250pps: a bare number is refused)" in text
