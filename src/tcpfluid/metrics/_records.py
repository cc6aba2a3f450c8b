"""The inputs of :func:`tcpfluid.metrics.summarise` (one flow's :class:`FlowRecord`, many
flows' :class:`FlowRecords`) and its judgements of a run: convergence times, the run's
values, and the refusal before the run of a summary too large to hold."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import _is_number, memory_budget_bytes
from . import law_settle_band, settling
from ._exits import slow_start_left

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FlowRecord:
    """What an engine knows about one flow, for :func:`summarise`.

    Attributes
    ----------
    name, start_s, stop_s
        The flow and its active interval, s.
    t_s
        Times of the samples the summary is judged on (the round boundaries; the ODE's
        output grid), s.
    window_pkts, in_slow_start
        The window the law saw at each sample (the slow-start exit is read from it) and
        whether it was in slow start (``None``: no slow start).
    settle_window_pkts
        The window in effect after each sample (settling and convergence are judged on it).
    delivered_pkts, loss_events
        Packets delivered in order in the measured time; loss events (window cuts; a fluid
        gives the expected number, a real number).
    exit_delay_samples
        Where the engine's exit moment lies after the first sample out of slow start.
    first_loss_s, first_loss_window_pkts
        When the sender first reacted to a loss event (s) and its window just before that
        reaction cut it (packets); NaN: no loss event. A loss in slow start ends it
        (:func:`summarise`).
    last_delivery_s
        When its last packet was delivered, s (NaN: none, or not known): its throughput
        counts its deliveries up to the later of its stop and this (:func:`flow_rates`).
    """

    name: str
    start_s: float
    stop_s: float
    t_s: FloatArray
    window_pkts: FloatArray
    in_slow_start: NDArray[np.bool_] | None
    settle_window_pkts: FloatArray
    delivered_pkts: float
    loss_events: float
    exit_delay_samples: int = 0
    first_loss_s: float = math.nan
    first_loss_window_pkts: float = math.nan
    last_delivery_s: float = math.nan


@dataclass(frozen=True)
class FlowRecords:
    """The fields of :class:`FlowRecord` for many flows at once, as columns.

    Per flow ``(F,)``, per sample and flow ``(R, F)`` (``t_s`` ``(R,)`` when shared by
    every flow); ``sizes``: how many of the R samples are each flow's own (the rest pad it
    past the run's end, where no segment reaches; ``None``: all R); ``first_loss_s``,
    ``first_loss_window_pkts``: per flow (``None``: no flow has a loss event);
    ``last_delivery_s``: per flow (``None``: none known)."""

    names: Sequence[str]
    start_s: FloatArray
    stop_s: FloatArray
    t_s: FloatArray
    window_pkts: FloatArray
    in_slow_start: NDArray[np.bool_] | None
    settle_window_pkts: FloatArray
    delivered_pkts: FloatArray
    loss_events: NDArray[Any]
    sizes: NDArray[np.int64] | None = None
    exit_delay_samples: int = 0
    first_loss_s: FloatArray | None = None
    first_loss_window_pkts: FloatArray | None = None
    last_delivery_s: FloatArray | None = None

    def __len__(self) -> int:
        return len(self.names)

    @classmethod
    def of(cls, frs: Sequence[FlowRecord], end_s: float) -> FlowRecords:
        """Columns of :class:`FlowRecord` objects of one kind (the same
        ``exit_delay_samples``, all with or all without slow start), padded to the longest
        series past the run's end."""
        sizes = np.array([np.asarray(fr.t_s).size for fr in frs], dtype=np.int64)
        R = int(sizes.max(initial=0))
        if R and all(fr.t_s is frs[0].t_s for fr in frs):
            t = np.asarray(frs[0].t_s, dtype=np.float64)
        else:  # samples past the end of a shorter series: after the run, outside every segment
            far = max(end_s, *(float(np.max(fr.t_s, initial=0.0)) for fr in frs)) + 1.0
            t = _padded([np.asarray(fr.t_s, dtype=np.float64) for fr in frs], R, lambda r: far)

        def last(r: Any) -> Any:
            return r[-1] if r.size else 0

        ints = all(isinstance(fr.loss_events, int) for fr in frs)
        return cls(
            names=[fr.name for fr in frs],
            start_s=np.array([fr.start_s for fr in frs], dtype=np.float64),
            stop_s=np.array([fr.stop_s for fr in frs], dtype=np.float64),
            t_s=t,
            window_pkts=_padded([fr.window_pkts for fr in frs], R, last),
            in_slow_start=(
                None
                if frs[0].in_slow_start is None
                else _padded([np.asarray(fr.in_slow_start) for fr in frs], R, last)
            ),
            settle_window_pkts=_padded([fr.settle_window_pkts for fr in frs], R, last),
            delivered_pkts=np.array([fr.delivered_pkts for fr in frs], dtype=np.float64),
            loss_events=np.array(
                [fr.loss_events for fr in frs], dtype=np.int64 if ints else np.float64
            ),
            sizes=sizes,
            exit_delay_samples=frs[0].exit_delay_samples,
            first_loss_s=np.array([fr.first_loss_s for fr in frs], dtype=np.float64),
            first_loss_window_pkts=np.array(
                [fr.first_loss_window_pkts for fr in frs], dtype=np.float64
            ),
            last_delivery_s=np.array([fr.last_delivery_s for fr in frs], dtype=np.float64),
        )


