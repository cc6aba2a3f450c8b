"""Single-flow convergence rows of the validation report (sections basic and convergence-bdp),
Vegas, Quick Vegas and FAST: the mechanism behind a row that differs, switched off and on.

Tolerances are the report's: the basic section judges a time against the Quick Vegas paper
(Chan, Lin, Ho 2008) as a document time, ±10 % or 0.2 s (times read off its ns-2 plots:
``tcpfluid.report.TOLERANCES``); the
convergence-bdp section judges a fluid engine against the packet simulator within 25 % or
3 base RTTs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms.base import RoundAction, RoundSample, State
from tcpfluid.algorithms.fast import Fast
from tcpfluid.algorithms.quick_vegas import QuickVegas
from tcpfluid.metrics import settling
from tcpfluid.published import published
from tcpfluid.report import TOLERANCES
from tcpfluid.report._sec_convergence import _cb_overrides
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.reduction import fluid_view


# ------------------------------------------------------------- convergence-bdp, Vegas 150 kb
def _vegas_times(engine: str, kb: float = 150.0, **options: Any) -> tuple[float, float, float]:
    """Vegas on the convergence-bdp grid at ``kb`` (150 kb: μd = 18.75 packets): time to
    equilibrium of the new connection, settling after the halving and after the doubling,
    in base RTTs."""
    sc = build_scenario("qv-basic", **_cb_overrides(kb)).with_algorithm("vegas")
    d = float(fluid_view(sc, engine="ode").base_rtt_s[0])
    f = simulate(sc, engine, **options).summary.flows[0]
    halved, doubled = f.convergence_times_s
    assert f.time_to_equilibrium_s is not None and halved is not None and doubled is not None
    return f.time_to_equilibrium_s / d, halved / d, doubled / d


def _agree(a: float, b: float) -> bool:
    """The convergence-bdp criterion: ±25 % or 3 base RTTs of the packet value ``b``."""
    return abs(a - b) <= max(0.25 * abs(b), 3.0)


def test_vegas_150_kb_round_model_follows_the_packets_with_a_packet_senders_ack_count() -> None:
    # A packet sender's round carries the ACKs of the previous round's packets, ⌊w_{k-1}⌋
    # of them, and Vegas's per-ACK 1/w adds ⌊w_{k-1}⌋/w_k < 1 packet a round: the packets'
    # ramp runs 14, 15, 15.93, 16.87, ... and stops at 22.63; after the halving it falls
    # to 11.63 (11 packets in flight, Δ below α) and regrows to 13.53. The round model
    # adds exactly one packet a round (integer windows: 21 before the halving, 12 after,
    # Δ in the band at once), so it settles ~10 base RTTs sooner. With the packet sender's
    # ACK count (the switch: whole_packets=True) the round model follows the packets' descent
    # to 11.3 and regrowth to 13.2, and all three times agree.
    packet = _vegas_times("packet")
    fluid = _vegas_times("rounds")
    assert _agree(fluid[0], packet[0]) and _agree(fluid[2], packet[2])
    assert not _agree(fluid[1], packet[1])  # the report's row: 17.9 vs 28.0 base RTTs
    acks = _vegas_times("rounds", whole_packets=True)
    assert all(_agree(r, p) for r, p in zip(acks, packet, strict=True)), (acks, packet)
    assert acks[1] - fluid[1] > 3.0  # the halving moved towards the packets


@pytest.mark.parametrize("kb", [500.0, 2000.0])
def test_whole_packets_in_the_round_model_keep_the_larger_bdps_with_the_packets(kb: float) -> None:
    # Where a window is tens to hundreds of packets the shortfall ⌊w_{k-1}⌋/w_k < 1 is a
    # few per cent of a packet a round: both readings stay within the criterion of the
    # packets (500 kb: 52.3 / 61.4 / 38.7 against 48.1 / 60.1 / 36.9 base RTTs).
    packet = _vegas_times("packet", kb)
    for opts in ({}, {"whole_packets": True}):
        got = _vegas_times("rounds", kb, **opts)
        assert all(_agree(r, p) for r, p in zip(got, packet, strict=True)), (opts, got, packet)


@pytest.mark.parametrize(
    ("kb", "change", "engine"), [(500.0, "doubled", "rounds"), (1000.0, "halved", "ode")]
)
def test_fast_ring_extreme_at_the_band_edge(kb: float, change: str, engine: str) -> None:
    # FAST rings once after a change (γ = 0.5): after the doubling at 500 kb its window
    # overshoots the new one, 162.5 packets, by 2.2 % in the round model and 1.8 % in
    # packets; after the halving at 1000 kb it undershoots by 1.7 % in the hybrid and 2.3 %
    # in packets. The report's 2 % band falls between: one engine's extreme is outside the
    # band and settles a ring later (17.3 against 13.6, 17.2 against 27.3 base RTTs).
    # The two extremes differ by less than 0.7 % of the window: judged with a band of 1 %
    # (both extremes outside) or 2.5 % (both inside) the two engines agree.
    sc = build_scenario("qv-basic", **_cb_overrides(kb)).with_algorithm("fast")
    d = float(fluid_view(sc, engine="ode").base_rtt_s[0])
    t0, t1 = (80.0, 160.0) if change == "halved" else (160.0, 240.0)

    def ring(name: str) -> tuple[dict[float, float], float]:
        log = simulate(sc, name).rounds[0]
        t, w = np.asarray(log.time_s), np.asarray(log.next_window_pkts)
        times = {
            band: float(settling(t, w, t_start=t0, t_end=t1, rel_tol=band).time_s) / d
            for band in (0.01, 0.02, 0.025)
        }
        first = w[(t > t0) & (t < t0 + 4.0)]
        settled = float(settling(t, w, t_start=t0, t_end=t1).value)
        extreme = first.max() if change == "doubled" else first.min()
        return times, abs(float(extreme) / settled - 1.0)

    fluid, ring_f = ring(engine)
    packet, ring_p = ring("packet")
    assert not _agree(fluid[0.02], packet[0.02]), (fluid, packet)
    assert _agree(fluid[0.01], packet[0.01]) and _agree(fluid[0.025], packet[0.025])
    assert min(ring_f, ring_p) < 0.02 < max(ring_f, ring_p)
    assert abs(ring_f - ring_p) < 0.007


def test_whole_packets_are_refused_where_the_round_model_does_not_model_them() -> None:
    sc = build_scenario("qv-basic", duration="5s").with_algorithm("vegas")
    with pytest.raises(TypeError, match="whole_packets must be True or False, got 'yes'"):
        simulate(sc, "rounds", whole_packets="yes")
    diff = build_scenario("qv-different-rtt", duration="5s").with_algorithm("vegas")
    with pytest.raises(ValueError, match="whole_packets=True is modelled by the synchronous"):
        simulate(diff, "rounds", whole_packets=True)


# ------------------------------------------------------------------- basic, after the halving
def _halving_settling(algorithm: str, rel_tol: float) -> float:
    """Packet simulator on qv-basic: settling after the bandwidth halves (80 s), s, of the
    window sampled every 10 ms (the basic section's grid) with a band of
    ``max(1 packet, rel_tol)``."""
    sc = build_scenario("qv-basic", cbr_stop="120s", duration="120s").with_algorithm(algorithm)
    res = simulate(sc, "packet", record_interval_s=0.01)
    t = np.asarray(res.time_s)
    w = np.asarray(res.window_pkts).reshape(len(t), -1)[:, 0]
    s = settling(t, w, t_start=80.0, t_end=120.0, rel_tol=rel_tol, abs_tol=1.0)
    return float(s.time_s)


def _doc_agrees(value: float, printed: float) -> bool:
    """The basic section's criterion: the report's document time (±10 % or 0.2 s)."""
    return TOLERANCES["document time"].passes(value, printed)


@pytest.mark.parametrize(
    ("algorithm", "key", "band", "two_agrees"),
    [
        ("fast", "000/5.1/fast/halved", 0.01, False),
        ("quick-vegas", "000/5.1/qv/halved", 0.05, True),
    ],
)
def test_packet_halving_against_the_paper_depends_on_the_settling_band(
    algorithm: str, key: str, band: float, two_agrees: bool
) -> None:
    # The Quick Vegas paper gives 3.0 s (FAST) and 3.3 s (Quick Vegas) for the convergence
    # after the halving, read off its Figs. 8-9, without saying how close to the new window
    # "converged" is. Our packet windows approach slowly: FAST rings (undershoot to 362,
    # overshoot to 435, settled 413 packets; γ = 0.5 once a round), Quick Vegas regrows
    # from its undershoot (238) to 317 in steps of 1-9 packets and then dithers over
    # ±4.4 packets. So the time moves by 0.4-0.7 s with the band: the report's 2 % band
    # gives 2.5 s (FAST), outside the paper's 10 %, and 3.56 s (Quick Vegas; the band is
    # 2 % around the range its dither covers, 3.73 s with 2 % around its mean alone),
    # inside; FAST agrees at 1 % (3.15 s), where Quick Vegas's ±4.4 swing is wider than
    # the band and it does not settle; at 5 % Quick Vegas (3.07 s) agrees and FAST (2.2 s)
    # does not. No one band makes both agree, which is why the report keeps its 2 % band
    # and this reason.
    printed = float(published(key).value)
    two = _halving_settling(algorithm, 0.02)
    other = _halving_settling(algorithm, band)
    assert _doc_agrees(two, printed) == two_agrees, two
    assert _doc_agrees(other, printed), other
    lo, hi = sorted((two, other))
    assert hi - lo > 0.3  # the band alone moves the time by more than the tolerance


# ---------------------------------------------- basic: ns-2's setup, tested and ruled out
class _Ns2Fast(Fast):
    """FAST as the ns-2 FAST TCP module (University of Melbourne / Caltech, 1.1.x) runs it,
    at the round level: the window update of every other round (its
    UPDATE_CWND_EVERY_OTHER_RTT, the default since 1.1.3, as in Linux), not during the
    multiplicative increase, with the RTT its per-ACK average (weight 1/256 an ACK) gives
    over a round of ``acks`` ACKs of mean RTT r: ``avg ← r + (avg − r)(255/256)^acks``."""

    def init_state(self, n: int) -> State:
        state = super().init_state(n)
        state["rounds"] = np.zeros(n)
        state["avg_rtt"] = np.zeros(n)
        return state

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        state["rounds"] += 1.0
        avg, r = state["avg_rtt"], sample.rtt_mean
        keep = (255.0 / 256.0) ** np.asarray(sample.acks, dtype=np.float64)
        avg[:] = np.where(avg > 0.0, r + (avg - r) * keep, r)
        act = super().on_round(state, replace(sample, rtt_mean=avg.copy()))
        multiplicative = act.cap >= 2.0 * sample.cwnd - 1e-9
        frozen = (state["rounds"] % 2.0 == 1.0) & ~multiplicative
        return RoundAction(
            cwnd=np.where(frozen, sample.cwnd, act.cwnd),
            incr=np.where(frozen, 0.0, act.incr),
            cap=np.where(frozen, sample.cwnd, act.cap),
        )


def _cbr_packets_of(size_bytes: float) -> Any:
    """``route_arrays`` of the packet simulator with the CBR sent in ``size_bytes`` packets
    at the same bit rate (ns-2's Application/Traffic/CBR sends 210-byte packets by
    default)."""
    from tcpfluid.sim import _core
    from tcpfluid.sim._setup import route_arrays

    def arrays(sc: Any) -> Any:
        paths, fi, cf, ci = route_arrays(sc)
        cf[:, _core.C_RATE] *= cf[:, _core.C_SIZE] / size_bytes
        cf[:, _core.C_SIZE] = size_bytes
        return paths, fi, cf, ci

    return arrays


def test_ns2_fast_update_and_cbr_packets_do_not_explain_the_halving_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What ns-2's setup has that ours does not, tried one at a time on the packet
    # simulator (2 % band, the report's): FAST updated every other round with ns-2's
    # per-ACK RTT average gives 2.53 s after the halving (ours 2.47 s; the paper 3.0 s);
    # a CBR of 210-byte packets leaves both laws' times unchanged (Quick Vegas 3.60 s
    # either way, inside the paper's 10 % of 3.3 s; it moved 3.80 -> 4.10 s when the band
    # was drawn around the mean alone, where its ±4.4-packet dither's crests met the band's
    # edge). FAST's time does not reach the paper's: the remaining difference is the band
    # (the test above). The every-other-RTT update is not our default: it slows FAST's
    # ramp-up to 3.5 s (paper 2.6 s).
    sc = build_scenario("qv-basic", cbr_stop="120s", duration="120s").with_algorithm("fast")
    ns2 = simulate(sc, "packet", laws={"S1-D1": _Ns2Fast()}).summary.flows[0]
    assert ns2.convergence_times_s[0] is not None
    assert not _doc_agrees(ns2.convergence_times_s[0], 3.0), ns2.convergence_times_s
    ours = simulate(sc, "packet").summary.flows[0].convergence_times_s[0]
    assert ours is not None and abs(ns2.convergence_times_s[0] - ours) < 0.3
    # and it would cost the ramp-up: 3.5 s against the paper's 2.6 s (ours 2.47 s agrees)
    ramp = float(published("000/5.1/fast/ramp_up").value)
    assert ns2.time_to_equilibrium_s is not None
    assert not _doc_agrees(ns2.time_to_equilibrium_s, ramp), ns2.time_to_equilibrium_s
    qv = build_scenario("qv-basic", cbr_stop="120s", duration="120s").with_algorithm("quick-vegas")
    qv_ours = simulate(qv, "packet").summary.flows[0].convergence_times_s[0]
    from tcpfluid.sim import engine as sim_engine

    monkeypatch.setattr(sim_engine, "route_arrays", _cbr_packets_of(210.0))
    small = simulate(sc, "packet").summary.flows[0].convergence_times_s[0]
    assert small is not None and abs(small - ours) < 0.3
    qv_small = simulate(qv, "packet").summary.flows[0].convergence_times_s[0]
    assert qv_ours is not None and qv_small is not None
    assert abs(qv_small - qv_ours) < 0.3, (qv_ours, qv_small)


def _fast_packet_times(band: float) -> tuple[list[float], list[float]]:
    """FAST's packet ramp-up, halving and doubling times on qv-basic (the window sampled
    every 10 ms) settled within ``band``, and the paper's three times."""
    sc = build_scenario("qv-basic").with_algorithm("fast")
    res = simulate(sc, "packet", record_interval_s=0.01)
    t = np.asarray(res.time_s)
    w = np.asarray(res.window_pkts).reshape(len(t), -1)[:, 0]
    keys = ("000/5.1/fast/ramp_up", "000/5.1/fast/halved", "000/5.1/fast/doubled")
    printed = [float(published(k).value) for k in keys]
    segments = ((0.0, 80.0), (80.0, 160.0), (160.0, 240.0))
    times = [
        float(settling(t, w, t_start=a, t_end=b, rel_tol=band, abs_tol=1.0).time_s)
        for a, b in segments
    ]
    return times, printed


