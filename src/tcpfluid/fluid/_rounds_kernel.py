"""The round model's bottleneck over one round, compiled (docs/round-model.md,
docs/round-model-unequal-rtt.md): the standing backlog, the burst, the losses, the RTTs
and the feedback lag of one round of one round-clock class over its S scenarios
(:func:`_round_rule`), in rows of S values (:class:`ClassKernel`, rows named below).
Scalar code whose IEEE operations are NumPy's in the same order (``error_model="numpy"``,
no ``fastmath``). With cross traffic the engine writes part 2's inputs between parts."""

from __future__ import annotations

import sys
from functools import partial
from typing import Any

import numpy as np
from numba import njit, types
from numpy.typing import NDArray

from .. import _numba_cache
from .._queueing_kernel import red_average, red_probability
from ..algorithms._common import backlog
from ..algorithms._jit import JIT_OPTIONS, _resolved, configure_cache, helpers

FloatArray = NDArray[np.float64]

# Vegas's backlog estimate Δ is compiled into this module's kernels
_numba_cache.embeds(sys.modules[__name__], backlog)
configure_cache()

# ---- rows of a class's values (each S values, one per scenario)
#: what the available rate sets (:meth:`RoundEngine._rates`): μa, μa d, 1/μa, the flows'
#: share of the buffer; the link rate μ; the base RTT d and d/2; the ACK-path rate where
#: it is below μa (inf elsewhere)
MU_A, MUD, INV_MU, B_TCP, MU, D, HALF_D, MU_R = range(8)
#: state: the ACK train's rate, the backlog the last round left and that round's μa
ACK_RATE, CARRIED, MU_PREV = 8, 9, 10
#: inputs of part 2 (cross traffic): the queue memory's keep, carried and dropped (0/1),
#: the ACK train's runs' queue (:func:`~._rounds_physics.train_clump_queue`)
KEEP, MEM_CARRIED, DROPPED, CLUMPED = 11, 12, 13, 14
#: part 1's results: the backlog at the round's start, the window that queues nothing,
#: the standing backlog at the round's end (first scenario; several classes' ``q_end``)
QF0, PIPE, Q_END = 15, 16, 17
#: the round's backlogs (min, mean, max, standing at its end; capped at the buffer), the
#: standing one the packets see (with cross traffic, the backlog relaxing to it), the
#: overflow, the round's duration, the RTTs the law reads (min, mean, max, forward min,
#: forward mean; with the feedback lag)
Q_MIN, Q_MEAN, Q_MAX, Q_1, SEEN_1, LOST, DURATION = 18, 19, 20, 21, 22, 23, 24
RTTS = 25
#: the ACK-path backlogs (ACK-path bottleneck: min, mean, max, standing)
QR = 30
#: the clock at the round's end (``t0`` + duration), in one row and the other in turn (so
#: that the row a round writes is never the one its ``t0`` is)
CLOCK = 34
#: the fraction of the class's packets of the round that RED lets into the queue (1 without
#: RED; :func:`red_drops`)
ADMIT = 36
#: the RTTs of the last ``lag + 1`` rounds (5 rows each)
HISTORY = 37

# ---- a class's settings and counters (int64)
#: the RTT model (0 average, 1 last, 2 fluid), the ACK train (spread_train), a finite
#: buffer, the ACK-path bottleneck (its queues given), cross traffic, the feedback lag,
#: the rounds stepped, whether part 2 has the queue memory and the runs' queue, whether
#: another class sends (part 1's result), the class, the number of classes, RED
MODEL, SPREAD, FINITE, REVERSE, CROSS, LAG, ROUNDS, MEMORY, CLUMPS, OTHERS = range(10)
CLASS, CLASSES, RED = 10, 11, 12
MODELS = {"average": 0, "last": 1, "fluid": 2}

# ---- RED (the engine's one array: :func:`red_drops` updates the average
# and the probability at a round's start, every class's rule the queue held from its round)
#: the averaged queue, the time and the queue (link packets) of its last update, the
#: parameters w_q, min_th, max_th, max_p, gentle (0/1), and the last round's probability
RED_AVG, RED_T, RED_Q, RED_WQ, RED_MIN, RED_MAX, RED_MAXP, RED_GENTLE, RED_P = range(9)