def _padded(rows: list[Any], n: int, pad: Any) -> Any:
    """Columns of ``rows`` (1-D arrays) padded to ``n`` samples, shape ``(n, len(rows))``."""
    arrs = [np.asarray(r) for r in rows]
    dtype = np.result_type(*arrs) if arrs else np.float64
    if not arrs:
        return np.empty((n, 0), dtype=dtype)
    full = [
        a if a.size == n else np.concatenate([a.astype(dtype), np.full(n - a.size, pad(a), dtype)])
        for a in arrs
    ]
    return np.stack(full, axis=1, dtype=dtype, casting="unsafe")


def _flow_columns(
    frs: Sequence[FlowRecord] | FlowRecords, end_s: float
) -> list[tuple[NDArray[np.intp] | slice, FlowRecords]]:
    """``frs`` as columns: one :class:`FlowRecords` per kind of record, with the flows
    (positions) it holds."""
    if isinstance(frs, FlowRecords):
        return [(slice(None), frs)]
    kinds: dict[tuple[int, bool], list[int]] = {}
    for i, fr in enumerate(frs):
        kinds.setdefault((fr.exit_delay_samples, fr.in_slow_start is None), []).append(i)
    return [
        (np.array(idx, dtype=np.intp), FlowRecords.of([frs[i] for i in idx], end_s))
        for idx in kinds.values()
    ]


def _subset(fr: FlowRecords, cut: Any) -> FlowRecords:
    """``fr`` with ``cut`` applied to each column (along its last axis, the flows; names
    are not read)."""

    cols = {f.name: getattr(fr, f.name) for f in fields(FlowRecords)}
    for k, v in cols.items():
        if k not in ("names", "exit_delay_samples") and v is not None:
            cols[k] = v if k == "t_s" and v.ndim == 1 else cut(v)
    return FlowRecords(**{**cols, "names": ()})


def _block(fr: FlowRecords, a: int, b: int) -> FlowRecords:
    """Flows ``a`` to ``b - 1`` of ``fr`` (views of its columns)."""
    return _subset(fr, lambda x: x[..., a:b])


def _take(fr: FlowRecords, idx: NDArray[np.intp], rows: int | None = None) -> FlowRecords:
    """The flows ``idx`` of ``fr`` (copies of their columns, laid out in memory as they
    are: NumPy's sums along the samples follow the layout); with ``rows``, their first
    ``rows`` samples, each flow's adjacent."""

    def pick(x: Any) -> Any:
        if x.ndim > 1 and (rows is not None or abs(x.strides[0]) < abs(x.strides[-1])):
            # each flow's samples gathered as one row of the transpose: one copy
            return np.ascontiguousarray(x.T[idx, :rows]).T
        return np.take(x, idx, axis=-1)

    return _subset(fr, pick)