def test_fast_packet_halving_follows_the_paper_with_a_one_percent_band() -> None:
    # The halving: a 1 % band gives 3.15 s against the paper's 3.0 s, within the report's
    # document time (±10 % or 0.2 s); the report's 2 % band gives 2.47 s, outside. The
    # ramp-up agrees with either band (2.60 and 2.48 s against 2.6 s).
    one, printed = _fast_packet_times(0.01)
    two, _ = _fast_packet_times(0.02)
    assert _doc_agrees(one[1], printed[1]) and not _doc_agrees(two[1], printed[1]), (one, two)
    assert _doc_agrees(one[0], printed[0]) and _doc_agrees(two[0], printed[0]), (one, two)


@pytest.mark.xfail(
    strict=True,
    reason=(
        "measured: a 1 % band gives the doubling as 1.35 s against the paper's 1.6 s "
        "(-16 %, 0.25 s), outside the report's document time (±10 % or 0.2 s), as does "
        "the 2 % band (1.35 s); only the halving turns to agree (3.15 s against 3.0 s). "
        "All three agreed only under a stale ±10 % or 0.3 s"
    ),
)
def test_fast_packet_times_all_follow_the_paper_with_a_one_percent_band() -> None:
    # The band the paper's FAST numbers are consistent with: on the packet window (sampled
    # every 10 ms) a 1 % band gives the ramp-up, the halving and the doubling as 2.60 /
    # 3.15 / 1.35 s against the paper's 2.6 / 3.0 / 1.6 s
    one, printed = _fast_packet_times(0.01)
    two, _ = _fast_packet_times(0.02)
    assert all(_doc_agrees(v, p) for v, p in zip(one, printed, strict=True)), one
    assert not _doc_agrees(two[1], printed[1]), two


