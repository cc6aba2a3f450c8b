"""Rounds to a new equilibrium (the Quick Vegas paper, §4.2, eqs. (11)/(12), Fig. 5) across layers.

Setting: the qv-basic dumbbell at n × 10 Mb/s and d = 100 ms with a CBR of (n − 1) × 10 Mb/s
that stops at 30 s; one Quick Vegas flow then climbs from W = 125 to nW packets.

Mechanism shown here: in the packet simulator the flow's packets travel as a train spaced
by the bottleneck (the link is busy W/(μd) of each round), so the extra packets of the
per-ACK increments ("the incr is served as the increment amount of congestion window after
each ACK is received", §3.2.2) queue behind the train before any standing queue exists. The
round's *mean* RTT, from which Δ is computed, counts that queue: Δ reaches α well below nW,
succ resets, and the ramp falls to +1 per round. Eq. (12) assumes Δ ≈ 0 during the ramp and
the round model's ACK train is spread evenly over the round (docs/round-model.md), so
neither sees that queue. Switching it off in the packet sender's measurement (Δ from the
round's minimum RTT, which the train's own queue does not reach: its head packet sees the
empty queue) brings the packet simulator to eq. (12) and to the round model.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms import QuickVegas
from tcpfluid.algorithms.base import RoundAction, RoundSample
from tcpfluid.analytic import rounds_to_equilibrium
from tcpfluid.report import TOLERANCES
from tcpfluid.report._mechanisms import TRAIN_QUEUE_N, TRAIN_QUEUE_SETTLING_KB, TRAIN_RUNS_N
from tcpfluid.report._sec_analytic import (
    DOCUMENT_PARAMS,
    _ne_closed,
    _ne_setup,
    _rounds_to_reach,
)
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

D_S = 0.1
BASE_BPS = 10e6  # the Quick Vegas paper, §4.2: "original used bandwidth (10 Mbps)"
W = BASE_BPS * D_S / 8000.0  # 125 packets of 1000 bytes
T_CHANGE = 30.0


class _DeltaFromMinimumRtt(QuickVegas):
    """Quick Vegas whose Δ uses the round's minimum RTT instead of its mean (switch-off)."""

    def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
        return super().on_round(state, dataclasses.replace(sample, rtt_mean=sample.rtt_min))


def _scenario(n: int) -> Any:
    o: dict[str, Any] = {
        "cbr": f"{(n - 1) * BASE_BPS / 1e6:g}Mbps",
        "cbr_start": "0s",
        "cbr_stop": f"{T_CHANGE:g}s",
        "duration": f"{T_CHANGE + 40.0:g}s",
        "bandwidth": f"{float(n * BASE_BPS)!r}bps",
        "rtt": D_S,
    }
    # base RTT (propagation + transmission, the Quick Vegas paper, eq. (5)) exactly d
    o["rtt"] = D_S - (build_scenario("qv-basic", **o).fluid_view().path.d - D_S)
    return build_scenario("qv-basic", **o).with_algorithm("quick-vegas")


def _rounds_to(t: Any, w: Any, target: float) -> int:
    t, w = np.asarray(t), np.asarray(w)
    after = t > T_CHANGE
    hit = np.flatnonzero(after & (w >= target))
    assert hit.size, "the window never reached nW"
    return int(np.count_nonzero(after & (t <= t[hit[0]])))


def _packet(n: int, law: QuickVegas) -> Any:
    sc = _scenario(n)
    return simulate_packets(sc, laws={sc.flows[0].name: law}).flows[0]


@pytest.mark.parametrize("n", [6, 8])
def test_train_queue_of_per_ack_increments_slows_the_packet_ramp(n: int) -> None:
    """The packets' ramp after an n-fold rise, with and without the train's queue in Δ;
    the round model with its ACK train spread evenly (``train_runs=False``) has none."""
    eq12 = float(rounds_to_equilibrium("quick-vegas", W, n, beta=4.0))
    target = n * W
    on = _packet(n, QuickVegas())
    off = _packet(n, _DeltaFromMinimumRtt())
    r = simulate(_scenario(n), "rounds", train_runs=False).native
    rounds_model = _rounds_to(r.time_s, r.window_pkts[:, 0], target)

    # mechanism on: Δ reaches α (2) while the window is still below μd = nW (no standing
    # queue in the fluid sense), and the ramp takes more than twice eq. (12)'s rounds
    after = on.round_t_s > T_CHANGE
    first = np.flatnonzero(after & (on.round_delta_pkts >= 2.0))[0]
    assert on.round_cwnd_pkts[first] < 0.95 * target
    assert _rounds_to(on.round_t_s, on.round_cwnd_pkts, target) > 2.0 * eq12

    # mechanism off: eq. (12) within the report's ±35 % for this row, and the round model
    # (an independent engine) within the fluid-vs-packet criterion (±25 % or 3 rounds)
    n_off = _rounds_to(off.round_t_s, off.round_cwnd_pkts, target)
    assert abs(n_off - eq12) <= 0.35 * eq12
    assert abs(n_off - rounds_model) <= max(0.25 * rounds_model, 3.0)


