"""The compiled per-packet loop of the packet simulator (private).

Everything here is Numba-compiled (``cache=True``) and works on preallocated arrays built
by :mod:`tcpfluid.sim.engine`. The loop runs until it needs Python (a round boundary or a
loss decision of a control law, or a ring buffer to grow), returns a code, and is
re-entered with the decision written into the arrays.

Event model
-----------
A link is a FIFO server with a constant propagation delay, so the packets it holds (queued,
in transmission or propagating) leave it in the order they entered. Each link therefore keeps
its packets in a ring buffer ordered by exit time, and the event heap only holds one entry
per *source*: each link (the exit time of its head packet), each flow's timer (start, stop,
retransmission timeout, delayed ACK), each CBR source (its next emission), and the trace
sampler. Ties are broken by a sequence number assigned when a key is set, so runs are
deterministic.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# ----------------------------------------------------------------------------- codes
DONE = 0
NEED_ROUND = 1
NEED_LOSS = 2
GROW_FLOW = 3
GROW_LINK = 4
NEED_RAND = 5

# pending states of a flow
P_NONE = 0
P_ROUND = 1  # waiting for Python's round decision
P_ROUND_READY = 2  # decision written: apply the boundary ACK's increment, then send
P_LOSS = 3  # waiting for Python's loss decision
P_LOSS_READY = 4  # new window written: retransmit / go back, then send
P_SEND = 5  # resume the send loop (after a ring grew)

# loss kinds (same values as tcpfluid.algorithms.base)
K_FAST = 1
K_RETX = 2
K_TIMEOUT = 3

# packet kinds
KIND_DATA = 0
KIND_ACK = 1
KIND_CBR = 2

# ----------------------------------------------------------------------------- flow floats
F_CWND = 0
F_INCR = 1
F_CAP = 2
F_BASE = 3
F_FWD_BASE = 4
F_SRTT = 5
F_RTTVAR = 6
F_RTO = 7
F_RTO_DL = 8  # retransmission timer deadline
F_DACK_DL = 9  # delayed-ACK deadline (receiver)
F_START = 10
F_STOP = 11
F_R_SUM = 12  # round accumulators
F_R_MIN = 13
F_R_MAX = 14
F_R_FWD = 15
F_S_CWND = 16  # the sample handed to the law
F_S_BASE = 17
F_S_MEAN = 18
F_S_MIN = 19
F_S_MAX = 20
F_S_ACKS = 21
F_S_FWD = 22
F_S_FWD_BASE = 23
F_NEWCWND = 24  # window returned by the law's on_loss
F_PKT = 25  # data size, bytes
F_ACK = 26  # ACK size, bytes
F_DACK_TO = 27  # delayed-ACK timeout, s
F_ECHO_TS = 28  # receiver: timestamp to echo with the next delayed ACK
F_ECHO_FWD = 29  # receiver: forward delay of that packet
F_MIN_RTO = 30
F_MAX_RTO = 31
F_GOOD_LAST = 32  # delivered packets at the previous trace sample
F_LAST_T = 33  # time of the boundary / loss that is pending
NF = 34

# ----------------------------------------------------------------------------- flow ints
I_UNA = 0
I_NXT = 1
I_MAXSENT = 2
I_DUP = 3
I_ROUND_SEQ = 4
I_R_CNT = 5
I_R_ACKS = 6
I_RECOV = 7  # 1 while in fast recovery
I_RECOVER = 8  # snd_nxt when recovery started
I_PENDING = 9
I_KIND = 10  # loss kind pending
I_STATE = 11  # 0 not started, 1 sending, 2 stopped
I_CHECKS = 12  # Vegas: fine-grained checks left after a retransmission
I_RCV_NXT = 13
I_RCV_UNACK = 14
I_RING_OFF = 15
I_RING_CAP = 16
I_FWD_OFF = 17
I_FWD_LEN = 18
I_REV_OFF = 19
I_REV_LEN = 20
I_FINE = 21  # Vegas fine-grained retransmission check enabled
I_DELACK = 22  # receiver delays ACKs
I_SENT = 23  # data packets transmitted (with retransmissions)
I_RETX = 24  # retransmissions
I_TIMEOUTS = 25
I_FASTRETX = 26
I_GOOD = 27  # packets delivered in order (goodput), = rcv_nxt
I_ACKS_SENT = 28
I_RTO_ARMED = 29
NI = 30

# ----------------------------------------------------------------------------- link floats
L_RATE = 0  # bytes per second
L_DELAY = 1
L_BUF = 2  # waiting room, packets (inf allowed)
L_BUSY = 3  # time the last admitted packet finishes transmission
L_MIN_TH = 4
L_MAX_TH = 5
L_MAXP = 6
L_WQ = 7
L_AVG = 8
L_PTC = 9  # RED: packets per second of a mean-size packet (idle-time decay)
L_BYTES_OUT = 10  # bytes that finished transmission (utilization)
NLF = 11

# ----------------------------------------------------------------------------- link ints
J_OFF = 0
J_CAP = 1
J_HEAD = 2  # monotone counters into the ring
J_TAIL = 3
J_SVC = 4  # first packet not finished transmitting
J_DISC = 5  # 0 drop-tail, 1 RED, 2 RED gentle
J_COUNT = 6  # RED count since last drop
J_ARR = 7
J_DROPS = 8
J_DROPS_DATA = 9
J_MAXQ = 10
NLI = 11

# ----------------------------------------------------------------------------- CBR
C_RATE = 0  # packets per second
C_START = 1
C_STOP = 2
C_SIZE = 3
C_NEXT = 4
NCF = 5
D_OFF = 0
D_LEN = 1
D_SENT = 2
NCI = 3

# ----------------------------------------------------------------------------- globals
G_NOW = 0
G_END = 1
G_SEQ = 2  # tie-break counter
G_EVENTS = 3
G_SAMPLE_DT = 4
G_NSAMP = 5  # samples written
G_RAND_I = 6
G_CODE_ARG = 7  # flow / link of the request
NG = 8

# counters (conservation)
N_DATA_SENT = 0
N_DATA_RCVD = 1
N_DATA_DROP = 2
N_ACK_SENT = 3
N_ACK_RCVD = 4
N_ACK_DROP = 5
N_CBR_SENT = 6
N_CBR_RCVD = 7
N_CBR_DROP = 8
NCNT = 9


# ============================================================================= heap
@njit(cache=True)
def _less(ht, hs, a, b):
    ta = ht[a]
    tb = ht[b]
    if ta < tb:
        return True
    if ta > tb:
        return False
    return hs[a] < hs[b]


@njit(cache=True)
def _sift_up(heap, pos, ht, hs, i):
    s = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        q = heap[p]
        if _less(ht, hs, s, q):
            heap[i] = q
            pos[q] = i
            i = p
        else:
            break
    heap[i] = s
    pos[s] = i


@njit(cache=True)
def _sift_down(heap, pos, ht, hs, i):
    n = heap.shape[0]
    s = heap[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _less(ht, hs, heap[c + 1], heap[c]):
            c += 1
        q = heap[c]
        if _less(ht, hs, q, s):
            heap[i] = q
            pos[q] = i
            i = c
        else:
            break
    heap[i] = s
    pos[s] = i


@njit(cache=True)
def set_key(heap, pos, ht, hs, g, src, t):
    """Give source ``src`` the key (t, next sequence number) and restore the heap."""
    old = ht[src]
    ht[src] = t
    hs[src] = g[G_SEQ]
    g[G_SEQ] += 1.0
    if t < old:
        _sift_up(heap, pos, ht, hs, pos[src])
    else:
        _sift_down(heap, pos, ht, hs, pos[src])


# ============================================================================= links
@njit(cache=True)
def _occupancy(lf, li, rfin, l, now):
    """Packets in the queue of link ``l`` at ``now``, including the one in transmission."""
    off = li[l, J_OFF]
    cap = li[l, J_CAP]
    svc = li[l, J_SVC]
    tail = li[l, J_TAIL]
    while svc < tail and rfin[off + svc % cap] <= now:
        svc += 1
    li[l, J_SVC] = svc
    return tail - svc


@njit(cache=True)
def link_free(li, l):
    return li[l, J_CAP] - (li[l, J_TAIL] - li[l, J_HEAD])


@njit(cache=True)
def enqueue(
    lf, li, rexit, rfin, rflow, rseq, rts, rfwd, rkind, rhop, heap, pos, ht, hs, g, cnt, rand,
    l, now, flow, seq, ts, fwd, kind, hop, size,
):
    """A packet arrives at link ``l``: admit (FIFO) or drop. Returns 1 admitted, 0 dropped,
    -1 when RED needs more random numbers (nothing changed)."""
    q = _occupancy(lf, li, rfin, l, now)
    waiting = q - 1 if q > 0 else 0
    li[l, J_ARR] += 1
    drop = waiting >= lf[l, L_BUF]
    disc = li[l, J_DISC]
    if disc > 0 and not drop:
        # RED (Floyd and Jacobson 1993): EWMA of the waiting queue, updated on arrival
        wq = lf[l, L_WQ]
        avg = lf[l, L_AVG]
        if q == 0:
            idle = now - lf[l, L_BUSY]
            if idle > 0.0:
                m = idle * lf[l, L_PTC]
                avg = avg * (1.0 - wq) ** m
        avg = (1.0 - wq) * avg + wq * waiting
        lf[l, L_AVG] = avg
        mn = lf[l, L_MIN_TH]
        mx = lf[l, L_MAX_TH]
        maxp = lf[l, L_MAXP]
        pb = 0.0
        if avg >= mn:
            if avg < mx:
                pb = maxp * (avg - mn) / (mx - mn)
            elif disc == 2 and avg < 2.0 * mx:
                pb = maxp + (1.0 - maxp) * (avg - mx) / mx
            else:
                pb = 1.0
        if pb > 0.0:
            if pb >= 1.0:
                drop = True
                li[l, J_COUNT] = 0
            else:
                ri = int(g[G_RAND_I])
                if ri >= rand.shape[0]:
                    li[l, J_ARR] -= 1
                    return -1
                g[G_RAND_I] += 1.0
                li[l, J_COUNT] += 1
                c = li[l, J_COUNT]
                denom = 1.0 - c * pb
                pa = 1.0 if denom <= 0.0 else pb / denom
                if rand[ri] < pa:
                    drop = True
                    li[l, J_COUNT] = 0
        else:
            li[l, J_COUNT] = -1
    if drop:
        li[l, J_DROPS] += 1
        if kind == KIND_DATA:
            li[l, J_DROPS_DATA] += 1
            cnt[N_DATA_DROP] += 1
        elif kind == KIND_ACK:
            cnt[N_ACK_DROP] += 1
        else:
            cnt[N_CBR_DROP] += 1
        return 0
    start = lf[l, L_BUSY]
    if now > start:
        start = now
    fin = start + size / lf[l, L_RATE]
    lf[l, L_BUSY] = fin
    ex = fin + lf[l, L_DELAY]
    off = li[l, J_OFF]
    cap = li[l, J_CAP]
    tail = li[l, J_TAIL]
    k = off + tail % cap
    rexit[k] = ex
    rfin[k] = fin
    rflow[k] = flow
    rseq[k] = seq
    rts[k] = ts
    rfwd[k] = fwd
    rkind[k] = kind
    rhop[k] = hop
    li[l, J_TAIL] = tail + 1
    if q + 1 > li[l, J_MAXQ]:
        li[l, J_MAXQ] = q + 1
    if tail == li[l, J_HEAD]:
        set_key(heap, pos, ht, hs, g, l, ex)
    return 1


@njit(cache=True)
def _enq(lf, li, ring, hp, g, cnt, rand, l, now, flow, seq, ts, fwd, kind, hop, size):
    return enqueue(
        lf, li, ring[0], ring[1], ring[2], ring[3], ring[4], ring[5], ring[6], ring[7],
        hp[0], hp[1], hp[2], hp[3], g, cnt, rand,
        l, now, flow, seq, ts, fwd, kind, hop, size,
    )


# ============================================================================= flows
@njit(cache=True)
def _touch_timer(ff, fi, hp, g, nl, f):
    """Lower the key of flow ``f``'s timer source if one of its deadlines moved earlier."""
    t = ff[f, F_RTO_DL]
    if ff[f, F_DACK_DL] < t:
        t = ff[f, F_DACK_DL]
    st = fi[f, I_STATE]
    if st == 0 and ff[f, F_START] < t:
        t = ff[f, F_START]
    elif st == 1 and ff[f, F_STOP] < t:
        t = ff[f, F_STOP]
    src = nl + f
    if t < hp[2][src]:
        set_key(hp[0], hp[1], hp[2], hp[3], g, src, t)


