"""The train fraction f of :func:`tcpfluid.analytic.blb_train_equilibrium`, measured on a
packet run's goodput trace (docs/analytic.md, "A flow whose packets arrive as a train")."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import as_float_array, check_positive, check_real

__all__ = ["delivered_pkts", "train_fraction"]


def _sample_times(name: str, t_s: Any) -> NDArray[np.float64]:
    """A trace's sample times: 1-D, finite, >= 0 and non-decreasing (a ValueError naming
    ``name`` and the first sample out of order)."""
    t = as_float_array(name, t_s, nonnegative=True)
    if t.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {t.shape}")
    if (back := np.flatnonzero(np.diff(t) < 0)).size:
        i = int(back[0])
        raise ValueError(
            f"{name} must be non-decreasing, got {name}[{i + 1}] = {float(t[i + 1])!r} after "
            f"{name}[{i}] = {float(t[i])!r}"
        )
    return t


def delivered_pkts(t_s: Any, rates_pps: Any) -> NDArray[np.float64]:
    """Cumulative delivered packets per flow, shape ``(n, k)``, from rates per sample
    interval, shape ``(n, k)``: sample ``j`` covers ``(t_{j-1}, t_j]`` with ``t_{-1} = 0``.

    The delivered counts :func:`tcpfluid.fairness.period_throughputs` reads, from a
    :class:`~tcpfluid.results.Result`'s ``time_s`` and ``throughput_pps``.

    Parameters
    ----------
    t_s
        Sample times, s, shape ``(k,)``: finite, >= 0, non-decreasing.
    rates_pps
        Each flow's delivery rate over each sample interval, packets/s (finite, >= 0),
        shape ``(n, k)`` (or ``(k,)`` for one flow).

    Examples
    --------
    >>> delivered_pkts([1.0, 2.0, 3.0], [[2.0, 2.0, 2.0], [1.0, 3.0, 0.0]]).tolist()
    [[2.0, 4.0, 6.0], [1.0, 4.0, 4.0]]
    """
    t = as_float_array("t_s", t_s)
    rates = as_float_array("rates_pps", rates_pps, nonnegative=True)
    if t.ndim != 1 or rates.shape[-1:] != t.shape:
        raise ValueError(
            "t_s must be 1-D and rates_pps must have one value per sample of t_s along its "
            f"last axis, got shapes {t.shape} and {rates.shape}"
        )
    t = _sample_times("t_s", t)
    dt = np.diff(t, prepend=0.0)
    return np.cumsum(rates * dt, axis=-1)


def train_fraction(
    t_s: Any,
    goodput_pps: Any,
    capacity_pps: float,
    *,
    start_s: float,
    end_s: float,
) -> float:
    """Share of ``[start_s, end_s)`` in which one flow's packets leave the bottleneck.

    f is the share of windows of two service times, ``2/c``, in which the flow delivered at
    least half a packet (why 2/c: docs/analytic.md, "A flow whose packets arrive as a
    train").

    Parameters
    ----------
    t_s
        Sample times, s, increasing; sample ``j`` covers ``(t_{j-1}, t_j]`` (``t_{-1} = 0``).
    goodput_pps
        The flow's delivery rate per sample, packets/s.
    capacity_pps
        c, the bottleneck rate, packets/s (> 0).
    start_s, end_s
        The measurement interval, s, inside the trace.

    Returns f in [0, 1]; a ValueError if the trace is sampled coarser than ``0.5/c``.
    """
    t = as_float_array("t_s", t_s)
    g = as_float_array("goodput_pps", goodput_pps, nonnegative=True)
    if t.ndim != 1 or g.shape != t.shape or t.size < 2:
        raise ValueError(
            f"t_s and goodput_pps must be 1-D of one length >= 2, got {t.shape} and {g.shape}"
        )
    c = check_positive("capacity_pps", capacity_pps)
    a, b = check_real("start_s", start_s), check_real("end_s", end_s)
    width = 2.0 / c
    if not (t[0] <= a < b <= t[-1]) or b - a < width:
        raise ValueError(
            f"need t_s[0] <= start_s < end_s <= t_s[-1] with at least one window of {width} s, "
            f"got start_s={start_s!r}, end_s={end_s!r} on [{t[0]}, {t[-1]}]"
        )
    step = float(np.max(np.diff(t)))
    if step > width / 4.0:
        raise ValueError(
            f"the trace is sampled every {step} s; the train fraction needs samples of at most "
            f"{width / 4.0} s (a quarter of two service times at capacity_pps={c})"
        )
    delivered = delivered_pkts(t, g)
    edges = a + width * np.arange(int((b - a) / width) + 1)
    per_window = np.diff(np.interp(edges, t, delivered))
    return float(np.mean(per_window > 0.5))