def _same_as_previous(fr: FlowRecords, bands: FloatArray) -> NDArray[np.bool_]:
    """Whether each flow's record (every input of its summary values) is bit for bit the
    previous flow's (``False`` for the first)."""
    n = len(fr.start_s)
    same = np.ones(max(n - 1, 0), dtype=bool)
    cols: list[Any] = [fr.start_s, fr.stop_s, fr.delivered_pkts, fr.loss_events, bands]
    cols += [fr.window_pkts, fr.settle_window_pkts, fr.in_slow_start, fr.sizes]
    cols += [fr.first_loss_s, fr.first_loss_window_pkts, fr.last_delivery_s]
    if fr.t_s.ndim > 1:
        cols.append(fr.t_s)
    for c in cols:
        if c is None or n < 2:
            continue
        a = np.asarray(c)
        if a.dtype.kind == "f":  # bits: -0.0 is not 0.0, a NaN is its own
            a = a.view(np.int64 if a.dtype.itemsize == 8 else np.int32)
        eq = a[..., 1:] == a[..., :-1]
        same &= eq if eq.ndim == 1 else eq.all(axis=0)
        if not same.any():
            break
    return np.concatenate([np.zeros(min(n, 1), dtype=bool), same])


def _per_flow(fr: FlowRecords, key: str) -> Any:
    """``fr``'s per-flow column ``key``, NaN for every flow where it is not kept."""
    v = getattr(fr, key)
    return np.full(len(fr.start_s), np.nan) if v is None else v


def _finite(x: Any) -> FloatArray:
    """``x`` as floats, NaN where it is not finite (``None`` in the summary)."""
    v = np.array(x, dtype=np.float64)
    v[~np.isfinite(v)] = np.nan
    return v


