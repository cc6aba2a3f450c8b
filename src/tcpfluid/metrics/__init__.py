"""Summary metrics on plain arrays of samples: ``(time, value)`` series from any engine.

Every function takes a time array and value arrays with **time along axis 0**; further axes
(scenarios, flows) are carried through, so one call summarises a whole batch. ``time_s``
must broadcast against the values (``(R,)``, or ``(R, S, 1)`` for values ``(R, S, F)``).
The samples may come from the round model (one sample per round, stamped at the round's
end) or from a packet simulator (samples at any times).

Definitions
-----------
Slow-start exit (:func:`slow_start_exit`)
    The last sample in slow start that is followed by a sample out of it; the exit window is
    the window of that sample (the window that triggered the exit, before any cut) and the
    exit time the time stamp of the following sample, the first one out of slow start:
    the moment the sender has measured the round that sent that window and decided to
    leave (the Quick Vegas paper Fig. 1: "stops at 1.2 second with congestion window size 64").
    Only the first exit counts.
Settled value and time to settle (:func:`settling`)
    Within a segment ``t_start < t <= t_end``, the *settled value* is the mean of the
    samples in the segment's last ``tail_fraction`` of time (the *tail*). The series has
    settled on a **fixed point** if every tail sample lies in the base band
    ``|v − settled| <= max(abs_tol, rel_tol × |settled|)`` and the series stays in it for
    at least twice the tail's length (a segment cut short in a slow transient is not
    settled). A law whose own moves never stop (Quick Vegas's ±1 moves around its band,
    TCP-Ho's holds and one-packet steps, iTCP-Vegas's resets; Vegas's window in packets
    dithering by one move at its band's edge) keeps a **limit cycle** instead: over the
    *hold window* (the last two tail lengths) the series swings around
    the midpoint of its range (the cycle's *centre*) by half that range (its
    *amplitude*); it has settled in that cycle if the amplitude is at most
    ``settle_band``, the tail's mean lies within the base band of the mean of the window
    before it (no drift) and the tail swings at most the base band wider than that
    window (not growing). Its band is then ``|v − centre| <= amplitude + max(abs_tol,
    rel_tol × |settled|)``. Either way the *time to settle* is the time, counted from
    ``t_start``, of the first sample after which every sample of the
    segment stays in the band. ``settle_band`` is per call (default 0: fixed points only);
    the run summaries pass each flow's law's own, the class attribute
    ``cycle_amplitude_pkts`` of :class:`~tcpfluid.algorithms.base.ControlLaw`
    (:func:`law_settle_band`). Why a series did not settle is
    available as text (:meth:`Settling.reasons`). The base band's defaults (2 % or one
    packet) are tighter than the documents' curves can be read, so that "reached 630
    packets at 59 s" and "within the band from 57.8 s on" describe the same event to
    within a few percent. Time to equilibrium of a new connection is the time to settle of
    the window from 0 to the first bandwidth change; the convergence time after a change is
    the time to settle from that change to the next (the Quick Vegas paper §5.1-5.2 use the same
    notion, in seconds or in BaseRTTs).
Utilization (:func:`utilization`)
    The time average of the carried rate divided by the capacity.
Jain's index (:func:`jain_index`)
    Eq. (13) of the Quick Vegas paper: ``(Σx)² / (n Σx²)``.

Results that may not exist (no exit, never settled) are ``NaN`` in float arrays **and**
flagged ``False`` in the result's boolean field; they are never silently NaN.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import (
    as_float_array,
    check_nonnegative,
    check_positive,
    check_range,
    check_real,
)
from ..analytic.equilibrium import jain_index as _jain

__all__ = [
    "Event",
    "FlowRecord",
    "SegmentSettling",
    "Settling",
    "bandwidth_changes",
    "jain_index",
    "law_settle_band",
    "run_changes",
    "settling",
    "settling_by_segment",
    "slow_start_exit",
    "summarise",
    "time_average",
    "utilization",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class Event:
    """A one-off event found in a series (arrays over the trailing axes).

    Attributes
    ----------
    index
        Sample index (as float; NaN if not found).
    time_s
        Time stamp of that sample, s.
    value
        The series' value at that sample.
    found
        Whether the event happened.
    """

    index: FloatArray
    time_s: FloatArray
    value: FloatArray
    found: NDArray[np.bool_]

    def to_dict(self) -> dict[str, Any]:
        """Lists (or scalars) with ``None`` for events that did not happen."""
        return {k: _plain(getattr(self, k)) for k in ("index", "time_s", "value", "found")}


#: :attr:`Settling.status` codes: how the segment settled, or why it did not
SETTLED_FIXED = 0
SETTLED_CYCLE = 1
NO_SAMPLES = 2
BEYOND_BAND = 3
GROWING = 4
DRIFTING = 5


@dataclass(frozen=True)
class Settling:
    """Where a series settles within a segment (arrays over the trailing axes).

    Attributes
    ----------
    value
        The settled value (mean over the segment's tail).
    time_s
        Time from ``t_start`` to the first sample after which the series stays in the band
        (NaN when not settled).
    settled
        Whether the series settled (on a fixed point or in a limit cycle).
    tolerance
        Half-width of the band used (the cycle's amplitude plus the base band for a
        limit cycle).
    centre
        Centre of the band: the settled value for a fixed point, the midpoint of the
        tail's range for a limit cycle.
    amplitude
        Half of the range (max − min)/2 of the hold window (the last two tail lengths) for
        a limit cycle, of the tail otherwise (≈ 0 on a fixed point).
    status
        How it settled or why not: 0 fixed point, 1 limit cycle, 2 no samples in the
        segment, 3 the oscillation is wider than ``settle_band``, 4 the oscillation is
        still growing, 5 still drifting (the tail's mean moved by more than the base band
        from the window before it, or the series left its band less than two tail lengths
        before the segment's end).
    last_out_s
        Time of the last sample outside the band (NaN if none), s.
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
        if code == BEYOND_BAND:
            return (
                f"the tail oscillates ±{amp:.3g} around {centre:.6g}, wider than the band "
                f"(±{max(tol, at(self.settle_band)):.3g}: the base band or settle_band)"
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


def _plain(a: NDArray[Any]) -> Any:
    arr = np.asarray(a)
    if arr.dtype == bool:
        return arr.tolist()
    out = arr.astype(float).tolist()
    return _none_nan(out)


def _none_nan(x: Any) -> Any:
    if isinstance(x, list):
        return [_none_nan(v) for v in x]
    return _finite_or_none(x) if isinstance(x, float) else x


def _finite_or_none(x: Any) -> float | None:
    """A number as a plain float, ``None`` for NaN or ±inf ("did not happen" in the JSON
    summaries of every engine)."""
    v = float(x)
    return v if math.isfinite(v) else None


def _series(time_s: ArrayLike, values: ArrayLike, name: str) -> tuple[FloatArray, FloatArray]:
    t = _floats("time_s", time_s)
    v = _floats(name, values)
    if t.ndim == 0 or v.ndim == 0:
        raise ValueError(f"time_s and {name} must have a time axis (axis 0)")
    if t.ndim < v.ndim:  # a time axis shared by every column: (R,) -> (R, 1, ...)
        t = t.reshape(t.shape + (1,) * (v.ndim - t.ndim))
    if t.shape[0] != v.shape[0]:
        raise ValueError(
            f"time_s and {name} must have the same number of samples on axis 0, got "
            f"{t.shape[0]} and {v.shape[0]}"
        )
    try:
        np.broadcast_shapes(t.shape, v.shape)
    except ValueError as exc:
        raise ValueError(
            f"time_s (shape {t.shape}) must broadcast against {name} (shape {v.shape})"
        ) from exc
    if t.shape[0] == 0:
        raise ValueError(f"{name} has no samples")
    if np.any(np.isnan(t)):
        raise ValueError("time_s must not contain NaN")
    if np.any(np.isnan(v)):
        i = int(np.flatnonzero(np.isnan(v).reshape(v.shape[0], -1).any(axis=1))[0])
        raise ValueError(f"{name} must not contain NaN, got NaN at sample {i}")
    return t, v


def _floats(name: str, value: Any) -> FloatArray:
    """``value`` as a float64 array (NaN and ``inf`` kept for the caller to judge), or a
    ``TypeError`` naming ``name`` (also used by :mod:`tcpfluid.fluid.rounds`)."""
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from exc


def slow_start_exit(time_s: ArrayLike, window_pkts: ArrayLike, in_slow_start: ArrayLike) -> Event:
    """The first exit from slow start (module docstring).

    Parameters
    ----------
    time_s
        Sample times, axis 0.
    window_pkts
        Window at each sample, packets.
    in_slow_start
        Boolean: whether the sender was in slow start at each sample.

    Examples
    --------
    >>> e = slow_start_exit([0.1, 0.2, 0.3, 0.4], [2, 4, 8, 7], [True, True, True, False])
    >>> float(e.time_s), float(e.value), int(e.index)
    (0.4, 8.0, 2)
    """
    t, w = _series(time_s, window_pkts, "window_pkts")
    ss = np.asarray(in_slow_start, dtype=bool)
    if ss.shape[0] != w.shape[0]:
        raise ValueError(
            f"in_slow_start must have {w.shape[0]} samples on axis 0, got {ss.shape[0]}"
        )
    shape = np.broadcast_shapes(t.shape, w.shape, ss.shape)
    t = np.broadcast_to(t, shape)
    w = np.broadcast_to(w, shape)
    ss = np.broadcast_to(ss, shape)
    out_ss = ~ss
    first_out = np.argmax(out_ss, axis=0)
    found = np.any(out_ss, axis=0) & (first_out > 0)
    idx = np.where(found, first_out - 1, 0)
    tt = np.take_along_axis(t, first_out[None, ...], axis=0)[0]
    ww = np.take_along_axis(w, idx[None, ...], axis=0)[0]
    nan = np.nan
    return Event(
        index=np.where(found, idx, nan).astype(np.float64),
        time_s=np.where(found, tt, nan),
        value=np.where(found, ww, nan),
        found=np.asarray(found),
    )


def settling(
    time_s: ArrayLike,
    values: ArrayLike,
    *,
    t_start: ArrayLike = 0.0,
    t_end: ArrayLike = math.inf,
    rel_tol: float = 0.02,
    abs_tol: float = 1.0,
    tail_fraction: float = 0.1,
    settle_band: ArrayLike = 0.0,
) -> Settling:
    """Settled value and time to settle within ``t_start < t <= t_end`` (module docstring).

    Parameters
    ----------
    time_s, values
        The series (time along axis 0).
    t_start, t_end
        Segment bounds, s (scalars or arrays broadcasting against the trailing axes).
    rel_tol, abs_tol
        Half-width of the base band: ``max(abs_tol, rel_tol × |settled value|)``.
    tail_fraction
        Fraction of the segment's time span, at its end, that defines the settled value
        (``(0, 1]``).
    settle_band
        The largest amplitude (half-range, in the values' unit) of a limit cycle accepted
        as steady, ``>= 0`` (``inf``: any cycle that neither drifts nor grows); a scalar or
        an array broadcasting against the trailing axes (one per flow). 0 (the default)
        accepts fixed points only; :func:`law_settle_band` gives a law's own.

    Examples
    --------
    >>> t = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> v = [0, 50, 90, 99, 100, 100, 100, 100, 100, 100]
    >>> r = settling(t, v, rel_tol=0.02, abs_tol=0.0, tail_fraction=0.3)
    >>> float(r.value), float(r.time_s), bool(r.settled)
    (100.0, 4.0, True)

    A steady ±1 cycle settles when ``settle_band`` admits it:

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
    cap = _floats("settle_band", settle_band)
    if np.any(np.isnan(cap)) or np.any(cap < 0):
        raise ValueError(f"settle_band must be >= 0 (or inf), got {settle_band!r}")
    shape = np.broadcast_shapes(t.shape, v.shape)
    tb = np.broadcast_to(t, shape)
    vb = np.broadcast_to(v, shape)
    t0 = _floats("t_start", t_start)
    t1 = _floats("t_end", t_end)
    for bound, arr in (("t_start", t0), ("t_end", t1)):
        if np.any(np.isnan(arr)):
            raise ValueError(f"{bound} must be a time in s (or ±inf), got NaN")
    seg = (tb > t0) & (tb <= t1)
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
        need = 2.0 * tf * span
        hold_w = seg & (tb >= t_last - need)
        before = hold_w & ~tail
        hi = np.max(np.where(hold_w, vb, -np.inf), axis=0)
        lo = np.min(np.where(hold_w, vb, np.inf), axis=0)
        has = n_tail > 0
        amp_h = np.where(has, 0.5 * (hi - lo), np.nan)
        mid_h = np.where(has, 0.5 * (hi + lo), np.nan)
        n_before = before.sum(axis=0)
        mean_before = np.where(before, vb, 0.0).sum(axis=0) / np.maximum(n_before, 1)
        t_hi = np.max(np.where(tail, vb, -np.inf), axis=0)
        t_lo = np.min(np.where(tail, vb, np.inf), axis=0)
        b_hi = np.max(np.where(before, vb, -np.inf), axis=0)
        b_lo = np.min(np.where(before, vb, np.inf), axis=0)
        amp_tail = np.where(has, 0.5 * (t_hi - t_lo), np.nan)
        amp_before = np.where(n_before > 0, 0.5 * (b_hi - b_lo), 0.0)
    cap_b = np.broadcast_to(cap, settled_val.shape)
    # a fixed point: the tail in the base band around its mean, held for two tail lengths
    t_fix, out_fix = _entered(tb, seg & ~in_base, t_first)
    fixed = tail_fits & np.isfinite(t_fix) & (t_last - t_fix >= need - 1e-12)
    # a limit cycle: the hold window's range (centre ± amplitude, widened by the base band),
    # neither drifting (the tail's mean within the base band of the window before it) nor
    # growing (the tail's swing at most the base band wider than the window before it)
    drifting = has & (n_before > 0) & (np.abs(settled_val - mean_before) > base)
    growing = has & (n_before > 0) & (amp_tail > amp_before + base)
    with np.errstate(invalid="ignore"):
        in_cycle = np.abs(vb - mid_h) <= amp_h + base
    t_cyc, out_cyc = _entered(tb, seg & ~in_cycle, t_first)
    try_cycle = has & ~fixed
    cycle = try_cycle & (amp_h <= cap_b) & ~drifting & ~growing
    settled = fixed | cycle
    t_settle = np.where(cycle, t_cyc, t_fix)
    t_out = np.where(cycle, out_cyc, out_fix)
    status = np.select(
        [~has, fixed, cycle, drifting, growing, ~tail_fits & (amp_h > cap_b)],
        [NO_SAMPLES, SETTLED_FIXED, SETTLED_CYCLE, DRIFTING, GROWING, BEYOND_BAND],
        DRIFTING,
    ).astype(np.int8)
    centre = np.where(cycle, mid_h, settled_val)
    tol = np.where(cycle, amp_h + base, base)
    amp = np.where(cycle, amp_h, amp_tail)
    time_to = np.where(settled, t_settle - np.broadcast_to(t0, t_settle.shape), np.nan)
    return Settling(
        value=np.where(n_tail > 0, settled_val, np.nan),
        time_s=np.asarray(time_to, dtype=np.float64),
        settled=np.asarray(settled),
        tolerance=np.asarray(tol, dtype=np.float64),
        centre=np.asarray(centre, dtype=np.float64),
        amplitude=np.asarray(amp, dtype=np.float64),
        status=np.asarray(status),
        last_out_s=np.asarray(t_out, dtype=np.float64),
        settle_band=np.asarray(cap_b, dtype=np.float64),
        hold_needed_s=np.asarray(need, dtype=np.float64),
        drift=np.asarray(np.where(n_before > 0, settled_val - mean_before, 0.0)),
    )


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
    >>> law_settle_band("fast"), law_settle_band("vegas"), law_settle_band("quick-vegas")
    (0.0, 1.0, inf)
    """
    if algorithm is None:
        return 0.0
    from ..algorithms.registry import law_class

    return float(law_class(algorithm).cycle_amplitude_pkts)


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
    end = check_positive("end_s", end_s, allow_inf=True)
    edges = {float(t) for interval in intervals for t in interval}
    return tuple(sorted(t for t in edges if 0.0 < t < end))


@dataclass(frozen=True)
class SegmentSettling:
    """Time to equilibrium and convergence times of a window series (module docstring).

    Attributes
    ----------
    equilibrium
        :func:`settling` from the flow's start to the first bandwidth change after it (or
        the flow's end): settled window and time to equilibrium.
    convergence
        One :func:`settling` per bandwidth change, from the change (or the flow's start,
        if later) to the next change (or the flow's end): convergence times.
    """

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

    The one definition every engine's summary uses (module docstring): the series is cut
    at the bandwidth changes; the first segment runs from the flow's start to the first
    change after it, segment ``j`` from change ``j`` (or the flow's start, if later) to
    change ``j + 1``; every segment ends at the latest at ``end_s``; each is judged by
    :func:`settling` with its default band.

    Parameters
    ----------
    time_s, window_pkts
        The window series (time along axis 0), as :func:`settling`.
    start_s, end_s
        The flow's active interval, s (scalars or arrays over the trailing axes).
    change_times_s
        Times of the bandwidth changes, s, increasing.
    settle_band
        The largest limit-cycle amplitude accepted as steady (:func:`settling`), per
        series (an array over the trailing axes) or one for all.

    Examples
    --------
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
    first_end = end
    for c in changes:
        first_end = np.where(c > start, np.minimum(first_end, c), first_end)
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


def time_average(time_s: ArrayLike, values: ArrayLike, *, t_start: float = 0.0) -> FloatArray:
    """Time average of a piecewise-constant series.

    Sample ``k`` holds over ``(time_s[k-1], time_s[k]]`` (the first over
    ``(t_start, time_s[0]]``): the convention of per-round rates stamped at the round's end
    and of throughput samples over the interval since the previous sample.

    Examples
    --------
    >>> float(time_average([1.0, 3.0], [10.0, 4.0]))
    6.0
    """
    return _time_average(time_s, values, "values", t_start)


def _time_average(time_s: ArrayLike, values: ArrayLike, name: str, t_start: Any) -> FloatArray:
    t, v = _series(time_s, values, name)
    t0 = check_real("t_start", t_start)
    if np.any(np.diff(t, axis=0) < 0):
        raise ValueError("time_s must be non-decreasing along axis 0")
    first = np.asarray(t[:1] - t0)
    if np.any(first < 0):
        raise ValueError(f"t_start={t_start!r} is after the first sample")
    total = t[-1] - t0
    if np.any(np.asarray(total) <= 0):
        raise ValueError("the series spans no time (time_s[-1] <= t_start)")
    dt = np.concatenate([first, np.diff(t, axis=0)], axis=0)
    return np.asarray((v * dt).sum(axis=0) / total, dtype=np.float64)


def utilization(
    time_s: ArrayLike, rate_pps: ArrayLike, capacity_pps: ArrayLike, *, t_start: float = 0.0
) -> FloatArray:
    """Time-averaged carried rate over capacity (1 = the link always busy).

    Parameters
    ----------
    time_s, rate_pps
        The carried rate (all traffic of the link), packets/s, per sample interval.
    capacity_pps
        Link capacity, packets/s (> 0; broadcast against the trailing axes).
    """
    cap = as_float_array("capacity_pps", capacity_pps, positive=True)
    return np.asarray(_time_average(time_s, rate_pps, "rate_pps", t_start) / cap, dtype=np.float64)


def jain_index(throughput: ArrayLike, *, axis: int = -1) -> FloatArray:
    """Jain's fairness index, eq. (13) of the Quick Vegas paper: ``(Σx)² / (n Σx²)``, as an array.

    The same function as :func:`tcpfluid.analytic.jain_index` (which it calls), always
    returning an array so that batched summaries keep their shape.

    Examples
    --------
    >>> float(jain_index([1.0, 1.0, 1.0, 1.0]))
    1.0
    >>> float(jain_index([1.0, 0.0]))
    0.5
    """
    x = as_float_array("throughput", throughput, nonnegative=True)
    if x.ndim == 0:
        x = x[None]
    return np.asarray(_jain(x, axis=axis), dtype=np.float64)


# the summary of a whole run (defined on the functions above)
from .summary import FlowRecord, run_changes, summarise  # noqa: E402
