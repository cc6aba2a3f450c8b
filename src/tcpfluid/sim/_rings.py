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

__all__ = ["FLOW_RING0", "LINK_RING0", "grow_ring", "pow2"]

#: initial ring slots of a link and of a flow (rings double on demand)
LINK_RING0 = 16
FLOW_RING0 = 64


def pow2(n: float) -> int:
    """The smallest power of two >= ``n`` (at least 16)."""
    return 1 << max(4, math.ceil(math.log2(max(n, 1.0))))


def grow_ring(
    arrays: tuple[NDArray[Any], NDArray[Any]], used: int, off: int, cap: int, lo: int, hi: int
) -> tuple[tuple[NDArray[Any], NDArray[Any]], int, int]:
    """Double a ring: the rows of the ring at ``off`` (``cap`` slots, a power of two) move
    to ``2 cap`` rows starting at row ``used`` of each array of ``arrays`` (the arrays are
    reallocated, to at least twice their rows, only when they are too short), keeping the
    entries of the monotone counters ``lo <= c < hi`` at slot ``c mod capacity``.

    Returns the arrays and the ring's new offset (= ``used``) and capacity; the old slots
    are left unused, so the arrays hold at most about twice the live rings' slots.
    """
    new_cap = 2 * cap
    rows = arrays[0].shape[0]
    if used + new_cap > rows:
        extra = max(rows, used + new_cap - rows)
        arrays = (
            np.concatenate([arrays[0], np.zeros((extra, *arrays[0].shape[1:]), arrays[0].dtype)]),
            np.concatenate([arrays[1], np.zeros((extra, *arrays[1].shape[1:]), arrays[1].dtype)]),
        )
    ctr = np.arange(lo, hi, dtype=np.int64)
    old_idx = off + ctr % cap
    new_idx = used + ctr % new_cap
    for a in arrays:
        a[new_idx] = a[old_idx]
    return arrays, used, new_cap
