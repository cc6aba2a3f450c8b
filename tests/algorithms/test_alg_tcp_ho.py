"""TCP-Ho (the TCP-Ho paper, §3.2, Tables 1, 2 and 4), unit-tested without an engine.

Tables 1–2 are tested on the literal law (``decrease="table"``); Table 4 and the addition
(``decrease="throughput"``, the default) on both.
"""

from __future__ import annotations

import numpy as np
import pytest
from _lawkit import drive, sample
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.algorithms import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    RoundAction,
    TcpHo,
)

# The TCP-Ho paper, Table 4 (window and increase amount per round while PMaT < CMiT).
TABLE4_W = [2, 2, 2, 3, 4, 6, 8, 11, 14, 18, 22]
TABLE4_Z = [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5]


@pytest.mark.parametrize("decrease", ["table", "throughput"])
def test_table4_of_document_004(decrease):
    # Hand-written samples in which throughput keeps rising: a constant RTT of 0.1 s, so
    # the throughput of a round is proportional to its (growing) window.
    starts, actions = drive(
        TcpHo(decrease=decrease), 11, lambda k, w: sample(w, 0.1, 0.1, 0.1, 0.1)
    )
    assert [float(w[0]) for w in starts] == TABLE4_W
    # z_i: the amount added during round i = cap − cwnd of the action applied in round i
    z = [float(a.cap[0] - a.cwnd[0]) for a in actions[:11]]
    assert z == TABLE4_Z
    assert TABLE4_W[1:] == [w + dz for w, dz in zip(TABLE4_W, TABLE4_Z, strict=False)][:10]


def test_increase_is_spread_over_acks():
    # Round 12 of Table 4 (§4.2): W = 32, z = 6: 6/32 packet per ACK.
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 2.0  # an even call re-applies the current amount
    state["amount"][:] = 6.0
    act = law.on_round(state, sample(32.0))
    assert (act.cwnd[0], act.incr[0], act.cap[0]) == (32.0, 6 / 32, 38.0)


def _compare(status, incr, maxincr, pmat, pmit, rtt_min, rtt_max, cwnd=10.0):
    """One comparison call (odd k) from a hand-set state; returns (state, action)."""
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 3.0
    state["status"][:] = status
    state["incr"][:] = incr
    state["maxincr"][:] = maxincr
    state["mat2"][:] = pmat
    state["mit2"][:] = pmit
    act = law.on_round(state, sample(cwnd, 0.05, 0.1, rtt_min, rtt_max))
    return state, act


# Throughputs of the current round with cwnd = 10: CMaT = 10/rtt_min, CMiT = 10/rtt_max.
CASES = {
    # name: (pmat, pmit, rtt_min, rtt_max)
    "1": (50.0, 40.0, 0.1, 0.1),  # PMaT 50 < CMiT 100
    "2": (500.0, 400.0, 0.1, 0.1),  # CMaT 100 < PMiT 400
    "3": (150.0, 50.0, 0.05, 0.1),  # PMiT 50 < CMiT 100, PMaT 150 < CMaT 200
    "4": (250.0, 150.0, 0.05, 0.1),  # CMiT 100 < PMiT 150, CMaT 200 < PMaT 250
    "5": (300.0, 50.0, 0.05, 0.1),  # prior range [50, 300] contains [100, 200]
}


