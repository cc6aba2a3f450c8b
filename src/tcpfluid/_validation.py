"""Input checks shared by every public entry point.

Every check raises :class:`ValueError` (or :class:`TypeError` for a wrong type) with a
message that names the parameter, quotes the value and states the accepted range.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)


def check_real(name: str, value: Any) -> float:
    """Return ``value`` as a finite float or raise naming ``name``."""
    if not _is_number(value):
        raise TypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def check_positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A strictly positive float (optionally ``inf``)."""
    if allow_inf and _is_number(value) and float(value) == math.inf:
        return math.inf
    x = check_real(name, value)
    if x <= 0.0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return x


def check_nonnegative(name: str, value: Any) -> float:
    """A float that is ``>= 0``."""
    x = check_real(name, value)
    if x < 0.0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return x


def check_range(
    name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False
) -> float:
    """A float inside ``[lo, hi]`` (ends open where asked)."""
    x = check_real(name, value)
    bad = (x <= lo if lo_open else x < lo) or (x >= hi if hi_open else x > hi)
    if bad:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise ValueError(f"{name} must be in {left}{lo}, {hi}{right}, got {value!r}")
    return x


def check_int(name: str, value: Any, *, minimum: int | None = None) -> int:
    """An integer (not a bool), optionally ``>= minimum``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    i = int(value)
    if minimum is not None and i < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return i


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    options = tuple(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


def as_float_array(
    name: str,
    value: Any,
    *,
    positive: bool = False,
    nonnegative: bool = False,
    minimum: float | None = None,
) -> NDArray[np.float64]:
    """Convert ``value`` to a float64 array and check every element.

    Scalars become 0-d arrays. NaN and infinities are rejected.
    """
    if isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    if arr.size and not np.all(np.isfinite(arr)):
        bad = float(arr[~np.isfinite(arr)].ravel()[0])
        raise ValueError(f"{name} must be finite, got {bad!r} in {name}")
    if positive and arr.size and np.any(arr <= 0):
        bad = float(arr[arr <= 0].ravel()[0])
        raise ValueError(f"{name} must be > 0, got {bad!r} in {name}")
    if nonnegative and arr.size and np.any(arr < 0):
        bad = float(arr[arr < 0].ravel()[0])
        raise ValueError(f"{name} must be >= 0, got {bad!r} in {name}")
    if minimum is not None and arr.size and np.any(arr < minimum):
        bad = float(arr[arr < minimum].ravel()[0])
        raise ValueError(f"{name} must be >= {minimum}, got {bad!r} in {name}")
    return arr
