"""Hostile cases found by probing and fuzzing, each pinned as a regression test.

Each case ends in a result that makes sense or a ValueError naming the input; never an
OverflowError, a ZeroDivisionError, an invented number or a silent wrong status.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid import Path, simulate
from tcpfluid.algorithms import get_law
from tcpfluid.analytic import rounds_to_equilibrium, slow_start_windows
from tcpfluid.engines import simulate_summary
from tcpfluid.fluid import simulate_rounds, simulate_scenario_ode
from tcpfluid.scenarios import build_scenario


def test_rounds_with_a_tiny_rtt_is_a_value_error() -> None:
    # 5e-324 s is the smallest positive float: 1 s of it is 2e323 rounds
    with pytest.raises(ValueError, match=r"duration_s|d="):
        simulate_rounds(get_law("vegas"), Path(6250.0, 5e-324), duration_s=1.0)


def test_slow_start_windows_beyond_the_largest_float_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="rounds"):
        slow_start_windows("quick-vegas", 2000, whole_acks=True)


def test_absurd_bandwidth_and_duration_name_the_inputs() -> None:
    # was a ZeroDivisionError in the packet summary
    for engine in ("packet", "rounds"):
        with pytest.raises(ValueError, match="bandwidth") as info:
            simulate_summary(
                "qv-basic",
                "vegas",
                engine=engine,
                sets={"bandwidth": "1e-300bps", "duration": "1e-300s"},
            )
        assert "duration" in str(info.value)


def test_huge_packet_size_names_the_parameter() -> None:
    # was "x must not be all zeros: Jain's index is undefined without throughput"
    for engine in ("rounds", "packet"):
        with pytest.raises(ValueError, match="packet_size"):
            simulate_summary(
                "qv-basic", "vegas", engine=engine, sets={"packet_size": "1e300", "duration": "1s"}
            )


def _throughput(engine: str, duration: str) -> float:
    out = simulate_summary(
        "qv-basic", "vegas", engine=engine, sets={"duration": duration, "cbr": "none"}
    )
    return float(out["throughput_pps"][0])


def test_run_shorter_than_one_rtt_gives_no_invented_throughput() -> None:
    # qv-basic's base RTT is 104 ms: in 10 ms no packet is delivered (the packet engine: 0);
    # the round model reported 19.96 pkt/s
    for engine in ("packet", "rounds"):
        try:
            thr = _throughput(engine, "10ms")
        except ValueError as exc:
            assert "duration" in str(exc)
        else:
            assert thr == 0.0


def test_ode_with_alpha_below_the_classical_switch_width() -> None:
    # with alpha = beta = 1e-12 the classical ODE's switch (0.1 packets wide) is wider than
    # the band: its window stuck at 2 while the round model settled at 56.5. The classical
    # model now refuses it by name; the default ode engine (the hybrid model, which applies
    # the law's own discrete decision) runs it and settles where the round model does.
    sets = {"alpha": 1e-12, "beta": 1e-12, "cbr": "none", "duration": "20s"}
    sc = build_scenario("qv-basic", algorithm="vegas", **sets)
    with pytest.raises(ValueError, match=r"alpha_pkts.*switch_width_pkts"):
        simulate_scenario_ode(sc, model="classical")
    assert simulate_summary("qv-basic", "vegas", engine="ode", sets=sets)["settled_window"] > 2
    # the two fluid engines step the same law; 5 %: the hybrid's continuous queue vs rounds.
    # With α = β ≈ 0 every decision turns on whether the transient queue of the last
    # increase is seen: the round model reads the queue at the round's end, as the hybrid's
    # departure sample does (the default FIFO sample sees the wait and drifts lower; the
    # packet simulator does not settle here at all)
    ode = simulate(sc, "ode", rtt_sample="departure").summary.flows[0].settled_window_pkts
    rounds = simulate_summary("qv-basic", "vegas", engine="rounds", sets=sets)["settled_window"]
    assert ode == pytest.approx(rounds, rel=0.05)


def test_ode_refuses_a_meaningless_atol() -> None:
    # atol=1e300 returned status ok with a wrong utilization
    sc = build_scenario("qv-basic", algorithm="vegas", cbr="none", duration="20s")
    with pytest.raises(ValueError, match="atol"):
        simulate_scenario_ode(sc, atol=1e300)


def test_rounds_to_equilibrium_overflow_is_an_error() -> None:
    try:
        out = rounds_to_equilibrium("vegas", 1e300, 1e300, beta=1e-300)
    except ValueError as exc:
        assert any(n in str(exc) for n in ("window", "beta", "n"))
    else:
        assert math.isfinite(float(out))


def test_ode_with_huge_duration_or_rtt_names_it() -> None:
    for key, value in (("duration", "1.7976931348623157e+308"), ("rtt", "1e+300")):
        sets = {"bandwidth": "1Mbps", "rtt": "20ms", "duration": "0.5s", "cbr": "none"}
        sets[key] = value
        with pytest.raises(ValueError, match=key):
            simulate_summary("qv-basic", "vegas", engine="ode", sets=sets)


def test_predict_huge_path_names_the_path_or_gives_finite_numbers() -> None:
    from tcpfluid.analytic import predict

    # 1e300 packets/s x 100 ms: the message named an internal "rounds" limit
    try:
        out = predict("vegas", Path(1e300, 0.1))
    except ValueError as exc:
        assert any(n in str(exc) for n in ("bdp", "bandwidth", "mu")), exc
    else:
        for value in (out.ss_exit_window_pkts, out.ss_exit_time_s, out.time_to_equilibrium_s):
            assert value is not None and math.isfinite(value)


# ---------------------------------------------------------------- one reading of a rate
def test_a_scenario_rate_without_a_unit_is_refused_naming_the_key() -> None:
    # Path reads a bare 6250 as packets/s; a scenario read it as bits/s (0.66 pkt/s followed)
    for key in ("bandwidth", "access_bandwidth", "cbr"):
        for value in (6250, 6250.0, "6250"):
            with pytest.raises(ValueError, match=rf"{key}=.*no unit.*pps.*Mbps"):
                build_scenario("qv-basic", **{key: value})


def test_a_packet_rate_is_accepted_wherever_a_scenario_takes_a_rate() -> None:
    # 6250 packets/s of 1000 bytes is 50 Mb/s; of 500 bytes, 25 Mb/s
    sc = build_scenario("qv-basic", bandwidth="6250pps")
    assert (
        sc.link("R1-R2").rate_bps
        == build_scenario("qv-basic", bandwidth="50Mbps").link("R1-R2").rate_bps
    )
    half = build_scenario("qv-basic", bandwidth="6250 pkt/s", packet_size="500B")
    assert half.link("R1-R2").rate_bps == 25e6
    assert sc.fluid_view().path.mu == pytest.approx(Path("6250pps", 0.1).mu)


# ---------------------------------------------------------------- sizes before allocation
def test_a_flow_count_past_the_bound_is_refused_with_its_cost() -> None:
    for n in (2**63 - 1, 10**7 + 1):
        with pytest.raises(ValueError, match=r"flows must be an integer in \[1, 10,000,000\].*GB"):
            build_scenario("qv-many-flows", flows=n, duration="1s")
    with pytest.raises(ValueError, match="flows_per_group"):
        build_scenario("qv-different-rtt", flows_per_group=10**7)


def test_an_engine_refuses_more_flows_than_it_takes_with_its_cost() -> None:
    # the round model takes them (a million flows: its own memory estimate); the packet
    # simulator stops at 200,000, before setting any flow up
    sc = build_scenario("qv-many-flows", flows=200_001, groups=1, duration="1s")
    with pytest.raises(
        ValueError, match=r"flows must be at most 200,000 on the packet engine, got 200,001.*GB"
    ):
        simulate(sc, "packet", algorithm="vegas")


def test_a_round_model_run_past_the_memory_budget_is_refused_naming_the_flows() -> None:
    # 5e4 rounds of 0.1 s: 1.5e10 flow-rounds, inside the bound on work, but the
    # recording of every round would take hundreds of GiB
    sc = build_scenario("qv-many-flows", flows=300_000, groups=1, duration="5e3s")
    with pytest.raises(ValueError, match=r"300,000 flows.*GiB"):
        simulate(sc, "rounds", algorithm="vegas")


def test_a_packet_run_without_end_is_refused_naming_duration() -> None:
    sc = build_scenario("qv-basic", duration="1e300s").with_algorithm("vegas")
    with pytest.raises(ValueError, match=r"duration=1e\+300 s.*give duration <="):
        simulate(sc, "packet")


def test_spectral_radius_of_a_long_lag_without_the_matrix() -> None:
    from tcpfluid.analytic.stability import companion_matrix, critical_gain, spectral_radius

    # the L x L matrix of 10^5 rounds is 74.5 GiB: refused by name; the radius is not
    with pytest.raises(ValueError, match=r"lag_rounds=100,000.*GiB"):
        companion_matrix(0.5, 10**5)
    for lag in (10**4, 10**5):
        kc = critical_gain(lag)  # the boundary in closed form (derived in SymPy)
        assert spectral_radius(0.5, lag) > 1.0 > spectral_radius(0.5 * kc, lag)
    # against the eigenvalues of the companion matrix where the matrix is small
    rng = np.random.default_rng(7)
    for _ in range(40):
        lag = int(rng.integers(1, 90))
        gain = float(10 ** rng.uniform(-6, 3))
        ev = float(np.max(np.abs(np.linalg.eigvals(companion_matrix(gain, lag)))))
        assert spectral_radius(gain, lag) == pytest.approx(ev, rel=1e-9, abs=1e-12)


def _undershoot_by_recurrence(gain: float, lag: int, rounds: int) -> float:
    e = [1.0] * lag
    for _ in range(rounds):
        e.append(e[-1] - gain * e[-lag])
    return max(0.0, -min(e))


def test_decrease_undershoot_of_many_rounds_in_bounded_memory() -> None:
    from tcpfluid.analytic.stability import decrease_undershoot

    # 10^8 rounds was a list of 10^8 floats (MemoryError); K = 1/2, L = 2 undershoots by
    # 1/4 (the recurrence by hand: 1, 1, 1/2, 0, -1/4, -1/4, -1/8, 0, ...)
    assert decrease_undershoot(0.5, 2, rounds=10**8) == 0.25
    for gain, lag, rounds in ((0.5, 3, 5000), (0.61, 3, 9000), (0.2, 7, 3000), (1.5, 1, 300)):
        got = decrease_undershoot(gain, lag, rounds=rounds)
        assert got == pytest.approx(_undershoot_by_recurrence(gain, lag, rounds), rel=1e-9)
    with pytest.raises(ValueError, match=r"gain=3.0.*diverges"):
        decrease_undershoot(3.0, 2, rounds=10**8)
    with pytest.raises(ValueError, match="rounds"):
        decrease_undershoot(0.5, 2, rounds=10**12)


def test_blb_equilibrium_outside_the_floats_is_refused() -> None:
    from tcpfluid.analytic import blb_equilibrium

    with pytest.raises(ValueError, match=r"alpha.*capacity_pps"):
        blb_equilibrium([1e300], [0], 1e-10)
    # all x_j = 0: δ = Σα/c (the closed form of the model)
    assert blb_equilibrium([1.0, 3.0], [0.0], 100.0).queueing_delay_s == pytest.approx(0.04)


# ---------------------------------------------------------------- closed forms in their domain
def test_predict_refuses_a_band_below_the_minimum_window() -> None:
    from tcpfluid.analytic import predict

    # returned an equilibrium window of -0.5 beside the band [0.31, 0.31]
    with pytest.raises(ValueError, match=r"band.*minimum window of 2 packets.*bdp \+ beta >= 2"):
        predict("vegas", Path.from_bdp(0.3, 1.0), gamma=0.01, alpha=0.01, beta=0.01)


def test_predict_refuses_an_ack_path_that_limits_the_sender() -> None:
    from tcpfluid.analytic import predict

    # 10 ACKs/s still predicted 6250 pkt/s; the round model, which models the ACK link,
    # delivers at most the ACK rate (one ACK per packet)
    slow = Path(6250, 0.1, reverse_bandwidth=10)
    for algorithm in ("vegas", "quick-vegas", "tcp-ho"):
        with pytest.raises(ValueError, match=r"reverse_bandwidth=10 ACKs/s.*below"):
            predict(algorithm, slow)
    tr = simulate_rounds(get_law("vegas"), slow, duration_s=20.0)
    assert float(np.ravel(tr.summary.throughput_pps)[0]) <= 10.0 * 1.05
    # a reverse link faster than the data does not limit: the same prediction as without it
    fast = predict("vegas", Path(6250, 0.1, reverse_bandwidth=7000))
    assert fast.equilibrium_window_pkts == predict("vegas", Path(6250, 0.1)).equilibrium_window_pkts


def test_predict_refuses_a_buffer_that_drops_its_own_burst() -> None:
    from tcpfluid.analytic import predict

    with pytest.raises(ValueError, match=r"buffer=3 packets.*give buffer >= 32"):
        predict("vegas", Path(6250, 0.1, buffer=3))
    # a buffer holding the 64-packet exit window's burst (32) changes nothing
    assert predict("vegas", Path(6250, 0.1, buffer=32)) == predict("vegas", Path(6250, 0.1))


def test_jain_index_is_scale_free_at_the_ends_of_the_floats() -> None:
    from tcpfluid.metrics import jain_index

    # Σx² of two 1e308s overflowed: the index was NaN. Equal throughputs give 1, one of two
    # flows idle gives 1/2 (eq. 13 of the Quick Vegas paper by hand), at any scale
    for scale in (1e308, 1.0, 1e-200, 5e-324):
        assert float(jain_index([scale, scale])) == 1.0
        assert float(jain_index([scale, 0.0])) == 0.5


def test_a_packet_smaller_than_a_byte_is_refused() -> None:
    # 1e-300-byte packets reported a utilization of 0.0 beside 3,510 packets/s
    with pytest.raises(ValueError, match=r"packet_size must be at least 1 byte"):
        simulate_summary("qv-basic", "vegas", engine="rounds", sets={"packet_size": "1e-300"})
    with pytest.raises(ValueError, match=r"packet_size must be at least 1 byte"):
        Path("50Mbps", 0.1, packet_size=1e-300)
    with pytest.raises(ValueError, match=r"ack_size must be at least 1 byte"):
        Path("50Mbps", 0.1, ack_size="0.5B")


# ---------------------------------------------------------------- messages
def _cli_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    from tcpfluid.cli import main

    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["thesis-two-flow", "--set", "queue=red", "--set", "red_min=abc"],
            "red_min must be a number of packets such as 15, got 'abc'",
        ),
        (["asymmetric", "--set", "k=abc"], "k must be a number > 0 (mu_f / mu_r) such as 3"),
        (["qv-basic", "--set", "buffer=0"], "buffer must be at least 1 packet"),
        (["qv-basic", "--set", "cbr_start=0 parsecs"], "cbr_start: unknown time unit 'parsecs'"),
        (["qv-basic", "--set", "access_delay=-1ms"], "access_delay must be >= 0, got '-1ms'"),
        (["qv-basic", "--set", "bandwidth=6250"], "bandwidth='6250' has no unit"),
        (["qv-basic", "--engine", "rounds", "--engine", "ode"], "--engine is given more than once"),
        (["qv-basic", "--set", "gamma=3", "-a", "tcp-ho"], "unknown parameter 'gamma'"),
    ],
)
def test_simulate_messages_name_the_input(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    argv = [*argv, "-a", "vegas"] if "-a" not in argv else argv
    assert expected in _cli_error(capsys, "simulate", *argv, "--set", "duration=1s")


def test_predict_refuses_repeats_and_unused_law_options(capsys: pytest.CaptureFixture[str]) -> None:
    path = ["--bandwidth", "50Mbps", "--rtt", "100ms"]
    err = _cli_error(capsys, "predict", *path, "--rtt", "10ms")
    assert "--rtt is given more than once (--rtt 10ms)" in err
    # as simulate -a tcp-ho --set gamma=3 does, predict refuses what TCP-Ho's law lacks
    err = _cli_error(capsys, "predict", "-a", "tcp-ho", *path, "--gamma", "3")
    assert "--gamma does not apply to tcp-ho" in err
    err = _cli_error(capsys, "predict", *path, "--alpha", "1")
    assert "-a vegas,quick-vegas" in err


def test_ode_accepts_alpha_zero_as_the_round_model_does() -> None:
    sets = {"alpha": 0, "cbr": "none", "duration": "5s"}
    for engine in ("rounds", "ode"):
        out = simulate_summary("qv-basic", "vegas", engine=engine, sets=sets)
        assert 0.0 < float(out["throughput_pps"][0]) <= 6250.0


def test_help_prints_on_an_ascii_only_terminal() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    done = subprocess.run(
        [sys.executable, "-m", "tcpfluid.cli", "predict", "--help"],
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b"--gamma" in done.stdout and b"\\u03b3" in done.stdout  # γ escaped, not lost


def test_blb_equilibrium_fills_the_link_at_tiny_scales() -> None:
    from tcpfluid.analytic import blb_equilibrium

    # Σα/c = 1e-300 s: an absolute root tolerance of 1e-27 s returned half the link
    eq = blb_equilibrium([1e-300], [0.0], 1.0)
    assert float(eq.rates_pps[0]) == pytest.approx(1.0, rel=1e-9)  # one flow fills c


@pytest.mark.parametrize("engine", ["rounds", "ode"])
def test_the_default_thesis_two_flow_quick_vegas_run_carries_no_more_than_the_link(
    engine: str,
) -> None:
    # the round model gave 1.0062 here (two flows of 13 and 71 ms base RTT on 1.5 Mb/s), the
    # ODE engine 1.0000005: a link serves at most its rate, so utilization <= 1 to rounding
    out = simulate_summary("thesis-two-flow", "quick-vegas", engine=engine)
    assert 0.9 < float(out["utilization"]) <= 1.0 + 1e-12
    # and the flows' throughputs add up to no more than the link's 187.5 packets/s
    assert sum(out["throughput_pps"]) <= 1.5e6 / 8000.0 * (1.0 + 1e-12)


def test_tcp_ho_slow_start_table_past_memory_is_refused_before_allocating() -> None:
    # TCP-Ho's table is quadratic (no float limit): 4.4e9 rounds asked numpy for 32.5 GiB
    # (found by the long fuzz budget); the memory is now checked first, naming rounds
    with pytest.raises(ValueError, match=r"rounds=4,363,593,984 for 'tcp-ho' needs about"):
        slow_start_windows("tcp-ho", 4_363_593_984)
    # below the budget the table is the TCP-Ho paper's Table 4 by hand: (i^2 - 2i + 9)/4
    # for odd i, (i^2 - 2i + 8)/4 for even i
    assert slow_start_windows("tcp-ho", 6).tolist() == [2.0, 2.0, 2.0, 3.0, 4.0, 6.0]


def test_blb_equilibrium_with_a_subnormal_delay_is_refused_not_a_runtime_error() -> None:
    from tcpfluid.analytic import blb_equilibrium

    # Σα/c = 2.5e-310 s, a subnormal float: the root finder ran out of iterations and raised
    # RuntimeError (found by the long fuzz budget)
    with pytest.raises(ValueError, match=r"alpha and capacity_pps"):
        blb_equilibrium([1e-300], [0.0], 4_048_045_067.0)


def test_a_path_whose_bandwidth_delay_product_overflows_is_refused() -> None:
    # μd = 1e300 pkt/s x 1e300 s was an infinite bdp (found by the long fuzz budget)
    with pytest.raises(ValueError, match=r"bandwidth x rtt.*overflows"):
        Path(1e300, 1e300)
    assert Path(1e300, 1e-10).bdp == pytest.approx(1e290)


def test_predict_on_a_path_shorter_than_one_packet_time_names_why_not_the_round_map() -> None:
    from tcpfluid.analytic import predict

    # μ = 1 packet/s, d = 7.8 ms: the round map's one-link path cannot have a d shorter
    # than one packet's transmission (1 s); it raised the round engine's "duration_s is
    # shorter than one round", naming none of predict's inputs (found by the long fuzz budget)
    p = predict("tcp-ho", Path(1.0, 0.0078125))
    assert p.time_to_equilibrium_s is None
    assert "shorter than sending one packet" in p.note
