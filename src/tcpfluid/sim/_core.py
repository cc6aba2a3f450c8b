# mypy: disallow-untyped-defs=False
# (private Numba kernels: their argument types are fixed by the arrays engine.py builds)
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
deterministic. Links that hand their packets on when they admit them (eager links, and a
data path's last link whose receiver takes the packet at its exit time: an early receiver)
have no exit events (docs/simulator.md, "Eager links" and "Early receivers").
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np
from llvmlite import ir as _ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .. import _numba_cache
from .._queueing_kernel import red_average, red_probability

#: where the compiled kernels are cached, and a damaged cache file rebuilt with a warning
#: naming it: the one rule of tcpfluid._numba_cache; the kernels hold RED's compiled laws
_numba_cache.configure()
_numba_cache.embeds(sys.modules[__name__], red_probability)

# ----------------------------------------------------------------------------- codes
DONE = 0
NEED_ROUND = 1
NEED_LOSS = 2
GROW_FLOW = 3
GROW_LINK = 4
NEED_RAND = 5
YIELD = 6  # an event budget is spent: Python may report progress, then re-enter
DEFERRED = 7  # internal: a round decision is pending, the loop goes on (never returned)
GROW_REC = 8  # the round-record buffer is full
SEND = 9  # internal: the flow sends while its window allows, in the event loop's admission

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
F_LAST_T = 32  # time of the pending work (boundary, loss, interrupted send)
F_PHASE = 33  # the law's phase after its last round decision (written by Python)
F_SSTH = 34  # the law's ssthresh after it (inf if the law has none)
# REC_NS2_VEGAS only (ns-2's tcp-vegas.cc, docs/simulator.md "Fast recovery"):
F_V_NEWCWND = 35  # v_newcwnd_: the window a fast retransmit cut to (uninflated)
F_V_CHANGED = 36  # t_cwnd_changed_: when that cut was made (-inf: never)
F_V_TIMEOUT = 37  # v_timeout_: the fine-grained timeout, s
F_V_SA = 38  # v_sa_: 8 x the smoothed RTT (0: no ACK received yet)
F_V_SD = 39  # v_sd_: 4 x the mean deviation
# ns-2's per-round RTT (tcp-vegas.cc lines 209-223), when F_V_TIMED is 1
F_V_TIMED = 40  # 1: the round RTT and BaseRTT follow ns-2's v_begtime_ timing; 2: and
# BaseRTT takes the RTT of a round of at most one packet (ns-2's rttLen <= 1)
F_V_BEGT = 41  # v_begtime_: when the current round was tagged (the ACK that closed the last)
F_V_CNT = 42  # v_cntRTT_: ACKs this round whose highest packet was sent once
F_V_SUM = 43  # v_sumRTT_: the sum of those ACKs' RTTs (now - that packet's send time)
# REC_NS2_FAST only (ns-2's FAST TCP module, tcp-fast.cc; the ``_ns2f_*`` functions):
F_F_AVGRTT = 44  # avgRTT_: the RTT averaged with weight 1/256 per new ACK (0: none yet)
# ns-2's Vegas agent's Δ (tcp-vegas.cc lines 232-239), when F_V_TIMED is set:
F_S_DELTA = 45  # the Δ its last round's end read, packets, handed to the law (NaN: none)
F_V_DELTA = 46  # 0: the law's Δ of eq (1); 1: the agent's (ns2_vegas_agent_delta); 2: the
# agent's rounded to an integer as ns-2.35's (ns2_vegas_integer_delta)
F_V_GROW_CHECK = 47  # 1: the per-ACK increase only into a nearly full window (line 290)
F_LAST_GOOD = 48  # when the receiver last delivered a packet in order (0: never)
NF = 49

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
I_STATE = 11  # 0 not started, 1 sending, 2 stopped: no new data, losses still repaired
I_CHECKS = 12  # Vegas: fine-grained checks left after a retransmission (ns-2: v_worried_)
I_RCV_NXT = 13
I_RCV_UNACK = 14
I_RING_OFF = 15
I_RING_CAP = 16
I_FWD_OFF = 17
I_FWD_LEN = 18
I_REV_OFF = 19
I_REV_LEN = 20
I_FINE = 21  # Vegas fine-grained retransmission check enabled
I_DELACK = 22  # receiver delays ACKs: 0 no; 1 echoing the first held packet; 2 the latest
I_SENT = 23  # data packets transmitted (with retransmissions)
I_RETX = 24  # retransmissions
I_TIMEOUTS = 25
I_FASTRETX = 26
I_GOOD = 27  # packets delivered in order (goodput), = rcv_nxt
I_ACKS_SENT = 28
I_RTO_RECOVER = 29  # ns-2's recover_: highest sent + 1 at the last timeout (REC_RENO_EXIT:
# or fast retransmit); -1 none yet; -2 not kept
I_PARTIALS = 30  # partial ACKs seen in the current recovery
I_BLK = 31  # 1 while the flow's deferred decision blocks its first link
I_RECOVERY = 32  # the sender's fast recovery: REC_NEWRENO, REC_RENO, REC_RENO_EXIT,
# REC_NS2_VEGAS or REC_NS2_FAST
# REC_NS2_FAST only (ns-2's FAST TCP module, tcp-fast.cc; the ``_ns2f_*`` functions):
I_F_PIPE = 33  # pipe_: packets the sender counts in flight during its SACK recovery
I_F_HISACK = 34  # the highest sequence number a SACK block reported (-1: none)
I_F_SBHI = 35  # one past the highest scoreboard row marked (rows below it may hold marks)
I_F_NEXT = 36  # the lowest hole not yet retransmitted in this recovery may be at or above it
I_F_TIMEOUT = 37  # timeout_: 1 after a timeout until the next new ACK (SACKs not read)
NI = 38

# fast recovery (``I_RECOVERY``; docs/simulator.md, "Fast recovery")
REC_NEWRENO = 0  # RFC 6582: partial ACKs retransmit the next hole, recovery ends at a full ACK
REC_RENO = 1  # ns-2's Agent/TCP/Reno, tcp-reno.cc 1998-2003: ends at any new ACK
REC_RENO_EXIT = 2  # the same from 2005 on (exitFastRetrans_ true, working: ns-2.35)
REC_NS2_VEGAS = 3  # ns-2's Agent/TCP/Vegas (tcp-vegas.cc): its own recovery, ``_ns2v_*``
REC_NS2_FAST = 4  # ns-2's Agent/TCP/Fast (tcp-fast.cc): SACK recovery, ``_ns2f_*``
#: an ACK of a REC_NS2_FAST flow carries its SACK in its sequence field: the cumulative
#: ACK in the low bits, 1 + the sequence number of the out-of-order packet that caused it
#: (0: none) from bit SACK_SHIFT on
SACK_SHIFT = 32
ACK_MASK = (1 << SACK_SHIFT) - 1

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
L_BYTES_OUT = 10  # bytes that left the link (the summary's utilization)
L_OVH = 11  # a flow's first link: a data packet's extra transmission time is U[0, L_OVH] s
#: bytes the link admitted, and the send overheads (``L_OVH``) drawn for them, s: with the
#: packets left to transmit, the time it spent transmitting (``_sample``)
L_BYTES_IN = 12
L_OVH_SUM = 13
NLF = 14

# ----------------------------------------------------------------------------- link ints
J_OFF = 0
J_CAP = 1
J_HEAD = 2  # monotone counters into the ring (J_TAIL: packets admitted)
J_TAIL = 3
J_SVC = 4  # first packet not finished transmitting
J_DISC = 5  # 0 drop-tail, 1 RED, 2 RED gentle; 3, 4: the same with ns-2's wait_ (DISC_WAIT)
J_COUNT = 6  # RED count since last drop
#: added to a RED link's J_DISC: ns-2's ``Queue/RED`` ``wait_`` (simulate_packets, red_wait)
DISC_WAIT = 2
J_DROPS = 7
J_DROPS_DATA = 8
J_MAXQ = 9
J_BLOCK = 10  # flows with a deferred decision whose first link this is
J_EAGER = 11  # 1: hands each packet to its next link when admitted (no exit events)
J_FED = 12  # 1: fed by an eager link only (its ring may hold packets not yet arrived)
#: 1: the last link of data paths whose receivers take each packet when this link admits it
#: (its ring row then keeps the receiver's ``rcv_nxt`` before the packet in ``RI_SEQ``, for
#: the samples; ``_setup.early_receivers``)
J_RX = 13
NLI = 14

# ----------------------------------------------------------------------------- CBR
C_RATE = 0  # packets per second
C_START = 1
C_STOP = 2
C_SIZE = 3
NCF = 4
D_OFF = 0
D_LEN = 1
D_SENT = 2
NCI = 3

# ----------------------------------------------------------------------------- globals
# float globals ``gf``
G_NOW = 0
G_END = 1
G_SAMPLE_DT = 2
G_DEADLINE = 3  # the open batch of deferred decisions must close before this time
NGF = 4
# int globals ``gi`` (tie-break counter, statistics, conservation counters)
G_SEQ = 0
G_EVENTS = 1
G_NSAMP = 2  # samples written
G_RAND_I = 3
G_CODE_ARG = 4  # flow / link of a GROW_FLOW / GROW_LINK request
N_DATA_SENT = 5
N_DATA_RCVD = 6
N_DATA_DROP = 7
N_ACK_SENT = 8
N_ACK_RCVD = 9
N_ACK_DROP = 10
N_CBR_SENT = 11
N_CBR_RCVD = 12
N_CBR_DROP = 13
G_NPEND = 14  # entries in the pending list ``pend``
G_PEND_I = 15  # first entry of ``pend`` not yet carried out
G_YIELD_AT = 16  # event count at which the loop returns YIELD
G_NREC = 17  # rows written in the round records ``rec``
NGI = 18

# ring columns. A link's packet is one 64-byte row (one cache line: the ring's array
# starts on a 64-byte boundary) seen through two views of the same memory, ``rf``
# (float64) and ``ri`` (int64): the float columns first (docs/simulator.md, "How it is fast")
RF_EXIT = 0
RF_FIN = 1
RF_TS = 2
RF_FWD = 3
RF_ARR = 4  # arrival time at the link
RF_SIZE = 5  # bytes
RI_SEQ = 6
RI_TAG = 7  # flow (or CBR source) << TAG_FLOW | pos << TAG_POS | kind
NRF = 8  # columns of a ring row (both views)
TAG_POS = 2  # the kind takes the two lowest bits
TAG_FLOW = 32  # the link's entry in ``paths`` the next 30 bits, the flow the rest
KIND_MASK = (1 << TAG_POS) - 1
POS_MASK = (1 << (TAG_FLOW - TAG_POS)) - 1
#: entries ``paths`` may have (a link's entry is packed into a ring row's tag)
MAX_PATH_ENTRIES = POS_MASK + 1
# heap rows ``hi`` (H_HEAP by heap slot: the source and its key's tie-break number,
# packed; H_POS by source) and ``ht``
H_HEAP = 0
H_POS = 1
NH = 2
#: a heap slot's integer is ``tie << SRC_BITS | src``: the tie-break numbers are distinct,
#: so the packed integers order as the tie-break numbers do
SRC_BITS = 24
SRC_MASK = (1 << SRC_BITS) - 1
#: sources a run may have (links, flows, CBR sources and the sampler)
MAX_SOURCES = 1 << SRC_BITS
HT_SRC = 0  # key of each source
HT_HEAP = 1  # key at each heap slot
# per-sequence-number rings of the flows: ``fs`` (send time) and ``fq`` (int) columns
Q_TXC = 0
Q_RCVD = 1
#: the sender's SACK scoreboard (a third column, only when a flow is REC_NS2_FAST): bit
#: SB_SACKED the receiver reported the packet, bit SB_RETX it was retransmitted in the
#: current recovery
Q_SB = 2
SB_SACKED = 1
SB_RETX = 2

#: Numba options of every kernel: no reference-counted runtime (``_nrt=False``: the kernels
#: allocate nothing), ``forceinline`` explicit (the cache does not key on it); the reasons
#: and measurements: docs/simulator.md, "How it is fast" and "Compile time"
_JIT: dict[str, Any] = {
    "cache": True, "error_model": "numpy", "nogil": True, "_nrt": False, "forceinline": False
}  # fmt: skip
#: the kernels only the compiled code calls (all but ``run`` and ``_set_key_call``) have no
#: Python or C entry point (docs/simulator.md, "Compile time")
_JIT_IN: dict[str, Any] = {**_JIT, "no_cpython_wrapper": True, "no_cfunc_wrapper": True}
_jit: Any = njit(**_JIT_IN)
#: small helpers called on every event: compiled once, marked ``alwaysinline`` and inlined
#: by LLVM into their callers. The loop admits packets at two places only (forwarding, and
#: one admission loop for the rest); the rare paths call one compiled copy
#: (``_enqueue_call``, ``_set_key_call``, ``*_rare``); docs/simulator.md, "Compile time"
_jit_inline: Any = njit(**{**_JIT_IN, "forceinline": True})
#: small rare-path wrappers, and the loss decisions of ns-2's senders (one call site each):
#: inlined by Numba where they are called, so they compile no kernel of their own. Every
#: kernel's compiled module holds a copy of the code of all it calls (Numba links them), so
#: a kernel between ``run`` and the transmit code adds a copy of that code to optimise and
#: translate to machine code (docs/simulator.md, "Compile time")
_jit_ir: Any = njit(**{**_JIT_IN, "inline": "always"})
#: the hottest array reads and writes index with ``np.uint64`` (never negative: no
#: wrap-around code for negative indices; docs/simulator.md, "How it is fast")


# ============================================================================= prefetch
@intrinsic
def prefetch_row(typingctx, arr, row):
    """Ask the CPU to fetch the cache line at the start of row ``row`` of the 2-D array
    ``arr`` (x86 ``prefetcht0``: a hint, it never faults and returns nothing; used for the
    link ring's row a later exit event reads: docs/simulator.md, "How it is fast")."""
    if not (isinstance(arr, types.Array) and arr.ndim == 2 and isinstance(row, types.Integer)):
        return None
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        stride = cgutils.unpack_tuple(builder, ary.strides)[0]
        offset = builder.mul(context.cast(builder, args[1], signature.args[1], types.intp), stride)
        addr = builder.add(builder.ptrtoint(ary.data, _ir.IntType(64)), offset)
        i8p = _ir.IntType(8).as_pointer()
        i32 = _ir.IntType(32)
        fnty = _ir.FunctionType(_ir.VoidType(), [i8p, i32, i32, i32])
        # the unsuffixed name: LLVM's IR upgrade gives it the mangling of the pointer type
        # of the LLVM it runs on ("p0" with opaque pointers, "p0i8" with typed ones)
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch")
        # read access, high temporal locality (all cache levels), data cache
        builder.call(fn, [builder.inttoptr(addr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


# ============================================================================= heap
@_jit_inline
def _heap_move(hi, ht, i, j, key):
    """Move the source at heap slot ``j`` (its key ``key``) to slot ``i``."""
    q = hi[H_HEAP, np.uint64(j)]
    ui = np.uint64(i)
    hi[H_HEAP, ui] = q
    ht[HT_HEAP, ui] = key
    hi[H_POS, np.uint64(q & SRC_MASK)] = i


@_jit_inline
def set_key(hi, ht, gi, src, t):
    """Give source ``src`` the key (t, next tie-break number) and restore the heap order.

    ``ht[HT_SRC, src]`` is the key of a source, ``ht[HT_HEAP, i]`` the time of the key at
    heap slot ``i`` and ``hi[H_HEAP, i]`` its tie-break number and source packed in one
    integer (kept in heap order so that a sift reads its children's keys side by side, and
    one load gives both the tie-break and the source to move). The new key's tie-break
    number is larger than any in the heap, so against it only the times need comparing. An
    infinite key (an idle source) stops sinking at the first infinite child: idle sources
    are never popped, so their order among themselves does not matter.
    """
    us = np.uint64(src)
    old = ht[HT_SRC, us]
    ht[HT_SRC, us] = t
    tie = gi[G_SEQ]
    gi[G_SEQ] = tie + 1
    packed = (tie << SRC_BITS) | src
    i = hi[H_POS, us]
    n = ht.shape[1]
    if t < old:
        while i > 0:
            p = (i - 1) >> 1
            tp = ht[HT_HEAP, np.uint64(p)]
            if t < tp:
                _heap_move(hi, ht, i, p, tp)
                i = p
            else:
                break
    else:
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            tc = ht[HT_HEAP, np.uint64(c)]
            qc = hi[H_HEAP, np.uint64(c)]
            if c + 1 < n:
                # the smaller child without a branch (bitwise operators, then selects)
                tc1 = ht[HT_HEAP, np.uint64(c + 1)]
                qc1 = hi[H_HEAP, np.uint64(c + 1)]
                right = (tc1 < tc) | ((tc1 == tc) & (qc1 < qc))
                c += 1 if right else 0
                tc = tc1 if right else tc
                qc = qc1 if right else qc
            if tc < t or (tc == t and tc != np.inf):
                ui = np.uint64(i)
                hi[H_HEAP, ui] = qc
                ht[HT_HEAP, ui] = tc
                hi[H_POS, np.uint64(qc & SRC_MASK)] = i
                i = c
            else:
                break
    ui = np.uint64(i)
    hi[H_HEAP, ui] = packed
    ht[HT_HEAP, ui] = t
    hi[H_POS, us] = i


#: ``set_key`` as a call (one compiled copy), where a source is rarely re-keyed
_set_key_call: Any = njit("void(i8[:, ::1], f8[:, ::1], i8[::1], i8, f8)", **_JIT)(set_key.py_func)


# ============================================================================= links
@_jit_inline
def occupancy(li, rf, lk, now):
    """Packets in the queue of link ``lk`` at ``now``, including the one in transmission."""
    u = np.uint64(lk)
    off = li[u, J_OFF]
    mask = li[u, J_CAP] - 1
    svc = li[u, J_SVC]
    tail = li[u, J_TAIL]
    while svc < tail and rf[np.uint64(off + (svc & mask)), RF_FIN] <= now:
        svc += 1
    li[u, J_SVC] = svc
    return tail - svc


@_jit_inline
def link_free(li, lk):
    """Free slots in link ``lk``'s ring."""
    return li[lk, J_CAP] - (li[lk, J_TAIL] - li[lk, J_HEAD])


# a call (one compiled copy, explicit signature): it is rare
@njit("void(f8[:, ::1], i8[:, ::1], f8[:, ::1], i8, f8)", **_JIT_IN)
def _pop_exited(lf, li, rf, lk, now):
    """An eager link has no exit events: drop the packets that left it by ``now`` from its
    ring (in order, counting their bytes as the exit events of other links do)."""
    off = li[lk, J_OFF]
    mask = li[lk, J_CAP] - 1
    head = li[lk, J_HEAD]
    tail = li[lk, J_TAIL]
    while head < tail and rf[off + (head & mask), RF_EXIT] <= now:
        lf[lk, L_BYTES_OUT] += rf[off + (head & mask), RF_SIZE]
        head += 1
    li[lk, J_HEAD] = head


@_jit
def _fed_arrived(li, rf, lk, now):
    """The packets a fed link holds that arrived by ``now`` (its ring may already hold
    packets that arrive later): ``(q, held, end)``, those in its queue (not finished
    transmitting), the bytes of them all, and when the last of them finishes transmitting
    (-inf: none)."""
    off = li[lk, J_OFF]
    mask = li[lk, J_CAP] - 1
    q = 0
    held = 0.0
    end = -np.inf
    for c in range(li[lk, J_HEAD], li[lk, J_TAIL]):
        k = off + (c & mask)
        if rf[k, RF_ARR] > now:
            break
        held += rf[k, RF_SIZE]
        end = rf[k, RF_FIN]
        if end > now:
            q += 1
    return q, held, end


@_jit_inline
def _no_room(lf, li, rf, gf, gi, paths, lk, poff, hop):
    """Has link ``lk`` (if any; hop ``hop`` of the path at ``poff``), or a link an eager
    link hands the packet on to, fewer free slots than one event may fill? Then its ring
    must grow first (the caller returns GROW_LINK for the link noted here)."""
    while lk >= 0:
        eager = li[lk, J_EAGER] == 1
        if link_free(li, lk) < 4:
            if eager:
                _pop_exited(lf, li, rf, lk, gf[G_NOW])
            if link_free(li, lk) < 4:
                gi[G_CODE_ARG] = lk
                return True
        if not eager:
            return False
        hop += 1
        lk = paths[poff + hop]
        if lk < -1:  # the receiver takes it at once: its ACK goes into the reverse path
            poff = -2 - lk
            hop = 0
            lk = paths[poff]
    return False


#: ``_no_room`` as a call (one compiled copy) for a flow's timer, a rare event
_no_room_call: Any = njit(
    "b1(f8[:, ::1], i8[:, ::1], f8[:, ::1], f8[::1], i8[::1], i8[::1], i8, i8, i8)", **_JIT_IN
)(_no_room.py_func)


@_jit
def _red_drop(lf, li, gi, rand, lk, now, q, waiting, disc, full):
    """RED (Floyd and Jacobson 1993) on an arrival that finds ``q`` packets (``waiting``
    of them waiting) at link ``lk``: update the average, return True to drop. As ns-2's
    ``REDQueue::enque``, every arrival updates the average, one that finds the buffer
    ``full`` too; that forced drop restarts the count (its ``ns1_compat_`` false); RED
    itself drops only when more than one packet waits (its ``qlen > 1``)."""
    wq = lf[lk, L_WQ]
    avg = lf[lk, L_AVG]
    if q == 0:
        idle = now - lf[lk, L_BUSY]
        if idle > 0.0:
            avg = red_average(avg, 0.0, wq, idle * lf[lk, L_PTC])
    # ns-2's per-arrival form (red_average(avg, waiting, wq, 1.0) is the same law in
    # another floating-point order)
    avg = (1.0 - wq) * avg + wq * waiting
    lf[lk, L_AVG] = avg
    gentle = disc == 2 or disc == 2 + DISC_WAIT
    pb = red_probability(avg, lf[lk, L_MIN_TH], lf[lk, L_MAX_TH], lf[lk, L_MAXP], gentle, 0.0)
    if full:
        li[lk, J_COUNT] = 0 if pb > 0.0 and waiting > 1 else -1
        return True
    if waiting <= 1:
        pb = 0.0
    drop = False
    if pb >= 1.0:
        drop = True
        li[lk, J_COUNT] = 0
    elif pb > 0.0 and disc > DISC_WAIT:
        # ns-2's wait_ (REDQueue::drop_early, red.cc; docs/simulator.md)
        if li[lk, J_COUNT] < 0:
            li[lk, J_COUNT] = 1
            return False
        li[lk, J_COUNT] += 1
        cp = li[lk, J_COUNT] * pb
        if cp >= 1.0:
            ri_ = gi[G_RAND_I]
            gi[G_RAND_I] = ri_ + 1
            pa = 1.0 if cp >= 2.0 else pb / (2.0 - cp)
            if rand[ri_] < pa:
                drop = True
                li[lk, J_COUNT] = 0
    elif pb > 0.0:
        ri_ = gi[G_RAND_I]
        gi[G_RAND_I] = ri_ + 1
        li[lk, J_COUNT] += 1
        denom = 1.0 - li[lk, J_COUNT] * pb
        pa = 1.0 if denom <= 0.0 else pb / denom
        if rand[ri_] < pa:
            drop = True
            li[lk, J_COUNT] = 0
    else:
        li[lk, J_COUNT] = -1
    return drop


@_jit_inline
def enqueue(lf, li, rf, ri, hi, ht, gf, gi, rand, lk, now, flow, seq, ts, fwd, kind, pos, size):
    """A packet arrives at link ``lk`` (entry ``pos`` of ``paths``: the link's place on
    the packet's path) at ``now``: drop it or admit it (FIFO).

    Returns the exit time when an eager link (``J_EAGER``; ``_setup.eager_links``) hands
    the packet on to the next hop (the caller does it), else -1 (dropped, not eager, or
    past the end time). The caller has checked that the rings have room and, for RED or a
    send overhead (``L_OVH``), that a random number is available.
    """
    u = np.uint64(lk)
    eager = li[u, J_EAGER] == 1
    q = occupancy(li, rf, lk, now)
    waiting = q - 1 if q > 0 else 0
    drop = waiting >= lf[u, L_BUF]
    disc = li[u, J_DISC]
    if disc > 0:
        drop = _red_drop(lf, li, gi, rand, lk, now, q, waiting, disc, drop)
    if drop:
        li[u, J_DROPS] += 1
        if kind == KIND_DATA:
            li[u, J_DROPS_DATA] += 1
            gi[N_DATA_DROP] += 1
        elif kind == KIND_ACK:
            gi[N_ACK_DROP] += 1
        else:
            gi[N_CBR_DROP] += 1
        return -1.0
    start = lf[u, L_BUSY]
    if now > start:
        start = now
    fin = start + size / lf[u, L_RATE]
    ovh = lf[u, L_OVH]
    if ovh > 0.0 and kind == KIND_DATA:
        # ns-2's Agent/TCP ``overhead_``: a uniform random wait in [0, overhead]
        ri_ = gi[G_RAND_I]
        gi[G_RAND_I] = ri_ + 1
        wait = ovh * rand[ri_]
        fin += wait
        lf[u, L_OVH_SUM] += wait
    lf[u, L_BUSY] = fin
    lf[u, L_BYTES_IN] += size
    ex = fin + lf[u, L_DELAY]
    tail = li[u, J_TAIL]
    k = np.uint64(li[u, J_OFF] + (tail & (li[u, J_CAP] - 1)))
    rf[k, RF_EXIT] = ex
    rf[k, RF_FIN] = fin
    rf[k, RF_TS] = ts
    rf[k, RF_FWD] = fwd
    rf[k, RF_ARR] = now
    rf[k, RF_SIZE] = size
    ri[k, RI_SEQ] = seq
    ri[k, RI_TAG] = (flow << TAG_FLOW) | (pos << TAG_POS) | kind
    li[u, J_TAIL] = tail + 1
    if q + 1 > li[u, J_MAXQ]:
        li[u, J_MAXQ] = q + 1
    if not eager:
        if tail == li[u, J_HEAD]:
            set_key(hi, ht, gi, lk, ex)
        return -1.0
    if ex > gf[G_END]:
        return -1.0
    return ex


# ============================================================================= flows
@_jit_inline
def _timer_key(ff, fi, f):
    t = ff[f, F_RTO_DL]
    if ff[f, F_DACK_DL] < t:
        t = ff[f, F_DACK_DL]
    st = fi[f, I_STATE]
    if st == 0 and ff[f, F_START] < t:
        t = ff[f, F_START]
    elif st == 1 and ff[f, F_STOP] < t:
        t = ff[f, F_STOP]
    return t


@_jit_inline
def _arm(ff, hi, ht, gi, nl, f, t):
    """Set flow ``f``'s retransmission deadline to ``t`` (its timer key stays <= deadlines)."""
    ff[f, F_RTO_DL] = t
    if t < ht[HT_SRC, nl + f]:
        _set_key_call(hi, ht, gi, nl + f, t)


@_jit_inline
def _reset_round(ff, fi, f, seq):
    """Start a new round whose first packet is ``seq``; clear the round's measurements."""
    fi[f, I_ROUND_SEQ] = seq
    fi[f, I_R_CNT] = 0
    fi[f, I_R_ACKS] = 0
    ff[f, F_R_SUM] = 0.0
    ff[f, F_R_MIN] = np.inf
    ff[f, F_R_MAX] = 0.0
    ff[f, F_R_FWD] = 0.0


# one explicit signature: one compiled copy for its call sites' literal constants
@njit(
    "void(f8[:, ::1], i8[:, ::1], f8[:, ::1], i8[:, ::1], f8[::1], i8[::1], i8[::1], i8[::1],"
    " i8, i8, f8, b1)",
    **_JIT_IN,
)
def _push(ff, fi, lf, li, gf, gi, paths, pend, f, p, now, block):
    """Put flow ``f`` on the pending list with state ``p``, its work due at ``now``.

    With ``block`` the flow's decision is deferred: its first link takes no other arrival
    and the batch must close before a packet the flow sends at ``now`` could leave that
    link (its transmission plus propagation time).
    """
    fi[f, I_PENDING] = p
    ff[f, F_LAST_T] = now
    n = gi[G_NPEND]
    pend[n] = f
    gi[G_NPEND] = n + 1
    if block:
        lk = paths[fi[f, I_FWD_OFF]]
        li[lk, J_BLOCK] += 1
        fi[f, I_BLK] = 1
        t = now + (ff[f, F_PKT] / lf[lk, L_RATE] + lf[lk, L_DELAY])
        if t < gf[G_DEADLINE]:
            gf[G_DEADLINE] = t


@_jit_inline
def _apply_incr(ff, fi, f):
    """The per-ACK increment of the law's last action, bounded by its cap."""
    if fi[f, I_RECOV] == 1:
        return
    incr = ff[f, F_INCR]
    if incr == 0.0:
        return
    if incr > 0.0 and ff[f, F_V_GROW_CHECK] > 0.0:
        # ns-2's Vegas agent grows only a window it nearly fills (tcp-vegas.cc line 290:
        # ``(cwnd_-(t_seqno_-last_ack_))<=2``, last_ack_ = I_UNA - 1)
        if ff[f, F_CWND] - (fi[f, I_NXT] - fi[f, I_UNA] + 1) > 2.0:
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


@_jit_inline
def _ack_seq(fi, f, seq):
    """The sequence field of the ACK that data packet ``seq`` of flow ``f`` causes: the
    cumulative ACK, and for a REC_NS2_FAST flow the SACK of a packet that arrived out of
    order (``SACK_SHIFT``)."""
    rn = fi[f, I_RCV_NXT]
    if seq > rn and fi[f, I_RECOVERY] == REC_NS2_FAST:
        return rn | ((seq + 1) << SACK_SHIFT)
    return rn


@_jit_inline
def _on_data(ff, fi, hi, ht, gi, fq, nl, f, seq, ts, now):
    """A data packet reaches the receiver of flow ``f``: cumulative ACK, maybe delayed.

    Returns ``(ack, ts, fwd)``: whether an ACK goes out now, and the send time and
    forward delay it echoes.
    """
    gi[N_DATA_RCVD] += 1
    fwd = now - ts
    rn = fi[f, I_RCV_NXT]
    off = fi[f, I_RING_OFF]
    mask = fi[f, I_RING_CAP] - 1
    ack_now = True
    ets = ts
    efwd = fwd
    if seq == rn:
        rn += 1
        filled = False
        while fq[off + (rn & mask), Q_RCVD] == 1:
            fq[off + (rn & mask), Q_RCVD] = 0
            rn += 1
            filled = True
        fi[f, I_RCV_NXT] = rn
        fi[f, I_GOOD] = rn
        ff[f, F_LAST_GOOD] = now
        if fi[f, I_DELACK] >= 1 and not filled:
            fi[f, I_RCV_UNACK] += 1
            if fi[f, I_RCV_UNACK] == 1:
                ff[f, F_ECHO_TS] = ts
                ff[f, F_ECHO_FWD] = fwd
                t = now + ff[f, F_DACK_TO]
                ff[f, F_DACK_DL] = t
                if t < ht[HT_SRC, nl + f]:
                    _set_key_call(hi, ht, gi, nl + f, t)
                ack_now = False
            elif fi[f, I_DELACK] == 1:  # echo the first held packet (RFC 7323)
                ets = ff[f, F_ECHO_TS]
                efwd = ff[f, F_ECHO_FWD]
    elif seq > rn:
        fq[off + (seq & mask), Q_RCVD] = 1
    if ack_now:
        fi[f, I_RCV_UNACK] = 0
        ff[f, F_DACK_DL] = np.inf
        gi[N_ACK_SENT] += 1
        fi[f, I_ACKS_SENT] += 1
    return ack_now, ets, efwd


@_jit_inline
def _receive(ff, fi, li, ri, hi, ht, gi, fq, nl, rx, f, seq, ts, now):
    """``_on_data`` for data packet ``seq`` of flow ``f`` reaching its receiver at ``now``.

    ``rx`` >= 0: the packet's last link, an early receiver's (``J_RX``), which has just
    admitted it, ``now`` being its exit time: its row keeps the receiver's ``rcv_nxt``
    before the packet (the goodput a sample taken before ``now`` reads: ``_sample``).
    """
    if rx >= 0:
        u = np.uint64(rx)
        k = np.uint64(li[u, J_OFF] + ((li[u, J_TAIL] - 1) & (li[u, J_CAP] - 1)))
        ri[k, RI_SEQ] = fi[f, I_RCV_NXT]
    return _on_data(ff, fi, hi, ht, gi, fq, nl, f, seq, ts, now)


# ============================================================================= sending
_SIG_ENQUEUE = (
    "void(f8[:, ::1], i8[:, ::1], i8[:, ::1], f8[:, ::1], i8[:, ::1], f8[:, ::1], i8[:, ::1],"
    " i8[:, ::1], f8[:, ::1], f8[::1], i8[::1], f8[::1], i8[::1], i8, f8, i8, i8, f8, f8, i8,"
    " i8, f8, i8)"
)


@njit(_SIG_ENQUEUE, **_JIT_IN)
def _enqueue_call(
    ff, fi, fq, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, lk, now, flow, seq, ts, fwd, kind,
    hop, size, poff,
):  # fmt: skip
    """``enqueue`` as a call (one explicit signature: one compiled copy for every caller),
    the packet handed on by eager links (hop ``hop`` of the path at ``paths[poff:]``), and
    by an early receiver's last link to the receiver, whose ACK goes on the same way."""
    nl = lf.shape[0]
    while True:
        pos = poff + hop
        h = enqueue(
            lf, li, rf, ri, hi, ht, gf, gi, rand, lk, now, flow, seq, ts, fwd, kind, pos, size
        )
        if h < 0.0:
            return
        hop += 1
        lk = paths[poff + hop]
        now = h
        if lk < -1:
            ack_now, ets, efwd = _receive(
                ff, fi, li, ri, hi, ht, gi, fq, nl, paths[poff + hop - 1], flow, seq, ts, now
            )
            if not ack_now:
                return
            poff = -2 - lk
            hop = 0
            lk = paths[poff]
            seq, ts, fwd = _ack_seq(fi, flow, seq), ets, efwd
            kind, size = KIND_ACK, ff[flow, F_ACK]


@_jit_inline
def _ring_slot(fi, f, seq):
    """Row of the flow ring (``fs``, ``fq``) holding packet ``seq`` of flow ``f``."""
    return fi[f, I_RING_OFF] + (seq & (fi[f, I_RING_CAP] - 1))


@_jit_inline
def _sent(ff, fi, hi, ht, gi, fs, fq, nl, f, seq, now):
    """Book-keeping of data packet ``seq`` of flow ``f``, just handed to its first link."""
    k = _ring_slot(fi, f, seq)
    if seq >= fi[f, I_MAXSENT]:
        fq[k, Q_TXC] = 1
        fi[f, I_MAXSENT] = seq + 1
    else:
        fq[k, Q_TXC] += 1
        fi[f, I_RETX] += 1
    fs[k] = now
    fi[f, I_SENT] += 1
    gi[N_DATA_SENT] += 1
    if ff[f, F_RTO_DL] == np.inf:
        _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])


@_jit_inline
def _send_limit(ff, fi, f):
    """Packets flow ``f`` may have in flight: ``floor(cwnd)``, inflated during fast
    recovery by the duplicate ACKs (those that started it included) less the packets
    partial ACKs acknowledged, plus one per partial ACK (RFC 6582 section 3.2); after its
    stop no more than the packets it sent before (its application gives no new data, its
    sender still retransmits them); -1 (nothing to send) before its start."""
    st = fi[f, I_STATE]
    if st == 0:
        return -1
    w = ff[f, F_CWND]
    if fi[f, I_RECOV] == 1:
        w += fi[f, I_DUP]
    elif fi[f, I_DUP] >= 3 and fi[f, I_RECOVERY] == REC_RENO:
        # ns-2's Reno of 1998-2003: dupwnd_ from the third duplicate ACK on, whether or
        # not it retransmits (docs/simulator.md, "Fast recovery")
        w += fi[f, I_DUP]
    lim = math.floor(w)
    if st == 2 and lim > fi[f, I_MAXSENT] - fi[f, I_UNA]:
        lim = fi[f, I_MAXSENT] - fi[f, I_UNA]
    return lim


@_jit_inline
def _send_check(fi, lf, li, rf, gf, gi, rand, paths, lk, f, seq):
    """Can data packet ``seq`` of flow ``f`` go into its first link ``lk`` now? DONE, or
    the request that must be served first (a ring to grow, random numbers for RED)."""
    if seq >= fi[f, I_MAXSENT] and seq + 1 - fi[f, I_UNA] >= fi[f, I_RING_CAP]:
        gi[G_CODE_ARG] = f
        return GROW_FLOW
    if _no_room(lf, li, rf, gf, gi, paths, lk, fi[f, I_FWD_OFF], 0):
        return GROW_LINK
    if (li[lk, J_DISC] > 0 or lf[lk, L_OVH] > 0.0) and gi[G_RAND_I] + 4 > rand.shape[0]:
        return NEED_RAND
    return DONE


@_jit_ir
def _xmit_rare(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, seq, now):
    """Transmit data packet ``seq`` of flow ``f`` into its first link (room checked by the
    caller), outside the event loop's admission."""
    p0 = fi[f, I_FWD_OFF]
    size = ff[f, F_PKT]
    _enqueue_call(
        ff, fi, fq, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, paths[p0], now, f, seq, now,
        0.0, 0, 0, size, p0,
    )  # fmt: skip
    _sent(ff, fi, hi, ht, gi, fs, fq, nl, f, seq, now)


@_jit_inline
def _fine_expired(ff, fi, fs, f, now):
    """Vegas's fine-grained check: has the oldest unacknowledged packet waited too long?"""
    if ff[f, F_SRTT] <= 0.0:
        return False
    k = _ring_slot(fi, f, fi[f, I_UNA])
    return now - fs[k] > ff[f, F_SRTT] + 4.0 * ff[f, F_RTTVAR]


@_jit_inline
def _on_ack(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl, f, ack, ts, fwd,
            now):  # fmt: skip
    """An ACK reaches the sender of flow ``f``: measurements, recovery, round boundary.

    Returns ``(code, rtx)``: ``rtx`` >= 0 is a packet to retransmit first; with ``code``
    DONE the flow then sends while its window allows, with DEFERRED it waits for its round
    decision, with NEED_LOSS for its loss decision (nothing is sent), with SEND the caller
    makes ns-2 FAST's recovery sends (``_ns2f_send_ack``: kept out of this inlined helper's
    compiled code, docs/simulator.md "Compile time").
    """
    gi[N_ACK_RCVD] += 1
    rtx = -1
    if fi[f, I_STATE] == 0:
        return DONE, rtx
    sack = -1
    if ack > ACK_MASK:  # the SACK of a REC_NS2_FAST flow's ACK (SACK_SHIFT)
        sack = (ack >> SACK_SHIFT) - 1
        ack = ack & ACK_MASK
    una = fi[f, I_UNA]
    if ack > una:
        if fi[f, I_RECOVERY] == REC_NS2_VEGAS:
            _ns2v_before_new_ack(ff, fi, f, now)
        rtt = now - ts
        # RFC 6298 estimator, its gains divided by the samples expected per window (RFC
        # 7323 appendix G: ceil(FlightSize / 2); docs/simulator.md, "Losses")
        if ff[f, F_SRTT] <= 0.0:
            ff[f, F_SRTT] = rtt
            ff[f, F_RTTVAR] = 0.5 * rtt
        else:
            expected = (fi[f, I_MAXSENT] - una + 1) // 2
            if expected < 1:
                expected = 1
            g_var = 0.25 / expected
            g_avg = 0.125 / expected
            ff[f, F_RTTVAR] = (1.0 - g_var) * ff[f, F_RTTVAR] + g_var * abs(ff[f, F_SRTT] - rtt)
            ff[f, F_SRTT] = (1.0 - g_avg) * ff[f, F_SRTT] + g_avg * rtt
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
        if ack > fi[f, I_NXT]:
            fi[f, I_NXT] = ack
        # a Reno sender leaves recovery at any new ACK (ns-2's RenoTcpAgent::recv): no
        # partial ACKs
        partial = (
            fi[f, I_RECOV] == 1 and ack < fi[f, I_RECOVER] and fi[f, I_RECOVERY] == REC_NEWRENO
        )
        if partial:
            # RFC 6582 section 3.2 step 3: deflate the window by the packets the partial
            # ACK acknowledges, add one back (ns-2 NewReno's partial_window_deflation_)
            fi[f, I_DUP] += 1 - (ack - una)
        else:
            fi[f, I_DUP] = 0
        if ack < fi[f, I_MAXSENT]:
            # RFC 6582 "impatient" NewReno: only the first partial ACK restarts the timer
            if not partial or fi[f, I_PARTIALS] == 0:
                _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])
            if partial:
                fi[f, I_PARTIALS] += 1
        else:
            ff[f, F_RTO_DL] = np.inf
        if fi[f, I_RECOVERY] == REC_NS2_VEGAS:
            rtx = _ns2v_new_ack(ff, fi, fs, fq, f, ack, now)
        elif fi[f, I_RECOVERY] == REC_NS2_FAST:
            c = _ns2f_new_ack(ff, fi, fs, fq, f, una, ack, now)
            if c != DONE:
                return c, rtx
        elif fi[f, I_RECOV] == 1 or fi[f, I_CHECKS] > 0:
            rtx = _ack_recovering(ff, fi, fs, f, ack, now)
        if fi[f, I_RECOV] == 0 and ack > fi[f, I_ROUND_SEQ]:
            _round_end(ff, fi, lf, li, gf, gi, paths, pend, f, now)
            return DEFERRED, rtx
        _apply_incr(ff, fi, f)
    elif ack == una and fi[f, I_MAXSENT] > una:
        if fi[f, I_RECOVERY] == REC_NS2_VEGAS:
            return _ns2v_dup_ack(
                ff, fi, lf, li, hi, ht, gf, gi, paths, fs, fq, pend, nl, f, una, now
            )
        if fi[f, I_RECOVERY] == REC_NS2_FAST:
            return _ns2f_dup_ack(ff, fi, lf, li, gf, gi, paths, fq, pend, f, una, sack, now), rtx
        if _dup_ack(ff, fi, lf, li, gf, gi, paths, fs, fq, pend, f, una, now):
            return NEED_LOSS, rtx
    return DONE, rtx