# ------------------------------------------------- convergence-bdp, Quick Vegas 500 kb doubled
#: where the CBR stops (the bandwidth doubles), s: twelve points 0.5 s apart over the packets'
#: 5.85-s cycle before 160 s (the report's run stops it at 160 s)
_QV_STOPS = tuple(154.2 + 0.5 * i for i in range(12))
#: base RTTs: a doubling time below this is the short mode, above the long one
_SHORT = 10.0


def _qv_doubling_times(engine: str, **options: Any) -> list[float]:
    """Quick Vegas at 500 kb (μd = 62.5 packets): settling after the doubling, in base
    RTTs, with the doubling at each of :data:`_QV_STOPS`."""
    out = []
    for stop in _QV_STOPS:
        o = {**_cb_overrides(500.0), "cbr_stop": f"{stop:g}s", "duration": f"{stop + 80.0:g}s"}
        sc = build_scenario("qv-basic", **o).with_algorithm("quick-vegas")
        d = float(fluid_view(sc, engine="ode").base_rtt_s[0])
        t = simulate(sc, engine, **options).summary.flows[0].convergence_times_s[1]
        assert t is not None
        out.append(t / d)
    return out


def test_quick_vegas_500_kb_doubling_has_a_short_mode_only_with_the_train_queue() -> None:
    # After the doubling the flow ramps by eq. (3) (+4, +8, +12, ... packets a round). Where
    # the doubling falls in the flow's cycle decides whether the train queue of the per-ACK
    # increments (docs/mechanisms.md, train-queue) makes Δ reach α at ~70-75 packets, so that
    # the ramp stops one step short of the overshoot to ~83-90 and the window settles within
    # 8-10 base RTTs, or not (16-20). The packets and the round model with its train's runs
    # both have the two modes; the report's run (doubling at 160 s) falls in the short one for
    # the packets (8.8) and in the long one for the round model (19.3). The round model with
    # the train spread evenly (train_runs=False, the switch) and the hybrid, whose fluid train
    # has no runs, have the long mode only (measured: 17.9-18.8 and 17.7-19.6).
    packet = _qv_doubling_times("packet")
    rounds = _qv_doubling_times("rounds")
    spread = _qv_doubling_times("rounds", train_runs=False)
    hybrid = _qv_doubling_times("ode")
    for times in (packet, rounds):
        assert min(times) < _SHORT and max(times) > 1.5 * _SHORT, times
    for times in (spread, hybrid):
        assert min(times) > 1.5 * _SHORT, times


