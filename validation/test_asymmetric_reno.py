"""Reno behind the asymmetric-networks paper's ACK-path bottleneck (Fu, Chung, Liew,
"Performance Degradation of TCP Vegas in Asymmetric Networks and Its Remedies", Fig. 1,
Tables I-II): how the packet simulator's NewReno sender recovers from a loss event there,
and the fluid engines' default ``Reno(recovery="newreno")`` that follows it: the engines
report a loss taken while the flow's ACKs are dropped on the ACK path as ``LOSS_BURST``
(``LOSS_BURST_TIMEOUT``), and Reno ends such a loss event at the 2-packet floor.

The packet runs here take ns-2's ``bugFix_`` (``timeout_recover=True``: no fast retransmit
from the duplicate ACKs of a timeout's go-back). The floor was fitted to the packet sender
without it, whose go-back after the loss event's timeout made further fast retransmits (at
k = 5 the window 92 -> 46 -> 1, slow start to 11, then a go-back cut to 5.8); with it the
loss event ends at the timeout and slow start regrows to half the window the timeout found
(11.7 and on), so the packets carry more than the floor gives, 15-45 % more at the larger
reverse buffers (B_r = 20-100), where the agreement is lost (strict expected failures with
the measured values).

Every expected value comes from the packet simulator (the referee of the fluid layers);
the tolerance is the report's for this section (15 %).
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms.base import (
    LOSS_BURST,
    LOSS_BURST_TIMEOUT,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    RoundAction,
)
from tcpfluid.algorithms.reno import Reno
from tcpfluid.algorithms.vegas import Vegas
from tcpfluid.engines import Packet
from tcpfluid.scenarios.catalogue import build_scenario

#: the packet simulator's sender with ns-2's ``bugFix_`` (module docstring)
PACKET = Packet(timeout_recover=True)


def _lost_at_large_reverse_buffers(measured: str) -> pytest.MarkDecorator:
    """The strict expected failure of a row whose fluid default is more than 15 % below the
    packets with ``bugFix_`` (``measured``: the values, packets first)."""
    return pytest.mark.xfail(
        strict=True,
        raises=AssertionError,
        reason=(
            f"{measured}: the default's 2-packet floor follows the go-back cuts of the packet "
            "sender without bugFix_; with it the loss event ends at the timeout and slow start "
            "regrows to half the window the timeout found"
        ),
    )


#: (k, reverse buffer in ACKs) of the paper's Tables I and II that the report runs for Reno
ROWS = [(3, 10), (5, 10), (7, 10), (5, 2), (5, 6), (5, 20), (5, 40), (5, 100)]
#: measured where the fluid default is more than 15 % below the packets (module docstring)
_LOST = {
    (5, 40): "packets 79.5, rounds 58.7, ODE 59.8 pkts/s",
    (5, 100): "packets 67.2, rounds 51.5, ODE 54.4 pkts/s",
}
CASES = [
    pytest.param(*row, marks=_lost_at_large_reverse_buffers(_LOST[row])) if row in _LOST else row
    for row in ROWS
]


def _asym(k: float, br: int, duration: str, **law: str) -> tcpfluid.scenarios.Scenario:
    sc = build_scenario("asymmetric", algorithm="reno", k=k, reverse_buffer=br, duration=duration)
    return sc.with_algorithm("reno", **law) if law else sc


def _window(r: tcpfluid.Result) -> tuple[np.ndarray, np.ndarray]:
    w = np.asarray(r.window_pkts)
    return np.asarray(r.time_s), (w[0] if w.shape[0] == 1 else w[:, 0])


def test_recovery_option_is_checked_and_reported() -> None:
    with pytest.raises(ValueError, match="recovery must be one of 'halving', 'collapse'"):
        Reno(recovery="nope")
    assert Reno(recovery="collapse").params() == {"recovery": "collapse", "initial_window": 2.0}
    assert Reno().params() == {"recovery": "newreno", "initial_window": 2.0}
    law = Reno(recovery="collapse")
    st = law.init_state(2)
    assert law.on_loss(st, np.array([0]), LOSS_FAST, np.array([92.0])).tolist() == [2.0]
    assert law.on_loss(st, np.array([1]), LOSS_RETX, np.array([10.0])).tolist() == [2.0]
    assert st["ssthresh"].tolist() == [2.0, 2.0]
    # a timeout: one packet, slow start up to the floor (halving: up to half)
    assert law.on_loss(st, np.array([0]), LOSS_TIMEOUT, np.array([40.0])).tolist() == [1.0]
    assert st["ssthresh"][0] == 2.0
    halving = Reno(recovery="halving")
    st0 = halving.init_state(1)
    assert halving.on_loss(st0, np.array([0]), LOSS_TIMEOUT, np.array([40.0])).tolist() == [1.0]
    assert st0["ssthresh"][0] == 20.0
    st0 = halving.init_state(1)
    assert halving.on_loss(st0, np.array([0]), LOSS_BURST, np.array([92.0])).tolist() == [46.0]
    # the default: the floor on the burst kinds, the half otherwise
    law = Reno()
    st = law.init_state(4)
    assert law.on_loss(st, np.array([0]), LOSS_FAST, np.array([92.0])).tolist() == [46.0]
    assert law.on_loss(st, np.array([1]), LOSS_BURST, np.array([92.0])).tolist() == [2.0]
    assert law.on_loss(st, np.array([2]), LOSS_TIMEOUT, np.array([40.0])).tolist() == [1.0]
    assert law.on_loss(st, np.array([3]), LOSS_BURST_TIMEOUT, np.array([40.0])).tolist() == [1.0]
    assert st["ssthresh"].tolist() == [46.0, 2.0, 20.0, 2.0]
    assert st["phase"].tolist() == [1.0, 1.0, 0.0, 0.0]


def test_every_other_law_takes_the_burst_kinds_as_fast_retransmit_and_timeout() -> None:
    for burst, plain in ((LOSS_BURST, LOSS_FAST), (LOSS_BURST_TIMEOUT, LOSS_TIMEOUT)):
        a, b = Vegas(), Vegas()
        sa, sb = a.init_state(1), b.init_state(1)
        wa = a.on_loss(sa, np.array([0]), burst, np.array([40.0]))
        wb = b.on_loss(sb, np.array([0]), plain, np.array([40.0]))
        assert wa.tolist() == wb.tolist()
        assert all(np.array_equal(sa[key], sb[key]) for key in sa)
    with pytest.raises(ValueError, match="LOSS_BURST_TIMEOUT"):
        Vegas().on_loss(Vegas().init_state(1), np.array([0]), 6, np.array([40.0]))


@pytest.mark.parametrize("engine", ["rounds", "ode"])
def test_the_fluid_engines_report_losses_behind_a_dropping_ack_path_as_bursts(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At k = 5 the flow's ACKs overflow the 10-ACK reverse buffer (the packet simulator
    drops ~10^5 of them in 1000 s) and every loss event is reported as a burst; at k = 0.5
    (no ACK dropped) none is."""
    kinds: list[int] = []
    on_loss = Reno.on_loss

    def record(self: Reno, state: dict, index: np.ndarray, kind: int, cwnd: np.ndarray):  # type: ignore[no-untyped-def]
        kinds.append(int(kind))
        return on_loss(self, state, index, kind, cwnd)

    monkeypatch.setattr(Reno, "on_loss", record)
    tcpfluid.simulate(_asym(5, 10, "100s"), engine=engine)
    assert kinds and set(kinds) <= {LOSS_BURST, LOSS_BURST_TIMEOUT}
    kinds.clear()
    tcpfluid.simulate(_asym(0.5, 10, "100s"), engine=engine)
    assert kinds and not set(kinds) & {LOSS_BURST, LOSS_BURST_TIMEOUT}


