"""Each flow's place in a round's burst, the one piece of physics both fluid engines read
(docs/round-model.md, "Places in the burst"): the later a flow in the flows' order, the
more of the others' growth its packets queue behind. Both engines take the placed flows
from :func:`placed_flows`; the round model
(:class:`~tcpfluid.fluid._rounds_physics.BurstPlaces`, through :func:`place_offsets`; in
every phase of the flows' laws) and the hybrid model
(:func:`~tcpfluid.fluid._hybrid_kernel._sample_one`; in slow start) call
:func:`place_offset`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from .. import _numba_cache
from ..scenarios.reduction import same_clock

_numba_cache.configure()
_JIT: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}


def placed_flows(
    start_s: NDArray[np.float64], base_rtt_s: NDArray[np.float64], init_cwnd: NDArray[np.float64]
) -> tuple[NDArray[np.bool_], float]:
    """One scenario's flows with places in the rounds' burst and the burst's cycles
    (docs/round-model.md, "Places in the burst"): the flows that start first, together,
    with the round clock of the first of them (:func:`same_clock`), when there are at
    least two; the cycles are the first one's initial window (at least 1 packet). Flows of
    other base RTTs that start with them are not placed."""
    first = start_s == start_s.min()
    j = int(np.argmax(first))
    placed = first & same_clock(base_rtt_s, base_rtt_s[j])
    cycles = max(float(init_cwnd[j]), 1.0)
    return (placed if np.count_nonzero(placed) >= 2 else np.zeros_like(placed)), cycles


@njit(inline="always", **_JIT)
def place_offset(ahead_pkts, z_pkts, placed_pkts, total_pkts, ramp_s, cycles):  # type: ignore[no-untyped-def]
    """One placed flow's offsets ``(mean, max, min)`` of its RTTs from the round's, s.

    ``ahead_pkts``: the growth of the placed flows ahead of it in the flows' order
    (``Σ_{i<j} z_i``), ``z_pkts`` its own (``z_j``), ``placed_pkts`` every placed flow's
    (``Z_p``) and ``total_pkts`` every flow's (``Z``), in the round its RTT samples'
    packets were sent; ``ramp_s`` the queue's ramp over that round (its maximum less its
    minimum queueing delay); ``cycles`` the burst's ``c``. The offsets are the packets its
    packets meet above the round's first queue (on average, at its last and at its first
    packet; docs/round-model.md) less the placed flows' middle (``Z_p/2``), end (``Z_p``)
    and start, times the ramp's seconds per packet of growth (``ramp_s / Z``)."""
    per = ramp_s / (cycles * total_pkts) if total_pkts > 0.0 else 0.0
    return (
        per * (ahead_pkts + 0.5 * z_pkts - 0.5 * placed_pkts),
        per * (ahead_pkts + z_pkts - placed_pkts),
        per * ahead_pkts,
    )


@njit(**_JIT)
def place_offsets(zs, placed, total_pkts, ramp_s, cycles, out):  # type: ignore[no-untyped-def]
    """:func:`place_offset` of every placed flow of ``S`` scenarios into ``out`` (3, S, m)
    (rows mean, max, min, s; 0 where not placed): ``zs`` (the placed flows' growth,
    packets, 0 for the others) and ``placed`` (S, m); ``total_pkts`` (every flow's growth),
    ``ramp_s`` (the round's queue ramp) and ``cycles`` (S,). Returns ``out``."""
    S, m = zs.shape
    for s in range(S):
        ours = 0.0
        for j in range(m):
            ours += zs[s, j]
        ahead = 0.0
        for j in range(m):
            a, b, c = 0.0, 0.0, 0.0
            if placed[s, j]:
                a, b, c = place_offset(ahead, zs[s, j], ours, total_pkts[s], ramp_s[s], cycles[s])
            out[0, s, j] = a
            out[1, s, j] = b
            out[2, s, j] = c
            ahead += zs[s, j]
    return out
