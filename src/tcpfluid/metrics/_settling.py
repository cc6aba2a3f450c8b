"""Where a series settles (:func:`settling`, definitions in :mod:`tcpfluid.metrics`):
on a fixed point or in a limit cycle, per segment between bandwidth changes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_nonnegative, check_positive, check_range, check_real
from ._arrays import FloatArray, _plain, _series, selected_columns

#: :attr:`Settling.status` codes: how the segment settled, or why it did not
SETTLED_FIXED = 0
SETTLED_CYCLE = 1
NO_SAMPLES = 2
BEYOND_BAND = 3
GROWING = 4
DRIFTING = 5
IN_SLOW_START = 6
#: the fraction of a segment, at its end, whose mean is the settled value (the tail)
TAIL_FRACTION = 0.1
#: the base band's half-width: ``max(BASE_BAND_PKTS, BASE_BAND_REL × |settled value|)``
#: (:func:`settling`'s ``abs_tol`` and ``rel_tol`` defaults, which the run summaries use)
BASE_BAND_PKTS = 1.0
BASE_BAND_REL = 0.02


def base_band_pkts(value: float) -> float:
    """The base band's half-width around a settled value ``value`` (packets)."""
    return max(BASE_BAND_PKTS, BASE_BAND_REL * abs(value))


def base_band_text() -> str:
    """The base band as text, ``"max(1 packet, 2 %)"``, from :data:`BASE_BAND_PKTS` and
    :data:`BASE_BAND_REL`."""
    unit = "packet" if BASE_BAND_PKTS == 1.0 else "packets"
    return f"max({BASE_BAND_PKTS:g} {unit}, {100.0 * BASE_BAND_REL:g} %)"


def settle_hold_s(span_s: Any, tail_fraction: float = TAIL_FRACTION) -> Any:
    """How long before a segment's end a series must be in its band to have settled, s:
    two tail lengths of a segment ``span_s`` long (:func:`settling`)."""
    return 2.0 * tail_fraction * span_s