@njit(cache=True)
def _reset_timer(ff, fi, hp, g, nl, f):
    """Set flow ``f``'s timer key to its earliest deadline (after the timer fired)."""
    t = ff[f, F_RTO_DL]
    if ff[f, F_DACK_DL] < t:
        t = ff[f, F_DACK_DL]
    st = fi[f, I_STATE]
    if st == 0 and ff[f, F_START] < t:
        t = ff[f, F_START]
    elif st == 1 and ff[f, F_STOP] < t:
        t = ff[f, F_STOP]
    set_key(hp[0], hp[1], hp[2], hp[3], g, nl + f, t)


@njit(cache=True)
def _xmit(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, seq, now):
    """Transmit data packet ``seq`` of flow ``f`` into its first link (room checked by caller)."""
    l = paths[fi[f, I_FWD_OFF]]
    _enq(lf, li, ring, hp, g, cnt, rand, l, now, f, seq, now, 0.0, KIND_DATA, 0, ff[f, F_PKT])
    k = fi[f, I_RING_OFF] + seq % fi[f, I_RING_CAP]
    if seq >= fi[f, I_MAXSENT]:
        txc[k] = 1
        fi[f, I_MAXSENT] = seq + 1
    else:
        txc[k] += 1
        fi[f, I_RETX] += 1
    sendt[k] = now
    fi[f, I_SENT] += 1
    cnt[N_DATA_SENT] += 1
    if ff[f, F_RTO_DL] == np.inf:
        ff[f, F_RTO_DL] = now + ff[f, F_RTO]
        _touch_timer(ff, fi, hp, g, nl, f)


