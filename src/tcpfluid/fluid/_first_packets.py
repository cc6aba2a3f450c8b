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
    drains: bool = True,
) -> FloatArray:
    """Each flow's first packet's wait at an idle FIFO bottleneck serving a packet every
    ``inv_mu`` s, s, for flows whose first windows (``window_pkts``, whole packets, at least
    one) reach it from ``arrive_s`` on, a packet every ``spacing_s`` (their access links'
    packet time); packets arriving at the same instant queue in the flows' order, every
    flow's first before any second (docs/round-model.md, "First packets"). Equal arrivals:
    the j-th (from 0) waits j packet times. ``group``: per flow, the bottleneck it queues
    at (flows of different groups do not meet; ``inv_mu`` one per flow then, or one for
    all); ``None``: one bottleneck. ``drains=False``: a busy bottleneck, its standing queue
    kept by the flows already sending, so the packets ahead of a first packet stay ahead
    of it (the waits count them, from that queue on).

    Examples
    --------
    >>> first_packet_waits(np.zeros(3), np.full(3, 2.0), np.full(3, 0.1), 1.0).tolist()
    [0.0, 1.0, 2.0]
    >>> first_packet_waits(np.array([0.0, 1.5]), np.array([3.0, 1.0]), np.zeros(2), 1.0).tolist()
    [0.0, 1.5]
    >>> two = np.array([0, 0, 1, 1])  # two bottlenecks, two flows at each
    >>> first_packet_waits(np.zeros(4), np.ones(4), np.zeros(4), 1.0, two).tolist()
    [0.0, 1.0, 0.0, 1.0]
    >>> first_packet_waits(np.array([0.0, 5.0]), np.array([2.0, 1.0]), np.zeros(2), 1.0,
    ...                    drains=False).tolist()
    [0.0, 2.0]
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
        work = max(work - (ti - t_prev) / x, 0.0) if ti > t_prev and drains else work
        t_prev = ti
        if ki == 0:
            waits[fi] = work * x
        work += 1.0
    return waits


def join_waits(
    start_s: FloatArray, lead_s: FloatArray, window_pkts: FloatArray, spacing_s: FloatArray,
    inv_mu: float,
) -> FloatArray:  # fmt: skip
    """Per flow of one bottleneck, s: how long its first packet waits behind the first
    windows of the flows that join at its own start time (``start_s`` > 0) and reach the
    bottleneck before it (its ``lead_s`` later; :func:`first_packet_waits` without
    draining: on a busy bottleneck the flows already sending keep the standing queue in
    front of them, so the packets ahead stay ahead); 0 for a flow joining alone or at the
    run's start. Both fluid engines' joiners of a busy bottleneck (docs/round-model.md,
    "First packets").

    >>> join_waits(np.array([0.0, 5.0, 5.0, 5.0]), np.array([0.0, 0.03, 0.01, 0.02]),
    ...            np.full(4, 2.0), np.zeros(4), 0.001).round(6).tolist()
    [0.0, 0.004, 0.0, 0.002]
    """
    out = np.zeros(start_s.size)
    times, counts = np.unique(start_s[start_s > 0.0], return_counts=True)
    for t in times[counts >= 2].tolist():
        on = np.flatnonzero(start_s == t)
        out[on] = first_packet_waits(
            start_s[on] + lead_s[on], window_pkts[on], spacing_s[on], inv_mu, drains=False
        )
    return out


def busy_join_floor(
    ff: FloatArray, joining: NDArray[np.bool_], t: float, queue_s: float, ahead: FloatArray
) -> None:
    """The hybrid model's joiners ``joining`` at ``t`` (s) of a busy bottleneck (some other
    flow of ``ff`` started and not stopped): the floor under their first two rounds' minimum RTT
    (``F_FIRST_RTT``), their base RTT plus the queue's delay now (``queue_s``) and their
    waits behind the joiners ahead (``ahead``, :func:`join_waits`); the round model's
    :func:`first_packets_floor` on its joiners."""
    from . import _hybrid_kernel as K

    on = (ff[:, K.F_STARTED] == 1.0) & (ff[:, K.F_STOP] > t)
    if not np.any(on & ~joining):
        return  # an idle bottleneck: the first packets' rule at the run's start
    j = joining & (ahead > 0.0)
    ff[j, K.F_FIRST_RTT] = ff[j, K.F_D] + queue_s + ahead[j]


def _join_waits(eng: RoundEngine) -> FloatArray:
    """:func:`join_waits` of every scenario of the round engine ``eng``, per flow (a packet
    ahead costs the link's packet time 1/μ, as in the hybrid model)."""
    S, m = eng.S, eng.F
    inv = 1.0 / np.broadcast_to(np.asarray(eng.mu, dtype=np.float64), (S,))
    out = np.zeros(eng.n)
    for s in range(S):
        own = slice(s * m, (s + 1) * m)
        out[own] = join_waits(
            eng.start_n[own], eng.lead_n[own], eng.ls.init_cwnd[own], eng.spacing_n[own],
            float(inv[s]),
        )  # fmt: skip
    return out


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
    busy = first & per_flow(idle > 0.0, m)
    if any_of(busy):  # joiners of a busy bottleneck: behind the queue and each other
        if eng.join_ahead is None:
            eng.join_ahead = _join_waits(eng)
        eng.join_due |= busy & (eng.join_ahead > 0.0)
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


def first_packets_floor(eng: RoundEngine, ix: Any, c: int) -> None:
    """Class ``c``'s flows ``ix`` at the end of one of their first two rounds from a start
    or a join: their base RTTs (and forward delays' minima) at least what their first
    packets saw (:func:`seed_first_packets`; a busy bottleneck's joiner: the queue its
    first round measured and the joiners' packets ahead of it, :func:`join_waits`)."""
    due = eng.join_due[ix]
    if any_of(due):
        assert eng.join_ahead is not None
        ahead = np.where(due, eng.join_ahead[ix], 0.0)
        eng.first_rtt[ix] = np.where(due, eng.base_rtt[ix] + ahead, eng.first_rtt[ix])
        eng.first_fwd[ix] = np.where(due, eng.fwd_base[ix] + ahead, eng.first_fwd[ix])
        eng.join_due[ix] = False
    eng.floor_rounds[c] -= 1
    last = eng.floor_rounds[c] == 0
    first = eng.first_rtt[ix]
    seeded = np.isfinite(first)
    eng.base_rtt[ix] = np.where(seeded, np.maximum(eng.base_rtt[ix], first), eng.base_rtt[ix])
    eng.fwd_base[ix] = np.where(
        seeded, np.maximum(eng.fwd_base[ix], eng.first_fwd[ix]), eng.fwd_base[ix]
    )
    if last:
        eng.first_rtt[ix] = eng.first_fwd[ix] = np.inf
