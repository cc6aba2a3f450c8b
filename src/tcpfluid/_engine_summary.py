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


def _flow_metrics(
    fl: RoundTraced, changes: tuple[float, ...], t_end: float
) -> tuple[float, float, bool, float, float, bool, list[float], list[bool]]:
    t = fl.round_t_s
    nan = math.nan
    if t.size == 0:
        k = len(changes)
        return nan, nan, False, nan, nan, False, [nan] * k, [False] * k
    # sample i: the window the law saw at boundary i (the window sent during the round
    # that boundary opens) and the phase it chose there; the exit is then stamped at the
    # boundary where the law decided to leave, with the window of the round before
    # (tcpfluid.metrics.slow_start_exit, same convention as the round model)
    ss = metrics.slow_start_exit(t, fl.round_cwnd_pkts, fl.round_phase == SLOW_START)
    seg = metrics.settling_by_segment(
        t,
        fl.round_next_cwnd_pkts,
        start_s=fl.start_s,
        end_s=min(t_end, fl.stop_s),
        change_times_s=changes,
    )
    first = seg.equilibrium
    conv = [float(r.time_s) for r in seg.convergence]
    ok = [bool(r.settled) for r in seg.convergence]
    return (
        float(ss.time_s),
        float(ss.value),
        bool(ss.found),
        float(first.value),
        float(first.time_s),
        bool(first.settled),
        conv,
        ok,
    )


def round_trace_fields(
    flows: Sequence[RoundTraced], changes: tuple[float, ...], t_end: float
) -> dict[str, Any]:
    """The :class:`EngineSummary` fields but ``utilization``, computed from each flow's
    round trace (the window after each boundary), delivered packets and loss events, for
    a run that ends at ``t_end`` (s) with bandwidth changes at ``changes`` (s)."""
    rows = [_flow_metrics(fl, changes, t_end) for fl in flows]
    F, K = len(rows), len(changes)
    thr = np.array(
        [fl.delivered_pkts / max(min(t_end, fl.stop_s) - fl.start_s, 1e-300) for fl in flows]
    )
    jain = float(metrics.jain_index(thr)) if np.any(thr > 0) else math.nan
    return {
        "ss_exit_time_s": np.array([r[0] for r in rows]),
        "ss_exit_window_pkts": np.array([r[1] for r in rows]),
        "ss_exited": np.array([r[2] for r in rows]),
        "settled_window_pkts": np.array([r[3] for r in rows]),
        "time_to_equilibrium_s": np.array([r[4] for r in rows]),
        "reached_equilibrium": np.array([r[5] for r in rows]),
        "change_times_s": changes,
        "convergence_times_s": np.array([r[6] for r in rows], dtype=np.float64).reshape(F, K),
        "converged": np.array([r[7] for r in rows], dtype=bool).reshape(F, K),
        "throughput_pps": thr,
        "jain_index": jain,
        "losses": np.array([fl.loss_t_s.size for fl in flows], dtype=np.int64),
    }
