"""The compiled time-stepping kernel of the hybrid fluid model (:mod:`tcpfluid.fluid.hybrid`).

:func:`advance` steps the queue, the senders and the ACKs, and each flow's law decides at
its round boundaries inside it; it returns to Python when a flow joins, when a law written
in Python decides, and at the end. All state lives in the arrays passed in (updated in
place), laid out by the ``F_*`` (per-flow columns) and ``G_*`` (global scalars) indices.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from numba import njit

from .. import _numba_cache
from .._queueing_kernel import red_average, red_probability
from ..algorithms._jit import JIT_OPTIONS as _JIT
from ..algorithms.base import SLOW_START
from ._rounds_kernel import _mx
from ._rounds_physics import backed_off, holes_outlast_timer, place_offset, sender_rto

# per-flow float state: columns of the (F, N_FLOW_ROWS) array ``ff`` (each flow's fields
# side by side)
F_D = 0  # base RTT d_j, s
F_START = 1
F_STOP = 2
F_W = 3  # window, packets
F_INCR = 4  # per-ACK increment of the current round
F_CAP = 5  # cap of the per-ACK increments
F_INFLIGHT = 6
F_QF = 7  # the flow's backlog in the bottleneck queue
F_SENT = 8  # cumulative packets sent
F_RESOLVED = 9  # cumulative packets ACKed or dropped
F_ACKED = 10  # cumulative packets ACKed
F_ROUND_SEQ = 11  # F_SENT when the current round began
F_R_ACKS = 12  # the current round's ACKs, RTT sum, min, max
F_R_SUM = 13
F_R_MIN = 14
F_R_MAX = 15
F_LAST_RTT = 16
F_LOST = 17  # lost packets not yet reacted to
F_FIRST_DROP = 18  # when the sender learns of them: the duplicate ACKs of the packets
#                   behind the first drop arrive (drop time + base RTT + queueing delay)
F_RECOVER = 19  # drops before this time belong to the last loss event
F_ACKED_SINCE = 20  # ACKs since the last recorded sample
F_STARTED = 21  # 1.0 once the flow has started
F_DELAY_STEPS = 22  # the ACK delay in steps (d_j / dt, rounded)
F_LOST_TOTAL = 23  # cumulative packets dropped
F_BASE = 24  # the BaseRTT the law last saw (0 before its first round)
F_QA = 25  # the flow's ACKs in the ACK-path queue
F_QD = 26  # the data those ACKs acknowledge (cumulative ACKs), packets
F_R_FSUM = 27  # the current round's sum of forward queueing delays, ACK-weighted, s
F_FMIN = 28  # the smallest forward queueing delay an ACK ever carried, s
F_ACKD = 29  # cumulative ACKs of the flow dropped by the ACK-path buffer
F_ACKD_ROUND = 30  # F_ACKD when the current round began
F_ACKD_PREV = 31  # F_ACKD when the previous round began
F_CARRY = 32  # ACKs of the step that ended the round beyond its first packet: they grow
#               the window with the law's next increment (applied when ``advance`` resumes)
F_FREED = 33  # window freed (ACKed or dropped) since the flow last sent: its ACK clock
F_SILENT = 34  # the sender sends nothing before this time (a retransmission timeout), s
F_BACKOFF = 35  # the silent time of the flow's last timeout, s (0: the last event was not
#                 one, or an ACK came since): a timeout right after it waits twice as long
F_ACKED_AT_TO = 36  # F_ACKED at the flow's last timeout
F_ACKED_MARK = 37  # F_ACKED and F_LOST_TOTAL at the mark (``G_MARK``)
F_LOST_MARK = 38
F_ACK_PART = 39  # whole packets: the ACK fluid beyond the flow's last whole ACK (< 1)
F_WHOLE = 40  # 1.0: whole packets (``whole_packets``)
F_LAST_DEP = 41  # the last step the flow's departures were not zero
F_LAST_REL = 42  # the step its last held drop is released (``drop_hist``)
F_PARK_FROM = 43  # the last step before the flow was parked (:func:`_unpark`)
F_QUIET = 44  # 1.0: the flow is in the list of flows that may be parked (``touched[3]``)
# its place in the slow-start burst (``_rounds_physics.placed_flows``, ``hybrid._initial_state``)
F_PLACED = 45  # 1.0: the flow started with the first flows, together, on one round clock
F_CYCLES = 46  # the burst's cycles: the first placed flow's initial window, packets
F_ROUND_NO = 47  # the flow's rounds begun since it joined (its first round is 0)
F_GROWTH = 48  # 3 columns: its growth in its round r at column r mod 3 (cap − window), packets
F_GROWTH_SS = 51  # 3 columns: the same while its round reads its place (else 0), packets
F_SUMS_ROUND = 54  # the round whose places the next three hold (:func:`_place_sums`)
F_AHEAD = 55  # the growth of the placed flows ahead of it in that round's burst, packets
F_OURS = 56  # every placed flow's growth in it, packets
F_TOTAL = 57  # every flow's growth in it, packets
F_NEXT_SEQ = 58  # the round's end: the data its sender had sent when its ACKs reached the
#                  round's first packet, inside the step (the next round's first packet)
F_CREDIT = 59  # its arrivals at a full queue, less those of every flow before each of its
#               runs of losses began (:func:`_overflow_runs`), packets
F_RUN_LEFT = 60  # the losses left in its run under way (0: none), packets
F_DITHER = 61  # 1.0: its loss events behind RED are dithered (``red_losses="dithered"``)
F_LOSS_AT = 62  # the lost packets its next loss event needs (1; dithered: a draw in (0, 1])
F_EVENTS = 63  # its loss events so far (the index of its next draw)
F_PLACE_ON = 64  # 1.0: its round reads its place: placed, and in slow start or not yet lost
F_HAS_LOST = 65  # 1.0: a loss reaction since it joined (its packets no longer in its place)
F_FIRST_RTT = 66  # the RTT its first packet saw behind the other first flows' first windows
#                   (``_first_packets.first_packet_waits``, ``hybrid._initial_state``; 0:
#                   none): a floor under its first two rounds' minimum RTT, s
F_LAST_ACKED = 67  # the end of the last step in which it had packets ACKed (0: none), s
N_FLOW_ROWS = 68

# recorded per-flow series: rows of ``rec_f`` (N_REC_F, samples, F): a sample's values of
# every flow are written side by side (the results read them transposed, flows x samples)
R_W = 0
R_THR = 1
R_RTT = 2
R_ACKED = 3
R_LOST = 4
R_BASE = 5
N_REC_F = 6
# recorded global series: rows of ``rec_g`` (N_REC_G, samples)
R_T = 0
R_Q = 1
R_AVG = 2
R_QR = 3
R_QAREA = 4  # the queue's time integral since the run's start, packet-seconds
N_REC_G = 5

# global float scalars: entries of ``g``
G_QC = 0  # cross traffic's backlog, packets
G_AVG = 1  # RED's averaged queue
G_CARRIED = 2  # packets carried by the bottleneck
G_K_REC = 3  # recorded samples so far
G_Q = 4  # the queue after the last step
G_QR = 5  # the ACK-path queue after the last step, ACKs
G_APTR = 6  # the step whose arrivals leave the queue now (FIFO), for the RTT samples
G_ARRIVED = 7  # cumulative arrivals at the bottleneck (after drops), packets
G_DROP_PTR = 8  # the source the next drop-tail overflow falls on first (drops in turn)
G_GROW_PTR = 9  # the flow whose growth the next drop-tail overflow falls on first
G_IDLE = 10  # the bottleneck's unused service, packets: carried = μ × time - idle exactly
G_QAREA = 11  # the queue's time integral over the steps so far (each step's queue after
#               it, over the step's part inside the run), packet-seconds
G_MARK = 12  # a time, s: the counts of the steps that end by it are kept (``*_MARK``)
G_MARKED = 13  # 0.5 once the step start's are kept, 1.0 once moved to the mark itself
G_QAREA_MARK = 14  # G_QAREA at the mark
G_REDO = 15  # 1.0: every flow's sending of the next step is (re)computed when ``advance``
#              resumes (at the start, and after a join); else only the touched flows'
G_T_JOIN = 16  # the earliest start of a flow not started yet (inf: none), set at a redo
G_TOUCHED = 17  # flows in row 0 of ``touched``: those whose round ended or that learnt of
#                 their losses in the last step (increasing), whose state the caller changes
G_ENDED = 18  # of them, the flows whose round ended: row 1 of ``touched`` (increasing)
G_LEARNT = 19  # and those that learnt of their losses: row 2 of ``touched`` (increasing)
G_CREDIT_ADDED = 20  # every flow's arrivals at a full queue since the last run began
G_RUNS_ON = 21  # 1.0: the queue overflowed in the last step (runs may be under way)
G_CROSS = 22  # the cross traffic's rate in the step, packets/s (:func:`repair_rtt`)
G_MARK_FRAC = 23  # where the mark falls in its step (0..1): the counts at it interpolated
N_GLOBALS = 24

#: return codes of :func:`advance`
DONE = 0
DECIDE = 1  # laws written in Python decide (the flows of ``touched``): then call again
JOIN = 2
GROW = 3  # a log may not have room for a step: the caller gives it room and calls again
PAUSE = 5  # the step ``ig[I_PAUSE]`` is reached (a progress report)

_numba_cache.configure()  # the cache directory rule every compiled part follows
_numba_cache.embeds(sys.modules[__name__], red_probability, place_offset, _mx)  # compiled in
#: ``numpy.maximum`` of two floats (a NaN wins)
_np_max = njit(inline="always", **_JIT)(_mx)


@njit(inline="always", **_JIT)
def _send_of(sending, whole, w, inflight, freed):  # type: ignore[no-untyped-def]
    """A flow's window-limited sending in a step (``sending``: it may send then; window
    ``w``, ``inflight`` packets in flight, ``freed`` window freed since it last sent):
    what its window allows beyond its packets in flight, and what of it is beyond its ACK
    clock. Scalars only: the caller keeps the flow's state."""
    s = 0.0
    if sending:
        w_send = w
        if whole:  # a packet sender has whole packets in flight
            w_send = math.floor(w_send)
        s = max(w_send - inflight, 0.0)
    return s, (s - freed if s > freed else 0.0)


