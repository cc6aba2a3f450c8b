"""What the engines' own summaries share: their fields, their JSON keys and, for the engines
that keep a round trace per flow, how the per-flow fields are computed.

Every engine's native result has a ``summary``: the round model's
:class:`~tcpfluid.fluid.RoundSummary` (arrays over scenarios and flows), the hybrid
model's :class:`~tcpfluid.fluid.hybrid.HybridSummary` and the packet simulator's
:class:`~tcpfluid.sim.PacketSummary` (arrays over flows). They are subclasses of
:class:`EngineSummary`, which holds the fields they share and writes the public JSON keys
once (:meth:`EngineSummary._keys`). The summary of :func:`tcpfluid.simulate`, the same for
every engine, is :class:`tcpfluid.results.Summary`.

This module imports neither Numba nor SciPy (the round model loads it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from . import metrics
from .algorithms.base import SLOW_START
from .metrics import _finite_or_none

__all__ = ["EngineSummary", "RoundTraced", "round_trace_fields"]

FloatArray = NDArray[np.float64]
_OMIT: Any = object()


@dataclass(frozen=True, eq=False)
class EngineSummary:
    """The fields every engine's own summary has (definitions in :mod:`tcpfluid.metrics`).

    Per-flow arrays have shape ``(F,)``, or ``(S, F)`` in the batched round model; the
    per-run fields are numbers, or ``(S,)`` arrays there. ``NaN`` in a time or window means
    "did not happen"; the matching boolean field says so explicitly.

    Attributes
    ----------
    ss_exit_time_s, ss_exit_window_pkts, ss_exited
        Slow-start exit of each flow: when the law decided to leave slow start, s, and the
        window whose measurement made it leave, packets
        (:func:`tcpfluid.metrics.slow_start_exit`).
    settled_window_pkts, time_to_equilibrium_s, reached_equilibrium
        Window settled at before the first bandwidth change, packets (the mean of the
        segment's tail, kept even when the window did not settle), and the time from the
        flow's start to reach it, s (:func:`tcpfluid.metrics.settling`).
    change_times_s
        Times at which the available bandwidth changes, s.
    convergence_times_s, converged
        One column per change: time from the change until the window settles again, s.
    utilization
        Traffic carried by the bottleneck (flows and cross traffic) over its capacity ×
        the run's time (a fraction).
    throughput_pps
        Each flow's delivery rate over its active time, packets/s.
    jain_index
        Jain's fairness index of ``throughput_pps`` (the Quick Vegas paper, eq. 13).
    losses
        Loss events each flow's law reacted to (a count per flow).
    """

    ss_exit_time_s: FloatArray
    ss_exit_window_pkts: FloatArray
    ss_exited: NDArray[np.bool_]
    settled_window_pkts: FloatArray
    time_to_equilibrium_s: FloatArray
    reached_equilibrium: NDArray[np.bool_]
    change_times_s: tuple[float, ...]
    convergence_times_s: FloatArray
    converged: NDArray[np.bool_]
    utilization: Any  # float, or (S,) in the round model
    throughput_pps: FloatArray
    jain_index: Any  # float, or (S,) in the round model
    losses: NDArray[np.int64]

    def _keys(
        self, flow: tuple[int, ...], run: tuple[int, ...] = (), *, ss_exit_round: Any = _OMIT
    ) -> dict[str, Any]:
        """The public summary keys: window metrics of the flow at index ``flow`` and the
        run's aggregates at index ``run`` (``()``: the fields are the run's own).

        Keys: ``ss_exit_window``, ``ss_exit_time_s``, ``ss_exit_round`` (only when given),
        ``settled_window`` (``None`` if the window did not settle before the first
        bandwidth change), ``time_to_equilibrium_s``, ``convergence_times_s`` (one per
        bandwidth change, in order), ``change_times_s``, ``utilization``,
        ``throughput_pps`` (list, per flow), ``jain_index``, ``losses`` (per flow).
        ``None`` stands for "did not happen".
        """
        out: dict[str, Any] = {
            "ss_exit_window": _finite_or_none(self.ss_exit_window_pkts[flow]),
            "ss_exit_time_s": _finite_or_none(self.ss_exit_time_s[flow]),
        }
        if ss_exit_round is not _OMIT:
            out["ss_exit_round"] = ss_exit_round
        out.update(
            {
                "settled_window": (
                    _finite_or_none(self.settled_window_pkts[flow])
                    if bool(self.reached_equilibrium[flow])
                    else None
                ),
                "time_to_equilibrium_s": _finite_or_none(self.time_to_equilibrium_s[flow]),
                "convergence_times_s": [_finite_or_none(x) for x in self.convergence_times_s[flow]],
                "change_times_s": list(self.change_times_s),
                "utilization": _finite_or_none(np.asarray(self.utilization)[run]),
                "throughput_pps": [
                    _finite_or_none(x) for x in np.asarray(self.throughput_pps)[run]
                ],
                "jain_index": _finite_or_none(np.asarray(self.jain_index)[run]),
                "losses": [int(x) for x in self.losses[run]],
            }
        )
        return out


class RoundTraced(Protocol):
    """A flow's round trace as the packet simulator and the hybrid model keep it."""

    @property
    def round_t_s(self) -> FloatArray: ...
    @property
    def round_cwnd_pkts(self) -> FloatArray: ...
    @property
    def round_next_cwnd_pkts(self) -> FloatArray: ...
    @property
    def round_phase(self) -> FloatArray: ...
    @property
    def start_s(self) -> float: ...
    @property
    def stop_s(self) -> float: ...
    @property
    def loss_t_s(self) -> FloatArray: ...
    @property
    def delivered_pkts(self) -> float: ...