# The ACK handler's rarer branches, as calls (one compiled copy each)
@_jit
def _ack_recovering(ff, fi, fs, f, ack, now):
    """A new ACK during fast recovery or Vegas's fine-grained checks after a
    retransmission: returns the packet to retransmit first (-1: none)."""
    if fi[f, I_RECOV] == 1:
        if ack >= fi[f, I_RECOVER] or fi[f, I_RECOVERY] != REC_NEWRENO:
            fi[f, I_RECOV] = 0
            _reset_round(ff, fi, f, fi[f, I_NXT])
        else:
            return ack  # NewReno partial ACK: retransmit the next hole
    else:
        fi[f, I_CHECKS] -= 1
        if ack < fi[f, I_NXT] and _fine_expired(ff, fi, fs, f, now):
            return ack
    return -1


@_jit
def _round_end(ff, fi, lf, li, gf, gi, paths, pend, f, now):
    """A round of flow ``f`` ended: close its sample and defer the law's decision (taken
    with those of other flows, in one batch)."""
    n = fi[f, I_R_CNT]
    ff[f, F_S_CWND] = ff[f, F_CWND]
    ff[f, F_S_BASE] = ff[f, F_BASE]
    ff[f, F_S_MEAN] = ff[f, F_R_SUM] / n
    ff[f, F_S_MIN] = ff[f, F_R_MIN]
    ff[f, F_S_MAX] = ff[f, F_R_MAX]
    ff[f, F_S_ACKS] = fi[f, I_R_ACKS]
    ff[f, F_S_FWD] = ff[f, F_R_FWD] / n
    ff[f, F_S_FWD_BASE] = ff[f, F_FWD_BASE]
    _reset_round(ff, fi, f, fi[f, I_NXT])
    _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_ROUND, now, True)