@pytest.mark.parametrize(
    ("case", "status", "incr", "maxincr", "exp"),
    [
        # case 1, status in {1, 3}: incr 2 -> 3, maxincr 2 -> 3, cwnd += 3
        ("1", 1.0, 2.0, 2.0, {"incr": 3.0, "maxincr": 3.0, "status": 1.0, "amount": 3.0}),
        ("1", 3.0, 1.0, 4.0, {"incr": 2.0, "maxincr": 4.0, "status": 1.0, "amount": 2.0}),
        # case 1, status otherwise: incr = maxincr = 1
        ("1", 2.0, 0.0, 5.0, {"incr": 1.0, "maxincr": 1.0, "status": 1.0, "amount": 1.0}),
        # case 2, status in {2, 4}: maxincr 3 -> 2, cwnd −= 2, incr 0
        ("2", 2.0, 0.0, 3.0, {"incr": 0.0, "maxincr": 2.0, "status": 2.0, "amount": -2.0}),
        ("2", 4.0, 0.0, 1.0, {"incr": 0.0, "maxincr": 1.0, "status": 2.0, "amount": -1.0}),
        # case 2, status otherwise: maxincr unchanged, cwnd −= maxincr
        ("2", 1.0, 3.0, 3.0, {"incr": 0.0, "maxincr": 3.0, "status": 2.0, "amount": -3.0}),
        # case 3, status in {1, 3}: incr 4 -> 2; 1 stays 1
        ("3", 1.0, 4.0, 4.0, {"incr": 2.0, "maxincr": 4.0, "status": 3.0, "amount": 2.0}),
        ("3", 3.0, 1.0, 4.0, {"incr": 1.0, "maxincr": 4.0, "status": 3.0, "amount": 1.0}),
        # case 3, status otherwise: incr = 1
        ("3", 5.0, 0.0, 0.0, {"incr": 1.0, "maxincr": 0.0, "status": 3.0, "amount": 1.0}),
        # case 4, status in {2, 4}: maxincr 4 -> 2, cwnd −= 2
        ("4", 4.0, 0.0, 4.0, {"incr": 0.0, "maxincr": 2.0, "status": 4.0, "amount": -2.0}),
        # case 4, status otherwise: maxincr unchanged
        ("4", 3.0, 2.0, 3.0, {"incr": 0.0, "maxincr": 3.0, "status": 4.0, "amount": -3.0}),
        # case 5: everything to 0, status 5
        ("5", 1.0, 3.0, 3.0, {"incr": 0.0, "maxincr": 0.0, "status": 5.0, "amount": 0.0}),
    ],
)
def test_status_machine_table2(case, status, incr, maxincr, exp):
    pmat, pmit, rmin, rmax = CASES[case]
    state, act = _compare(status, incr, maxincr, pmat, pmit, rmin, rmax)
    for key, value in exp.items():
        assert state[key][0] == value, key
    dz = exp["amount"]
    if dz >= 0:  # increase spread over the 10 ACKs of the next round
        assert (act.cwnd[0], act.cap[0]) == (10.0, 10.0 + dz)
        assert act.incr[0] == pytest.approx(dz / 10.0)
    else:  # decrease at the boundary
        assert (act.cwnd[0], act.incr[0], act.cap[0]) == (10.0 + dz, 0.0, 10.0 + dz)


def test_decrease_floor_is_two_packets():
    pmat, pmit, rmin, rmax = CASES["2"]
    _, act = _compare(1.0, 0.0, 5.0, pmat, pmit, rmin, rmax, cwnd=4.0)
    # CMaT = 4/0.1 = 40 < PMiT 400: cwnd = max(4 − 5, 2) = 2
    assert act.cwnd[0] == 2.0


def test_amount_is_applied_twice_then_recomputed():
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 3.0
    state["mat2"][:] = 500.0
    state["mit2"][:] = 400.0
    a = law.on_round(state, sample(10.0, 0.05, 0.1, 0.1, 0.1))  # case 2: −maxincr(0) = 0
    assert a.cwnd[0] == 10.0 and state["status"][0] == 2.0
    # even call: same amount, no comparison even though rounds now differ wildly
    state["mat2"][:] = 0.0
    a = law.on_round(state, sample(10.0, 0.05, 0.1, 0.1, 0.1))
    assert state["status"][0] == 2.0 and a.cap[0] == 10.0