@njit(cache=True)
def _send(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now):
    """Send while the window allows (``inflight < floor(cwnd)``). Returns 0 or a request."""
    if fi[f, I_STATE] != 1:
        return DONE
    w = ff[f, F_CWND]
    if fi[f, I_RECOV] == 1:
        w += fi[f, I_DUP]
    lim = math.floor(w)
    l = paths[fi[f, I_FWD_OFF]]
    cap = fi[f, I_RING_CAP]
    while fi[f, I_NXT] - fi[f, I_UNA] < lim:
        seq = fi[f, I_NXT]
        if seq >= fi[f, I_MAXSENT] and seq + 1 - fi[f, I_UNA] >= cap:
            g[G_CODE_ARG] = f
            return GROW_FLOW
        if link_free(li, l) < 4:
            g[G_CODE_ARG] = l
            return GROW_LINK
        if g[G_RAND_I] + 4 > rand.shape[0]:
            return NEED_RAND
        _xmit(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, seq, now)
        fi[f, I_NXT] = seq + 1
    return DONE


@njit(cache=True)
def _fine_expired(ff, fi, sendt, f, now):
    """Vegas's fine-grained check: has the oldest unacknowledged packet waited too long?"""
    if ff[f, F_SRTT] <= 0.0:
        return False
    k = fi[f, I_RING_OFF] + fi[f, I_UNA] % fi[f, I_RING_CAP]
    return now - sendt[k] > ff[f, F_SRTT] + 4.0 * ff[f, F_RTTVAR]