@_jit
def _dup_ack(ff, fi, lf, li, gf, gi, paths, fs, fq, pend, f, una, now):
    """A duplicate ACK: True when it starts a loss event (the flow waits for its law's
    loss decision)."""
    fi[f, I_DUP] += 1
    # RFC 6582 section 4 (ns-2's ``bugFix_``): after a timeout no fast retransmit (nor
    # Vegas's fine-grained one) until the cumulative ACK passes the highest packet sent
    # before it (ns-2: ``highest_ack_ > recover_``)
    if fi[f, I_RECOV] == 0 and una > fi[f, I_RTO_RECOVER]:
        d = fi[f, I_DUP]
        trig = d == 3 or (fi[f, I_FINE] == 1 and d < 3 and _fine_expired(ff, fi, fs, f, now))
        if trig:
            k = _ring_slot(fi, f, una)
            fi[f, I_KIND] = K_FAST if fq[k, Q_TXC] <= 1 else K_RETX
            _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_LOSS, now, False)
            return True
    return False


@_jit
def _take_new_window(ff, f):
    """Flow ``f`` takes the window its law set at a loss (at least one packet) as its
    window and as the cap of its per-ACK increments."""
    w = ff[f, F_NEWCWND]
    if w < 1.0:
        w = 1.0
    ff[f, F_CWND] = w
    ff[f, F_INCR] = 0.0
    ff[f, F_CAP] = w