@njit(inline="always", **_JIT)
def _grow(ff, j, whole, w, acks):  # type: ignore[no-untyped-def]
    """Flow ``j``'s window ``w`` grown by ``acks`` ACKs with the law's per-ACK increment,
    bounded by its cap. Whole packets: once per whole ACK, as a packet sender's per-ACK
    update (the ACK fluid's part beyond the last whole ACK waits in ``F_ACK_PART``), so the
    window takes the packet sender's values, floating-point sums included."""
    incr = ff[j, F_INCR]
    cap = ff[j, F_CAP]
    if not whole:
        return min(w + incr * acks, cap) if w < cap else w
    part = ff[j, F_ACK_PART] + acks
    n = math.floor(part + 1e-9)
    ff[j, F_ACK_PART] = part - n
    for _ in range(n):
        if w < cap:
            w = min(w + incr, cap)
    return w


@njit(inline="always", **_JIT)
def _next_seq(ff, j, whole, w, t, inflight, over):  # type: ignore[no-untyped-def]
    """The first packet of flow ``j``'s next round, its round having ended in this step
    with ``over`` packets resolved beyond the round's first packet (``w`` its window when
    its ACKs reached that packet, ``inflight`` its packets in flight after the step's
    ACKs): what its sender had sent at that instant. The step's ACKs before it clocked out
    packets within the window, which the fluid sends in the next step: they belong to the
    ending round (docs/ode-model.md, "The round's first packet")."""
    seq = ff[j, F_SENT]
    if ff[j, F_SILENT] <= t:
        w_send = math.floor(w) if whole else w
        ahead = w_send - inflight - over
        if ahead > 0.0:
            seq += ahead
    return seq


@njit(inline="always", **_JIT)
def _room(ff, j, w, acks):  # type: ignore[no-untyped-def]
    """Of ``acks`` ACKs, those flow ``j``'s window ``w`` still grows by with its round's
    per-ACK increment before it reaches its cap (all of them: no cap in reach)."""
    incr = ff[j, F_INCR]
    cap = ff[j, F_CAP]
    if w >= cap or incr <= 0.0:
        return 0.0
    need = (cap - w) / incr
    return acks if acks < need else need


@njit(inline="always", **_JIT)
def _record(ff, j, w, rec_f, r, k, every, dt):  # type: ignore[no-untyped-def]
    """Flow ``j``'s sample ``r`` of the recorded series (window ``w``)."""
    rec_f[R_W, r, j] = w
    rec_f[R_THR, r, j] = ff[j, F_ACKED_SINCE] / (every * dt) if k > 0 else 0.0
    rec_f[R_RTT, r, j] = ff[j, F_LAST_RTT]
    rec_f[R_ACKED, r, j] = ff[j, F_ACKED]
    rec_f[R_LOST, r, j] = ff[j, F_LOST_TOTAL]
    rec_f[R_BASE, r, j] = ff[j, F_BASE]
    ff[j, F_ACKED_SINCE] = 0.0


@njit(**_JIT)
def mark_counts(ff, g):  # type: ignore[no-untyped-def]
    """Move the counts kept at the start of the mark's step (``*_MARK``) to the mark
    itself, linearly over that step (called once it has ended, or when the run ends in
    it): the measured time starts at the mark, not up to a step before it."""
    f = g[G_MARK_FRAC]
    for j in range(ff.shape[0]):
        ff[j, F_ACKED_MARK] += f * (ff[j, F_ACKED] - ff[j, F_ACKED_MARK])
        ff[j, F_LOST_MARK] += f * (ff[j, F_LOST_TOTAL] - ff[j, F_LOST_MARK])
    g[G_QAREA_MARK] += f * (g[G_QAREA] - g[G_QAREA_MARK])
    g[G_MARKED] = 1.0