@njit(cache=True)
def _reset_round(ff, fi, f, seq):
    """Start a new round whose first packet is ``seq``; clear the round's measurements."""
    fi[f, I_ROUND_SEQ] = seq
    fi[f, I_R_CNT] = 0
    fi[f, I_R_ACKS] = 0
    ff[f, F_R_SUM] = 0.0
    ff[f, F_R_MIN] = np.inf
    ff[f, F_R_MAX] = 0.0
    ff[f, F_R_FWD] = 0.0


@njit(cache=True)
def _apply_incr(ff, fi, f):
    """The per-ACK increment of the law's last action, bounded by its cap."""
    if fi[f, I_RECOV] == 1:
        return
    incr = ff[f, F_INCR]
    if incr == 0.0:
        return
    w = ff[f, F_CWND] + incr
    if incr > 0.0:
        ceiling = ff[f, F_CAP]
        if ceiling < ff[f, F_CWND]:
            ceiling = ff[f, F_CWND]
        if w > ceiling:
            w = ceiling
    if w < 1.0:
        w = 1.0
    ff[f, F_CWND] = w


@njit(cache=True)
def _on_ack(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, ack, ts, fwd, now):
    """An ACK reaches the sender of flow ``f`` (measurement part; may hand over to Python)."""
    cnt[N_ACK_RCVD] += 1
    if fi[f, I_STATE] == 0:
        return DONE
    una = fi[f, I_UNA]
    if ack > una:
        rtt = now - ts
        # RFC 6298 estimator
        if ff[f, F_SRTT] <= 0.0:
            ff[f, F_SRTT] = rtt
            ff[f, F_RTTVAR] = 0.5 * rtt
        else:
            ff[f, F_RTTVAR] = 0.75 * ff[f, F_RTTVAR] + 0.25 * abs(ff[f, F_SRTT] - rtt)
            ff[f, F_SRTT] = 0.875 * ff[f, F_SRTT] + 0.125 * rtt
        rto = ff[f, F_SRTT] + 4.0 * ff[f, F_RTTVAR]
        if rto < ff[f, F_MIN_RTO]:
            rto = ff[f, F_MIN_RTO]
        if rto > ff[f, F_MAX_RTO]:
            rto = ff[f, F_MAX_RTO]
        ff[f, F_RTO] = rto
        if rtt < ff[f, F_BASE]:
            ff[f, F_BASE] = rtt
        if fwd < ff[f, F_FWD_BASE]:
            ff[f, F_FWD_BASE] = fwd
        ff[f, F_R_SUM] += rtt
        ff[f, F_R_FWD] += fwd
        if rtt < ff[f, F_R_MIN]:
            ff[f, F_R_MIN] = rtt
        if rtt > ff[f, F_R_MAX]:
            ff[f, F_R_MAX] = rtt
        fi[f, I_R_CNT] += 1
        fi[f, I_R_ACKS] += 1
        fi[f, I_UNA] = ack
        fi[f, I_DUP] = 0
        if ack > fi[f, I_NXT]:
            fi[f, I_NXT] = ack
        if ack < fi[f, I_MAXSENT] and fi[f, I_STATE] == 1:
            ff[f, F_RTO_DL] = now + ff[f, F_RTO]
        else:
            ff[f, F_RTO_DL] = np.inf
        if fi[f, I_RECOV] == 1:
            if ack >= fi[f, I_RECOVER]:
                fi[f, I_RECOV] = 0
                _reset_round(ff, fi, f, fi[f, I_NXT])
            elif fi[f, I_STATE] == 1:
                # NewReno partial ACK: retransmit the next hole
                _xmit(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, ack, now)
        elif fi[f, I_CHECKS] > 0:
            fi[f, I_CHECKS] -= 1
            if (
                fi[f, I_STATE] == 1
                and ack < fi[f, I_NXT]
                and _fine_expired(ff, fi, sendt, f, now)
            ):
                _xmit(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, ack, now)
        if fi[f, I_RECOV] == 0 and ack > fi[f, I_ROUND_SEQ]:
            n = fi[f, I_R_CNT]
            ff[f, F_S_CWND] = ff[f, F_CWND]
            ff[f, F_S_BASE] = ff[f, F_BASE]
            ff[f, F_S_MEAN] = ff[f, F_R_SUM] / n
            ff[f, F_S_MIN] = ff[f, F_R_MIN]
            ff[f, F_S_MAX] = ff[f, F_R_MAX]
            ff[f, F_S_ACKS] = fi[f, I_R_ACKS]
            ff[f, F_S_FWD] = ff[f, F_R_FWD] / n
            ff[f, F_S_FWD_BASE] = ff[f, F_FWD_BASE]
            ff[f, F_LAST_T] = now
            _reset_round(ff, fi, f, fi[f, I_NXT])
            fi[f, I_PENDING] = P_ROUND
            g[G_CODE_ARG] = f
            return NEED_ROUND
        _apply_incr(ff, fi, f)
    elif ack == una and fi[f, I_MAXSENT] > una and fi[f, I_STATE] == 1:
        fi[f, I_DUP] += 1
        if fi[f, I_RECOV] == 0:
            d = fi[f, I_DUP]
            trig = d == 3 or (fi[f, I_FINE] == 1 and d < 3 and _fine_expired(ff, fi, sendt, f, now))
            if trig:
                k = fi[f, I_RING_OFF] + una % fi[f, I_RING_CAP]
                fi[f, I_KIND] = K_FAST if txc[k] <= 1 else K_RETX
                ff[f, F_LAST_T] = now
                fi[f, I_PENDING] = P_LOSS
                g[G_CODE_ARG] = f
                return NEED_LOSS
    return _send(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now)