# ---------------------------------------------- convergence-bdp, Quick Vegas 1000 kb halving
class _QuickVegasMinRtt(QuickVegas):
    """Quick Vegas whose Δ uses the round's minimum RTT instead of its mean (the switch: a
    packet sender's law no longer sees the micro-queue of the round's own packets)."""

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        return super().on_round(state, replace(sample, rtt_mean=sample.rtt_min))


def _regrowth_rises(t: Any, w: Any) -> Any:
    """The window's rises from the trough of the undershoot that follows the halving (80 s)
    to its first fall (the regrowth's run of increases)."""
    after = np.flatnonzero((t > 80.5) & (t < 83.0))
    low = int(after[np.argmin(w[after])])
    steps = np.diff(w[low:])
    k = int(np.argmax(steps > 0.0))  # the first rise from the trough
    rises = steps[k:]
    return rises[: int(np.argmax(rises <= 0.0))]


def test_quick_vegas_1000_kb_halving_hybrid_settles_with_packets_blind_to_the_micro_queue() -> None:
    # Quick Vegas at 1000 kb (μd = 125 packets, 62.5 with the CBR on) after the halving.
    # Below the pipe the hybrid's fluid queue is exactly empty: its regrowth reads Δ = 0,
    # 0, 0.07, succ counts every decision and eq. (3) compounds (+4, +8, +11.8 to 75.8),
    # the overshoot (Δ 11.0) rings twice more and the window is last outside its band at
    # 84.0 s (41.2 base RTTs). The packets' rounds read the micro-queue of their own
    # packets (Δ 0.14, 0.16, 1.08: the third step +8.6, the decision then followed by a
    # measurement round), so the overshoot stops at 72.5 (Δ 7.5) and the window is in its
    # 64-67 cycle from 81.9 s (19.0). With Δ from the round's minimum RTT (the switch) the
    # packets' regrowth compounds as the fluid's (+3.5, +7.9, +11.9, +13.2), rings, and
    # settles in 47.8, within the row's criterion of the hybrid.
    sc = build_scenario("qv-basic", **_cb_overrides(1000.0)).with_algorithm("quick-vegas")
    d = float(fluid_view(sc, engine="ode").base_rtt_s[0])

    def halving(res: Any) -> tuple[float, Any]:
        log = res.rounds[0]
        t, w = np.asarray(log.time_s), np.asarray(log.next_window_pkts)
        c = res.summary.flows[0].convergence_times_s[0]
        assert c is not None
        return c / d, _regrowth_rises(t, w)

    hybrid, steps_h = halving(simulate(sc, "ode"))
    packet, steps_p = halving(simulate(sc, "packet"))
    off, steps_off = halving(simulate(sc, "packet", laws={sc.flows[0].name: _QuickVegasMinRtt()}))
    # the report's row differs (41.2 against 19.0 base RTTs) ...
    assert not _report_agrees(hybrid, packet), (hybrid, packet)
    # ... the packets' regrowth stops short of the compounding steps of the hybrid and of the
    # switched-off packets
    assert np.max(steps_p) + 2.0 < min(np.max(steps_h), np.max(steps_off)), (
        steps_p, steps_h, steps_off,
    )  # fmt: skip
    # ... and without the micro-queue in Δ the packets settle with the hybrid
    assert _report_agrees(hybrid, off), (hybrid, off)


