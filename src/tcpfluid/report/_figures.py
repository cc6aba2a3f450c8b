"""Figure helpers of the report. A trace that oscillates faster than its panel can show is
drawn as a **moving-window envelope** (min–max band, mean line) with a **zoom** inset of the
raw trace over a few periods, titled with the measured period and amplitude.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import plot
from ._common import column_series
from ._core import Figure
from ._table import Row

#: a trace with more crossings of its moving mean (two per period) than this is "dense"
#: in a ~500 px panel
DENSE_CROSSINGS = 120
#: windows of the envelope over the run
ENVELOPE_WINDOWS = 125
#: a trace drawn as an envelope: label, times, queue and line style
_Trace = tuple[str, NDArray[np.float64], NDArray[np.float64], Mapping[str, Any]]


def _clean(t: ArrayLike, y: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    ta = np.asarray(t, dtype=np.float64).ravel()
    ya = np.asarray(y, dtype=np.float64).ravel()
    if ta.shape != ya.shape:
        raise ValueError(f"t and y must have the same length, got {ta.size} and {ya.size}")
    ok = np.isfinite(ta) & np.isfinite(ya)
    return ta[ok], ya[ok]


def crossings(t: ArrayLike, y: ArrayLike, *, window_s: float) -> int:
    """How often ``y`` crosses its own moving mean (window ``window_s``): twice per period
    of an oscillation that is faster than the window."""
    ta, ya = _clean(t, y)
    if ta.size < 3:
        return 0
    _, _, _, mean = envelope(ta, ya, window_s=window_s)
    idx = np.clip(np.searchsorted(_edges(ta, window_s), ta, side="right") - 1, 0, mean.size - 1)
    d = ya - mean[idx]
    s = np.sign(d[d != 0.0])
    return int(np.count_nonzero(s[1:] != s[:-1]))


def _edges(t: NDArray[np.float64], window_s: float) -> NDArray[np.float64]:
    n = max(int(np.ceil((t[-1] - t[0]) / window_s)), 1)
    return t[0] + window_s * np.arange(n + 1)


def envelope(
    t: ArrayLike, y: ArrayLike, *, window_s: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Per window of ``window_s`` seconds: (window start times, minimum, maximum, mean) of
    the samples in it (empty windows repeat the previous window's values)."""
    if not window_s > 0:
        raise ValueError(f"window_s must be > 0, got {window_s!r}")
    ta, ya = _clean(t, y)
    if ta.size == 0:
        return (np.zeros(0),) * 4
    order = np.argsort(ta, kind="stable")
    ta, ya = ta[order], ya[order]
    edges = _edges(ta, window_s)
    which = np.clip(np.searchsorted(edges, ta, side="right") - 1, 0, edges.size - 2)
    n = edges.size - 1
    lo, hi = np.full(n, np.nan), np.full(n, np.nan)
    total = np.bincount(which, weights=ya, minlength=n)
    count = np.bincount(which, minlength=n)
    np.fmin.at(lo, which, ya)
    np.fmax.at(hi, which, ya)
    last = np.maximum.accumulate(np.where(count > 0, np.arange(n), 0))  # the last non-empty
    return edges[:-1], lo[last], hi[last], (total / np.maximum(count, 1))[last]


@dataclass(frozen=True)
class Oscillation:
    """A trace's oscillation: mean period (s) and peak-to-peak amplitude (the median over
    windows of max − min), measured over a time span."""

    period_s: float
    amplitude: float


def oscillation(t: ArrayLike, y: ArrayLike, *, window_s: float) -> Oscillation:
    """Period (from the crossings of the moving mean over ``window_s``: two per period)
    and peak-to-peak amplitude (median over those windows of max − min)."""
    ta, ya = _clean(t, y)
    if ta.size < 3:
        return Oscillation(float("nan"), float("nan"))
    n = crossings(ta, ya, window_s=window_s)
    _, lo, hi, _ = envelope(ta, ya, window_s=window_s)
    period = 2.0 * float(ta[-1] - ta[0]) / n if n else float("nan")
    return Oscillation(period, float(np.median(hi - lo)))


def is_dense(t: ArrayLike, y: ArrayLike, *, t_end: float) -> bool:
    """True when ``y`` swings by more than a tenth of its range over more than
    :data:`DENSE_CROSSINGS` / 2 periods in the run (a solid block in a ~500 px panel)."""
    ta, ya = _clean(t, y)
    if ta.size < 3 or not t_end > 0:
        return False
    span, w = float(np.max(ya) - np.min(ya)), t_end / 10.0
    if span <= 0 or crossings(ta, ya, window_s=w) <= DENSE_CROSSINGS:
        return False
    return oscillation(ta, ya, window_s=w).amplitude > 0.1 * span


