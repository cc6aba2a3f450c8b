"""The round model's physics in NumPy, functions of one round (docs/round-model.md); the
bottleneck over a round is compiled (:mod:`._rounds_kernel`). Each flow's place in a
round's burst is physics both fluid engines read: :func:`placed_flows` and
:func:`place_offset` ("Places in the burst")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import ArrayLike, NDArray

from .. import _numba_cache
from ..algorithms._jit import JIT_OPTIONS as _JIT
from ..algorithms.base import ControlLaw, RoundSample
from ..algorithms.mixed import each_flow
from ..scenarios.reduction import same_clock
from . import _rounds_kernel as rk
from ._rounds_kernel import BACKLOG

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]

_numba_cache.configure()


def shared_backlog(windows: Any, pipes: Any) -> float:
    """The standing backlog ``q`` (packets) of window-limited flows sharing a FIFO queue.

    Class ``k`` holds ``windows[k]`` packets in flight over a pipe of ``pipes[k] = μa d_k``
    packets; ``q`` solves ``Σ W_k / (pipes_k + q) = 1`` (``0`` when the windows fit).

    Examples
    --------
    >>> shared_backlog([30.0], [20.0])  # one class: W - mu d
    10.0
    >>> round(shared_backlog([10.0, 20.0], [10.0, 30.0]), 9)
    10.0
    """
    w = np.asarray(windows, dtype=np.float64)
    m = np.asarray(pipes, dtype=np.float64)
    if w.shape != m.shape or w.ndim != 1:
        raise ValueError(
            f"windows and pipes must be two lists of one value per class, got {w.shape} "
            f"and {m.shape}"
        )
    return float(BACKLOG(w, m))


def _standing_rev(
    w: FloatArray, mu_a: FloatArray, mu_r: FloatArray, b_r: FloatArray, d: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """ACK backlog and forward backlog of a window ``w`` with an ACK-path bottleneck."""
    with np.errstate(invalid="ignore"):
        qr = np.clip(w - mu_r * d, 0.0, b_r)
        qr = np.where(np.isfinite(mu_r), qr, 0.0)
        delay_r = np.where(np.isfinite(mu_r), qr / mu_r, 0.0)
    return qr, np.maximum(w - mu_a * (d + delay_r), 0.0)


#: a round's bottleneck backlog (link packets of the flows): at its first packet (min), on
#: average over its packets (mean), at its last packet (max) and at its end (standing)
Queues = tuple[FloatArray, FloatArray, FloatArray, FloatArray]


class QueueMemory(NamedTuple):
    """The backlog a round starts from with cross traffic, per scenario (docs/round-model.md,
    "Queue memory"): ``keep = 1 − μa/μ``, the backlog ``carried`` from the last round (at
    the current rate) and the scenarios whose available rate fell (``dropped``)."""

    keep: FloatArray
    carried: FloatArray
    dropped: NDArray[np.bool_]


def queue_memory(
    mu_a: FloatArray, mu: FloatArray, carried: FloatArray, mu_prev: FloatArray
) -> QueueMemory:
    """The :class:`QueueMemory` of a round at available rate ``mu_a`` after one that ended
    with backlog ``carried`` at ``mu_prev`` (docs/round-model.md, "Queue memory")."""
    return QueueMemory(1.0 - mu_a / mu, carried * (mu_a / mu_prev), mu_a < mu_prev)


def train_clump_queue(
    z: FloatArray, w1: FloatArray, pipe: FloatArray, clumps: FloatArray
) -> FloatArray:
    """Mean backlog (packets) that a round's growth ``z`` builds inside an ACK train made of
    runs, ``z (2m − 1)/(2 clumps)``, at most ``z/2`` (docs/round-model.md, "Runs of the ACK
    train"; derived in ``validation/test_train_clumps.py``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rho0 = np.minimum(clumps / pipe, 1.0)
        idle = 1.0 - np.minimum(w1 / pipe, 1.0)
        # mean number of original runs per run (>= 1; a full round is one run)
        m = np.maximum((1.0 - rho0) / idle, 1.0)
        q = z * (2.0 * m - 1.0) / (2.0 * clumps)
    return np.where((clumps > 0.0) & (idle > 0.0), np.minimum(q, 0.5 * z), 0.5 * z)


def reverse_queues(
    qr0: FloatArray,
    qf0: FloatArray,
    z_s: FloatArray,
    w1_s: FloatArray,
    mu_a: FloatArray,
    mu_r: FloatArray,
    b_r: FloatArray,
    d: FloatArray,
    rev_bott: NDArray[np.bool_],
    model: str,
) -> tuple[Queues, Queues]:
    """ACK-path and forward queues over a round (ACK-path bottleneck, document 003): the
    burst joins the ACK queue where the reverse link is the bottleneck, else the forward one."""
    qr1, qf1 = _standing_rev(w1_s, mu_a, mu_r, b_r, d)
    if model == "fluid":
        return (qr1, qr1, qr1, qr1), (qf1, qf1, qf1, qf1)
    burst_mean = z_s if model == "last" else 0.5 * z_s
    qr_max = np.where(rev_bott, np.minimum(qr0 + z_s, b_r), qr0)
    qr_mean = np.where(rev_bott, np.minimum(qr0 + burst_mean, b_r), qr0)
    qf_max = np.where(rev_bott, qf0, qf0 + z_s)
    qf_mean = np.where(rev_bott, qf0, qf0 + burst_mean)
    return (qr0, qr_mean, qr_max, qr1), (qf0, qf_mean, qf_max, qf1)


def _reverse_start(
    w0: FloatArray,
    w0_s: FloatArray,
    mu_a: FloatArray,
    mu_r: FloatArray,
    b_r: FloatArray,
    d: FloatArray,
    F: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """With an ACK-path bottleneck: the ACK and forward backlogs at a round's start and each
    flow's ACKs (``min(1, μr T/W)`` per packet)."""
    qr0, qf0 = _standing_rev(w0_s, mu_a, mu_r, b_r, d)
    t0 = d + qr0 / mu_r + qf0 / mu_a
    with np.errstate(divide="ignore", invalid="ignore"):
        ack_ratio = np.minimum(1.0, np.where(w0_s > 0, mu_r * t0 / w0_s, 1.0))
    return qr0, qf0, w0 * per_flow(ack_ratio, F)


def ack_path_drops(
    w0: FloatArray,
    acks: FloatArray,
    w1: FloatArray,
    w1_s: FloatArray,
    qr0: FloatArray,
    z_s: FloatArray,
    b_r: FloatArray,
    rev_bott: NDArray[np.bool_],
    F: int,
) -> FloatArray:
    """Each flow's ACKs the ACK-path bottleneck dropped in the round: those beyond ``μr T``
    plus its share (by window) of the burst beyond the ACK buffer ``b_r``."""
    over = np.where(rev_bott, np.maximum(qr0 + z_s - b_r, 0.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(per_flow(w1_s, F) > 0, w1 / per_flow(w1_s, F), 0.0)
    return np.maximum(w0 - acks, 0.0) + share * per_flow(over, F)


#: arrays up to this size are tested by counting (:func:`any_of`): NumPy's ``any`` costs
#: several counts on a few elements, and less than one on many
_COUNTED = 4096


def any_of(x: Any) -> bool:
    """Whether an element of array ``x`` is non-zero (``x.any()``)."""
    if x.size == 1:  # (one scenario's value: the array's truth)
        return bool(x)
    return bool(np.count_nonzero(x)) if x.size <= _COUNTED else bool(x.any())


def all_of(x: Any) -> bool:
    """Whether every element of array ``x`` is non-zero (``x.all()``)."""
    if x.size == 1:
        return bool(x)
    return np.count_nonzero(x) == x.size if x.size <= _COUNTED else bool(x.all())


def per_flow(x: Any, m: int) -> Any:
    """A per-scenario array (S,) repeated over each scenario's ``m`` flows (S × m,)."""
    return np.repeat(x, m) if m > 1 else x


def by_scenario(x: Any, S: int, m: int) -> Any:
    """A per-flow array (S × m,) as a view (S, m) (itself when ``m`` is 1)."""
    return x.reshape(S, m) if m > 1 else x


def across_flows(x: Any, m: int) -> Any:
    """A per-scenario array (S,) shaped to broadcast over each scenario's ``m`` flows."""
    return x[:, None] if m > 1 else x


def per_scenario(x: FloatArray, S: int, m: int) -> FloatArray:
    """The sum over each scenario's ``m`` flows of a per-flow array (S × m,) -> (S,)."""
    return x.reshape(S, m).sum(axis=1) if m > 1 else x


def growth_shares(lost: ArrayLike, z: FloatArray, w: FloatArray) -> FloatArray:
    """``drop_share="growth"``: each group's overflow ``lost`` shared among its flows first in
    proportion to their growth ``z`` up to its total, the rest in proportion to the windows
    ``w`` (the groups' flows one group after another)."""
    lost_g = np.asarray(lost, dtype=np.float64).reshape(-1, 1)
    z_g = z.reshape(lost_g.shape[0], -1)
    w_g = w.reshape(z_g.shape)
    z_tot = z_g.sum(axis=1, keepdims=True)
    w_tot = w_g.sum(axis=1, keepdims=True)
    take = np.minimum(lost_g, z_tot)
    on_z = take > 0.0
    out = z_g * np.divide(take, z_tot, out=np.zeros_like(take), where=on_z)
    rest = lost_g - take
    on_w = (rest > 0.0) & (w_tot > 0.0)
    out = out + w_g * np.divide(rest, w_tot, out=np.zeros_like(rest), where=on_w)
    return out.reshape(z.shape)


def placed_flows(
    start_s: NDArray[np.float64],
    base_rtt_s: NDArray[np.float64],
    init_cwnd: NDArray[np.float64],
    spacing_s: NDArray[np.float64],
) -> tuple[NDArray[np.bool_], Any]:
    """The flows with places in the rounds' burst and the burst's cycles of one scenario
    (arrays of its flows), or of each scenario (rows of ``(scenarios, flows)`` arrays;
    docs/round-model.md, "Places in the burst"): at least two flows that start first,
    together, on the first one's round clock; cycles: its initial window (>= 1 packet)
    where every placed flow's packets reach the bottleneck spaced (``spacing_s`` > 0: an
    access link slower than the sender, so the flows' first packets come before any
    flow's second), else 1 (each flow's initial window arrives as one run)."""
    first = start_s == start_s.min(axis=-1, keepdims=True)
    j = np.argmax(first, axis=-1)[..., None]
    d_j = np.take_along_axis(base_rtt_s, j, axis=-1)
    placed = first & same_clock(base_rtt_s, d_j)
    placed &= np.count_nonzero(placed, axis=-1, keepdims=True) >= 2
    cycles = np.maximum(np.take_along_axis(init_cwnd, j, axis=-1)[..., 0], 1.0)
    spaced = np.all((spacing_s > 0.0) | ~placed, axis=-1)
    cycles = np.where(spaced, cycles, 1.0)
    return placed, (float(cycles) if cycles.ndim == 0 else cycles)


#: the retransmission timer's ceiling, s (RFC 6298's 60 s; the packet simulator's default)
MAX_RTO_S = 60.0
#: the retransmission timer before the first RTT sample, s (RFC 6298 §2.1; the packet
#: simulator's default ``initial_rto_s``)
INITIAL_RTO_S = 1.0
#: the retransmission timer's floor, s (ns-2's ``minrto_``; the packet simulator's default
#: ``min_rto_s``, the hybrid model's)
MIN_RTO_S = 0.2
#: duplicate ACKs that trigger a fast retransmit (RFC 5681), as the packet simulator counts
DUPACK_THRESHOLD = 3


def start_lockout(
    start_s: NDArray[np.float64],
    base_rtt_s: NDArray[np.float64],
    buffer_pkts: float,
    init_cwnd: NDArray[np.float64],
    spacing_s: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """One scenario's flows whose whole first window is lost at a simultaneous start: the
    placed flows (:func:`placed_flows`) with the first ``buffer_pkts + 1`` packets to reach
    the bottleneck ahead of them (docs/round-model.md, "Lock-out at a simultaneous start"):
    each placed flow's first packet ahead of any flow's second where they come spaced
    (several cycles), else each flow's initial window as one run, in the flows' order."""
    placed, cycles = placed_flows(start_s, base_rtt_s, init_cwnd, spacing_s)
    if not math.isfinite(buffer_pkts):
        return np.zeros(start_s.size, dtype=bool)
    own = np.where(placed, 1.0 if cycles > 1.0 else np.maximum(init_cwnd, 1.0), 0.0)
    ahead = np.cumsum(own) - own  # the packets of the placed flows before each one's first
    return placed & (ahead >= math.floor(buffer_pkts) + 1)


@njit(inline="always", **_JIT)
def backed_off(rto_s, floor_s, max_rto_s):  # type: ignore[no-untyped-def]
    """The retransmission timer after a timeout of a timer ``rto_s``, s: twice it, at least
    ``floor_s``, at most ``max_rto_s`` (RFC 6298 §5.5; a NaN stays NaN). Both engines'
    backoff: :func:`timer_retransmissions`, :func:`~._hybrid_kernel._loss_timer`."""
    m = 2.0 * rto_s
    m = floor_s if (floor_s >= m or floor_s != floor_s) else m
    return m if (m <= max_rto_s or m != m) else max_rto_s


def sender_dupacks(fine: ArrayLike) -> FloatArray:
    """Duplicate ACKs a packet sender needs to retransmit, per flow: 1 with Vegas's fine check
    (``fine``: ``law.sender.fine_retransmit``), else :data:`DUPACK_THRESHOLD`."""
    return np.where(fine, 1.0, float(DUPACK_THRESHOLD))


@njit(inline="always", **_JIT)
def sender_rto(srtt_s, spread_s, floor_s):  # type: ignore[no-untyped-def]
    """A packet sender's retransmission timer from its RTT ``srtt_s`` and the spread of its
    round's RTT samples ``spread_s`` (RFC 6298's SRTT + 4 RTTVAR, RTTVAR taken as half the
    spread), at least ``floor_s`` (ns-2's ``minrto_``); scalars or arrays (a NaN wins).
    Both engines' timer at a loss event: :func:`holes_outlast_timer`."""
    return np.maximum(floor_s, srtt_s + 2.0 * spread_s)


@njit(inline="always", **_JIT)
def holes_outlast_timer(window_pkts, lost_pkts, srtt_s, rto_s, dupacks):  # type: ignore[no-untyped-def]
    """Whether a loss event of ``lost_pkts`` holes in a window of ``window_pkts`` ends in a
    retransmission timeout at a NewReno sender: fewer than ``dupacks`` packets behind the
    holes to bring the duplicate ACKs, or the repair of one hole per RTT outlasting the
    timer, ``(lost − 1) srtt > rto`` (RFC 6582's "impatient" timer, restarted at the first
    partial ACK only; ``srtt_s`` the RTT each repair takes: the hybrid's
    :func:`~._hybrid_kernel.repair_rtt`); scalars or arrays. Both fluid engines'
    packet-sender rule (docs/ode-model.md, "Losses as a sender sees them";
    docs/round-model.md, "Finite buffer")."""
    return (window_pkts - lost_pkts < dupacks) | ((lost_pkts - 1.0) * srtt_s > rto_s)


class HoleTimeouts:
    """The round model's ``hole_timeouts``: a loss event ends in a timeout where the packet
    sender's NewReno recovery does (:func:`holes_outlast_timer`, the timer from the round's
    RTT samples, :func:`sender_rto`, at least :data:`MIN_RTO_S`), ``dupacks`` per flow from
    :func:`sender_dupacks`; with ``red_only`` (``hole_timeouts="red"``, the default) only the
    loss events with RED's early drops among their losses (docs/round-model.md, "Mechanism
    switches")."""

    def __init__(self, dupacks: FloatArray, red_only: bool = False) -> None:
        self.dupacks = dupacks
        self.red_only = red_only

    @classmethod
    def of(cls, law: ControlLaw, n: int, red_only: bool = False) -> HoleTimeouts:
        """The rule for the ``n`` flows of ``law`` (its flows tiled over the scenarios)."""
        fine = each_flow(law, lambda lw: getattr(lw, "sender", ControlLaw.sender).fine_retransmit)
        return cls(np.resize(sender_dupacks(fine > 0.0), n), red_only)

    def view(self, ix: slice) -> HoleTimeouts:
        """The rule for the flows ``ix``."""
        return HoleTimeouts(self.dupacks[ix], self.red_only)

    def __call__(
        self, lost: FloatArray, w1: FloatArray, sample: RoundSample, red: FloatArray | None
    ) -> NDArray[np.bool_]:
        """Per flow: whether its losses ``lost`` in its window ``w1`` end in a timeout
        (``red``: the flows' RED early drops among them, ``None``: none)."""
        srtt = np.asarray(sample.rtt_mean, dtype=np.float64)
        rto = sender_rto(srtt, np.asarray(sample.rtt_max) - sample.rtt_min, MIN_RTO_S)
        timed = (lost > 1e-9) & holes_outlast_timer(w1, lost, srtt, rto, self.dupacks)
        if self.red_only:
            timed &= False if red is None else red > 0.0
        return timed


def no_room(queue_pkts: ArrayLike, buffer_pkts: ArrayLike) -> Any:
    """Whether a queue of ``queue_pkts`` leaves no room for a packet behind a buffer of
    ``buffer_pkts``: where a locked-out flow's try is lost (both engines' rule)."""
    return np.asarray(queue_pkts) > np.asarray(buffer_pkts) - 1.0


def timer_retransmissions(
    due: NDArray[np.bool_], full: NDArray[np.bool_], rto: FloatArray, start: FloatArray
) -> NDArray[np.bool_]:
    """The timer retransmissions of the locked-out flows whose timer expires now (``due``):
    one packet each, lost into a queue kept full (``full``), the timer then backed off
    (:func:`backed_off`) and the next try one timer later (``rto``, ``start`` in place).
    Returns the flows whose retransmission gets through (their timer set to 0)."""
    lost = due & full
    for j in np.flatnonzero(lost).tolist():
        rto[j] = backed_off(rto[j], 0.0, MAX_RTO_S)
    start[lost] += rto[lost]
    through = due & ~full
    rto[through] = 0.0
    return through


@njit(inline="always", **_JIT)
def place_offset(ahead_pkts, z_pkts, placed_pkts, total_pkts, ramp_s, cycles):  # type: ignore[no-untyped-def]
    """One placed flow's offsets ``(mean, max, min)`` of its RTTs from the round's, s
    (docs/round-model.md, "Places in the burst"): ``ahead_pkts`` the placed flows' growth
    ahead of it, ``z_pkts`` its own, ``placed_pkts`` all placed flows', ``total_pkts`` every
    flow's, ``ramp_s`` the queue's ramp over the round, ``cycles`` the burst's."""
    per = ramp_s / (cycles * total_pkts) if total_pkts > 0.0 else 0.0
    return (
        per * (ahead_pkts + 0.5 * z_pkts - 0.5 * placed_pkts),
        per * (ahead_pkts + z_pkts - placed_pkts),
        per * ahead_pkts,
    )


@njit(**_JIT)
def place_offsets(zs, placed, total_pkts, ramp_s, cycles, out):  # type: ignore[no-untyped-def]
    """:func:`place_offset` of every placed flow of S scenarios into ``out`` (3, S, m), 0
    where not placed; returns ``out``."""
    S, m = zs.shape
    for s in range(S):
        ours = 0.0
        for j in range(m):
            ours += zs[s, j]
        ahead = 0.0
        for j in range(m):
            a, b, c = 0.0, 0.0, 0.0
            if placed[s, j]:
                a, b, c = place_offset(ahead, zs[s, j], ours, total_pkts[s], ramp_s[s], cycles[s])
            out[0, s, j] = a
            out[1, s, j] = b
            out[2, s, j] = c
            ahead += zs[s, j]
    return out


class BurstPlaces:
    """Each placed flow's place in its class's burst, over the last ``lag + 1`` rounds."""

    def __init__(
        self, placed: NDArray[np.bool_], cycles: FloatArray, S: int, F: int, lag: int, model: str
    ) -> None:
        self.S, self.F, self.lag, self.model = S, F, lag, model
        self.rows = [np.zeros((3, S * F)) for _ in range(lag + 1)]
        self.out = np.zeros((3, S, F))
        self.placed, self.cycles = placed, cycles

    def __call__(
        self, k: int, act: Any, z: FloatArray, R: FloatArray, rtts: FloatArray
    ) -> tuple[FloatArray, FloatArray]:
        """The RTTs each flow's packets see at its place in round ``k``'s burst (the round's
        plus its offsets, with the feedback lag) and the least RTT each one's packets see."""
        S, m, lag = self.S, self.F, self.lag
        placed = self.placed.reshape(S, m)
        grow = np.where(act, z, 0.0).reshape(S, m)
        ramp = (R[rk.Q_MAX] - R[rk.Q_MIN]) * R[rk.INV_MU]  # the round's queue ramp, s
        zs, total = np.where(placed, grow, 0.0), grow.sum(axis=1)
        off = place_offsets(zs, placed, total, ramp[:S], self.cycles, self.out)
        self.rows[k % (lag + 1)][:] = off[[1 if self.model == "last" else 0, 1, 2]].reshape(3, -1)
        read = self.rows[max(k - lag, 0) % (lag + 1)]
        r_min, r_mean, r_max, f_min, f_mean = (per_flow(x, m) for x in rtts)
        mean = r_mean + read[0]
        seen = np.array([r_min, mean, np.maximum(r_max + read[1], r_min), f_min, f_mean + read[0]])
        return seen, np.minimum(r_min + read[2], mean)


class OverflowInRuns:
    """``overflow_in_runs=True`` (one scenario), in place of :func:`round_losses`
    (docs/round-model.md, "Mechanism switches")."""

    def __init__(self, n: int) -> None:
        #: per flow: packets charged, not yet lost; runs lost, taken at the flow's round
        #: end; its run (its growth if over a packet)
        self.share, self.due, self.run = np.zeros(n), np.zeros(n), np.zeros(n)

    def __call__(
        self, eng: RoundEngine, c: int, lost_s: FloatArray | None, w1: FloatArray,
        z: FloatArray, w1_s: FloatArray, others: Any, t0: FloatArray, q_mean: FloatArray,
        mu_a: FloatArray,
    ) -> FloatArray | None:  # fmt: skip
        """Per-flow losses of class ``c``'s round, with :func:`round_losses`' arguments."""
        ix = eng.sel[c]
        self.run[ix] = np.where(np.asarray(z) > 1.0, z, 1e-9)
        if lost_s is not None and bool(np.any(lost_s)):
            w = np.where(eng.active, eng.w_cur - eng.pending, 0.0)
            np.maximum(w, 0.0, out=w)
            w[ix] = w1
            x = w / (eng._flow_d() + float(np.ravel(q_mean)[0]) / float(np.ravel(mu_a)[0]))
            self.share += float(np.sum(lost_s)) * x / x.sum()
            hit = eng.active & (self.share >= self.run - 1e-9)
            self.due[hit] += self.run[hit]
            self.share[hit] -= self.run[hit]
        out = np.zeros(eng.n)
        out[ix] = self.due[ix] * eng.active[ix]
        self.due[ix] = 0.0
        return out if np.any(out > 0.0) else None


def round_losses(
    eng: RoundEngine, c: int, lost_s: FloatArray | None, w1: FloatArray, z: FloatArray,
    w1_s: FloatArray, others: Any, t0: FloatArray, q_mean: FloatArray, mu_a: FloatArray,
) -> FloatArray | None:  # fmt: skip
    """Per-flow losses of class ``c``'s round (full length, zero outside the class): its share
    of the overflow ``lost_s`` and of the other classes' overflows since its last round
    (``drop_share``'s rule, in proportion to the windows in flight, ``others``; a growth
    burst's overflow as whole packets, ``burst_whole_losses``), and RED's
    whole packets (:func:`~._rounds_kernel.red_drops`; docs/round-model-unequal-rtt.md)."""
    ix, S = eng.sel[c], eng.S
    # (the losses in turn carry parts of a packet from round to round, so they are dealt
    # at every round; the other rules only when something overflowed)
    if lost_s is not None and (eng.share_each_round or any_of(lost_s)):
        if eng.K == 1:
            w = w1
        else:
            w = np.where(eng.active, eng.w_cur - eng.pending, 0.0)
            np.maximum(w, 0.0, out=w)
            w[ix] = w1
        if eng.growth is not None:
            g = z if eng.K == 1 else np.where(eng.active, eng.growth, 0.0)
            eng.pending += growth_shares(lost_s, g, w)
            eng.charged = True
        else:
            total = w1_s
            if others is not None:  # (the other classes' windows in flight)
                total = w1_s + sum(w for w in others[0].tolist()[1:] if w > 0.0)
            # (each scenario's total and overflow over its flows, broadcast)
            F = eng.F
            tot = across_flows(np.asarray(total), F)
            grid = np.divide(
                by_scenario(w, S, F), tot, out=by_scenario(np.zeros(eng.n), S, F), where=tot > 0
            )
            grid *= across_flows(lost_s, F)
            mine = grid.reshape(-1)
            if eng.share is not None:
                if eng.burst is not None:  # (the scenarios that lost, at once)
                    # (the standing backlog at the round's end, capped at the buffer, fills it)
                    R = eng.kernels[c].R
                    standing = R[rk.Q_1] >= R[rk.B_TCP] - 1e-9
                    rows = np.flatnonzero(lost_s > 0.0)
                    grid = mine.reshape(S, F)
                    grid[rows] = eng.burst.deal(grid[rows], rows, standing[rows])
                else:
                    for s in range(S):
                        part = slice(s * F, (s + 1) * F)
                        mine[part] = eng.share(mine[part], w[part], s)
            if eng.K == 1 and eng.red is None:
                # one class: every flow takes its share now (nothing is pending)
                return mine
            eng.pending += mine
            eng.charged = True
    lost: FloatArray | None = None
    if eng.charged and any_of(eng.pending[ix] > 0.0):
        lost = np.zeros(eng.n)
        lost[ix] = eng.pending[ix]
        eng.pending[ix] = 0.0
        eng.charged = any_of(eng.pending)
    if eng.red_lost is not None:  # (:func:`~._rounds_kernel.red_drops`, at its start)
        lost = eng.red_lost if lost is None else lost + eng.red_lost
    return lost


def integrate(eng: RoundEngine, t: float, g: FloatArray | None = None, q_mu: float = 0.0) -> None:
    """Add the flows' and the cross traffic's output since the last event up to ``t``; then,
    given ``g``, the rates from now on ``g / (d + q_mu)``."""
    t_end = eng.run.t_end
    dt = min(t, t_end) - min(eng.t_ev, t_end)
    eng.t_ev = t
    assert eng.d_flow is not None
    rk.rule("totals")(
        eng.delivered, eng.rate, eng.elapsed, eng.cross_carried,
        eng.rate_cross if eng.cross else eng.none_s, dt, eng.rate if g is None else g,
        eng.d_flow, q_mu, g is not None,
    )  # fmt: skip


def account(
    eng: RoundEngine, c: int, t0: FloatArray, got: FloatArray, mu_a: FloatArray, q: float | None
) -> None:
    """A new event at ``t0`` (several classes): integrate up to it, then the rates from now on
    (docs/round-model-unequal-rtt.md, "What it delivers"); ``q``: the standing backlog when
    known."""
    g = eng.inflight
    if q is None:
        np.subtract(eng.w_cur, eng.pending, out=g)
        np.maximum(g, 0.0, out=g)
        g[~eng.active] = 0.0
        g[eng.sel[c]] = got
        q = float(BACKLOG(eng._class_sums(g), float(mu_a[0]) * eng.d_class))
    else:
        g = eng.w_cur
    integrate(eng, float(t0[0]), g, q / float(mu_a[0]))
    if eng.cross:
        eng.rate_cross = eng.mu - mu_a


def account_one(
    eng: RoundEngine, t0: FloatArray, t1: FloatArray, duration: FloatArray, got: FloatArray,
    whole: bool, mu_a: FloatArray, mud: FloatArray, inv_mu: FloatArray, mu_r: Any,
) -> None:  # fmt: skip
    """:func:`account` for one class: the round's part before the run's end added at once at
    the rate its standing backlog allows (``whole``: nothing lost)."""
    S, F, d = eng.S, eng.F, eng.d[0]
    t_end = eng.run.t_end
    dt = duration if t_end == math.inf else np.minimum(t1, t_end) - np.minimum(t0, t_end)
    if eng.cross:
        eng.cross_carried += (eng.mu - mu_a) * dt
    eng.elapsed += dt
    if whole and not eng.reverse:
        if t_end == math.inf:
            eng.delivered += got
        else:  # (a view: each scenario's part of the round over its flows)
            delivered = by_scenario(eng.delivered, S, F)
            delivered += by_scenario(got, S, F) * across_flows(dt / duration, F)
        return
    g_s = per_scenario(got, S, F)
    if eng.reverse:
        qr, qf = _standing_rev(g_s, mu_a, mu_r, eng.b_r, d)
        rtt = d + qr / mu_r + qf / mu_a  # (qr = 0 where mu_r is inf)
    else:  # (in place: one buffer per scenario)
        rtt = np.subtract(g_s, mud, out=eng.buf_s)
        np.maximum(rtt, 0.0, out=rtt)
        rtt *= inv_mu
        rtt += d
    share = np.divide(dt, rtt, out=eng.buf_s)
    delivered = by_scenario(eng.delivered, S, F)  # (a view: each scenario's share over its flows)
    delivered += by_scenario(got, S, F) * across_flows(share, F)