def test_packet_reno_collapses_to_the_floor_where_the_round_model_halves() -> None:
    """Steady state at k = 5, B_r = 10: every packet loss event is a cascade (halving, a
    second fast retransmit halves again, a timeout: 92 -> 46 -> 1 packets, slow start up to
    11) that ends far below the half; the round model's Reno with ``recovery="halving"``
    takes one halving from the same peak window."""
    sc = _asym(5, 10, "400s")
    pk = tcpfluid.simulate(sc, engine=PACKET)
    rm = tcpfluid.simulate(_asym(5, 10, "400s", recovery="halving"), engine="rounds")
    tp, wp = _window(pk)
    tr, wr = _window(rm)
    late_p, late_r = wp[tp > 200.0], wr[tr > 200.0]
    # the same peak window (a forward-buffer overflow at the same load) ...
    assert late_r.max() == pytest.approx(late_p.max(), rel=0.05)
    # ... but the packet window falls to the floor, the round model's to half the peak
    assert late_p.min() <= 2.0
    assert late_r.min() == pytest.approx(late_r.max() / 2.0, rel=0.05)
    assert pk.summary.to_dict()["timeouts"][0] >= 3


@pytest.mark.parametrize(("k", "br"), CASES)
def test_fluid_reno_default_recovery_tracks_the_packet_simulator(k: float, br: int) -> None:
    """The report's 100 s runs: with the default ``recovery="newreno"`` the round model and
    the hybrid ODE are within 15 % of the packet simulator's NewReno on the Reno rows of
    Tables I and II but B_r = 40 and 100 (module docstring)."""
    pk = tcpfluid.simulate(_asym(k, br, "100s"), engine=PACKET).summary.throughput_pps[0]
    for engine in ("rounds", "ode"):
        on = tcpfluid.simulate(_asym(k, br, "100s"), engine=engine)
        assert on.summary.throughput_pps[0] == pytest.approx(pk, rel=0.15), engine