def _mx(a: float, b: float) -> float:
    """``numpy.maximum`` of two floats (NaN if either is NaN)."""
    return a if (a >= b or a != a) else b


def _mn(a: float, b: float) -> float:
    """``numpy.minimum`` of two floats (NaN if either is NaN)."""
    return a if (a <= b or a != a) else b


def _backlog_rule(w: Any, m: Any) -> float:
    """:func:`~._rounds_physics.shared_backlog` on arrays ``w``, ``m`` (Newton's method from
    ``max(0, ΣW − max pipe)``, left of the root: the iterates increase to it)."""
    fill, total, widest, live = 0.0, 0.0, 0.0, 0
    for k in range(w.shape[0]):
        if w[k] > 0.0:
            fill += w[k] / m[k]
            total += w[k]
            widest = m[k] if live == 0 or m[k] > widest else widest
            live += 1
    if live == 0 or fill <= 1.0:
        return 0.0
    q = total - widest
    q = q if q > 0.0 else 0.0
    for _ in range(200):
        f, df = -1.0, 0.0
        for k in range(w.shape[0]):
            if w[k] > 0.0:
                r = w[k] / (m[k] + q)
                f += r
                df += r / (m[k] + q)
        step = f / df
        q += step
        if step <= 1e-13 * (1.0 + q):
            break
    return q


def _round_rule(
    R: Any, cfg: Any, order: Any, d_class: Any, w_all: Any, p_all: Any, red: Any, ws: Any,
    t0: Any, w0_s: Any, z_s: Any, w1_s: Any, part: int,
) -> None:  # fmt: skip
    """One round of a class: ``part`` 1 the standing backlog at its start (``ws``: every
    class's window in flight), 2 the rest, 3 both; ``w0_s``, ``z_s``, ``w1_s``: the class's
    windows at the start, growth and windows at the end, per scenario."""
    S = R.shape[1]
    admit = R[ADMIT, 0]  # (RED's drops are taken as the packets arrive: the rest queue)
    if part & 1:
        _standing(R, cfg, order, d_class, w_all, p_all, ws, w0_s, z_s, w1_s, S, admit)
    if part & 2:
        if cfg[REVERSE] == 0:
            _forward(R, cfg, z_s, w0_s, w1_s, S, admit)
        if cfg[FINITE]:
            _overflow(R, S)
        if cfg[CROSS] and cfg[REVERSE] == 0:
            for s in range(S):
                R[MU_PREV, s] = R[MU_A, s]
                if cfg[FINITE]:
                    R[CARRIED, s] = _mn(R[SEEN_1, s], R[B_TCP, s])
                else:
                    R[CARRIED, s] = R[SEEN_1, s]
                R[SEEN_1, s] = R[CARRIED, s]
        else:
            for s in range(S):
                R[SEEN_1, s] = R[Q_1, s]
        _rtts(R, cfg, S)
        clock = CLOCK + (cfg[ROUNDS] & 1)  # (the rounds stepped, this one included)
        for s in range(S):
            R[clock, s] = t0[s] + R[DURATION, s]
        if cfg[RED]:  # the round's mean backlog, held until the next event
            red[RED_Q] = R[Q_MEAN, 0] * (R[MU, 0] / R[MU_A, 0])


def _standing(
    R: Any, cfg: Any, order: Any, d_class: Any, w_all: Any, p_all: Any, ws: Any,
    w0_s: Any, z_s: Any, w1_s: Any, S: int, admit: float,
) -> None:  # fmt: skip
    """Part 1: the ACK train's rate capped at μa; the backlog at the round's start, ``pipe``
    and the standing backlog at its end (one class ``max(0, W − μa d)``, several the shared
    backlog), of the fraction ``admit`` of the class's windows that RED lets in."""
    if cfg[SPREAD]:
        for s in range(S):
            R[ACK_RATE, s] = _mn(R[ACK_RATE, s], R[MU_A, s])
    others = False
    if cfg[CLASSES] > 1:
        for k in range(1, cfg[CLASSES]):
            w_all[k] = ws[order[k]]
            others = others or w_all[k] > 0.0
    cfg[OTHERS] = 1 if others else 0
    if not others:
        for s in range(S):
            R[QF0, s] = _mx(admit * w0_s[s] - R[MUD, s], 0.0)
            R[PIPE, s] = R[MUD, s]
        R[Q_END, 0] = _mx(admit * w1_s[0] - R[MUD, 0], 0.0)
        return
    mu_a = R[MU_A, 0]
    for k in range(cfg[CLASSES]):
        p_all[k] = mu_a * d_class[order[k]]
    w_all[0] = admit * w0_s[0]
    q0 = _backlog_rule(w_all, p_all)
    R[QF0, 0] = q0
    q1 = q0
    if z_s[0] != 0.0:
        w_all[0] = admit * w1_s[0]
        q1 = _backlog_rule(w_all, p_all)
    R[PIPE, 0] = admit * w1_s[0] - q1
    R[Q_END, 0] = q1


