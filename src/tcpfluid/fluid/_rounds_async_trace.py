"""Results of the round model with per-flow base RTTs: the flows' rounds on one time axis.

Flows of different base RTTs end their rounds at different times. :class:`AsyncRoundTrace`
is a :class:`~tcpfluid.fluid.rounds.RoundTrace` whose rows are the union of every flow's
round ends (in time order); between two of its own round ends a flow's row repeats the
round in progress (the window it sends, its rate), so a row ``k`` still describes, for
every flow, the interval ``(time_s[k - 1], time_s[k]]``. :attr:`AsyncRoundTrace.round_end`
says which rows close a round of which flow, and the summary judges each flow on its own
rounds (its exit round is counted in its own rounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._rounds_results import RoundTrace

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class AsyncRoundTrace(RoundTrace):
    """A :class:`RoundTrace` of flows with their own round clocks (module docstring).

    Attributes
    ----------
    round_end
        Shape ``(R, 1, F)``: whether row ``k`` is the end of one of flow ``f``'s rounds
        (a recorded one, with ``record_every``).
    base_rtt_s
        Each flow's base RTT (propagation), s, shape ``(F,)``.
    flow_rtt_s
        Shape ``(R, 1, F)``: the mean RTT each flow's law read in its round in progress at
        row ``k`` (its own round clock's; ``rtt_s`` is flow 0's), s; ``None`` when
        ``rtt_s`` is not recorded.
    """

    round_end: NDArray[np.bool_] | None = None
    base_rtt_s: FloatArray | None = None
    flow_rtt_s: FloatArray | None = None

    def flow_rows(self, flow: int) -> NDArray[np.bool_]:
        """The rows that end a (recorded) round of flow ``flow``, shape ``(R,)``."""
        assert self.round_end is not None
        return self.round_end[:, 0, flow]


class AsyncRecorder:
    """Each round-clock class's recorded rounds, merged onto one time axis at the end.

    Per class ``c`` (flows ``ix[c]``) the rounds are kept in their own order (a class's
    rounds end in increasing time); :meth:`series` interleaves them.
    """

    def __init__(self, ix: list[NDArray[np.intp]], F: int, fields: set[str]) -> None:
        self.ix, self.F, self.fields = ix, F, fields
        self.rows: list[list[tuple[Any, ...]]] = [[] for _ in ix]

    def add_row(
        self, c: int, t: FloatArray, w1: FloatArray, phase: Any, delta: FloatArray | None,
        rtt_mean: FloatArray, queue: FloatArray | None, thr: FloatArray | None,
    ) -> None:  # fmt: skip
        """Record a round of class ``c`` ending at ``t`` (the round engine's one scenario;
        :meth:`~._rounds_engine.RoundEngine._record`): its flows' values (``phase`` is
        copied), the mean RTT and the queue (fields not kept are ``None``)."""
        q = None if queue is None else float(queue[0])
        row = (float(t[0]), w1, phase.copy(), delta, float(rtt_mean[0]), q, thr)
        self.rows[c].append(row)

    def series(self, rtt_flow: int = 0) -> dict[str, Any]:
        """The :class:`AsyncRoundTrace` series: rows at the union of the round ends; a
        flow's values held over its round; the queue of the rounds ending at a row (their
        maximum); ``rtt_s`` the mean RTT the law of flow ``rtt_flow`` read, ``flow_rtt_s``
        the one each flow's law read."""
        times = [np.array([r[0] for r in rows]) for rows in self.rows]
        t_all = np.unique(np.concatenate(times)) if times else np.zeros(0)
        R, F = t_all.size, self.F
        window = np.empty((R, 1, F))
        phase = np.empty((R, 1, F), dtype=np.int8)
        delta = np.empty((R, 1, F)) if "delta_pkts" in self.fields else None
        thr = np.empty((R, 1, F)) if "throughput_pps" in self.fields else None
        rtt = np.empty((R, 1)) if "rtt_s" in self.fields else None
        flow_rtt = np.empty((R, 1, F)) if rtt is not None else None
        queue = np.full((R, 1), -np.inf) if "queue_pkts" in self.fields else None
        ended = np.zeros((R, 1, F), dtype=bool)
        for ix, rows, tc in zip(self.ix, self.rows, times, strict=True):
            if not rows:
                continue
            pos = np.minimum(np.searchsorted(tc, t_all, side="left"), tc.size - 1)
            hit = tc[pos] == t_all
            ended[:, 0, ix] = hit[:, None]
            window[:, 0, ix] = np.stack([r[1] for r in rows])[pos]
            phase[:, 0, ix] = np.stack([r[2] for r in rows])[pos]
            if delta is not None:
                delta[:, 0, ix] = np.stack([r[3] for r in rows])[pos]
            if thr is not None:
                thr[:, 0, ix] = np.stack([r[6] for r in rows])[pos]
            if rtt is not None and flow_rtt is not None:
                mean = np.array([r[4] for r in rows])[pos]
                flow_rtt[:, 0, ix] = mean[:, None]
                if rtt_flow in ix:
                    rtt[:, 0] = mean
            if queue is not None:
                q = np.array([r[5] for r in rows])[pos]
                queue[:, 0] = np.maximum(queue[:, 0], np.where(hit, q, -np.inf))
        return {
            "time_s": t_all[:, None],
            "window_pkts": window,
            "phase": phase,
            "delta_pkts": delta,
            "rtt_s": rtt,
            "flow_rtt_s": flow_rtt,
            "queue_pkts": queue,
            "throughput_pps": thr,
            "round_end": ended,
        }
