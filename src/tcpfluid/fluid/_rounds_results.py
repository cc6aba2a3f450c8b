"""Results of the round model: the per-round record (:class:`RoundTrace`) and its summary
(:class:`RoundSummary`, definitions in :mod:`tcpfluid.metrics`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import metrics
from .._engine_summary import EngineSummary
from .._validation import check_int, check_memory
from ..algorithms.base import SLOW_START, ControlLaw
from ..algorithms.mixed import MixedLaw
from ._rounds_inputs import PathBatch

FloatArray = NDArray[np.float64]

#: optional per-round fields of a :class:`RoundTrace` (time, window and phase are always kept)
RECORDABLE = ("delta_pkts", "rtt_s", "queue_pkts", "throughput_pps")

#: the memory of a run beside its record, bytes: per flow (the engine's state, the
#: scenario's columns, the summary's columns) and per flow and round (the summary's
#: work on the whole run); measured with ``benchmarks/million.py`` (peak resident memory
#: of 100,000 flows for 9 and 90 rounds: 0.30 and 0.81 GB, 0.16 GB of it the interpreter)
FLOW_BYTES = 800
SUMMARY_BYTES = 56


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class RoundSummary(EngineSummary):
    """Summary metrics of a :class:`RoundTrace`: the fields of
    :class:`~tcpfluid._engine_summary.EngineSummary` (definitions in
    :mod:`tcpfluid.metrics`) and the slow-start exit round.

    Arrays have shape ``(S,)`` (per scenario: ``utilization``, ``jain_index``) or
    ``(S, F)`` (per flow); ``convergence_times_s`` and ``converged`` are ``(S, F, K)``.
    Per-flow window metrics describe each flow; ``NaN`` in a time or window field means
    "did not happen" (no slow-start exit, did not settle within the band); the matching
    boolean field says so explicitly. ``throughput_pps`` is each flow's mean delivery rate
    over its active time; ``losses`` counts loss events per flow.

    Attributes
    ----------
    ss_exit_round
        The round in which the law decided to leave slow start (round 1 = ``[0, d]``;
        :func:`tcpfluid.metrics.slow_start_exit`).
    """

    ss_exit_round: NDArray[np.float64]

    def scenario(self, s: int = 0, flow: int = 0) -> dict[str, Any]:
        """The public summary keys for scenario ``s`` (window metrics of flow ``flow``).

        Keys: ``ss_exit_window``, ``ss_exit_time_s``, ``ss_exit_round``,
        ``settled_window`` (``None`` if the window did not settle before the first
        bandwidth change), ``time_to_equilibrium_s``, ``convergence_times_s`` (one per
        bandwidth change, in order; ``None`` where the window did not settle),
        ``change_times_s``, ``utilization``, ``throughput_pps`` (list, per flow),
        ``jain_index``, ``losses`` (per flow). ``None`` stands for "did not happen".
        """
        return self._keys((s, flow), (s,), ss_exit_round=_int_or_none(self.ss_exit_round[s, flow]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the :meth:`scenario` dict of scenario 0 when there is one scenario,
        else ``{"scenarios": [...]}`` with one per scenario."""
        n = self.utilization.shape[0]
        if n == 1:
            return self.scenario(0)
        return {"scenarios": [self.scenario(s) for s in range(n)]}


def _int_or_none(x: Any) -> int | None:
    v = float(x)
    return None if not math.isfinite(v) else int(v)