@njit(**_JIT)
def advance(  # type: ignore[no-untyped-def]
    k,
    n_steps,
    t_end,
    dt,
    mu,
    buf,
    red,
    rev,
    ff,
    g,
    dep_hist,
    ack_hist,
    drop_hist,
    q_hist,
    f_hist,
    fq_ring,
    qa_ring,
    drops,
    cross,
    every,
    rec_f,
    rec_g,
    sends,
    touched,
    laws,
):
    """Step from step ``k`` until a flow joins (``(k, JOIN)``, before step ``k``; the
    caller sets ``g[G_REDO]``), the run ends (``(n_steps, DONE)``), a log may not have
    room for a step (``(k, GROW)``), step ``ig[I_PAUSE]`` is reached (``(k, PAUSE)``) or
    flows of laws written in Python have decisions to take (``(k, DECIDE)``: those
    flows, in increasing order, are the first ``g[G_TOUCHED]`` of ``touched[0]``; of
    them the first ``g[G_ENDED]`` of ``touched[1]`` ended their round, the first
    ``g[G_LEARNT]`` of ``touched[2]`` learnt of their losses; the caller decides for
    them, :mod:`tcpfluid.fluid._hybrid_laws`, and calls again).

    A law with compiled rules decides at once, in the pass over the flows
    (:func:`_decide`). ``laws`` is ``(rounds, losses, lb, lm, gt, group_of, pos_of,
    timing, dupacks, base, s, log_flow, log_rows, loss_flow, loss_t, ig)``: the adapters
    of the laws' rules, their buffer and descriptions, the law groups' table (``GT_*``),
    each flow's group and position in it (:mod:`._hybrid_laws`), the loss rule
    (:func:`_loss_timer`), the flows' BaseRTTs, a sample scratch (``N_SAMPLE`` rows), the
    round log, the loss log and the counters ``I_*``.

    One pass over the flows a step (a second one with an ACK-path queue, or with drops
    under departure RTT samples): each flow's service, drops, ACKs and round end of step
    k, then its sending of step k + 1 (``sends``: row 0 what it sends, 1 what of it is
    beyond its ACK clock, 2 row 0 before a step's drops, 3 the step a parked flow wakes
    at). Every sum runs over the flows in order, so the results do not depend on how the
    passes are arranged or where the call returns (docs/ode-model.md).

    ``red`` is ``[has_red, min_th, max_th, max_p, w_q, gentle]``; ``rev`` is
    ``[has_ack_path_bottleneck, mu_r, b_r, packets_per_ack, drop_share, whole_packets,
    boundary_ack_next_round, hold_drops]`` (``drop_share``: 0 proportional, 1 in turn, 2
    growth first; the others :func:`tcpfluid.fluid.hybrid.simulate_hybrid`'s); ``cross``
    rows are ``(rate_pps, start_s, stop_s)``.

    History rings (slot = step mod H): ``dep_hist`` the data the ACKs leaving the
    bottleneck side at that step acknowledge, ``ack_hist`` their number (ACK-path
    bottleneck only), ``q_hist`` their queueing delay (s, both directions), ``f_hist`` its
    forward part; ``fq_ring`` the forward queueing delay of each step, read back over the
    ACK-path queue's delay; ``qa_ring`` the cumulative arrivals and carried packets of
    each step (the arrival RTT sample); ``drop_hist`` each flow's held drops by the step
    the sender learns of them, less its base RTT.
    """
    ig = laws[15]
    F = ff.shape[0]
    H = q_hist.shape[0]
    HD = drop_hist.shape[0]
    HF = fq_ring.shape[0]
    HA = qa_ring.shape[0]
    fifo_sample = HA > 1
    service = mu * dt
    ack_share = 1.0  # the share of the step's ACKs counted as delivered (the run's end)
    has_rev = rev[0] == 1.0
    mu_r = rev[1]
    b_r = rev[2]
    ack_per_pkt = 1.0 / rev[3]
    rotate = rev[4] == 1.0
    # without a finite buffer or RED nothing is dropped: the growth share and the held
    # drops' ring are not kept (the same run, less work a step)
    can_drop = buf < np.inf or red[0] == 1.0
    on_growth = rev[4] == 2.0 and buf < np.inf
    whole = rev[5] == 1.0
    split = rev[6] == 1.0
    hold = rev[7] == 1.0 and can_drop
    service_r = mu_r * dt
    send = sends[0]
    gro = sends[1]  # each flow's packets of the step beyond its ACK clock
    s0 = sends[2]
    # parked flows (``wake[j] > k``): nothing they have changes before step ``wake[j]``
    # (no arrivals, backlog, ACKs or released drops; silent, window-limited or stopped), so
    # the pass over the flows skips them but to record (:func:`_parked`)
    wake = sends[3]
    can_park = not has_rev
    # the flows the caller changed: the boundary ACKs of their ended round grow the
    # window with the increment the law has just set, and their sending is recomputed
    t = k * dt
    if g[G_REDO] == 1.0:
        t_join = np.inf
        for j in range(F):
            if ff[j, F_STARTED] == 0.0 and ff[j, F_START] < t_join:
                t_join = ff[j, F_START]
        g[G_T_JOIN] = t_join
    n_touched = int(g[G_TOUCHED]) if g[G_REDO] == 0.0 else F
    for i in range(n_touched):
        j = touched[0, i] if g[G_REDO] == 0.0 else i
        c = ff[j, F_CARRY]
        if c > 0.0:
            ff[j, F_W] = _grow(ff, j, whole, ff[j, F_W], c)
            ff[j, F_CARRY] = 0.0
        sending = ff[j, F_STARTED] == 1.0 and ff[j, F_SILENT] <= t < ff[j, F_STOP]
        send[j], gro[j] = _send_of(sending, whole, ff[j, F_W], ff[j, F_INFLIGHT], ff[j, F_FREED])
    g[G_REDO] = 0.0
    g[G_TOUCHED] = 0.0
    for j in range(F):  # the caller may change any flow: every parked flow wakes
        if wake[j] != 0.0:
            _unpark(ff, j, k, dep_hist, wake)
    n_parked = 0
    next_wake = np.inf
    # the flows that may be parked after a step's pass: those not started, stopped or
    # silent (a retransmission timeout), until they are parked or send again
    quiet = touched[3]
    n_quiet = 0
    for j in range(F):
        ff[j, F_QUIET] = 0.0
        if can_park and _quiet_now(ff, j, t + dt):
            n_quiet = _quiet(ff, j, quiet, n_quiet)
    # the step's arrivals, summed in flow order
    arr = 0.0
    for j in range(F):
        arr += send[j]
    t_join = g[G_T_JOIN]
    log_flow, loss_flow = laws[11], laws[13]
    while k < n_steps:
        t = k * dt
        if g[G_MARKED] == 0.5:  # the mark's step has ended: the counts at the mark itself
            mark_counts(ff, g)
        if k >= ig[I_PAUSE]:
            return k, PAUSE
        if ig[I_NLOG] + F > log_flow.shape[0] or ig[I_NLOSS] + F > loss_flow.shape[0]:
            return k, GROW
        if k == n_steps - 1:  # the run ends inside this step: service for that part only,
            # and of the ACKs arriving over the step, those before the end delivered
            service = mu * min(dt, max(t_end - t, 0.0))
            ack_share = service / (mu * dt)
        if t >= t_join:
            for j in range(F):
                if ff[j, F_STARTED] == 0.0 and t >= ff[j, F_START]:
                    return k, JOIN
        if g[G_MARKED] == 0.0 and t + dt > g[G_MARK]:
            # the mark falls in this step: the counts at its start, moved to the mark by
            # the step's share before it once the step has ended (mark_counts)
            for j in range(F):
                ff[j, F_ACKED_MARK] = ff[j, F_ACKED]
                ff[j, F_LOST_MARK] = ff[j, F_LOST_TOTAL]
            g[G_QAREA_MARK] = g[G_QAREA]
            g[G_MARK_FRAC] = (g[G_MARK] - t) / (min(t + dt, t_end) - t)
            g[G_MARKED] = 0.5
        # ---------------- window-limited sending (computed with the last step's pass)
        q_before = g[G_Q]  # the queue before the step's arrivals (the last step's after)
        dropping = False  # the step drops: ``send`` is what arrives, ``s0`` what was sent
        c = 0.0
        for i in range(cross.shape[0]):
            if cross[i, 1] <= t < cross[i, 2]:
                c += cross[i, 0]
        arr_c = c * dt
        g[G_CROSS] = c
        # ---------------- RED
        if red[0] == 1.0:
            n_arr = arr + arr_c
            if n_arr > 0.0:
                g[G_AVG] = red_average(g[G_AVG], q_before, red[4], n_arr)
            p = red_probability(g[G_AVG], red[1], red[2], red[3], red[5] == 1.0, 1.0)
            if p > 0.0:
                dropping = True
                for j in range(F):
                    s0[j] = send[j]
                    drops[j] = send[j] * p
                    send[j] -= drops[j]
                arr *= 1.0 - p
                arr_c *= 1.0 - p
        # ---------------- drop-tail overflow
        total = q_before + arr + arr_c
        if total - service > buf and not dropping:
            dropping = True
            for j in range(F):
                s0[j] = send[j]
        if total - service > buf and not rotate:
            over = total - service - buf
            if on_growth:
                # the packets beyond each flow's ACK clock find the queue full first: the
                # first windows of flows that start together side by side, each window's
                # last packets first (:func:`_bursts_by_position`), other bursts whole,
                # one flow's after another's (:func:`_bursts_in_turn`); the rest of the
                # overflow in runs of one flow's packets, the runs begun in proportion to
                # the flows' arrivals (:func:`_overflow_runs`)
                if _first_windows(ff, gro):
                    over, x = _bursts_by_position(g, gro, send, drops, over)
                    arr -= x
                else:
                    over, arr = _bursts_in_turn(g, gro, send, drops, over, arr)
                over, x, xc = _overflow_runs(ff, g, send, drops, over, arr, arr_c)
                arr -= x
                arr_c -= xc
            arriving = arr + arr_c
            share = 1.0
            if arriving > over:
                share = over / arriving
            if arriving <= 0.0:
                share = 0.0
            for j in range(F):
                x = send[j] * share
                drops[j] += x
                send[j] -= x
            arr *= 1.0 - share
            arr_c *= 1.0 - share
            total = q_before + arr + arr_c
        elif on_growth and g[G_RUNS_ON] == 1.0:
            g[G_RUNS_ON] = 0.0  # the queue is no longer full: the runs under way end
            for j in range(F):
                ff[j, F_RUN_LEFT] = 0.0
        elif total - service > buf:
            # the overflow falls on whole arrivals, source after source in turn (the
            # cross traffic is source F), from where the last overflow stopped
            rem = total - service - buf
            i = int(g[G_DROP_PTR])
            for _ in range(F + 1):
                if rem <= 0.0:
                    break
                if i == F:
                    x = min(arr_c, rem)
                    arr_c -= x
                else:
                    x = min(send[i], rem)
                    drops[i] += x
                    send[i] -= x
                    arr -= x
                rem -= x
                if rem > 0.0:
                    i = i + 1 if i < F else 0
            g[G_DROP_PTR] = float((i + 1) % (F + 1))
            total = q_before + arr + arr_c
        # ---------------- service, shared in proportion to the backlogs
        slot = k % H
        slot_d = k % HD
        g[G_QC] += arr_c
        carried0 = g[G_CARRIED]
        if total <= service:
            scale = 1.0
            g[G_CARRIED] += total
            g[G_IDLE] += service - total
            if red[0] == 1.0:  # RED's average decays over the packet times the link idles
                g[G_AVG] = red_average(g[G_AVG], 0.0, red[4], service - total)
        else:
            scale = service / total
            g[G_CARRIED] += service
        g[G_QC] -= g[G_QC] * scale
        fdel = 0.0
        if fifo_sample:
            # FIFO at rate mu: the fluid leaving in this step (its middle at cumulative
            # position x) arrived in step a and waited for the queue it found
            g[G_ARRIVED] += arr + arr_c
            qa_ring[k % HA, 0] = g[G_ARRIVED]
            qa_ring[k % HA, 1] = carried0
            x = 0.5 * (carried0 + g[G_CARRIED])
            a = int(g[G_APTR])
            if a < k - HA + 2:
                a = k - HA + 2
            while a < k and qa_ring[a % HA, 0] < x:
                a += 1
            g[G_APTR] = a
            a0 = qa_ring[(a - 1) % HA, 0] if a > 0 else 0.0
            batch = qa_ring[a % HA, 0] - a0
            late = (x - a0) / batch * dt if batch > 0.0 else 0.0
            fdel = (x - qa_ring[a % HA, 1]) / mu - late
            if fdel < 0.0:
                fdel = 0.0
            if not has_rev:
                q_hist[slot] = fdel
        # one pass unless the drops' delays need the whole queue first: an ACK-path queue,
        # or RTT samples at departure (the queue after the step)
        one_pass = not has_rev and (fifo_sample or not dropping)
        q_after = g[G_QC]
        recording = k % every == 0
        r = int(g[G_K_REC])
        t_next = (k + 1) * dt
        arr_next = 0.0
        n_touched = 0
        n_ended = 0
        n_learnt = 0
        if n_parked > 0 and k >= next_wake:  # the parked flows due take part again
            next_wake = np.inf
            for j in range(F):
                if wake[j] != 0.0:
                    if wake[j] <= k:
                        _unpark(ff, j, k, dep_hist, wake)
                        n_parked -= 1
                        n_quiet = _quiet(ff, j, quiet, n_quiet)
                    elif wake[j] < next_wake:
                        next_wake = wake[j]
        ps = 1 if one_pass else 0
        while ps < 2:
            # the steps a held drop waits for the queue it met (the same for every flow)
            lag_q = int(q_hist[slot] / dt + 0.5) if hold and dropping and ps == 1 else 0
            for j in range(F):
                if n_parked > 0 and wake[j] != 0.0:  # parked: its state holds
                    if recording and ps == 1:
                        _record(ff, j, ff[j, F_W], rec_f, r, k, every, dt)
                    continue
                # ---- service: the flow's arrivals join its backlog, the queue serves it
                if one_pass or ps == 0:
                    sent = s0[j] if dropping else send[j]  # before the step's drops
                    ff[j, F_SENT] += sent
                    ff[j, F_INFLIGHT] += sent
                    if on_growth:
                        ff[j, F_FREED] = 0.0
                    ff[j, F_QF] += send[j]
                    dep = ff[j, F_QF] * scale
                    ff[j, F_QF] -= dep
                    dep_hist[slot, j] = dep
                    if dep != 0.0:
                        ff[j, F_LAST_DEP] = k
                    q_after += ff[j, F_QF]
                if ps == 0:
                    continue
                # ---- drops
                x = 0.0
                if dropping:
                    x = drops[j]
                    drops[j] = 0.0
                dsteps = int(ff[j, F_DELAY_STEPS])
                inflight = ff[j, F_INFLIGHT]
                freed = ff[j, F_FREED]
                resolved = ff[j, F_RESOLVED]
                lag = 0
                if hold and x > 0.0:
                    # a dropped packet keeps its place in the window until the sender
                    # learns of the loss: a base RTT plus the queueing delay it met later
                    lag = lag_q
                    if lag > HD - 1 - dsteps:
                        lag = HD - 1 - dsteps
                    # (k + lag) mod HD from k's (0 <= lag < HD)
                    at = slot_d + lag
                    if at >= HD:
                        at -= HD
                    drop_hist[at, j] += x
                    ff[j, F_LAST_REL] = max(ff[j, F_LAST_REL], k + lag + dsteps)
                if x > 0.0:
                    if not hold:
                        if on_growth:
                            freed += x
                        inflight -= x
                    resolved += x
                    ff[j, F_LOST_TOTAL] += x
                    if t >= ff[j, F_RECOVER]:
                        ff[j, F_LOST] += x
                        # (behind RED, dithered: the drop that completes the flow's
                        # threshold dates its event, not the first fraction RED took;
                        # docs/ode-model.md, "A dithered RED event is dated by the drop
                        # that completes it")
                        if ff[j, F_FIRST_DROP] == np.inf and (
                            ff[j, F_DITHER] == 0.0 or ff[j, F_LOST] >= ff[j, F_LOSS_AT]
                        ):
                            # the duplicate ACKs of the packets behind the drop tell the
                            # sender (a held drop: the step its place is released)
                            if hold:
                                ff[j, F_FIRST_DROP] = t + (dsteps + lag) * dt
                            else:
                                ff[j, F_FIRST_DROP] = t + ff[j, F_D] + q_hist[slot]
                # ---- ACKs and per-ACK growth
                started = ff[j, F_STARTED] == 1.0
                stop = ff[j, F_STOP]
                live = started and t < stop
                w = ff[j, F_W]
                w_x = -1.0  # the window when the ACKs reach the round's first packet
                r_acks = ff[j, F_R_ACKS]
                round_seq = ff[j, F_ROUND_SEQ]
                if k >= dsteps:
                    # (k - dsteps) mod H and mod HD from k's (0 < dsteps < H <= HD)
                    back = slot - dsteps
                    if back < 0:
                        back += H
                    if hold:
                        # the sender learns the place is free and sends the packet again:
                        # not clocked out by an ACK, so beyond the ACK clock (``F_FREED``)
                        bd = slot_d - dsteps
                        if bd < 0:
                            bd += HD
                        inflight -= drop_hist[bd, j]
                        drop_hist[bd, j] = 0.0
                    acked = dep_hist[back, j]
                    na = ack_hist[back, j] if has_rev else acked
                    if acked > 1e-12:
                        if on_growth:
                            freed += acked
                        inflight -= acked
                        resolved += acked
                        ff[j, F_ACKED] += acked * ack_share
                        ff[j, F_ACKED_SINCE] += acked
                        ff[j, F_LAST_ACKED] = t_next
                    if na > 1e-12:
                        rtt = ff[j, F_D] + q_hist[back]
                        r_acks += na
                        ff[j, F_R_SUM] += na * rtt
                        if has_rev:  # the forward part of the delay (forward-path Vegas)
                            ff[j, F_R_FSUM] += na * f_hist[back]
                            ff[j, F_FMIN] = min(ff[j, F_FMIN], f_hist[back])
                        ff[j, F_R_MIN] = min(ff[j, F_R_MIN], rtt)
                        ff[j, F_R_MAX] = max(ff[j, F_R_MAX], rtt)
                        ff[j, F_LAST_RTT] = rtt
                        grow = na
                        if resolved > round_seq + 1e-9 and r_acks > 1e-9 and live and acked > 1e-12:
                            # this step ends the round: the ACKs beyond its first packet's
                            # start grow the window with the next increment (``split``), or
                            # with the ending round's as far as its growth is not complete
                            over = resolved - round_seq
                            carry = na * (min(over, acked) / acked)
                            grow = na - carry
                            w = _grow(ff, j, whole, w, grow)
                            w_x = w
                            grow = 0.0
                            if not split:
                                grow = _room(ff, j, w, carry)
                                carry -= grow
                            ff[j, F_CARRY] = carry
                        # the law's per-ACK increment, once per ACK received
                        w = _grow(ff, j, whole, w, grow)
                ff[j, F_INFLIGHT] = inflight
                ff[j, F_FREED] = freed
                ff[j, F_RESOLVED] = resolved
                ff[j, F_R_ACKS] = r_acks
                # ---- round end
                event = 0
                if started:
                    if t >= stop:
                        w = 0.0
                    elif ff[j, F_LOST] >= ff[j, F_LOSS_AT] and t >= ff[j, F_FIRST_DROP]:
                        event = 1  # the sender learns of its losses (its round starts anew)
                    elif resolved > round_seq + 1e-9 and r_acks > 1e-9:
                        event = 2  # (the same test as the boundary ACKs' above)
                        w_x = w_x if w_x >= 0.0 else w
                        over = resolved - round_seq
                        ff[j, F_NEXT_SEQ] = _next_seq(ff, j, whole, w_x, t, inflight, over)
                ff[j, F_W] = w
                # ---- record
                if recording:
                    _record(ff, j, w, rec_f, r, k, every, dt)
                # ---- the law decides at once (its compiled rule), or from Python when the
                # call returns (the flow's sending is computed again then)
                if event != 0:
                    if laws[4][laws[5][j], GT_PY] == 1:
                        touched[0, n_touched] = j
                        n_touched += 1
                        if event == 1:
                            touched[2, n_learnt] = j
                            n_learnt += 1
                        else:
                            touched[1, n_ended] = j
                            n_ended += 1
                    else:
                        _decide(ff, j, event == 1, t_next, has_rev, whole, laws, g[G_CROSS])
                        w = ff[j, F_W]
                # ---- its sending of the next step
                sending = started and ff[j, F_SILENT] <= t_next < stop
                s_next, beyond = _send_of(sending, whole, w, inflight, freed)
                send[j] = s_next
                if on_growth:  # the ACK clock is kept for the growth share only
                    gro[j] = beyond
                arr_next += s_next
            ps += 1
            if ps == 2:
                if recording and can_park:  # the quiet flows not in the list join it
                    for j in range(F):
                        if ff[j, F_QUIET] == 0.0 and wake[j] == 0.0 and _quiet_now(ff, j, t_next):
                            n_quiet = _quiet(ff, j, quiet, n_quiet)
                i = 0
                while i < n_quiet:  # the quiet flows that may be parked are
                    j = quiet[i]
                    ws = _parked(ff, j, k, t, t_next, dt)
                    if ws == 0.0:  # not yet
                        i += 1
                        continue
                    if ws > 0.0:
                        wake[j] = ws
                        ff[j, F_PARK_FROM] = k
                        n_parked += 1
                        next_wake = min(next_wake, ws)
                    ff[j, F_QUIET] = 0.0  # parked, or sending again
                    n_quiet -= 1
                    quiet[i] = quiet[n_quiet]
                break
            if not fifo_sample:
                fdel = q_after / mu
            if has_rev:
                # ---------------- ACK-path queue: drop-tail in ACKs; cumulative ACKs (the
                # data of a dropped ACK leaves with the next one)
                fq_ring[k % HF] = fdel
                qa_before = 0.0
                arr_a = 0.0
                for j in range(F):
                    qa_before += ff[j, F_QA]
                    arr_a += dep_hist[slot, j] * ack_per_pkt
                keep = 1.0
                total_r = qa_before + arr_a
                if total_r - service_r > b_r and arr_a > 0.0:
                    keep = 1.0 - min(1.0, (total_r - service_r - b_r) / arr_a)
                    total_r = qa_before + arr_a * keep
                scale_r = 1.0 if total_r <= service_r else service_r / total_r
                qr_after = 0.0
                for j in range(F):
                    ff[j, F_QA] += dep_hist[slot, j] * ack_per_pkt * keep
                    ff[j, F_ACKD] += dep_hist[slot, j] * ack_per_pkt * (1.0 - keep)
                    ff[j, F_QD] += dep_hist[slot, j]
                    da = ff[j, F_QA] * scale_r
                    dd = ff[j, F_QD] * scale_r
                    ff[j, F_QA] -= da
                    ff[j, F_QD] -= dd
                    ack_hist[slot, j] = da
                    dep_hist[slot, j] = dd
                    qr_after += ff[j, F_QA]
                g[G_QR] = qr_after
                wait_r = qr_after / mu_r
                lag = int(wait_r / dt + 0.5)
                if lag > HF - 1:
                    lag = HF - 1
                if lag > k:
                    lag = k
                fdel = fq_ring[(k - lag) % HF]
                q_hist[slot] = fdel + wait_r
                f_hist[slot] = fdel
            else:
                q_hist[slot] = fdel
        if one_pass and not fifo_sample:
            q_hist[slot] = q_after / mu
        g[G_Q] = q_after
        g[G_QAREA] += q_after * (dt if k < n_steps - 1 else min(dt, max(t_end - t, 0.0)))
        # ---------------- record
        if recording:
            rec_g[R_T, r] = t + dt
            rec_g[R_Q, r] = q_after
            rec_g[R_AVG, r] = g[G_AVG]
            rec_g[R_QR, r] = g[G_QR]
            rec_g[R_QAREA, r] = g[G_QAREA]
            g[G_K_REC] = r + 1
        arr = arr_next
        k += 1
        if n_touched > 0:
            g[G_TOUCHED] = n_touched
            g[G_ENDED] = n_ended
            g[G_LEARNT] = n_learnt
            return k, DECIDE
    return k, DONE


