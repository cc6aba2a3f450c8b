"""Large swings of Quick Vegas beyond :mod:`tcpfluid.analytic.stability`'s linearisation:
the undershoot of a decrease law after a step (:func:`decrease_undershoot`) and the cycle
of flows that have drained the queue (:func:`empty_queue_cycle`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .._validation import check_choice, check_int, check_real
from ._domain import check_alpha_beta

__all__ = ["EmptyQueueCycle", "decrease_undershoot", "empty_queue_cycle"]


def decrease_undershoot(gain: float, lag_rounds: int, rounds: int = 400) -> float:
    """Deepest undershoot of ``e_{k+1} = e_k − K e_{k+1−L}`` from a step error of 1.

    The response of a decrease law of gain K (Quick Vegas eq. (4): K = 1/2) to an excess
    built before the first decrease is seen: the error starts at 1 for L rounds and the
    return value is ``−min_k e_k`` (0 when it never goes below the target; 1/4 for K = 1/2,
    L = 2; 3/4 for L = 3).
    """
    from .stability import _check_lag

    k = check_real("gain", gain)
    lag = _check_lag(lag_rounds)
    total = check_int("rounds", rounds, minimum=1)
    if total > _MAX_UNDERSHOOT_ROUNDS:
        raise ValueError(
            f"rounds must be an integer in [1, {_MAX_UNDERSHOOT_ROUNDS:,}], got {total:,}"
        )
    if lag > _MAX_UNDERSHOOT_LAG or total * lag > _MAX_UNDERSHOOT_WORK:
        raise ValueError(
            f"decrease_undershoot: rounds × lag_rounds = {total:,} × {lag:,} is more than "
            f"{_MAX_UNDERSHOOT_WORK:.0e} steps (lag_rounds at most {_MAX_UNDERSHOOT_LAG:,}); "
            "give fewer rounds or a shorter lag"
        )
    # the response e_{t+1..t+B} to a state (e_t, ..., e_{t-L+1}) is T @ state: T (B × L) is
    # the recurrence run once on the L unit states, then each block is one product
    block = max(_UNDERSHOOT_BLOCK, lag)
    with np.errstate(over="ignore", invalid="ignore"):
        hist = np.zeros((block + lag, lag))
        hist[:lag] = np.eye(lag)[::-1]
        for i in range(lag, block + lag):
            hist[i] = hist[i - 1] - k * hist[i - lag]
        resp = hist[lag:]
        state = np.ones(lag)
        lowest, done = 1.0, 0
        while done < total:
            step = min(total - done, block)
            e = resp[:step] @ state
            done += step
            if not np.all(np.isfinite(e)):
                raise ValueError(
                    f"decrease_undershoot: the error grows past the largest float within "
                    f"rounds={total:,} (gain={k!r} at lag_rounds={lag} diverges: spectral "
                    "radius >= 1); give fewer rounds or a gain below critical_gain(lag_rounds)"
                )
            lowest = min(lowest, float(e.min()))
            if step < lag:
                break
            new = e[-lag:][::-1].copy()
            if not np.any(new) or np.array_equal(new, state):  # at rest: nothing new follows
                break
            state = new
    return max(0.0, -lowest)


#: bounds of :func:`decrease_undershoot` (its work is rounds × lag_rounds)
_MAX_UNDERSHOOT_ROUNDS = 10**9
_UNDERSHOOT_BLOCK = 4096
_MAX_UNDERSHOOT_LAG = 4_096
_MAX_UNDERSHOOT_WORK = 2 * 10**9


@dataclass(frozen=True)
class EmptyQueueCycle:
    """What :func:`empty_queue_cycle` predicts for N Quick Vegas flows after a large swing.

    Attributes
    ----------
    sampling, lag_rounds
        The setting.
    unseen_increases
        Eq.-(3) decisions every flow takes from the empty queue before the first is seen.
    excess_per_flow
        The backlog they build, packets per flow: ``β (1 + 2 + ... + unseen)``.
    undershoot_per_flow
        How far eq. (4) (gain 1/2 at the lag) then drives the backlog below its target,
        packets per flow (:func:`decrease_undershoot` × (excess − m)).
    target_per_flow
        Eq. (4)'s target ``m = (α + β)/2``, packets per flow.
    sustains
        True if the undershoot reaches the empty queue again (``undershoot >= m``): the
        swing repeats whatever N.
    peak_queue_pkts
        ``N × excess_per_flow``, the queue at the top of the cycle (built from empty).
    reason
        One sentence.
    """

    sampling: str
    lag_rounds: int
    unseen_increases: int
    excess_per_flow: float
    undershoot_per_flow: float
    target_per_flow: float
    sustains: bool
    peak_queue_pkts: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """Fields as a JSON-ready dict."""
        return asdict(self)


def empty_queue_cycle(
    *,
    n_flows: int = 1,
    lag_rounds: int = 2,
    alpha: float = 2.0,
    beta: float = 4.0,
    sampling: str = "near-band",
) -> EmptyQueueCycle:
    """Will N Quick Vegas flows that have drained the queue to zero swing back and forth?

    From an empty queue (every Δ = 0) the reading takes ``u`` unseen eq.-(3) increases
    (``L + 1`` for ``"every-round"`` and ``"near-band"``, else 1), so each flow holds
    ``β (1 + ... + u)`` packets; eq. (4) (gain 1/2, lag L) cuts the excess over its target
    ``m = (α + β)/2`` with :func:`decrease_undershoot`, and if the undershoot reaches ``m``
    the queue empties again, for any N (peak ``N × excess``). Assumes windows of at least
    β·u packets and a buffer that holds the peak. The derivation and the packet checks:
    docs/analytic.md, "Large swings: a cycle through the empty queue".

    Parameters
    ----------
    n_flows
        N >= 1 (scales the peak only).
    lag_rounds
        L >= 1: rounds between a decision and the Δ that first sees it (2 at packet level).
    alpha, beta
        Quick Vegas's thresholds, packets (0 <= α <= β).
    sampling
        A :class:`tcpfluid.algorithms.QuickVegas` reading.

    Returns
    -------
    EmptyQueueCycle
    """
    from .stability import _QV_SAMPLINGS, _check_lag

    n = check_int("n_flows", n_flows, minimum=1)
    lag = _check_lag(lag_rounds)
    a, b = check_alpha_beta(alpha, beta)
    check_choice("sampling", sampling, _QV_SAMPLINGS)
    literal = sampling in ("every-round", "near-band")
    unseen = lag + 1 if literal else 1
    excess = b * unseen * (unseen + 1) / 2.0
    m = 0.5 * (a + b)
    under = decrease_undershoot(0.5, lag) * max(0.0, excess - m)
    sustains = under >= m
    how = (
        "decisions every round at Δ = 0 (far from the band)"
        if literal
        else "a measurement round after each increase"
    )
    return EmptyQueueCycle(
        sampling=sampling,
        lag_rounds=lag,
        unseen_increases=unseen,
        excess_per_flow=excess,
        undershoot_per_flow=under,
        target_per_flow=m,
        sustains=sustains,
        peak_queue_pkts=n * excess,
        reason=(
            f"{how}: {unseen} increase(s) before the first is seen build {excess:g} packets "
            f"per flow; eq. (4) undershoots by {under:g} "
            + (">=" if sustains else "<")
            + f" m = {m:g}: the queue "
            + ("empties again and the swing repeats" if sustains else "stays above zero")
        ),
    )