def test_phase_leaves_slow_start_at_first_non_rising_comparison():
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    for w in (2.0, 2.0, 3.0, 4.0):
        law.on_round(state, sample(w, 0.1, 0.1, 0.1, 0.1))
        assert state["phase"][0] == SLOW_START
    # round k = 4 (even): no comparison; k = 5 compares with round 3 (window 4):
    # a round with a larger maximal RTT: PMaT = PMiT = 4/0.1 = 40, CMaT = 8/0.1 = 80,
    # CMiT = 8/0.21 = 38.1 < PMaT 40: not case 1; PMiT 40 < CMiT 38.1 fails: not case 3;
    # CMiT 38.1 < PMiT 40 but CMaT 80 < PMaT 40 fails: not case 4 -> case 5.
    law.on_round(state, sample(6.0, 0.1, 0.1, 0.1, 0.1))
    law.on_round(state, sample(8.0, 0.1, 0.15, 0.1, 0.21))
    assert state["phase"][0] == CONGESTION_AVOIDANCE
    assert state["status"][0] == 5.0


def test_losses_reset_quick_shift_state():
    law = TcpHo(decrease="table")
    state = law.init_state(2)
    for key in ("k", "incr", "maxincr", "amount", "mat1", "mit1", "mat2", "mit2"):
        state[key][:] = 7.0
    state["status"][:] = 3.0
    assert law.on_loss(state, np.array([0]), LOSS_FAST, np.array([40.0]))[0] == 30.0
    assert law.on_loss(state, np.array([1]), LOSS_TIMEOUT, np.array([40.0]))[0] == 2.0
    for key in ("k", "incr", "maxincr", "amount", "mat1", "mit1", "mat2", "mit2"):
        assert state[key].tolist() == [0.0, 0.0], key
    assert state["status"].tolist() == [1.0, 1.0]
    assert state["phase"].tolist() == [CONGESTION_AVOIDANCE, SLOW_START]


def test_no_parameters():
    # the document's rules have no tunable parameter; "decrease" selects the addition
    # besides the first window (Table 4 starts at 2 packets)
    assert TcpHo().params() == {"decrease": "throughput", "initial_window": 2.0}
    assert TcpHo(decrease="table").params() == {"decrease": "table", "initial_window": 2.0}
    with pytest.raises(ValueError, match="decrease must be one of"):
        TcpHo(decrease="halve")
    with pytest.raises(TypeError):
        TcpHo(alpha=1.0)  # type: ignore[call-arg]


def test_decrease_chain_below_the_pipe_continues_one_packet_per_round():
    # The literal rules below μd (no queue: throughput = cwnd / RTT, RTT 0.1 s): from
    # status 2 with maxincr 1 a case-2 decrease removes 1 packet in each round of the pair,
    # so each comparison sees the throughput 2 packets per round lower and decreases again.
    # Hand-driven from call k = 3 at 100 packets (round k − 2 had 102): 40 rounds -> 60.
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 3.0
    state["status"][:] = 2.0
    state["maxincr"][:] = 1.0
    state["mat1"][:] = state["mit1"][:] = 1010.0  # round k − 1: 101 packets / 0.1 s
    state["mat2"][:] = state["mit2"][:] = 1020.0  # round k − 2: 102 packets / 0.1 s
    w = 100.0
    for _ in range(40):
        act = law.on_round(state, sample(w, 0.1, 0.1, 0.1, 0.1))
        w = float(np.minimum(act.cwnd + act.incr * w, act.cap)[0])
    assert w == 60.0 and state["status"][0] == 2.0


