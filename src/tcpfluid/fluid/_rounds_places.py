"""Where a round's first packets and its burst put each flow, one round clock of several
flows (docs/round-model.md, "First packets" and "Places in the burst"): the base RTT
seeded from the flows' first packets, and each flow's offsets from the round's RTTs at
its place in the round's burst. The round engine
(:class:`~tcpfluid.fluid._rounds_engine.RoundEngine`) calls both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import SLOW_START
from . import _rounds_kernel as rk
from ._places import place_offsets
from ._rounds_physics import Rtts, any_of, by_scenario, per_flow, per_scenario

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]


def seed_first_packets(eng: RoundEngine, act: Any, d: FloatArray, inv_mu: Any) -> None:
    """The base RTT of the flows that start together on an idle bottleneck, from
    their first packets (docs/round-model.md, "First packets"): the round's standing
    backlog counts every window of the round, but when the flows start no packet of
    theirs is queued yet, and their first packets reach the bottleneck one per flow in
    the flows' order (access links faster than the bottleneck), so the j-th (from 0)
    finds j packets: base RTT ``d + j/μa`` (the forward delay's minimum less the same
    queueing). One round clock only (equal base RTTs); a flow that joins while others
    send keeps the round's minimum RTT, queue included."""
    if eng.K > 1:
        return
    S, m = eng.S, eng.F
    first = np.asarray(act, dtype=bool) & np.isinf(eng.base_rtt)
    idle = per_scenario((np.asarray(act, dtype=bool) & ~first).astype(np.float64), S, m)
    first &= per_flow(idle == 0.0, m)  # no flow of the scenario sending before
    if not any_of(first):
        return
    fs = by_scenario(first, S, m)
    ahead = (np.cumsum(fs, axis=1) - fs).reshape(-1) if m > 1 else np.zeros(first.size)
    inv = np.broadcast_to(inv_mu, d.shape)
    queued = ahead * per_flow(inv, m)  # the first packets ahead, s
    eng.base_rtt[first] = (per_flow(d, m) + queued)[first]
    eng.fwd_base[first] = (per_flow(0.5 * d, m) + queued)[first]


class BurstPlaces:
    """(One round clock, several flows, a burst model) each flow's place in the round's
    burst: per round of the last ``lag + 1``, the offsets of its mean, maximum and minimum
    RTT from the round's (:meth:`__call__`). ``cwnd0``: the flows' initial windows and
    ``start_n`` their start times, ``S × F`` values; ``model``: the RTT model's name."""

    def __init__(
        self, cwnd0: FloatArray, start_n: FloatArray, S: int, F: int, lag: int, model: str
    ) -> None:
        self.S, self.F, self.lag, self.model = S, F, lag, model
        self.rows = [np.zeros((3, S * F)) for _ in range(lag + 1)]
        self.out = np.zeros((3, S, F))
        #: the round's minimum RTT each flow's packets see (its first packet's)
        self.min_seen: FloatArray | None = None
        #: the flows that have places in the burst: those that start first, together;
        #: the burst's cycles: the first of them's initial window (at least 1 packet)
        first = start_n.reshape(S, F)
        placed = first == first.min(axis=1, keepdims=True)
        w0 = cwnd0.reshape(S, F)[np.arange(S), placed.argmax(axis=1)]
        self.cycles = np.maximum(w0, 1.0)
        self.placed = placed.reshape(-1)
        #: rounds since a placed flow was last in slow start: once more than the
        #: feedback lag, every place read is zero and the round's RTTs are every flow's
        self.unplaced_rounds = 0

    def __call__(
        self, k: int, phase: FloatArray, act: Any, z: FloatArray, R: FloatArray, rtts: Rtts
    ) -> Rtts:
        """The RTTs each flow's packets see at its place in round ``k``'s burst
        (docs/round-model.md, "Places in the burst"; ``phase``: the flows' law phases, ``z``
        their growth, ``R`` the round's rows of :mod:`._rounds_kernel`). Flows that start
        together send their initial windows of ``c`` packets at once, each over its own
        access link, so their first packets reach the bottleneck one per flow in the
        flows' order, then their second packets, and so on: ``c`` cycles. The ACK clock
        keeps that order and every ACK of a growing flow sends its growth right behind the
        packet it clocks out, so each cycle carries each flow's ``z_j / c`` growth packets
        in one run, in the flows' order, and each flow's offsets from the round's mean,
        maximum and minimum RTT are the round's queue ramp (its maximum less its minimum
        queue, seconds) per packet of growth, over ``c``, times the placed flows' growth
        ahead of it less their middle, end and start (:func:`~._places.place_offset`).
        Placed: the flows that started first, together, while in slow start (after it the
        packets' flows no longer keep runs: measured in the document). The law reads those
        of the round its RTTs come from (the feedback lag); the base RTT keeps the round's
        minimum."""
        S, m, lag = self.S, self.F, self.lag
        placed = self.placed.reshape(S, m) & (phase == SLOW_START).reshape(S, m)
        if placed.any():
            self.unplaced_rounds = 0
        else:
            self.unplaced_rounds += 1
            if self.unplaced_rounds > lag:  # no place is read any more (all zero)
                self.min_seen = None
                return rtts
        grow = np.where(act, z, 0.0).reshape(S, m)
        ramp = (R[rk.Q_MAX] - R[rk.Q_MIN]) * R[rk.INV_MU]  # the round's queue ramp, s
        zs, total = np.where(placed, grow, 0.0), grow.sum(axis=1)
        off = place_offsets(zs, placed, total, ramp[:S], self.cycles, self.out)
        row = self.rows[k % (lag + 1)]
        row[0] = (off[1] if self.model == "last" else off[0]).reshape(-1)
        row[1] = off[1].reshape(-1)
        row[2] = off[2].reshape(-1)
        read = self.rows[max(k - lag, 0) % (lag + 1)]
        r_min, r_mean, r_max, f_min, f_mean = (per_flow(x, m) for x in rtts)
        # (the first packet's place lowers nothing: the base RTT keeps the round's minimum)
        mean = r_mean + read[0]
        self.min_seen = np.minimum(r_min + read[2], mean)
        return (
            r_min,
            mean,
            np.maximum(r_max + read[1], r_min),
            f_min,
            f_mean + read[0],
        )