@_jit
def _apply_loss(ff, fi, hi, ht, gi, nl, f, now):
    """Carry out a loss decision: the law's new window, then go back (a timeout) or
    retransmit: returns the packet the caller retransmits first (-1: none; the transmit
    code is left to the caller, docs/simulator.md "Compile time")."""
    _take_new_window(ff, f)
    mode = fi[f, I_RECOVERY]
    # at a fast retransmit every sender keeps its duplicate ACKs as its window's
    # inflation (RFC 6582 section 3.2 step 2; ns-2's ``dupwnd_ = numdupacks_``)
    if fi[f, I_KIND] == K_TIMEOUT:
        fi[f, I_DUP] = 0
        fi[f, I_TIMEOUTS] += 1
        fi[f, I_RECOV] = 0
        fi[f, I_CHECKS] = 0
        fi[f, I_NXT] = fi[f, I_UNA]
        if fi[f, I_RTO_RECOVER] != -2:  # RFC 6582 section 4: recover = the highest sent
            fi[f, I_RTO_RECOVER] = fi[f, I_MAXSENT]
        rto = 2.0 * ff[f, F_RTO]
        if rto > ff[f, F_MAX_RTO]:
            rto = ff[f, F_MAX_RTO]
        ff[f, F_RTO] = rto
        ff[f, F_RTO_DL] = np.inf  # re-armed by the retransmission
        _reset_round(ff, fi, f, fi[f, I_UNA])
        return -1
    fi[f, I_FASTRETX] += 1
    fi[f, I_RECOV] = 1
    fi[f, I_PARTIALS] = 0
    fi[f, I_RECOVER] = fi[f, I_NXT]
    if mode == REC_RENO_EXIT and fi[f, I_RTO_RECOVER] != -2:
        # ns-2's Reno from 2005 (tcp-reno.cc 1.43, dupack_action): recover_ = maxseq_
        # here too (docs/simulator.md, "Fast recovery")
        fi[f, I_RTO_RECOVER] = fi[f, I_MAXSENT]
    fi[f, I_CHECKS] = 2 if fi[f, I_FINE] == 1 else 0
    _reset_round(ff, fi, f, fi[f, I_NXT])
    _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])
    return fi[f, I_UNA]


