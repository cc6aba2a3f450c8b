"""Ring buffers of the packet simulator: their sizes and how they grow.

Each link holds its packets, and each flow its sent-and-unacknowledged sequence numbers,
in a ring: a slice of one shared array, a power of two long, indexed by a monotone counter
modulo its capacity. A full ring is doubled by :func:`grow_ring` (the compiled loop
returns to Python to ask for it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _core as C

__all__ = [
    "FLOW_RING",
    "FLOW_RING0",
    "LINK_RING",
    "LINK_RING0",
    "grow_ring",
    "link_ring_views",
    "pow2",
    "zeros_aligned",
]

Arrays = tuple[NDArray[Any], ...]

#: bytes a ring's array is aligned to: a link ring's row (``_core.NRF`` columns of eight
#: bytes) is then exactly one cache line
ALIGN = 64

#: initial ring slots of a link and of a flow (rings double on demand)
LINK_RING0 = 16
FLOW_RING0 = 64
#: where a flow's ring (send times and flags of its sequence numbers) is described in the
#: flows' integer array: offset, capacity, oldest unacknowledged, highest sent
FLOW_RING = (C.I_RING_OFF, C.I_RING_CAP, C.I_UNA, C.I_MAXSENT)
#: where a link's ring (the packets it holds) is described in the links' integer array:
#: offset, capacity, head, tail
LINK_RING = (C.J_OFF, C.J_CAP, C.J_HEAD, C.J_TAIL)


def pow2(n: float) -> int:
    """The smallest power of two >= ``n`` (at least 16)."""
    return 1 << max(4, math.ceil(math.log2(max(n, 1.0))))


def grow_ring(
    arrays: Arrays, used: int, table: NDArray[np.int64], row: int, cols: tuple[int, int, int, int]
) -> tuple[Arrays, int]:
    """Double a ring: the ring of row ``row`` of ``table`` (its columns ``cols``: offset,
    capacity (a power of two), lowest and highest live counter) moves to ``2 capacity``
    rows starting at row ``used`` of each array of ``arrays`` (the arrays are reallocated,
    to at least twice their rows, only when they are too short), keeping the entries of the
    monotone counters ``lo <= c < hi`` at slot ``c mod capacity``.

    Writes the ring's new offset (= ``used``) and capacity into ``table`` and returns the
    arrays and the rows now used; the old slots are left unused, so the arrays hold at
    most about twice the live rings' slots.
    """
    c_off, c_cap, c_lo, c_hi = cols
    off, cap = int(table[row, c_off]), int(table[row, c_cap])
    new_cap = 2 * cap
    rows = arrays[0].shape[0]
    if used + new_cap > rows:
        extra = max(rows, used + new_cap - rows)
        arrays = tuple(_longer(a, used, rows + extra) for a in arrays)
    ctr = np.arange(int(table[row, c_lo]), int(table[row, c_hi]), dtype=np.int64)
    old_idx = off + ctr % cap
    new_idx = used + ctr % new_cap
    for a in arrays:
        b = _bits(a)  # moved as integers: a link ring's float view also holds integers
        b[new_idx] = b[old_idx]
    table[row, c_off] = used
    table[row, c_cap] = new_cap
    return arrays, used + new_cap


def _longer(a: NDArray[Any], used: int, rows: int) -> NDArray[Any]:
    """``a`` with ``rows`` rows: its first ``used`` rows (the rings' slots; the rows after
    them were never used and are zero), then zeros.

    The zeros come from the allocator untouched (no page is written until a ring uses it),
    and only the used rows are copied: against concatenating ``a`` with a zero block, which
    writes every row of both, this took a 60-flow run's seven link-ring reallocations from
    22 ms each to a few (the rings' arrays hold about a million rows there).
    """
    out = zeros_aligned((rows, *a.shape[1:]), a.dtype)
    _bits(out)[:used] = _bits(a)[:used]
    return out


def _bits(a: NDArray[Any]) -> NDArray[Any]:
    """``a`` seen as integers of its item size (a float array's bits copied unchanged)."""
    return a.view(np.int64) if a.dtype == np.float64 else a


def zeros_aligned(shape: tuple[int, ...], dtype: Any) -> NDArray[Any]:
    """A C-contiguous array of zeros starting on an :data:`ALIGN`-byte boundary.

    NumPy aligns its arrays to their item size (or 16 bytes) only; the array here is a
    view into a slightly longer zeroed buffer (which it keeps alive).
    """
    dt = np.dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    buf = np.zeros(nbytes + ALIGN, dtype=np.uint8)
    start = -buf.ctypes.data % ALIGN
    return buf[start : start + nbytes].view(dt).reshape(shape)


def link_ring_views(rows: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The link rings' array of ``rows`` rows as ``(rf, ri)``: the same aligned memory,
    one row a packet, seen as floats and as integers (columns in ``_core``: ``RF_*``
    float, ``RI_*`` integer)."""
    rf = zeros_aligned((rows, C.NRF), np.float64)
    return rf, rf.view(np.int64)