@dataclass(frozen=True)
class Settling:
    """Where a series settles within a segment (arrays over the trailing axes).

    Definitions: docs/round-model.md, "The definitions of tcpfluid.metrics".

    Attributes
    ----------
    value
        The settled value (mean over the segment's tail).
    time_s
        From ``t_start`` to the first sample after which the series stays in the band (NaN:
        not settled; 0: in the band at ``t_start`` and never out of it): where it settled
        (fixed point or cycle), the base band around the envelope of its steady stretch.
    settled, tolerance
        Whether it settled (fixed point or limit cycle); the band's half-width (where it
        settled, around the steady stretch's midpoint: its half-range plus the base band;
        elsewhere the base band).
    centre, amplitude
        Midpoint and half-range of a limit cycle's steady stretch (of the hold window for a
        swing wider than ``settle_band``); else the settled value and the tail's half-range.
    status
        0 fixed point, 1 limit cycle, 2 no samples, 3 wider than ``settle_band``, 4 growing,
        5 drifting (or out of its band less than two tail lengths before the end), 6 still
        in slow start (it left slow start less than two tail lengths before the end, or
        not at all).
    last_out_s
        Time of the last sample outside the band (NaN if none), s.
    left_slow_start_s
        When the flow left slow start in the segment, s (``-inf``: not in slow start in it,
        ``inf``: did not leave it).
    """

    value: FloatArray
    time_s: FloatArray
    settled: NDArray[np.bool_]
    tolerance: FloatArray
    centre: FloatArray | None = None
    amplitude: FloatArray | None = None
    status: NDArray[np.int8] | None = None
    last_out_s: FloatArray | None = None
    settle_band: FloatArray | None = None
    hold_needed_s: FloatArray | None = None
    drift: FloatArray | None = None
    left_slow_start_s: FloatArray | None = None

    @property
    def cycling(self) -> NDArray[np.bool_]:
        """Whether the series settled in a limit cycle (wider than the base band)."""
        return np.asarray(self.status == SETTLED_CYCLE)

    def reasons(self) -> NDArray[np.str_]:
        """Why each series did not settle, as text (``""`` where it settled)."""
        st = np.asarray(self.status)
        out = np.empty(st.shape, dtype=object)
        for idx in np.ndindex(st.shape):
            out[idx] = self.reason(idx)
        return np.asarray(out, dtype=str)

    def reason(self, index: int | tuple[int, ...] = ()) -> str:
        """Why the series at ``index`` (of the trailing axes) did not settle, as text
        (``""`` if it settled)."""
        idx = (index,) if isinstance(index, int) else tuple(index)
        shape = np.asarray(self.status).shape

        def at(a: Any) -> float:
            return float(np.broadcast_to(np.asarray(a), shape)[idx])

        code = int(np.asarray(self.status)[idx])
        amp, centre, tol = at(self.amplitude), at(self.centre), at(self.tolerance)
        if code in (SETTLED_FIXED, SETTLED_CYCLE):
            return ""
        if code == NO_SAMPLES:
            return "no samples in the segment"
        if code == IN_SLOW_START:
            left = at(self.left_slow_start_s)
            if math.isinf(left):
                return "still in slow start: it did not leave slow start in the segment"
            return (
                f"still in slow start: it left slow start at {left:.6g} s, less than "
                f"{at(self.hold_needed_s):.3g} s (two tail lengths) before the segment's end"
            )
        if code == BEYOND_BAND:
            return (
                f"the tail oscillates: ±{amp:.3g} around {centre:.6g} over the last two tail "
                f"lengths, wider than the band (±{max(tol, at(self.settle_band)):.3g}: the "
                "base band or settle_band)"
            )
        if code == GROWING:
            return f"the oscillation (±{amp:.3g} around {centre:.6g}) is still growing"
        drift = at(self.drift)
        if abs(drift) > tol:
            return (
                f"still drifting: the tail's mean ({centre:.6g}) moved by {drift:+.3g} from "
                f"the tail-long window before it, more than the band ±{tol:.3g}"
            )
        return (
            f"still drifting: last outside the band ±{tol:.3g} around {centre:.6g} at "
            f"{at(self.last_out_s):.6g} s, less than {at(self.hold_needed_s):.3g} s (two tail "
            "lengths) before the segment's end"
        )

    def to_dict(self) -> dict[str, Any]:
        """Lists (or scalars) with ``None`` for NaN; ``reason`` is ``""`` where settled."""
        out = {k: _plain(getattr(self, k)) for k in ("value", "time_s", "settled", "tolerance")}
        for k in ("centre", "amplitude"):
            out[k] = _plain(np.where(self.settled, getattr(self, k), np.nan))
        out["reason"] = self.reasons().tolist()
        return out