def _qv_basic_at(bdp_pkts: float) -> Any:
    """qv-basic (CBR of half the bottleneck from 80 s to 160 s) at μd = ``bdp_pkts``, d = 0.1 s."""
    bw = bdp_pkts / D_S * 8000.0
    o: dict[str, Any] = {
        "cbr": f"{bw / 2 / 1e6:g}Mbps",
        "bandwidth": f"{float(bw)!r}bps",
        "rtt": D_S,
    }
    o["rtt"] = D_S - (build_scenario("qv-basic", **o).fluid_view().path.d - D_S)
    return build_scenario("qv-basic", **o).with_algorithm("quick-vegas")


def test_doubling_reaches_nw_as_eq12_plus_the_detection_lag_and_overshoots_by_the_train() -> None:
    """The bandwidth doubles at 160 s (n = 2, W = μd/2, μd = 625 packets = 5000 kb).

    Eq. (12) counts rounds from the first estimation with Δ < α; an engine sees the change
    two rounds after it (§3.2.2: "can be detected at the (i + 2)th round"), and eq. (12)'s
    real-valued i is reached at the next whole round: both engines reach μd in
    ceil(i) + 2 rounds, ±1. What they then report as convergence is the settling into the
    2 % band after the overshoot above μd; the packet flow overshoots less because its
    train queue lifts Δ to α/4 before μd (a measurement round, sampling="near-band") —
    with Δ from the round's minimum RTT its peak is that of the round model with its ACK
    train spread evenly (``train_runs=False``, no train queue).
    """
    mud = 625.0
    sc = _qv_basic_at(mud)
    t_double = 160.0
    predicted = float(np.ceil(float(rounds_to_equilibrium("quick-vegas", mud / 2, 2.0, beta=4.0))))
    predicted += 2.0
    r = simulate(sc, "rounds", train_runs=False).native
    on = simulate_packets(sc, laws={sc.flows[0].name: QuickVegas()}).flows[0]
    off = simulate_packets(sc, laws={sc.flows[0].name: _DeltaFromMinimumRtt()}).flows[0]

    def reach(t: Any, w: Any) -> int:
        t, w = np.asarray(t), np.asarray(w)
        after = t > t_double
        hit = np.flatnonzero(after & (w >= mud))[0]
        return int(np.count_nonzero(after & (t <= t[hit])))

    def peak(t: Any, w: Any) -> float:
        t, w = np.asarray(t), np.asarray(w)
        return float(w[(t > t_double) & (t < t_double + 5.0)].max())

    assert abs(reach(r.time_s, r.window_pkts[:, 0]) - predicted) <= 1
    assert abs(reach(on.round_t_s, on.round_cwnd_pkts) - predicted) <= 1
    p_rm = peak(r.time_s, r.window_pkts[:, 0])
    assert peak(on.round_t_s, on.round_cwnd_pkts) < 0.95 * p_rm
    assert abs(peak(off.round_t_s, off.round_cwnd_pkts) - p_rm) <= 0.03 * p_rm


def test_new_connection_at_1000_kb_differs_only_by_the_settling_band() -> None:
    """A new connection at μd = 125 packets (1000 kb, the first 80 s of qv-basic).

    Both engines follow the same ramp and settle into Quick Vegas's in-band cycle of ±1
    moves around ~128 packets; the round model's cycle swings about ±2.5 packets, the
    packets' ±2, against a settling band of 2 % = ±2.6 packets. With that band drawn
    around the tail's mean alone the round model's time depended on when its cycle fell
    inside it (44.5 vs 33 RTTs); drawn around the cycle's steady envelope (the rule of
    tcpfluid.metrics.settling) the two agree within the section's ±25 % / 3 RTTs (36.2
    vs 32.1), and so they do with the band widened to β = 4 packets.
    """
    from tcpfluid.metrics import settling

    sc = _qv_basic_at(125.0)
    r = simulate(sc, "rounds").native
    p = simulate_packets(sc).flows[0]

    def t_settle(t: Any, w: Any, band: float) -> float:
        s = settling(t, w, t_start=0.0, t_end=80.0, abs_tol=band)
        return float(np.ravel(s.time_s)[0]) / D_S

    rm_2pc, pk_2pc = (
        t_settle(r.time_s, r.window_pkts[:, 0], 1.0),
        t_settle(p.round_t_s, p.round_cwnd_pkts, 1.0),
    )
    assert abs(rm_2pc - pk_2pc) <= max(0.25 * pk_2pc, 3.0)
    rm_b, pk_b = (
        t_settle(r.time_s, r.window_pkts[:, 0], 4.0),
        t_settle(p.round_t_s, p.round_cwnd_pkts, 4.0),
    )
    assert abs(rm_b - pk_b) <= max(0.25 * pk_b, 3.0)