@njit(**_JIT)
def _parked(ff, j, k, t, t_next, dt):  # type: ignore[no-untyped-def]
    """The step until which flow ``j`` may be parked after step ``k`` (0: not yet; -1: it
    sends in step ``k + 1``): no step changes its state until it wakes, two steps before its
    silence ends, it stops, it learns of its losses or it starts (docs/ode-model.md,
    "Parked flows")."""
    if not _quiet_now(ff, j, t_next):
        return -1.0
    stop = ff[j, F_STOP]
    started = ff[j, F_STARTED] == 1.0
    if (
        ff[j, F_QF] != 0.0
        or ff[j, F_FREED] != 0.0
        or ff[j, F_LAST_DEP] + ff[j, F_DELAY_STEPS] > k
        or ff[j, F_LAST_REL] > k
        or (ff[j, F_RESOLVED] > ff[j, F_ROUND_SEQ] + 1e-9 and ff[j, F_R_ACKS] > 1e-9)
    ):
        return 0.0
    tw = np.inf
    if not started:
        tw = ff[j, F_START]
    elif t < stop:
        tw = stop
        silent = ff[j, F_SILENT]
        if t_next < silent < tw:
            tw = silent
        if ff[j, F_LOST] >= ff[j, F_LOSS_AT] and ff[j, F_FIRST_DROP] < tw:
            tw = ff[j, F_FIRST_DROP]
    return math.floor(tw / dt) - 2.0 if tw < np.inf else np.inf