def _report_agrees(a: float, ref: float) -> bool:
    """The report's criterion for a count of rounds: ±25 % or 2 rounds of ``ref``."""
    return abs(a - ref) <= max(0.25 * abs(ref), 2.0)


# ------------------------------------------ convergence-bdp, Quick Vegas with whole packets
def _qv_time(log_or_res: Any, kind: str) -> float:
    """Quick Vegas's settling time of a run (``kind``: ``"new"``, the time to
    equilibrium; ``"halved"``, the convergence after the halving), base RTTs (d = 0.1 s)."""
    f = log_or_res.summary.flows[0]
    t = f.time_to_equilibrium_s if kind == "new" else f.convergence_times_s[0]
    assert t is not None
    return float(t) / 0.1


def test_quick_vegas_150_kb_halving_cycle_bottom_with_a_packet_senders_ack_count() -> None:
    # Quick Vegas at 150 kb (μd = 18.75 packets, 9.4 with the CBR on), round model, after
    # the halving. Every engine undershoots and then cycles with ±1 moves: the packets'
    # trough is 10.52 and their cycle 10.94-14.50, so the settling band's lower edge (the
    # cycle's bottom less 1 packet) is 9.94; the round model's trough is 9.90 and its cycle
    # 11.23-14.23 (edge 10.23): the trough is outside and the window settles a ring later
    # (14.3 against 7.3 base RTTs). A packet sender's +1 adds ⌊w⌋/w of a packet (0.91-0.98
    # here), which sets its cycle's bottom lower; with the packet sender's ACK count (the
    # switch: whole_packets=True) the round model cycles in 10.89-14.41, its trough (10.04)
    # falls inside its band (edge 9.89) and it settles with the packets (8.8).
    sc = build_scenario("qv-basic", **_cb_overrides(150.0)).with_algorithm("quick-vegas")

    def run(engine: str, **options: Any) -> tuple[float, float]:
        res = simulate(sc, engine, **options)
        log = res.rounds[0]
        t, w = np.asarray(log.time_s), np.asarray(log.next_window_pkts)
        return _qv_time(res, "halved"), float(w[(t > 100.0) & (t < 160.0)].min())

    packet, bottom_p = run("packet")
    default, bottom_d = run("rounds")
    whole, bottom_w = run("rounds", whole_packets=True)
    assert not _report_agrees(default, packet), (default, packet)
    assert bottom_d - bottom_p > 0.2 and abs(bottom_w - bottom_p) < 0.1, (bottom_d, bottom_w)
    assert _report_agrees(whole, packet), (whole, packet)