def test_restart_at_the_floor():
    # A window of 2 whose throughput no longer changes (status 5 at the floor): the
    # quick-shift state restarts as at the beginning of a connection, so Table 4's growth
    # follows: calls k = 0 (no change), 1 (case 1 against "nothing sent": +1), 2 (+1 again).
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 5.0
    state["mat2"][:] = state["mit2"][:] = 20.0  # 2 packets / 0.1 s
    act = law.on_round(state, sample(2.0, 0.1, 0.1, 0.1, 0.1))
    assert state["k"][0] == 0.0 and state["status"][0] == 1.0
    assert state["phase"][0] == SLOW_START
    assert (act.cwnd[0], act.cap[0]) == (2.0, 2.0)
    # the restart's action plays the part of round 0's; windows at the start of rounds 0..6
    starts = []
    for _ in range(7):
        starts.append(float(act.cwnd[0]))
        w_end = np.minimum(act.cwnd + act.incr * act.cwnd, act.cap)
        act = law.on_round(state, sample(w_end, 0.1, 0.1, 0.1, 0.1))
    assert starts == TABLE4_W[:7]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(2.0, 500.0), st.floats(0.05, 0.2), st.floats(1.0, 2.0), st.floats(1.0, 2.0)
        ),
        min_size=1,
        max_size=5,
    ),
    st.integers(1, 12),
)
def test_batched_equals_single_over_several_rounds(flows, rounds):
    n = len(flows)
    law = TcpHo(decrease="table")
    state = law.init_state(n)
    singles = [law.init_state(1) for _ in range(n)]
    w = np.array([f[0] for f in flows])
    for r in range(rounds):
        lo = np.array([f[1] for f in flows]) * (1 + 0.01 * r)
        hi = lo * np.array([f[2] if r % 2 else f[3] for f in flows])
        act = law.on_round(state, sample(w, 0.05, lo, lo, hi))
        for i in range(n):
            a1 = law.on_round(singles[i], sample([w[i]], 0.05, [lo[i]], [lo[i]], [hi[i]]))
            assert (a1.cwnd[0], a1.incr[0], a1.cap[0]) == (act.cwnd[i], act.incr[i], act.cap[i])
        assert np.all(act.cwnd >= 2.0)
        w = np.minimum(act.cwnd + act.incr * w, act.cap)


def test_a_decrease_is_applied_in_both_rounds_of_the_pair():
    # §3.2: "the increase (or decrease) amounts in the i-th and (i+1)-th rounds will be the
    # same". Case 2 from status 1 with maxincr 3: −3 at the comparison (k = 3) and −3 again
    # at the next call (k = 4): 20 -> 17, then 17 -> 14.
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 3.0
    state["maxincr"][:] = 3.0
    state["mat2"][:] = 500.0
    state["mit2"][:] = 400.0
    a = law.on_round(state, sample(20.0, 0.05, 0.1, 0.1, 0.1))  # CMaT 200 < PMiT 400
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (17.0, 0.0, 17.0)
    a = law.on_round(state, sample(17.0, 0.05, 0.1, 0.1, 0.1))
    assert (a.cwnd[0], a.incr[0], a.cap[0]) == (14.0, 0.0, 14.0)
    assert state["status"][0] == 2.0


def _steady_after_a_tie(w: float, rtt: float = 0.1):
    """A flow in a status-5 steady state, the next call a comparison (odd k)."""
    law = TcpHo(decrease="table")
    state = law.init_state(1)
    state["k"][:] = 41.0
    state["status"][:] = 5.0
    state["phase"][:] = CONGESTION_AVOIDANCE
    for key in ("mat1", "mit1", "mat2", "mit2"):
        state[key][:] = w / rtt
    return law, state


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.8, 1.25), st.floats(1.0, 1.5)), min_size=35, max_size=35))
def test_table2_cannot_shed_a_window_after_a_tie(rises):
    # The experiment behind "no reading of Table 2 converges in 7 s after a halving"
    # (the TCP-Ho paper, §5.1.2): from a status-5 steady state at the 50 Mb/s x 100 ms path's
    # window (690 packets: μd plus the ~51 packets the paper reports queued), 35 rounds
    # (7 s of the 200 ms rounds the halving brings) with arbitrary round RTTs (each round's
    # minimal RTT 20 % below to 25 % above the previous round's, its maximal RTT 0-50 %
    # above its minimal one: throughputs that fall, stall or jump about). Table 2 never
    # removes more than 2 packets per comparison after maxincr = 0, so the window ends
    # at least 690 − 2·17 = 656 packets, where the halving needs about 345.
    law, state = _steady_after_a_tie(690.0)
    w, rtt = 690.0, 0.1
    for up, spread in rises:
        rtt *= up
        act = law.on_round(state, sample(w, 0.1, rtt, rtt, rtt * spread))
        w = float(np.minimum(act.cwnd + act.incr * w, act.cap)[0])
    assert w >= 690.0 - 2 * 17