@pytest.mark.parametrize("kb", [3000.0, 4000.0, 5000.0])
def test_doubling_settles_with_the_round_model_once_the_train_queue_is_switched_off(
    kb: float,
) -> None:
    """Settling after the doubling (convergence vs BDP, μd = kb/8 packets), in RTTs.

    The packet flow settles sooner than the round model with its ACK train spread evenly
    (``train_runs=False``, no train queue): its train queue stops the ramp
    before μd (a measurement round, ``sampling="near-band"``), so it overshoots less. With
    Δ from the round's minimum RTT (the train's queue switched off) the packet settling
    time is the round model's within the fluid-vs-packet criterion (±25 % or 3 RTTs).
    """
    sc = _qv_basic_at(kb / 8.0)
    # the round model's train spread evenly over the round (no queue of its own)
    rounds = simulate(sc, "rounds", train_runs=False).summary.flows[0].convergence_times_s[1]
    on = simulate_packets(sc).summary.convergence_times_s[0][1]
    off = simulate_packets(sc, laws={sc.flows[0].name: _DeltaFromMinimumRtt()})
    off_s = off.summary.convergence_times_s[0][1]
    assert rounds is not None
    rm, pk, pk_off = rounds / D_S, float(on) / D_S, float(off_s) / D_S

    def agree(x: float, ref: float) -> bool:
        return abs(x - ref) <= max(0.25 * ref, 3.0)

    assert pk < rm and not agree(rm, pk)
    assert agree(rm, pk_off)


def test_hybrid_doubling_settles_with_the_packets_once_their_train_queue_is_switched_off() -> None:
    """Settling after the doubling (convergence vs BDP at 3000-5000 kb), hybrid ODE engine.

    The hybrid's fluid train has no runs of back-to-back packets, so it has no train queue
    and its ramp is not stopped before μd: it overshoots as a packet flow whose Δ comes
    from the round's minimum RTT (the train's queue switched off) and settles with it
    within ±25 % / 3 RTTs at every BDP (20.5 vs 18.9 RTTs at 4000 kb). With the train's
    queue, the packets' settling time jumps with where the measurement round falls
    (14.6 / 13.0 / 17.9 RTTs): at 4000 kb it is 37 % below the hybrid's.
    """
    ode, pk, pk_off = {}, {}, {}
    for kb in (3000.0, 4000.0, 5000.0):
        sc = _qv_basic_at(kb / 8.0)
        t = simulate(sc, "ode").summary.flows[0].convergence_times_s[1]
        assert t is not None
        ode[kb] = t / D_S
        pk[kb] = float(simulate_packets(sc).summary.convergence_times_s[0][1]) / D_S
        off = simulate_packets(sc, laws={sc.flows[0].name: _DeltaFromMinimumRtt()})
        pk_off[kb] = float(off.summary.convergence_times_s[0][1]) / D_S

    def agree(x: float, ref: float) -> bool:
        return abs(x - ref) <= max(0.25 * ref, 3.0)

    assert all(agree(ode[kb], pk_off[kb]) for kb in ode)
    assert not agree(ode[4000.0], pk[4000.0]) and pk[4000.0] < ode[4000.0]


def test_qv_basic_doubling_settles_as_the_document_reports_once_the_train_queue_is_off() -> None:
    """qv-basic (§5.1): convergence after the bandwidth doubles at 160 s, packet simulator.

    The document's ns-2 run settles 2.0 s after the doubling. Our packet flow settles
    sooner because its train queue stops the ramp before μd (smaller overshoot); with
    Δ from the round's minimum RTT (the train's queue switched off) it settles in the
    document's time within the row's tolerance (a document time, ±10 % or 0.2 s). The
    same switch is not a better reading overall: it also removes the slow-start burst from
    Δ (the ramp ends at about 3 s instead of the document's 13 s) and slows the settling
    after the halving.
    """
    from tcpfluid.published import published

    document = float(published("000/5.1/qv/doubled").value)
    sc = build_scenario("qv-basic").with_algorithm("quick-vegas")
    on = simulate_packets(sc).summary.convergence_times_s[0][1]
    off = simulate_packets(sc, laws={sc.flows[0].name: _DeltaFromMinimumRtt()})
    off_s = float(off.summary.convergence_times_s[0][1])

    def agree(x: float) -> bool:
        return TOLERANCES["document time"].passes(x, document)

    assert float(on) < document and not agree(float(on))
    assert agree(off_s)
    # and what the switch costs elsewhere (why it is not the default)
    ramp = float(published("000/5.1/qv/ramp_up").value)
    assert float(off.summary.time_to_equilibrium_s[0]) < 0.5 * ramp