def settling(
    time_s: ArrayLike,
    values: ArrayLike,
    *,
    t_start: ArrayLike = 0.0,
    t_end: ArrayLike = math.inf,
    rel_tol: float = BASE_BAND_REL,
    abs_tol: float = BASE_BAND_PKTS,
    tail_fraction: float = TAIL_FRACTION,
    settle_band: ArrayLike = 0.0,
    left_slow_start_s: ArrayLike = -math.inf,
) -> Settling:
    """Settled value and time to settle within ``t_start < t <= t_end``.

    Definitions: docs/round-model.md. A series settles on a fixed point (its tail in the
    base band around its mean, held for two tail lengths) or in a limit cycle (its last
    two tail lengths swinging at most ``settle_band``, neither drifting nor growing);
    either way its time is that of the first sample after which it stays within the base
    band of its steady stretch's envelope (:func:`steady_from`), so that a swing's own
    samples lie a base band inside and only the transient decides the time. A flow in
    slow start is not settled: neither its steady stretch nor its time to settle begins
    before it leaves slow start, at least two tail lengths before the segment's end.

    Parameters
    ----------
    time_s, values
        The series (time along axis 0).
    t_start, t_end
        Segment bounds, s (broadcasting against the trailing axes).
    rel_tol, abs_tol
        Half-width of the base band: ``max(abs_tol, rel_tol × |settled value|)``.
    tail_fraction
        Fraction ``(0, 1]`` of the segment's span, at its end, that sets the settled value.
    settle_band
        The largest half-range of a limit cycle accepted as steady, ``>= 0`` (``inf``: any
        cycle that neither drifts nor grows; 0: fixed points only), per series or one;
        :func:`law_settle_band` gives a law's own.
    left_slow_start_s
        When the flow left slow start in the segment, s (its first slow-start exit after
        ``t_start``; ``inf``: it did not leave it; ``-inf``, the default: it was not in
        slow start in the segment), per series or one.

    Examples
    --------
    >>> t = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> v = [0, 50, 90, 99, 100, 100, 100, 100, 100, 100]
    >>> r = settling(t, v, rel_tol=0.02, abs_tol=0.0, tail_fraction=0.3)
    >>> float(r.value), float(r.time_s), bool(r.settled)
    (100.0, 4.0, True)
    >>> t = list(range(1, 41))
    >>> v = [10.0 * min(k, 5) + [0, 1, 0, -1][k % 4] for k in t]
    >>> r = settling(t, v, abs_tol=0.5, rel_tol=0.0, tail_fraction=0.2, settle_band=2.0)
    >>> float(r.centre), float(r.amplitude), float(r.time_s)
    (50.0, 1.0, 5.0)
    >>> bool(settling(t, v, abs_tol=0.5, rel_tol=0.0, tail_fraction=0.2).settled)
    False
    """
    t, v = _series(time_s, values, "values")
    rt = check_nonnegative("rel_tol", rel_tol)
    at = check_nonnegative("abs_tol", abs_tol)
    tf = check_range("tail_fraction", tail_fraction, 0.0, 1.0, lo_open=True)
    cap = as_float_array("settle_band", settle_band, finite=False)
    if np.any(np.isnan(cap)) or np.any(cap < 0):
        raise ValueError(f"settle_band must be >= 0 (or inf), got {settle_band!r}")
    shape = np.broadcast_shapes(t.shape, v.shape)
    tb, vb = np.broadcast_to(t, shape), np.broadcast_to(v, shape)
    t0 = as_float_array("t_start", t_start, finite=False)
    t1 = as_float_array("t_end", t_end, finite=False)
    left = as_float_array("left_slow_start_s", left_slow_start_s, finite=False)
    for bound, arr in (("t_start", t0), ("t_end", t1), ("left_slow_start_s", left)):
        if np.any(np.isnan(arr)):
            raise ValueError(f"{bound} must be a time in s (or ±inf), got NaN")
    # a batch of thousands of series a block at a time (its temporaries stay small)
    m = tb.shape[1] if tb.ndim == 2 else 0
    per = (t0, t1, cap, left)
    if m <= SETTLE_BLOCK or any(a.ndim > 1 or (a.ndim == 1 and a.shape[0] != m) for a in per):
        return _settle(tb, vb, t0, t1, tf, rt, at, cap, left)
    parts = []
    for lo in range(0, m, SETTLE_BLOCK):
        b = slice(lo, lo + SETTLE_BLOCK)
        b0, b1, bc, bl = (a[b] if a.ndim == 1 else a for a in per)
        parts.append(_settle(tb[:, b], vb[:, b], b0, b1, tf, rt, at, bc, bl))
    joined = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Settling)}
    return Settling(**joined)


#: series per block of the rule's (samples × series) arrays: a batch of thousands of series
#: (bounds and bands one, or one per series) is judged a block at a time, every series alone
SETTLE_BLOCK = 1024


