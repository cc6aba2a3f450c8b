"""The packet simulator against the documents' printed numbers and against the round model.

Document 000 §3.2 (Fig. 1) and §5.1 (ns-2, 50 Mb/s × 100 ms, 1 kB packets, 25 Mb/s CBR from
80 s to 160 s): Vegas leaves slow start at 1.2 s with a window of 64 packets, reaches its
equilibrium window of 630 packets at 59 s, and converges in 47.9 s after the halving and
31.8 s after the doubling of the available bandwidth. Tolerances: exit window in
[32, 128] between 1 and 2 s (the bursts of slow start make the exit depend on packet
timing), equilibrium within 5 % of 630, times within 15 % (the times are read off a
different simulator with its own queue and timer details, and depend on the settling
definition of tcpfluid.metrics).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.fluid.rounds import simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import PacketResult, simulate_packets


@pytest.fixture(scope="module")
def vegas_qv_basic() -> PacketResult:
    return simulate_packets(build_scenario("qv-basic").with_algorithm("vegas"))


def test_vegas_slow_start_exit(vegas_qv_basic: PacketResult) -> None:
    s = vegas_qv_basic.summary
    assert 32 <= s.ss_exit_window_pkts[0] <= 128
    assert 1.0 <= s.ss_exit_time_s[0] <= 2.0
    # the fluid critical window of this path is far above the exit window: the exit is
    # premature because of the bursts (document 000 §3.2)
    assert s.ss_exit_window_pkts[0] < 630 / 4


def test_vegas_equilibrium_and_convergence(vegas_qv_basic: PacketResult) -> None:
    s = vegas_qv_basic.summary
    assert s.settled_window_pkts[0] == pytest.approx(630, rel=0.05)
    assert s.time_to_equilibrium_s[0] == pytest.approx(59.0, rel=0.15)
    assert s.change_times_s == (80.0, 160.0)
    assert s.convergence_times_s[0, 0] == pytest.approx(47.9, rel=0.15)
    assert s.convergence_times_s[0, 1] == pytest.approx(31.8, rel=0.15)
    assert vegas_qv_basic.conserved
    assert s.losses[0] == 0


def test_vegas_queue_when_bandwidth_halves(vegas_qv_basic: PacketResult) -> None:
    # document 000 §5.1: "the maximum queue length is 620 packets" after the halving;
    # reported within 10 % (ns-2 and this simulator differ in queue accounting by a packet
    # or two, and the peak depends on the window at 80 s)
    assert vegas_qv_basic.link("R1-R2").max_queue_pkts == pytest.approx(620, rel=0.10)


def test_packet_sim_agrees_with_round_model(vegas_qv_basic: PacketResult) -> None:
    # on a loss-free single-flow scenario, settled window and convergence times of
    # the two engines agree within 10 %
    rounds = simulate_scenario_rounds(build_scenario("qv-basic").with_algorithm("vegas"))
    r = rounds.summary
    p = vegas_qv_basic.summary
    assert p.settled_window_pkts[0] == pytest.approx(r.settled_window_pkts[0, 0], rel=0.10)
    assert p.time_to_equilibrium_s[0] == pytest.approx(r.time_to_equilibrium_s[0, 0], rel=0.10)
    for k in range(2):
        assert p.convergence_times_s[0, k] == pytest.approx(
            r.convergence_times_s[0, 0, k], rel=0.10
        )


@pytest.mark.parametrize("algorithm", ["quick-vegas", "enhanced-vegas"])
def test_other_vegas_family_against_round_model(algorithm: str) -> None:
    # loss-free single flow without cross traffic: same settled window in both engines
    sc = build_scenario("qv-basic", cbr="none", duration="60s").with_algorithm(algorithm)
    p = simulate_packets(sc).summary
    r = simulate_scenario_rounds(sc).summary
    assert p.settled_window_pkts[0] == pytest.approx(r.settled_window_pkts[0, 0], rel=0.10)


def test_vegas_slow_start_bursts_by_hand() -> None:
    # Table 1 of document 000: Vegas doubles its window every other round (windows at the
    # start of rounds 1, 2, ...: 2, 4, 4, 8, 8, ...), and leaves at 64 with the 1/8 cut.
    # The burst (document 000 §3.2): in a doubling round each ACK, spaced 1/μ apart by
    # the bottleneck, releases two packets at the access rate while the bottleneck drains
    # one per 1/μ, so the queue grows by one packet per ACK: in a round that doubles from
    # W/2 to W, the two packets of the k-th pair (k = 1..W/2) wait k − 1 and k packet
    # times, at most W/2 and on average Σ(2k − 1)/W = (W/2)²/W = W/4 packet times; their
    # RTTs are measured in the next round, closed by the boundary after it.
    sc = build_scenario("qv-basic", cbr="none", duration="1.5s").with_algorithm("vegas")
    f = simulate_packets(sc).flows[0]
    mu = 6250.0  # 50 Mb/s / 8000 bits
    assert f.round_next_cwnd_pkts[:11].tolist() == [2, 4, 4, 8, 8, 16, 16, 32, 32, 64, 56]
    for i in (2, 4, 6, 8, 10):
        w = f.round_next_cwnd_pkts[i - 1]  # the window the doubling round reached
        q_max = (f.round_rtt_max_s[i] - f.round_base_rtt_s[i]) * mu
        q_mean = (f.round_rtt_mean_s[i] - f.round_base_rtt_s[i]) * mu
        assert q_max == pytest.approx(w / 2, abs=0.05)
        assert q_mean == pytest.approx(w / 4, abs=0.05)
    # the exit: Δ = 64 (1 − d/(d + 16/μ)) > γ = 1 at the boundary after the 32 → 64 round
    d = f.round_base_rtt_s[10]
    assert f.round_delta_pkts[10] == pytest.approx(64 * (1 - d / (d + 16 / mu)), rel=1e-3)


def test_quick_vegas_and_fast_ramp_up() -> None:
    # document 000 §5.1: "The ramp up time of Quick Vegas is 13 seconds"; FAST's "is 2.6
    # seconds" (15 %, as for Vegas). Their convergence after the bandwidth changes is
    # reported in docs/simulator.md, not asserted: Quick Vegas oscillates after the halving
    # and FAST's times are within 20 % only.
    sc = build_scenario("qv-basic", cbr="none", duration="60s")
    qv = simulate_packets(sc.with_algorithm("quick-vegas")).summary
    assert qv.time_to_equilibrium_s[0] == pytest.approx(13.0, rel=0.15)
    assert qv.settled_window_pkts[0] == pytest.approx(630, rel=0.05)
    fast = simulate_packets(sc.with_algorithm("fast")).summary
    assert fast.time_to_equilibrium_s[0] == pytest.approx(2.6, rel=0.15)


def test_fast_keeps_alpha_packets_queued() -> None:
    # document 000 §5.1: "FAST maintains 100 packets of bottleneck queue length during the
    # first 80 seconds ... the bandwidth is halved and the queue length is doubled to 200
    # packets" (α = 100: at equilibrium FAST's backlog is α packets of its own, and its
    # packets are half of those queued when the CBR takes half the link, so the queue
    # is 2α). Within 2 packets (the packet in transmission and the sampling instant).
    res = simulate_packets(build_scenario("qv-basic").with_algorithm("fast"))
    q, t = res.link("R1-R2").queue_pkts, res.t_s
    before = q[(t > 60) & (t <= 80)]
    during = q[(t > 140) & (t <= 160)]
    assert np.all(np.abs(before - 100) <= 2)
    assert np.all(np.abs(during - 200) <= 2)


def test_unsettled_window_is_null_in_every_engine_json() -> None:
    # Reno on 5 Mb/s (625 packets/s) x 22 ms (pipe ~14 packets) with a 20-packet buffer
    # saws between half and all of ~34 packets: it never settles within the 2 % / 1-packet
    # band, so the JSON summary of both engines reports "did not happen" (None), not the
    # mean of the tail (which the packet engine used to report)
    sc = build_scenario(
        "qv-basic", bandwidth="5Mbps", rtt="20ms", duration="20s", cbr="none", buffer=20
    ).with_algorithm("reno")
    p = simulate_packets(sc).summary
    r = simulate_scenario_rounds(sc).summary
    assert not bool(p.reached_equilibrium[0]) and not bool(r.reached_equilibrium[0, 0])
    for d in (p.to_dict(), r.to_dict()):
        assert d["settled_window"] is None and d["time_to_equilibrium_s"] is None