def test_throughput_addition_keeps_table4():
    starts, _ = drive(TcpHo(decrease="throughput"), 11, lambda k, w: sample(w, 0.1, 0.1, 0.1, 0.1))
    assert [float(w[0]) for w in starts] == TABLE4_W


def test_throughput_addition_cuts_to_the_measured_fall_once():
    # from the steady state (minimal RTT 0.1 s at the last calm comparison), a comparison
    # whose RTTs doubled (a halving's queue): the window falls to CMiT × 0.1 s =
    # 690/0.2 × 0.1 = 345 at the comparison
    law = TcpHo(decrease="throughput")
    state = law.init_state(1)
    state["k"][:] = 41.0
    state["status"][:] = 5.0
    for key in ("mat1", "mit1", "mat2", "mit2"):
        state[key][:] = 6900.0
    for key in ("rmin1", "rmax1", "rmin2", "rmax2", "rsteady"):
        state[key][:] = 0.1
    act = law.on_round(state, sample(690.0, 0.1, 0.2, 0.2, 0.2))
    assert act.cwnd[0] == pytest.approx(345.0)
    assert state["status"][0] == 2.0
    # a fall the flow's own decrease explains (RTTs unchanged) is a tie, not status 2
    law = TcpHo(decrease="throughput")
    state = law.init_state(1)
    state["k"][:] = 41.0
    for key in ("mat1", "mit1", "mat2", "mit2"):
        state[key][:] = 3460.0  # 346 packets / 0.1 s
    for key in ("rmin1", "rmax1", "rmin2", "rmax2", "rsteady"):
        state[key][:] = 0.1
    # (base RTT 0.09 s: a standing queue, so the empty-path probe does not apply)
    act = law.on_round(state, sample(345.0, 0.09, 0.1, 0.1, 0.1))
    assert act.cwnd[0] == 345.0 and state["status"][0] == 5.0


def test_throughput_addition_probes_an_empty_path():
    # a tie with no backlog (RTT = BaseRTT) is room: status 3, +1 (Table 2's status-3 step)
    law = TcpHo()
    state = law.init_state(1)
    state["k"][:] = 41.0
    state["status"][:] = 5.0
    for key in ("mat1", "mit1", "mat2", "mit2"):
        state[key][:] = 3000.0
    for key in ("rmin1", "rmax1", "rmin2", "rmax2", "rsteady"):
        state[key][:] = 0.1
    act = law.on_round(state, sample(300.0, 0.1, 0.1, 0.1, 0.1))
    assert state["status"][0] == 3.0 and act.cap[0] - act.cwnd[0] == 1.0