def test_quick_vegas_1000_kb_ramp_in_the_hybrid_follows_the_packets_with_whole_packets() -> None:
    # Quick Vegas at 1000 kb (μd = 125 packets), a new connection, hybrid. The ramp's
    # eq.-(3) steps read Δ near α/4 = 0.5, the edge that decides whether a measurement
    # round follows: at 2.2 s the packets read 0.62 (a measurement round follows) and the
    # hybrid 0.35 (it decides again: +7.5 to 104.1), so the hybrid overshoots to 133.1,
    # last outside its band at that peak, 3.41 s (35.2 base RTTs), where the packets peak
    # at 131.6 and are in theirs from 3.21 s (32.1): within the report's criterion (with a
    # band 2 % around the mean alone the hybrid's ringing after the peak was out of it up
    # to 4.34 s, 44.5 RTTs, against 34.1, and the row differed). With whole-packet
    # windows (the switch: whole_packets=True, a packet sender's ACK count and ⌊w⌋ in
    # flight) the hybrid reads 0.59 there, follows the packets' windows round by round
    # through the ramp and settles with them (32.05).
    sc = build_scenario("qv-basic", **_cb_overrides(1000.0)).with_algorithm("quick-vegas")

    def run(engine: str, **options: Any) -> tuple[float, Any, Any]:
        res = simulate(sc, engine, **options)
        log = res.rounds[0]
        return _qv_time(res, "new"), np.asarray(log.time_s), np.asarray(log.next_window_pkts)

    packet, t_p, w_p = run("packet")
    default, _, _ = run("ode")
    whole, t_w, w_w = run("ode", whole_packets=True)
    assert default - packet > 2.0, (default, packet)  # the overshoot's peak: a round late
    assert abs(whole - packet) < 0.5, (whole, packet)
    ramp = (t_p > 1.0) & (t_p < 3.3)
    at = np.searchsorted(t_w, t_p[ramp] - 0.02)  # the hybrid's boundary at the same round
    assert np.all(np.abs(t_w[at] - t_p[ramp]) < 0.02)
    assert np.max(np.abs(w_w[at] - w_p[ramp])) < 0.15
