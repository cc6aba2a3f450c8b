"""Private helpers shared by the control laws: parameter arrays, checks, floors."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import as_float_array

FloatArray = NDArray[np.float64]

#: smallest window of the Vegas family, packets (TCP-Ho's "CWND >= 2", the TCP-Ho paper §3.2;
#: the window a Vegas timeout restarts from, the Quick Vegas paper §3.1)
MIN_WINDOW = 2.0


def param_array(
    name: str,
    value: Any,
    *,
    positive: bool = False,
    nonnegative: bool = False,
    minimum: float | None = None,
) -> FloatArray:
    """A law parameter as a float64 array of shape ``()`` or ``(n,)``, checked elementwise
    (TypeError: not numbers; ValueError: not finite, out of bounds, or 2-D)."""
    if value is None or isinstance(value, bool):
        raise TypeError(f"{name} must be a number or an array of numbers, got {value!r}")
    arr = as_float_array(name, value, positive=positive, nonnegative=nonnegative, minimum=minimum)
    if arr.ndim > 1:
        raise ValueError(
            f"{name} must be a scalar or a 1-d array over flows, got an array of shape {arr.shape}"
        )
    return arr


def check_below(
    name: str, arr: FloatArray, limit: float, *, accepted: str, inclusive: bool
) -> None:
    """Raise ``ValueError`` naming ``name`` and quoting ``accepted`` unless every element
    is below ``limit`` (or equal to it, with ``inclusive``)."""
    bad = arr > limit if inclusive else arr >= limit
    if np.any(bad):
        value = float(np.atleast_1d(arr)[np.atleast_1d(bad)][0])
        raise ValueError(f"{name} must be in {accepted}, got {value!r}")


def check_le(lo_name: str, lo: FloatArray, hi_name: str, hi: FloatArray) -> None:
    """Raise ``ValueError`` naming both parameters unless ``lo <= hi`` elementwise."""
    try:
        lo_b, hi_b = np.broadcast_arrays(lo, hi)
    except ValueError as exc:
        raise ValueError(
            f"{lo_name} (shape {lo.shape}) and {hi_name} (shape {hi.shape}) must broadcast "
            "to the same number of flows"
        ) from exc
    bad = lo_b > hi_b
    if np.any(bad):
        i = int(np.flatnonzero(np.atleast_1d(bad))[0])
        a = float(np.atleast_1d(lo_b)[i])
        b = float(np.atleast_1d(hi_b)[i])
        raise ValueError(f"{lo_name} must be <= {hi_name}, got {lo_name}={a!r} > {hi_name}={b!r}")


def check_broadcast(params: dict[str, FloatArray]) -> None:
    """Raise ``ValueError`` unless all parameter arrays have compatible lengths."""
    lengths = {name: arr.shape[0] for name, arr in params.items() if arr.ndim == 1}
    distinct = {v for v in lengths.values() if v != 1}
    if len(distinct) > 1:
        detail = ", ".join(f"{k} has {v}" for k, v in lengths.items())
        raise ValueError(
            f"per-flow parameter arrays must have the same length (or length 1); {detail}"
        )


def check_flows(params: dict[str, FloatArray], n: Any) -> int:
    """Check ``n`` and that every parameter array broadcasts to ``n`` flows; return ``n``."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"n must be an integer number of flows, got {n!r} ({type(n).__name__})")
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1 flow, got {n}")
    for name, arr in params.items():
        if arr.ndim == 1 and arr.shape[0] not in (1, n):
            raise ValueError(
                f"{name} has {arr.shape[0]} values but the law is stepped over n={n} flows; "
                f"give a scalar or an array of length {n}"
            )
    return n


def f64(*arrays: Any) -> tuple[FloatArray, ...]:
    """Each of ``arrays`` as a float64 array (the sample's measurements a rule reads)."""
    return tuple(np.asarray(a, dtype=np.float64) for a in arrays)


