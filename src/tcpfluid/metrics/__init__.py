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
    samples in the segment's last ``tail_fraction`` of time (the *tail*); the *base band*
    is ``|v − settled| <= max(abs_tol, rel_tol × |settled|)`` (2 % or one packet). The
    series has settled on a **fixed point** if every tail sample lies in the base band and
    the series stays in it for at least twice the tail's length. A law whose own moves
    never stop keeps a **limit cycle** instead: over the *hold window* (the last two tail
    lengths) it swings around the midpoint of its range by half that range; it has
    settled in a cycle if that half-range is at most ``settle_band``, it does not drift
    (the tail's mean lies within the base band of the mean of the tail-long window before
    it; or, for a tail that swings wider than the base band, it moved the other way than
    that window's mean moved from the one before it; or the last three tail lengths, cut
    in twelve quarter-tail windows, hold no trend: the least-squares slope through their
    means is at most the base band per tail length or at most three standard errors of
    that slope) and it is not growing (the tail swings more than the base band wider than
    the window before it **and** that window more than the base band wider than the one
    before it). Its band is then ``|v − centre| <= amplitude + base band``, centre and
    amplitude the midpoint and half-range of its *steady stretch*: from the sample, at the
    latest the hold window's first, that minimises ``Σ (v_i − mean)² / n²`` over the
    samples from it on (the truncation point of the MSER rule, White 1997), to the
    segment's end. Either way the *time to settle* is the time, counted from ``t_start``,
    of the first sample after which every sample of the segment stays in the band; the
    value in effect when the segment begins (the last sample at or before ``t_start``)
    counts as a sample at ``t_start``, so a series that is already in its band then and
    never leaves it settled at once (0), not at its first sample of the segment (which
    is only where its sampling clock, a flow's round boundary, happens to fall).
    ``settle_band`` is per call (default 0: fixed points only); the run summaries pass
    each flow's law's own (:func:`law_settle_band`). Why a series did not settle is
    available as text (:meth:`Settling.reasons`). Time to equilibrium of a new connection
    is the time to settle of the window from its start to the first bandwidth change; the
    convergence time after a change is the time to settle from that change to the next
    (the Quick Vegas paper §5.1-5.2). docs/round-model.md gives the reasons for each part.
Utilization (:func:`utilization`)
    The time average of the carried rate divided by the capacity.
Jain's index (:func:`jain_index`)
    Eq. (13) of the Quick Vegas paper: ``(Σx)² / (n Σx²)``.

Results that may not exist (no exit, never settled) are ``NaN`` in float arrays **and**
flagged ``False`` in the result's boolean field; they are never silently NaN.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_real
from ..analytic.equilibrium import jain_index as _jain

__all__ = [
    "Event",
    "FlowRecord",
    "FlowRecords",
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

# _finite_or_none: the engines' plain JSON values
from ._arrays import FloatArray, _plain, _series
from ._arrays import _finite_or_none as _finite_or_none
from ._settling import (
    SegmentSettling,
    Settling,
    bandwidth_changes,
    law_settle_band,
    settling,
    settling_by_segment,
)


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
from .summary import FlowRecord, FlowRecords, run_changes, summarise  # noqa: E402