# ============================================================================= ns-2's Vegas
# ``fast_recovery="ns2-vegas"`` (REC_NS2_VEGAS): ns-2's ``Agent/TCP/Vegas`` loss handling,
# ``tcp/tcp-vegas.cc`` revision 1.37 (line numbers below), with Tsang's thesis's amended
# timeout; ``cwnd`` carries the inflation. docs/simulator.md, "Fast recovery", maps it all.
@_jit
def _ns2v_first_ack(ff, f, now):
    """The first ACK the agent receives (lines 179-185): ``v_rtt_`` is the time since the
    first packet was sent, ``v_sa_ = 8 v_rtt_``, ``v_sd_ = v_rtt_``, ``v_timeout_ =
    (v_sa_/4 + v_sd_)/2``."""
    rtt = now - ff[f, F_START]
    ff[f, F_V_SA] = 8.0 * rtt
    ff[f, F_V_SD] = rtt
    ff[f, F_V_TIMEOUT] = (2.0 * rtt + rtt) / 2.0


@_jit
def _ns2v_expired(ff, fi, fs, f, seq, now):
    """``vegas_expire`` (lines 517-526): has packet ``seq`` (the first unacknowledged one)
    waited at least ``v_timeout_`` since it was last sent? A packet never sent counts as
    expired (its ``v_sendtime_`` entry is -1: lines 310 and 476)."""
    if seq >= fi[f, I_MAXSENT]:
        return True
    return now - fs[_ring_slot(fi, f, seq)] >= ff[f, F_V_TIMEOUT]


@_jit
def _ns2v_before_new_ack(ff, fi, f, now):
    """A new ACK, before the agent's ``newack``: the first ACK's set-up, and the deflation
    of an inflated window to ``v_newcwnd_`` when more than three duplicate ACKs came
    before it (lines 194-198; ns-2 would set a window of 0 when no cut was ever made, a
    stall the simulator cannot run: the window is at least one packet)."""
    if ff[f, F_V_SA] <= 0.0:
        _ns2v_first_ack(ff, f, now)
    if fi[f, I_DUP] > 3 and ff[f, F_CWND] > ff[f, F_V_NEWCWND]:
        w = ff[f, F_V_NEWCWND]
        ff[f, F_CWND] = w if w >= 1.0 else 1.0


@_jit
def _ns2v_round_rtt(ff, fi, fs, fq, f, k, ack, now):
    """ns-2's once-per-round RTT (lines 209-223 and 275-277, and the samples of lines
    314-323), at a new ACK of a flow whose ``F_V_TIMED`` is set; ``k`` is the ring row of
    the highest packet the ACK acknowledges.

    The ACK that passes the round's first packet (``v_begseq_``) closes the round before
    its own sample counts: its RTT is ``v_sumRTT_ / v_cntRTT_``, or ``now - v_begtime_``
    without samples; ``v_baseRTT_`` takes it when smaller (or, ``F_V_TIMED`` 2, when
    ``rttLen <= 1``); with ``F_V_DELTA`` the agent's Δ from its packet counts
    (``F_S_DELTA``, which its law reads). docs/simulator.md, "Fast recovery", "Round
    timing"."""
    if fi[f, I_RECOV] == 0 and ack > fi[f, I_ROUND_SEQ]:
        n = ff[f, F_V_CNT]
        rtt = ff[f, F_V_SUM] / n if n > 0.0 else now - ff[f, F_V_BEGT]
        if rtt > 0.0:
            # the law reads the round's mean (F_R_SUM / I_R_CNT at ``_round_end``, next)
            ff[f, F_R_SUM] = rtt * fi[f, I_R_CNT]
            sent = fi[f, I_NXT] - fi[f, I_ROUND_SEQ]  # rttLen = t_seqno_ - v_begseq_
            if rtt < ff[f, F_BASE]:
                ff[f, F_BASE] = rtt
            elif ff[f, F_V_TIMED] > 1.0 and sent <= 1:
                # ns-2's ``if(rtt<v_baseRTT_ || rttLen<=1)`` (ns2_vegas_base_reset)
                ff[f, F_BASE] = rtt
            mode = ff[f, F_V_DELTA]
            if mode > 0.0:
                # Δ (lines 232-239): (expect − v_actual_)·v_baseRTT_, expect = (t_seqno_ −
                # last_ack_)/v_baseRTT_ (last_ack_ = ack − 1), v_actual_ = rttLen/rtt;
                # ns-2.35 rounds it, int(x + 0.5) truncating toward zero (mode 2), the
                # thesis's agent kept the double (its ch. 3 §3)
                base = ff[f, F_BASE]
                x = ((fi[f, I_NXT] - ack + 1) / base - sent / rtt) * base
                ff[f, F_S_DELTA] = float(math.trunc(x + 0.5)) if mode > 1.0 else x
        ff[f, F_V_CNT] = 0.0
        ff[f, F_V_SUM] = 0.0
        ff[f, F_V_BEGT] = now
    if fq[k, Q_TXC] == 1:
        rtt = now - fs[k]
        ff[f, F_V_CNT] += 1.0
        ff[f, F_V_SUM] += rtt
        if 0.0 < rtt < ff[f, F_BASE]:  # lines 320-323
            ff[f, F_BASE] = rtt


