"""The metrics' array helpers: a checked ``(time, values)`` series, plain JSON values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array

FloatArray = NDArray[np.float64]


def _plain(a: NDArray[Any]) -> Any:
    """Plain lists (or a scalar): booleans as they are, numbers as floats, ``None`` for NaN
    or ±inf."""
    arr = np.asarray(a)
    if arr.dtype == bool:
        return arr.tolist()
    f = arr.astype(float)
    out = f.astype(object)
    out[~np.isfinite(f)] = None
    return out.tolist()


def _finite_or_none(x: Any) -> float | None:
    """A number as a plain float, ``None`` for NaN or ±inf ("did not happen" in the JSON
    summaries of every engine)."""
    v = float(x)
    return v if math.isfinite(v) else None


def _series(time_s: ArrayLike, values: ArrayLike, name: str) -> tuple[FloatArray, FloatArray]:
    t = as_float_array("time_s", time_s, finite=False)
    v = as_float_array(name, values, finite=False)
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


def selected_columns(
    which: NDArray[np.bool_],
    tb: FloatArray,
    vb: FloatArray,
    seg: NDArray[np.bool_],
    *per_series: Any,
) -> tuple[tuple[Any, ...], FloatArray, FloatArray, NDArray[np.bool_], list[Any]]:
    """The series ``which`` (a mask over the trailing axes of the batch ``tb``, ``vb``,
    ``seg``; a 0-d mask: one series) as columns: their index into the mask's shape, their
    times, values and segment masks (samples × selected), and each of ``per_series``
    (broadcast to the mask's shape) at them."""
    if which.ndim == 0:  # one series: a trailing axis of one
        tb, vb, seg, which = tb[:, None], vb[:, None], seg[:, None], which[None]
        per_series = tuple(np.atleast_1d(a) for a in per_series)
    idx = np.nonzero(which)
    cols: Any = (slice(None), *idx)
    picked = [np.broadcast_to(a, which.shape)[idx] for a in per_series]
    return idx, tb[cols], vb[cols], seg[cols], picked
