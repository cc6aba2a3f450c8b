"""When a flow left slow start, as the summaries read it: at its first loss reaction
(:func:`_loss_exit`) or at its first round out of slow start (:func:`slow_start_left`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from ._records import FlowRecords

FloatArray = NDArray[np.float64]


def _loss_exit(
    fr: FlowRecords,
    t: FloatArray,
    in_ss: NDArray[np.bool_],
    first: NDArray[np.intp],
    decided_s: FloatArray,
    end_s: float,
) -> tuple[NDArray[np.bool_], FloatArray]:
    """Which flows of ``fr`` left their first slow start at their first loss event, and
    its time (s): a flow in slow start at its first round with a window (``first``) whose
    first loss reaction comes no later than the round decision that leaves slow start
    (``decided_s``, s; ``inf``: none) and by ``end_s``. A loss ends slow start: the law
    leaves it at its loss reaction, while its round records may keep slow start's phase
    through the recovery (a packet sender ends no round until its repair) and after a
    timeout's new slow start."""
    n = len(fr.start_s)
    lt = np.asarray(fr.first_loss_s, dtype=np.float64)
    began = in_ss[first, np.arange(n)] & (np.asarray(fr.window_pkts)[first, np.arange(n)] > 0.0)
    with np.errstate(invalid="ignore"):
        lost = began & np.isfinite(lt) & (lt <= decided_s) & (lt <= end_s)
    return lost, lt


def slow_start_left(
    t: FloatArray,
    in_ss: NDArray[np.bool_] | None,
    t0: Any,
    t1: Any,
    delay: int,
    sizes: Any,
    loss_s: Any = None,
) -> FloatArray:
    """When each flow (a column of ``in_ss``, whether it was in slow start at each sample,
    ``(R, n)``; ``t`` ``(R, 1)`` or ``(R, n)``) left slow start in its segment ``t0 < t <=
    t1`` (``t0``, ``t1``, ``sizes``: one per flow or one), :func:`settling`'s
    ``left_slow_start_s``: the moment of its first slow-start exit from the sample in
    effect at ``t0`` (the last at or before it) on, as the summary stamps an exit (``delay``
    samples after the first sample out of slow start; :attr:`FlowRecord.exit_delay_samples`)
    if that lies in the segment and in the flow's first ``sizes`` samples; ``inf`` where it
    was in slow start from that sample on and left it at no such moment; ``-inf`` where it
    was not in slow start then (``in_ss`` ``None``: a law without slow start). ``loss_s``
    (one per flow, ``inf``: none): when a flow's first slow start ended at a loss reaction
    (:func:`_loss_exit`, the summary's exit); an exit in the segment, whatever slow start's
    phase the records keep through the recovery."""
    n = t.shape[1] if in_ss is None else in_ss.shape[1]
    if in_ss is None:
        return np.full(n, -np.inf)
    R = in_ss.shape[0]
    tb = np.broadcast_to(t, in_ss.shape)
    row = np.arange(R)[:, None]
    before = tb <= t0
    at = np.where(before.any(axis=0), R - 1 - np.argmax(before[::-1], axis=0), -1)
    own = (row < sizes) & (tb <= t1) & (row >= at)  # from the sample in effect at t0 on
    ss = in_ss & own
    exits = np.zeros_like(ss)
    exits[1:] = ss[:-1] & ~in_ss[1:] & own[1:]
    e = np.argmax(exits, axis=0) + delay
    te = tb[np.minimum(e, R - 1), np.arange(n)]
    ok = exits.any(axis=0) & (e < sizes) & (te <= t1)
    left = np.where(ok, te, np.where(ss.any(axis=0), np.inf, -np.inf))
    if loss_s is None:
        return left
    lo = np.asarray(loss_s, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        at_loss = (lo > t0) & (lo <= t1) & (lo < left)
    return np.where(at_loss, lo, left)