@njit(inline="always", **_JIT)
def _quiet_now(ff, j, t_next):  # type: ignore[no-untyped-def]
    """Flow ``j`` does not send in the step beginning at ``t_next`` (not started, silent
    or stopped)."""
    return not (ff[j, F_STARTED] == 1.0 and ff[j, F_SILENT] <= t_next < ff[j, F_STOP])


@njit(inline="always", **_JIT)
def _quiet(ff, j, quiet, n):  # type: ignore[no-untyped-def]
    """Flow ``j`` joins the ``n`` flows of ``quiet`` that may be parked; returns ``n + 1``."""
    ff[j, F_QUIET] = 1.0
    quiet[n] = j
    return n + 1


@njit(**_JIT)
def _unpark(ff, j, k, dep_hist, wake):  # type: ignore[no-untyped-def]
    """Flow ``j``, parked, takes part in step ``k`` again: the departure slots of the
    steps it was parked in that its ACKs will still read are zeroed."""
    H = dep_hist.shape[0]
    d = int(ff[j, F_DELAY_STEPS])
    for b in range(max(int(ff[j, F_PARK_FROM]) + 1, k - d, k - H + 1), k):
        dep_hist[b % H, j] = 0.0
    wake[j] = 0.0


# rows of the round sample :func:`_sample_one` fills, shape (N_SAMPLE, F)
S_CWND = 0
S_BASE = 1
S_MEAN = 2
S_MIN = 3
S_MAX = 4
S_ACKS = 5
S_FWD_MEAN = 6
S_FWD_BASE = 7
N_SAMPLE = 8
#: columns of a row of the round log (:func:`_end_one`)
N_LOG = 6