def _forward(R: Any, cfg: Any, z_s: Any, w0_s: Any, w1_s: Any, S: int, admit: float) -> None:
    """The forward queue over the round (burst, ACK train and its runs, queue memory;
    docs/round-model.md) of the fraction ``admit`` of the windows that RED lets in, and the
    ACK rate of the next round."""
    model, memory, clumps = cfg[MODEL], cfg[MEMORY] != 0, cfg[CLUMPS] != 0
    slow = False
    if cfg[SPREAD] and model != 2:
        for s in range(S):
            slow = slow or R[ACK_RATE, s] < R[MU_A, s]
    rising = False
    if memory:
        for s in range(S):
            rising = rising or R[DROPPED, s] != 0.0
    for s in range(S):
        qf0 = R[QF0, s]
        w0, z, w1 = admit * w0_s[s], admit * z_s[s], admit * w1_s[s]
        qf1 = _mx(w1 - R[PIPE, s], 0.0)
        keep = 0.0
        if memory:
            keep = R[KEEP, s]
            carried = R[MEM_CARRIED, s]
            fresh = 1.0 - keep
            qf1 = keep * carried + fresh * qf1
            qf0 = carried if R[DROPPED, s] != 0.0 else keep * carried + fresh * qf0
        if model == 2:
            R[Q_MIN, s] = R[Q_MEAN, s] = R[Q_MAX, s] = R[Q_1, s] = qf1
            continue
        zq = z
        if slow:
            a, mu_a = R[ACK_RATE, s], R[MU_A, s]
            spare = w0 * (mu_a / a - 1.0)
            zq = _mx(z - (spare if spare > 0 else 0.0), 0.0)
            grown = w1 / w0 if w0 > 0 else 1.0
            R[ACK_RATE, s] = _mn(a * grown, mu_a)
        clumped = R[CLUMPED, s] if clumps else 0.0
        if memory:
            zq = (1.0 - keep) * zq
            if clumps:
                clumped = (1.0 - keep) * clumped
        q_max = qf0 + zq
        q_mean = q_max if model == 1 else qf0 + 0.5 * zq
        if clumps:
            q_mean = _mx(q_mean, qf0 + (2.0 * clumped if model == 1 else clumped))
            q_max = _mx(q_max, qf0 + 2.0 * clumped)
        if rising and R[DROPPED, s] != 0.0:
            q_max = _mx(qf0, qf1) + zq
            q_mean = qf1 + zq if model == 1 else 0.5 * (qf0 + qf1) + 0.5 * zq
        R[Q_MIN, s], R[Q_MEAN, s], R[Q_MAX, s], R[Q_1, s] = qf0, q_mean, q_max, qf1
    if cfg[CROSS]:
        # losses and the round's duration follow the standing backlog of W1 (the flows
        # deliver at most μa per second); the backlog relaxing towards it is what the
        # packets see and what the next round starts from
        for s in range(S):
            R[SEEN_1, s] = R[Q_1, s]
            R[Q_1, s] = _mx(admit * w1_s[s] - R[PIPE, s], 0.0)


def _overflow(R: Any, S: int) -> None:
    """The packets lost beyond the flows' share of the buffer; the backlogs capped at it."""
    lost_any = False
    for s in range(S):
        lost = _mx(_mx(R[Q_MAX, s], R[Q_1, s]) - R[B_TCP, s], 0.0)
        R[LOST, s] = lost
        lost_any = lost_any or lost != 0.0
    if lost_any:
        for s in range(S):
            b = R[B_TCP, s]
            for row in (Q_MIN, Q_MEAN, Q_MAX, Q_1):
                R[row, s] = _mn(R[row, s], b)