#: the most samples (rounds x flows) one vectorised pass of :func:`round_trace_fields` pads
#: and judges at once (its temporaries are a few dozen arrays of that size)
_CHUNK_SAMPLES = 1 << 20


def _trace_chunks(sizes: NDArray[np.intp]) -> list[NDArray[np.intp]]:
    """The flows with a round trace, in groups of similar trace lengths (flows sorted by
    length), each group's padded block at most :data:`_CHUNK_SAMPLES` samples (or one flow)."""
    order = np.argsort(sizes, kind="stable")
    order = order[sizes[order] > 0]
    out: list[NDArray[np.intp]] = []
    a = 0
    while a < order.size:
        b = a + 1
        while b < order.size and int(sizes[order[b]]) * (b + 1 - a) <= _CHUNK_SAMPLES:
            b += 1
        out.append(np.sort(order[a:b]))
        a = b
    return out


def _padded_traces(
    flows: Sequence[RoundTraced], idx: NDArray[np.intp], sizes: NDArray[np.intp], after: float
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_]]:
    """Round times, windows seen, windows set and slow-start flags of the flows ``idx``,
    one column each, shape ``(rounds, flows)``: a shorter trace is padded with times
    ``after`` (past the run, outside every segment) and its last window and phase."""
    R, n = int(sizes[idx].max()), idx.size
    lens = sizes[idx]
    rows = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
    cols = np.repeat(np.arange(n), lens)
    out = []
    for attr in ("round_t_s", "round_cwnd_pkts", "round_next_cwnd_pkts", "round_phase"):
        vals = [np.asarray(getattr(flows[j], attr), dtype=np.float64) for j in idx.tolist()]
        pad = np.full(n, after) if attr == "round_t_s" else np.array([v[-1] for v in vals])
        block = np.repeat(pad[None, :], R, axis=0)
        block[rows, cols] = np.concatenate(vals)
        out.append(block)
    return out[0], out[1], out[2], out[3] == SLOW_START


def round_trace_fields(
    flows: Sequence[RoundTraced], changes: tuple[float, ...], t_end: float
) -> dict[str, Any]:
    """The :class:`EngineSummary` fields but ``utilization``, computed from each flow's
    round trace (the window after each boundary), delivered packets and loss events, for
    a run that ends at ``t_end`` (s) with bandwidth changes at ``changes`` (s)."""
    F, K = len(flows), len(changes)
    nan = math.nan
    ss_t, ss_w, ss_ok = np.full(F, nan), np.full(F, nan), np.zeros(F, dtype=bool)
    eq_w, eq_t, eq_ok = np.full(F, nan), np.full(F, nan), np.zeros(F, dtype=bool)
    conv, conv_ok = np.full((F, K), nan), np.zeros((F, K), dtype=bool)
    sizes = np.array([np.size(fl.round_t_s) for fl in flows], dtype=np.intp)
    after = max([t_end, *(float(fl.round_t_s[-1]) for fl in flows if np.size(fl.round_t_s))])
    for idx in _trace_chunks(sizes):
        # every flow's boundaries at once: sample i is the window the law saw at boundary i
        # (the window sent during the round that boundary opens) and the phase it chose
        # there; the exit is stamped at the boundary where the law decided to leave, with
        # the window of the round before (tcpfluid.metrics.slow_start_exit, the round
        # model's convention); settling is judged on the window set at each boundary
        t, cwnd, next_cwnd, in_ss = _padded_traces(flows, idx, sizes, after + 1.0)
        ss = metrics.slow_start_exit(t, cwnd, in_ss)
        ss_t[idx], ss_w[idx], ss_ok[idx] = ss.time_s, ss.value, ss.found
        seg = metrics.settling_by_segment(
            t,
            next_cwnd,
            start_s=np.array([flows[j].start_s for j in idx.tolist()]),
            end_s=np.array([min(t_end, flows[j].stop_s) for j in idx.tolist()]),
            change_times_s=changes,
        )
        eq_w[idx], eq_t[idx], eq_ok[idx] = (
            seg.equilibrium.value,
            seg.equilibrium.time_s,
            seg.equilibrium.settled,
        )
        for k, r in enumerate(seg.convergence):
            conv[idx, k], conv_ok[idx, k] = r.time_s, r.settled
    thr = np.array(
        [fl.delivered_pkts / max(min(t_end, fl.stop_s) - fl.start_s, 1e-300) for fl in flows]
    )
    jain = float(metrics.jain_index(thr)) if np.any(thr > 0) else math.nan
    return {
        "ss_exit_time_s": ss_t,
        "ss_exit_window_pkts": ss_w,
        "ss_exited": ss_ok,
        "settled_window_pkts": eq_w,
        "time_to_equilibrium_s": eq_t,
        "reached_equilibrium": eq_ok,
        "change_times_s": changes,
        "convergence_times_s": conv,
        "converged": conv_ok,
        "throughput_pps": thr,
        "jain_index": jain,
        "losses": np.array([fl.loss_t_s.size for fl in flows], dtype=np.int64),
    }
