"""The round model's physics in NumPy: pure functions of one round (the shared backlog's
checked entry point, the FIFO's queue memory with cross traffic, the queue of an ACK train
made of runs, the ACK path). The bottleneck over a round (queues, burst, losses, RTTs, the
feedback lag) is compiled: :mod:`._rounds_kernel`."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ._rounds_kernel import backlog_kernel

FloatArray = NDArray[np.float64]


def shared_backlog(windows: Any, pipes: Any) -> float:
    """The standing backlog ``q`` (packets) of window-limited flows sharing a FIFO queue.

    Class ``k`` holds ``windows[k]`` packets in flight over a pipe of ``pipes[k] = μa d_k``
    packets; ``q`` solves ``Σ W_k / (pipes_k + q) = 1`` (``0`` when the windows fit the
    pipes), by Newton's method from ``max(0, ΣW − max pipe)`` (a point left of the root of
    this convex decreasing function, so the iterates increase to it).

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
    return backlog_of(w, m)


def backlog_of(w: FloatArray, m: FloatArray) -> float:
    """:func:`shared_backlog` of float64 arrays of one value per class, unchecked."""
    return float(backlog_kernel()(w, m))


def _standing_rev(
    w: FloatArray, mu_a: FloatArray, mu_r: FloatArray, b_r: FloatArray, d: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """ACK backlog and forward backlog of a window ``w`` with an ACK-path bottleneck."""
    with np.errstate(invalid="ignore"):
        qr = np.clip(w - mu_r * d, 0.0, b_r)
        qr = np.where(np.isfinite(mu_r), qr, 0.0)
        delay_r = np.where(np.isfinite(mu_r), qr / mu_r, 0.0)
    qf = np.maximum(w - mu_a * (d + delay_r), 0.0)
    return qr, qf


#: a round's bottleneck backlog (link packets of the flows): at its first packet (min), on
#: average over its packets (mean), at its last packet (max) and at its end (standing)
Queues = tuple[FloatArray, FloatArray, FloatArray, FloatArray]
#: the RTTs a law reads: minimum, mean, maximum; one-way forward delay: minimum, mean
Rtts = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]


class QueueMemory(NamedTuple):
    """The bottleneck backlog a round starts from when the FIFO is shared with cross
    traffic (docs/round-model.md, "Queue memory"), per scenario.

    ``keep`` is ``1 − μa/μ``: the fraction of the last round's backlog a round keeps
    (0 without cross traffic: the backlog is the standing one of the window);
    ``carried`` the backlog the last round left, in backlog units of the current rate
    (link packets × μa/μ); ``dropped`` marks the scenarios whose available rate fell at
    this round's start (the round starts from ``carried`` and builds over the round).
    """

    keep: FloatArray
    carried: FloatArray
    dropped: NDArray[np.bool_]


def queue_memory(
    mu_a: FloatArray, mu: FloatArray, carried: FloatArray, mu_prev: FloatArray
) -> QueueMemory:
    """The :class:`QueueMemory` of a round at available rate ``mu_a`` (link rate ``mu``)
    after a round that ended with backlog ``carried`` at available rate ``mu_prev``.

    Over a round of duration ``T = d + Q/μ`` the link queue (link packets) goes from Q to
    ``Q + W − μa T``, so in backlog units ``x = Q μa/μ`` (delay ``x/μa``)
    ``x' = (1 − μa/μ) x + (μa/μ)(W − μa d)``: it relaxes to the standing backlog
    ``W − μa d`` by ``μa/μ`` per round, at once without cross traffic.
    """
    return QueueMemory(1.0 - mu_a / mu, carried * (mu_a / mu_prev), mu_a < mu_prev)


def train_clump_queue(
    z: FloatArray, w1: FloatArray, pipe: FloatArray, clumps: FloatArray
) -> FloatArray:
    """Mean backlog (packets) that a round's per-ACK growth ``z`` builds inside an ACK
    train made of runs, after the available rate rose (docs/round-model.md, "ACK train").

    When the rate rises, the window's ``clumps`` packets travel apart (one per run). Each
    ACK releases ``1 + z/W`` packets, so a run grows with the window and, served back to
    back at μa, returns its ACKs at μa: a run of L ACKs builds a backlog of ``L z/W`` by
    its end and its packets see ``L z/(2W)`` on average. Runs merge as the gaps between
    them close. With the gaps independent and exponential at the rise, the gaps left are
    still exponential with the same mean, so the number of runs falls as the idle share
    of the round, ``N = clumps (1 − ρ)/(1 − ρ0)`` (``ρ = W1/pipe``, ``ρ0 = clumps/pipe``),
    and a run holds K of the original ones, K geometric with mean ``m = clumps/N``. A
    packet lies in a run of size-biased length ``(W/clumps)(2m − 1)``, so the mean backlog
    is ``z (2m − 1)/(2 clumps)`` (derived in SymPy in
    ``validation/test_train_clumps.py``), at most ``z/2``: the whole train one run.
    """
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
    """ACK-path queue and forward queue over a round (ACK-path bottleneck, document 003):
    the burst packets join the ACK queue (up to ``b_r``) where the reverse link is the
    bottleneck, the forward queue elsewhere."""
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
    """With an ACK-path bottleneck (rate ``mu_r``, buffer ``b_r``): the ACK and forward
    backlogs at the start of a round of windows ``w0`` (sum ``w0_s``) and the ACKs each
    flow receives (``min(1, μr T/W)`` per packet, T the round's base duration)."""
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
    """The ACKs of each flow the ACK-path bottleneck dropped in the round: those missing
    from the round's standing window (``w0 - acks``, the ACKs beyond ``μr T``) plus the
    flow's share (by window) of the growth burst beyond the ACK buffer ``b_r``
    (``qr0 + z_s - b_r`` where the reverse link is the bottleneck)."""
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
    """A per-flow array (S × m,) as a view of shape (S, m), to meet per-scenario values
    in the shape :func:`across_flows` gives them (itself when ``m`` is 1)."""
    return x.reshape(S, m) if m > 1 else x


def across_flows(x: Any, m: int) -> Any:
    """A per-scenario array (S,) shaped to broadcast over each scenario's ``m`` flows
    (:func:`by_scenario`): :func:`per_flow` without the copy."""
    return x[:, None] if m > 1 else x


def per_scenario(x: FloatArray, S: int, m: int) -> FloatArray:
    """The sum over each scenario's ``m`` flows of a per-flow array (S × m,) -> (S,)."""
    return x.reshape(S, m).sum(axis=1) if m > 1 else x