def test_doubling_at_1000_kb_round_model_swings_back_from_its_undershoot() -> None:
    """Settling after the doubling at μd = 125 packets (1000 kb), in RTTs.

    The round model with its ACK train spread evenly (``train_runs=False``; with the
    train's runs it settles with the packets:
    :func:`test_round_model_doubling_settles_with_the_packets_with_the_trains_runs`)
    overshoots to ~176 packets (the packets to ~141: their train queue stops the ramp
    before μd), eq. (4) cuts it below the pipe (~121 < μd) where the packets
    stay above it (~126), and from there ``"near-band"`` takes eq.-(3) increases far from
    the band, unseen for two decisions: a second swing above the band before it settles.
    With the increases after an overshoot measured (``"near-band-after-overshoot"``, the
    switch) the round model makes the same undershoot, regrows without the second swing,
    and settles sooner (15.8 RTTs), but no longer with the packets (10.9: their cycle's
    lowest window after the doubling, ~126 packets at 161.9 s, lies in the band around
    their resting range; it was out of the band around the mean alone, 19.2 RTTs): the
    undershoot below the pipe is left.
    """
    mud = 125.0
    sc = _qv_basic_at(mud)
    t_double = float(sc.cbr[0].stop_s)
    pk = simulate_packets(sc)
    pk_s = float(pk.summary.convergence_times_s[0][1]) / D_S

    def after_peak(t: Any, w: Any) -> tuple[float, float, float]:
        t, w = np.ravel(np.asarray(t)), np.ravel(np.asarray(w))
        on = (t > t_double) & (t < t_double + 5.0)
        i = int(np.flatnonzero(on)[np.argmax(w[on])])
        low = i + int(np.argmin(w[i : int(np.flatnonzero(on)[-1]) + 1]))
        return float(w[i]), float(w[low]), float(w[low : int(np.flatnonzero(on)[-1]) + 1].max())

    def agree(x: float, ref: float) -> bool:
        return abs(x - ref) <= max(0.25 * ref, 3.0)

    f = pk.flows[0]
    pk_peak, pk_low, _ = after_peak(f.round_t_s, f.round_cwnd_pkts)
    runs = {}
    for sampling in ("near-band", "near-band-after-overshoot"):
        law = sc.with_algorithm("quick-vegas", sampling=sampling)
        r = simulate(law, "rounds", train_runs=False)
        settle = r.summary.flows[0].convergence_times_s[1]
        assert settle is not None
        runs[sampling] = (after_peak(r.native.time_s, r.native.window_pkts[:, 0]), settle / D_S)
    (peak, low, back), rm_s = runs["near-band"]
    (peak_m, low_m, back_m), rm_m = runs["near-band-after-overshoot"]
    assert peak > 1.1 * pk_peak and peak_m == pytest.approx(peak, rel=0.02)
    assert low < mud <= pk_low
    assert low_m == pytest.approx(low, rel=0.02)
    assert back > back_m  # the second swing, gone when the increases are measured
    assert not agree(rm_s, pk_s)
    assert pk_s < rm_m < rm_s


@pytest.mark.xfail(
    strict=True,
    reason=(
        "measured: the doubling's settling times over the four phases are 1.57, 1.68, 1.79 "
        "and 1.73 s against the document's 2.0 s, none within the report's document time "
        "(±10 % or 0.2 s: 1.8-2.2 s; 1.79 s is -10.4 %); the claim held only under a stale "
        "±10 % or 0.3 s. The halving's 3.60, 3.75, 5.66, 3.79 s against 3.3 s: within it "
        "at the scenario's own phase only, as stated"
    ),
)
def test_qv_basic_settling_times_over_where_the_halving_falls_in_the_round() -> None:
    """qv-basic (§5.1), packet simulator, with the CBR start (the halving) moved by 0-100 ms.

    Where the change falls in the flow's round sets the state the doubling at 160 s
    meets: the doubling's settling time spans the document's 2.0 s (1.57 s at the
    scenario's own phase). The settling after the halving stays above the document's
    3.3 s at every phase (3.60-5.66 s; within its ±10 % or 0.2 s only at the scenario's own
    phase, 3.60 s).
    """
    from tcpfluid.published import published

    doubled = float(published("000/5.1/qv/doubled").value)
    halved = float(published("000/5.1/qv/halved").value)

    def agree(x: float, ref: float) -> bool:
        return TOLERANCES["document time"].passes(x, ref)

    times = []
    for offset in (0.0, 0.04, 0.06, 0.1):
        sc = build_scenario("qv-basic", cbr_start=f"{80.0 + offset:g}s")
        conv = simulate_packets(sc.with_algorithm("quick-vegas")).summary.convergence_times_s
        times.append((float(conv[0][0]), float(conv[0][1])))
    assert not agree(times[0][1], doubled)
    assert any(agree(d, doubled) for _, d in times)
    assert all(h > halved for h, _ in times)
    assert [agree(h, halved) for h, _ in times] == [True, False, False, False]


