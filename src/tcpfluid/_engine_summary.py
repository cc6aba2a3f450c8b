"""What the engines' own summaries share (:class:`EngineSummary`: their fields and public
JSON keys), and their per-flow fields computed by the one summary computation of
:mod:`tcpfluid.metrics.summary` (:func:`round_trace_fields` from the packet simulator's and
the hybrid model's round traces, :func:`window_fields` for the round model's batch), so
their values are those of :func:`tcpfluid.simulate`'s summary. Imports neither Numba nor
SciPy."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import metrics
from .algorithms.base import SLOW_START
from .metrics import _finite_or_none

__all__ = [
    "EngineSummary",
    "RoundTraced",
    "law_band",
    "round_trace_fields",
    "traced_flow_record",
    "window_fields",
]

FloatArray = NDArray[np.float64]
_OMIT: Any = object()


@dataclass(frozen=True, eq=False)
class EngineSummary:
    """The fields every engine's own summary has, with the meaning of the same names in
    :class:`tcpfluid.results.Summary` and :class:`~tcpfluid.results.FlowSummary`.

    Per-flow arrays have shape ``(F,)``, or ``(S, F)`` in the batched round model; the
    per-run fields are numbers, or ``(S,)`` arrays there. ``NaN`` in a time or window means
    "did not happen", as the matching boolean field (``ss_exited``,
    ``reached_equilibrium``, ``converged``) says; ``settled_window_pkts`` is the segment's
    tail mean, kept even when the window did not settle.
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
        """The public summary keys (``None``: did not happen) of the flow at index
        ``flow`` and the run's aggregates at index ``run`` (``()``: the run's own);
        ``ss_exit_round`` only when given."""
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


#: a flow's round trace as the packet simulator and the hybrid model keep it: ``round_t_s``,
#: ``round_cwnd_pkts``, ``round_next_cwnd_pkts``, ``round_phase``, ``start_s``, ``stop_s``,
#: ``loss_t_s``, ``delivered_pkts``
RoundTraced = Any


def traced_flow_record(
    name: str, fl: RoundTraced, delivered_pkts: float, loss_events: int
) -> metrics.FlowRecord:
    """The :class:`~tcpfluid.metrics.FlowRecord` of a flow that decided at its own round
    boundaries (the packet simulator, the hybrid model), for both summaries."""
    return metrics.FlowRecord(
        name=name,
        start_s=fl.start_s,
        stop_s=fl.stop_s,
        t_s=np.asarray(fl.round_t_s, dtype=np.float64),
        window_pkts=np.asarray(fl.round_cwnd_pkts, dtype=np.float64),
        in_slow_start=np.asarray(fl.round_phase) == SLOW_START,
        settle_window_pkts=np.asarray(fl.round_next_cwnd_pkts, dtype=np.float64),
        delivered_pkts=delivered_pkts,
        loss_events=loss_events,
        # boundary k ends round k + 1; the law leaves slow start at the end of the round
        # that sent the exit window and keeps it one more round, which ends the exit
        # round (the convention of tcpfluid.metrics.summarise)
        exit_delay_samples=1,
    )


def law_band(law: Any) -> float:
    """The settling band of a flow run by the law object ``law``: its
    ``cycle_amplitude_pkts`` (:func:`tcpfluid.metrics.law_settle_band`), 0 without one."""
    return float(getattr(law, "cycle_amplitude_pkts", 0.0))


def round_trace_fields(
    flows: Sequence[RoundTraced],
    bands: Sequence[float],
    cbr_changes: tuple[float, ...],
    t_end: float,
) -> dict[str, Any]:
    """The :class:`EngineSummary` fields but ``utilization`` of flows with round traces,
    for a run that ends at ``t_end`` (s) whose CBR sources start or stop at
    ``cbr_changes`` (s); ``bands``: each flow's settling band, packets (:func:`law_band`).
    The values are those of :func:`tcpfluid.metrics.summarise`."""
    from .metrics._changes import flow_rates, jain_rows
    from .metrics.summary import _columns_once, run_changes

    F = len(flows)
    names = [str(i) for i in range(F)]
    recs = [
        traced_flow_record(nm, fl, float(fl.delivered_pkts), int(np.size(fl.loss_t_s)))
        for nm, fl in zip(names, flows, strict=True)
    ]
    start = np.array([float(fl.start_s) for fl in flows], dtype=np.float64)
    stop = np.array([float(fl.stop_s) for fl in flows], dtype=np.float64)
    # each CBR change as a zero-length interval: only the times are used
    cbr = [(float(c), float(c)) for c in cbr_changes]
    changes = run_changes(cbr, zip(start.tolist(), stop.tolist(), strict=True), t_end)[0]
    K = len(changes)
    if F:
        band = np.array(bands, dtype=np.float64) if len(bands) else np.zeros(F)
        cols = _columns_once(metrics.FlowRecords.of(recs, t_end), changes, t_end, band, False)
    else:
        cols = {k: np.empty(0) for k in ("ss_t", "ss_w", "tail", "t_eq", "settled")}
        cols["conv"] = np.empty((0, K))
    delivered = np.array([float(fl.delivered_pkts) for fl in flows], dtype=np.float64)
    thr = flow_rates(delivered, start, stop, (0.0, t_end))
    return {
        **window_fields(cols, (F,), changes),
        "throughput_pps": thr,
        "jain_index": float(jain_rows(thr)[0]),
        "losses": np.array([np.size(fl.loss_t_s) for fl in flows], dtype=np.int64),
    }


def window_fields(
    cols: dict[str, Any], shape: tuple[int, ...], changes: tuple[float, ...]
) -> dict[str, Any]:
    """The :class:`EngineSummary` window fields from the columns of
    ``tcpfluid.metrics.summary._columns_once``, shaped ``shape`` per flow."""
    settled = np.isfinite(cols["settled"]).reshape(shape)
    ss_t = np.asarray(cols["ss_t"], dtype=np.float64).reshape(shape)
    conv = np.asarray(cols["conv"], dtype=np.float64).reshape(*shape, len(changes))
    return {
        "ss_exit_time_s": ss_t,
        "ss_exit_window_pkts": np.asarray(cols["ss_w"], dtype=np.float64).reshape(shape),
        "ss_exited": np.isfinite(ss_t),
        "settled_window_pkts": np.asarray(cols["tail"], dtype=np.float64).reshape(shape),
        "time_to_equilibrium_s": np.where(settled, cols["t_eq"].reshape(shape), math.nan),
        "reached_equilibrium": settled,
        "change_times_s": changes,
        "convergence_times_s": conv,
        "converged": np.isfinite(conv),
    }