@_jit
def _ns2v_new_ack(ff, fi, fs, fq, f, ack, now):
    """A new ACK after the agent's ``newack``: the fine-grained timeout from the RTT of
    the highest packet acknowledged if it was sent once (lines 304-332), then, for the
    first two new ACKs after a fast retransmission (``v_worried_``), the check of the next
    unacknowledged packet (lines 337-350): if it expired, it is retransmitted and the
    duplicate ACKs count three again (no cut). Returns the packet to retransmit (-1:
    none)."""
    k = _ring_slot(fi, f, ack - 1)
    if ff[f, F_V_TIMED] > 0.0:
        _ns2v_round_rtt(ff, fi, fs, fq, f, k, ack, now)
    if fq[k, Q_TXC] == 1:
        rtt = now - fs[k]
        if rtt > 0.0:
            sa = ff[f, F_V_SA]
            n = rtt - sa / 8.0
            sa += n
            n = abs(n) - ff[f, F_V_SD] / 4.0
            sd = ff[f, F_V_SD] + n
            vto = (sa / 4.0 + sd) / 2.0
            ff[f, F_V_SA] = sa
            ff[f, F_V_SD] = sd
            ff[f, F_V_TIMEOUT] = vto + vto / 16.0
    if fi[f, I_CHECKS] > 0:
        fi[f, I_CHECKS] -= 1
        if _ns2v_expired(ff, fi, fs, f, ack, now):
            fi[f, I_DUP] = 3
            return ack
        fi[f, I_CHECKS] = 0
    return -1


@_jit
def _ns2v_dup_ack(ff, fi, lf, li, hi, ht, gf, gi, paths, fs, fq, pend, nl, f, una, now):
    """A duplicate ACK (lines 351-406 and 417). Returns ``(code, rtx)`` as ``_on_ack``:
    NEED_LOSS when the agent cuts its window (the law is told the loss, then
    ``_ns2v_apply_loss``); a retransmission without a cut (the packet was sent before the
    last cut); DEFERRED when the agent sends nothing (one or two duplicate ACKs)."""
    if ff[f, F_V_SA] <= 0.0:
        _ns2v_first_ack(ff, f, now)
    d = fi[f, I_DUP] + 1
    fi[f, I_DUP] = d
    if _ns2v_expired(ff, fi, fs, f, una, now) or d == 3:
        # bugFix_ (lines 362-363): nothing for the duplicate ACKs of a timeout's go-back
        if una > fi[f, I_RTO_RECOVER]:
            k = _ring_slot(fi, f, una)
            tx = fq[k, Q_TXC]
            out = fi[f, I_NXT] - una + 1  # t_seqno_ - last_ack_
            fi[f, I_CHECKS] = 2 if out >= 2 else out
            # the fine-grained timeout backs off (lines 371-374)
            if tx > 1:
                ff[f, F_V_TIMEOUT] *= 2.0
            else:
                ff[f, F_V_TIMEOUT] += ff[f, F_V_TIMEOUT] / 8.0
            if ff[f, F_V_CHANGED] < fs[k]:  # cut once per window (line 379)
                fi[f, I_KIND] = K_FAST if tx <= 1 else K_RETX
                _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_LOSS, now, False)
                return NEED_LOSS, -1
            fi[f, I_FASTRETX] += 1
            _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])
            if tx == 1:
                fi[f, I_DUP] = 3
            return DONE, una
    elif d > 3:
        ff[f, F_CWND] += 1.0  # inflation (lines 404-405)
    if fi[f, I_DUP] < 3:
        return DEFERRED, -1  # no send_much on the first two (line 417)
    return DONE, -1


@_jit_ir
def _ns2v_apply_loss(ff, fi, hi, ht, gi, fq, nl, f, now):
    """Carry out a loss of a ``"ns2-vegas"`` sender once its law has been told.

    Timeout (lines 421-452): the law's window and the go-back as every sender
    (``_apply_loss``), ``v_worried_`` kept (the thesis's amended agent). Fast
    retransmission (lines 379-402): ``v_newcwnd_ = win``, the agent's cut
    (``_decisions.ns2_vegas_cut``), ``cwnd_ = win + dupacks_``, the timer re-armed, the
    first unacknowledged packet retransmitted (returned: the caller transmits it), three
    duplicate ACKs counted if it had been sent once."""
    # with ns-2's round timing (F_V_TIMED) neither loss moves ``v_begseq_``
    begseq = fi[f, I_ROUND_SEQ]
    if fi[f, I_KIND] == K_TIMEOUT:
        worried = fi[f, I_CHECKS]
        rtx = _apply_loss(ff, fi, hi, ht, gi, nl, f, now)
        fi[f, I_CHECKS] = worried
        if ff[f, F_V_TIMED] > 0.0:
            fi[f, I_ROUND_SEQ] = begseq
        return rtx
    una = fi[f, I_UNA]
    k = _ring_slot(fi, f, una)
    once = fq[k, Q_TXC] == 1
    win = ff[f, F_NEWCWND]  # the agent's cut (_decisions.ns2_vegas_cut)
    ff[f, F_V_NEWCWND] = win
    ff[f, F_CWND] = win + fi[f, I_DUP]
    ff[f, F_V_CHANGED] = now
    ff[f, F_INCR] = 0.0
    ff[f, F_CAP] = win
    fi[f, I_FASTRETX] += 1
    _reset_round(ff, fi, f, fi[f, I_NXT])
    if ff[f, F_V_TIMED] > 0.0:
        fi[f, I_ROUND_SEQ] = begseq
    _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])
    if once:  # (the retransmission's book-keeping does not read it)
        fi[f, I_DUP] = 3
    return una


# ============================================================================= ns-2's FAST
# ``fast_recovery="ns2-fast"`` (REC_NS2_FAST): the SACK recovery of ns-2's FAST TCP module
# (``tcp-fast.cc`` 1.1.3), one SACK block per ACK (``SACK_SHIFT``). docs/simulator.md,
# "Fast recovery", gives the whole mapping.
@_jit
def _ns2f_clear(fi, fq, f, lo, una):
    """``ClearScoreBoard``: clear the marked rows from ``lo`` (the cumulative ACK before the
    last one, the lowest row that may be marked) up; ``una`` is the cumulative ACK now."""
    for s in range(lo, fi[f, I_F_SBHI]):
        fq[_ring_slot(fi, f, s), Q_SB] = 0
    fi[f, I_F_SBHI] = una
    fi[f, I_F_HISACK] = -1
    fi[f, I_F_NEXT] = una


# one explicit signature: one compiled copy for its call sites' literal bits
@njit("b1(i8[:, ::1], i8[:, ::1], i8, i8, i8)", **_JIT_IN)
def _ns2f_mark(fi, fq, f, seq, bit):
    """Mark row ``seq`` of the scoreboard with ``bit``; True if it was not marked so."""
    k = _ring_slot(fi, f, seq)
    if fq[k, Q_SB] & bit != 0:
        return False
    fq[k, Q_SB] |= bit
    if seq >= fi[f, I_F_SBHI]:
        fi[f, I_F_SBHI] = seq + 1
    return True


@_jit
def _ns2f_send(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, now):
    """``send_much`` during the recovery (``fastrecov_``): while ``pipe_ < int(cwnd_)``, the
    oldest unacknowledged packet if it has waited more than two ``avgRTT_`` since it was
    last sent (a retransmission lost again), else the lowest hole below the highest SACKed
    packet not yet retransmitted (``GetNextRetran``), else new data (none after the flow's
    stop); each adds one to ``pipe_``. Returns DONE, or a request (the caller puts the flow
    on the pending list)."""
    lk = paths[fi[f, I_FWD_OFF]]
    while fi[f, I_F_PIPE] < math.floor(ff[f, F_CWND]):
        una = fi[f, I_UNA]
        seq = -1
        avg = ff[f, F_F_AVGRTT]
        if avg > 0.0 and una < fi[f, I_MAXSENT] and now - fs[_ring_slot(fi, f, una)] > 2.0 * avg:
            seq = una
        else:
            s = fi[f, I_F_NEXT]
            if s < una:
                s = una
            top = fi[f, I_F_HISACK]
            while s < top and fq[_ring_slot(fi, f, s), Q_SB] != 0:
                s += 1
            fi[f, I_F_NEXT] = s
            if s < top:
                seq = s
        new = seq < 0
        if new:
            seq = fi[f, I_NXT]
            if fi[f, I_STATE] == 2 and seq >= fi[f, I_MAXSENT]:
                break
        code = _send_check(fi, lf, li, rf, gf, gi, rand, paths, lk, f, seq)
        if code != DONE:
            return code
        _xmit_rare(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, seq, now)
        if new:
            fi[f, I_NXT] = seq + 1
        else:
            _ns2f_mark(fi, fq, f, seq, SB_RETX)
        fi[f, I_F_PIPE] += 1
    return DONE


@_jit_ir
def _ns2f_send_ack(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl, f,
                   now):  # fmt: skip
    """``_ns2f_send`` on an ACK: DEFERRED when done (the event loop sends nothing more for
    the flow), else its request with the flow on the pending list."""
    code = _ns2f_send(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, now)
    if code == DONE:
        return DEFERRED
    _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_SEND, now, False)
    return code


@_jit
def _ns2f_new_ack(ff, fi, fs, fq, f, una, ack, now):
    """A new ACK (``ack`` > ``una``) after the common book-keeping of ``_on_ack``. Out of
    recovery: the scoreboard cleared, ``timeout_`` false, ``avgRTT_`` updated
    (``fast_est``; weight 1/256, or 3/w when more than 768 packets are outstanding), DONE.
    In recovery: ``pipe_`` less one; at ``recover_`` the recovery ends (DONE), else (a
    partial ACK) one less again, the scoreboard's rows below the ACK cleared, and SEND: the
    event loop sends (``_ns2f_send_ack``, through ``_on_ack``: so that this rare kernel
    does not hold a compiled copy of the transmit code; docs/simulator.md, "Compile
    time")."""
    if fi[f, I_RECOV] == 0:
        _ns2f_clear(fi, fq, f, una, ack)
        fi[f, I_F_TIMEOUT] = 0
        k = _ring_slot(fi, f, ack - 1)
        avg = ff[f, F_F_AVGRTT]
        rtt = now - fs[k] if (fq[k, Q_TXC] == 1 and fi[f, I_NXT] > ack - 1) else avg
        if avg <= 0.0:
            # ns-2 starts avgRTT_ at the time of the first ACK (its flows start at 0 s):
            # here the time since the flow started
            avg = now - ff[f, F_START]
        scale = (fi[f, I_NXT] - ack + 1) / 3.0
        if scale > 256.0:
            avg = ((scale - 1.0) * avg + rtt) / scale
        else:
            avg = (avg * 255.0 + rtt) / 256.0
        ff[f, F_F_AVGRTT] = avg
        return DONE
    fi[f, I_F_PIPE] -= 1
    if ack >= fi[f, I_RECOVER]:
        fi[f, I_RECOV] = 0
        _ns2f_clear(fi, fq, f, una, ack)
        _reset_round(ff, fi, f, fi[f, I_NXT])
        return DONE
    fi[f, I_F_PIPE] -= 1
    for s in range(una, ack):
        fq[_ring_slot(fi, f, s), Q_SB] = 0
    if fi[f, I_F_SBHI] < ack:
        fi[f, I_F_SBHI] = ack
    return SEND