def _agree(x: float, ref: float) -> bool:
    """The fluid-vs-packet criterion of the report: ±25 % or 3 (rounds or RTTs)."""
    return abs(x - ref) <= max(0.25 * ref, 3.0)


def _rounds_to_nw_with_and_without_runs(n: int) -> tuple[int, int, int]:
    """Rounds from an n-fold rise to nW: packets, round model with the train's runs, round
    model with the train spread evenly."""
    target = n * W
    sc = _scenario(n)
    f = _packet(n, QuickVegas())
    on = simulate(sc, "rounds", train_runs=True).native
    off = simulate(sc, "rounds", train_runs=False).native
    return (
        _rounds_to(f.round_t_s, f.round_cwnd_pkts, target),
        _rounds_to(on.time_s, on.window_pkts[:, 0], target),
        _rounds_to(off.time_s, off.window_pkts[:, 0], target),
    )


@pytest.mark.parametrize("n", [5, 7, 10])
def test_round_model_ramp_follows_the_packets_with_the_trains_runs(n: int) -> None:
    """Rounds from the n-fold rise until the window reaches nW, round model vs packets.

    With the ACK train made of runs (``train_runs=True``) the round model's per-ACK growth
    queues inside the runs as the packets' does, Δ reaches α/4 below nW and the ramp
    slows as in the packet simulator (n = 5 / 7 / 10: 31 / 42 / 58 rounds against the
    packets' 31 / 46 / 56). With the train spread evenly (``False``) it meets eq. (12)
    instead (18 / 22 / 27 rounds).
    """
    pk, n_on, n_off = _rounds_to_nw_with_and_without_runs(n)
    assert _agree(n_on, pk)
    assert not _agree(n_off, pk)
    eq12 = float(rounds_to_equilibrium("quick-vegas", W, n, beta=4.0))
    assert abs(n_off - (np.ceil(eq12) + 2)) <= 0.35 * eq12


@pytest.mark.parametrize(("kb", "with_runs_agrees"), [(1000.0, False), (5000.0, True)])
def test_round_model_doubling_settles_with_the_packets_with_the_trains_runs(
    kb: float, with_runs_agrees: bool
) -> None:
    """Settling after the doubling (convergence vs BDP), round model vs packets, RTTs.

    With the train's runs the round model's ramp stops before μd as the packets' does
    (smaller overshoot): 18.2 / 18.0 RTTs at 1000 / 5000 kb against the packets' 10.9 /
    17.9; with the train spread evenly it overshoots and settles later. At 1000 kb the
    packets' lowest window after the doubling (~126 packets at 161.9 s) lies in the band
    around their resting range (it was out of the band around the mean alone: 19.2 RTTs,
    with the round model's 19.3), so the runs no longer bring the round model to them.
    """
    sc = _qv_basic_at(kb / 8.0)
    pk = float(simulate_packets(sc).summary.convergence_times_s[0][1]) / D_S
    t = {}
    for runs in (True, False):
        c = simulate(sc, "rounds", train_runs=runs).summary.flows[0].convergence_times_s[1]
        assert c is not None
        t[runs] = c / D_S
    assert _agree(t[True], pk) == with_runs_agrees, (t, pk)
    assert not _agree(t[False], pk)
    assert t[True] < t[False]


@pytest.mark.xfail(
    strict=True,
    reason=(
        "measured: with the train's runs the round model settles in 1.79 s against the "
        "document's 2.0 s: -10.6 %, 0.21 s, outside the report's document time (±10 % or "
        "0.2 s); the claim held only under a stale ±10 % or 0.3 s"
    ),
)
def test_qv_basic_doubling_round_model_settles_as_the_document_with_the_trains_runs() -> None:
    """qv-basic (§5.1): settling after the bandwidth doubles at 160 s, round model.

    With the train's runs the round model settles in 1.79 s, inside the document's 2.0 s
    ± 10 % / 0.3 s and within ±25 % / 0.3 s of the packets' 1.57 s; spread evenly it
    overshoots further and takes 2.32 s.
    """
    from tcpfluid.published import published

    document = float(published("000/5.1/qv/doubled").value)
    sc = build_scenario("qv-basic").with_algorithm("quick-vegas")
    pk = float(simulate_packets(sc).summary.convergence_times_s[0][1])
    t = {}
    for runs in (True, False):
        c = simulate(sc, "rounds", train_runs=runs).summary.flows[0].convergence_times_s[1]
        assert c is not None
        t[runs] = c
    doc_tol, time_tol = TOLERANCES["document time"], TOLERANCES["time"]  # the report's
    assert doc_tol.passes(t[True], document) and time_tol.passes(t[True], pk)
    assert not doc_tol.passes(t[False], document) and not time_tol.passes(t[False], pk)


