"""The hybrid model's round trace log: rows written by the kernel at each boundary into one
array, split by flow in the order the rounds ended.

The reference is the plain route: one Python list of ``(t, window, next window, phase,
mean RTT, BaseRTT)`` tuples per flow (the window, mean RTT and BaseRTT its law read from its
round sample), turned into an array at the end.
"""

from __future__ import annotations

import numpy as np

from tcpfluid.fluid import _hybrid_kernel as K
from tcpfluid.fluid._hybrid_laws import _by_flow


def test_round_log_equals_one_list_per_flow() -> None:
    rng = np.random.default_rng(11)
    n = 8
    log_flow, log_rows, m = np.empty(400 * n, dtype=np.int64), np.empty((400 * n, K.N_LOG)), 0
    plain: list[list[tuple[float, ...]]] = [[] for _ in range(n)]
    s = np.zeros((K.N_SAMPLE, n))
    ff = np.zeros((n, K.N_FLOW_ROWS))
    t = 0.0
    for _ in range(400):
        t += float(rng.uniform(0.001, 0.01))
        ends = rng.random(n) < (0.5 if rng.random() < 0.7 else 0.1)
        phase = rng.integers(0, 3, n).astype(np.float64)
        w, mean, base = rng.random((3, n)) * 100.0
        ff[:, K.F_W] = rng.random(n) * 100.0
        which = np.flatnonzero(ends)
        for i, j in enumerate(which.tolist()):
            # (the i-th deciding flow's sample in column i, as the Python decisions')
            s[K.S_CWND, i], s[K.S_MEAN, i], s[K.S_BASE, i] = w[j], mean[j], base[j]
            m = K._end_one(ff, j, t, s, i, phase[j], log_flow, log_rows, m)
        for j in np.flatnonzero(ends).tolist():
            row = (t, float(w[j]), float(ff[j, K.F_W]), float(phase[j]), mean[j], base[j])
            plain[j].append(tuple(float(x) for x in row))
    got = _by_flow(log_flow[:m], log_rows, n)
    assert len(got) == n
    for j in range(n):
        ref = np.array(plain[j], dtype=np.float64).reshape(-1, K.N_LOG)
        assert got[j].shape == ref.shape and got[j].tobytes() == ref.tobytes()


def test_round_log_without_rounds_has_empty_traces() -> None:
    empty = _by_flow(np.empty(0, dtype=np.int64), np.empty((16, K.N_LOG)), 3)
    assert [g.shape for g in empty] == [(0, K.N_LOG)] * 3
