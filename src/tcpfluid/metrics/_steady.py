"""Where a limit cycle's steady stretch begins (:func:`tcpfluid.metrics.settling`): the
truncation point of the MSER rule, over a batch of series."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._arrays import FloatArray, selected_columns

#: series per block of the steady stretch's suffix sums (bounds their memory)
STEADY_CHUNK = 2048


def steady_from(
    tb: FloatArray,
    vb: FloatArray,
    seg: NDArray[np.bool_],
    t_hold: FloatArray,
    ref: FloatArray,
    cap: FloatArray,
    which: NDArray[np.bool_],
) -> FloatArray:
    """For the series ``which`` (a mask over the trailing axes): the time at which the
    steady stretch begins (``inf`` for the others).

    It is the sample ``d`` of the segment, at the latest the first sample of the hold
    window (``t_hold``), that minimises the marginal standard error of the mean of the
    samples from ``d`` on, ``Σ_{i>=d} (v_i − m_d)² / n_d²`` (``n_d`` samples, mean ``m_d``;
    the earliest on ties): the truncation point of the MSER rule (K. P. White, Jr., "An
    effective truncation heuristic for bias reduction in simulation output", Simulation
    69(6), 1997). Keeping an earlier sample pays when its squared deviation from the mean
    of the rest is smaller than what it adds to the count: a ramp or a ringing much wider
    than the cycle is cut, an excursion of the cycle's own size is kept. ``ref`` (each
    series' tail mean) is subtracted before the sums, for their precision. Only samples
    from which on the half-range stays within ``cap`` (the series' ``settle_band``) and
    every value is finite can begin the stretch; the hold window's first always can (the
    cycle test read it)."""
    idx, t_all, v_all, in_all, (hold_all, ref_all, cap_all) = selected_columns(
        which, tb, vb, seg, t_hold, ref, cap
    )
    starts = np.full(hold_all.shape, np.inf)
    # a few thousand series at a time: the suffix sums are (samples x series) arrays
    for a in range(0, starts.size, STEADY_CHUNK):
        part = slice(a, a + STEADY_CHUNK)
        t, inside, v = t_all[:, part], in_all[:, part], v_all[:, part]
        hold = hold_all[part]
        with np.errstate(invalid="ignore"):  # inf - inf past a non-finite sample: not a start
            x = np.where(inside, v - ref_all[part], 0.0)
            # sums from each sample to the end (the samples after the segment add nothing)
            n = np.maximum(np.cumsum(inside[::-1], axis=0)[::-1], 1)
            s1 = np.cumsum(x[::-1], axis=0)[::-1]
            x *= x
            mser = np.cumsum(x[::-1], axis=0)[::-1]
            mser -= s1 * s1 / n
            np.maximum(mser, 0.0, out=mser)
            mser /= n * n
            # the half-range from each sample to the segment's end
            hi = np.maximum.accumulate(np.where(inside, v, -np.inf)[::-1], axis=0)[::-1]
            lo = np.minimum.accumulate(np.where(inside, v, np.inf)[::-1], axis=0)[::-1]
            narrow = 0.5 * (hi - lo) <= cap_all[part]
        ok = inside & (t <= hold) & np.isfinite(mser) & narrow
        ok |= inside & (t == hold)
        d = np.argmin(np.where(ok, mser, np.inf), axis=0)
        starts[part] = np.take_along_axis(t, d[None, :], axis=0)[0]
    out = np.full(which.shape, np.inf)
    if which.ndim == 0:
        return np.asarray(starts[0]) if starts.size else out
    out[idx] = starts
    return out