@pytest.mark.xfail(
    strict=True,
    reason="measured: with the rise at the nominal time the round model reaches nW in 16 "
    "rounds with the train's runs and 12 spread evenly (packets 17; eq. (12)'s ceil(i) + 2 "
    "= 13); with the rise 1-6 whole rounds later both readings take 14 (7 later: 18 with "
    "the runs; packets 13-14). Which of Quick Vegas's 6-round cycle rounds the rise meets "
    "decides it: since a flow's first round sends its first window without growth, as a "
    "packet sender's, the cycle meets the nominal rise one round further on (before: 14 and 14)",
)
def test_n3_round_model_reaches_nw_in_eq12_rounds_with_and_without_the_runs() -> None:
    """n = 3: the runs do not hold the ramp; both readings reach nW in eq. (12)'s
    ⌈i⌉ + 2 = 13 rounds within a round."""
    _, n_on, n_off = _rounds_to_nw_with_and_without_runs(3)
    eq12 = float(rounds_to_equilibrium("quick-vegas", W, 3, beta=4.0))
    assert n_on == n_off and abs(n_on - (np.ceil(eq12) + 2)) <= 1


def test_round_model_with_the_trains_runs_holds_early_near_the_pipe() -> None:
    """Where the train's runs take the round model away from the packets.

    * n-fold rise at n = 4: the round model with the runs needs more rounds to reach nW
      than the packets (22 against 17); with the train spread evenly it gives eq. (12)'s
      count (17), which is also the packets'. Its runs merge faster than the packets' near
      the pipe (validation/test_train_clumps.py::
      test_near_the_pipe_the_models_runs_merge_faster_than_the_packets_at_n4; the switch:
      test_n4_round_model_reaches_nw_with_the_packets_once_its_runs_merge_as_theirs). At
      n = 3: the test below.
    * doubling at 2000 kb (μd = 250): with the runs the ramp stops at ~270 packets, below
      the packets' ~291 (spread evenly ~313), and it settles sooner (13.2 against 18.3
      RTTs; spread evenly 18.8).
    """
    pk, n_on, n_off = _rounds_to_nw_with_and_without_runs(4)
    eq12 = float(rounds_to_equilibrium("quick-vegas", W, 4, beta=4.0))
    assert n_on > pk and n_on > n_off
    assert _agree(n_off, pk) and abs(n_off - (np.ceil(eq12) + 2)) <= 0.35 * eq12

    mud = 250.0
    sc = _qv_basic_at(mud)
    t_double = float(sc.cbr[0].stop_s)
    p = simulate_packets(sc)
    f = p.flows[0]

    def peak(t: Any, w: Any) -> float:
        t, w = np.ravel(np.asarray(t)), np.ravel(np.asarray(w))
        return float(w[(t > t_double) & (t < t_double + 5.0)].max())

    pk_peak = peak(f.round_t_s, f.round_cwnd_pkts)
    pk_s = float(p.summary.convergence_times_s[0][1]) / D_S
    res = {runs: simulate(sc, "rounds", train_runs=runs) for runs in (True, False)}
    peaks = {k: peak(r.native.time_s, r.native.window_pkts[:, 0]) for k, r in res.items()}
    assert peaks[True] < pk_peak < peaks[False]
    settle = res[True].summary.flows[0].convergence_times_s[1]
    assert settle is not None and settle / D_S < pk_s and not _agree(settle / D_S, pk_s)


def test_doubling_at_3000_kb_round_model_with_runs_differs_by_the_settling_band_edge() -> None:
    """Settling after the doubling at μd = 375 packets (3000 kb), round model with the
    train's runs against the packets.

    The windows agree within 2.5 % round by round over the 30 rounds after the doubling
    (peak 399 vs 397); in the swing back one of the round model's windows lies 0.4 packet
    outside the 2 % band around the tail's mean (386 against 370.8-385.8), which made it
    settle 6 RTTs later (21.7 vs 15.6 RTTs, measured from the doubling). Drawn around the
    window's steady envelope (tcpfluid.metrics.settling) the 2 % band holds that window
    and they settle together (15.6 / 15.6), as with a 2.5 % band.
    """
    from tcpfluid.metrics import settling

    sc = _qv_basic_at(375.0)
    t_double = float(sc.cbr[0].stop_s)
    r = simulate(sc, "rounds", train_runs=True).native
    f = simulate_packets(sc).flows[0]
    t, w = np.ravel(r.time_s), np.ravel(r.window_pkts)
    a, b = w[t > t_double][:30], f.round_cwnd_pkts[f.round_t_s > t_double][:30]
    assert np.max(np.abs(a / b - 1.0)) < 0.025

    def settle(rel: float) -> tuple[float, float]:
        s_rm = settling(t, w, t_start=t_double, rel_tol=rel)
        s_pk = settling(f.round_t_s, f.round_cwnd_pkts, t_start=t_double, rel_tol=rel)
        return float(s_rm.time_s) / D_S, float(s_pk.time_s) / D_S

    rm, pk = settle(0.02)
    assert _agree(rm, pk)
    rm, pk = settle(0.025)
    assert _agree(rm, pk)