@njit(cache=True)
def _apply_loss(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now):
    """Carry out a loss decision: the law's new window, then retransmit or go back."""
    w = ff[f, F_NEWCWND]
    if w < 1.0:
        w = 1.0
    ff[f, F_CWND] = w
    ff[f, F_INCR] = 0.0
    ff[f, F_CAP] = w
    fi[f, I_DUP] = 0
    if fi[f, I_KIND] == K_TIMEOUT:
        fi[f, I_TIMEOUTS] += 1
        fi[f, I_RECOV] = 0
        fi[f, I_CHECKS] = 0
        fi[f, I_NXT] = fi[f, I_UNA]
        rto = 2.0 * ff[f, F_RTO]
        if rto > ff[f, F_MAX_RTO]:
            rto = ff[f, F_MAX_RTO]
        ff[f, F_RTO] = rto
        ff[f, F_RTO_DL] = np.inf  # re-armed by the retransmission
        _reset_round(ff, fi, f, fi[f, I_UNA])
    else:
        fi[f, I_FASTRETX] += 1
        fi[f, I_RECOV] = 1
        fi[f, I_RECOVER] = fi[f, I_NXT]
        fi[f, I_CHECKS] = 2 if fi[f, I_FINE] == 1 else 0
        _reset_round(ff, fi, f, fi[f, I_NXT])
        una = fi[f, I_UNA]
        _xmit(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, una, now)
        ff[f, F_RTO_DL] = now + ff[f, F_RTO]