def _settle(
    tb: FloatArray,
    vb: FloatArray,
    t0: FloatArray,
    t1: FloatArray,
    tf: float,
    rt: float,
    at: float,
    cap: FloatArray,
    left: FloatArray,
) -> Settling:
    """:func:`settling` of the checked series ``vb`` at times ``tb`` (same shape), the
    segment ``t0 < t <= t1``, tail fraction ``tf``, base band ``max(at, rt |v|)`` and the
    largest cycle amplitude ``cap``; the band of a settled series: its steady stretch's
    envelope (a fixed point's at most the base band wide, a cycle's ``cap``) widened by the
    base band; the samples before ``left`` (the flow left slow start) are out of every
    band."""
    seg = (tb > t0) & (tb <= t1)
    early = tb < left  # in slow start: out of every band, not in the steady stretch
    with np.errstate(invalid="ignore"):
        t_last = np.max(np.where(seg, tb, -np.inf), axis=0)
        t_first = np.min(np.where(seg, tb, np.inf), axis=0)
        span = t_last - np.broadcast_to(t0, t_last.shape)
        tail = seg & (tb >= t_last - tf * span)
        n_tail = tail.sum(axis=0)
        settled_val = np.where(tail, vb, 0.0).sum(axis=0) / np.where(n_tail > 0, n_tail, 1)
        base = np.maximum(at, rt * np.abs(settled_val))
        in_base = np.abs(vb - settled_val) <= base
        tail_fits = np.all(in_base | ~tail, axis=0) & (n_tail > 0)
        # the hold window: the last two tail lengths; its earlier half and the tail
        need = settle_hold_s(span, tf)
        hold_w = seg & (tb >= t_last - need)
        before = hold_w & ~tail
        has = n_tail > 0
        mid_h, amp_h = (np.where(has, x, np.nan) for x in _envelope(hold_w, vb))
        n_before = before.sum(axis=0)
        mean_before = np.where(before, vb, 0.0).sum(axis=0) / np.maximum(n_before, 1)
        # the tail-long window before that one: a drift keeps its direction over both
        earlier = seg & (tb >= t_last - 1.5 * need) & ~hold_w
        n_earlier = earlier.sum(axis=0)
        mean_earlier = np.where(earlier, vb, 0.0).sum(axis=0) / np.maximum(n_earlier, 1)
        amp_tail = np.where(has, _envelope(tail, vb)[1], np.nan)
        amp_before = np.where(n_before > 0, _envelope(before, vb)[1], 0.0)
    cap_b = np.broadcast_to(cap, settled_val.shape)
    # a fixed point: the tail in the base band around its mean, held for two tail lengths
    # the window in effect at t_start: the last sample at or before it (none: NaN)
    v_prior = _prior(tb, vb, t0)
    after_ss = np.broadcast_to(t0 >= left, settled_val.shape)
    with np.errstate(invalid="ignore"):
        from_fix = np.where((np.abs(v_prior - settled_val) <= base) & after_ss, t0, t_first)
        # still in slow start, or left it less than two tail lengths before the end
        in_ss = has & ~(t_last - left >= need - 1e-12)
    t_fix, out_fix = _entered(tb, seg & (~in_base | early), from_fix)
    fixed = tail_fits & np.isfinite(t_fix) & (t_last - t_fix >= need - 1e-12) & ~in_ss
    # a limit cycle: the hold window's half-range at most settle_band, neither drifting
    # nor growing (docs/round-model.md; a tail at rest in the base band is a fixed point)
    step = settled_val - mean_before
    same_way = (n_earlier == 0) | tail_fits | (step * (mean_before - mean_earlier) > 0)
    drifting = np.array(has & (n_before > 0) & (np.abs(step) > base) & same_way)
    wide = drifting & ~tail_fits
    if wide.any():
        drifting[wide] = _trend_significant(tb, vb, seg, t_last, 1.5 * need, base, wide)
    growing = np.array(has & (n_before > 0) & (amp_tail > amp_before + base))
    went_on = growing & (n_earlier > 0)
    if went_on.any():  # and the window before it: wider than the one before that?
        b_on, before_on = (np.broadcast_to(a, went_on.shape)[went_on] for a in (base, amp_before))
        growing[went_on] = _swing(vb, earlier, went_on) + b_on < before_on
    cycle = has & ~fixed & (amp_h <= cap_b) & ~drifting & ~growing & ~in_ss
    settled = fixed | cycle
    # the band of either: the envelope of the steady stretch (:func:`steady_from`)
    # widened by the base band
    mid_c, amp_c = mid_h, amp_h
    if settled.any():
        t_hold = np.min(np.where(hold_w, tb, np.inf), axis=0)
        # a fixed point's steady stretch swings within the base band, a cycle's within
        # settle_band: an excursion wider than the base band is not a fixed point's rest
        wide_ok = np.where(fixed, base, cap_b)
        after = seg & ~early
        steady = after & (tb >= steady_from(tb, vb, after, t_hold, settled_val, wide_ok, settled))
        with np.errstate(invalid="ignore"):  # inf - inf where a series did not settle
            mid_s, amp_s = _envelope(steady, vb)
            mid_c = np.where(settled, mid_s, mid_h)
            amp_c = np.where(settled, amp_s, amp_h)
    with np.errstate(invalid="ignore"):
        in_band = np.abs(vb - mid_c) <= amp_c + base
        from_band = np.where((np.abs(v_prior - mid_c) <= amp_c + base) & after_ss, t0, t_first)
    t_settle, t_out = _entered(tb, seg & (~in_band | early), from_band)
    status = np.select(
        [~has, fixed, cycle, in_ss, drifting, growing, ~tail_fits & (amp_h > cap_b)],
        [NO_SAMPLES, SETTLED_FIXED, SETTLED_CYCLE, IN_SLOW_START, DRIFTING, GROWING, BEYOND_BAND],
        DRIFTING,
    ).astype(np.int8)
    # a cycle: its steady stretch's envelope; a swing wider than settle_band: the hold
    # window's, which the test read
    held = cycle | (status == BEYOND_BAND)
    centre = np.where(held, mid_c, settled_val)
    tol = np.where(settled, amp_c + base, base)
    amp = np.where(held, amp_c, amp_tail)
    time_to = np.where(settled, t_settle - np.broadcast_to(t0, t_settle.shape), np.nan)
    return Settling(
        value=np.where(n_tail > 0, settled_val, np.nan),
        time_s=np.asarray(time_to, dtype=np.float64),
        settled=np.asarray(settled),
        tolerance=np.asarray(tol, dtype=np.float64),
        centre=np.asarray(centre, dtype=np.float64),
        amplitude=np.asarray(amp, dtype=np.float64),
        status=np.asarray(status),
        last_out_s=np.asarray(np.where(settled, t_out, out_fix), dtype=np.float64),
        settle_band=np.asarray(cap_b, dtype=np.float64),
        hold_needed_s=np.asarray(need, dtype=np.float64),
        drift=np.asarray(np.where((n_before > 0) & same_way, step, 0.0)),
        left_slow_start_s=np.asarray(np.broadcast_to(left, settled_val.shape), dtype=np.float64),
    )


