"""The summary of a whole run, computed once for every engine.

:func:`summarise` turns what an engine knows about each flow (:class:`FlowRecord`: its
window series, whether it was in slow start, what it delivered, its loss events) and about
the bottleneck (packets carried, capacity) into the one
:class:`tcpfluid.results.Summary`, with the definitions of :mod:`tcpfluid.metrics`
(slow-start exit, settling, convergence after each change, Jain's index, utilization).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, Any, Required, TypedDict, TypeVar, Unpack, overload

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import LOSS_BURST_TIMEOUT, LOSS_TIMEOUT, SLOW_START
from . import settling, slow_start_exit
from ._exits import _loss_exit, slow_start_left
from ._records import (
    FlowRecord,
    FlowRecords,
    _bands,
    _block,
    _convergence,
    _finite,
    _flow_columns,
    _per_flow,
    _same_as_previous,
    _take,
    check_settle_band,
    check_summary_size,
    run_values,
    spread_groups,
)
from ._settling import _first_end

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Summary, SummaryBatch

__all__ = ["FlowRecord", "FlowRecords", "run_changes", "summarise"]


FloatArray = NDArray[np.float64]
_S = TypeVar("_S")


def run_changes(
    cbr: Iterable[tuple[float, float]],
    flows: Iterable[tuple[float, float]],
    end_s: float,
    *,
    start_spread_s: float = 0.0,
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """The changes of a run and their kinds: CBR starts/stops, flows joining/leaving.

    Times inside ``(0, end_s)``, increasing; coinciding kinds joined with ``+``. The flows'
    starts and stops of one start spread (offsets in ``[0, start_spread_s)``, s: the
    scenario's ``start_spread``) are one change, at the first of them, or none for those
    of the run's start; one that follows a CBR change by less is that change
    (:func:`~tcpfluid.metrics._records.spread_groups`).

    >>> run_changes([(80.0, 160.0)], [(0.0, math.inf), (100.0, 300.0)], 240.0)
    ((80.0, 100.0, 160.0), ('cbr-start', 'flow-join', 'cbr-stop'))
    >>> run_changes([], [(1e-5, math.inf), (3e-5, math.inf), (9.0, 20.0), (9.00002, 20.00004)],
    ...             30.0, start_spread_s=5e-5)
    ((9.0, 20.0), ('flow-join', 'flow-leave'))
    """
    kinds: dict[float, list[str]] = {}

    def add(t: float, k: str) -> None:
        if 0.0 < t < end_s and k not in kinds.setdefault(t, []):
            kinds[t].append(k)

    pairs = [(float(a), float(b)) for a, b in cbr]
    for start, stop in pairs:
        add(start, "cbr-start")
        add(stop, "cbr-stop")
    times = np.array([t for pair in flows for t in pair], dtype=np.float64)
    order = np.argsort(times, kind="stable")  # equal times in the order given
    at = spread_groups(times[order], np.asarray(pairs).reshape(-1), start_spread_s)
    leave = (order % 2).astype(np.int8)  # each flow's (start, stop): join, leave
    _, first = np.unique(np.stack([at, leave], axis=1), axis=0, return_index=True)
    for i in np.sort(first).tolist():
        add(float(at[i]), "flow-leave" if leave[i] else "flow-join")
    times_s = tuple(sorted(kinds))
    return times_s, tuple("+".join(kinds[t]) for t in times_s)


#: flows summarised at once: the temporaries of a block (samples x flows) stay small enough
#: to be reused rather than mapped afresh for every operation
CHUNK_FLOWS = 1 << 16


def _columns_once(
    fr: FlowRecords,
    changes: tuple[float, ...],
    end_s: float,
    bands: FloatArray,
    reasons: bool = True,
    scenarios: int = 1,
) -> dict[str, Any]:
    """:func:`_columns_of`, computed once per run of identical consecutive flows when
    such runs are common; the flows are judged in the blocks :func:`_columns_of` makes of
    them (NumPy sums one column in another order than many), so every value is the same
    bits. The flows of a batch of ``scenarios`` runs (flow ``s F + f`` of run ``s``) of one
    flow each (sums over one column are pairwise, an order set by its length) are judged
    each on the samples of a run of its own, to the first at or after ``end_s``."""
    n = len(fr.start_s)
    if n == scenarios > 1 and fr.t_s.ndim > 1:
        own = np.minimum(np.count_nonzero(fr.t_s < end_s, axis=0) + 1, fr.t_s.shape[0])
        if not (own == fr.t_s.shape[0]).all():
            cols: dict[str, Any] = {}
            for m in np.unique(own).tolist():
                idx = np.flatnonzero(own == m)
                part = _columns_once(_take(fr, idx, m), changes, end_s, bands[idx], reasons)
                for k, v in part.items():
                    cols.setdefault(k, np.empty((n, *v.shape[1:]), dtype=v.dtype))[idx] = v
            return cols
    if n > 1 and n % CHUNK_FLOWS == 1:  # the last flow is a block of its own
        head = _columns_once(_block(fr, 0, n - 1), changes, end_s, bands[: n - 1], reasons)
        tail = _columns_of(_block(fr, n - 1, n), changes, end_s, bands[n - 1 :], reasons)
        return {k: np.concatenate([head[k], tail[k]]) for k in head}
    repeat = _same_as_previous(fr, bands)
    if 4 * int(np.count_nonzero(repeat)) < n:  # mostly distinct: every flow
        return _columns_of(fr, changes, end_s, bands, reasons)
    first = np.flatnonzero(~repeat)
    idx = first if first.size % CHUNK_FLOWS != 1 else np.append(first, first[-1])
    got = _columns_of(_take(fr, idx), changes, end_s, bands[idx], reasons)
    counts = np.diff(np.append(first, n))
    return {k: np.repeat(v[: first.size], counts, axis=0) for k, v in got.items()}


def _reasons(eq: Any, which: NDArray[np.bool_]) -> NDArray[Any]:
    """Why each flow of ``which`` did not settle (:meth:`Settling.reason`), ``None``
    elsewhere: the text once per distinct set of the values it is written from."""
    out = np.full(which.shape, None, dtype=object)
    idx = np.flatnonzero(which)
    if idx.size == 0:
        return out
    shape = np.asarray(eq.status).shape
    cols = [
        np.broadcast_to(np.asarray(a, dtype=np.float64), shape)[idx]
        for a in (
            eq.status, eq.amplitude, eq.centre, eq.tolerance, eq.settle_band, eq.drift,
            eq.last_out_s, eq.hold_needed_s, eq.left_slow_start_s,
        )
    ]  # fmt: skip
    keys = np.ascontiguousarray(np.stack(cols, axis=1)).view(np.int64)
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    texts = np.array([eq.reason(int(idx[k])) for k in first.tolist()], dtype=object)
    out[idx] = texts[inverse.reshape(-1)]
    return out


def _columns_of(
    fr: FlowRecords,
    changes: tuple[float, ...],
    end_s: float,
    bands: FloatArray,
    reasons: bool = True,
) -> dict[str, Any]:
    """Slow-start exit, settling and convergence of every flow of ``fr`` in one
    vectorised pass: float columns with NaN for "did not happen" (and, with ``reasons``,
    why each flow did not settle: the text of :attr:`FlowSummaries.not_settled_reason`,
    which the engines' own summaries do not keep)."""
    n = int(fr.window_pkts.shape[1])
    if n > CHUNK_FLOWS:  # in blocks of flows: each flow's values are its own column's
        blocks = [
            _columns_of(_block(fr, a, b), changes, end_s, bands[a:b], reasons)
            for a, b in ((a, min(a + CHUNK_FLOWS, n)) for a in range(0, n, CHUNK_FLOWS))
        ]
        return {k: np.concatenate([b[k] for b in blocks]) for k in blocks[0]}
    K = len(changes)
    R = int(fr.window_pkts.shape[0])
    sizes = np.full(n, R, dtype=np.int64) if fr.sizes is None else fr.sizes
    out: dict[str, Any] = {key: np.full(n, np.nan) for key in _COLUMN_OF.values()}
    out["conv"] = np.full((n, K), np.nan)
    out["tail"] = np.full(n, np.nan)  # the segment's tail mean, settled or not
    if reasons:
        out["reason"] = np.full(n, "no samples", dtype=object)
    if R == 0:
        return out
    t = fr.t_s[:, None] if fr.t_s.ndim == 1 else fr.t_s
    in_ss = None
    loss_left = None  # when a flow's first slow start ended at a loss reaction
    if fr.in_slow_start is not None:
        # a flow with no window (not started yet) has not left slow start, whatever
        # phase its law's state shows before its first round
        in_ss = np.asarray(fr.in_slow_start, dtype=bool) | (fr.window_pkts == 0.0)
        ev = slow_start_exit(t, fr.window_pkts, in_ss)
        found = np.asarray(ev.found, dtype=bool)
        j = np.where(found, np.nan_to_num(np.asarray(ev.index, dtype=np.float64), nan=R), R)
        j = j.astype(np.int64) + np.where(found, 1 + fr.exit_delay_samples, 0)
        jj = np.minimum(j, R - 1)
        tt = np.broadcast_to(t, (R, n))[jj, np.arange(n)]
        # an exit stamped after the end of the trace or of the run did not happen in it
        ok = (j < sizes) & (tt <= end_s)
        w_exit = np.asarray(ev.value, dtype=np.float64)
        # rounds are the flow's own, from its first round with a window (an engine with
        # one round clock keeps rows for the rounds before a flow starts)
        first = np.argmax(np.asarray(fr.window_pkts) > 0.0, axis=0)
        if fr.first_loss_s is not None:
            decided = np.broadcast_to(t, (R, n))[np.minimum(j - 1, R - 1), np.arange(n)]
            lost, lt = _loss_exit(fr, t, in_ss, first, np.where(found, decided, np.inf), end_s)
            ok, tt = ok | lost, np.where(lost, lt, tt)
            loss_left = np.where(lost, lt, np.inf)
            w_exit = np.where(lost, np.asarray(fr.first_loss_window_pkts), w_exit)
            # the round the loss reaction falls in: the one ending at the first sample at
            # or after it
            in_round = np.count_nonzero(np.broadcast_to(t, (R, n)) < lt, axis=0)
            j = np.where(lost, in_round, j)
        out["ss_w"] = np.where(ok, w_exit, np.nan)
        out["ss_t"] = np.where(ok, tt, np.nan)
        out["ss_r"] = np.where(ok, j + 1 - first, np.nan)
    band = np.asarray(bands, dtype=np.float64)
    stop = np.minimum(end_s, fr.stop_s)
    first_end = _first_end(fr.start_s, stop, changes)  # as settling_by_segment
    # settled only out of slow start: from its first exit in the segment on (the exit the
    # summary reports: at a loss reaction where slow start ended at one)
    left = slow_start_left(t, in_ss, fr.start_s, first_end, fr.exit_delay_samples, sizes, loss_left)
    eq = settling(t, fr.settle_window_pkts, t_start=fr.start_s, t_end=first_end,
                  settle_band=band, left_slow_start_s=left)  # fmt: skip
    has = sizes > 0
    settled = np.asarray(eq.settled, dtype=bool) & has
    out["settled"] = np.where(settled, _finite(eq.value), np.nan)
    out["tail"] = np.where(has, _finite(eq.value), np.nan)
    out["t_eq"] = np.where(settled, _finite(eq.time_s), np.nan)
    out["centre"] = np.where(settled, _finite(eq.centre), np.nan)
    out["amplitude"] = np.where(settled, _finite(eq.amplitude), np.nan)
    if K:
        flow, k, conv = _convergence(fr, t, changes, stop, band, CHUNK_FLOWS, in_ss, loss_left)
        out["conv"][flow, k] = np.where(has[flow], conv, np.nan)
    if reasons:
        out["reason"] = _reasons(eq, has & ~settled)
        out["reason"][~has] = "no samples"
    return out


#: the summary values of :func:`_columns_of`, by their name in :class:`FlowSummaries`
_COLUMN_OF = {
    "ss_exit_window_pkts": "ss_w", "ss_exit_time_s": "ss_t", "ss_exit_round": "ss_r",
    "settled_window_pkts": "settled", "time_to_equilibrium_s": "t_eq",
    "cycle_centre_pkts": "centre", "cycle_amplitude_pkts": "amplitude",
}  # fmt: skip


class _Run(TypedDict, total=False):
    """:func:`summarise`'s keyword options (declared once for its two typed forms)."""

    end_s: Required[float]
    carried_pkts: Required[Any]
    capacity_pps: Required[Any]
    measured_s: tuple[Any, Any] | None
    bottleneck: Required[str]
    extras: Any
    settle_band: float | Mapping[str, float] | None


@overload
def summarise(
    engine: str, scenario: Any, flows: Sequence[FlowRecord] | FlowRecords, *,
    scenarios: None = None, **run: Unpack[_Run],
) -> Summary: ...  # fmt: skip
@overload
def summarise(
    engine: str, scenario: Any, flows: Sequence[FlowRecord] | FlowRecords, *,
    scenarios: int, **run: Unpack[_Run],
) -> SummaryBatch: ...  # fmt: skip
def summarise(
    engine: str,
    scenario: Any,
    flows: Sequence[FlowRecord] | FlowRecords,
    *,
    end_s: float,
    carried_pkts: Any,
    capacity_pps: Any,
    measured_s: tuple[Any, Any] | None = None,
    bottleneck: str,
    extras: Any = None,
    settle_band: float | Mapping[str, float] | None = None,
    scenarios: int | None = None,
) -> Summary | SummaryBatch:
    """The :class:`tcpfluid.results.Summary` of a run: the one summary computation; with
    ``scenarios``, the summaries of a batch of runs at once (a
    :class:`tcpfluid.results.SummaryBatch`, each row the :class:`Summary` of its run alone).

    The slow-start exit is the last slow-start window and the end of the round at whose end
    the sender decides from that window's own RTTs (sample ``k`` closes round ``k + 1``;
    :attr:`FlowRecord.exit_delay_samples`), or the flow's first loss event when that comes
    no later than the decision (:attr:`FlowRecord.first_loss_s`: its time, and the window
    its reaction cut; docs/round-model.md).

    Parameters
    ----------
    engine, scenario
        The engine's name and the scenario run (its CBR sources give the changes).
    flows
        One :class:`FlowRecord` per flow, or every flow as columns (:class:`FlowRecords`).
    end_s
        End of the run, s.
    carried_pkts, capacity_pps
        Packets the bottleneck carried during the measured time (all traffic) and its
        capacity (packets/s); utilization = carried / (capacity × measured time).
    measured_s
        ``(from, to)``, s, over which throughputs and utilization are averaged (default
        ``(0, end_s)``).
    bottleneck, extras
        Name of the bottleneck link; engine-specific JSON keys kept in the summary.
    settle_band
        :func:`~tcpfluid.metrics.settling`'s band, packets: ``None`` each flow's law's own
        (:func:`~tcpfluid.metrics.law_settle_band`), one number (``>= 0`` or ``inf``) for
        every flow, or a mapping from algorithm names to bands (:func:`check_settle_band`).
    scenarios
        ``None``: one run, a :class:`Summary`. S >= 1: ``flows`` (a :class:`FlowRecords`)
        holds S runs of the same F flows (flow ``s F + f`` is flow ``f`` of run ``s``, every
        run's flows starting and stopping at the same times; ``names``: F or S F), and
        ``carried_pkts``, ``capacity_pps`` and the end of ``measured_s`` may have S values;
        a :class:`SummaryBatch`.

    Raises
    ------
    TypeError
        ``scenarios`` with flows that are not a :class:`FlowRecords`.
    ValueError
        ``scenarios`` below 1, flows that are not ``scenarios`` runs of as many flows or
        start or stop at other times, a bad ``settle_band``.
    """
    from ..results import SummaryBatch

    S, parts, per, names = _runs(flows, scenarios, end_s)
    st, sp = per["start_s"], per["stop_s"]
    check_summary_size(scenario, st[0], sp[0], end_s)
    cbr = [(c.start_s, c.stop_s) for c in getattr(scenario, "cbr", ())]
    bands = _bands(scenario, names, check_settle_band(settle_band))
    spread = float(getattr(scenario, "start_spread_s", 0.0))
    changes, kinds, cols, run = _judged(parts, per, cbr, end_s, np.tile(bands, S), measured_s,
                                        carried_pkts, capacity_pps, True, spread)  # fmt: skip
    F, K = st.shape[1], len(changes)
    columns = {
        # a flow that stops at or after the run's end runs to the end, as one without a stop
        "start_s": st, "stop_s": np.where(sp >= end_s, np.inf, sp),
        "convergence_times_s": cols["conv"].reshape(S, F, K),
        "throughput_pps": run["throughput_pps"], "losses": per["loss_events"],
        "not_settled_reason": cols["reason"].reshape(S, F),
        **{name: cols[key].reshape(S, F) for name, key in _COLUMN_OF.items()},
    }  # fmt: skip
    batch = SummaryBatch(
        engine=engine, flow_names=names, flows=columns, change_times_s=changes,
        change_kinds=kinds, all_settled_time_s=run["all_settled_time_s"],
        all_converged_times_s=run["all_converged_times_s"], utilization=run["utilization"],
        jain_index=run["jain_index"], bottleneck=bottleneck,
        notes=tuple(getattr(scenario, "notes", ())), extras=dict(extras or {}),
    )  # fmt: skip
    return batch if scenarios is not None else batch.row(0)


#: the per-flow inputs of the run values, and their type (``None``: the records')
_PER_FLOW = {"start_s": np.float64, "stop_s": np.float64, "delivered_pkts": np.float64,
             "loss_events": None, "last_delivery_s": np.float64}  # fmt: skip


def _runs(
    flows: Sequence[FlowRecord] | FlowRecords, scenarios: int | None, end_s: float
) -> tuple[int, list[tuple[Any, FlowRecords]], dict[str, NDArray[Any]], Sequence[str]]:
    """``flows`` checked as ``scenarios`` runs (1 for ``None``) of the same F flows
    (:func:`summarise`): S, the flows as columns (:func:`_flow_columns`), their starts,
    stops, delivered packets and loss events ``(S, F)``, and the F flows' names."""
    from .._validation import check_int

    S = 1 if scenarios is None else check_int("scenarios", scenarios, minimum=1)
    if scenarios is not None and not isinstance(flows, FlowRecords):
        raise TypeError(
            f"flows must be a FlowRecords (columns) with scenarios={scenarios}, got "
            f"{type(flows).__name__}"
        )
    parts = _flow_columns(flows, end_s)
    n = sum(len(fr.start_s) for _, fr in parts)
    if n % S:
        raise ValueError(f"flows: {n} flows are not {S} runs (scenarios) of as many flows")
    F = n // S
    per: dict[str, NDArray[Any]] = {}
    for key, dtype in _PER_FLOW.items():
        kind = dtype or np.result_type(*[getattr(fr, key).dtype for _, fr in parts])
        per[key] = np.empty(n, dtype=kind)
        for where, fr in parts:
            per[key][where] = _per_flow(fr, key)
        per[key] = per[key].reshape(S, F)
    st, sp = per["start_s"], per["stop_s"]
    if S > 1 and ((st != st[:1]).any() or (sp != sp[:1]).any()):
        raise ValueError(
            f"flows: the {S} runs of a batch (scenarios={S}) must have the same flows' start "
            "and stop times (one set of changes)"
        )
    names: list[str] | Sequence[str] = parts[0][1].names if len(parts) == 1 else [""] * n
    if len(parts) > 1:
        for where, fr in parts:
            for i, nm in zip(np.asarray(where).tolist(), fr.names, strict=True):
                names[i] = nm  # type: ignore[index]
    if S > 1 or len(names) != F:
        if len(names) not in (F, n):
            raise ValueError(f"flows: {len(names)} names for {S} runs of {F} flows")
        names = list(names[:F])
    return S, parts, per, names


def _judged(
    parts: list[tuple[Any, FlowRecords]],
    per: dict[str, NDArray[Any]],
    cbr: Iterable[tuple[float, float]],
    end_s: float,
    bands: FloatArray,
    measured_s: tuple[Any, Any] | None,
    carried_pkts: Any,
    capacity_pps: Any,
    reasons: bool,
    start_spread_s: float,
) -> tuple[tuple[float, ...], tuple[str, ...], dict[str, Any], dict[str, FloatArray]]:
    """The changes and their kinds (:func:`flow_changes` of the CBR sources active over
    ``cbr`` and of the flows, of a start spread ``start_spread_s``, s), the columns of
    every flow (:func:`_columns_once`, flow ``s F + f`` of run ``s``) and the values of
    each run (:func:`run_values`) of S runs of F flows: the one summary computation of
    :func:`summarise` and of the engines' own summaries."""
    S, F = per["start_s"].shape
    changes, kinds = flow_changes(
        cbr, per["start_s"][0], per["stop_s"][0], end_s, start_spread_s=start_spread_s
    )
    measured = (0.0, end_s) if measured_s is None else measured_s
    cols: dict[str, Any] = {}
    for where, fr in parts:
        got = _columns_once(fr, changes, end_s, bands[where], reasons, S)
        if len(parts) == 1:  # every flow, in order: the columns as they are
            cols = got
            continue
        for key, v in got.items():
            if key not in cols:
                cols[key] = np.empty((S * F, *v.shape[1:]), dtype=v.dtype)
            cols[key][where] = v
    conv = cols["conv"].reshape(S, F, len(changes))
    run = run_values(per["start_s"], per["stop_s"], per["delivered_pkts"],
                     per["last_delivery_s"], cols["t_eq"].reshape(S, F), conv, changes,
                     measured, carried_pkts, capacity_pps)  # fmt: skip
    return changes, kinds, cols, run


def flow_changes(
    cbr: Iterable[tuple[float, float]],
    start: FloatArray,
    stop: FloatArray,
    end_s: float,
    *,
    start_spread_s: float = 0.0,
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """:func:`run_changes` of the CBR sources active over the intervals ``cbr`` and of the
    flows' distinct (start, stop) intervals (of a start spread ``start_spread_s``, s)."""
    pairs: list[tuple[float, float]] = []
    if start.size:  # the distinct intervals in the order of their first flow
        both = np.stack([start, stop], axis=1)
        # a flow with its predecessor's interval is never the first with it
        new = np.ones(start.size, dtype=bool)
        new[1:] = (both[1:] != both[:-1]).any(axis=1)
        both = both[new]
        _, first = np.unique(both, axis=0, return_index=True)
        pairs = [(float(a), float(b)) for a, b in both[np.sort(first)].tolist()]
    return run_changes(cbr, pairs, end_s, start_spread_s=start_spread_s)


def traced_flow_record(name: str, fl: Any, delivered_pkts: float, loss_events: int) -> FlowRecord:
    """The :class:`FlowRecord` of a flow that decided at its own round boundaries (the
    packet simulator, the hybrid model) from its round trace (``round_t_s``,
    ``round_cwnd_pkts``, ``round_next_cwnd_pkts``, ``round_phase``), for both summaries.

    Where the trace keeps each loss event's kind and window (``loss_kind``,
    ``loss_cwnd_before_pkts``, ``loss_cwnd_after_pkts``: the packet simulator's), the
    timeouts after the last round boundary are samples too, in slow start with the window
    they left: a timeout stops the ACK clock, and a flow whose retransmissions keep timing
    out ends no round after it, so the window it has to the end of the run is the
    timeouts' (a fast retransmit's cut is recorded by the round boundary that follows it).
    The first loss event (``loss_t_s``, ``loss_cwnd_before_pkts``: the window the reaction
    cut) is the record's :attr:`FlowRecord.first_loss_s` and its window.
    """
    t = np.asarray(fl.round_t_s, dtype=np.float64)
    seen = np.asarray(fl.round_cwnd_pkts, dtype=np.float64)
    after = np.asarray(fl.round_next_cwnd_pkts, dtype=np.float64)
    in_ss = np.asarray(fl.round_phase) == SLOW_START
    loss_t = np.asarray(fl.loss_t_s, dtype=np.float64)
    loss_w = np.asarray(fl.loss_cwnd_before_pkts, dtype=np.float64)
    kind = getattr(fl, "loss_kind", None)
    if kind is not None:
        lt = loss_t
        late = np.isin(kind, (LOSS_TIMEOUT, LOSS_BURST_TIMEOUT)) & (lt > t[-1] if t.size else True)
        if late.any():
            t = np.concatenate([t, lt[late]])
            seen = np.concatenate([seen, loss_w[late]])
            after = np.concatenate([after, np.asarray(fl.loss_cwnd_after_pkts)[late]])
            in_ss = np.concatenate([in_ss, np.ones(int(late.sum()), dtype=bool)])
    return FlowRecord(
        name=name,
        start_s=fl.start_s,
        stop_s=fl.stop_s,
        t_s=t,
        window_pkts=seen,
        in_slow_start=in_ss,
        settle_window_pkts=after,
        delivered_pkts=delivered_pkts,
        loss_events=loss_events,
        # boundary k ends round k + 1; the law leaves slow start at the end of the round
        # that sent the exit window and keeps it one more round, which ends the exit
        # round (the convention of tcpfluid.metrics.summarise)
        exit_delay_samples=1,
        last_delivery_s=getattr(fl, "last_delivery_s", math.nan),
        first_loss_s=float(loss_t[0]) if loss_t.size else math.nan,
        first_loss_window_pkts=float(loss_w[0]) if loss_w.size else math.nan,
    )


def engine_summary(
    cls: type[_S] | None,
    fr: FlowRecords,
    cbr_changes: tuple[float, ...],
    end_s: float,
    bands: FloatArray,
    *,
    scenarios: int | None = None,
    measured_s: tuple[Any, Any] | None = None,
    carried_pkts: Any = math.nan,
    capacity_pps: Any = math.nan,
    start_spread_s: float = 0.0,
    **more: Any,
) -> Any:
    """An engine's own summary ``cls`` (a :class:`~tcpfluid.results.EngineSummary`; ``None``:
    its fields as a dict) of the flows ``fr`` of a run that ends at ``end_s`` (s), whose
    CBR sources start or stop at ``cbr_changes`` (s); ``bands``: each flow's settling band,
    packets; ``start_spread_s``: the scenario's start spread, s (:func:`run_changes`). The
    values are :func:`summarise`'s (:func:`_judged`), per flow ``(F,)``, or ``(S, F)`` for a
    batch of ``scenarios`` runs; ``more``: the engine's own fields (and its own
    ``utilization``)."""
    S = scenarios or 1
    F = len(fr.start_s) // S
    per = {key: _per_flow(fr, key).reshape(S, F) for key in _PER_FLOW}
    # each CBR change as a zero-length interval: only the times are used
    changes, _, cols, run = _judged([(slice(None), fr)], per, [(c, c) for c in cbr_changes],
                                    end_s, bands, measured_s, carried_pkts, capacity_pps,
                                    False, start_spread_s)  # fmt: skip
    shape = (F,) if scenarios is None else (S, F)
    settled = np.isfinite(cols["settled"]).reshape(shape)
    ss_t = cols["ss_t"].reshape(shape)
    conv = cols["conv"].reshape(*shape, len(changes))
    values = {
        "ss_exit_time_s": ss_t,
        "ss_exit_window_pkts": cols["ss_w"].reshape(shape),
        "ss_exited": np.isfinite(ss_t),
        "settled_window_pkts": cols["tail"].reshape(shape),
        "time_to_equilibrium_s": np.where(settled, cols["t_eq"].reshape(shape), math.nan),
        "reached_equilibrium": settled,
        "change_times_s": changes,
        "convergence_times_s": conv,
        "converged": np.isfinite(conv),
        "ss_exit_round": cols["ss_r"].reshape(shape),
        "utilization": run["utilization"],
        "throughput_pps": run["throughput_pps"].reshape(shape),
        "jain_index": float(run["jain_index"][0]) if scenarios is None else run["jain_index"],
        "losses": per["loss_events"].reshape(shape).copy(),
    }
    if cls is None:
        return values
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{**{k: v for k, v in values.items() if k in names}, **more})


def traced_summary(
    cls: type[_S], flows: Sequence[Any], bands: Sequence[float], cbr_changes: tuple[float, ...],
    end_s: float, **more: Any,
) -> _S:  # fmt: skip
    """:func:`engine_summary` of flows with round traces (:func:`traced_flow_record`: the
    packet simulator's, the hybrid model's), counted to the end of the run; ``more``: its
    options (``start_spread_s``) and the engine's own fields."""
    recs = [
        traced_flow_record(str(i), fl, float(fl.delivered_pkts), int(np.size(fl.loss_t_s)))
        for i, fl in enumerate(flows)
    ]
    band = np.array(bands, dtype=np.float64) if len(bands) else np.zeros(len(flows))
    return engine_summary(cls, FlowRecords.of(recs, end_s), cbr_changes, end_s, band, **more)
