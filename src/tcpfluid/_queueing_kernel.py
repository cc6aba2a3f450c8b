"""RED's two laws, compiled once for every engine (apart from :mod:`tcpfluid.queueing`, so
that importing the scenarios does not import Numba): the drop probability ``p_b`` and the
average ``avg <- (1 - w_q) avg + w_q q`` per arrival (Floyd and Jacobson 1993, §4); gentle
RED as in ns-2 (Tsang's thesis, ch. 2 §6).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _numba_cache

__all__ = ["red_average", "red_probabilities", "red_probability"]

_numba_cache.configure()  # the cache directory rule every compiled part follows

_JIT = _numba_cache.JIT_OPTIONS


@njit(**_JIT)
def red_probability(avg, min_th, max_th, max_p, gentle, ramp_pkts):  # type: ignore[no-untyped-def]
    """RED's drop probability ``p_b`` at the averaged queue ``avg`` (packets).

    0 below ``min_th``; a ramp to ``max_p`` at ``max_th``; above it, gentle RED ramps on to
    1 at ``2 max_th``, classic RED jumps to 1. ``ramp_pkts`` > 0 writes that jump as a ramp
    ``ramp_pkts`` packets wide (the fluid models use 1, so that their right-hand side stays
    Lipschitz for the ODE solvers); 0 is the jump itself (the packet gateway).
    """
    if avg < min_th:
        return 0.0
    if avg < max_th:
        return max_p * (avg - min_th) / (max_th - min_th)
    if gentle:
        return min(max_p + (1.0 - max_p) * (avg - max_th) / max_th, 1.0)
    if ramp_pkts > 0.0:
        return max_p + (1.0 - max_p) * min(max(avg - max_th, 0.0) / ramp_pkts, 1.0)
    return 1.0


@njit(**_JIT)
def red_probabilities(avg, min_th, max_th, max_p, gentle, ramp_pkts):  # type: ignore[no-untyped-def]
    """:func:`red_probability` at each element of the 1-d array ``avg``."""
    out = np.empty(avg.shape[0])
    for i in range(avg.shape[0]):
        out[i] = red_probability(avg[i], min_th, max_th, max_p, gentle, ramp_pkts)
    return out


@njit(**_JIT)
def red_average(avg, q, w_q, arrivals):  # type: ignore[no-untyped-def]
    """RED's averaged queue after ``arrivals`` arrivals (may be fractional) that each find
    ``q`` packets: ``q + (avg - q) (1 - w_q)^arrivals``, the closed form of the per-arrival
    update; ``q = 0`` is the decay over an idle period of ``arrivals`` packet times."""
    return q + (avg - q) * (1.0 - w_q) ** arrivals
