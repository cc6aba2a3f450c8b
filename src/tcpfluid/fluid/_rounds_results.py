"""Results of the round model: the per-round record (:class:`RoundTrace`) and its summary
(:class:`RoundSummary`, definitions in :mod:`tcpfluid.metrics`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import metrics
from .._json import fields_dict
from .._validation import check_int, check_memory
from ..algorithms.base import SLOW_START
from ..metrics.summary import engine_summary
from ..results import EngineSummary
from ._rounds_inputs import RECORDABLE, PathBatch

FloatArray = NDArray[np.float64]


#: the memory of a run beside its record, bytes: per flow (the engine's state, the
#: scenario's columns, the summary's columns) and per flow and round (the summary's
#: work on the whole run; docs/round-model.md, "Performance")
FLOW_BYTES = 800
SUMMARY_BYTES = 56


@dataclass(frozen=True, eq=False)
class RoundSummary(EngineSummary):
    """Summary metrics of a :class:`RoundTrace` (:class:`~tcpfluid.results.EngineSummary`'s
    fields, definitions in :mod:`tcpfluid.metrics`) and the slow-start exit round, per
    scenario ``(S,)`` or per flow ``(S, F)`` (convergence: ``(S, F, K)``).

    Attributes
    ----------
    ss_exit_round
        The 1-based round (the flow's own; round 1 = ``[0, d]``) at whose end the law decides
        from the RTTs of the exit window's own packets.
    """

    ss_exit_round: NDArray[np.float64]

    _round_key = True

    def scenario(self, s: int = 0, flow: int = 0) -> dict[str, Any]:
        """The public summary keys for scenario ``s`` (window metrics of flow ``flow``)."""
        return self._keys((s, flow), (s,))

    def flow(self, flow: int = 0) -> dict[str, Any]:
        """The :meth:`scenario` dict of scenario 0 with the window metrics of ``flow``."""
        return self.scenario(0, flow)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the :meth:`scenario` dict of one scenario, else ``{"scenarios": [...]}``."""
        n = self.utilization.shape[0]
        if n == 1:
            return self.scenario(0)
        return {"scenarios": [self.scenario(s) for s in range(n)]}


@dataclass(frozen=True)
class RoundTrace:
    """Per-round result of :func:`simulate_rounds` (docs/round-model.md).

    Row ``k`` is round ``k``: ``time_s`` when it ends (the law decides), ``window_pkts`` the
    packets sent in it, ``phase`` the law's phase during it, ``delta_pkts`` the law's backlog
    Δ (eq 1 of the Quick Vegas paper), ``rtt_s`` its mean RTT as the law sees it,
    ``queue_pkts`` the bottleneck queue at its end (link packets), ``throughput_pps`` each
    flow's delivery rate in it; every m-th round with ``record_every = m``. Shapes ``(R, S)``
    per scenario, ``(R, S, F)`` per flow; fields not recorded are ``None``.

    Attributes
    ----------
    paths
        The scenarios' paths.
    algorithm, law_params, rtt_model
        The law's registry name and parameters; the RTT model.
    change_times_s
        Times at which the cross traffic (available bandwidth) changes, s.
    duration_s, elapsed_s
        The run's duration (``None``: run for a number of rounds); per scenario, the time
        over which totals are counted, s.
    delivered_pkts, carried_pkts, losses
        Packets delivered per flow; carried by the bottleneck per scenario; loss events per
        flow.
    flow_start_s, flow_stop_s
        Each flow's active interval, s.
    settle_band_pkts
        Each flow's settle band ``(S, F)``: its own law's limit-cycle amplitude.
    exit_lag_rows
        Rows between a decision and the round whose RTTs it read (the feedback lag when every
        round is recorded, else 0).
    law_base_rtt_s
        The BaseRTT each flow's law held at the end, s, ``(S, F)`` (``inf``: never sent).
    locked_out
        Whether each flow lost its first window and every timer retransmission after it,
        ``(S, F)`` (``None``: no flow).
    all_rounds_recorded
        Whether every round has a row; then the summary stamps a round's window at its start
        (:func:`next_windows`).
    first_loss_s, first_loss_window_pkts
        Each flow's first loss event ``(S, F)``: the end of the round whose losses the law
        reacted to, s, and that round's window, packets (NaN: none; ``None``: not kept).
    last_delivery_s
        The end of each flow's last round that delivered packets ``(S, F)``, s (NaN: none;
        ``None``: not kept).
    """

    time_s: FloatArray
    window_pkts: FloatArray
    phase: NDArray[np.int8]
    delta_pkts: FloatArray | None
    rtt_s: FloatArray | None
    queue_pkts: FloatArray | None
    throughput_pps: FloatArray | None
    paths: PathBatch
    algorithm: str
    law_params: dict[str, Any]
    rtt_model: str
    change_times_s: tuple[float, ...]
    duration_s: float | None
    elapsed_s: FloatArray
    delivered_pkts: FloatArray
    carried_pkts: FloatArray
    losses: NDArray[np.int64]
    flow_start_s: FloatArray
    flow_stop_s: FloatArray
    settle_band_pkts: FloatArray
    exit_lag_rows: int = 0
    all_rounds_recorded: bool = False
    law_base_rtt_s: FloatArray | None = None
    locked_out: NDArray[np.bool_] | None = None
    first_loss_s: FloatArray | None = None
    first_loss_window_pkts: FloatArray | None = None
    last_delivery_s: FloatArray | None = None

    @property
    def n_rounds(self) -> int:
        """Recorded rows R."""
        return int(self.time_s.shape[0])

    @property
    def n_scenarios(self) -> int:
        """S."""
        return int(self.time_s.shape[1])

    @property
    def n_flows(self) -> int:
        """F."""
        return int(self.window_pkts.shape[2])

    @cached_property
    def summary(self) -> RoundSummary:
        """Summary metrics (computed once, on first access)."""
        S, F = self.n_scenarios, self.n_flows
        return engine_summary(
            RoundSummary, flow_records(self), self.change_times_s,
            self.duration_s if self.duration_s is not None else math.inf,
            self.settle_band_pkts.reshape(S * F), scenarios=S, measured_s=(0.0, self.elapsed_s),
            carried_pkts=self.carried_pkts, capacity_pps=self.paths.mu_pps,
            losses=self.losses.copy(),
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """Plain lists (scenario 0's series when S = 1) and ``summary``."""
        out = fields_dict(self, ("algorithm", "law_params", "rtt_model"))
        out["paths"] = self.paths.to_dict()
        out.update(fields_dict(self, ("change_times_s", "duration_s")))
        for name in ("time_s", "window_pkts", "phase", *RECORDABLE):
            arr = getattr(self, name)
            if arr is None:
                continue
            if self.n_scenarios == 1:
                arr = arr[:, 0]
            out[name] = np.where(np.isfinite(arr), arr, np.nan).tolist()
        out["summary"] = self.summary.to_dict()
        return out

    def plot(self, ax: Any = None, *, scenario: int = 0) -> list[Any]:
        """Plot scenario ``scenario``'s windows (and its queue, dashed) against time; returns the
        artists."""
        check_int("scenario", scenario, minimum=0)
        if scenario >= self.n_scenarios:
            raise ValueError(
                f"scenario must be < {self.n_scenarios} (the number of scenarios), got {scenario}"
            )
        from .hybrid import plot_windows

        q = None if self.queue_pkts is None else self.queue_pkts[:, scenario]
        laws = [self.algorithm] * self.n_flows
        w = self.window_pkts[:, scenario].T
        return plot_windows(ax, self.time_s[:, scenario], w, laws, q, "queue (link)")

    def to_frame(self) -> Any:
        """A long :class:`pandas.DataFrame`: one row per (round, scenario, flow)."""
        import pandas as pd

        r, s, f = self.window_pkts.shape
        cols: dict[str, Any] = {
            "round": np.repeat(np.arange(r), s * f),
            "scenario": np.tile(np.repeat(np.arange(s), f), r),
            "flow": np.tile(np.arange(f), r * s),
            "time_s": np.repeat(self.time_s.ravel(), f),
            "window_pkts": self.window_pkts.ravel(),
            "phase": self.phase.ravel(),
        }
        for name in ("delta_pkts", "throughput_pps", "rtt_s", "queue_pkts"):
            arr = getattr(self, name)
            if arr is not None:  # (per flow, or per scenario: repeated over its flows)
                cols[name] = arr.ravel() if arr.ndim == 3 else np.repeat(arr.ravel(), f)
        return pd.DataFrame(cols)


def rows_of(a: Any, rows: Any, columns: bool = False) -> Any:
    """``a[rows]`` (rows along axis 0); ``columns``: column-contiguous, picked from the
    transpose in one copy."""
    return np.take(a.T, rows, axis=1).T if columns else a[rows]


def next_windows(window_pkts: Any, columns: bool = False) -> Any:
    """The window in effect after each row's time: the next row's (the last repeated);
    ``columns``: column-contiguous (:func:`rows_of`)."""
    w = np.asarray(window_pkts)
    if w.shape[0] == 0:
        return w
    return rows_of(w, np.minimum(np.arange(1, w.shape[0] + 1), w.shape[0] - 1), columns)


def own_rounds(ends: Any, *columns: Any) -> tuple[Any, ...]:
    """Each flow's own rounds (rows where ``ends``) moved to the top of its column: each of
    ``columns`` (``(R,)`` or ``(R, F)``) as ``(R', F)``, then each flow's number of rounds."""
    mask = np.asarray(ends, dtype=bool)
    sizes = mask.sum(axis=0).astype(np.int64)
    order = np.argsort(~mask, axis=0, kind="stable")[: int(sizes.max(initial=0))]
    moved = (a[order] if a.ndim == 1 else np.take_along_axis(a, order, axis=0) for a in columns)
    return (*moved, sizes)


def within(a: Any, sizes: NDArray[np.int64], shift: Any) -> Any:
    """Per column ``a[clip(k + shift, 0, size - 1)]``: a shift inside each flow's own rows."""
    k = np.arange(a.shape[0])[:, None] + shift
    k = np.clip(k, 0, np.maximum(sizes - 1, 0)[None, :])
    return np.take_along_axis(a, k, axis=0)


def read_windows(w: Any, lag: int, sizes: NDArray[np.int64] | None, columns: bool = False) -> Any:
    """The window whose RTTs the law read at each row: ``w`` ``lag`` rows down, within each
    flow's rows (``sizes``: its own first rows; ``None``: all), and from its first row with
    a window: a flow's first ``lag`` rows read its first window whether it started at 0
    or joined later (the rows before, when it had not started, read nothing).
    ``columns``: column-contiguous (:func:`rows_of`)."""
    R = w.shape[0]
    if lag <= 0 or R == 0:
        return np.asfortranarray(w) if columns else w
    if sizes is None:
        out = rows_of(w, np.maximum(np.arange(R) - lag, 0), columns)
    else:
        out = within(w, sizes, -lag)
    first = np.argmax(w > 0.0, axis=0)
    late = np.flatnonzero(first > 0)  # flows that joined after the first row
    for i in range(lag):
        rows = first[late] + i
        ok = rows < R
        out[rows[ok], late[ok]] = w[first[late[ok]], late[ok]]
    return out


def own_round_logs(
    tr: RoundTrace, columns: bool = False
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int8], NDArray[np.int64] | None]:
    """Each flow's round log in columns (flow ``s * F + f``): times, windows, the windows in
    effect after each row, phases and, for flows of their own round clocks, each flow's
    number of rounds (``None`` otherwise). ``columns`` (one flow a scenario, one round
    clock): the times and the windows in effect column-contiguous."""
    R, S, F = tr.window_pkts.shape
    ends = getattr(tr, "round_end", None)
    w = tr.window_pkts.reshape(R, S * F)
    phase = tr.phase.reshape(R, S * F)
    if ends is None:
        if columns and F == 1:  # each flow's times are its scenario's
            t = np.asfortranarray(tr.time_s)
        else:
            t = tr.time_s[:, 0] if S == 1 else np.repeat(tr.time_s, F, axis=1)
        if tr.all_rounds_recorded:
            after = next_windows(w, columns)
        else:
            after = np.asfortranarray(w) if columns else w
        return t, w, after, phase, None
    tt, ww, pp, sizes = own_rounds(ends[:, 0, :], tr.time_s[:, 0], w, phase)
    return tt, ww, within(ww, sizes, 1) if tr.all_rounds_recorded else ww, pp, sizes


def note_round(eng: Any, ix: Any, t: Any, w: FloatArray, got: FloatArray, lost: bool) -> None:
    """After the decision of a round of the flows ``ix`` of the round engine ``eng``, which
    ends at ``t`` (s, each flow's), sent ``w`` and delivered ``got`` packets (``lost``: the
    round had losses), in ``eng.marks`` ``(3, n)`` (NaN: none yet): the first loss event of
    each flow whose loss count has just left 0 (the round's end, where the law reacted,
    and ``w``, the window its reaction cut) and the round's end as the last delivery of
    each flow that delivered packets in it."""
    marks = eng.marks
    at = np.arange(marks.shape[1])[ix]
    tt = np.broadcast_to(t, at.shape)
    some = got > 0.0
    marks[2, at[some]] = tt[some]
    if lost or eng.sw.late is not None:
        new = (eng.losses[ix] > 0) & np.isnan(marks[0, ix])
        if new.any():
            marks[0, at[new]] = tt[new]
            marks[1, at[new]] = w[new]


def flow_records(tr: RoundTrace, names: Any = ()) -> metrics.FlowRecords:
    """Every flow of ``tr`` as the columns of :func:`tcpfluid.metrics.summarise` (windows
    stamped where they take effect, the exit read from the window measured, each flow over
    its own rounds)."""
    _, S, F = tr.window_pkts.shape
    columns = F == 1 < S  # each scenario's samples adjacent, as in a run of its own
    t, w, settle, phase, sizes = own_round_logs(tr, columns)
    lag = tr.exit_lag_rows
    if sizes is None:  # (the window whose RTTs the law read at each row: ``lag`` rows down)
        window = read_windows(w, lag, None, columns)
        in_ss = phase == SLOW_START
        if columns:
            in_ss = np.asfortranarray(in_ss)
    else:  # below a flow's own rounds: its last values, at a time after the run
        has = np.arange(t.shape[0])[:, None] < sizes[None, :]
        end = tr.duration_s if tr.duration_s is not None else 0.0
        far = max(end, float(np.max(np.where(has, t, 0.0), initial=0.0))) + 1.0

        def own(a: Any) -> Any:
            last = a[np.maximum(sizes - 1, 0), np.arange(a.shape[1])]
            return np.where(has, a, np.where(sizes > 0, last, np.zeros(1, dtype=a.dtype)))

        window, in_ss = own(read_windows(w, lag, sizes)), own(phase == SLOW_START)
        t, settle = np.where(has, t, far), own(settle)
    counted = sizes
    if tr.locked_out is not None and tr.locked_out.any():  # (no samples of these flows)
        full = window.shape[0] if sizes is None else sizes
        counted = np.where(tr.locked_out.reshape(-1), 0, full).astype(np.int64)
    return metrics.FlowRecords(
        names=names,
        start_s=np.tile(tr.flow_start_s, S),
        stop_s=np.tile(tr.flow_stop_s, S),
        t_s=t,
        window_pkts=window,
        in_slow_start=in_ss,
        settle_window_pkts=settle,
        delivered_pkts=np.asarray(tr.delivered_pkts, dtype=np.float64).reshape(S * F),
        loss_events=np.asarray(tr.losses, dtype=np.int64).reshape(S * F),
        sizes=counted,
        first_loss_s=per_flow_mark(tr.first_loss_s, S * F),
        first_loss_window_pkts=per_flow_mark(tr.first_loss_window_pkts, S * F),
        last_delivery_s=per_flow_mark(tr.last_delivery_s, S * F),
    )


def per_flow_mark(got: FloatArray | None, n: int) -> FloatArray:
    """A per-flow mark of a :class:`RoundTrace` (``(S, F)``) as ``n`` columns, NaN none."""
    return np.full(n, np.nan) if got is None else np.asarray(got, dtype=np.float64).reshape(n)


class _Recorder:
    """The per-round series of a run (every m-th round)."""

    def __init__(self, n_rec: int, S: int, F: int, fields: set[str]) -> None:
        # bytes a flow-round: what is recorded, and the summary's work on every round
        per_flow = 9 + 8 * len(fields & {"delta_pkts", "throughput_pps"}) + SUMMARY_BYTES
        check_memory(
            "the round model's run",
            float(n_rec) * S * (8 + 8 * len(fields & {"rtt_s", "queue_pkts"}) + F * per_flow)
            + float(S) * F * FLOW_BYTES,
            f"{n_rec:,} recorded rounds x {S:,} scenario(s) x {F:,} flows (record_every, "
            "duration_s or the flows)",
        )
        self.n, self.fields = 0, fields
        self.time = np.empty((n_rec, S))
        self.window = np.empty((n_rec, S, F))
        self.phase = np.empty((n_rec, S, F), dtype=np.int8)
        self.delta = np.empty((n_rec, S, F)) if "delta_pkts" in fields else None
        self.rtt = np.empty((n_rec, S)) if "rtt_s" in fields else None
        self.queue = np.empty((n_rec, S)) if "queue_pkts" in fields else None
        self.thr = np.empty((n_rec, S, F)) if "throughput_pps" in fields else None
        # the rows flat (one value per flow of every scenario), for :meth:`out_row`
        self._flat = (
            self.window.reshape(n_rec, S * F),
            None if self.thr is None else self.thr.reshape(n_rec, S * F),
        )
        #: the row :meth:`out_row` handed out (the engine wrote into it: no copy)
        self._out: tuple[Any, Any] = (None, None)

    def out_row(self) -> tuple[FloatArray, FloatArray | None]:
        """The next row's flat storage of windows and throughputs, for the engine to write."""
        k = self.n
        window, thr = self._flat
        self._out = (window[k], None if thr is None else thr[k])
        return self._out

    def add_row(
        self, c: int, t: FloatArray, w1: FloatArray, phase: Any, delta: FloatArray | None,
        rtt_mean: FloatArray, queue: FloatArray | None, thr: FloatArray | None,
    ) -> None:  # fmt: skip
        """Record a round of every scenario (fields not kept are ``None``)."""
        k = self.n
        S, F = self.window.shape[1:]
        out, self._out = self._out, (None, None)
        self.time[k] = t
        if w1 is not out[0]:
            self.window[k] = w1.reshape(S, F)
        self.phase[k] = phase.reshape(S, F)
        for arr, value in ((self.delta, delta), (self.rtt, rtt_mean), (self.queue, queue)):
            if arr is not None:
                arr[k] = np.reshape(value, arr.shape[1:])  # type: ignore[arg-type]
        if self.thr is not None and thr is not out[1]:
            self.thr[k] = thr.reshape(S, F)  # type: ignore[union-attr]
        self.n = k + 1

    def series(self) -> dict[str, Any]:
        """The recorded rows as :class:`RoundTrace` fields."""
        arrays = (self.time, self.window, self.phase, self.delta, self.rtt, self.queue, self.thr)
        names = ("time_s", "window_pkts", "phase", *RECORDABLE)
        return {k: None if a is None else a[: self.n] for k, a in zip(names, arrays, strict=True)}


@dataclass(frozen=True)
class AsyncRoundTrace(RoundTrace):
    """A :class:`RoundTrace` of flows with their own round clocks: rows at the union of the
    flows' round ends, a flow's row repeating its round in progress
    (docs/round-model-unequal-rtt.md, "What it records").

    Attributes
    ----------
    round_end
        ``(R, 1, F)``: whether row ``k`` ends a (recorded) round of flow ``f``.
    base_rtt_s
        Each flow's base RTT, s, ``(F,)``.
    flow_rtt_s
        ``(R, 1, F)``: the mean RTT each flow's law read in its round in progress, s
        (``None`` when ``rtt_s`` is not recorded).
    """

    round_end: NDArray[np.bool_] | None = None
    base_rtt_s: FloatArray | None = None
    flow_rtt_s: FloatArray | None = None

    def flow_rows(self, flow: int) -> NDArray[np.bool_]:
        """The rows that end a (recorded) round of flow ``flow``, ``(R,)``."""
        assert self.round_end is not None
        return self.round_end[:, 0, flow]


class AsyncRecorder:
    """Each round-clock class's recorded rounds, merged onto one time axis by :meth:`series`."""

    def __init__(self, ix: list[NDArray[np.intp]], F: int, fields: set[str]) -> None:
        self.ix, self.F, self.fields = ix, F, fields
        self.rows: list[list[tuple[Any, ...]]] = [[] for _ in ix]

    def add_row(
        self, c: int, t: FloatArray, w1: FloatArray, phase: Any, delta: FloatArray | None,
        rtt_mean: FloatArray, queue: FloatArray | None, thr: FloatArray | None,
    ) -> None:  # fmt: skip
        """Record a round of class ``c`` ending at ``t`` (``phase`` copied)."""
        q = None if queue is None else float(queue[0])
        self.rows[c].append((float(t[0]), w1, phase.copy(), delta, float(rtt_mean[0]), q, thr))

    def series(self, rtt_flow: int = 0) -> dict[str, Any]:
        """The :class:`AsyncRoundTrace` series: a flow's values held over its round, the queue
        the most of the rounds ending at a row, ``rtt_s`` flow ``rtt_flow``'s."""
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
            for arr, i in ((window, 1), (phase, 2), (delta, 3), (thr, 6)):
                if arr is not None:  # (each flow's values, held over its round)
                    arr[:, 0, ix] = np.stack([r[i] for r in rows])[pos]
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
