"""The closed forms' seconds: a round lasts d, or W/μ where its window W keeps a standing
queue (docs/analytic.md, "Definitions used by predict"), in slow start, TCP-Ho's ramp and
Quick Vegas's rise; and Quick Vegas's rise where eq. (12) does not apply (erratum E3's
doubling cap, α = 0)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid import Path, simulate
from tcpfluid.analytic import predict


@pytest.mark.parametrize(
    ("algorithm", "bdp"),
    [("vegas", 5.5), ("vegas", 6.0), ("vegas", 6.5), ("quick-vegas", 6.0), ("quick-vegas", 10.0),
     ("quick-vegas", 12.0)],
)  # fmt: skip
def test_slow_start_exit_time_counts_the_rounds_above_the_pipe(algorithm, bdp):
    # small paths whose exit window (8 packets for Vegas, 6.5-9.5 for Quick Vegas's packet
    # sender) exceeds μd: those rounds last W/μ. The packet simulator is the referee,
    # within one bottleneck packet time (each growth round's burst queues its last packets
    # behind the bottleneck for about that); rounds × d misses it by 2-4 packet times.
    path = Path.from_bdp(bdp, 0.1)
    rule = "sender" if algorithm == "quick-vegas" else "documents"
    pr = predict(algorithm, path, rule=rule, round_map=False)
    flow = simulate(path.scenario(algorithm, 3.0), "packet").summary.flows[0]
    assert flow.ss_exit_window_pkts == pytest.approx(pr.ss_exit_window_pkts)
    assert flow.ss_exit_time_s == pytest.approx(pr.ss_exit_time_s, abs=1.0 / path.mu + 1e-9)
    assert abs(flow.ss_exit_time_s - pr.ss_exit_round * path.d) > 1.5 / path.mu


@pytest.mark.parametrize("bdp", [8.0, 16.0, 40.0, 200.0])
def test_tcp_ho_time_to_target_sums_its_round_lengths(bdp):
    # the round engine (another layer) ends round `rounds_to_target` at the same time
    path = Path(bdp / 0.1, 0.1)
    pr = predict("tcp-ho", path, round_map=False)
    res = simulate(path.scenario("tcp-ho", 2.0 * pr.time_to_target_s), "rounds")
    assert pr.time_to_target_s == pytest.approx(res.time_s[pr.rounds_to_target - 1], rel=1e-9)
    if bdp == 8.0:  # 1.0 s counted as rounds × d; the last four rounds carry 11-22 packets
        assert pr.time_to_target_s == pytest.approx(1.4125)


def test_tcp_ho_time_to_target_on_a_large_path_matches_a_plain_loop():
    # the exact sums against a loop over Table 4's windows (no simulation at this size)
    path = Path.from_bdp(1e6, 0.1)
    pr = predict("tcp-ho", path, round_map=False)
    i = np.arange(1, pr.rounds_to_target + 1, dtype=np.float64)
    windows = (i * i - 2.0 * i + 8.0 + (i % 2)) / 4.0
    by_loop = float(np.sum(np.maximum(path.d, windows / path.mu)))
    assert pr.time_to_target_s == pytest.approx(by_loop, rel=1e-12)


def _capped_rise(start, target, beta, bdp, d):
    """Eq. (11) with the pseudo-code's cap, one round at a time: rounds, seconds."""
    w, succ, rounds, seconds = start, 0, 0, 0.0
    while w < target:
        seconds += max(d, d * w / bdp)
        succ += 1
        w += min(beta * succ, w)
        rounds += 1
    return rounds, seconds


@pytest.mark.parametrize("beta", [4.0, 40.0, 1000.0, 1e5])
def test_quick_vegas_rise_follows_the_doubling_cap(beta):
    # β far above the window: the "at most double" cap binds (erratum E3); eq. 12 alone
    # counted β = 1000 on 50 Mb/s × 100 ms in 2 rounds (13 in all), the capped rule 5
    path = Path.from_bdp(625, 0.1)
    pr = predict("quick-vegas", path, beta=beta, round_map=False)
    target = 625 + (2.0 + beta) / 2.0
    rounds, seconds = _capped_rise(pr.ca_start_window_pkts, target, beta, 625.0, 0.1)
    assert pr.rounds_to_target - pr.ss_exit_round == rounds
    assert pr.time_to_target_s == pytest.approx(pr.ss_exit_time_s + seconds, rel=1e-12)
    if beta == 1000.0:
        assert pr.rounds_to_target == 16


def test_quick_vegas_with_alpha_zero_rises_a_packet_a_round():
    # Δ = 0 is never below α = 0: the window grows one packet a round (the band's lower
    # half). The round engine (the sender's slow start, as rule="sender") first reaches the
    # target within 3 rounds (its decisions read a lagged, averaged RTT); eq. 12 counted
    # 2.8 s where the engine takes 54.9 s
    path = Path.from_bdp(625, 0.1)
    pr = predict("quick-vegas", path, alpha=0.0, rule="sender", round_map=False)
    assert pr.rounds_to_target - pr.ss_exit_round == 627 - int(pr.ca_start_window_pkts)
    res = simulate(path.scenario("quick-vegas", 70.0, params={"alpha": 0.0}), "rounds")
    first = res.time_s[np.flatnonzero(res.window_pkts[0] >= 627.0 - 1e-9)[0]]
    assert pr.time_to_target_s == pytest.approx(first, abs=3 * path.d)


def test_counts_beyond_a_float_print_as_floats(capsys):
    # μd = 1e300: Vegas's rounds to its target are ~1e300, a float count; printed whole they
    # were 300 digits of float noise
    from tcpfluid.cli import main

    assert main(["predict", "-a", "vegas", "--bdp", "1e300", "--rtt", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(x for x in lines if x.startswith("first reaches the target: round"))
    assert row.split()[-1] == "1e+300"
    assert max(len(token) for x in lines for token in x.split()) < 40


@settings(max_examples=60, deadline=None)
@given(
    algorithm=st.sampled_from(["vegas", "enhanced-vegas", "quick-vegas", "tcp-ho"]),
    bdp=st.floats(min_value=8.0, max_value=1e6),
    rtt_s=st.floats(min_value=1e-3, max_value=1.0),
)
def test_no_round_is_shorter_than_the_base_rtt(algorithm, bdp, rtt_s):
    # a round lasts max(d, W/μ): the seconds are at least rounds × d, and equal to it
    # where no window of the count exceeds μd (large paths: W* ~ sqrt(μd) and the target
    # μd + α is reached from below, the last rounds a few packets above μd at most)
    pr = predict(algorithm, Path.from_bdp(bdp, rtt_s), round_map=False)
    assert pr.time_to_target_s >= pr.rounds_to_target * rtt_s * (1.0 - 1e-12)
    if pr.ss_exit_round is not None:
        assert pr.ss_exit_time_s >= pr.ss_exit_round * rtt_s * (1.0 - 1e-12)
    # every window is at most μd + β + 1 packets on the way up: a round at most that over μd
    # longer than d (Quick Vegas's eq.-(3) steps overshoot: not bounded this way)
    if algorithm in ("vegas", "enhanced-vegas"):
        top = (bdp + 5.0) / bdp
        assert pr.time_to_target_s <= pr.rounds_to_target * rtt_s * top * (1.0 + 1e-12)