def test_throughput_addition_trims_only_after_the_drain():
    # The rounds a packet sender measured after the §5.1.2 halving (ho-basic, CBR at 10 s;
    # RTTs in ms as the packet simulator recorded them): the first cut (round 99) took
    # the window from 651.8 to 408.4; the queue then drains while TCP's share of the FIFO
    # settles. Minimal RTT of the last calm comparison r = 104.16 ms, BaseRTT 100.18 ms.
    law = TcpHo()
    state = law.init_state(1)
    r, base = 0.10416, 0.10018
    state["k"][:] = 100.0
    state["status"][:] = 2.0
    state["quiet"][:] = 1.0
    state["rsteady"][:] = r
    state["mat2"][:], state["mit2"][:] = 651.8 / 0.10416, 651.8 / 0.12416  # round 98
    state["rmin2"][:], state["rmax2"][:] = 0.10416, 0.12416
    state["mat1"][:], state["mit1"][:] = 651.8 / 0.12416, 651.8 / 0.16624  # round 99
    state["rmin1"][:], state["rmax1"][:] = 0.12416, 0.16624
    rounds = [  # (rtt_min, rtt_max) of rounds 100-107, window 408.4
        (0.15328, 0.18720),
        (0.14192, 0.15888),
        (0.13616, 0.14480),
        (0.13344, 0.13760),
        (0.13200, 0.13408),
        (0.13120, 0.13232),
        (0.13088, 0.13152),
        (0.13072, 0.13104),
    ]
    windows = []
    w = 408.4
    for lo, hi in rounds:
        act = law.on_round(state, sample(w, base, lo, lo, hi))
        w = float(act.cwnd[0])
        windows.append(w)
    # no move while the minimal RTT still falls round to round by more than half a
    # packet's delay (0.5 × r_min / W ≈ 0.16 ms) ...
    assert windows[:-1] == [408.4] * 7
    # ... then one trim to CMaT × r: the available rate μa = 3125 packets/s (half of
    # 50 Mb/s in 1000-byte packets) times r, within one packet
    mu_a = 50e6 / 8000 / 2
    assert windows[-1] == pytest.approx(mu_a * r, abs=1.0)
    # Ending the quiet against round k − 2 instead (the round spanning the change, whose
    # minimal RTT of 124.16 ms had not risen yet) would have trimmed at round 101 to
    # CMaT × r = 408.4 / 0.14192 × r: below the new pipe μa × BaseRTT, an idle link
    # (the packet simulator's 300-packet undershoot, then a slow climb back).
    assert 408.4 / 0.14192 * r < mu_a * base - 10.0


def test_throughput_addition_a_draining_queue_is_not_room():
    # window unchanged since round k − 2 and the minimal RTT fell by more than one packet's
    # delay (3.2 ms > 0.1088 s / 35): the queue drains; the rise of the throughput is a
    # tie, not status 1 or 3, while a queue remains
    law = TcpHo()
    state = law.init_state(1)
    state["k"][:] = 41.0
    state["status"][:] = 5.0
    state["mat2"][:], state["mit2"][:] = 35.0 / 0.1120, 35.0 / 0.1120
    state["rmin2"][:], state["rmax2"][:] = 0.1120, 0.1120
    act = law.on_round(state, sample(35.0, 0.1, 0.1088, 0.1088, 0.1088))
    assert state["status"][0] == 5.0 and act.cap[0] == act.cwnd[0] == 35.0
    # the same rise with the window grown is room (Table 2's status 1)
    state = law.init_state(1)
    state["k"][:] = 41.0
    state["status"][:] = 5.0
    state["mat2"][:], state["mit2"][:] = 33.0 / 0.1120, 33.0 / 0.1120
    state["rmin2"][:], state["rmax2"][:] = 0.1120, 0.1120
    law.on_round(state, sample(35.0, 0.1, 0.1088, 0.1088, 0.1088))
    assert state["status"][0] == 1.0