def draw_lines(
    ax: Any,
    x: ArrayLike,
    lines: Iterable[tuple[ArrayLike, str, Mapping[str, Any]]],
    prefix: str,
    color: str,
) -> None:
    """Draw each ``(y, what, style)`` of ``lines`` against ``x`` on ``ax`` in ``color``,
    labelled ``"<prefix> <what>"`` (NaN points left out, :func:`tcpfluid.plot.versus`)."""
    for y, what, style in lines:
        plot.versus(x, y, ax=ax, label=f"{prefix} {what}", color=color, **style)


def draw_columns(
    ax: Any,
    x: ArrayLike,
    rows: Sequence[Row],
    lines: Iterable[tuple[str, str, Mapping[str, Any]]],
    prefix: str,
    color: str,
) -> None:
    """:func:`draw_lines` of each ``(column, what, style)`` of ``lines``: the column's cells
    across ``rows`` (:func:`._common.column_series`) against ``x``."""
    draw_lines(ax, x, [(column_series(rows, c), w, st) for c, w, st in lines], prefix, color)


def render(fig: Any, ax: Any, name: str, caption: str, **labels: Any) -> Figure:
    """Label ``ax`` (:func:`tcpfluid.plot.finish` with ``labels``), then render ``fig`` as
    the report's figure ``name`` with ``caption``."""
    plot.finish(ax, **labels)
    return Figure.from_matplotlib(fig, name, caption)


def queue_panel(
    ax: Any, traces: Sequence[tuple[str, ArrayLike, ArrayLike, Mapping[str, Any]]], *, t_end: float
) -> list[str]:
    """Draw queue traces ``(label, t, queue, style)`` on ``ax``; a dense trace as a
    moving-window envelope, and then a zoom inset of the raw traces over a few periods.

    Returns the labels of the traces drawn as envelopes (for the caption).
    """
    window = t_end / ENVELOPE_WINDOWS
    dense: list[_Trace] = []
    for label, t, q, style in traces:
        ta, qa = _clean(t, q)
        if ta.size == 0:
            continue
        if is_dense(ta, qa, t_end=t_end):
            start, lo, hi, mean = envelope(ta, qa, window_s=window)
            color = style.get("color")
            x = np.append(start, start[-1] + window)
            ax.fill_between(
                x, np.append(lo, lo[-1]), np.append(hi, hi[-1]), step="post", color=color,
                alpha=0.25, linewidth=0,
            )  # fmt: skip
            ax.step(
                x, np.append(mean, mean[-1]), where="post", color=color, linewidth=0.9,
                label=f"{label} (mean; band: min–max per {window:g} s)",
            )  # fmt: skip
            dense.append((label, ta, qa, style))
        else:
            ax.plot(ta, qa, label=label, **dict(style))
    if dense:
        _zoom(ax, dense, t_end=t_end, window=window)
    return [d[0] for d in dense]


def _zoom(ax: Any, dense: Sequence[_Trace], *, t_end: float, window: float) -> None:
    """An inset with the raw dense traces over about three periods of the slowest one
    (every trace shows a whole cycle), titled with each trace's period and swing."""
    oscs = [oscillation(t, q, window_s=t_end / 10.0) for _, t, q, _ in dense]
    periods = [o.period_s for o in oscs if np.isfinite(o.period_s)]
    t0 = dense[0][1]
    step = float(np.median(np.diff(t0))) if t0.size > 1 else window
    width = 3.0 * max(periods) if periods else window
    width = float(np.clip(width, 10.0 * step, t_end / 10.0))
    start = 0.5 * t_end - width / 2.0
    ins = ax.inset_axes((1.04, 0.12, 0.3, 0.76))  # right of the panel: hides no data
    for _lab, t, q, style in dense:
        m = (t >= start) & (t <= start + width)
        ins.plot(t[m], q[m], **{**dict(style), "linewidth": 0.8})
    ins.set_xlim(start, start + width)
    ins.tick_params(labelsize=5)
    ins.set_title(
        "zoom\n"
        + "\n".join(
            f"{lab}: period ≈ {o.period_s:.2g} s, swing ≈ {o.amplitude:.0f} pkts"
            for (lab, _, _, _), o in zip(dense, oscs, strict=True)
        ),
        fontsize=5,
    )
    ins.set_facecolor("white")
    ax.indicate_inset_zoom(ins, edgecolor="0.4")