#: measured where the hybrid with one halving per loss event comes nearer the packets than
#: its default since a timeout with duplicate ACKs behind its holes reaches the law as a fast
#: retransmit and then a timeout at the halved window (docs/ode-model.md, "A recovery that
#: ends in a timeout"): packets, ODE default, ODE one halving (pkts/s, 100 s)
_HALVING_NEARER = {
    (7, 10): "packets 111.0, ODE default 101.3, one halving 118.9 (160.2 before it)",
    (5, 20): "packets 108.3, ODE default 94.5, one halving 112.9",
    (5, 40): "packets 79.5, ODE default 59.8, one halving 81.8",
    (5, 100): "packets 67.2, ODE default 54.4, one halving 70.1 (111.4 before it)",
}
HALVING_ROWS = [
    pytest.param(
        *row,
        marks=pytest.mark.xfail(
            strict=True,
            raises=AssertionError,
            reason=f"{_HALVING_NEARER[row]}: the hybrid's one halving is nearer the packets",
        ),
    )
    if row in _HALVING_NEARER
    else row
    for row in ROWS
]


@pytest.mark.parametrize(("k", "br"), HALVING_ROWS)
def test_one_halving_per_loss_event_moves_the_fluid_reno_away_from_the_packets(
    k: float, br: int
) -> None:
    """The switch-off of the test above, on every row (B_r = 40 and 100 as well): with one
    halving per loss event (``recovery="halving"``) the round model and the hybrid ODE carry
    more than the packets at 100 s and are further from them than the default (at B_r = 100:
    packets 67.2 pkts/s, default 51.5 and 54.4, the round model's one halving 107.2). The
    hybrid's one halving no longer is on the rows of :data:`_HALVING_NEARER` (strict
    expected failures with its numbers: at B_r = 100 70.1, 111.4 before its timeout with
    duplicate ACKs behind the holes reached the law as a fast retransmit first)."""
    pk = tcpfluid.simulate(_asym(k, br, "100s"), engine=PACKET).summary.throughput_pps[0]
    for engine in ("rounds", "ode"):
        on = tcpfluid.simulate(_asym(k, br, "100s"), engine=engine).summary.throughput_pps[0]
        off = tcpfluid.simulate(_asym(k, br, "100s", recovery="halving"), engine=engine)
        assert off.summary.throughput_pps[0] > pk, engine
        assert abs(on - pk) < abs(off.summary.throughput_pps[0] - pk), engine


def _drops_per_overflow(k: float, br: int) -> list[float]:
    """Forward-buffer drops of each overflow episode after 100 s of a 300 s packet run
    (drops less than 2 s apart belong to one episode)."""
    r = tcpfluid.simulate(_asym(k, br, "300s"), engine=PACKET)
    n = r.native
    (fwd,) = [lk for lk in n.links if lk.name == "R1-R2"]
    t = np.asarray(n.t_s)
    new = np.diff(np.asarray(fwd.drops), prepend=0.0)  # the trace is cumulative
    episodes: list[list[float]] = []
    for ti, v in zip(t[new > 0], new[new > 0], strict=True):
        if episodes and ti - episodes[-1][0] < 2.0:
            episodes[-1][0] = ti
            episodes[-1][1] += v
        else:
            episodes.append([ti, v])
    return [v for ti, v in episodes if ti > 100.0]


def test_an_overflow_behind_the_ack_path_drops_many_packets_of_one_window() -> None:
    """Why the packet NewReno collapses there: surviving cumulative ACKs release bursts, so
    one forward-buffer overflow drops tens of packets of one window (k = 5: 24); with the
    forward link the bottleneck (k = 0.5) an overflow drops one packet and Reno halves."""
    ack_path = _drops_per_overflow(5, 10)
    forward = _drops_per_overflow(0.5, 10)
    assert ack_path and forward
    assert min(ack_path) >= 10
    assert max(forward) <= 2