@njit(**_JIT)
def _sample_one(ff, j, base, has_rev, out, i, mu):  # type: ignore[no-untyped-def]
    """Flow ``j``'s round sample into column ``i`` of rows ``S_*`` of ``out``: it lowers
    its BaseRTT ``base[j]`` (inf: none yet) to the least RTT its packets saw in the round
    (the round's minimum, plus its place's offset where its round reads its place; in its
    first two rounds at least its first packet's, ``F_FIRST_RTT``);
    ``ff[j, F_BASE]`` gets it (0 while none); ``mu``: the bottleneck's rate, packets/s."""
    d = ff[j, F_D]
    r_min = ff[j, F_R_MIN]
    if ff[j, F_ROUND_NO] < 2.0 and not has_rev:
        r_min = max(r_min, ff[j, F_FIRST_RTT])
    r_acks = ff[j, F_R_ACKS]
    out[S_CWND, i] = ff[j, F_W]
    mean = ff[j, F_R_SUM] / max(r_acks, 1e-300) if r_acks > 0 else d
    out[S_MIN, i] = r_min if math.isfinite(r_min) else d
    out[S_MAX, i] = ff[j, F_R_MAX] if ff[j, F_R_MAX] > 0 else d
    # its place in the round's burst, in slow start as after it only in a round whose RTTs
    # reach the base RTT within a packet's time (the queue empties in the round, so the
    # flows' trains follow each other from its start; behind a standing queue every flow's
    # packets meet the whole ramp); the base RTT is the least its own packets saw
    b = base[j]
    empties = math.isfinite(b) and r_min - b <= 1.0 / mu
    if ff[j, F_PLACE_ON] == 1.0 and empties and ff[j, F_ROUND_NO] >= 1.0 and r_acks > 0:
        d_mean, d_max, d_min = _place(ff, j, out[S_MAX, i] - out[S_MIN, i])
        mean += d_mean
        out[S_MAX, i] = max(out[S_MAX, i] + d_max, out[S_MIN, i])
        out[S_MIN, i] = min(out[S_MIN, i] + d_min, mean)
        r_min = out[S_MIN, i]
    if r_min < b:
        base[j] = b = r_min
    finite_b = math.isfinite(b)
    ff[j, F_BASE] = b if finite_b else 0.0
    out[S_BASE, i] = b if finite_b else d
    out[S_MEAN, i] = mean
    out[S_ACKS, i] = r_acks
    if has_rev:
        # an ACK-path queue is in the RTT but not in the forward delay (timestamps)
        f_min = ff[j, F_FMIN]
        fb = 0.5 * d + (f_min if math.isfinite(f_min) else 0.0)
        out[S_FWD_BASE, i] = fb
        out[S_FWD_MEAN, i] = 0.5 * d + ff[j, F_R_FSUM] / max(r_acks, 1e-300) if r_acks > 0 else fb
    else:
        out[S_FWD_MEAN, i] = mean - 0.5 * d
        out[S_FWD_BASE, i] = out[S_BASE, i] - 0.5 * d


@njit(**_JIT)
def _first_windows(ff, gro):  # type: ignore[no-untyped-def]
    """Whether every burst ``gro`` of the step is a flow's first window (its round 0: no
    ACK has come back yet)."""
    for j in range(gro.shape[0]):
        if gro[j] > 0.0 and ff[j, F_ROUND_NO] != 0.0:
            return False
    return True


@njit(**_JIT)
def _bursts_in_turn(g, gro, send, drops, over, arr):  # type: ignore[no-untyped-def]
    """The part of a step's drop-tail overflow ``over`` that falls on the flows' bursts
    ``gro`` (their packets beyond the ACK clock), whole bursts of one flow after another in
    turn from ``G_GROW_PTR``, which then points past the last flow that lost. Returns the
    overflow left and the flows' arrivals ``arr`` less the drops (``send`` and ``drops``
    changed in place)."""
    F = gro.shape[0]
    i = int(g[G_GROW_PTR])
    for _ in range(F):
        if over <= 0.0:
            break
        x = min(gro[i], over)
        if x > 0.0:
            drops[i] += x
            send[i] -= x
            arr -= x
            over -= x
        if over > 0.0:
            i = i + 1 if i + 1 < F else 0
    g[G_GROW_PTR] = float((i + 1) % F)
    return over, arr


@njit(**_JIT)
def _bursts_by_position(g, gro, send, drops, over):  # type: ignore[no-untyped-def]
    """The part of a step's drop-tail overflow ``over`` that falls on the flows' first
    windows ``gro`` when they start together: the windows reach the queue side by side
    (the access links are faster than the bottleneck), every window's first packet before
    any window's second, so the queue keeps the first positions and drops the last ones:
    every flow keeps ``min(window, p)`` packets for the largest whole position ``p`` that
    fits, and the packets at position ``p + 1`` that still fit are kept flow after flow in
    turn from ``G_GROW_PTR`` (the flows' order at the start, as the packets' ties). A flow
    never loses more than it sends. Returns the overflow left and the packets dropped
    (``send`` and ``drops`` changed in place)."""
    F = gro.shape[0]
    b = np.minimum(gro, send)  # each window's packets arriving now
    total = b.sum()
    if total <= over:
        drops += b
        send -= b
        return over - total, total
    keep = total - over
    lo = 0.0  # the largest whole position every window keeps in full
    hi = np.ceil(b.max())
    while hi - lo > 1.0:
        mid = np.floor(0.5 * (lo + hi))
        if np.minimum(b, mid).sum() <= keep:
            lo = mid
        else:
            hi = mid
    kept = np.minimum(b, lo)
    rest = keep - kept.sum()  # the position lo + 1 that still fits, flow after flow
    ptr = int(g[G_GROW_PTR]) % F
    for n in range(F):
        j = (ptr + n) % F
        x = min(b[j] - kept[j], 1.0, max(rest, 0.0))
        kept[j] += x
        rest -= x
    drops += b - kept
    send -= b - kept
    return 0.0, over


@njit(**_JIT)
def _overflow_runs(ff, g, send, drops, over, arr, arr_c):  # type: ignore[no-untyped-def]
    """The part ``over`` of a step's drop-tail overflow beyond the flows' bursts (the
    packets their ACKs clock out meet the full queue): the cross traffic loses its part in
    proportion to its arrivals ``arr_c`` (of ``arr + arr_c``); the flows lose the rest in
    runs of one flow's packets, not each a fraction (a packet queue drops whole packets,
    and the packets of a flow that meet the full queue are followed by more of its own):
    the runs under way first, in flow order, then new ones. A run begins on the flow with
    the most arrivals at a full queue (``F_CREDIT``, which each run it begins charges with
    every flow's arrivals since the last run began, so runs begin on the flows in
    proportion to their arrivals; at equal credit the first flow), and it takes all that
    flow sends until it has lost the flow's growth in its round (at least one packet), or
    until the queue is no longer full. Identical flows thus lose apart and do not stay in
    lockstep (docs/ode-model.md, "How an overflow is shared"). Returns the overflow left
    (every flow's arrivals spent), the flows' arrivals dropped and the cross traffic's
    (``send`` and ``drops`` changed in place)."""
    F = ff.shape[0]
    added = 0.0
    for j in range(F):
        ff[j, F_CREDIT] += send[j]
        added += send[j]
    g[G_CREDIT_ADDED] += added
    g[G_RUNS_ON] = 1.0
    xc = over * arr_c / (arr + arr_c) if arr + arr_c > 0.0 else 0.0
    over -= xc
    dropped = 0.0
    for j in range(F):
        if over <= 0.0:
            break
        left = ff[j, F_RUN_LEFT]
        if left > 0.0:
            dropped, over = _run_take(ff, send, drops, j, left, dropped, over)
    while over > 1e-12:
        best = -1
        c = -np.inf
        for j in range(F):
            if send[j] > 1e-12 and ff[j, F_RUN_LEFT] <= 0.0 and ff[j, F_CREDIT] > c:
                best = j
                c = ff[j, F_CREDIT]
        if best < 0:
            break
        ff[best, F_CREDIT] -= g[G_CREDIT_ADDED]
        g[G_CREDIT_ADDED] = 0.0
        run = max(ff[best, F_GROWTH + int(ff[best, F_ROUND_NO]) % 3], 1.0)
        dropped, over = _run_take(ff, send, drops, best, run, dropped, over)
    return over, dropped, xc


@njit(inline="always", **_JIT)
def _run_take(ff, send, drops, j, run, dropped, over):  # type: ignore[no-untyped-def]
    """Flow ``j``'s run of ``run`` packets takes what the flow sends, up to the overflow
    ``over`` (:func:`_overflow_runs`), and keeps what it has left; returns the packets
    dropped and the overflow left after it."""
    x = min(send[j], over, run)
    drops[j] += x
    send[j] -= x
    ff[j, F_RUN_LEFT] = run - x
    return dropped + x, over - x


@njit(**_JIT)
def _place(ff, j, ramp_s):  # type: ignore[no-untyped-def]
    """Flow ``j``'s offsets ``(mean, max, min)`` of its round's RTTs at its place in the
    round's burst, s (:func:`._rounds_physics.place_offset`; docs/ode-model.md); ``ramp_s``:
    the spread of the round's RTT samples. The first placed flow to end a round sums the
    growth for all (:func:`_place_sums`)."""
    r = ff[j, F_ROUND_NO]
    if ff[j, F_SUMS_ROUND] != r:
        _place_sums(ff, r)
    z = ff[j, F_GROWTH_SS + (int(r) - 1) % 3]
    return place_offset(ff[j, F_AHEAD], z, ff[j, F_OURS], ff[j, F_TOTAL], ramp_s, ff[j, F_CYCLES])