@_jit
def _ns2f_dup_ack(ff, fi, lf, li, gf, gi, paths, fq, pend, f, una, sack, now):
    """A duplicate ACK reporting packet ``sack`` (-1: none). Its SACK is read unless a
    timeout came since the last new ACK (``timeout_``); it counts as a duplicate ACK only
    if it reports a packet not reported before (``CheckUpdate``). In recovery: ``pipe_``
    less one, then SEND: the event loop sends (``_ns2f_send_ack``). Out of it, the third
    counted one starts a recovery (NEED_LOSS: the law cuts, then ``_ns2f_apply_loss``)
    unless the ACKs have not passed the highest packet sent before the last timeout
    (``bugFix_``, ns-2's default); nothing is sent on the others (``dupacks_ > 0``):
    DEFERRED, or DONE while no duplicate ACK is counted."""
    fresh = False
    if sack > una and fi[f, I_F_TIMEOUT] == 0:
        fresh = _ns2f_mark(fi, fq, f, sack, SB_SACKED)
        if fresh and sack > fi[f, I_F_HISACK]:
            fi[f, I_F_HISACK] = sack
    if fi[f, I_RECOV] == 1:
        fi[f, I_F_PIPE] -= 1
        if fresh:
            fi[f, I_DUP] += 1
        return SEND
    if fresh:
        d = fi[f, I_DUP] + 1
        fi[f, I_DUP] = d
        if d == 3 and una > fi[f, I_RTO_RECOVER]:
            fi[f, I_KIND] = K_FAST
            _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_LOSS, now, False)
            return NEED_LOSS
    # ns-2 sends (``send_much``) on an ACK only while no duplicate ACK is counted
    return DONE if fi[f, I_DUP] == 0 else DEFERRED


@_jit_ir
def _ns2f_apply_loss(ff, fi, hi, ht, gi, fq, nl, f, now):
    """Carry out a loss of a ``"ns2-fast"`` sender once its law has cut the window.

    Timeout (``FastTcpAgent::timeout``): the go-back of every sender (``_apply_loss``)
    without back-off, ``recover_`` the highest packet sent, the scoreboard cleared, SACKs
    unread until a new ACK (``timeout_``). Third duplicate ACK (``dupack_action``): the
    law's window, ``recover_`` the highest packet sent, ``pipe_`` the packets beyond the
    cumulative ACK less three, the timer re-armed, the first unacknowledged packet
    retransmitted (not counted in ``pipe_``; returned: the caller transmits it)."""
    if fi[f, I_KIND] == K_TIMEOUT:
        rto = ff[f, F_RTO]
        rtx = _apply_loss(ff, fi, hi, ht, gi, nl, f, now)
        ff[f, F_RTO] = rto
        fi[f, I_RTO_RECOVER] = fi[f, I_MAXSENT]
        fi[f, I_F_TIMEOUT] = 1
        _ns2f_clear(fi, fq, f, fi[f, I_UNA], fi[f, I_UNA])
        return rtx
    _take_new_window(ff, f)
    una = fi[f, I_UNA]
    fi[f, I_FASTRETX] += 1
    fi[f, I_RECOV] = 1
    fi[f, I_RECOVER] = fi[f, I_MAXSENT]
    fi[f, I_F_PIPE] = fi[f, I_MAXSENT] - una - 3
    fi[f, I_F_NEXT] = una
    _reset_round(ff, fi, f, fi[f, I_NXT])
    _arm(ff, hi, ht, gi, nl, f, now + ff[f, F_RTO])
    # (the scoreboard's mark and the retransmission's book-keeping touch other columns)
    _ns2f_mark(fi, fq, f, una, SB_RETX)
    return una


@_jit
def _timer(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl, f, now):
    """Flow ``f``'s timer source fired: start, stop, delayed ACK, retransmission timeout."""
    code = DONE
    st = fi[f, I_STATE]
    start = False
    if st == 0 and ff[f, F_START] <= now:
        fi[f, I_STATE] = 1
        _reset_round(ff, fi, f, fi[f, I_NXT])
        start = True
    elif st == 1 and ff[f, F_STOP] <= now:
        fi[f, I_STATE] = 2  # no new data; its timers stay (docs/simulator.md, "Flows")
    if ff[f, F_DACK_DL] <= now:
        ff[f, F_DACK_DL] = np.inf
        if fi[f, I_RCV_UNACK] > 0:
            fi[f, I_RCV_UNACK] = 0
            gi[N_ACK_SENT] += 1
            fi[f, I_ACKS_SENT] += 1
            p0 = fi[f, I_REV_OFF]
            seq = fi[f, I_RCV_NXT]
            ets, efwd, size = ff[f, F_ECHO_TS], ff[f, F_ECHO_FWD], ff[f, F_ACK]
            _enqueue_call(
                ff, fi, fq, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, paths[p0], now, f, seq,
                ets, efwd, 1, 0, size, p0,
            )  # fmt: skip
    if ff[f, F_RTO_DL] <= now:
        ff[f, F_RTO_DL] = np.inf
        if fi[f, I_STATE] != 0 and fi[f, I_UNA] < fi[f, I_MAXSENT]:
            fi[f, I_KIND] = K_TIMEOUT
            _push(ff, fi, lf, li, gf, gi, paths, pend, f, P_LOSS, now, False)
            code = NEED_LOSS
    _set_key_call(hi, ht, gi, nl + f, _timer_key(ff, fi, f))
    if code == DONE and start:
        code = SEND
    return code


@_jit
def _resume_next(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, rec, nl):
    """The next entry of the pending list, in order: the flow's decision (written by
    Python) carried out at the time it was due. Returns ``(SEND, f)``: flow ``f`` sends
    next, in the event loop's admission (the entry stays until then); ``(DEFERRED, -1)``:
    the entry is done; ``(DONE, -1)``: the list is done; or a request."""
    i = gi[G_PEND_I]
    if i >= gi[G_NPEND]:
        gi[G_NPEND] = 0
        gi[G_PEND_I] = 0
        gf[G_DEADLINE] = np.inf
        return DONE, -1
    f = pend[i]
    p = fi[f, I_PENDING]
    if p == P_ROUND or p == P_LOSS:
        return -1, -1  # the decision has not been written
    t = ff[f, F_LAST_T]
    if p == P_ROUND_READY:
        r = gi[G_NREC]
        if r >= rec.shape[0]:
            return GROW_REC, -1
        rec[r, 0] = t
        rec[r, 1] = ff[f, F_S_CWND]
        rec[r, 2] = ff[f, F_CWND]
        rec[r, 3] = ff[f, F_S_MEAN]
        rec[r, 4] = ff[f, F_S_MIN]
        rec[r, 5] = ff[f, F_S_MAX]
        rec[r, 6] = ff[f, F_S_BASE]
        rec[r, 7] = ff[f, F_PHASE]
        rec[r, 8] = ff[f, F_SSTH]
        rec[r, 9] = f
        rec[r, 10] = ff[f, F_S_DELTA]
        gi[G_NREC] = r + 1
        _apply_incr(ff, fi, f)
        fi[f, I_PENDING] = P_SEND
    elif p == P_LOSS_READY:
        fi[f, I_PENDING] = P_SEND
        if fi[f, I_RECOVERY] == REC_NS2_VEGAS:
            rtx = _ns2v_apply_loss(ff, fi, hi, ht, gi, fq, nl, f, t)
        elif fi[f, I_RECOVERY] == REC_NS2_FAST:
            rtx = _ns2f_apply_loss(ff, fi, hi, ht, gi, fq, nl, f, t)
        else:
            rtx = _apply_loss(ff, fi, hi, ht, gi, nl, f, t)
        if rtx >= 0:
            _xmit_rare(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, rtx, t)
    if fi[f, I_BLK] == 1:
        li[paths[fi[f, I_FWD_OFF]], J_BLOCK] -= 1
        fi[f, I_BLK] = 0
    if fi[f, I_RECOVERY] == REC_NS2_FAST and fi[f, I_RECOV] == 1:
        code = _ns2f_send(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, nl, f, t)
        if code != DONE:
            return code, -1
        fi[f, I_PENDING] = P_NONE
        gi[G_PEND_I] = i + 1
        return DEFERRED, -1
    return SEND, f


@_jit
def _sample(ff, fi, lf, li, rf, ri, gf, gi, s_t, s_flow, s_link, now):
    """Write the sample of ``now``. Per link: its queue, drops, time spent transmitting
    (send overheads included) up to ``now`` and RED average. That time is the transmission
    time of the packets that arrived by ``now`` (all it admitted, or for a fed link, whose
    ring may hold packets that arrive later, those that left it and those it holds that
    arrived; a fed link has no send overhead) less what is left of it after ``now``. An
    early receiver (``J_RX``) has taken the packets its last link still holds (those
    leaving it after ``now``, up to the end of the run): a flow's goodput is its receiver's
    ``rcv_nxt`` before the first of them (``_receive``)."""
    k = gi[G_NSAMP]
    if k >= s_t.shape[0]:
        return
    s_t[k] = now
    for f in range(ff.shape[0]):
        s_flow[k, f, 0] = ff[f, F_CWND]
        s_flow[k, f, 1] = fi[f, I_GOOD]
        s_flow[k, f, 2] = fi[f, I_SENT]
        s_flow[k, f, 3] = ff[f, F_SRTT]
    for lk in range(lf.shape[0]):
        if li[lk, J_EAGER] == 1:
            _pop_exited(lf, li, rf, lk, now)
        if li[lk, J_FED] == 1:
            q, held, end = _fed_arrived(li, rf, lk, now)
            arrived = lf[lk, L_BYTES_OUT] + held
        else:
            q = occupancy(li, rf, lk, now)
            arrived, end = lf[lk, L_BYTES_IN], lf[lk, L_BUSY]
        s_link[k, lk, 0] = q
        s_link[k, lk, 1] = li[lk, J_DROPS]
        sent = arrived / lf[lk, L_RATE] + lf[lk, L_OVH_SUM]
        s_link[k, lk, 2] = sent - (end - now if end > now else 0.0)
        s_link[k, lk, 3] = lf[lk, L_AVG]
        if li[lk, J_RX] == 1:
            off = li[lk, J_OFF]
            mask = li[lk, J_CAP] - 1
            for c in range(li[lk, J_TAIL] - 1, li[lk, J_HEAD] - 1, -1):
                r = off + (c & mask)
                tag = ri[r, RI_TAG]
                if tag & KIND_MASK == KIND_DATA and rf[r, RF_EXIT] <= gf[G_END]:
                    s_flow[k, tag >> TAG_FLOW, 1] = ri[r, RI_SEQ]
    gi[G_NSAMP] = k + 1