def _rtts(R: Any, cfg: Any, S: int) -> None:
    """The round's duration and its packets' RTTs; with the feedback lag those of ``lag``
    rounds ago, plus the round-ending ACK of this round's first packet in min and max."""
    lag, k = cfg[LAG], cfg[ROUNDS]
    cfg[ROUNDS] = k + 1
    now = HISTORY + 5 * (k % (lag + 1))
    past = HISTORY + 5 * (max(k - lag, 0) % (lag + 1))
    for s in range(S):
        d, inv_mu, half_d = R[D, s], R[INV_MU, s], R[HALF_D, s]
        if cfg[REVERSE]:
            mu_r, mu_a = R[MU_R, s], R[MU_A, s]
            R[DURATION, s] = d + R[QR + 3, s] / mu_r + R[Q_1, s] / mu_a
            for i in range(3):
                R[now + i, s] = d + R[QR + i, s] / mu_r + R[Q_MIN + i, s] / mu_a
            R[now + 3, s] = half_d + R[Q_MIN, s] * inv_mu
            R[now + 4, s] = half_d + R[Q_MEAN, s] * inv_mu
        else:
            R[DURATION, s] = d + R[Q_1, s] * inv_mu
            for i in range(3):
                R[now + i, s] = d + R[Q_MIN + i, s] * inv_mu
            # the whole queueing delay is on the forward path
            R[now + 3, s] = R[now, s] - half_d
            R[now + 4, s] = R[now + 1, s] - half_d
        if lag:
            R[RTTS, s] = _mn(R[past, s], R[now, s])
            R[RTTS + 1, s] = R[past + 1, s]
            R[RTTS + 2, s] = _mx(R[past + 2, s], R[now, s])
            R[RTTS + 3, s] = _mn(R[past + 3, s], R[now + 3, s])
            R[RTTS + 4, s] = R[past + 4, s]
        else:
            for i in range(5):
                R[RTTS + i, s] = R[now + i, s]


def _growth_rule(
    incr: Any, acks: Any, cap: Any, w0: Any, act: Any, off: bool, z: Any, w1: Any
) -> None:
    """A round's growth through per-ACK increments, per flow: ``z = incr × acks`` within
    ``[0, cap − w0]`` (0 for an inactive flow when ``off``) and ``w1 = w0 + z`` (written)."""
    for i in range(w0.shape[0]):
        g = _mx(_mn(incr[i] * acks[i], cap[i] - w0[i]), 0.0)
        if off and not act[i]:
            g = 0.0
        z[i] = g
        w1[i] = w0[i] + g


def _totals_rule(
    delivered: Any, rate: Any, elapsed: Any, carried: Any, rate_cross: Any, dt: float,
    g: Any, d_flow: Any, q_mu: float, rates: bool,
) -> None:  # fmt: skip
    """The bottleneck's output over ``dt`` seconds (several classes): into ``delivered``,
    ``carried`` and ``elapsed``; then, when ``rates``, ``g / (d_flow + q_mu)`` into ``rate``."""
    if dt > 0.0:
        for i in range(delivered.shape[0]):
            delivered[i] += rate[i] * dt
        for s in range(rate_cross.shape[0]):
            carried[s] += rate_cross[s] * dt
        for s in range(elapsed.shape[0]):
            elapsed[s] += dt
    if rates:
        for i in range(rate.shape[0]):
            rate[i] = g[i] / (d_flow[i] + q_mu)