@njit(cache=True)
def _send_ack(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, f, ts, fwd, now):
    l = paths[fi[f, I_REV_OFF]]
    cnt[N_ACK_SENT] += 1
    fi[f, I_ACKS_SENT] += 1
    _enq(lf, li, ring, hp, g, cnt, rand, l, now, f, fi[f, I_RCV_NXT], ts, fwd, KIND_ACK, 0,
         ff[f, F_ACK])


@njit(cache=True)
def _on_data(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, rcvd, nl, f, seq, ts, now):
    """A data packet reaches the receiver of flow ``f``: cumulative ACK, maybe delayed."""
    cnt[N_DATA_RCVD] += 1
    fwd = now - ts
    rn = fi[f, I_RCV_NXT]
    off = fi[f, I_RING_OFF]
    cap = fi[f, I_RING_CAP]
    ack_now = True
    ets = ts
    efwd = fwd
    if seq == rn:
        rn += 1
        filled = False
        while rcvd[off + rn % cap] == 1:
            rcvd[off + rn % cap] = 0
            rn += 1
            filled = True
        fi[f, I_RCV_NXT] = rn
        fi[f, I_GOOD] = rn
        if fi[f, I_DELACK] == 1 and not filled:
            fi[f, I_RCV_UNACK] += 1
            if fi[f, I_RCV_UNACK] == 1:
                ff[f, F_ECHO_TS] = ts
                ff[f, F_ECHO_FWD] = fwd
                ff[f, F_DACK_DL] = now + ff[f, F_DACK_TO]
                _touch_timer(ff, fi, hp, g, nl, f)
                ack_now = False
            else:
                ets = ff[f, F_ECHO_TS]
                efwd = ff[f, F_ECHO_FWD]
    elif seq > rn:
        rcvd[off + seq % cap] = 1
    if ack_now:
        fi[f, I_RCV_UNACK] = 0
        ff[f, F_DACK_DL] = np.inf
        _send_ack(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, f, ets, efwd, now)


