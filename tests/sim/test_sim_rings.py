"""Doubling a ring (``_rings.grow_ring``): the live entries keep their counters' slots in the
doubled ring, the other rings are untouched, and arrays that must grow keep every used row
and are zero after them."""

from __future__ import annotations

import numpy as np

from tcpfluid.sim._rings import grow_ring

COLS = (0, 1, 2, 3)  # offset, capacity, lowest live counter, highest


def _rings() -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
    # two rings of 4 slots in rows 0-3 and 4-7; ring 0 holds counters 6..9 (wrapped)
    f = np.zeros((8, 2))
    i = np.zeros((8, 3), dtype=np.int64)
    table = np.array([[0, 4, 6, 10], [4, 4, 0, 3]], dtype=np.int64)
    for c in range(6, 10):
        f[c % 4] = (c, -c)
        i[c % 4] = (c, 2 * c, 3 * c)
    for c in range(3):
        f[4 + c] = (100 + c, 0.5)
        i[4 + c] = (100 + c, 7, 7)
    return (f, i), table


def test_grow_moves_the_live_entries_to_their_slots_in_the_doubled_ring() -> None:
    (f, i), table = _rings()
    other_f, other_i = f[4:8].copy(), i[4:8].copy()
    (f2, i2), used = grow_ring((f, i), 8, table, 0, COLS)
    assert used == 16 and table[0, 0] == 8 and table[0, 1] == 8
    assert f2.shape[0] >= 16 and i2.shape[0] == f2.shape[0]
    for c in range(6, 10):
        k = 8 + c % 8
        assert tuple(f2[k]) == (c, -c)
        assert tuple(i2[k]) == (c, 2 * c, 3 * c)
    # the other ring is where it was, and rows past the used ones are zero
    np.testing.assert_array_equal(f2[4:8], other_f)
    np.testing.assert_array_equal(i2[4:8], other_i)
    unused = [k for k in range(8, f2.shape[0]) if not 14 <= k <= 15 and not 8 <= k <= 9]
    assert not f2[unused].any() and not i2[unused].any()
    assert f2.dtype == f.dtype and i2.dtype == i.dtype
    assert f2.flags.c_contiguous and i2.flags.c_contiguous


def test_grow_within_the_arrays_keeps_them() -> None:
    (f, i), table = _rings()
    f = np.concatenate([f, np.zeros((8, 2))])
    i = np.concatenate([i, np.zeros((8, 3), dtype=np.int64)])
    (f2, i2), used = grow_ring((f, i), 8, table, 1, COLS)
    assert f2 is f and i2 is i and used == 16
    for c in range(3):
        assert tuple(f2[8 + c]) == (100 + c, 0.5)
