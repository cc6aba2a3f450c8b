"""What an engine knows about each flow, for :func:`tcpfluid.metrics.summarise`: one
flow's :class:`FlowRecord`, or many flows' as the columns of :class:`FlowRecords`, and the
subsets of those columns the summary is computed on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FlowRecord:
    """What an engine knows about one flow, for :func:`summarise`.

    Attributes
    ----------
    name, start_s, stop_s
        The flow and its active interval, s.
    t_s
        Times of the samples the flow's summary is judged on (one per round boundary in
        the round model and the packet simulator, the output grid in the ODE), s.
    window_pkts
        The window the law saw at each sample (the slow-start exit is read from it).
    in_slow_start
        Whether the law was in slow start at each sample (``None``: no slow start).
    settle_window_pkts
        The window in effect after each sample (settling and convergence are judged on it).
    delivered_pkts
        Packets delivered in order by the flow during the measured time.
    loss_events
        Loss events: congestion signals handed to the law, each a window cut (a fluid
        gives the expected number, a real number: see :mod:`tcpfluid.results`).
    exit_delay_samples
        Where the engine's exit moment lies after the first sample out of slow start, in
        samples (the engine's fact; see :func:`summarise` for the convention).
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


@dataclass(frozen=True)
class FlowRecords:
    """The fields of :class:`FlowRecord` for many flows at once, as columns.

    Per flow ``(F,)``, per sample and flow ``(R, F)`` (``t_s`` ``(R,)`` when shared by
    every flow); ``sizes``: how many of the R samples are each flow's own (the rest pad it
    past the run's end, where no segment reaches; ``None``: all R)."""

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