@njit(cache=True)
def _timer(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now):
    """Flow ``f``'s timer source fired: start, stop, delayed ACK, retransmission timeout."""
    code = DONE
    st = fi[f, I_STATE]
    if st == 0 and ff[f, F_START] <= now:
        fi[f, I_STATE] = 1
        _reset_round(ff, fi, f, fi[f, I_NXT])
        fi[f, I_PENDING] = P_SEND
    elif st == 1 and ff[f, F_STOP] <= now:
        fi[f, I_STATE] = 2
        ff[f, F_RTO_DL] = np.inf
    if ff[f, F_DACK_DL] <= now:
        ff[f, F_DACK_DL] = np.inf
        if fi[f, I_RCV_UNACK] > 0:
            fi[f, I_RCV_UNACK] = 0
            _send_ack(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, f, ff[f, F_ECHO_TS],
                      ff[f, F_ECHO_FWD], now)
    if ff[f, F_RTO_DL] <= now:
        ff[f, F_RTO_DL] = np.inf
        if fi[f, I_STATE] == 1 and fi[f, I_UNA] < fi[f, I_MAXSENT]:
            fi[f, I_KIND] = K_TIMEOUT
            ff[f, F_LAST_T] = now
            fi[f, I_PENDING] = P_LOSS
            g[G_CODE_ARG] = f
            code = NEED_LOSS
    _reset_timer(ff, fi, hp, g, nl, f)
    if code == DONE and fi[f, I_PENDING] == P_SEND:
        code = _send(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now)
        if code == DONE:
            fi[f, I_PENDING] = P_NONE
    return code


@njit(cache=True)
def _resume(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, now):
    """Finish the work of flows whose decision Python has just written."""
    nf = ff.shape[0]
    for f in range(nf):
        p = fi[f, I_PENDING]
        if p == P_ROUND or p == P_LOSS:
            return -1  # the decision has not been written
        if p == P_ROUND_READY:
            _apply_incr(ff, fi, f)
            fi[f, I_PENDING] = P_SEND
        elif p == P_LOSS_READY:
            fi[f, I_PENDING] = P_SEND
            _apply_loss(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now)
        if fi[f, I_PENDING] == P_SEND:
            code = _send(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, now)
            if code != DONE:
                return code
            fi[f, I_PENDING] = P_NONE
    return DONE


@njit(cache=True)
def _sample(ff, fi, lf, li, ring, g, s_t, s_flow, s_link, now):
    k = int(g[G_NSAMP])
    if k >= s_t.shape[0]:
        return
    s_t[k] = now
    for f in range(ff.shape[0]):
        s_flow[k, f, 0] = ff[f, F_CWND]
        s_flow[k, f, 1] = fi[f, I_GOOD]
        s_flow[k, f, 2] = fi[f, I_SENT]
        s_flow[k, f, 3] = ff[f, F_SRTT]
    for l in range(lf.shape[0]):
        s_link[k, l, 0] = _occupancy(lf, li, ring[1], l, now)
        s_link[k, l, 1] = li[l, J_DROPS]
        s_link[k, l, 2] = lf[l, L_BYTES_OUT]
        s_link[k, l, 3] = lf[l, L_AVG]
    g[G_NSAMP] = k + 1


