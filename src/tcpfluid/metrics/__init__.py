"""Summary metrics on plain arrays of samples: ``(time, value)`` series from any engine.

Time is along **axis 0**, further axes (scenarios, flows) carried through; ``time_s`` must
broadcast against the values. The definitions (slow-start exit, settling on a fixed point
or a limit cycle, utilization, Jain's index): docs/round-model.md, "The definitions of
tcpfluid.metrics". Results that may not exist (no exit, never settled) are ``NaN`` in float
arrays **and** ``False`` in the result's boolean field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_real
from ..analytic.equilibrium import _jain

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

    Its sample index
    (as float), time stamp (s) and value there (NaN when not found), and whether it happened."""

    index: FloatArray
    time_s: FloatArray
    value: FloatArray
    found: NDArray[np.bool_]

    def to_dict(self) -> dict[str, Any]:
        """Lists (or scalars) with ``None`` for events that did not happen."""
        return {k: _plain(getattr(self, k)) for k in ("index", "time_s", "value", "found")}


def slow_start_exit(time_s: ArrayLike, window_pkts: ArrayLike, in_slow_start: ArrayLike) -> Event:
    """The first exit from slow start (docs/round-model.md).

    Of the window series
    ``window_pkts`` (packets) at ``time_s``, ``in_slow_start`` saying whether the sender was
    in slow start at each sample: read from the phases alone (a run's summary,
    :func:`summarise`, also ends slow start at a flow's first loss event).

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
    t, w, ss = (np.broadcast_to(a, shape) for a in (t, w, ss))
    out_ss = ~ss
    first_out = np.argmax(out_ss, axis=0)
    found = np.any(out_ss, axis=0) & (first_out > 0)
    idx = np.where(found, first_out - 1, 0)
    tt = np.take_along_axis(t, first_out[None, ...], axis=0)[0]
    ww = np.take_along_axis(w, idx[None, ...], axis=0)[0]
    return Event(
        index=np.where(found, idx, np.nan).astype(np.float64),
        time_s=np.where(found, tt, np.nan),
        value=np.where(found, ww, np.nan),
        found=np.asarray(found),
    )


def time_average(time_s: ArrayLike, values: ArrayLike, *, t_start: float = 0.0) -> FloatArray:
    """Time average of a piecewise-constant series.

    Sample ``k`` holds over ``(time_s[k-1],
    time_s[k]]``, the first over ``(t_start, time_s[0]]``.

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

    ``rate_pps``: all traffic, packets/s; ``capacity_pps`` > 0, broadcast against the
    trailing axes.
    """
    cap = as_float_array("capacity_pps", capacity_pps, positive=True)
    return np.asarray(_time_average(time_s, rate_pps, "rate_pps", t_start) / cap, dtype=np.float64)


def jain_index(throughput: ArrayLike, *, axis: int = -1) -> FloatArray:
    """Jain's fairness index, eq. (13) of the Quick Vegas paper: ``(Σx)² / (n Σx²)``, as an array.

    The function of :func:`tcpfluid.analytic.jain_index`, always an array.

    >>> float(jain_index([1.0, 1.0, 1.0, 1.0])), float(jain_index([1.0, 0.0]))
    (1.0, 0.5)
    """
    x = np.atleast_1d(as_float_array("throughput", throughput, nonnegative=True))
    return np.asarray(_jain(x, throughput, axis, "throughput"), dtype=np.float64)


# the summary of a whole run (defined on the functions above)
from .summary import FlowRecord, FlowRecords, run_changes, summarise  # noqa: E402