def _convergence(
    fr: FlowRecords,
    t: FloatArray,
    changes: tuple[float, ...],
    stop: FloatArray,
    band: FloatArray,
    chunk: int,
    in_ss: NDArray[np.bool_] | None = None,
    loss_s: FloatArray | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp], FloatArray]:
    """The convergence time of each flow after each change whose segment holds samples of
    it, as ``(flow, change, time)`` columns (``t``: ``fr.t_s`` as ``(R, 1)`` or ``(R, F)``;
    ``in_ss``: whether each flow was in slow start at each sample, :func:`slow_start_left`);
    each pair judged as a column of its own in the flows' block layout, so that NumPy's
    sums take the same order as over the flows."""
    R, n = fr.settle_window_pkts.shape
    sizes = np.full(n, R, dtype=np.int64) if fr.sizes is None else fr.sizes
    delay = fr.exit_delay_samples
    c = np.asarray(changes, dtype=np.float64)
    tb = np.broadcast_to(t, (R, n))
    k_of = np.searchsorted(c, tb, side="left") - 1  # the last change before each sample
    inside = (k_of >= 0) & (tb > fr.start_s) & (tb <= stop)
    key = np.unique(np.flatnonzero(inside.T) // R * len(c) + k_of.T[inside.T])
    flow, k = key // len(c), key % len(c)
    t0 = np.maximum(fr.start_s[flow], c[k])
    t1 = np.minimum(stop[flow], np.append(c, np.inf)[k + 1])
    times = np.empty(key.size)
    if n == 1:  # the flow's series as one column, as it is judged alone
        for p in range(key.size):
            a, b = t0[p : p + 1], t1[p : p + 1]
            lo = None if loss_s is None else loss_s[flow[p : p + 1]]
            left = slow_start_left(t, in_ss, a, b, delay, sizes, lo)
            times[p] = _conv_times(t, fr.settle_window_pkts, a, b, band[flow[p : p + 1]],
                                   left)[0]  # fmt: skip
        return flow, k, times
    fortran = abs(fr.settle_window_pkts.strides[0]) < abs(fr.settle_window_pkts.strides[-1])
    for a in range(0, key.size, chunk):
        b = min(a + chunk, key.size)
        # at least two columns: a sum over one column is added in another order
        cols = flow[a:b] if b - a > 1 else np.repeat(flow[a:b], 2)
        sel = slice(a, b) if b - a > 1 else np.array([a, a])

        def pick(x: Any, cols: NDArray[np.intp] = cols) -> Any:
            y = np.take(x, cols, axis=1)
            return np.asfortranarray(y) if fortran else y

        tt = t if t.shape[1] == 1 else pick(t)
        ss = None if in_ss is None else pick(in_ss)
        lo = None if loss_s is None else loss_s[cols]
        left = slow_start_left(tt, ss, t0[sel], t1[sel], delay, sizes[cols], lo)
        times[a:b] = _conv_times(tt, pick(fr.settle_window_pkts), t0[sel], t1[sel],
                                 band[cols], left)[: b - a]  # fmt: skip
    return flow, k, times


def _conv_times(
    t: FloatArray, w: FloatArray, t0: FloatArray, t1: FloatArray, band: FloatArray,
    left: FloatArray,
) -> FloatArray:  # fmt: skip
    """The time to settle of each column of ``w`` in its segment ``t0 < t <= t1``, the
    flow out of slow start from ``left`` (NaN where it did not settle)."""
    c = settling(t, w, t_start=t0, t_end=t1, settle_band=band, left_slow_start_s=left)
    return np.where(np.asarray(c.settled, dtype=bool), _finite(c.time_s), np.nan)


def _all_converged(
    changes: tuple[float, ...],
    start: FloatArray,
    stop: FloatArray,
    conv: FloatArray,
    end: FloatArray,
) -> FloatArray:
    """After each change, when every flow active over its segment had converged, from the
    change (NaN if one did not, or none was active), per run: ``start``, ``stop`` ``(S,
    F)``, ``conv`` ``(S, F, K)`` (runs x flows x changes), ``end`` ``(S, 1)`` the runs'
    ends (a flow starting at or after its run's end is active in none of its segments),
    result ``(S, K)``; flows in blocks, each flow over the changes of its active interval."""
    c = np.asarray(changes, dtype=np.float64)
    K = c.size
    S, F = start.shape
    # flow j is active over segment k (start_j < c_{k+1}, stop_j > c_k) for lo_j <= k < hi_j
    lo = np.maximum(np.searchsorted(c, start, side="right") - 1, 0)
    hi = np.where(start >= end, lo, np.searchsorted(c, stop, side="left"))
    best = np.full((S, K), -np.inf)
    active = np.zeros((S, K), dtype=bool)
    missed = np.zeros((S, K), dtype=bool)
    k = np.arange(K)
    rows = max(1, (1 << 20) // max(S * K, 1))
    for a in range(0, F, rows):
        b = min(a + rows, F)
        act = (k >= lo[:, a:b, None]) & (k < hi[:, a:b, None])
        got = conv[:, a:b]
        nan = np.isnan(got)
        active |= act.any(axis=1)
        missed |= (act & nan).any(axis=1)
        with np.errstate(invalid="ignore"):
            val = np.maximum(start[:, a:b, None], c) - c + got
        best = np.maximum(best, np.where(act & ~nan, val, -np.inf).max(axis=1, initial=-np.inf))
    return np.where(active & ~missed, best, np.nan)


def run_values(
    start: FloatArray,
    stop: FloatArray,
    delivered: FloatArray,
    last: FloatArray,
    t_eq: FloatArray,
    conv: FloatArray,
    changes: tuple[float, ...],
    measured_s: tuple[Any, Any],
    carried_pkts: Any,
    capacity_pps: Any,
) -> dict[str, FloatArray]:
    """The summary's values of each of S runs of F flows from their columns ``(S, F)``
    (``conv`` ``(S, F, K)``; NaN: did not happen; ``last``: the last deliveries' times,
    NaN where not known): throughputs (:func:`flow_rates`), when
    every flow active before the first change had settled, when every flow had converged
    after each change, Jain's index and the utilization; ``measured_s``'s end,
    ``carried_pkts`` and ``capacity_pps``: one value or one per run."""
    S = start.shape[0]
    m0, m1 = measured_s
    end = np.broadcast_to(np.asarray(m1, dtype=np.float64), (S,))[:, None]
    thr = flow_rates(delivered, start, stop, (m0, end), last)
    # the flows active before the first change (one starting after the run is in none)
    before = (start < (changes[0] if changes else np.inf)) & (start < end)
    with np.errstate(invalid="ignore"):
        latest = np.where(before, start + t_eq, -np.inf).max(axis=1, initial=-np.inf)
    settled = before.any(axis=1) & ~(before & np.isnan(t_eq)).any(axis=1)
    den = np.asarray(capacity_pps, dtype=np.float64) * (end[:, 0] - m0)
    with np.errstate(invalid="ignore", divide="ignore"):
        util = np.where(den > 0, np.asarray(carried_pkts, dtype=np.float64) / den, np.nan)
    return {
        "throughput_pps": thr,
        "all_settled_time_s": np.where(settled, latest, np.nan),
        "all_converged_times_s": _all_converged(changes, start, stop, conv, end),
        "jain_index": jain_rows(thr),
        "utilization": _finite(np.broadcast_to(util, (S,))),
    }


#: bytes per (flow, change) cell of a summary at its peak: its convergence time (8), and
#: the plain value of the cell the JSON (``convergence_times_per_flow_s``, flows x
#: changes) is written from (a pointer and, for a number, its object: about 50 bytes;
#: ``tcpfluid simulate --json`` of 10,000 flows joining one by one peaks at 6.1 GB)
_CELL_BYTES = 64


def spread_groups(times: Any, anchors: Any, start_spread_s: float) -> FloatArray:
    """Each of the flows' start and stop ``times`` (increasing, s) as the time of the
    change it belongs to (:func:`tcpfluid.metrics.run_changes`).

    A time less than ``start_spread_s`` after the latest of 0 (the run's start), the
    ``anchors`` (the CBR sources' starts and stops) and the first time of the group before
    it belongs to that; any other time opens a group of its own. The offsets of a start
    spread lie in ``[0, start_spread_s)``, so the starts (stops) a scenario declares
    together stay one change. ``start_spread_s`` 0: every time is its own.

    >>> spread_groups([0.2, 0.4, 5.0, 5.3, 5.9], [], 0.5).tolist()
    [0.0, 0.0, 5.0, 5.0, 5.9]
    >>> spread_groups([4.1, 4.3], [4.0], 0.5).tolist()
    [4.0, 4.0]
    """
    src = np.asarray(times, dtype=np.float64)
    out = src.copy()
    if start_spread_s <= 0.0 or out.size == 0:
        return out
    opens = np.unique(np.append(np.asarray(anchors, dtype=np.float64), 0.0))
    i = 0
    while i < src.size:  # one pass a group
        t = float(src[i])
        k = int(np.searchsorted(opens, t, side="right")) - 1
        first = float(opens[k]) if k >= 0 and t < opens[k] + start_spread_s else t
        until = first + start_spread_s
        if k + 1 < opens.size:  # an anchor opens the next group
            until = min(until, float(opens[k + 1]))
        j = max(int(np.searchsorted(src, until, side="left")), i + 1)
        out[i:j] = first
        i = j
    return out


def _count_changes(scenario: Any, start: FloatArray, stop: FloatArray, end_s: float) -> int:
    """How many changes :func:`run_changes` finds (the distinct CBR times and groups of
    flow start and stop times, :func:`spread_groups`, inside ``(0, end_s)``), counted
    without listing them."""
    cbr = np.asarray(
        [(c.start_s, c.stop_s) for c in getattr(scenario, "cbr", ())], dtype=np.float64
    ).reshape(-1)
    flows = spread_groups(
        np.sort(np.concatenate([start, stop])), cbr, getattr(scenario, "start_spread_s", 0.0)
    )
    times = np.concatenate([flows, cbr])
    return int(np.unique(times[(times > 0.0) & (times < end_s)]).size)


def check_summary_size(
    scenario: Any,
    start: FloatArray | None = None,
    stop: FloatArray | None = None,
    end_s: float | None = None,
) -> None:
    """Refuse, before any work, a run whose summary (a convergence time per flow and change)
    cannot be held: a ValueError naming the flows, the changes, the estimate and the
    budget. ``start``, ``stop``, ``end_s``: default the scenario's."""
    if start is None or stop is None:
        ft = scenario.flow_table
        start, stop = np.asarray(ft.start_s, np.float64), np.asarray(ft.stop_s, np.float64)
    end = float(scenario.duration_s if end_s is None else end_s)
    n = int(start.size)
    if n * (2 * n + len(getattr(scenario, "cbr", ()))) * _CELL_BYTES <= memory_budget_bytes():
        return  # small enough whatever the changes
    k = _count_changes(scenario, start, stop, end)
    need, budget = float(n) * k * _CELL_BYTES, memory_budget_bytes()
    if need > budget:
        raise ValueError(
            f"flows={n:,} make {k:,} bandwidth changes (every distinct flow start or stop "
            "inside the run is one, those of one start spread one together): the run's "
            "summary, one convergence time per flow and change, needs about "
            f"{need / 2**30:.3g} GiB, more than the {budget / 2**30:.3g} GiB budget (half of "
            "this machine's memory); give fewer flows, or fewer distinct start and stop "
            "times"
        )


def flow_rates(
    delivered: Any, start: Any, stop: Any, measured_s: tuple[Any, Any], last: Any = math.nan
) -> FloatArray:
    """Each flow's throughput, packets/s: ``delivered`` over the time from its start to the
    later of its stop and its last delivery ``last`` (NaN: not known, its stop), inside the
    measured time ``(from, to)``, s (NaN for a flow not active in it): the packets in
    flight at its stop are delivered after it, and counted over the time they take, so a
    flow's rate is never above what its path carried. The arguments broadcast (a batch of
    runs: ``(S, F)`` against ``(S, 1)`` measured times).

    >>> float(flow_rates(2.0, 0.0, 0.001, (0.0, 10.0), 0.08)[()])
    25.0
    """
    until = np.where(np.isnan(last), stop, np.fmax(stop, last))
    active = np.minimum(until, measured_s[1]) - np.maximum(start, measured_s[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(active > 0, _finite(delivered / active), np.nan)


def jain_rows(thr: Any) -> FloatArray:
    """Jain's index of the known (not NaN) throughputs of each run, shape ``(S,)`` for
    ``thr`` of shape ``(S, F)`` or ``(1,)`` for ``(F,)``: NaN for a run none of whose
    flows delivered anything."""
    from . import jain_index

    x = np.atleast_2d(np.asarray(thr, dtype=np.float64))
    known = ~np.isnan(x)
    some = (known & (x > 0)).any(axis=1)
    out = np.full(x.shape[0], np.nan)
    whole = some & known.all(axis=1)
    if whole.any():  # every flow known: one call over the runs
        out[whole] = jain_index(x[whole], axis=-1)
    for i in np.flatnonzero(some & ~whole).tolist():
        out[i] = float(jain_index(x[i][known[i]]))
    return out


def check_settle_band(
    settle_band: float | Mapping[str, float] | None,
) -> float | dict[str, float] | None:
    """``settle_band`` checked (:func:`summarise`): ``None``, one band ``>= 0`` (or ``inf``)
    or a mapping from algorithm names to such bands (TypeError: none of those; ValueError:
    a negative or NaN band, a key that is not an algorithm)."""
    if settle_band is None:
        return None

    def one(name: str, v: Any) -> float:
        if not _is_number(v):
            raise TypeError(f"{name} must be a number of packets >= 0 (or inf), got {v!r}")
        if not float(v) >= 0.0:
            raise ValueError(f"{name} must be >= 0 packets (or inf), got {v!r}")
        return float(v)

    if isinstance(settle_band, Mapping):
        from ..algorithms.registry import ALGORITHMS

        out = {}
        for law, v in settle_band.items():
            if law not in ALGORITHMS:
                raise ValueError(
                    f"settle_band has a key {law!r} that is not an algorithm; "
                    f"algorithms: {', '.join(ALGORITHMS)}"
                )
            out[str(law)] = one(f"settle_band[{law!r}]", v)
        return out
    return one("settle_band", settle_band)


def _bands(
    scenario: Any, names: Sequence[str], settle_band: float | dict[str, float] | None = None
) -> FloatArray:
    """Each flow's settling band: ``settle_band`` when it is one number, else its law's
    (``settle_band``'s entry for the law, or the law's own limit cycle, metrics.settling),
    the law of the scenario's flow of the same name (0 for a name it does not have)."""
    from ..scenarios._columns import FlowSeq

    if isinstance(settle_band, float):
        return np.full(len(names), settle_band)
    given = settle_band or {}

    def band(law: str | None) -> float:
        return given[law] if law in given else law_settle_band(law)

    flows = getattr(scenario, "flows", ())
    if isinstance(flows, FlowSeq) and (
        flows.table.names is names or list(flows.table.names) == list(names)
    ):
        ft = flows.table  # the scenario's flows in order: one look-up per law
        per_law = np.array([band(a) for a in ft.algorithms()], dtype=np.float64)
        return per_law[ft.law]
    laws = {f.name: f.algorithm for f in flows}
    once = functools.cache(band)  # one look-up per law, not per flow
    return np.array([once(laws.get(nm)) for nm in names], dtype=np.float64)