@dataclass(frozen=True)
class RoundTrace:
    """Per-round result of :func:`simulate_rounds`.

    Row ``k`` describes round ``k``: ``time_s[k]`` is the time the round **ends** (its
    first ACK returns and the law decides), ``window_pkts[k]`` the window at that moment
    (the packets sent in the round), ``phase[k]`` the law's phase **during** the round,
    ``delta_pkts[k]`` the backlog Δ the law computes from the round (eq 1 of the Quick Vegas paper,
    with the round's mean RTT), ``rtt_s[k]`` the round's mean RTT as the law sees it,
    ``queue_pkts[k]`` the bottleneck queue at the end of the round in packets of the link
    (flows and cross traffic), ``throughput_pps[k]`` each flow's delivery rate in the
    round. With ``record_every = m`` only every m-th round is kept.

    Shapes: ``(R, S)`` per scenario, ``(R, S, F)`` per flow. Fields not recorded
    (``record=``) are ``None``.

    Attributes
    ----------
    paths
        The scenarios' paths.
    algorithm, law_params
        The law's registry name and parameters.
    rtt_model
        ``"fluid"``, ``"last"`` or ``"average"``.
    change_times_s
        Times at which the cross traffic (available bandwidth) changes.
    duration_s
        The run's duration (``None`` when run for a number of rounds).
    elapsed_s
        Per scenario, the time over which totals are counted.
    delivered_pkts, carried_pkts
        Totals: packets delivered per flow; packets carried by the bottleneck (flows and
        cross traffic) per scenario.
    losses
        Loss events per flow.
    flow_start_s, flow_stop_s
        Each flow's active interval; the summary judges every flow over its own.
    settle_band_pkts
        Each flow's settle band, shape ``(S, F)``: the limit-cycle amplitude of the flow's
        own law (:func:`flow_settle_bands`), the band the summary settles it with.
    exit_lag_rows
        Rows between a round's decision and the round whose RTTs it read: the feedback lag
        (``feedback_rounds``) when every round is recorded, else 0. The slow-start exit
        window is the window of that earlier row, the window whose measurement made the
        law leave (Quick Vegas grows ×1.5 in the decision round itself).
    law_base_rtt_s
        The BaseRTT each flow's law held at the end of the run, s, shape ``(S, F)``: the
        least RTT it measured since its start (``inf`` for a flow that never sent).
    all_rounds_recorded
        Whether every round has a row (``record_every = 1``). Then the summary stamps a
        round's window at the round's **start** (the previous row's time), where the
        window takes effect, as the packet simulator's summary does: settling and
        convergence times count from there (:func:`next_windows`). Otherwise (the start
        of a recorded round is not kept) at the row's time, the round's end.
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
    _summary: list[RoundSummary] = field(default_factory=list, repr=False, compare=False)

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

    @property
    def summary(self) -> RoundSummary:
        """Summary metrics (computed once, on first access)."""
        if not self._summary:
            self._summary.append(_summarise(self))
        return self._summary[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain lists: per-round series of scenario 0 when S = 1, else all as nested lists;
        plus ``summary``."""
        out: dict[str, Any] = {
            "algorithm": self.algorithm,
            "law_params": self.law_params,
            "rtt_model": self.rtt_model,
            "paths": self.paths.to_dict(),
            "change_times_s": list(self.change_times_s),
            "duration_s": self.duration_s,
        }
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
        """Plot scenario ``scenario``'s windows (and its queue, dashed) against time.

        Returns the artists; the library never calls ``plt.show()``.
        """
        check_int("scenario", scenario, minimum=0)
        if scenario >= self.n_scenarios:
            raise ValueError(
                f"scenario must be < {self.n_scenarios} (the number of scenarios), got {scenario}"
            )
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        t = self.time_s[:, scenario]
        artists: list[Any] = []
        for f in range(self.n_flows):
            label = f"flow {f} ({self.algorithm}) window"
            artists += ax.plot(t, self.window_pkts[:, scenario, f], label=label)
        if self.queue_pkts is not None:
            artists += ax.plot(t, self.queue_pkts[:, scenario], "k--", label="queue (link)")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.legend(loc="best")
        return artists

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
        for name in ("delta_pkts", "throughput_pps"):
            arr = getattr(self, name)
            if arr is not None:
                cols[name] = arr.ravel()
        for name in ("rtt_s", "queue_pkts"):
            arr = getattr(self, name)
            if arr is not None:
                cols[name] = np.repeat(arr.ravel(), f)
        return pd.DataFrame(cols)