def test_doubling_at_4000_kb_round_model_with_runs_is_a_near_tie_at_the_near_band_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settling after the doubling at μd = 500 packets (4000 kb), round model with the
    train's runs against the packets.

    In the round that decides whether the ramp pauses (window ~470, 0.94 of μd) the round
    model's Δ is 0.42 packets and the packets' 0.6, either side of the near-band rule's
    α/4 = 0.5 (a near-tie; the runs model is 30 % low there): the packets measure a round
    and stop at ~505, the round model takes one more increase to ~544 and settles later
    (17.1 vs 13.0 RTTs). With the rule at α/5 (the switch) the round model pauses in
    that round too and settles in 12.8 RTTs, while the packets, whose Δ was above both,
    keep their 13.0.
    """
    import tcpfluid.algorithms.quick_vegas as qv_module

    sc = _qv_basic_at(500.0)

    def times() -> tuple[float, float]:
        c = simulate(sc, "rounds", train_runs=True).summary.flows[0].convergence_times_s[1]
        pk = simulate_packets(sc).summary.convergence_times_s[0][1]
        assert c is not None
        return c / D_S, float(pk) / D_S

    rm, pk = times()
    assert not _agree(rm, pk) and rm > pk
    monkeypatch.setattr(qv_module, "_NEAR_BAND", 0.2)
    rm_s, pk_s = times()
    assert abs(pk_s - pk) < 0.5
    assert _agree(rm_s, pk_s)


def _packets_merging(n: int) -> tuple[Any, Any, Any]:
    """The packets' run merging along the ramp after an n-fold rise: the packet trace,
    W1/μd of each increase round and the mean number m of the rise's runs per run that
    their mean backlog implies (``train_clump_queue``'s ``z (2m − 1)/(2 N0)`` solved for
    m). Round i's RTT samples are the ACKs of the packets round i − 1 sent, while the
    window grew from ``cwnd[i − 2]`` to ``cwnd[i − 1]``."""
    f = _packet(n, QuickVegas())
    mud = n * W
    idx = np.flatnonzero(f.round_t_s > T_CHANGE + 0.1)[:60]
    n0 = float(f.round_cwnd_pkts[idx[0] - 1])
    backlog = (f.round_rtt_mean_s - f.round_base_rtt_s) * mud / D_S
    rho, m = [], []
    for i in idx:
        w0, w1 = float(f.round_cwnd_pkts[i - 2]), float(f.round_cwnd_pkts[i - 1])
        if w1 >= mud:
            break
        if w1 > w0 and w1 >= 0.3 * mud:
            rho.append(w1 / mud)
            m.append(max((float(backlog[i]) * 2.0 * n0 / (w1 - w0) + 1.0) / 2.0, 1.0))
    return f, np.array(rho), np.array(m)


def test_n4_round_model_reaches_nw_with_the_packets_once_its_runs_merge_as_theirs() -> None:
    """n = 4: the round model's extra rounds to nW (22 against the packets' 17 and the
    ±35 % bound 21.6) are the runs' merging near the pipe. At 0.94 μd the packets' backlog
    implies m ≈ 6 rise runs per run, the model's exponential gaps m = (1 − ρ0)/(1 − ρ) ≈ 13:
    its Δ after the last increase round is ~3.6 (> β: a decrease and succ reset), the
    packets' ~1.8. With the model's merging replaced by the packets' measured one (the
    switch; the same closed form ``z (2m − 1)/(2 N0)`` otherwise) it reaches nW in 18
    rounds, with the packets and inside the bound."""
    from tcpfluid.fluid import _rounds_physics

    n = 4
    f, rho, m = _packets_merging(n)
    near = rho > 0.9
    assert near.any()
    model_m = (1.0 - 125.0 / (n * W)) / (1.0 - rho[near])
    assert np.all(m[near] < 0.6 * model_m)  # the packets' runs merge more slowly
    pk = _rounds_to(f.round_t_s, f.round_cwnd_pkts, n * W)
    eq12 = float(rounds_to_equilibrium("quick-vegas", W, n, beta=4.0))
    bound = 1.35 * (np.ceil(eq12) + 2)
    sc = _scenario(n)
    base = simulate(sc, "rounds").native
    n_base = _rounds_to(base.time_s, base.window_pkts[:, 0], n * W)
    assert n_base > bound and not _agree(n_base, pk)

    def packets_merging(z: Any, w1: Any, pipe: Any, clumps: Any) -> Any:
        mm = np.interp(np.minimum(w1 / pipe, 1.0), rho, m)
        return np.minimum(z * (2.0 * mm - 1.0) / (2.0 * clumps), 0.5 * z)

    original = _rounds_physics.train_clump_queue
    _rounds_physics.train_clump_queue = packets_merging
    try:
        sw = simulate(sc, "rounds").native
    finally:
        _rounds_physics.train_clump_queue = original
    n_sw = _rounds_to(sw.time_s, sw.window_pkts[:, 0], n * W)
    assert n_sw <= bound and _agree(n_sw, pk)


def _report_case(n: int) -> tuple[Any, float, float, float]:
    """The section new-equilibrium's Quick Vegas case n as the report runs it: scenario,
    change time, nW and the row's reference (eq. (12) counted from the change)."""
    s = _ne_setup(n, "quick-vegas")
    sc = build_scenario("qv-basic", **s["overrides"]).with_algorithm("quick-vegas")
    beta = DOCUMENT_PARAMS["quick-vegas"]["beta"]
    return sc, s["t_change"], n * s["w"], _ne_closed("quick-vegas", s["w"], n, beta)


