"""The first packets of flows that start together on an idle bottleneck: where each queues
behind the others' first windows, the RTT it measures, and both fluid engines' use of it
(docs/round-model.md, "First packets")."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._rounds_physics import any_of, per_flow, per_scenario

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]


def first_packet_waits(
    arrive_s: FloatArray,
    window_pkts: FloatArray,
    spacing_s: FloatArray,
    inv_mu: Any,
    group: NDArray[np.int64] | None = None,
) -> FloatArray:
    """Each flow's first packet's wait at an idle FIFO bottleneck serving a packet every
    ``inv_mu`` s, s, for flows whose first windows (``window_pkts``, whole packets, at least
    one) reach it from ``arrive_s`` on, a packet every ``spacing_s`` (their access links'
    packet time); packets arriving at the same instant queue in the flows' order, every
    flow's first before any second (docs/round-model.md, "First packets"). Equal arrivals:
    the j-th (from 0) waits j packet times. ``group``: per flow, the bottleneck it queues
    at (flows of different groups do not meet; ``inv_mu`` one per flow then, or one for
    all); ``None``: one bottleneck.

    Examples
    --------
    >>> first_packet_waits(np.zeros(3), np.full(3, 2.0), np.full(3, 0.1), 1.0).tolist()
    [0.0, 1.0, 2.0]
    >>> first_packet_waits(np.array([0.0, 1.5]), np.array([3.0, 1.0]), np.zeros(2), 1.0).tolist()
    [0.0, 1.5]
    >>> two = np.array([0, 0, 1, 1])  # two bottlenecks, two flows at each
    >>> first_packet_waits(np.zeros(4), np.ones(4), np.zeros(4), 1.0, two).tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    n = np.maximum(np.ceil(window_pkts - 1e-9), 1.0).astype(np.int64)
    flow = np.repeat(np.arange(arrive_s.size), n)
    k = np.arange(flow.size) - np.repeat(np.cumsum(n) - n, n)  # each packet's place in its window
    t = arrive_s[flow] + k * spacing_s[flow]
    g = np.zeros(flow.size, np.int64) if group is None else np.asarray(group)[flow]
    inv = np.broadcast_to(np.asarray(inv_mu, dtype=np.float64), arrive_s.shape)[flow]
    waits = np.zeros(arrive_s.size)
    work, t_prev, g_prev = 0.0, -math.inf, None  # the packets' work left, packets
    order = np.lexsort((flow, k, t, g))
    columns = (g[order], t[order], k[order], flow[order], inv[order])
    for gi, ti, ki, fi, x in zip(*(c.tolist() for c in columns), strict=True):
        if gi != g_prev:  # another bottleneck: idle until this packet
            work, t_prev, g_prev = 0.0, -math.inf, gi
        work = max(work - (ti - t_prev) / x, 0.0) if ti > t_prev else work
        t_prev = ti
        if ki == 0:
            waits[fi] = work * x
        work += 1.0
    return waits


def seed_first_packets(eng: RoundEngine, t0: FloatArray, d: FloatArray, inv_mu: Any) -> None:
    """The base RTT of flows starting together on an idle bottleneck, from their first
    packets (:func:`first_packet_waits`: their first windows reach the bottleneck each at
    its start plus its lead, ``eng.lead_n``; docs/round-model.md, "First packets"): those
    sending at ``t0`` (each scenario's round start) without a base RTT; ``d``: each flow's
    base RTT (S × F,)."""
    S, m = eng.S, eng.F
    t = per_flow(t0, m)
    first = (eng.start_n <= t) & (eng.stop_n > t) & np.isinf(eng.base_rtt)
    idle = per_scenario((eng.active & np.isfinite(eng.base_rtt)).astype(np.float64), S, m)
    first &= per_flow(idle == 0.0, m)  # no flow of the scenario sending before
    if not any_of(first):
        return
    inv = per_flow(np.broadcast_to(np.asarray(inv_mu, dtype=np.float64), (S,)), m)
    queued = np.zeros(first.size)
    arrive = eng.start_n + eng.lead_n
    # a flow that starts alone finds the queue empty (wait 0): only the scenarios where
    # several flows start together queue their first packets behind each other
    together = per_flow(first.reshape(S, m).sum(axis=1) >= 2, m)
    on = np.flatnonzero(first & together)
    if on.size:
        queued[on] = first_packet_waits(
            arrive[on], eng.ls.init_cwnd[on], eng.spacing_n[on], inv[on], on // m
        )
    eng.first_rtt[first] = eng.base_rtt[first] = (d + queued)[first]
    eng.first_fwd[first] = eng.fwd_base[first] = (0.5 * d + queued)[first]


def first_packets_floor(eng: RoundEngine, ix: Any, last: bool) -> None:
    """The flows ``ix`` at the end of one of their first rounds: their base RTTs (and
    forward delays' minima) at least what their first packets saw
    (:func:`seed_first_packets`); ``last``: the last such round."""
    first = eng.first_rtt[ix]
    seeded = np.isfinite(first)
    eng.base_rtt[ix] = np.where(seeded, np.maximum(eng.base_rtt[ix], first), eng.base_rtt[ix])
    eng.fwd_base[ix] = np.where(
        seeded, np.maximum(eng.fwd_base[ix], eng.first_fwd[ix]), eng.fwd_base[ix]
    )
    if last:
        eng.first_rtt[ix] = eng.first_fwd[ix] = np.inf