# ------------------------------------------------------------------------------ summary
def measured_windows(window_pkts: Any, lag_rows: int) -> Any:
    """The window whose RTTs the law read at each row: ``window_pkts`` shifted by
    ``lag_rows`` rows along axis 0 (the first rows keep the first window)."""
    if lag_rows <= 0 or window_pkts.shape[0] == 0:
        return window_pkts
    idx = np.maximum(np.arange(window_pkts.shape[0]) - lag_rows, 0)
    return window_pkts[idx]


def next_windows(window_pkts: Any) -> Any:
    """The window in effect after each row's time (a round's end) when every round is
    recorded: the next row's window, the window of the round that starts there (the last
    row's is repeated), along axis 0. Settling on ``(time_s, next_windows(window_pkts))``
    stamps the window of round k at the start of round k, where it takes effect."""
    w = np.asarray(window_pkts)
    if w.shape[0] == 0:
        return w
    return np.concatenate([w[1:], w[-1:]], axis=0)


def own_rounds(
    time_s: FloatArray, window_pkts: FloatArray, phase: NDArray[np.int8], ends: Any
) -> tuple[FloatArray, FloatArray, NDArray[np.int8], NDArray[np.int64]]:
    """Each flow's own rounds (rows where ``ends``, ``(R, F)``, is true) moved to the top
    of its column, in order: times, windows and phases ``(R', F)`` (R' the most rounds of a
    flow) and each flow's number of rounds. The rows below a flow's own are not its."""
    mask = np.asarray(ends, dtype=bool)
    sizes = mask.sum(axis=0).astype(np.int64)
    rows = int(sizes.max(initial=0))
    order = np.argsort(~mask, axis=0, kind="stable")[:rows]
    return (
        time_s[order],
        np.take_along_axis(window_pkts, order, axis=0),
        np.take_along_axis(phase, order, axis=0),
        sizes,
    )


def within(a: Any, sizes: NDArray[np.int64], shift: Any) -> Any:
    """Per flow (column) ``a[clip(k + shift, 0, size - 1)]`` for every row k: a shift of
    rows inside each flow's own ``sizes[f]`` rows (``next_windows``: +1,
    ``measured_windows``: ``-lag``; both repeat the end rows)."""
    k = np.arange(a.shape[0])[:, None] + shift
    k = np.clip(k, 0, np.maximum(sizes - 1, 0)[None, :])
    return np.take_along_axis(a, k, axis=0)


def flow_settle_bands(law: ControlLaw, n_scenarios: int, n_flows: int) -> FloatArray:
    """Each flow's ``settle_band`` (:func:`tcpfluid.metrics.settling`), shape ``(S, F)``:
    its own law's limit-cycle amplitude (``cycle_amplitude_pkts`` of
    :class:`~tcpfluid.algorithms.base.ControlLaw`; in a
    :class:`~tcpfluid.algorithms.mixed.MixedLaw`, which steps the flows of every scenario
    as one array, scenario by scenario, the law of each flow)."""
    if isinstance(law, MixedLaw):
        amp = [float(law.laws[i].cycle_amplitude_pkts) for i in law.which.tolist()]
        return np.array(amp).reshape(n_scenarios, n_flows)
    return np.full((n_scenarios, n_flows), float(law.cycle_amplitude_pkts))