@_jit_inline
def _blocked(li, lk):
    return lk >= 0 and li[lk, J_BLOCK] > 0


@njit(**_JIT)  # called from Python: with its entry point
def run(ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, cf, ci, s_t, s_flow, s_link,
        pend, rec, has_red):  # fmt: skip
    """Process events until the end time or until Python is needed; returns a code.

    Round decisions are deferred and batched: the loop returns NEED_ROUND before the first
    event that could depend on a pending one (docs/simulator.md, "Batched decisions"). A
    forwarded packet goes straight into its next link; every other packet an event puts
    into a link is admitted by the admission loop at the end of the event.
    """
    nl = lf.shape[0]
    nf = ff.shape[0]
    nc = cf.shape[0]
    t_end = gf[G_END]
    nrand = rand.shape[0]
    resuming = True  # the pending list is carried out first (``_resume_next``)
    while True:
        r_f = -1
        if resuming:
            code, r_f = _resume_next(
                ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, rec, nl
            )
            if code == DONE:
                resuming = False
                continue
            if code == DEFERRED:
                continue
            if code != SEND:
                return code
        # the packet the event admits (link ``a_lk`` >= 0), then the flow ``snd`` that
        # sends while its window allows, then the source ``post`` whose key is set last
        a_lk = -1
        a_now = 0.0
        a_poff = 0
        a_f = 0
        a_seq = 0
        a_ts = 0.0
        a_fwd = 0.0
        a_kind = KIND_DATA
        a_hop = 0
        a_size = 0.0
        snd = -1
        post = -1
        post_t = 0.0
        if r_f >= 0:
            # a pending entry's sends, at the time its decision was due
            t = ff[r_f, F_LAST_T]
            a_now = t
            snd = r_f
        else:
            src = hi[H_HEAP, 0] & SRC_MASK
            t = ht[HT_SRC, src]
            a_now = t
            npend = gi[G_NPEND]
            if t > t_end:
                if npend > 0:
                    return NEED_ROUND
                gf[G_NOW] = t_end
                for lk in range(nl):
                    if li[lk, J_EAGER] == 1:
                        _pop_exited(lf, li, rf, lk, t_end)
                return DONE
            if npend > 0 and t >= gf[G_DEADLINE]:
                return NEED_ROUND
            if has_red and gi[G_RAND_I] + 16 > nrand:
                return NEED_RAND
            if gi[G_EVENTS] >= gi[G_YIELD_AT]:
                if npend > 0:
                    return NEED_ROUND
                return YIELD
            if src < nl:
                lk = src
                off = li[lk, J_OFF]
                mask = li[lk, J_CAP] - 1
                head = li[lk, J_HEAD]
                k = np.uint64(off + (head & mask))
                tag = ri[k, RI_TAG]
                kind = tag & KIND_MASK
                f = tag >> TAG_FLOW
                pos = (tag >> TAG_POS) & POS_MASK
                # the link the packet goes to (``dest``, -1 if none), at ``paths[d_off]``: the
                # next entry of ``paths`` (-1 after a path's last link)
                d_off = pos + 1
                dest = paths[d_off]
                forward = dest >= 0
                if not forward and kind != KIND_CBR:
                    # data reach the receiver and go back as an ACK along the reverse path;
                    # ACKs reach the sender, whose sends take the forward path
                    d_off = fi[f, I_REV_OFF] if kind == KIND_DATA else fi[f, I_FWD_OFF]
                    dest = paths[d_off]
                # the packet's size from its own row (a forwarding event reads no flow row)
                size = rf[k, RF_SIZE]
                if npend > 0:
                    # would this event read or feed what a deferred decision changes?
                    if _blocked(li, dest) or (
                        kind == KIND_ACK and not forward and fi[f, I_PENDING] != P_NONE
                    ):
                        return NEED_ROUND
                if _no_room(lf, li, rf, gf, gi, paths, dest, d_off, 0):
                    return GROW_LINK
                gf[G_NOW] = t
                gi[G_EVENTS] += 1
                li[lk, J_HEAD] = head + 1
                lf[lk, L_BYTES_OUT] += size
                prefetch_row(rf, off + ((head + 2) & mask))
                nxt = (
                    rf[np.uint64(off + ((head + 1) & mask)), RF_EXIT]
                    if head + 1 < li[lk, J_TAIL]
                    else np.inf
                )
                set_key(hi, ht, gi, lk, nxt)
                seq = ri[k, RI_SEQ]
                ts = rf[k, RF_TS]
                if forward:
                    # forwarding, the most frequent event: its own copy of ``enqueue``
                    fwd = rf[k, RF_FWD]
                    h = enqueue(
                        lf, li, rf, ri, hi, ht, gf, gi, rand, dest, t, f, seq, ts, fwd, kind, d_off,
                        size,
                    )  # fmt: skip
                    if h < 0.0:
                        continue
                    # an eager link hands it on: through the admission loop
                    a_lk, a_now, a_f, a_seq, a_ts, a_fwd = paths[d_off + 1], h, f, seq, ts, fwd
                    a_kind, a_hop, a_size, a_poff = kind, 1, size, d_off
                elif kind == KIND_DATA:
                    # to its receiver, in the admission loop (``a_hop`` -1: at its exit event)
                    a_lk, a_f, a_seq, a_ts, a_hop = -2 - d_off, f, seq, ts, -1
                elif kind == KIND_ACK:
                    fwd = rf[k, RF_FWD]
                    code, rtx = _on_ack(
                        ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl, f,
                        seq, ts, fwd, t,
                    )  # fmt: skip
                    if code == SEND:
                        code = _ns2f_send_ack(
                            ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl,
                            f, t,
                        )  # fmt: skip
                    if code != DONE and code != DEFERRED:
                        return code
                    if rtx >= 0:
                        a_lk, a_f, a_seq, a_ts, a_size = dest, f, rtx, t, ff[f, F_PKT]
                        a_poff = d_off
                    if code == DONE:
                        snd = f
                else:
                    gi[N_CBR_RCVD] += 1
            elif src < nl + nf:
                f = src - nl
                p0 = fi[f, I_REV_OFF]
                l0 = paths[p0]
                if npend > 0 and (
                    fi[f, I_PENDING] != P_NONE
                    or _blocked(li, l0)
                    or _blocked(li, paths[fi[f, I_FWD_OFF]])
                ):
                    return NEED_ROUND
                if _no_room_call(lf, li, rf, gf, gi, paths, l0, p0, 0):
                    return GROW_LINK
                gf[G_NOW] = t
                gi[G_EVENTS] += 1
                code = _timer(
                    ff, fi, lf, li, rf, ri, hi, ht, gf, gi, rand, paths, fs, fq, pend, nl, f, t
                )
                if code == SEND:  # the flow started
                    snd = f
                elif code != DONE:
                    return code
            elif src < nl + nf + nc:
                c = src - nl - nf
                p0 = ci[c, D_OFF]
                l0 = paths[p0]
                if npend > 0 and _blocked(li, l0):
                    return NEED_ROUND
                if _no_room(lf, li, rf, gf, gi, paths, l0, p0, 0):
                    return GROW_LINK
                gf[G_NOW] = t
                gi[G_EVENTS] += 1
                n = ci[c, D_SENT]
                a_lk, a_f, a_seq, a_ts, a_kind, a_size = l0, c, n, t, KIND_CBR, cf[c, C_SIZE]
                a_poff = p0
                gi[N_CBR_SENT] += 1
                ci[c, D_SENT] = n + 1
                nxt = cf[c, C_START] + (n + 1) / cf[c, C_RATE]
                post, post_t = src, (np.inf if nxt >= cf[c, C_STOP] else nxt)
            else:
                if npend > 0:
                    return NEED_ROUND  # the samples read the windows
                gf[G_NOW] = t
                _sample(ff, fi, lf, li, rf, ri, gf, gi, s_t, s_flow, s_link, t)
                n = gi[G_NSAMP]
                nxt = n * gf[G_SAMPLE_DT]
                if n >= s_t.shape[0]:
                    nxt = np.inf
                elif n == s_t.shape[0] - 1:
                    nxt = t_end  # the last sample is at the end (``_setup.sample_count``)
                post, post_t = src, nxt
        # ---- the admission loop: the packet of the event, then the flow's sends
        lim = -1
        s_lk = -1
        s_off = 0
        if snd >= 0:
            lim = _send_limit(ff, fi, snd)
            s_off = fi[snd, I_FWD_OFF]
            s_lk = paths[s_off]
        while True:
            if a_lk < -1:
                # a data packet reaches its receiver at ``a_now``: at its last link's exit
                # event, or (an early receiver's link, ``J_RX``) when that link admitted it
                rx = paths[a_poff + a_hop - 1] if a_hop > 0 else -1
                ack_now, ets, efwd = _receive(
                    ff, fi, li, ri, hi, ht, gi, fq, nl, rx, a_f, a_seq, a_ts, a_now
                )
                if ack_now:
                    a_poff = -2 - a_lk
                    a_lk, a_seq, a_ts, a_fwd = paths[a_poff], _ack_seq(fi, a_f, a_seq), ets, efwd
                    a_kind, a_hop, a_size = KIND_ACK, 0, ff[a_f, F_ACK]
                else:
                    a_lk = -1
            if a_lk >= 0:
                h = enqueue(
                    lf, li, rf, ri, hi, ht, gf, gi, rand, a_lk, a_now, a_f, a_seq, a_ts, a_fwd,
                    a_kind, a_poff + a_hop, a_size,
                )  # fmt: skip
                if a_kind == KIND_DATA and a_hop == 0:
                    _sent(ff, fi, hi, ht, gi, fs, fq, nl, a_f, a_seq, t)
                if h >= 0.0:
                    # handed on by an eager link: admitted at the next hop at its exit time
                    a_hop += 1
                    a_lk = paths[a_poff + a_hop]
                    a_now = h
                    continue
                a_lk = -1
            if snd < 0 or fi[snd, I_NXT] - fi[snd, I_UNA] >= lim:
                break
            seq = fi[snd, I_NXT]
            code = _send_check(fi, lf, li, rf, gf, gi, rand, paths, s_lk, snd, seq)
            if code != DONE:
                if r_f < 0:  # (a pending entry stays on the list as it is)
                    _push(ff, fi, lf, li, gf, gi, paths, pend, snd, P_SEND, t, False)
                return code
            a_lk, a_now, a_f, a_seq, a_ts, a_fwd = s_lk, t, snd, seq, t, 0.0
            a_kind, a_hop, a_size, a_poff = KIND_DATA, 0, ff[snd, F_PKT], s_off
            fi[snd, I_NXT] = seq + 1
        if r_f >= 0:  # the pending entry is done
            fi[r_f, I_PENDING] = P_NONE
            gi[G_PEND_I] += 1
        if post >= 0:
            set_key(hi, ht, gi, post, post_t)
