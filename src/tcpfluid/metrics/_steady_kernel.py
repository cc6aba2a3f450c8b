"""The settling rule's search for a steady stretch, compiled (apart from
:mod:`tcpfluid.metrics._settling`, so that importing the metrics does not import Numba):
one backward pass over each series instead of a dozen (samples × series) temporaries.
Scalar code whose IEEE operations are NumPy's in the same order (``error_model="numpy"``,
no ``fastmath``): the sums run from the last sample back, as a reversed ``cumsum`` adds."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import _numba_cache

_numba_cache.configure()  # the cache directory rule every compiled part follows

_JIT = _numba_cache.JIT_OPTIONS


@njit(**_JIT)
def steady_starts(t, v, inside, hold, ref, cap):  # type: ignore[no-untyped-def]
    """Per series ``j`` (rows of the (series × samples) arrays): the time of the sample
    minimising the MSER statistic ``Σ_{i>=d} (v_i − m_d)² / n_d²`` over the samples
    ``inside`` (``v − ref[j]`` summed), among those at or before ``hold[j]`` from which the
    half-range of the later samples stays within ``cap[j]`` (and the sample at
    ``hold[j]``); ties and NaN as :func:`numpy.argmin` takes them (the first)."""
    m, n = t.shape
    out = np.empty(m)
    for j in range(m):
        cnt = 0
        s1 = s2 = 0.0
        hi, lo = -np.inf, np.inf
        best, best_i, nan_i = np.inf, 0, -1
        for i in range(n - 1, -1, -1):  # the sums from the last sample back
            into = inside[j, i]
            x = v[j, i] - ref[j] if into else 0.0
            if into:
                cnt += 1
                a = v[j, i]
                # np.maximum / np.minimum: NaN wins
                hi = np.nan if (math.isnan(hi) or math.isnan(a)) else max(hi, a)
                lo = np.nan if (math.isnan(lo) or math.isnan(a)) else min(lo, a)
            k = max(cnt, 1)
            s1 += x
            s2 += x * x
            mser = s2 - s1 * s1 / k
            mser = np.nan if math.isnan(mser) else max(mser, 0.0)
            mser /= k * k
            val = np.inf
            if into and (
                t[j, i] == hold[j]
                or (t[j, i] <= hold[j] and math.isfinite(mser) and 0.5 * (hi - lo) <= cap[j])
            ):
                val = mser
            if math.isnan(val):
                nan_i = i
            elif val <= best:
                best, best_i = val, i
        out[j] = t[j, nan_i if nan_i >= 0 else best_i]
    return out