def _summarise(tr: RoundTrace) -> RoundSummary:
    S, F = tr.n_scenarios, tr.n_flows
    t = tr.time_s[:, :, None]  # (R, S, 1)
    t_end = tr.duration_s if tr.duration_s is not None else math.inf
    last = tr.time_s[-1] if tr.n_rounds else np.zeros(S)
    end = np.minimum(last, t_end)[:, None]  # (S, 1)
    ss = metrics.slow_start_exit(
        t, measured_windows(tr.window_pkts, tr.exit_lag_rows), tr.phase == SLOW_START
    )
    # rows after duration_s (a scenario that kept stepping for the rest of its batch) do
    # not count: an exit decided after the end did not happen within the run
    late = ~(ss.time_s <= end)
    if np.any(late & ss.found):
        ss = metrics.Event(
            index=np.where(late, np.nan, ss.index),
            time_s=np.where(late, np.nan, ss.time_s),
            value=np.where(late, np.nan, ss.value),
            found=ss.found & ~late,
        )
    changes = tr.change_times_s
    # each flow is judged over its own active interval (S, F); a round's window is
    # stamped where it takes effect, at the round's start (as in the packet simulator)
    seg = metrics.settling_by_segment(
        t,
        next_windows(tr.window_pkts) if tr.all_rounds_recorded else tr.window_pkts,
        start_s=np.broadcast_to(tr.flow_start_s[None, :], (S, F)),
        end_s=np.minimum(end, tr.flow_stop_s[None, :]),
        change_times_s=changes,
        settle_band=tr.settle_band_pkts,  # each flow's law's own limit cycle
    )
    first = seg.equilibrium
    conv = np.full((S, F, len(changes)), np.nan)
    ok = np.zeros((S, F, len(changes)), dtype=bool)
    for j, r in enumerate(seg.convergence):
        conv[:, :, j] = r.time_s
        ok[:, :, j] = r.settled
    with np.errstate(invalid="ignore", divide="ignore"):
        thr = np.where(tr.elapsed_s[:, None] > 0, tr.delivered_pkts / tr.elapsed_s[:, None], np.nan)
        util = np.where(
            tr.elapsed_s > 0, tr.carried_pkts / (tr.paths.mu_pps * tr.elapsed_s), np.nan
        )
    jain = metrics.jain_index(thr, axis=-1)
    return RoundSummary(
        ss_exit_round=ss.index,
        ss_exit_time_s=ss.time_s,
        ss_exit_window_pkts=ss.value,
        ss_exited=ss.found,
        settled_window_pkts=first.value,
        time_to_equilibrium_s=first.time_s,
        reached_equilibrium=first.settled,
        change_times_s=changes,
        convergence_times_s=conv,
        converged=ok,
        utilization=np.asarray(util, dtype=np.float64),
        throughput_pps=np.asarray(thr, dtype=np.float64),
        jain_index=np.asarray(jain, dtype=np.float64),
        losses=tr.losses.copy(),
    )


class _Recorder:
    """The per-round series of a run (every m-th round): time, window and phase always,
    the optional fields of :data:`RECORDABLE` when asked for (the others stay ``None``)."""

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
        """The next row's storage of the windows and the throughputs (``None`` when not
        kept), flat (S × F,), for the engine to compute them in place (no copy when
        :meth:`add_row` is given them back)."""
        k = self.n
        window, thr = self._flat
        self._out = (window[k], None if thr is None else thr[k])
        return self._out

    def add_row(
        self, c: int, t: FloatArray, w1: FloatArray, phase: Any, delta: FloatArray | None,
        rtt_mean: FloatArray, queue: FloatArray | None, thr: FloatArray | None,
    ) -> None:  # fmt: skip
        """Record a round of every scenario (the round engine's one class ``c = 0``;
        :meth:`~._rounds_engine.RoundEngine._record`): per-scenario time, mean RTT and
        queue, per-flow window, phase, Δ and throughput (fields not kept are ``None``)."""
        k = self.n
        S, F = self.window.shape[1:]
        out, self._out = self._out, (None, None)
        self.time[k] = t
        if w1 is not out[0]:
            self.window[k] = w1.reshape(S, F)
        self.phase[k] = phase.reshape(S, F)
        if self.delta is not None:
            self.delta[k] = delta.reshape(S, F)  # type: ignore[union-attr]
        if self.rtt is not None:
            self.rtt[k] = rtt_mean
        if self.queue is not None:
            self.queue[k] = queue
        if self.thr is not None and thr is not out[1]:
            self.thr[k] = thr.reshape(S, F)  # type: ignore[union-attr]
        self.n = k + 1

    def series(self) -> dict[str, Any]:
        """The recorded rows as :class:`RoundTrace` fields."""
        n = self.n

        def cut(a: Any) -> Any:
            return None if a is None else a[:n]

        return {
            "time_s": self.time[:n],
            "window_pkts": self.window[:n],
            "phase": self.phase[:n],
            "delta_pkts": cut(self.delta),
            "rtt_s": cut(self.rtt),
            "queue_pkts": cut(self.queue),
            "throughput_pps": cut(self.thr),
        }