#: the report's tolerance of these rows (±25 % or 2 rounds)
ROUNDS_TOL = TOLERANCES["rounds"]


@pytest.mark.parametrize("n", TRAIN_QUEUE_N)
def test_packet_counts_to_nw_agree_with_eq_12_once_the_train_queue_is_off(n: int) -> None:
    """The packet cells of the section's Quick Vegas rows (mechanism ``train-queue``): with
    Δ from the round's mean RTT (the report's sender) the count differs from the row's
    reference (n = 3, 5, 6, 7, 8, 9, 10: 17, 31, 55, 46, 70, 77, 56 rounds against 13, 18,
    20, 21, 23, 24, 26); with Δ from the round's minimum RTT, which the train's queue of
    per-ACK increments does not reach, it agrees (13, 18, 16, 21, 23, 19, 26)."""
    sc, t_change, target, ref = _report_case(n)
    counts = []
    for law in (QuickVegas(), _DeltaFromMinimumRtt()):
        f = simulate_packets(sc, laws={sc.flows[0].name: law}).flows[0]
        c = _rounds_to_reach(f.round_t_s, f.round_cwnd_pkts, t_change, target)
        assert c is not None
        counts.append(c)
    assert not ROUNDS_TOL.passes(counts[0], ref), (counts, ref)
    assert ROUNDS_TOL.passes(counts[1], ref), (counts, ref)


@pytest.mark.parametrize("n", TRAIN_RUNS_N)
def test_round_model_counts_to_nw_agree_with_eq_12_with_the_train_spread_evenly(n: int) -> None:
    """The round-model cells of the section's Quick Vegas rows (mechanism ``train-runs``):
    with the ACK train made of runs (``train_runs=True``, the default) the per-ACK growth
    queues inside the runs and the count differs from the row's reference (n = 4 to 10:
    22, 30, 38, 41, 49, 49, 58 rounds against 16, 18, 20, 21, 23, 24, 26); with the train
    spread evenly (``train_runs=False``) it agrees (17, 19, 21, 22, 24, 25, 27)."""
    sc, t_change, target, ref = _report_case(n)
    counts = []
    for runs in (True, False):
        r = simulate(sc, "rounds", train_runs=runs).native
        c = _rounds_to_reach(r.time_s, np.asarray(r.window_pkts)[:, 0], t_change, target)
        assert c is not None
        counts.append(c)
    assert not ROUNDS_TOL.passes(counts[0], ref), (counts, ref)
    assert ROUNDS_TOL.passes(counts[1], ref), (counts, ref)


@pytest.mark.parametrize("kb", TRAIN_QUEUE_SETTLING_KB)
def test_round_model_doubling_settles_with_the_packets_once_both_trains_queues_are_off(
    kb: float,
) -> None:
    """Settling after the doubling (convergence vs BDP, the round-model cells at 2000-4000
    kb; mechanism ``train-queue-settling``), RTTs. With the trains' queues (the report's
    runs) the round model settles in 13.2 / 17.1 RTTs at 2000 / 4000 kb, the packets in
    18.3 / 13.0: both ramps stop before μd on the queue of per-ACK increments, and where
    the measurement round falls decides the settling. With that queue switched off in both
    (the packets' Δ from the round's minimum RTT, the round model's train spread evenly)
    both overshoot and settle together, within the row's tolerance (±25 % or 2 rounds).
    (At 3000 kb the two agree with the queues on: 14.55 / 14.56.)"""
    sc = _qv_basic_at(kb / 8.0)
    name = sc.flows[0].name

    def packets(law: QuickVegas) -> float:
        return float(simulate_packets(sc, laws={name: law}).summary.convergence_times_s[0][1])

    def rounds(train_runs: bool) -> float:
        c = simulate(sc, "rounds", train_runs=train_runs).summary.flows[0].convergence_times_s[1]
        assert c is not None
        return float(c)

    pk, rm = packets(QuickVegas()) / D_S, rounds(True) / D_S
    pk_off, rm_off = packets(_DeltaFromMinimumRtt()) / D_S, rounds(False) / D_S
    assert not ROUNDS_TOL.passes(rm, pk), (rm, pk)
    assert ROUNDS_TOL.passes(rm_off, pk_off), (rm_off, pk_off)