def test_with_the_forward_link_the_bottleneck_the_default_halves_with_the_packets() -> None:
    """At k = 0.5 (Table I's non-asymmetric column, no ACK dropped) the packet sender halves
    (its window never falls below ~19 packets after 50 s); the default recovery halves
    there in both fluid engines and agrees, the collapse at every loss would not."""
    sc = _asym(0.5, 10, "100s")
    pk = tcpfluid.simulate(sc, engine=PACKET)
    t, w = _window(pk)
    assert w[t > 50.0].min() > 10.0
    v = pk.summary.throughput_pps[0]
    for engine in ("rounds", "ode"):
        default = tcpfluid.simulate(sc, engine=engine).summary.throughput_pps[0]
        halving = tcpfluid.simulate(_asym(0.5, 10, "100s", recovery="halving"), engine=engine)
        assert default == pytest.approx(v, rel=0.15), engine
        assert default == halving.summary.throughput_pps[0], engine
    collapse = tcpfluid.simulate(
        _asym(0.5, 10, "100s", recovery="collapse"), engine="rounds"
    ).summary.throughput_pps[0]
    assert collapse < 0.85 * v


def test_the_classical_ode_refuses_a_recovery_it_cannot_model() -> None:
    sc = _asym(5, 10, "5s", recovery="collapse")
    with pytest.raises(ValueError, match="recovery='collapse' needs model='hybrid'"):
        tcpfluid.simulate(sc, engine="ode", model="classical")
    # its Reno halves at every loss: the default's rule only where no ACK is dropped
    with pytest.raises(ValueError, match="recovery='newreno' behind an ACK-path bottleneck"):
        tcpfluid.simulate(_asym(5, 10, "5s"), engine="ode", model="classical")
    halving = _asym(5, 10, "5s", recovery="halving")
    assert tcpfluid.simulate(halving, engine="ode", model="classical").summary
    forward = _asym(0.5, 10, "5s")
    assert tcpfluid.simulate(forward, engine="ode", model="classical").summary


@pytest.mark.parametrize("engine", ["rounds", "ode"])
def test_without_an_ack_path_bottleneck_the_default_is_one_halving_per_loss(engine: str) -> None:
    """No ACK is dropped on a path without an ACK-path bottleneck, so the default recovery
    is the halving rule there: many-flows and single-bottleneck Reno runs do not move."""
    sc = build_scenario("qv-different-rtt", duration="20s").with_algorithm("reno")
    a = tcpfluid.simulate(sc, engine=engine)
    b = tcpfluid.simulate(sc.with_algorithm("reno", recovery="halving"), engine=engine)
    assert sum(a.summary.to_dict()["losses"]) > 0
    np.testing.assert_array_equal(np.asarray(a.window_pkts), np.asarray(b.window_pkts))


#: Reno throughput of the asymmetric-networks paper, packets/s: Table I (forward buffer 15
#: packets, reverse buffer 10 ACKs) by k, and Table II (k = 5, forward buffer 10 packets, the
#: caption's fixed "B_r = 10" read as B_f: docs/errata.md N12) by the reverse buffer
PAPER_RENO = [
    (0.5, 10, 15, 185.0),
    (3, 10, 15, 138.3),
    (5, 10, 15, 109.4),
    (7, 10, 15, 71.5),
    (5, 2, 10, 134.5),
    (5, 6, 10, 128.2),
    (5, 10, 10, 109.1),
    (5, 20, 10, 66.8),
    (5, 40, 10, 46.2),
    (5, 100, 10, 46.6),
]


def _within(value: float, paper: float) -> bool:
    """The report's tolerance for this section: 15 % or 3 packets/s."""
    return abs(value / paper - 1.0) <= 0.15 or abs(value - paper) <= 3.0


def _packet_reno_scenario(k: float, br: int, bf: int, duration: str) -> tcpfluid.scenarios.Scenario:
    return build_scenario(
        "asymmetric", algorithm="reno", k=k, reverse_buffer=br, forward_buffer=bf, duration=duration
    )


def _packet_reno(
    k: float, br: int, bf: int, duration: str, timeout_recover: bool = True
) -> tcpfluid.Result:
    sc = _packet_reno_scenario(k, br, bf, duration)
    return tcpfluid.simulate(sc, engine=Packet(timeout_recover=timeout_recover))