@njit(**_JIT)
def _place_sums(ff, r):  # type: ignore[no-untyped-def]
    """The growth every placed flow's place in its round ``r`` reads, into its columns
    ``F_AHEAD``, ``F_OURS``, ``F_TOTAL`` (``F_SUMS_ROUND``: ``r``): the placed flows' in
    the round before (column ``(r − 1) mod 3``), a flow that joined later its current
    round's."""
    at = (int(r) - 1) % 3
    ahead = 0.0
    ours = 0.0
    total = 0.0
    for i in range(ff.shape[0]):
        counted = ff[i, F_STARTED] == 1.0 and ff[i, F_W] > 0.0
        if ff[i, F_PLACED] == 1.0:
            ff[i, F_AHEAD] = ahead
            if counted:
                z = ff[i, F_GROWTH_SS + at]
                total += ff[i, F_GROWTH + at]
                ours += z
                ahead += z
        elif counted:
            total += ff[i, F_GROWTH + int(ff[i, F_ROUND_NO]) % 3]
    for i in range(ff.shape[0]):
        if ff[i, F_PLACED] == 1.0:
            ff[i, F_SUMS_ROUND] = r
            ff[i, F_OURS] = ours
            ff[i, F_TOTAL] = total


@njit(**_JIT)
def place_round(ff, j, phase):  # type: ignore[no-untyped-def]
    """Flow ``j`` begins its round ``F_ROUND_NO`` (0 at its start) with the window,
    increment and cap its law set and in ``phase``: keep its growth in the round for
    :func:`_place`. A placed flow's round reads its place in slow start, and after slow
    start until its first loss reaction (its retransmissions and its recovery's sending
    leave the order of the trains its place stands for)."""
    r = int(ff[j, F_ROUND_NO]) % 3
    grow = max(ff[j, F_CAP] - ff[j, F_W], 0.0) if ff[j, F_INCR] > 0.0 else 0.0
    ss = phase == SLOW_START
    on = ff[j, F_PLACED] == 1.0 and (ss or ff[j, F_HAS_LOST] == 0.0)
    ff[j, F_PLACE_ON] = 1.0 if on else 0.0
    ff[j, F_GROWTH + r] = grow
    ff[j, F_GROWTH_SS + r] = grow if on else 0.0


@njit(**_JIT)
def round_restart(ff, j, seq):  # type: ignore[no-untyped-def]
    """Flow ``j`` begins a new round whose first packet is the one after ``seq`` packets
    sent (after a loss reaction ``F_SENT``, the next packet it sends, as a packet sender's
    recovery starts its round anew; at a round's end ``F_NEXT_SEQ``)."""
    if ff[j, F_WHOLE] == 1.0:
        # whole packets: the packet the ACK-clocked fluid is sending now left whole before
        # the decision, as a packet sender's; the round's first packet is the next one
        seq = math.ceil(seq - 1e-9)
    ff[j, F_ROUND_SEQ] = seq
    ff[j, F_ACKD_PREV] = ff[j, F_ACKD_ROUND]
    ff[j, F_ACKD_ROUND] = ff[j, F_ACKD]
    ff[j, F_R_ACKS] = 0.0
    ff[j, F_R_SUM] = 0.0
    ff[j, F_R_MIN] = np.inf
    ff[j, F_R_MAX] = 0.0
    ff[j, F_R_FSUM] = 0.0


@njit(**_JIT)
def _end_one(ff, j, t, s, i, phase, log_flow, log_rows, n):  # type: ignore[no-untyped-def]
    """Log flow ``j``'s ended round (``(t, the window its law saw, the window now, phase,
    the mean RTT and the BaseRTT its law saw)`` at row ``n`` of ``log_rows``, the flow in
    ``log_flow``; the sample is column ``i`` of ``s``) and begin its next round; returns
    ``n + 1``."""
    log_flow[n] = j
    log_rows[n, 0] = t
    log_rows[n, 1] = s[S_CWND, i]
    log_rows[n, 2] = ff[j, F_W]
    log_rows[n, 3] = phase
    log_rows[n, 4] = s[S_MEAN, i]
    log_rows[n, 5] = s[S_BASE, i]
    round_restart(ff, j, ff[j, F_NEXT_SEQ])
    ff[j, F_ROUND_NO] += 1.0
    place_round(ff, j, phase)
    return n + 1


@njit(**_JIT)
def dupacks_behind(window_pkts, lost_pkts, dupacks):  # type: ignore[no-untyped-def]
    """Whether ``lost_pkts`` holes in a window of ``window_pkts`` leave at least
    ``dupacks`` packets (3, or 1 for a law with Vegas's fine-grained check) behind them: a
    fast retransmit, before any timeout (docs/ode-model.md, "A recovery that ends in a
    timeout")."""
    return window_pkts - lost_pkts >= dupacks


@njit(**_JIT)
def repair_rtt(ff, j, t, cut, mu, buf, cross):  # type: ignore[no-untyped-def]
    """The RTT that the retransmissions of flow ``j``'s holes see, s: its base RTT and the
    queue once every flow's cut has drained it (docs/ode-model.md, "Losses as a sender
    sees them"), at most its last RTT sample. ``cut`` is the window its law's fast
    retransmit left (``ff[j, F_W]`` before it); the flows whose losses the senders have
    not yet reacted to (``F_FIRST_DROP`` set, ``j`` among them) cut in the same ratio;
    every other flow sending at ``t`` keeps its window. The queue ``q`` is where the
    windows ``w'`` and the cross traffic of ``cross`` packets/s fill the link of ``mu``
    packets/s: ``sum w'_k / (d_k + q / mu) + cross = mu``, between empty and ``buf``."""
    w = ff[j, F_W]
    last = ff[j, F_LAST_RTT]
    d = ff[j, F_D]
    if last == 0.0 or not w > 0.0:
        return last if last != 0.0 else d
    beta = min(max(cut / w, 0.0), 1.0)
    lo = 0.0
    hi = min(buf, max(last - d, 0.0) * mu)  # the queue of the last sample at most
    if _cut_demand(ff, t, beta, 0.0, mu, cross) <= 0.0:
        return d
    for _ in range(48):  # the demand falls as the queue grows: its root is the queue
        q = 0.5 * (lo + hi)
        if _cut_demand(ff, t, beta, q, mu, cross) > 0.0:
            lo = q
        else:
            hi = q
    return d + hi / mu


@njit(inline="always", **_JIT)
def _cut_demand(ff, t, beta, q, mu, cross):  # type: ignore[no-untyped-def]
    """The link's demand less its rate ``mu`` at a queue of ``q`` packets, packets/s: the
    cross traffic and every flow sending at ``t``, its window cut by ``beta`` where its
    losses are not yet reacted to (:func:`repair_rtt`)."""
    fill = cross - mu
    for k in range(ff.shape[0]):
        if ff[k, F_STARTED] == 1.0 and t < ff[k, F_STOP]:
            wk = ff[k, F_W] * (beta if ff[k, F_FIRST_DROP] < np.inf else 1.0)
            fill += wk / (ff[k, F_D] + q / mu)
    return fill


@njit(**_JIT)
def _loss_timer(ff, j, t, cut, frac, min_rto, dupacks, initial_rto, max_rto, mu, buf, cross):  # type: ignore[no-untyped-def]
    """How flow ``j`` reacts at ``t`` to the losses it has just learnt of:
    ``(timeout, silent, srtt)``: a retransmission timeout (else a fast retransmit only;
    with enough duplicate ACKs, :func:`dupacks_behind`, the fast retransmit comes first and
    left the window ``cut``), the time it then sends nothing (s) and its RTT estimate (s);
    keeps a timeout's backoff. The packet sender's rule (docs/ode-model.md, "Losses
    as a sender sees them": its holes repaired one per RTT at :func:`repair_rtt`, the
    bottleneck of ``mu`` packets/s and ``buf`` packets carrying cross traffic of ``cross``
    packets/s; ``frac`` NaN, else a timeout when it lost more than ``frac`` of its
    window)."""
    w = ff[j, F_W]
    lost = ff[j, F_LOST]
    last = ff[j, F_LAST_RTT]
    srtt = last if last != 0.0 else ff[j, F_D]
    if not math.isnan(frac):
        return lost > frac * w, 0.0, srtt
    spread = ff[j, F_R_MAX] - ff[j, F_R_MIN] if ff[j, F_R_ACKS] > 0 else 0.0
    rto = sender_rto(srtt, spread, min_rto)
    if last == 0.0:  # no RTT sample yet: RFC 6298's initial timer
        rto = _np_max(rto, initial_rto)
    to = holes_outlast_timer(w, lost, repair_rtt(ff, j, t, cut, mu, buf, cross), rto, dupacks)
    s = rto if to else 0.0
    # RFC 6298 §5.5: the timer doubles at each timeout until an ACK of new data brings a
    # fresh estimate (the packet sender's backoff, up to its maximum)
    backoff = ff[j, F_BACKOFF]
    acked = ff[j, F_ACKED]
    if to and backoff > 0.0 and acked - ff[j, F_ACKED_AT_TO] < 1.0:
        s = backed_off(backoff, rto, max_rto)
    ff[j, F_BACKOFF] = s if to else 0.0
    if to:
        ff[j, F_ACKED_AT_TO] = acked
    return to, s, srtt