def test_throughput_addition_a_fall_during_a_drain_waits_for_the_trim():
    # Recorded by the packet simulator, ho-basic with the CBR from 10.05 s: the first cut
    # (round 99, status 4) took the window from 651.8 to 449.0; round 101 still counts a
    # fall (its maximal RTT 161.76 ms is above round 99's 151.20 ms). The round's window is
    # the cut one while its RTTs carry the queue of 651.8 packets, so its throughputs
    # understate the new rate: CMiT × r = 449.0 / 0.16176 × r = 289 is below the new pipe
    # μa × BaseRTT = 313. The law makes no cut there and waits for the drain; the trim of
    # the drain's end sizes the window from settled RTTs.
    law = TcpHo()
    state = law.init_state(1)
    r, base = 0.10416, 0.10018
    mu_a = 50e6 / 8000 / 2
    assert 449.0 / 0.16176 * r < mu_a * base - 10.0
    state["k"][:] = 100.0
    state["status"][:] = 4.0
    state["quiet"][:] = 1.0
    state["rsteady"][:] = r
    state["mat2"][:], state["mit2"][:] = 651.8 / 0.10416, 651.8 / 0.10416  # round 98
    state["rmin2"][:], state["rmax2"][:] = 0.10416, 0.10416
    state["mat1"][:], state["mit1"][:] = 651.8 / 0.10416, 651.8 / 0.15120  # round 99
    state["rmin1"][:], state["rmax1"][:] = 0.10416, 0.15120
    law.on_round(state, sample(449.0, base, 0.1512, 0.1512, 0.17968))  # round 100
    act = law.on_round(state, sample(449.0, base, 0.14816, 0.14816, 0.16176))  # round 101
    assert state["status"][0] == 4.0  # the fall is counted ...
    assert act.cwnd[0] == act.cap[0] == 449.0  # ... and no cut while the drain goes on
    assert state["quiet"][0] == 1.0
    # The hybrid ODE on the convergence-vs-BDP path at 5000 kb (CBR from 80 s; μa = 3125
    # packets/s, BaseRTT 100 ms): first cut 648.6 -> 436.4, the next comparison a further
    # fall with the minimal RTT 148.6 ms of a draining round. Sized from it even CMaT × r =
    # 436.42 / 0.1486 × 0.1038 = 304.8 undershoots the pipe of 312.5: the queue emptied,
    # rule 5 probed and Table 1's ramp needed a second cut (27 base RTTs; with the wait
    # 17.3, packets 14.8).
    state = law.init_state(1)
    state["k"][:] = 101.0
    state["status"][:] = 4.0
    state["quiet"][:] = 1.0
    state["rsteady"][:] = 0.1038
    state["mat2"][:], state["mit2"][:] = 648.58 / 0.10377, 648.58 / 0.15422
    state["rmin2"][:], state["rmax2"][:] = 0.10377, 0.15422
    state["mat1"][:], state["mit1"][:] = 436.42 / 0.15433, 436.42 / 0.17898
    state["rmin1"][:], state["rmax1"][:] = 0.15433, 0.17898
    act = law.on_round(state, sample(436.42, 0.1, 0.1486, 0.1486, 0.15705))
    assert state["status"][0] == 4.0
    assert act.cwnd[0] == act.cap[0] == 436.42


def _tail_rounds(clear_tail_before: int | None) -> tuple[list[float], list[float], list[float]]:
    # Recorded by the packet simulator on the convergence-vs-BDP path at 500 kb (μd = 62.5
    # packets, a CBR of half the bottleneck from 80 s; RTTs in ms): after the halving the
    # first cut and the trim (round 695) left 36.55 packets; the calm minimal RTT r was
    # 116.8 ms. The FIFO share settles geometrically and the RTTs move in steps of one
    # packet's service time (1.6 ms at 5 Mb/s), so the drain is judged over at round 697
    # (the minimal RTT did not move for a round) and the next step down follows.
    law = TcpHo()
    state = law.init_state(1)
    base = 0.1  # BaseRTT: any value leaving more than one packet of backlog (rule 5 silent)
    state["k"][:] = 696.0
    state["status"][:] = 5.0
    state["quiet"][:] = 2.0
    state["rsteady"][:] = 0.1168
    state["mat2"][:], state["mit2"][:] = 37.55 / 0.1200, 37.55 / 0.1216  # round 694
    state["rmin2"][:], state["rmax2"][:] = 0.1200, 0.1216
    state["mat1"][:], state["mit1"][:] = 37.55 / 0.1200, 37.55 / 0.1200  # round 695
    state["rmin1"][:], state["rmax1"][:] = 0.1200, 0.1200
    state["rtail"][:] = 0.1200
    rounds = [  # (rtt_min, rtt_max) of rounds 696-703, window 36.55
        (0.1168, 0.1200),
        (0.1168, 0.1168),
        (0.1152, 0.1168),
        (0.1152, 0.1152),
        (0.1152, 0.1152),
        (0.1152, 0.1152),
        (0.1152, 0.1152),
        (0.1152, 0.1152),
    ]
    windows, caps, statuses = [], [], []
    w = 36.55
    for i, (lo, hi) in enumerate(rounds):
        if clear_tail_before is not None and i == clear_tail_before:
            state["tail"][:] = 0.0
        act = law.on_round(state, sample(w, base, lo, lo, hi))
        w = float(act.cwnd[0])
        windows.append(w)
        caps.append(float(act.cap[0]))
        statuses.append(float(state["status"][0]))
    return windows, caps, statuses