def test_the_papers_reno_throughputs_are_whole_run_averages_of_a_one_minute_run() -> None:
    """Tables I-II are averages over whole runs whose length the paper does not give. Behind
    the ACK-path bottleneck Reno is far from a steady state for the first ~100 s: the
    slow-start overshoot drops a burst of packets, the window collapses to 1-2 packets and
    climbs back one packet per round trip, so the run-average rises with the run length
    (k = 5, B_f = 10: 125 pkts/s over 60 s, 141 over 100 s). The report's 60 s was chosen on
    the packet sender without ``bugFix_``, whose go-back cuts kept it lower: averaged over
    60 s it was within the report's 15 % of the paper on every Reno row but B_r = 100 (the
    ten rows agreed on 44-73 s), over 100 s five rows were 20-33 % above. With ``bugFix_``
    no such length fits: over 60 s and over 100 s the same four rows agree (k = 0.5 and 3,
    B_r = 2 and 6) and the other six are above (60 s: 15-56 %)."""
    at60, at100, former60 = [], [], []
    for k, br, bf, paper in PAPER_RENO:
        v60 = _packet_reno(k, br, bf, "60s").summary.throughput_pps[0]
        v100 = _packet_reno(k, br, bf, "100s").summary.throughput_pps[0]
        go_back = _packet_reno(k, br, bf, "60s", timeout_recover=False).summary.throughput_pps[0]
        at60.append(_within(v60, paper))
        at100.append(_within(v100, paper))
        former60.append(_within(go_back, paper) or br == 100)
        assert v60 > paper or _within(v60, paper), (k, br)  # never below the paper
        if k == 5 and br == 10:
            assert v100 > 1.1 * v60  # the average is still rising between 60 s and 100 s
    agree = [k == 3 or k == 0.5 or br in (2, 6) for k, br, _bf, _p in PAPER_RENO]
    assert at60 == agree, at60
    assert at100 == agree, at100
    assert all(former60), former60


def test_reno_at_a_100_ack_reverse_buffer_carries_its_excess_in_the_slow_start() -> None:
    """B_r = 100 is the row a 60 s average leaves furthest above the paper (68 vs 46.6
    pkts/s): behind a 2.5 s ACK queue the forward buffer overflows only when the slow-start
    window has passed 600 packets, and that first ~16 s carries about 120 pkts/s; from the
    first loss on the run carries 54, 15 % above the paper's 46.6 (one fast retransmit and
    one timeout in the run). Without ``bugFix_`` the go-back after that timeout loses its
    retransmissions again and again (62 more loss events) and the run carries 38 from the
    first loss on, below the paper: the excess was then the slow start alone. Why the
    paper's run carried less is not known: the retransmission-timer settings (minimum 0.5
    or 1 s, initial 3 s) change nothing here (one timeout in the run either way)."""
    r = _packet_reno(5, 100, 10, "60s")
    fl = r.native.flows[0]
    t = np.asarray(r.native.t_s)
    good = np.asarray(fl.goodput_pps)
    first_loss = float(np.asarray(fl.loss_t_s)[0])
    assert 10.0 < first_loss < 25.0
    assert float(np.asarray(fl.cwnd_pkts)[t < first_loss].max()) > 300.0
    assert good[(t > 5.0) & (t < first_loss)].mean() > 100.0
    assert not _within(r.summary.throughput_pps[0], 46.6)
    assert float(good[t >= first_loss].mean()) > 46.6
    assert fl.timeouts == 1
    go_back = _packet_reno(5, 100, 10, "60s", timeout_recover=False).native
    t0 = np.asarray(go_back.t_s)
    assert float(np.asarray(go_back.flows[0].goodput_pps)[t0 >= first_loss].mean()) < 46.6
    sc = _packet_reno_scenario(5, 100, 10, "60s")
    for opts in ({"min_rto_s": 0.5}, {"min_rto_s": 1.0}, {"initial_rto_s": 3.0}):
        other = tcpfluid.simulate(sc, engine=Packet(timeout_recover=True, **opts))
        assert other.summary.throughput_pps[0] == pytest.approx(
            r.summary.throughput_pps[0], rel=0.02
        ), opts


