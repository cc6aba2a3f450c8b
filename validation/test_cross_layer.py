"""The fluid engines against the packet simulator, law by law (the packet simulator is the
referee of the fluid layers).

Every test runs the same scenario, with the same control-law object class and defaults,
on a fluid engine and on the packet simulator, and compares the summary the two engines
give. Runs are shortened (the CBR halves the bandwidth for 15 s instead of 80 s) where the
dynamics allow it, to keep the packet runs cheap.

Tolerances (the validation report's): times ±25 % or 3 RTTs, whichever is larger (a
packet run's convergence time moves by whole rounds and its 2 % settling band is crossed
by packet-level noise); windows and queues ±5 % (the fluid window is a mean, the packet
window an integer); utilization ±0.01 (both count the same carried packets).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms import SLOW_START, QuickVegas, get_law
from tcpfluid.fluid import simulate_scenario_hybrid, simulate_scenario_rounds
from tcpfluid.report._common import matched_overrides
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

#: one flow, 50 Mb/s x 100 ms (μd ≈ 626), CBR halving the bandwidth from 15 s to 30 s
SHORT = {"cbr_start": "15s", "cbr_stop": "30s", "duration": "45s"}
#: Vegas ramps +1 per round: a 10 Mb/s path (μd ≈ 125) keeps its runs short
VEGAS_SHORT = {"bandwidth": "10Mbps", "cbr_start": "20s", "cbr_stop": "40s", "duration": "60s"}


def _time_close(a: float | None, b: float | None, rtt_s: float) -> bool:
    """Within ±25 % or 3 RTTs of the packet value ``b``."""
    assert a is not None and b is not None, (a, b)
    return abs(a - b) <= max(0.25 * abs(b), 3.0 * rtt_s)


def _runs(algorithm: str, overrides: dict[str, Any]) -> dict[str, dict[str, Any]]:
    sc = build_scenario("qv-basic", **overrides).with_algorithm(algorithm)
    return {
        "hybrid": simulate_scenario_hybrid(sc).summary.to_dict(),
        "rounds": simulate_scenario_rounds(sc).summary.scenario(0),
        "packet": simulate_packets(sc).summary.to_dict(),
    }


@pytest.fixture(scope="module")
def fast() -> dict[str, dict[str, Any]]:
    return _runs("fast", SHORT)


@pytest.fixture(scope="module")
def vegas() -> dict[str, dict[str, Any]]:
    return _runs("vegas", VEGAS_SHORT)


# ----------------------------------------------------------------------------- Vegas
@pytest.mark.parametrize("engine", ["hybrid", "rounds"])
def test_vegas_fluid_engines_track_the_packet_simulator(
    vegas: dict[str, dict[str, Any]], engine: str
) -> None:
    f, p = vegas[engine], vegas["packet"]
    rtt = 0.1  # the base RTT; Vegas keeps only α..β packets queued
    assert f["ss_exit_window"] == pytest.approx(p["ss_exit_window"], rel=1e-9)
    assert f["settled_window"] == pytest.approx(p["settled_window"], rel=0.05)
    assert _time_close(f["time_to_equilibrium_s"], p["time_to_equilibrium_s"], rtt)
    for a, b in zip(f["convergence_times_s"], p["convergence_times_s"], strict=True):
        assert _time_close(a, b, rtt)
    assert f["utilization"] == pytest.approx(p["utilization"], abs=0.01)


# ----------------------------------------------------------------------------- FAST
def test_fast_hybrid_tracks_the_packet_simulator(fast: dict[str, dict[str, Any]]) -> None:
    # FAST keeps α = 100 packets queued: RTT ≈ 0.1 + 100/6250 s before the halving,
    # 0.1 + 200/3125 s during it
    h, p = fast["hybrid"], fast["packet"]
    assert h["settled_window"] == pytest.approx(p["settled_window"], rel=0.05)
    assert _time_close(h["time_to_equilibrium_s"], p["time_to_equilibrium_s"], 0.116)
    halved, doubled = h["convergence_times_s"]
    assert _time_close(halved, p["convergence_times_s"][0], 0.116)
    assert _time_close(doubled, p["convergence_times_s"][1], 0.116)
    assert h["utilization"] == pytest.approx(p["utilization"], abs=0.01)


def test_fast_round_model_tracks_the_packet_simulator(fast: dict[str, dict[str, Any]]) -> None:
    r, p = fast["rounds"], fast["packet"]
    assert r["settled_window"] == pytest.approx(p["settled_window"], rel=0.05)
    assert _time_close(r["time_to_equilibrium_s"], p["time_to_equilibrium_s"], 0.116)
    for a, b in zip(r["convergence_times_s"], p["convergence_times_s"], strict=True):
        assert _time_close(a, b, 0.116)


def _halving(algorithm: str, memory: bool) -> tuple[float, Any]:
    """The round model's convergence after the halving on qv-basic and its maximum link
    queue while the CBR is on (80-160 s), with the queue memory on or switched off."""
    sc = build_scenario("qv-basic").with_algorithm(algorithm)
    tr = simulate_scenario_rounds(sc, queue_memory=memory)
    t, q = tr.time_s[:, 0], tr.queue_pkts[:, 0]
    return tr.summary.scenario(0)["convergence_times_s"][0], float(q[(t > 80) & (t < 160)].max())


@pytest.mark.parametrize("algorithm", ["quick-vegas", "fast"])
def test_queue_memory_makes_the_halving_track_the_packet_simulator(algorithm: str) -> None:
    # A FIFO shared with the CBR builds the queue over rounds (the flows get their FIFO
    # share of the service, not μa, until the backlog has relaxed): with this queue memory
    # the round model's maximum queue after the halving is within 5 % of the packet
    # simulator's and its convergence time within the time tolerance. Switched off
    # (``queue_memory=False``: the queue jumps to the new standing backlog at the first
    # round boundary, before any law reacts) the peak is > 20 % above the packets' and the
    # convergence about twice as fast: the mechanism of the report's "maximum bottleneck
    # queue, 80-160 s" and FAST / Quick Vegas "convergence after the bandwidth halves"
    # rows, on their scenario.
    sc = build_scenario("qv-basic").with_algorithm(algorithm)
    p = simulate(sc, "packet")
    pt, pq = np.ravel(p.time_s), np.ravel(p.queue_pkts)
    q = float(pq[(pt > 80) & (pt < 160)].max())
    conv = p.summary.to_dict()["convergence_times_s"][0]
    rtt = 0.1 + 200 / 3125  # the standing queue during the halving (FAST: α per flow x 2)
    c_on, q_on = _halving(algorithm, True)
    assert q_on == pytest.approx(q, rel=0.05), (q_on, q)
    assert _time_close(c_on, conv, rtt), (c_on, conv)
    c_off, q_off = _halving(algorithm, False)
    assert q_off > 1.2 * q, (q_off, q)
    assert not _time_close(c_off, conv, rtt), (c_off, conv)


# ----------------------------------------------------------------------------- Quick Vegas
def test_quick_vegas_hybrid_tracks_the_packet_simulator() -> None:
    # The "near-band" reading (the one this run was written for). The hybrid model's
    # windows in the settled phases equal the packet simulator's within 5 %, and the
    # convergence after the doubling is within
    # the time tolerance on this run. After the halving the hybrid settles earlier (2.3 s
    # vs 4.1 s here; 2.5 s vs 3.8 s on the full qv-basic): not asserted, stated as open in
    # docs/ode-model.md.
    sc = build_scenario("qv-basic", **SHORT).with_algorithm("quick-vegas", sampling="near-band")
    h = simulate_scenario_hybrid(sc)
    p = simulate_packets(sc)
    hf, pf = h.flows[0], p.flows[0]
    grid = np.concatenate([np.arange(12.0, 15.0, 0.25), np.arange(25.0, 30.0, 0.25)])
    wh = np.interp(grid, hf.round_t_s, hf.round_next_cwnd_pkts)
    wp = np.interp(grid, pf.round_t_s, pf.round_next_cwnd_pkts)
    np.testing.assert_allclose(wh, wp, rtol=0.05)
    hs, ps = h.summary.to_dict(), p.summary.to_dict()
    assert _time_close(hs["convergence_times_s"][1], ps["convergence_times_s"][1], 0.1)
    assert hs["utilization"] == pytest.approx(ps["utilization"], abs=0.01)


def _rounds_to_reach(t: Any, w: Any, after: float, target: float) -> int:
    t, w = np.asarray(t), np.asarray(w)
    i = int(np.argmax((t > after) & (w >= target)))
    assert t[i] > after and w[i] >= target
    return int(np.count_nonzero((t > after) & (t <= t[i])))


@pytest.mark.parametrize("ack_train", [True, False])
def test_quick_vegas_rounds_to_reach_nw_needs_the_ack_train(ack_train: bool) -> None:
    # Document 000 Fig. 5's experiment: 10 Mb/s, then 20 Mb/s (n = 2), every-round reading.
    # The round model with the ACK train (default) reaches 2W in as many rounds as the
    # packet simulator (11); without it (every round's growth queued in full, the old
    # model) the burst term inflates Δ near α and resets succ: ~3x as many rounds. This
    # is the experiment behind the report's Quick Vegas "rounds to reach nW" rows.
    o = {"bandwidth": "20Mbps", "cbr": "10Mbps", "cbr_start": "0s", "cbr_stop": "20s"}
    sc = build_scenario("qv-basic", duration="35s", **o).with_algorithm(
        "quick-vegas", sampling="every-round"
    )
    w_old = 10e6 / 8000 * sc.fluid_view().path.d
    tr = simulate_scenario_rounds(sc, ack_train=ack_train)
    p = simulate_packets(sc).flows[0]
    k_model = _rounds_to_reach(tr.time_s[:, 0], tr.window_pkts[:, 0, 0], 20.0, 2 * w_old)
    k_packet = _rounds_to_reach(p.round_t_s, p.round_cwnd_pkts, 20.0, 2 * w_old)
    if ack_train:
        assert abs(k_model - k_packet) <= max(3, 0.25 * k_packet), (k_model, k_packet)
    else:
        assert k_model >= 2 * k_packet, (k_model, k_packet)


# ----------------------------------------------------------------------------- lag
def test_round_model_needs_the_feedback_lag_to_follow_packets_round_by_round() -> None:
    # Vegas's slow start and first congestion-avoidance rounds: with the one-round lag
    # (default) the round model's per-round windows equal the packet simulator's; without
    # it (the documents' model) the exit comes one round earlier.
    sc = build_scenario("qv-basic", cbr="none", duration="3s").with_algorithm("vegas")
    p = simulate_packets(sc).flows[0]
    for lag, same in ((1, True), (0, False)):
        tr = simulate_scenario_rounds(sc, feedback_rounds=lag)
        t, w = tr.time_s[:, 0], tr.window_pkts[:, 0, 0]
        m = t <= 1.5
        wp = np.interp(t[m], p.round_t_s, p.round_cwnd_pkts)
        assert bool(np.allclose(w[m], wp, atol=0.5)) is same, (lag, w[m], wp)


# ----------------------------------------------------------------------------- per-flow RTTs
def test_hybrid_runs_different_base_rtts_and_every_law() -> None:
    # the scenarios the round model refuses (one RTT per scenario) run on the hybrid
    # model; each flow measures its own base RTT
    sc = build_scenario("thesis-two-flow", x2="50ms", duration="20s").with_algorithm("vegas")
    h = simulate_scenario_hybrid(sc)
    view = sc.fluid_view(engine="ode")
    base = h.base_rtt_s[:, -1]
    d = np.asarray(view.base_rtt_s)
    # never below the propagation RTT; above it by the queue the other flow keeps (the
    # thesis's BaseRTT over-estimation), the same for both flows on one queue
    assert np.all(base >= d - 1e-9)
    assert base[1] - base[0] == pytest.approx(d[1] - d[0], abs=1e-3)
    for alg in ("quick-vegas", "tcp-ho", "itcp-vegas", "forward-vegas", "enhanced-vegas"):
        s = simulate_scenario_hybrid(sc.with_algorithm(alg)).summary
        assert np.all(s.throughput_pps > 0), alg


# ----------------------------------------------------------------------------- slow-start exit
#: the critical-window grid of the validation report (document 000 Fig. 4), kb at d = 100 ms
_CW_KB = (100.0, 250.0, 500.0, 1000.0, 2000.0, 3000.0, 4000.0, 5000.0)


def _packet_slow_start_windows(n: int) -> list[float]:
    """Quick Vegas's slow-start windows as a packet sender grows them: it sends whole
    packets (floor(W) per round), each ACK adds 1/2 (2, 3, 4.5, 6.5, 9.5, 14, ...)."""
    w = [2.0]
    for _ in range(n):
        w.append(w[-1] + 0.5 * np.floor(w[-1]))
    return w


def _first_at_least(windows: list[float], threshold: float) -> float:
    return next(w for w in windows[1:] if w >= threshold)


def test_quick_vegas_leaves_slow_start_at_eq_10_with_two_thirds_gamma() -> None:
    # What a sender measures: at the end of round k its Δ multiplies the RTTs of round
    # k − 1's packets by the window W_k already grown ×1.5 in round k, so Quick Vegas
    # leaves slow start when the window W_{k−1} whose RTTs it reads has Δ(W_{k−1}) >
    # γ W_{k−1}/W_k = 2γ/3: the critical window of eq. (10) with γ replaced by 2γ/3.
    # Independent route for the packet simulator: that threshold (closed form) applied to
    # the packet sender's own whole-packet windows; the report's packet value is the
    # window whose RTTs the exit decision read. 250, 3000 and 4000 kb tell 2γ/3 from γ.
    from tcpfluid.analytic import critical_window

    kb = np.array([250.0, 3000.0, 4000.0, 100.0])
    bdp = kb * 1000.0 / 8000.0
    windows = _packet_slow_start_windows(16)
    for k, b in zip(kb, bdp, strict=True):
        o = matched_overrides("qv-basic", {"cbr": "none", "duration": "3s"}, bdp_pkts=b, d_s=0.1)
        sc = build_scenario("qv-basic", **o).with_algorithm("quick-vegas")
        got = simulate_packets(sc).summary.to_dict()["ss_exit_window"]
        lagged = _first_at_least(windows, float(critical_window("quick-vegas", b, gamma=2 / 3)))
        printed = _first_at_least(windows, float(critical_window("quick-vegas", b, gamma=1.0)))
        assert got == pytest.approx(lagged), (k, got, lagged)
        if k != 100.0:
            assert got != pytest.approx(printed), (k, got, printed)


def test_round_model_quick_vegas_exit_is_the_packet_senders_under_the_lag() -> None:
    # The round model with its default one-round lag decides in the growth round after
    # the window whose RTTs it reads; its summary names that window (the window whose
    # measurement made it leave). Its slow-start windows are a packet sender's (one packet
    # per two ACKs of the window's whole packets: 2, 3, 4.5, 6.5, 9.5, ...), so it leaves
    # at the first of them at or above eq. (10)'s critical window for 2γ/3, as the packet
    # simulator does (test above), at every BDP of the grid. Switched off
    # (feedback_rounds=0, the documents' model: the law reads the RTTs of the window it
    # sends) the exit window is the first at or above eq. (10)'s for γ. With Table 1's
    # fractional windows (×1.5 a round) the lagged exit would come one window early at
    # 1000 and 5000 kb (22.78, 51.26 where the packets leave at 31.5, 70.5).
    from tcpfluid.analytic import critical_window
    from tcpfluid.fluid.rounds import PathBatch, simulate_rounds

    bdp = np.array(_CW_KB) * 1000.0 / 8000.0
    windows = _packet_slow_start_windows(16)

    def exits(lag: int) -> np.ndarray:
        tr = simulate_rounds(
            get_law("quick-vegas"), PathBatch.from_bdp(bdp, 0.1), rounds=40, record=(),
            feedback_rounds=lag,
        )  # fmt: skip
        return np.asarray(tr.summary.ss_exit_window_pkts[:, 0], dtype=float)

    def closed(gamma: float) -> np.ndarray:
        return np.array(
            [_first_at_least(windows, float(critical_window("quick-vegas", b, gamma=gamma)))
             for b in bdp]
        )  # fmt: skip

    np.testing.assert_allclose(exits(1), closed(2 / 3), rtol=1e-9)
    np.testing.assert_allclose(exits(0), closed(1.0), rtol=1e-9)
    assert not np.allclose(closed(2 / 3), closed(1.0))


def test_round_model_quick_vegas_exit_window_is_the_packet_simulators_on_qv_basic() -> None:
    # The critical-window rows' own runs at 1000 and 5000 kb (the packets leave at 31.5
    # and 70.5): the round model on the same dumbbell leaves slow start with the packet
    # simulator's window, whose RTTs made both leave, at the same round.
    for kb in (1000.0, 5000.0):
        o = matched_overrides(
            "qv-basic", {"cbr": "none", "duration": "3s"}, bdp_pkts=kb / 8.0, d_s=0.1
        )
        sc = build_scenario("qv-basic", **o).with_algorithm("quick-vegas")
        pk = simulate_packets(sc).summary.to_dict()["ss_exit_window"]
        rm = simulate(sc, "rounds").summary.flows[0].ss_exit_window_pkts
        assert rm == pytest.approx(pk, rel=1e-9), (kb, rm, pk)


class _DeltaOfTheMeasuredWindow(QuickVegas):
    """Quick Vegas whose slow start reads Δ on the window whose RTTs it measured (the
    round's ACKs) instead of the window already grown in the round: the sender's one-round
    lag switched off, the documents' model of eqs. (8)-(10). Only Δ changes (through the
    mean RTT it is read from); the growth and the 1/8 cut act on the window as before."""

    def on_round(self, state: Any, sample: Any, out: Any = None) -> Any:
        w = np.asarray(sample.cwnd, dtype=float)
        acks = np.asarray(sample.acks, dtype=float)
        base = np.asarray(sample.base_rtt, dtype=float)
        rtt = np.asarray(sample.rtt_mean, dtype=float)
        ss = (state["phase"] == SLOW_START) & (w > 0)
        share = np.where(ss, acks / np.where(w > 0, w, 1.0), 1.0)
        # cwnd (1 − base/rtt') = acks (1 − base/rtt)
        seen = dataclasses.replace(sample, rtt_mean=base / (1.0 - share * (1.0 - base / rtt)))
        return super().on_round(state, seen, out)


def test_quick_vegas_4000_kb_exit_agrees_with_the_closed_form_without_the_senders_lag() -> None:
    # The critical-window row at 4000 kb (μd = 500): the closed form leaves at Table 1's
    # 76.89 (Δ of a window read on its own RTTs exceeds γ); the packet simulator and the
    # round model leave when they read the RTTs of the window 47, because a sender's Δ
    # multiplies them by the window already grown ×1.5 (2γ/3 on the window measured: 1.09
    # > 1 at 47). Switched off (Δ on the window measured), both leave at 70.5, within the
    # report's window tolerance (±10 %) of the closed form. The hybrid's sender has the
    # same lag and leaves at the packets' 47, and at their 70.5 with the lag switched off.
    from tcpfluid.analytic import slow_start_exit
    from tcpfluid.fluid.hybrid import simulate_hybrid
    from tcpfluid.fluid.rounds import PathBatch, simulate_rounds

    b = 4000.0 / 8.0
    printed = slow_start_exit("quick-vegas", b, 0.1).window_pkts
    o = matched_overrides("qv-basic", {"cbr": "none", "duration": "3s"}, bdp_pkts=b, d_s=0.1)
    sc = build_scenario("qv-basic", **o).with_algorithm("quick-vegas")
    name = sc.flows[0].name

    def packets(law: QuickVegas) -> float:
        return float(simulate_packets(sc, laws={name: law}).summary.to_dict()["ss_exit_window"])

    def rounds(law: QuickVegas) -> float:
        tr = simulate_rounds(law, PathBatch.from_bdp(np.array([b]), 0.1), rounds=40, record=())
        return float(tr.summary.ss_exit_window_pkts[0, 0])

    for run in (packets, rounds):
        lagged, off = run(QuickVegas()), run(_DeltaOfTheMeasuredWindow())
        assert lagged == pytest.approx(47.0) and abs(lagged / printed - 1.0) > 0.10
        assert off == pytest.approx(70.5) and abs(off / printed - 1.0) <= 0.10

    v = sc.fluid_view()

    def hybrid(law: QuickVegas) -> float:
        h = simulate_hybrid(
            law, mu_pps=v.path.mu, base_rtt_s=v.base_rtt_s, duration_s=v.duration_s,
            buffer_pkts=v.path.buffer_pkts,
        ).flows[0]  # fmt: skip
        n = int(np.flatnonzero(np.asarray(h.round_phase) > 0)[0])  # the first round out of it
        return float(h.round_cwnd_pkts[n - 1])

    lagged, off = hybrid(QuickVegas()), hybrid(_DeltaOfTheMeasuredWindow())
    assert lagged == pytest.approx(47.0, abs=1e-9), lagged  # the packets' (above)
    assert off == pytest.approx(70.5, abs=1e-9), off


# ----------------------------------------------------------------------------- FAST, small BDPs
@pytest.mark.parametrize(("kb", "change"), [(150.0, None), (500.0, 1)])
def test_fast_round_model_settles_within_one_round_of_the_packet_simulator(
    kb: float, change: int | None
) -> None:
    # The convergence-bdp section's FAST rows at 150 kb (new connection) and 500 kb (after
    # the doubling): the round model's window follows the packet simulator's round by round
    # (within 5 %), each window stamped at the start of its round in both. At 150 kb both
    # settle in the same round, within the report's "±25 % or 3 RTTs" (counted in base
    # RTTs; a round lasts d plus the α = 100 packets FAST keeps queued, 6.7 base RTTs
    # there). At 500 kb the model's overshoot after the doubling peaks 2.2 % above its
    # settled window (166.1), the packets' 1.8 % (165.7), on either side of the 2 %
    # settling band's edge: the model settles a round later, outside the criterion. With
    # the ACK train spread evenly after the rise the model's overshoot is larger (the next
    # test).
    from tcpfluid.report._sec_convergence import _cb_overrides

    sc = build_scenario("qv-basic", **_cb_overrides(kb)).with_algorithm("fast")
    r = simulate(sc, "rounds")
    p = simulate(sc, "packet")
    start = 0.0 if change is None else r.summary.to_dict()["change_times_s"][change]
    tr, fl = r.native, p.native.flows[0]
    t_r, w_r = tr.time_s[:, 0], tr.window_pkts[:, 0, 0]
    t_p, w_p = np.asarray(fl.round_t_s), np.asarray(fl.round_next_cwnd_pkts)
    a, b = w_r[t_r > start][:20], w_p[t_p > start][:20]
    np.testing.assert_allclose(a, b, rtol=0.05)
    t_r = np.concatenate([[0.0], t_r[:-1]])  # the start of each round (all are recorded)
    s_r, s_p = r.summary.to_dict(), p.summary.to_dict()
    key = "time_to_equilibrium_s" if change is None else "convergence_times_s"
    c_r = s_r[key] if change is None else s_r[key][change]
    c_p = s_p[key] if change is None else s_p[key][change]
    # rounds from the start of the segment to the settling time, in each engine
    k_r = int(np.count_nonzero((t_r > start) & (t_r <= start + c_r + 1e-9)))
    k_p = int(np.count_nonzero((t_p > start) & (t_p <= start + c_p + 1e-9)))
    d = sc.fluid_view().path.d
    if change is None:
        assert k_r == k_p, (k_r, k_p)
        assert _time_close(c_r, c_p, d)
    else:
        assert 0 < k_r - k_p <= 3, (k_r, k_p)
        # ... which the report's criterion (±25 % or 3 base RTTs) does not allow
        assert not _time_close(c_r, c_p, d)


def test_fast_overshoot_after_the_doubling_at_500_kb_is_the_spread_ack_train() -> None:
    # After the CBR stops FAST still keeps α packets queued, so its packets leave the
    # bottleneck back to back and their ACKs return at the new rate: each round's per-ACK
    # growth queues at once (the packets' queue rises 69 -> 101 over the first rounds). The
    # round model's default ACK train, spread at the old rate after a rise, gives that
    # growth the spare capacity of the slower train, so the law reads the small queue one
    # round longer and overshoots to 169.0 packets (packets 165.7). With the train made of
    # runs served back to back (train_runs=True, the switch) the model peaks at 166.1,
    # within 0.5 % of the packets, and the row differs only by the 2 % band's edge.
    from tcpfluid.report._sec_convergence import _cb_overrides

    sc = build_scenario("qv-basic", **_cb_overrides(500.0)).with_algorithm("fast")
    fl = simulate(sc, "packet").native.flows[0]
    t_p, w_p = np.asarray(fl.round_t_s), np.asarray(fl.round_next_cwnd_pkts)
    after = (t_p > 160.0) & (t_p < 166.0)
    peak_p = float(w_p[after].max())

    def peak(train_runs: bool) -> float:
        tr = simulate(sc, "rounds", train_runs=train_runs).native
        t_r, w_r = tr.time_s[:, 0], tr.window_pkts[:, 0, 0]
        return float(w_r[(t_r > 160.0) & (t_r < 166.0)].max())

    spread, runs = peak(False), peak(True)
    assert spread > peak_p * 1.015, (spread, peak_p)
    assert runs == pytest.approx(peak_p, rel=0.005), (runs, peak_p)


@pytest.mark.parametrize(("kb", "change"), [(150.0, None), (1000.0, 1)])
def test_fast_round_model_settles_with_the_packets_when_stamped_at_the_round_start(
    kb: float, change: int | None
) -> None:
    # Both summaries stamp a round's window at the boundary that opens the round, where it
    # takes effect: the packet simulator's ``round_next_cwnd_pkts`` at ``round_t_s``, the
    # round model's ``window_pkts[k]`` at the start of round k (the previous row's time).
    # Settling times are "the first sample after which the series stays in the band". A
    # round lasts d plus the queueing delay of the α = 100 packets FAST keeps queued: 6.7
    # base RTTs at 150 kb, so one round is more than the report's "±25 % or 3 RTTs". The
    # round model's summary settles within the criterion of the packet simulator's (FAST
    # 150 kb new connection 34.4 vs 28.8 base RTTs, 1000 kb after the doubling 15.7 vs
    # 13.6); switch-off: the same windows stamped at their round's end settle one round
    # later (40.9 and 17.5), outside it.
    from tcpfluid import metrics
    from tcpfluid.report._sec_convergence import _cb_overrides

    sc = build_scenario("qv-basic", **_cb_overrides(kb)).with_algorithm("fast")
    r = simulate(sc, "rounds")
    p = simulate(sc, "packet")
    tr = r.native
    t_end, w = tr.time_s[:, 0], tr.window_pkts[:, 0, 0]
    t_start = np.concatenate([[0.0], t_end[:-1]])  # every round is recorded here

    def settle(t: Any) -> float:
        seg = metrics.settling_by_segment(
            t, w, start_s=0.0, end_s=float(sc.duration_s), change_times_s=tr.change_times_s
        )
        ev = seg.equilibrium if change is None else seg.convergence[change]
        assert bool(ev.settled)
        return float(ev.time_s)

    key = "time_to_equilibrium_s"
    s_p, s_r, s_n = p.summary.to_dict(), r.summary.to_dict(), tr.summary.scenario(0)
    c_p = s_p[key] if change is None else s_p["convergence_times_s"][change]
    d = sc.fluid_view().path.d
    # the summaries (the common one and the round model's own) stamp at the round's start
    for s in (s_r, s_n):
        c_r = s[key] if change is None else s["convergence_times_s"][change]
        assert c_r == pytest.approx(settle(t_start), abs=1e-9)
        assert _time_close(c_r, c_p, d)
    # switch-off: stamped at the round's end, one round later and outside the criterion
    assert settle(t_end) > settle(t_start)
    k_start = int(np.count_nonzero(t_start <= settle(t_start) + 1e-9))
    k_end = int(np.count_nonzero(t_end <= settle(t_end) + 1e-9))
    assert k_end == k_start, (k_start, k_end)  # the same round, stamped one round later
    assert not _time_close(settle(t_end), c_p, d)


def test_fast_round_model_halving_at_150_kb_follows_the_packets_and_settles_a_round_late() -> None:
    # FAST at 150 kb after the halving (the convergence-bdp row, 74.6 vs 45.0 base RTTs):
    # the round model's windows, each taken with the round it is sent in, follow the
    # packet simulator's within 2 % round by round (118.8, 118.8, 116.9, 113.7, 111.7,
    # 110.5 vs 118.9, 118.3, 115.5, 113.0, 111.4, 110.4). The settled window is 109.4 and
    # its 2 % band ends at 111.6: the packets' fifth round (111.4) is inside, the model's
    # (111.7) is 0.1 packet outside, so the model settles one round later, and at 150 kb a
    # round lasts d plus the queueing delay of α = 100 packets at half the rate, 11.7 base
    # RTTs (stamped at the round's end, one more round would come on top: the test above).
    from tcpfluid import metrics
    from tcpfluid.report._sec_convergence import _cb_overrides

    sc = build_scenario("qv-basic", **_cb_overrides(150.0)).with_algorithm("fast")
    r = simulate(sc, "rounds")
    p = simulate(sc, "packet")
    tr, fl = r.native, p.native.flows[0]
    change = float(tr.change_times_s[0])
    t_end, w = tr.time_s[:, 0], tr.window_pkts[:, 0, 0]
    t_start = np.concatenate([[0.0], t_end[:-1]])
    t_p, w_p = np.asarray(fl.round_t_s), np.asarray(fl.round_next_cwnd_pkts)
    a, b = w[t_start > change][:10], w_p[t_p > change][:10]
    np.testing.assert_allclose(a, b, rtol=0.02)
    seg = metrics.settling_by_segment(
        t_start, w, start_s=0.0, end_s=float(sc.duration_s), change_times_s=tr.change_times_s
    )
    c_r = float(seg.convergence[0].time_s)
    c_p = p.summary.to_dict()["convergence_times_s"][0]
    k_r = int(np.count_nonzero((t_start > change) & (t_start <= change + c_r + 1e-9)))
    k_p = int(np.count_nonzero((t_p > change) & (t_p <= change + c_p + 1e-9)))
    assert k_r == k_p + 1, (k_r, k_p)
    # the window the model leaves the band with lies within 0.2 packets of the band's edge
    settled = float(seg.convergence[0].value)
    last_out = a[k_r - 2]
    assert 0.0 < abs(last_out - settled) - 0.02 * settled < 0.2


def test_quick_vegas_halving_at_3000_kb_cycles_in_the_round_model_through_its_queue_memory() -> (
    None
):
    # Quick Vegas at 3000 kb after the halving (the convergence-bdp row: the packets settle
    # in 27.3 base RTTs): the round model's window
    # keeps a cycle of 187.3-196.0 packets while the CBR is on, wider than the 2 % band
    # around its mean (±3.8), where the packets' window stays in 189-192. The cycle comes
    # from the queue memory (the shared FIFO's backlog relaxing by μa/μ per round, so the
    # RTTs the law reads trail its window): switched off, the model's cycle is 188.8-192.5,
    # inside the band, and it settles before the packets (19.5 base RTTs; 27.6 with the
    # band 2 % around the mean alone, which the packets' last excursion still leaves).
    from tcpfluid.report._sec_convergence import _cb_overrides

    sc = build_scenario("qv-basic", **_cb_overrides(3000.0)).with_algorithm("quick-vegas")
    p = simulate(sc, "packet")
    c_p = p.summary.to_dict()["convergence_times_s"][0]
    fl = p.native.flows[0]
    t_p, w_p = np.asarray(fl.round_t_s), np.asarray(fl.round_next_cwnd_pkts)
    tail_p = w_p[(t_p > 120.0) & (t_p < 160.0)]

    def run(memory: bool) -> tuple[float | None, Any]:
        r = simulate(sc, "rounds", queue_memory=memory)
        t, w = r.native.time_s[:, 0], r.native.window_pkts[:, 0, 0]
        return r.summary.to_dict()["convergence_times_s"][0], w[(t > 120.0) & (t < 160.0)]

    def cycle(w: Any) -> float:
        return float(w.max() - w.min()) / float(w.mean())

    c_on, tail_on = run(True)
    # a cycle that neither drifts nor grows is Quick Vegas's own kind of steady state
    # (tcpfluid.metrics.settling): the round model settles in it, after the packets, whose
    # window stays in the 2 % band
    assert c_on is not None and c_on > c_p
    assert cycle(tail_on) > 2 * 0.02 and cycle(tail_p) < 2 * 0.02
    c_off, tail_off = run(False)
    assert cycle(tail_off) < 2 * 0.02
    assert c_off is not None and c_off < c_p < c_on