def _sample_rule(
    base: Any, fwd: Any, act: Any, cwnd0: Any, out: Any, own_mins: bool, own_rtts: bool,
    rtts: Any, seen_min: Any, off: bool, w1: Any, acks: Any, delta: Any,
) -> None:  # fmt: skip
    """A class's :class:`~tcpfluid.algorithms.base.RoundSample` into the rows of ``out``
    (docs/round-model.md): running minima ``base``, ``fwd`` updated at the active flows, the
    RTTs ``rtts`` (rows min, mean, max, forward min, forward mean; a column per scenario or
    per flow), ``seen_min``, ``w1`` and ``acks``; rows 1, 7 only when ``own_mins``, rows 2,
    3, 4, 6 only when ``own_rtts``; Δ into ``delta`` unless it is empty."""
    m = w1.shape[0] // rtts.shape[1]  # (the flows of one column)
    with_delta = delta.shape[0] != 0
    for i in range(w1.shape[0]):
        j = i if m == 1 else i // m
        idle = off and not act[i]
        b = _mn(base[i], np.inf if idle else seen_min[j])
        f = _mn(fwd[i], np.inf if idle else rtts[3, j] + (seen_min[j] - rtts[0, j]))
        base[i], fwd[i] = b, f
        if off:
            b = b if np.isfinite(b) else rtts[0, j]
            f = f if np.isfinite(f) else rtts[3, j]
        if own_mins:
            out[1, i], out[7, i] = b, f
        out[0, i] = cwnd0[i] if idle else w1[i]
        out[5, i] = acks[i]
        if own_rtts:
            out[2, i], out[3, i], out[4, i] = rtts[1, j], seen_min[j], rtts[2, j]
            out[6, i] = rtts[4, j]
        if with_delta:
            delta[i] = backlog(w1[i], b, rtts[1, j])


def red_drops(
    red: FloatArray, R: FloatArray, t0: float, debt: FloatArray, w1: FloatArray, total: float
) -> FloatArray | None:
    """RED's drops of a class's round starting at ``t0`` (one scenario; ``red``, ``R``: the
    engine's RED row and the class's rows), taken as its packets arrive, before they queue:
    the averaged queue updated to ``t0`` from the backlog held since the last event,
    ``avg ← q + (avg − q)(1 − w_q)^(μ Δt)``, then its probability ``p``; flow ``j``'s expected
    drops ``p w1_j`` accumulate in ``debt`` (in place) and each whole packet is dropped. The
    share of the class's ``total`` packets let in goes to row ``ADMIT``. Returns the flows'
    whole dropped packets (``None``: none)."""
    arrivals = R[MU, 0] * max(t0 - red[RED_T], 0.0)
    red[RED_AVG] = red_average(red[RED_AVG], red[RED_Q], red[RED_WQ], arrivals)
    red[RED_T] = t0
    p = red[RED_P] = red_probability(
        red[RED_AVG], red[RED_MIN], red[RED_MAX], red[RED_MAXP], red[RED_GENTLE] != 0.0, 1.0
    )
    R[ADMIT] = 1.0
    if p <= 0.0:
        return None
    debt += p * w1
    whole = np.floor(debt)
    debt -= whole
    if not whole.any():  # (no whole packet dropped: no loss, as without RED)
        return None
    R[ADMIT] = max(1.0 - float(whole.sum()) / total, 0.0) if total > 0.0 else 1.0
    return whole


#: the compiled :func:`_round_rule` (made on first use)
_RULE: Any = None


def _compiled() -> Any:
    """The compiled round rule, its helpers compiled into it (on first use)."""
    global _RULE
    if _RULE is None:
        # (one namespace: each helper compiled once, resolving the others' compiled versions)
        names = helpers(
            (backlog, _mx, _mn, _overflow, _rtts, _standing, _forward),
            {**globals(), "_backlog_rule": BACKLOG},
        )
        rule = _resolved(_round_rule, names)
        f8, i8, flag = types.float64, types.int64, types.boolean
        vec = types.Array(f8, 1, "A", readonly=True)
        c1, c2 = types.Array(f8, 1, "C"), types.Array(f8, 2, "C")
        sig = types.void(
            c2, types.Array(i8, 1, "C"), types.Array(types.intp, 1, "C"), c1, c1, c1, c1, vec,
            vec, vec, vec, vec, i8,
        )  # fmt: skip
        _RULE = njit(sig, **JIT_OPTIONS)(rule)
        rw, bools = types.Array(f8, 1, "A"), types.Array(flag, 1, "A", readonly=True)
        sig = types.void(vec, vec, vec, vec, bools, flag, rw, rw)
        RULES["growth"] = _entry(njit(sig, **JIT_OPTIONS)(_resolved(_growth_rule, names)))
        sig = types.void(c1, c1, c1, c1, vec, f8, vec, vec, f8, flag)
        RULES["totals"] = _entry(njit(sig, **JIT_OPTIONS)(_totals_rule))
        # (every array C-contiguous: the class's views of the engine's arrays are slices)
        sig = types.void(
            c1, c1, types.Array(flag, 1, "C"), c1, c2, flag, flag, c2, c1, flag, c1, c1, c1
        )
        RULES["sample"] = _entry(njit(sig, **JIT_OPTIONS)(_resolved(_sample_rule, names)))
    return _RULE


