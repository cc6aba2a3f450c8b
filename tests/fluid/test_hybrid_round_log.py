"""The hybrid model's round trace log: rows of single flows and whole boundaries of
several flows, split by flow in the order the rounds ended.

The reference is the plain route the model used before: one Python list of
``(t, window, next window, phase)`` tuples per flow, turned into an array at the end.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from tcpfluid.fluid import hybrid


@pytest.mark.parametrize(
    ("seed", "n", "block"),
    [
        (7, 6, lambda step: step % 3 == 0),  # single rows between boundaries of several
        # the many-flows runs: long runs of boundaries of several flows, few single rows
        (11, 8, lambda step: step % 37 != 5),
    ],
)
def test_round_log_equals_one_list_per_flow(
    seed: int, n: int, block: Callable[[int], bool]
) -> None:
    rng = np.random.default_rng(seed)
    log = hybrid._RoundLog()
    plain: list[list[tuple[float, float, float, float]]] = [[] for _ in range(n)]
    t = 0.0
    for step in range(400):
        t += float(rng.uniform(0.001, 0.01))
        if block(step):  # several flows' rounds end together
            which = np.flatnonzero(rng.random(n) < 0.5).astype(np.intp)
            w, new, ph = rng.random((3, which.size)) * 100.0
            log.add_block(which, t, w, new, ph)
            cols = (which.tolist(), w.tolist(), new.tolist(), ph.tolist())
            for i, a, b, c in zip(*cols, strict=True):
                plain[i].append((t, a, b, c))
        else:  # one flow's round ends
            j = int(rng.integers(n))
            a, b, c = (float(x) for x in rng.random(3) * 100.0)
            log.add(j, (t, a, b, c))
            plain[j].append((t, a, b, c))
    got = log.per_flow(n)
    assert len(got) == n
    for j in range(n):
        ref = np.array(plain[j], dtype=np.float64).reshape(-1, 4)
        assert got[j].dtype == ref.dtype and got[j].shape == ref.shape
        assert got[j].tobytes() == ref.tobytes()


def test_round_log_without_rounds_has_empty_traces() -> None:
    got = hybrid._RoundLog().per_flow(3)
    assert [g.shape for g in got] == [(0, 4)] * 3
    log = hybrid._RoundLog()
    log.add(1, (0.5, 2.0, 3.0, 0.0))
    got = log.per_flow(3)
    assert [g.shape for g in got] == [(0, 4), (1, 4), (0, 4)]
    assert got[1].tolist() == [[0.5, 2.0, 3.0, 0.0]]
