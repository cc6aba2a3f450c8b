"""TCP-Ho in both engines against the TCP-Ho paper, §5.1 (50 Mb/s × 100 ms, Fig. 10).

Short runs: the §5.1.2 CBR is moved to 10–20 s of a 30 s run (``--set``), which keeps
the ramp-up (0–6 s) and the steady state before the CBR as in the paper.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.analytic import conspicuous_round
from tcpfluid.fluid import simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

# μd of the §5.1 path by hand: 50 Mb/s / 8000 bit = 6250 packets/s; d = 2 × (1 + 48 + 1) ms
# propagation + per-hop transmission of a 1000-byte packet and a 40-byte ACK (eq 1 of
# the TCP-Ho paper with a = 0.04): 0.1 + 8000/1e9 × 2 + 8000/50e6 + 320/1e9 × 2 + 320/50e6.
MU = 50e6 / 8000.0
D = 0.1 + 2 * 8000 / 1e9 + 8000 / 50e6 + 2 * 320 / 1e9 + 320 / 50e6
BDP = MU * D  # 626.1 packets


@pytest.fixture(scope="module")
def scenario():
    return build_scenario(
        "ho-basic", algorithm="tcp-ho", duration="30s", cbr_start="10s", cbr_stop="20s"
    )


@pytest.fixture(scope="module")
def packet(scenario):
    return simulate_packets(scenario)


@pytest.fixture(scope="module")
def rounds(scenario):
    # the document's round model: Tables 1–2 as written (decrease="table") and a decision
    # that sees its own round (no feedback lag)
    return simulate_scenario_rounds(
        scenario.with_algorithm("tcp-ho", decrease="table"), feedback_rounds=0
    )


def test_path_bdp_is_the_hand_computation(scenario):
    assert scenario.fluid_view().path.bdp == pytest.approx(BDP, abs=0.01)


def test_ramp_up_time_matches_section_5_1_1(packet, rounds):
    # The TCP-Ho paper, §5.1.1: "The ramp up time of TCP-Ho to the maximum congestion window
    # size is 5.4 seconds". Tolerance 0.3 s = three rounds of d ≈ 0.1 s: ns-2 counts the
    # connection set-up and its rounds from the SYN, our engines from the first data packet.
    assert packet.summary.ss_exit_time_s[0] == pytest.approx(5.4, abs=0.3)
    assert float(rounds.summary.ss_exit_time_s[0, 0]) == pytest.approx(5.4, abs=0.3)


def test_round_model_ramp_ends_at_the_table4_window_of_the_conspicuous_round(rounds):
    # Table 4 of the TCP-Ho paper: W_i = (i² − 2i + 8)/4 for even i; the ramp's last window is
    # that of the conspicuous round (tcpfluid.analytic, erratum E8), k = 54 for μd = 626.1.
    k = int(conspicuous_round("tcp-ho", BDP))
    assert k == 54
    w_k = (k * k - 2 * k + 8) / 4  # 704
    assert float(rounds.summary.settled_window_pkts[0, 0]) == w_k
    # The model holds it (status 5): its queue, 704 − 626.1 = 78 packets, exceeds the
    # paper's "at most 51" by the last increment pair the model adds before the throughput
    # comparison sees the standing queue (docs/round-model.md).
    assert w_k - BDP == pytest.approx(77.9, abs=0.1)


def test_packet_engine_queue_before_the_cbr_is_at_most_51(packet):
    # The TCP-Ho paper, §5.1.2: "TCP-Ho's packets queued in the router (at most 51 packets)".
    # In the packet engine the ramp's overshoot is removed by case-2 decreases of maxincr
    # (26, 26, 25, 25 packets) before status 5; the queue is the window minus μd.
    ft = packet.flow("S1-D1")
    t = np.asarray(ft.round_t_s)
    w = np.asarray(ft.round_cwnd_pkts)
    steady = w[(t > 7.0) & (t < 10.0)]
    assert steady.size > 10
    assert np.all(steady - BDP <= 51.0)
    assert np.all(steady >= BDP - 1.0)  # and the link stays full


def test_throughput_addition_converges_within_seven_seconds_in_the_round_model(scenario):
    # The TCP-Ho paper, §5.1.2: TCP-Ho "converges the congestion window size in a short time
    # (less than 7 seconds)" after the available bandwidth halves and doubles, and keeps
    # "at most 51 packets" queued in the steady state. Table 2 alone cannot shed the window
    # (tests/algorithms/test_alg_tcp_ho.py::test_table2_cannot_shed_a_window_after_a_tie);
    # with the decrease="throughput" addition the round model (with the packets' feedback
    # lag) converges in both directions, and the window really moves: to about half
    # during the CBR (the available rate is half: μd/2 = 313 plus its standing queue).
    tr = simulate_scenario_rounds(scenario)  # the default: decrease="throughput"
    conv = np.asarray(tr.summary.convergence_times_s).ravel()
    assert np.all(conv < 7.0)
    t = np.asarray(tr.time_s).ravel()
    w = np.asarray(tr.window_pkts)[:, 0, 0]
    q = np.asarray(tr.queue_pkts).reshape(len(t), -1)[:, 0]
    during = w[(t > 15.0) & (t < 20.0)]
    assert np.all(np.abs(during - BDP / 2) <= 51)
    after = (t > 27.0) | ((t > 7.0) & (t < 10.0))
    assert np.all(np.abs(w[after] - BDP) <= 51) and np.all(q[after] <= 51)


@pytest.fixture(scope="module")
def ode(scenario):
    return simulate(scenario, "ode")


def test_halving_packets_and_ode_agree_without_undershoot(packet, ode):
    # The TCP-Ho paper, §5.1.2: "less than 7 seconds" after the halving (CBR at 10 s here).
    # The packet sender and the ODE engine (whose queue and FIFO shares evolve
    # continuously, like packets) converge within the report's tolerance of each other
    # (±25 % or 3 RTTs of d), and neither cuts below the new pipe μa × d: the trim after
    # the first cut waits until the drain is over (no idle link, no climb back).
    conv_p = float(np.ravel(packet.summary.convergence_times_s)[0])
    conv_o = ode.summary.all_converged_times_s[0]
    assert conv_p < 7.0 and conv_o < 7.0
    assert abs(conv_p - conv_o) <= max(0.25 * conv_p, 3 * D)
    ft = packet.flow("S1-D1")
    t = np.asarray(ft.round_t_s)
    w = np.asarray(ft.round_cwnd_pkts)
    assert np.all(w[(t > 10.0) & (t < 20.0)] >= BDP / 2 - 1.0)
    t_o = np.ravel(ode.time_s)
    w_o = np.asarray(ode.window_pkts)[0].ravel()
    assert np.all(w_o[(t_o > 10.0) & (t_o < 20.0)] >= BDP / 2 - 1.0)


def test_round_model_first_cut_after_the_halving_follows_the_fifo_share(scenario, packet):
    # A packet sender's FIFO share of the bottleneck settles over several rounds after the
    # CBR starts (the CBR's packets join the queue behind the flow's): its first cut is
    # sized from a CMiT well above the available rate μa, and the trim to μa × r (r the
    # calm minimal RTT, 104.2 ms) follows when the drain is over. The round model's queue
    # memory (docs/round-model.md) builds the queue the same way: its first cut is above
    # μa × r too and it converges within the cross-layer tolerance (±25 %) of the packets.
    # Switched off (``queue_memory=False``), its queue is W − μa d already in the round
    # that spans the change, the first cut lands on μa × r and it converges in well under
    # a second.
    mu_a = MU / 2
    r = 0.1042

    def first_cut_and_convergence(memory: bool = True) -> tuple[float, float]:
        tr = simulate(scenario, "rounds", queue_memory=memory)
        t = np.ravel(tr.time_s)
        w = np.asarray(tr.window_pkts)[0].ravel()
        after = w[t > 10.0]
        return after[np.flatnonzero(after < after[0])[0]], tr.summary.all_converged_times_s[0]

    ft = packet.flow("S1-D1")
    tp = np.asarray(ft.round_t_s)
    wp = np.asarray(ft.round_cwnd_pkts)
    after = wp[tp > 10.0]
    first_p = after[np.flatnonzero(after < after[0])[0]]
    conv_p = float(np.ravel(packet.summary.convergence_times_s)[0])
    assert first_p > 1.15 * mu_a * r
    first_r, conv_r = first_cut_and_convergence()
    assert first_r > 1.1 * mu_a * r
    assert conv_r == pytest.approx(conv_p, rel=0.25)
    first_off, conv_off = first_cut_and_convergence(False)
    assert first_off == pytest.approx(mu_a * r, abs=2.0)
    assert conv_off < 1.0 < conv_p


def _matched(kb: float, duration: str):
    """The convergence-vs-BDP path of the report: qv-basic with μd = kb (d = 0.1 s)."""
    from tcpfluid.report._sec_convergence import _cb_overrides

    o = _cb_overrides(kb)
    o["duration"] = duration
    return build_scenario("qv-basic", **o).with_algorithm("tcp-ho")


@pytest.mark.parametrize(("kb", "k"), [(150.0, 12), (500.0, 20), (1000.0, 26)])
def test_new_connection_reaches_the_pipe_at_the_conspicuous_round(kb, k):
    # The closed form of a new connection is the conspicuous round k (the TCP-Ho paper, eq. 4
    # with erratum E8): the round whose window first reaches the available bandwidth. Both
    # engines' windows reach μd within the report's tolerance of k·d (±25 % or 3 rounds);
    # their "time to equilibrium" is a different event, the window settling within 2 %,
    # which adds the ramp's last step above μd (Table 4's W_k = 32, 92, 184 packets for
    # μd = 18.75, 62.5, 125) and its removal, so it lies > 25 % above k·d at small μd.
    d = 0.1
    sc = _matched(kb, "40s")
    mu_d = sc.fluid_view().path.bdp
    assert float(conspicuous_round("tcp-ho", mu_d)) == k
    for engine in ("rounds", "packet"):
        r = simulate(sc, engine)
        t = np.ravel(r.time_s)
        w = np.asarray(r.window_pkts)[0].ravel()
        reach = float(t[np.flatnonzero(w >= mu_d)[0]]) / d
        assert abs(reach - k) <= max(0.25 * k, 3.0), (engine, reach)
        settle = float(r.summary.flows[0].time_to_equilibrium_s) / d
        assert settle > 1.25 * k or kb > 150.0, (engine, settle)
        assert settle > reach + 3.0, (engine, settle, reach)


def test_example1_packet_ramp_runs_one_more_pair():
    # The TCP-Ho paper, Example 1 (μd = 18.75): the round model ends Table 4's ramp at
    # W_12 = 32 packets (the closed form's k = 12; exit reported in the next round, 13):
    # its comparison of round 11 with round 9 (CMiT 222.2 vs PMaT 220.0 packets/s) is a
    # tie at the half-packet resolution. The packet sender's per-ACK increments trail
    # Table 4 by a fraction of a packet (10.6 for 11 at round 6: a round ends at the ACK
    # of its first packet, before the ACKs of its last extra packets), so its round 9
    # shows a smaller throughput and round 11 a clear rise: the ramp runs one more pair
    # (~37 packets, round 15), in rounds stretched by the queue (RTT up to 0.23 s), hence
    # the report's 1.84 s against 1.20 s. At Examples 2 and 3 the comparison is not near a
    # tie and both engines end the ramp in the same round.
    d = 0.1
    for b, same in ((18.75, False), (250.0, True), (625.0, True)):
        from tcpfluid.report._common import matched_overrides

        dur = 1.3 * float(conspicuous_round("tcp-ho", b)) * d + 3.0
        o = matched_overrides("qv-basic", {"duration": f"{dur}s"}, bdp_pkts=b, d_s=d)
        sc = build_scenario("qv-basic", **o).with_algorithm("tcp-ho")
        fr = simulate(sc, "rounds").summary.flows[0]
        fp = simulate(sc, "packet").summary.flows[0]
        if same:
            assert abs(fp.ss_exit_round - fr.ss_exit_round) <= 1
        else:
            k = int(conspicuous_round("tcp-ho", b))
            assert fr.ss_exit_round == k + 1
            # the exit decision at the end of round W_12 = (k² − 2k + 8)/4 = 32 reads the
            # RTTs of round 11 (one-round lag): the summary names that window, W_11 = 27
            assert fr.ss_exit_window_pkts == 27.0
            assert fp.ss_exit_round == k + 3
            assert 32.0 < fp.ss_exit_window_pkts <= 32.0 + 7.0  # one more pair (z = 6)


def test_five_flows_share_fairly_without_loss():
    # The TCP-Ho paper, §5.2.1, Table 5: five TCP-Ho flows on 100 Mb/s × 50 ms with a
    # 300-packet buffer reach Jain's index 0.999995 without loss. Tolerance 1e-4: the
    # packet flows' settled windows differ by fractions of a packet (a chain of trims
    # after the ramp's overshoot walked one flow down to 106 of ~140 packets: 0.990).
    sc = build_scenario(
        "ho-basic", flows=5, bandwidth="100Mbps", rtt="50ms", buffer=300, cbr="none",
        duration="30s",
    ).with_algorithm("tcp-ho")  # fmt: skip
    s = simulate(sc, "packet").summary
    assert s.jain_index == pytest.approx(0.999995, abs=1e-4)
    assert sum(s.losses) == 0


def test_halving_convergence_depends_on_where_the_change_falls_in_the_round():
    # Table 2 compares every other round, and the first cut is sized from the first round
    # whose RTTs show the change: where the CBR's start falls in the flow's rounds decides
    # whether that cut lands inside the 2 % band (convergence at the cut) or a trim after
    # the drain is needed, and how much queue builds before the cut. Moving the start by
    # 0-125 ms moves the packet simulator's convergence over 1.49-2.36 s and its peak queue
    # by more than 10 %; the round model's times (its own round phase,
    # with the queue memory) lie inside the packets' range, the ODE's (1.46-2.76 s) and
    # the peaks of both overlap theirs.
    # One start time compares one phase of each engine, not the law's convergence.
    conv: dict[str, list[float]] = {"rounds": [], "packet": [], "ode": []}
    peak: dict[str, list[float]] = {"rounds": [], "packet": [], "ode": []}
    for start in ("10s", "10.05s", "10.1s", "10.125s"):
        sc = build_scenario(
            "ho-basic", algorithm="tcp-ho", duration="30s", cbr_start=start, cbr_stop="20s"
        )
        for engine, values in conv.items():
            r = simulate(sc, engine)
            values.append(r.summary.all_converged_times_s[0])
            t = np.ravel(r.time_s)
            peak[engine].append(float(np.ravel(r.queue_pkts)[(t > 10.0) & (t < 20.0)].max()))
    p = conv["packet"]
    assert max(p) - min(p) > 0.5
    assert all(min(p) <= c <= max(p) for c in conv["rounds"])
    o = conv["ode"]  # the hybrid's own phase: its range overlaps the packets'
    assert min(o) <= max(p) and min(p) <= max(o)
    assert all(c < 7.0 for c in p + conv["rounds"] + o)
    qp = peak["packet"]
    assert max(qp) > 1.1 * min(qp)
    for engine in ("rounds", "ode"):
        q = peak[engine]
        assert min(q) <= max(qp) and min(qp) <= max(q), engine


def test_halving_convergence_vs_bdp_depends_on_the_phase_too():
    # The report's convergence-vs-BDP path at 1000 kb (μd = 125 packets, CBR of half the
    # bottleneck): as on the §5.1 path, where the CBR's start falls in the rounds decides
    # whether the first cut lands in the 2 % band. Start moved by 0-150 ms: the packet
    # simulator's convergence spans more than 10 base RTTs; the round model's times lie
    # inside the packets' range, all under the TCP-Ho paper's 100 RTTs (Fig. 11).
    from tcpfluid.report._sec_convergence import _cb_overrides

    d = 0.1
    conv: dict[str, list[float]] = {"rounds": [], "packet": []}
    for off in (0.0, 0.05, 0.1, 0.15):
        o = _cb_overrides(1000.0)
        o.update(duration="120s", cbr_start=f"{80 + off}s", cbr_stop="119s")
        sc = build_scenario("qv-basic", **o).with_algorithm("tcp-ho")
        for engine, values in conv.items():
            values.append(simulate(sc, engine).summary.all_converged_times_s[0] / d)
    p = conv["packet"]
    assert max(p) - min(p) > 10.0
    assert all(min(p) <= c <= max(p) for c in conv["rounds"])
    assert all(c < 100.0 for c in p + conv["rounds"])


@pytest.mark.parametrize("kb", [1000.0, 2000.0])
def test_halving_convergence_vs_bdp_the_fluid_engines_follow_the_packets_over_the_phase(kb):
    # The report's convergence-vs-BDP path (CBR of half the bottleneck): after the halving
    # the time is either the first cut (it landed in the 2 % band: under 10 base RTTs) or
    # cut + drain + trim (~12-25), and where the CBR's start falls in the rounds decides
    # which. Start moved by 0-150 ms: the packets show both outcomes (1000 kb: 8.9-19.7,
    # 2000 kb: 9.2-25.1 RTTs) and the round model's and the hybrid ODE's times lie inside
    # their range (one start compares one phase of each engine). All under the TCP-Ho
    # paper's 100 RTTs (Fig. 11).
    from tcpfluid.report._sec_convergence import _cb_overrides

    d = 0.1
    conv: dict[str, list[float]] = {"rounds": [], "ode": [], "packet": []}
    for off in (0.0, 0.05, 0.1, 0.15):
        o = _cb_overrides(kb)
        o.update(duration="120s", cbr_start=f"{80 + off}s", cbr_stop="119s")
        sc = build_scenario("qv-basic", **o).with_algorithm("tcp-ho")
        for engine, values in conv.items():
            values.append(simulate(sc, engine).summary.all_converged_times_s[0] / d)
    p = conv["packet"]
    assert all(c < 100.0 for v in conv.values() for c in v)
    assert min(p) < 10.0 < max(p)  # both outcomes in the packets
    for engine in ("rounds", "ode"):
        assert all(min(p) <= c <= max(p) for c in conv[engine]), engine