@njit(cache=True)
def run(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, rcvd, cf, ci, s_t, s_flow,
        s_link, has_red):
    """Process events until the end time or until Python is needed; returns a code."""
    nl = lf.shape[0]
    nf = ff.shape[0]
    nc = cf.shape[0]
    heap = hp[0]
    ht = hp[2]
    rexit = ring[0]
    rflow = ring[2]
    rseq = ring[3]
    rts = ring[4]
    rfwd = ring[5]
    rkind = ring[6]
    rhop = ring[7]
    code = _resume(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, g[G_NOW])
    if code != DONE:
        return code
    t_end = g[G_END]
    nrand = rand.shape[0]
    while True:
        src = heap[0]
        t = ht[src]
        if t > t_end:
            g[G_NOW] = t_end
            return DONE
        if has_red and g[G_RAND_I] + 16 > nrand:
            return NEED_RAND
        if src < nl:
            l = src
            off = li[l, J_OFF]
            cap = li[l, J_CAP]
            head = li[l, J_HEAD]
            k = off + head % cap
            kind = rkind[k]
            f = rflow[k]
            hop = rhop[k]
            if kind == KIND_DATA:
                plen = fi[f, I_FWD_LEN]
                dest = paths[fi[f, I_FWD_OFF] + hop + 1] if hop + 1 < plen else paths[
                    fi[f, I_REV_OFF]]
                size = ff[f, F_PKT]
            elif kind == KIND_ACK:
                plen = fi[f, I_REV_LEN]
                dest = paths[fi[f, I_REV_OFF] + hop + 1] if hop + 1 < plen else paths[
                    fi[f, I_FWD_OFF]]
                size = ff[f, F_ACK]
            else:
                plen = ci[f, D_LEN]
                dest = paths[ci[f, D_OFF] + hop + 1] if hop + 1 < plen else -1
                size = cf[f, C_SIZE]
            if dest >= 0 and link_free(li, dest) < 4:
                g[G_CODE_ARG] = dest
                return GROW_LINK
            g[G_NOW] = t
            g[G_EVENTS] += 1.0
            li[l, J_HEAD] = head + 1
            lf[l, L_BYTES_OUT] += size
            if head + 1 < li[l, J_TAIL]:
                set_key(hp[0], hp[1], hp[2], hp[3], g, l, rexit[off + (head + 1) % cap])
            else:
                set_key(hp[0], hp[1], hp[2], hp[3], g, l, np.inf)
            seq = rseq[k]
            ts = rts[k]
            if hop + 1 < plen:
                _enq(lf, li, ring, hp, g, cnt, rand, dest, t, f, seq, ts, rfwd[k], kind, hop + 1,
                     size)
            elif kind == KIND_DATA:
                _on_data(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, rcvd, nl, f, seq, ts, t)
            elif kind == KIND_ACK:
                code = _on_ack(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f,
                               seq, ts, rfwd[k], t)
                if code == DONE:
                    if fi[f, I_PENDING] == P_SEND:
                        fi[f, I_PENDING] = P_NONE
                else:
                    if code == GROW_FLOW or code == GROW_LINK or code == NEED_RAND:
                        fi[f, I_PENDING] = P_SEND
                    return code
            else:
                cnt[N_CBR_RCVD] += 1
        elif src < nl + nf:
            f = src - nl
            if link_free(li, paths[fi[f, I_REV_OFF]]) < 4:
                g[G_CODE_ARG] = paths[fi[f, I_REV_OFF]]
                return GROW_LINK
            g[G_NOW] = t
            g[G_EVENTS] += 1.0
            code = _timer(ff, fi, lf, li, ring, hp, g, cnt, rand, paths, sendt, txc, nl, f, t)
            if code != DONE:
                return code
        elif src < nl + nf + nc:
            c = src - nl - nf
            l0 = paths[ci[c, D_OFF]]
            if link_free(li, l0) < 4:
                g[G_CODE_ARG] = l0
                return GROW_LINK
            g[G_NOW] = t
            g[G_EVENTS] += 1.0
            n = ci[c, D_SENT]
            _enq(lf, li, ring, hp, g, cnt, rand, l0, t, c, n, t, 0.0, KIND_CBR, 0, cf[c, C_SIZE])
            cnt[N_CBR_SENT] += 1
            ci[c, D_SENT] = n + 1
            nxt = cf[c, C_START] + (n + 1) / cf[c, C_RATE]
            if nxt >= cf[c, C_STOP]:
                nxt = np.inf
            set_key(hp[0], hp[1], hp[2], hp[3], g, src, nxt)
        else:
            g[G_NOW] = t
            _sample(ff, fi, lf, li, ring, g, s_t, s_flow, s_link, t)
            nxt = g[G_NSAMP] * g[G_SAMPLE_DT]
            if g[G_NSAMP] >= s_t.shape[0]:
                nxt = np.inf
            set_key(hp[0], hp[1], hp[2], hp[3], g, src, nxt)
