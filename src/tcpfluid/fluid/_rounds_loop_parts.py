"""Parts of the round model's loop (:func:`tcpfluid.fluid.rounds.simulate_rounds`): the
forward queue of a round (shared with the asynchronous round model, :mod:`._rounds_async`),
what each flow's law measures, the run's totals and accumulators, the progress checkpoint."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import RoundSample
from ._rounds_inputs import CrossTraffic
from ._rounds_law import _check_bounded, growth_shares
from ._rounds_physics import (
    QueueMemory,
    Queues,
    Rtts,
    _standing_rev,
    buffer_overflow,
    forward_queues,
    queue_memory,
)

FloatArray = NDArray[np.float64]


class ForwardRound(NamedTuple):
    """The forward queue of a round (:func:`forward_round`)."""

    #: backlog at the first packet, mean, last packet, and the standing backlog of W1
    qf: Queues
    #: the same as the packets see it (with cross traffic, the backlog relaxing to it)
    seen: Queues
    #: backlog lost beyond the buffer (``None``: infinite buffer)
    lost: FloatArray | None
    ack_rate: FloatArray
    #: with cross traffic: the backlog the round leaves, and its available rate
    carried: FloatArray
    mu_prev: FloatArray


def forward_round(
    qf0: FloatArray,
    z_s: FloatArray,
    w0_s: FloatArray,
    w1_s: FloatArray,
    pipe: FloatArray,
    mu_a: FloatArray,
    mu: FloatArray,
    ack_rate: FloatArray,
    model: str,
    spread_train: bool,
    cross: bool,
    carried: FloatArray,
    mu_prev: FloatArray,
    b_tcp: FloatArray | None,
    memory_of: Callable[..., QueueMemory | None] = queue_memory,
    clumps: FloatArray | None = None,
) -> ForwardRound:
    """The forward queue of a round without an ACK-path bottleneck (the round model's and
    the asynchronous round model's): the burst over the standing backlog
    (:func:`~._rounds_physics.forward_queues`; ``pipe`` is the window that queues
    nothing, ``μa d`` for one base RTT), with cross traffic the FIFO's queue memory
    (the backlog ``carried`` from the last round at rate ``mu_prev`` relaxes to the
    standing one), and the losses beyond the flows' share ``b_tcp`` of the buffer
    (``None``: infinite). ``memory_of`` builds the queue memory
    (:func:`~._rounds_physics.queue_memory`; a function returning ``None`` switches it
    off). ``clumps``: the runs of an ACK train slower than μa
    (:func:`~._rounds_physics.train_clump_queue`; ``None``: the train is spread evenly)."""
    memory = None
    if cross:
        # the backlog the last round left, relaxing to the standing one
        memory = memory_of(mu_a, mu, carried, mu_prev)
        mu_prev = mu_a
    qf, ack_rate = forward_queues(
        qf0, z_s, w0_s, w1_s, pipe, mu_a, ack_rate, model, spread_train, memory, clumps
    )
    relaxed = None
    if cross:
        # losses and the round's duration follow the standing backlog of W1 (the flows
        # deliver at most μa per second); the backlog relaxing towards it is what the
        # packets see and what the next round starts from
        relaxed = qf[3]
        qf = (qf[0], qf[1], qf[2], np.maximum(w1_s - pipe, 0.0))
    lost_s, qf = buffer_overflow(qf, b_tcp) if b_tcp is not None else (None, qf)
    seen = qf
    if relaxed is not None:
        carried = np.minimum(relaxed, b_tcp) if b_tcp is not None else relaxed
        seen = (qf[0], qf[1], qf[2], carried)
    return ForwardRound(qf, seen, lost_s, ack_rate, carried, mu_prev)


def _per_flow(x: Any, F: int) -> Any:
    """A per-scenario array (S,) repeated over each scenario's flows (S × F,)."""
    return np.repeat(x, F) if F > 1 else x


def _per_scenario(x: FloatArray, S: int, F: int) -> FloatArray:
    """The sum over each scenario's flows of a per-flow array (S × F,) -> (S,)."""
    return x.reshape(S, F).sum(axis=1) if F > 1 else x


def _accumulators(S: int, n: int, staggered: bool) -> tuple[Any, ...]:
    """The loop's running arrays: clock, elapsed time and carried cross traffic (per
    scenario); minimum RTT and forward delay, delivered packets, loss events, active and
    started flags (per flow)."""
    return (
        np.zeros(S), np.zeros(S), np.zeros(S), np.full(n, np.inf), np.full(n, np.inf),
        np.zeros(n), np.zeros(n, dtype=np.int64), np.ones(n, dtype=bool),
        np.zeros(n, dtype=bool) if staggered else np.ones(n, dtype=bool),
    )  # fmt: skip


def _checkpoint(
    w1: FloatArray,
    k: int,
    n_steps: int,
    t: FloatArray,
    t_end: float,
    progress: Callable[[float], None] | None,
    next_report: float,
) -> float:
    """Every 32 rounds: check the windows are bounded and report progress (at most ten
    times a second); returns the next report's time."""
    _check_bounded(w1, k)
    if progress is not None and (now := time.monotonic()) >= next_report:
        next_report = now + 0.1
        done = k / n_steps if t_end == math.inf else float(t.min()) / t_end
        progress(min(1.0, max(0.0, done)))
    return next_report


def _law_sample(
    rtts: Rtts,
    F: int,
    staggered: bool,
    active: NDArray[np.bool_],
    w1: FloatArray,
    cwnd0: FloatArray,
    acks: FloatArray,
    base_rtt: FloatArray,
    fwd_base: FloatArray,
) -> tuple[RoundSample, FloatArray]:
    """What each flow's law measures in the round (per flow), and the base RTT it reads;
    updates the flows' minimum RTT and forward delay (``base_rtt``, ``fwd_base``) in place."""
    rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = rtts
    if F > 1:
        rtt_min, rtt_mean, rtt_max = (
            np.repeat(rtt_min, F),
            np.repeat(rtt_mean, F),
            np.repeat(rtt_max, F),
        )
        fwd_min, fwd_mean = np.repeat(fwd_min, F), np.repeat(fwd_mean, F)
    if staggered:
        np.minimum(base_rtt, np.where(active, rtt_min, np.inf), out=base_rtt)
        base_for_law = np.where(np.isfinite(base_rtt), base_rtt, rtt_min)
    else:
        np.minimum(base_rtt, rtt_min, out=base_rtt)
        base_for_law = base_rtt
    sample = RoundSample(
        # a flow not (or no longer) sending reports the window it would send with
        cwnd=np.where(active, w1, cwnd0) if staggered else w1,
        base_rtt=base_for_law,
        rtt_mean=rtt_mean,
        rtt_min=rtt_min,
        rtt_max=rtt_max,
        acks=acks,
    )
    if staggered:
        np.minimum(fwd_base, np.where(active, fwd_min, np.inf), out=fwd_base)
        sample.fwd_delay_base = np.where(np.isfinite(fwd_base), fwd_base, fwd_min)
    else:
        np.minimum(fwd_base, fwd_min, out=fwd_base)
        sample.fwd_delay_base = fwd_base
    sample.fwd_delay_mean = fwd_mean
    return sample, base_for_law


def _totals(
    lost_s: FloatArray | None,
    w1: FloatArray,
    w1_s: FloatArray,
    duration: FloatArray,
    t: FloatArray,
    t_end: float,
    cross: list[CrossTraffic],
    mu_link: FloatArray,
    mu_a: FloatArray,
    F: int,
    delivered: FloatArray,
    cross_carried: FloatArray,
    elapsed: FloatArray,
    in_turn: Callable[[FloatArray, FloatArray, int], FloatArray] | None = None,
    growth: FloatArray | None = None,
) -> tuple[FloatArray | None, FloatArray, Any]:
    """Each flow's share of the round's losses, its delivered packets, and whether the round
    counts (starts before ``t_end``); adds to the totals in place. The shares are in
    proportion to the windows; ``in_turn`` (``drop_share="in-turn"``,
    :class:`~tcpfluid.fluid._rounds_law.OverflowShare`) re-deals each scenario's;
    ``growth`` (``drop_share="growth"``: the flows' per-ACK growth of the round) deals
    each scenario's first on that growth (:func:`~tcpfluid.fluid._rounds_law.growth_shares`)."""
    if lost_s is not None and growth is not None:
        lost = growth_shares(lost_s, growth, w1)  # each scenario's F flows in turn
        got = w1 - lost
    elif lost_s is not None:
        w1_s_n = np.repeat(w1_s, F) if F > 1 else w1_s
        share = np.divide(w1, w1_s_n, out=np.zeros(w1.size), where=w1_s_n > 0)
        lost = share * (np.repeat(lost_s, F) if F > 1 else lost_s)
        if in_turn is not None:
            for s in range(w1.size // F):
                lost[s * F : (s + 1) * F] = in_turn(
                    lost[s * F : (s + 1) * F], w1[s * F : (s + 1) * F], s
                )
        got = w1 - lost
    else:
        lost = None
        got = w1
    cn: Any = True
    if t_end == math.inf:
        delivered += got
        if cross:
            cross_carried += (mu_link - mu_a) * duration
    else:
        counting = t < t_end
        cn = np.repeat(counting, F) if F > 1 else counting
        delivered += np.where(cn, got, 0.0)
        if cross:
            cross_carried += np.where(counting, (mu_link - mu_a) * duration, 0.0)
        elapsed += np.where(counting, duration, 0.0)
    return lost, got, cn


def _reverse_start(
    w0: FloatArray,
    w0_s: FloatArray,
    mu_a: FloatArray,
    mu_r: FloatArray,
    b_r: FloatArray,
    d: FloatArray,
    F: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """With an ACK-path bottleneck (rate ``mu_r``, buffer ``b_r``): the ACK and forward
    backlogs at the start of a round of windows ``w0`` (sum ``w0_s``) and the ACKs each
    flow receives (``min(1, μr T/W)`` per packet, T the round's base duration)."""
    qr0, qf0 = _standing_rev(w0_s, mu_a, mu_r, b_r, d)
    t0 = d + qr0 / mu_r + qf0 / mu_a
    with np.errstate(divide="ignore", invalid="ignore"):
        ack_ratio = np.minimum(1.0, np.where(w0_s > 0, mu_r * t0 / w0_s, 1.0))
    return qr0, qf0, w0 * _per_flow(ack_ratio, F)


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
    """The ACKs of each flow the ACK-path bottleneck dropped in the round: those missing
    from the round's standing window (``w0 - acks``, the ACKs beyond ``μr T``) plus the
    flow's share (by window) of the growth burst beyond the ACK buffer ``b_r``
    (``qr0 + z_s - b_r`` where the reverse link is the bottleneck)."""
    over = np.where(rev_bott, np.maximum(qr0 + z_s - b_r, 0.0), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(_per_flow(w1_s, F) > 0, w1 / _per_flow(w1_s, F), 0.0)
    return np.maximum(w0 - acks, 0.0) + share * _per_flow(over, F)