#: the additive recurrences of Roberts's two-dimensional low-discrepancy sequence (R2): a
#: flow's dithered loss thresholds, deterministic and equidistributed in (0, 1] over its
#: events (first coordinate) and over the flows (second)
_R2_A = 0.7548776662466927
_R2_B = 0.5698402909980532


@njit(**_JIT)
def loss_threshold(j, n):  # type: ignore[no-untyped-def]
    """The dithered threshold of flow ``j``'s loss event ``n`` (0: its first), packets in
    (0, 1]: a flow behind RED reacts once its drops reach it (docs/ode-model.md, "RED's
    fractions of packets, dithered")."""
    return 1.0 - (n * _R2_A + j * _R2_B) % 1.0


@njit(**_JIT)
def _loss_apply_one(ff, j, t, new, silent, srtt):  # type: ignore[no-untyped-def]
    """Flow ``j`` takes the window ``new`` its law set at a loss event at ``t``, stays
    silent for ``silent`` and counts later drops within ``max(srtt, silent)`` as the same
    event; it begins a new round (:func:`round_restart`). Dithered (``F_DITHER``): an event
    that came before a whole packet was lost keeps the shortfall as a debt the next drops
    pay first, and the next event takes the flow's next threshold."""
    ff[j, F_W] = new
    ff[j, F_INCR] = 0.0
    ff[j, F_CAP] = new
    lost = ff[j, F_LOST]
    ff[j, F_LOST] = 0.0
    if ff[j, F_DITHER] == 1.0:
        n = ff[j, F_EVENTS] + 1.0
        ff[j, F_EVENTS] = n
        ff[j, F_LOST] = min(lost - 1.0, 0.0)
        ff[j, F_LOSS_AT] = loss_threshold(j, n)
    ff[j, F_FIRST_DROP] = np.inf
    ff[j, F_SILENT] = t + silent
    ff[j, F_RECOVER] = t + _np_max(srtt, silent)
    ff[j, F_PLACE_ON] = 0.0  # no place in a burst until its law's next round is slow start
    ff[j, F_HAS_LOST] = 1.0
    round_restart(ff, j, ff[j, F_SENT])


#: a loss event's kinds, each the offset of a law group's loss call (``GT_LMETA`` + kind):
#: a fast retransmit, a timeout, and each again when the flow's ACKs were dropped on the ACK
#: path (``+ KIND_BURST``); :data:`LOSS_KINDS` the algorithms' codes of the four
KIND_TIMEOUT = 1
KIND_BURST = 2


@njit(**_JIT)
def loss_begins(ff, j, dupacks):  # type: ignore[no-untyped-def]
    """Flow ``j``'s loss event begins (``dupacks``: the duplicate ACKs its fast retransmit
    needs): ``(window, burst, fast_first)``, its window now, :data:`KIND_BURST` when at
    least one of its ACKs was dropped on the ACK path in the round of detection or the one
    before (else 0), and whether enough packets follow its holes for a fast retransmit,
    whose reaction comes first (:func:`dupacks_behind`). The one rule of both deciders,
    the compiled :func:`_decide` and the laws called from Python
    (:meth:`._hybrid_laws._Boundary.python_decisions`), with :func:`loss_continues`."""
    w = ff[j, F_W]
    burst = KIND_BURST if ff[j, F_ACKD] - ff[j, F_ACKD_PREV] >= 1.0 else 0
    return w, burst, dupacks_behind(w, ff[j, F_LOST], dupacks)


@njit(**_JIT)
def loss_continues(ff, j, t, cut, fast_first, dupacks, timing, cross):  # type: ignore[no-untyped-def]
    """After :func:`loss_begins` (and the fast retransmit's reaction, which left the window
    ``cut``; without one ``cut`` is the window before the event): ``(again, timeout,
    silent, srtt)``, whether the law reacts (again) at ``cut``, as a timeout
    (``timeout``: :data:`KIND_TIMEOUT`, else 0) or, without a fast retransmit first, as
    one; the time the flow then sends nothing and its RTT estimate (:func:`_loss_timer`,
    ``timing`` :func:`advance`'s loss settings, ``cross`` the cross traffic's rate now)."""
    to, silent, srtt = _loss_timer(
        ff, j, t, cut, timing[0], timing[1], dupacks, timing[2], timing[3], timing[4],
        timing[5], cross,
    )  # fmt: skip
    return to or not fast_first, KIND_TIMEOUT if to else 0, silent, srtt


@njit(**_JIT)
def _decide(ff, j, loss, t, has_rev, whole, laws, cross):  # type: ignore[no-untyped-def]
    """Flow ``j``'s law decides at ``t`` through its compiled rule (:func:`advance` states
    ``laws``): its loss reaction (``loss``; ``cross`` the cross traffic's rate now,
    packets/s) or its next round, each with a row of its log; then the ACKs carried past
    the decision grow the window with the increment now set."""
    rounds, losses, lb, lm, gt, group_of, pos_of, timing, dupacks, base, s = laws[:11]
    log_flow, log_rows, loss_flow, loss_t, ig = laws[11:]
    gr = group_of[j]
    p = pos_of[j]
    if loss:
        w, burst, fast_first = loss_begins(ff, j, dupacks[j])
        at = gt[gr, GT_LW]
        lb[at] = w
        if fast_first:
            # the packet sender's fast retransmit, before any timeout: its reaction first
            losses[gt[gr, GT_LOSS]](lb, lm, gt[gr, GT_LMETA + burst], p)
        cut = lb[at + 1] if fast_first else w
        again, to, silent, srtt = loss_continues(
            ff, j, t, cut, fast_first, dupacks[j], timing, cross
        )
        if again:
            lb[at] = cut
            losses[gt[gr, GT_LOSS]](lb, lm, gt[gr, GT_LMETA + to + burst], p)
        _loss_apply_one(ff, j, t, lb[at + 1], silent, srtt)
        c = ig[I_NLOSS]
        loss_flow[c] = j
        loss_t[c, 0] = t
        loss_t[c, 1] = w  # the window the reaction cut
        ig[I_NLOSS] = c + 1
    else:
        _sample_one(ff, j, base, has_rev, s, 0, timing[4])
        n = gt[gr, GT_N]
        at = gt[gr, GT_SAMPLE] + p
        for r in range(N_SAMPLE):
            lb[at + r * n] = s[r, 0]
        rounds[gt[gr, GT_ROUND]](lb, lm, gt[gr, GT_RMETA], p)
        at = gt[gr, GT_ACT] + p
        ff[j, F_W] = lb[at]
        ff[j, F_INCR] = lb[at + n]
        ff[j, F_CAP] = lb[at + 2 * n]
        phase = lb[gt[gr, GT_PHASE] + p]
        ig[I_NLOG] = _end_one(ff, j, t, s, 0, phase, log_flow, log_rows, ig[I_NLOG])
    c = ff[j, F_CARRY]
    if c > 0.0:
        ff[j, F_W] = _grow(ff, j, whole, ff[j, F_W], c)
        ff[j, F_CARRY] = 0.0


# entries of ``ig``, :func:`advance`'s counters
I_NLOG = 1  # rows in the round log
I_NLOSS = 2  # rows in the loss log
I_PAUSE = 3  # the step to pause at
N_IG = 4


# columns of the group table ``gt`` (one row per law object; :mod:`._hybrid_laws`)
GT_PY = 0  # 1: the law is called from Python
GT_ROUND = 1  # its round adapter's slot
GT_RMETA = 2  # its round call's entry in ``meta``
GT_LOSS = 3  # its loss adapter's slot
GT_LMETA = 4  # 4 entries: its loss calls' entries in ``meta``, by kind (fast, timeout,
#               burst, burst timeout)
GT_SAMPLE = 8  # offset in ``buf`` of its sample rows (``N_SAMPLE`` rows of n)
GT_ACT = 9  # of its action rows (cwnd, incr, cap; n each)
GT_PHASE = 10  # of its ``phase`` state array
GT_N = 11  # its flows
GT_LW = 12  # of its loss call's window before (one value) and after (the next)
N_GT = 13