def test_throughput_addition_the_tail_of_a_drain_is_not_room():
    # round 699 against round 697: CMiT − PMaT = 36.55 / 0.1152 − 36.55 / 0.1168 is more
    # than half a packet per round, with the window unchanged and the minimal RTT fallen by
    # one service time (1.6 ms, less than one packet's delay 0.1152 / 36.55 = 3.2 ms)
    assert 36.55 / 0.1152 - 36.55 / 0.1168 > 0.5 / 0.1152
    windows, caps, statuses = _tail_rounds(None)
    # the tail of the drain: no move at all, the window stays where the trim put it
    assert windows == [36.55] * 8 and caps == [36.55] * 8
    assert statuses[3] == 5.0
    # switch: the same rounds without the tail (cleared before round 699) read the step
    # as room: status 1, the first step of Table 1's ramp from a window already at its
    # pipe (the packet run then overshot by 15 packets and needed a second cut, drain and
    # trim: 64 RTTs)
    windows, caps, statuses = _tail_rounds(3)
    assert statuses[3] == 1.0
    assert caps[3] == pytest.approx(36.55 + 1.0)


@pytest.mark.parametrize("decrease", ["table", "throughput"])
def test_out_receives_the_same_action_and_windows(decrease):
    # on_round(out=...) and on_loss(out=...) write into the caller's arrays (the packet
    # simulator's rows) what the calls without them return, and return those arrays
    law = TcpHo(decrease=decrease)
    mine, ref = law.init_state(3), law.init_state(3)
    rtts = [(0.10, 0.10), (0.10, 0.12), (0.11, 0.15), (0.10, 0.10), (0.12, 0.20)]
    w = np.array([2.0, 5.0, 40.0])
    for k in range(12):
        lo, hi = rtts[k % len(rtts)]
        s = sample(w, 0.1, lo, lo, hi)
        out = RoundAction.empty(3)
        got = law.on_round(mine, s, out=out)
        want = law.on_round(ref, s)
        assert got is out
        for a, b in ((got.cwnd, want.cwnd), (got.incr, want.incr), (got.cap, want.cap)):
            assert a.tolist() == b.tolist()
        w = np.minimum(want.cwnd + want.incr * want.cwnd, want.cap)
    idx = np.array([2, 0])
    new = np.empty(2)
    assert law.on_loss(mine, idx, LOSS_FAST, w[idx], out=new) is new
    assert new.tolist() == law.on_loss(ref, idx, LOSS_FAST, w[idx]).tolist()
    for key in ref:
        assert mine[key].tolist() == ref[key].tolist(), key


def test_loss_of_an_unknown_flow_is_an_index_error():
    law = TcpHo()
    state = law.init_state(2)
    with pytest.raises(IndexError, match="flow index is out of range"):
        law.on_loss(state, np.array([2]), LOSS_FAST, np.array([10.0]))