def _entry(fn: Any) -> Any:
    """The entry point of compiled ``fn`` of one signature (no dispatch per call), or ``fn``
    when Numba does not compile."""
    overloads = getattr(fn, "overloads", None)
    if overloads and len(overloads) == 1:
        (overload,) = overloads.values()
        return overload.entry_point
    return fn


#: the compiled :func:`_growth_rule`, :func:`_totals_rule` and :func:`_sample_rule` by
#: name (:func:`rule`)
RULES: dict[str, Any] = {}


def rule(name: str) -> Any:
    """The compiled rule ``name`` of :data:`RULES` (``"growth"``, ``"totals"``, ``"sample"``)."""
    if not RULES:
        _compiled()
    return RULES[name]


#: the compiled :func:`_backlog_rule` (on first call; the round rule calls it, and
#: :func:`~._rounds_physics.account`)
BACKLOG = njit(**JIT_OPTIONS)(_backlog_rule)


class ClassKernel:
    """A round-clock class's rows of values and the compiled round rule bound to them."""

    def __init__(
        self, S: int, c: int, K: int, d: FloatArray, d_class: FloatArray, mu: FloatArray,
        red: FloatArray | None, *, model: str, spread: bool, finite: bool, reverse: bool,
        cross: bool, lag: int,
    ) -> None:  # fmt: skip
        self.R = R = np.zeros((HISTORY + 5 * (lag + 1), S))
        R[D], R[HALF_D], R[MU], R[MU_PREV] = d, 0.5 * d, mu, mu
        R[ACK_RATE], R[ADMIT] = np.inf, 1.0
        self.cfg = cfg = np.zeros(13, dtype=np.int64)
        cfg[MODEL], cfg[SPREAD], cfg[FINITE] = MODELS[model], spread, finite
        cfg[REVERSE], cfg[CROSS], cfg[LAG], cfg[CLASS], cfg[CLASSES] = reverse, cross, lag, c, K
        cfg[RED] = red is not None
        order = np.array([c, *(k for k in range(K) if k != c)], dtype=np.intp)
        self.w_all, self.p_all = np.zeros(K), np.zeros(K)
        self.d_class = np.ascontiguousarray(d_class, dtype=np.float64)
        args = (R, cfg, order, self.d_class, self.w_all, self.p_all)
        self._call = partial(
            _entry(_compiled()), *args, np.zeros(RED_P + 1) if red is None else red
        )
        #: the rows the engine reads: the backlogs (capped), as the packets see them, the
        #: RTTs the law reads
        self.qf = (R[Q_MIN], R[Q_MEAN], R[Q_MAX], R[Q_1])
        self.seen = (R[Q_MIN], R[Q_MEAN], R[Q_MAX], R[SEEN_1])
        self.rtts = R[RTTS : RTTS + 5]
        self.rtt_min, self.rtt_mean = R[RTTS], R[RTTS + 1]
        self.lost = R[LOST] if finite else None
        self.duration = R[DURATION]
        #: the clock at the end of round ``k`` (from 0): ``clocks[(k + 1) % 2]``
        self.clocks = (R[CLOCK], R[CLOCK + 1])

    def __call__(
        self, ws: FloatArray, t0: FloatArray, w0_s: FloatArray, z_s: FloatArray,
        w1_s: FloatArray, part: int,
    ) -> None:  # fmt: skip
        """Run ``part`` of the class's round starting at ``t0`` (float64 arrays)."""
        self._call(ws, t0, w0_s, z_s, w1_s, part)

    def others(self) -> tuple[FloatArray, FloatArray] | None:
        """After part 1: every class's windows in flight and pipes (this class first), or
        ``None`` when no other class sends."""
        return (self.w_all, self.p_all) if self.cfg[OTHERS] else None