class _AdvertisedWindowReno(Reno):
    """Reno under a receiver's advertised window of ``w`` packets as ns-2's TCP agents have
    it (``window_``: the sent window is min(cwnd, window_), the first ssthresh is window_)."""

    def __init__(self, w: float) -> None:
        super().__init__()
        self.w = w

    def init_state(self, n: int) -> dict[str, np.ndarray]:
        state = super().init_state(n)
        state["ssthresh"][:] = self.w
        return state

    def initial_action(self, state: dict[str, np.ndarray]) -> RoundAction:
        a = super().initial_action(state)
        return RoundAction(np.minimum(a.cwnd, self.w), a.incr, np.minimum(a.cap, self.w))

    def on_round(self, state: dict[str, np.ndarray], sample: object) -> RoundAction:
        a = super().on_round(state, sample)  # type: ignore[arg-type]
        return RoundAction(np.minimum(a.cwnd, self.w), a.incr, np.minimum(a.cap, self.w))

    def on_loss(
        self, state: dict[str, np.ndarray], index: object, kind: int, cwnd: np.ndarray
    ) -> np.ndarray:
        w = super().on_loss(state, index, kind, np.minimum(cwnd, self.w))  # type: ignore[arg-type]
        return np.minimum(w, self.w)


def test_the_br_100_excess_is_not_a_buffer_count_header_bytes_or_a_window_cap() -> None:
    """What the B_r = 100 row's excess over the paper (60 s runs) is not, each tried on the
    packet simulator: (1) ns-2's drop-tail limit counting the packet in transmission (both
    buffers one less): still > 15 % above; (2) ns-2's 40 header bytes on each 1000-byte
    packet (1040 bytes on the wire, the ACK link unchanged): still > 15 % above, and the
    paper's own Vegas at k = 0.5 (195.9 pkts/s) carries more than 1040-byte packets can
    (192.3); (3) an advertised window (ns-2's ``window_``): every cap that brings B_r = 100
    to the paper's 46.6 stops the forward-buffer overflow at B_r = 40, which then carries
    about twice the paper's 46.2."""
    from tcpfluid.sim import simulate_packets

    one_less = tcpfluid.simulate(_packet_reno_scenario(5, 99, 9, "60s"), engine=PACKET)
    assert not _within(one_less.summary.throughput_pps[0], 46.6)
    mu_1040 = 1.6e6 / 8.0 / 1040.0
    assert mu_1040 < 195.9
    header = build_scenario(
        "asymmetric",
        algorithm="reno",
        k=5 * mu_1040 / 200.0,  # the same 40 ACKs/s on the reverse link
        packet_size="1040B",
        reverse_buffer=100,
        forward_buffer=10,
        duration="60s",
    )
    assert not _within(tcpfluid.simulate(header, engine=PACKET).summary.throughput_pps[0], 46.6)
    for cap in (64.0, 100.0, 128.0, 200.0, 300.0):
        got = {}
        for br in (40, 100):
            sc = _packet_reno_scenario(5, br, 10, "60s")
            law = {sc.flows[0].name: _AdvertisedWindowReno(cap)}
            res = simulate_packets(sc, laws=law, timeout_recover=True)
            got[br] = float(res.flows[0].goodput_pps.mean())
        assert not (_within(got[100], 46.6) and _within(got[40], 46.2)), (cap, got)


#: the one-minute rows whose fluid default is more than 15 % below the packets with ``bugFix_``
LOST_AT_60_S = {
    (5, 20): "packets 90.0, rounds 76.2, ODE 75.7 pkts/s",
    (5, 40): "packets 72.2, rounds 52.9, ODE 54.5 pkts/s",
}


@pytest.mark.parametrize(
    ("k", "br", "bf"),
    [
        pytest.param(k, br, bf, marks=_lost_at_large_reverse_buffers(LOST_AT_60_S[(k, br)]))
        if (k, br) in LOST_AT_60_S
        else (k, br, bf)
        for k, br, bf, _paper in PAPER_RENO
    ],
)
@pytest.mark.parametrize("engine", ["rounds", "ode"])
def test_fluid_reno_tracks_the_packets_over_the_reports_one_minute_runs(
    engine: str, k: float, br: int, bf: int
) -> None:
    """The report's runs (60 s; Table II with a 10-packet forward buffer): the round model
    and the hybrid ODE follow the packet simulator's run-average within 15 % on the Reno rows
    of Tables I-II, the slow-start overshoot and its collapse included, but B_r = 20 and 40
    (module docstring)."""
    sc = _packet_reno_scenario(k, br, bf, "60s")
    pk = tcpfluid.simulate(sc, engine=PACKET).summary.throughput_pps[0]
    fl = tcpfluid.simulate(sc, engine=engine).summary.throughput_pps[0]
    assert fl == pytest.approx(pk, rel=0.15), (k, br)