def backlog(cwnd: Any, base_rtt: Any, rtt_mean: Any) -> Any:
    """Δ of eq (1), the Quick Vegas paper: ``cwnd × (1 − BaseRTT / RTT)`` in packets (the
    one implementation; arrays or floats, elementwise)."""
    return cwnd * (1.0 - base_rtt / rtt_mean)


def stride(params: Any, n: Any) -> int:
    """The step between the columns of a compiled rule's parameter rows ``params`` that
    flows ``i`` and ``i + 1`` of ``n`` read: 0 for one column (every flow's), else 1
    (ValueError: a column per flow for another number of flows)."""
    s = 1 if params.shape[1] > 1 else 0
    if s and params.shape[1] != n:
        raise ValueError("the law has per-flow parameters for another number of flows")
    return s


def fmax(x: Any, y: Any) -> Any:
    """``numpy.maximum(x, y)`` of two floats, for the compiled rules: NaN if either is NaN,
    else the larger (``x`` when they are equal)."""
    return x if (x >= y or x != x) else y


def fmin(x: Any, y: Any) -> Any:
    """``numpy.minimum(x, y)`` of two floats, for the compiled rules: NaN if either is NaN,
    else the smaller (``x`` when they are equal)."""
    return x if (x <= y or x != x) else y


def rule_params(*arrays: FloatArray) -> FloatArray:
    """Parameters as the rows of one float64 array for a compiled rule: shape ``(k, 1)``
    when every parameter is a scalar, ``(k, n)`` when one has a value per flow."""
    rows = np.broadcast_arrays(*(np.atleast_1d(a) for a in arrays))
    return np.ascontiguousarray(np.array(rows, dtype=np.float64))


def check_index(i: Any, n: Any) -> Any:
    """Flow index ``i`` of state arrays of length ``n``, a negative one counted from the end
    (as NumPy's indexing; plain Python for the compiled loss rules, which call it)."""
    if i < -n or i >= n:
        raise IndexError("a flow index is out of range of the law's state")
    return i + n if i < 0 else i


#: each loss kind read as a base kind (LOSS_BURST as LOSS_FAST, LOSS_BURST_TIMEOUT as
#: LOSS_TIMEOUT)
_BASE_KIND = {1: 1, 2: 2, 3: 3, 4: 1, 5: 3}


def base_kind(kind: Any) -> int:
    """A loss kind, checked: 1 (fast), 2 (retransmission lost), 3 (timeout), 4 and 5 (fast
    and timeout while the flow's ACKs are dropped on the ACK path); ``LOSS_BURST`` read as
    ``LOSS_FAST`` and ``LOSS_BURST_TIMEOUT`` as ``LOSS_TIMEOUT`` (how every law but Reno
    reacts to them)."""
    if type(kind) is int and kind in _BASE_KIND:  # the common case, checked at once
        return _BASE_KIND[kind]
    valid = isinstance(kind, int | np.integer) and not isinstance(kind, bool)
    if not valid or int(kind) not in _BASE_KIND:
        raise ValueError(
            "kind must be LOSS_FAST (1), LOSS_RETX (2), LOSS_TIMEOUT (3), LOSS_BURST (4) or "
            f"LOSS_BURST_TIMEOUT (5), got {kind!r}"
        )
    return _BASE_KIND[int(kind)]


def loss_args(index: Any, kind: Any, cwnd: Any) -> tuple[int, NDArray[np.intp], FloatArray]:
    """The checked arguments of :meth:`ControlLaw.on_loss`: ``(kind, index, cwnd)``, the
    kind read by :func:`base_kind` (ValueError: not a loss kind, or not one window per
    index)."""
    k = base_kind(kind)
    idx = np.asarray(index, dtype=np.intp)
    w = np.asarray(cwnd, dtype=np.float64)
    if w.shape != idx.shape:
        raise ValueError(
            f"cwnd must have one window per index, got shapes {w.shape} and {idx.shape}"
        )
    return k, idx, w