def _envelope(mask: NDArray[np.bool_], v: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Midpoint and half-range of ``v`` over the samples ``mask`` along axis 0 (NaN and
    -inf where there are none)."""
    hi = np.max(np.where(mask, v, -np.inf), axis=0)
    lo = np.min(np.where(mask, v, np.inf), axis=0)
    with np.errstate(invalid="ignore"):  # inf + -inf: no samples, or infinite values
        return 0.5 * (hi + lo), 0.5 * (hi - lo)


def _swing(vb: FloatArray, window: NDArray[np.bool_], which: NDArray[np.bool_]) -> Any:
    """Half the range of the series ``which`` (a mask over the trailing axes) over the
    samples ``window``, in the order of ``which``'s true entries."""
    _, _, v, inside, _ = selected_columns(which, vb, vb, window)
    return _envelope(inside, v)[1]


#: the quarter-tail windows over the last three tail lengths that a drift is judged on
TREND_WINDOWS = 12
#: how many standard errors a drift must exceed (docs/round-model.md)
TREND_Z = 3.0


def _trend_significant(
    tb: FloatArray,
    vb: FloatArray,
    seg: NDArray[np.bool_],
    t_last: FloatArray,
    width: FloatArray,
    base: FloatArray,
    which: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """For the series ``which`` (a mask over the trailing axes): whether the last ``width``
    of the segment (three tail lengths) holds a trend, not noise (module docstring: the
    slope through :data:`TREND_WINDOWS` window means against :data:`TREND_Z` standard
    errors; ``True`` with fewer than four windows holding samples)."""
    _, t, v, inside, (t_last_c, w, base_c) = selected_columns(
        which, tb, vb, seg, t_last, width, base
    )
    lo = t_last_c - w
    k_n = TREND_WINDOWS
    m = v.shape[1]
    part = np.floor((t - lo) / np.where(w > 0, w, 1.0) * k_n)
    inside = inside & (t > lo) & (part >= 0)
    # one pass: each sample's (part, series) bin, the samples outside in a last bin
    key = np.where(inside, np.minimum(part, k_n - 1) * m + np.arange(m), k_n * m)
    key = key.astype(np.intp).ravel()
    n_bins = k_n * m + 1
    sums = np.bincount(key, np.where(inside, v, 0.0).ravel(), n_bins)[:-1].reshape(k_n, m)
    counts = np.bincount(key, None, n_bins)[:-1].reshape(k_n, m)
    ok = counts > 0
    means = sums / np.maximum(counts, 1)
    x = np.broadcast_to(((np.arange(k_n) + 0.5) * 3.0 / k_n)[:, None], means.shape)
    n = ok.sum(axis=0)
    xm = np.where(ok, x, 0.0).sum(axis=0) / np.maximum(n, 1)
    ym = np.where(ok, means, 0.0).sum(axis=0) / np.maximum(n, 1)
    sxx = np.where(ok, (x - xm) ** 2, 0.0).sum(axis=0)
    sxy = np.where(ok, (x - xm) * (means - ym), 0.0).sum(axis=0)
    slope = sxy / np.where(sxx > 0, sxx, 1.0)
    resid = np.where(ok, means - ym - slope * (x - xm), 0.0)
    se = np.sqrt((resid**2).sum(axis=0) / np.maximum(n - 2, 1) / np.where(sxx > 0, sxx, 1.0))
    trend = (np.abs(slope) > base_c) & (np.abs(slope) > TREND_Z * se)
    return np.asarray((n < 4) | trend)


def steady_from(
    tb: FloatArray,
    vb: FloatArray,
    seg: NDArray[np.bool_],
    t_hold: FloatArray,
    ref: FloatArray,
    cap: FloatArray,
    which: NDArray[np.bool_],
) -> FloatArray:
    """For the series ``which`` (a mask over the trailing axes): where the steady stretch
    begins (``inf`` for the others): the sample, at the latest the hold window's first
    (``t_hold``), minimising ``Σ_{i>=d} (v_i − m_d)² / n_d²`` (the MSER truncation point,
    K. P. White, Jr., Simulation 69(6), 1997), among those from which the half-range stays
    within ``cap``; ``ref`` is subtracted first for precision (compiled:
    :func:`tcpfluid.metrics._steady_kernel.steady_starts`)."""
    from ._steady_kernel import steady_starts

    idx, t, v, inside, per = selected_columns(which, tb, vb, seg, t_hold, ref, cap)
    # series by rows (the columns' transposes: no copy of their usual Fortran order)
    rows = (np.ascontiguousarray(a.T) for a in (t, v, inside))
    starts = steady_starts(*rows, *(np.ascontiguousarray(a, dtype=np.float64) for a in per))
    out = np.full(which.shape, np.inf)
    if which.ndim == 0:
        return np.asarray(starts[0]) if starts.size else out
    out[idx] = starts
    return out


def _prior(tb: FloatArray, vb: FloatArray, t0: FloatArray) -> FloatArray:
    """The value of the last sample at or before ``t0`` along axis 0 (the value in effect
    when the segment begins), NaN where there is none."""
    before = tb <= t0
    n = before.shape[0]
    last = n - 1 - np.argmax(before[::-1], axis=0)
    v = np.take_along_axis(vb, last[None, ...], axis=0)[0]
    return np.where(np.any(before, axis=0), v, np.nan)


def _entered(t: FloatArray, out: NDArray[np.bool_], t_first: FloatArray) -> tuple[Any, Any]:
    """The time of the first sample after the last one flagged ``out`` (``t_first`` when
    none is) and the time of that last one (NaN when none), along axis 0."""
    n = out.shape[0]
    any_out = np.any(out, axis=0)
    last = n - 1 - np.argmax(out[::-1], axis=0)
    nxt = np.minimum(last + 1, n - 1)
    t_next = np.take_along_axis(t, nxt[None, ...], axis=0)[0]
    t_last_out = np.take_along_axis(t, last[None, ...], axis=0)[0]
    # a series out of the band at its very last sample never entered it
    never = any_out & (last == n - 1)
    entered = np.where(any_out, np.where(never, np.inf, t_next), t_first)
    return entered, np.where(any_out, t_last_out, np.nan)


def law_settle_band(algorithm: str | None) -> float:
    """The ``settle_band`` of :func:`settling` for a flow running ``algorithm``: the law's
    own limit-cycle amplitude, packets (the class attribute ``cycle_amplitude_pkts`` of
    :class:`~tcpfluid.algorithms.base.ControlLaw`; 0 for ``None`` or a law that stops on
    a fixed point).

    Examples
    --------
    >>> law_settle_band("fast"), law_settle_band("vegas"), law_settle_band("enhanced-vegas")
    (0.0, 1.0, inf)
    """
    from ..algorithms.registry import law_class

    return 0.0 if algorithm is None else law_band(law_class(algorithm))


def law_band(law: Any) -> float:
    """The settling band of a flow run by the law object ``law``: its
    ``cycle_amplitude_pkts`` (:func:`law_settle_band`), 0 without one."""
    return float(getattr(law, "cycle_amplitude_pkts", 0.0))


def bandwidth_changes(intervals: Iterable[tuple[float, float]], end_s: float) -> tuple[float, ...]:
    """The bandwidth changes of a run: the times at which a cross-traffic source active over
    ``[start, stop)`` starts or stops, inside ``(0, end_s)``, increasing.

    A source starting with the run, or stopping at or after its end, changes nothing the
    run can see. These are the segment boundaries of :func:`settling_by_segment`.

    Examples
    --------
    >>> bandwidth_changes([(80.0, 160.0), (0.0, 300.0)], 240.0)
    (80.0, 160.0)
    """
    from .summary import run_changes

    return run_changes(intervals, (), check_positive("end_s", end_s, allow_inf=True))[0]


@dataclass(frozen=True)
class SegmentSettling:
    """Time to equilibrium and convergence times of a window series.

    Definitions: docs/round-model.md.

    ``equilibrium``: the :func:`settling` of the first segment of
    :func:`settling_by_segment`; ``convergence``: one per change."""

    equilibrium: Settling
    convergence: tuple[Settling, ...]

    def to_dict(self) -> dict[str, Any]:
        """``{"equilibrium": {...}, "convergence": [{...}, ...]}`` (``None`` for NaN)."""
        return {
            "equilibrium": self.equilibrium.to_dict(),
            "convergence": [c.to_dict() for c in self.convergence],
        }


def settling_by_segment(
    time_s: ArrayLike,
    window_pkts: ArrayLike,
    *,
    start_s: ArrayLike = 0.0,
    end_s: ArrayLike = math.inf,
    change_times_s: Sequence[float] = (),
    settle_band: ArrayLike = 0.0,
) -> SegmentSettling:
    """Time to equilibrium and the convergence time after each bandwidth change.

    The first segment runs from ``start_s`` to the first change after it, segment ``j`` from
    change ``j`` (``change_times_s``, increasing, s) to the next, each ending at ``end_s`` at
    the latest; ``settle_band`` as :func:`settling`.

    >>> t = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    >>> w = [2, 4, 8, 10, 10, 10, 10, 10, 10, 10, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]
    >>> r = settling_by_segment(t, w, change_times_s=[10.0], end_s=20.0)
    >>> float(r.equilibrium.value), float(r.equilibrium.time_s)
    (10.0, 4.0)
    >>> float(r.convergence[0].value), float(r.convergence[0].time_s)
    (5.0, 1.0)
    """
    changes = [check_real(f"change_times_s[{j}]", c) for j, c in enumerate(change_times_s)]
    if any(b <= a for a, b in itertools.pairwise(changes)):
        raise ValueError(f"change_times_s must be increasing, got {changes}")
    start = np.asarray(start_s, dtype=np.float64)
    end = np.asarray(end_s, dtype=np.float64)
    first_end = _first_end(start, end, changes)
    first = settling(time_s, window_pkts, t_start=start, t_end=first_end, settle_band=settle_band)
    bounds = [*changes, math.inf]
    conv = tuple(
        settling(
            time_s,
            window_pkts,
            t_start=np.maximum(start, tc),
            t_end=np.minimum(end, bounds[j + 1]),
            settle_band=settle_band,
        )
        for j, tc in enumerate(changes)
    )
    return SegmentSettling(equilibrium=first, convergence=conv)


def _first_end(start: Any, end: Any, changes: Sequence[float]) -> FloatArray:
    """Where each series' first segment ends: at the first change after its start, or at
    its end if sooner (``changes`` increasing)."""
    c = np.append(np.asarray(changes, dtype=np.float64), math.inf)
    after = c[np.searchsorted(c[:-1], start, side="right")]
    return np.asarray(np.minimum(end, after), dtype=np.float64)
