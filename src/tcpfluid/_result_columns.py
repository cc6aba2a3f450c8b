"""The per-flow parts of :class:`tcpfluid.results.Summary` and
:class:`tcpfluid.results.Result` kept as columns: :class:`FlowSummaries` (every flow's
summary values) and :class:`RoundLogs` (every flow's round log). Each reads back as a
sequence of the one-flow objects (:class:`~tcpfluid.results.FlowSummary`,
:class:`~tcpfluid.results.RoundLog`), made when read."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np
from numpy.typing import NDArray

from ._json import Column, fields_dict
from ._validation import item_index

if TYPE_CHECKING:  # pragma: no cover
    from .results import FlowSummary, Summary

__all__ = ["FlowSummaries", "LazySeq", "RoundLog", "RoundLogs", "SummaryBatch"]

FloatArray = NDArray[np.float64]
T = TypeVar("T")


def _lazy(names: Sequence[str]) -> bool:
    """Whether ``names`` is a scenario's :class:`~tcpfluid.scenarios._columns.Names`."""
    from .scenarios._columns import Names

    return isinstance(names, Names)


def _none_or(kind: type, x: float) -> Any:
    return None if x != x else kind(x)


class LazySeq(Sequence[T]):
    """A sequence of objects kept as columns, each made when read (``_item``): a
    scenario's links and flows, a result's flow summaries and round logs."""

    __slots__ = ()
    _what = ""  # one item, in messages
    _plural = ""  # the items, in ``repr`` (default ``_what + "s"``)

    def _item(self, k: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[T, ...]: ...
    def __getitem__(self, i: int | slice) -> T | tuple[T, ...]:
        if isinstance(i, slice):
            return tuple(self._item(k) for k in range(len(self))[i])
        return self._item(item_index(i, len(self), self._what))

    def __iter__(self) -> Iterator[T]:
        return map(self._item, range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySeq | tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} {self._plural or self._what + 's'}>"


#: the summary values that may be ``None`` (NaN in the columns), and their type
_OPTIONAL = {
    "ss_exit_window_pkts": float, "ss_exit_time_s": float, "ss_exit_round": int,
    "settled_window_pkts": float, "time_to_equilibrium_s": float, "throughput_pps": float,
    "cycle_centre_pkts": float, "cycle_amplitude_pkts": float,
}  # fmt: skip


@dataclass(eq=False, repr=False, slots=True, kw_only=True)
class FlowSummaries(LazySeq["FlowSummary"]):
    """The :class:`FlowSummary` of every flow, kept as columns (arrays, NaN for ``None``);
    each :class:`FlowSummary` is made when it is read (:attr:`Summary.flows`)."""

    _what, _plural = "flow", "flow summaries"

    names: Sequence[str]
    start_s: FloatArray
    stop_s: FloatArray
    ss_exit_window_pkts: FloatArray
    ss_exit_time_s: FloatArray
    ss_exit_round: FloatArray
    settled_window_pkts: FloatArray
    time_to_equilibrium_s: FloatArray
    convergence_times_s: FloatArray
    throughput_pps: FloatArray
    losses: NDArray[Any]
    cycle_centre_pkts: FloatArray
    cycle_amplitude_pkts: FloatArray
    not_settled_reason: NDArray[Any]
    _cache: dict[int, FlowSummary] = field(default_factory=dict, init=False)

    @classmethod
    def of(cls, flows: Sequence[FlowSummary]) -> FlowSummaries:
        """``flows`` as columns (itself if it is already)."""
        if isinstance(flows, FlowSummaries):
            return flows
        fl = tuple(flows)

        def col(name: str) -> FloatArray:
            values = (getattr(f, name) for f in fl)
            return np.array([np.nan if x is None else x for x in values], dtype=np.float64)

        n_changes = max((len(f.convergence_times_s) for f in fl), default=0)
        ints = all(isinstance(f.losses, int) for f in fl)
        out = cls(
            names=[f.name for f in fl],
            convergence_times_s=np.array(
                [[np.nan if c is None else c for c in f.convergence_times_s] for f in fl],
                dtype=np.float64,
            ).reshape(len(fl), n_changes),
            losses=np.array([f.losses for f in fl], dtype=np.int64 if ints else np.float64),
            not_settled_reason=np.array([f.not_settled_reason for f in fl], dtype=object),
            **{name: col(name) for name in ("start_s", "stop_s", *_OPTIONAL)},
        )
        out._cache.update(enumerate(fl))
        return out

    def __len__(self) -> int:
        return len(self.names)

    def _item(self, k: int) -> FlowSummary:
        f = self._cache.get(k)
        if f is None:
            from .results import FlowSummary

            f = self._cache[k] = FlowSummary(
                name=self.names[k],
                start_s=float(self.start_s[k]),
                stop_s=float(self.stop_s[k]),
                convergence_times_s=tuple(
                    _none_or(float, c) for c in self.convergence_times_s[k].tolist()
                ),
                losses=self.losses[k].item(),
                not_settled_reason=self.not_settled_reason[k],
                **{n: _none_or(kind, getattr(self, n)[k]) for n, kind in _OPTIONAL.items()},
            )
        return f


@dataclass(frozen=True, eq=False)
class RoundLog:
    """One flow's round log, kept in full whatever is recorded: one row per round boundary.

    Every column has one value per row (a column of another length than ``time_s`` is a
    ValueError); what the law read at the boundary (the RTTs, BaseRTT and Δ) is NaN on every
    row where the engine keeps no such value.

    Attributes
    ----------
    time_s
        Round boundaries, s (the end of each round, where the law decides).
    window_pkts
        The window of the round that ended (the window whose packets the law measured).
    next_window_pkts
        The window the law (and a loss reaction) set at the boundary.
    phase
        The law's phase at each boundary (:data:`tcpfluid.algorithms.base.SLOW_START`...;
        the round model gives the phase during the round that ended).
    rtt_mean_s, rtt_min_s, rtt_max_s
        The mean, smallest and largest RTT of the round's samples the law read, s (the
        hybrid model keeps the mean only; the round model's one RTT a round gives three
        equal columns).
    base_rtt_s
        The BaseRTT the law held, s (the round model: the one it held at the end of the
        run, :attr:`Result.base_rtt_s`, on every row).
    delta_pkts
        Δ = (W/BaseRTT − W/RTT)·BaseRTT, the backlog estimate the law read, packets (the
        Quick Vegas paper, eq 1).
    """

    time_s: FloatArray
    window_pkts: FloatArray
    next_window_pkts: FloatArray
    phase: NDArray[np.int8]
    rtt_mean_s: FloatArray | None = None
    rtt_min_s: FloatArray | None = None
    rtt_max_s: FloatArray | None = None
    base_rtt_s: FloatArray | None = None
    delta_pkts: FloatArray | None = None

    def __post_init__(self) -> None:
        n = len(self.time_s)
        for name in _READ_AT_BOUNDARY:
            v = getattr(self, name)
            if v is None:  # not kept: NaN on every row
                object.__setattr__(self, name, np.full(n, np.nan))
            elif not (isinstance(v, np.ndarray) and v.dtype == np.float64):
                object.__setattr__(self, name, np.asarray(v, dtype=np.float64))
        for name in _ROW_COLUMNS:  # one value per row in every column
            if (m := len(getattr(self, name))) != n:
                raise ValueError(
                    f"RoundLog column {name} has {m} values; expected {n}, one per row "
                    "(the length of time_s)"
                )

    def to_dict(self) -> dict[str, Any]:
        """Plain lists (``None`` for a value the engine does not keep)."""
        out = fields_dict(self)
        for name in _READ_AT_BOUNDARY:
            out[name] = [None if x != x else x for x in out[name]]
        return out


#: the columns of :class:`RoundLog` that hold what the law read at each boundary
_READ_AT_BOUNDARY = ("rtt_mean_s", "rtt_min_s", "rtt_max_s", "base_rtt_s", "delta_pkts")
#: the columns of :class:`RoundLog` besides ``time_s``, each with one value per row
_ROW_COLUMNS = ("window_pkts", "next_window_pkts", "phase", *_READ_AT_BOUNDARY)


@dataclass(eq=False, repr=False, slots=True)
class RoundLogs(LazySeq["RoundLog"]):
    """Every flow's :class:`RoundLog` kept as columns, flows along the last axis
    (:attr:`Result.rounds`); each flow's log is made when it is read.

    ``time_s`` is ``(R,)`` when every flow's rounds end together, else ``(R, F)``; the
    other columns are ``(R, F)``; flow ``k``'s log is its first ``sizes[k]`` rows (``None``:
    all R). ``rtt_s`` and ``delta_pkts`` (``(R, F)``, or ``None``: not kept) are the RTT
    and Δ of each row's round, ``base_rtt_s`` (``(F,)``, or ``None``) each flow's BaseRTT,
    the same on every row (the round model's, :class:`RoundLog`).
    """

    _what = "flow"

    time_s: FloatArray
    window_pkts: FloatArray
    next_window_pkts: FloatArray
    phase: NDArray[np.int8]
    sizes: NDArray[np.int64] | None = None
    _: KW_ONLY
    rtt_s: FloatArray | None = None
    delta_pkts: FloatArray | None = None
    base_rtt_s: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.window_pkts.shape[1])

    def _item(self, k: int) -> RoundLog:
        s = None if self.sizes is None else int(self.sizes[k])
        t = self.time_s[:s] if self.time_s.ndim == 1 else self.time_s[:s, k]
        rtt = None if self.rtt_s is None else self.rtt_s[:s, k]
        delta = None if self.delta_pkts is None else self.delta_pkts[:s, k]
        base = None if self.base_rtt_s is None else np.full(t.shape[0], self.base_rtt_s[k])
        # one RTT a round: its mean, minimum and maximum are the same numbers, three arrays
        lo, hi = (None, None) if rtt is None else (rtt.copy(), rtt.copy())
        return RoundLog(t, self.window_pkts[:s, k], self.next_window_pkts[:s, k],
                        self.phase[:s, k], rtt, lo, hi, base, delta)  # fmt: skip

    __eq__ = object.__eq__  # logs made when read: equal only to itself
    __hash__ = object.__hash__  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<round logs of {len(self)} flows>"


#: the keys of :meth:`Summary.to_dict <tcpfluid.results.Summary.to_dict>`, in order: each
#: ``(key, kind, field, how)``: kind ``"f0"`` flow 0's value of the :class:`FlowSummaries`
#: column ``field``, ``"flows"`` the column's list (one value per flow), ``"run"`` the
#: summary's own ``field``; ``how``: the :class:`~tcpfluid._json.Column` options (NaN reads
#: as ``None``: ``nullable``...)
SUMMARY_KEYS: tuple[tuple[str, str, str, dict[str, bool]], ...] = (
    ("ss_exit_window", "f0", "ss_exit_window_pkts", {"nullable": True}),
    ("ss_exit_time_s", "f0", "ss_exit_time_s", {"nullable": True}),
    ("ss_exit_round", "f0", "ss_exit_round", {"nullable": True, "integer": True}),
    ("settled_window", "f0", "settled_window_pkts", {"nullable": True}),
    ("time_to_equilibrium_s", "f0", "time_to_equilibrium_s", {"nullable": True}),
    ("convergence_times_s", "f0", "convergence_times_s", {"nullable": True}),
    ("change_times_s", "run", "change_times_s", {}),
    ("utilization", "run", "utilization", {"nullable": True}),
    ("throughput_pps", "flows", "throughput_pps", {"nullable": True}),
    ("jain_index", "run", "jain_index", {"nullable": True}),
    ("losses", "flows", "losses", {}),
    ("flow_names", "flows", "names", {}),
    ("flow_start_s", "flows", "start_s", {}),
    ("flow_stop_s", "flows", "stop_s", {"nullable": True, "none_inf": True}),
    ("ss_exit_windows_pkts", "flows", "ss_exit_window_pkts", {"nullable": True}),
    ("ss_exit_times_s", "flows", "ss_exit_time_s", {"nullable": True}),
    ("ss_exit_rounds", "flows", "ss_exit_round", {"nullable": True, "integer": True}),
    ("settled_windows_pkts", "flows", "settled_window_pkts", {"nullable": True}),
    ("times_to_equilibrium_s", "flows", "time_to_equilibrium_s", {"nullable": True}),
    ("convergence_times_per_flow_s", "flows", "convergence_times_s", {"nullable": True}),
    ("cycle_centres_pkts", "flows", "cycle_centre_pkts", {"nullable": True}),
    ("cycle_amplitudes_pkts", "flows", "cycle_amplitude_pkts", {"nullable": True}),
    ("not_settled_reasons", "flows", "not_settled_reason", {}),
    ("change_kinds", "run", "change_kinds", {}),
    ("all_settled_time_s", "run", "all_settled_time_s", {"nullable": True}),
    ("all_converged_times_s", "run", "all_converged_times_s", {"nullable": True}),
    ("losses_unit", "run", "losses_unit", {}),
    ("bottleneck", "run", "bottleneck", {}),
    ("notes", "run", "notes", {}),
)


@dataclass(frozen=True, eq=False)
class SummaryBatch:
    """The summaries of a batch of S runs of the same flows (the round model's scenarios
    of one call, a sweep's batch), kept as columns: what :func:`tcpfluid.metrics.summarise`
    returns with ``scenarios=S``. Row ``s`` (:meth:`row`, iteration) is the
    :class:`~tcpfluid.results.Summary` of run ``s`` alone, value by value; :meth:`to_dict`
    gives every key of :meth:`Summary.to_dict <tcpfluid.results.Summary.to_dict>` as a
    list over the runs.

    Attributes
    ----------
    engine, bottleneck, losses_unit, notes, extras, change_times_s, change_kinds
        As in :class:`~tcpfluid.results.Summary`, shared by every run.
    flow_names
        The F flows' names (every run's).
    flows
        The per-flow columns of :class:`FlowSummaries` by name, shape ``(S, F)``
        (``convergence_times_s``: ``(S, F, K)``), NaN for ``None``.
    all_settled_time_s, utilization, jain_index
        Per run, shape ``(S,)``, NaN for ``None``.
    all_converged_times_s
        Per run and change, shape ``(S, K)``, NaN for ``None``.
    """

    engine: str
    flow_names: Sequence[str]
    flows: Mapping[str, NDArray[Any]]
    change_times_s: tuple[float, ...]
    change_kinds: tuple[str, ...]
    all_settled_time_s: FloatArray
    all_converged_times_s: FloatArray
    utilization: FloatArray
    jain_index: FloatArray
    bottleneck: str
    losses_unit: str = "loss events"
    notes: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.utilization.shape[0])

    def __iter__(self) -> Iterator[Summary]:
        return map(self.row, range(len(self)))

    def row(self, s: int) -> Summary:
        """The :class:`~tcpfluid.results.Summary` of run ``s``."""
        from .metrics import _finite_or_none
        from .results import Summary

        k = item_index(s, len(self), "run")
        return Summary(
            engine=self.engine,
            flows=FlowSummaries(names=self.flow_names, **{n: v[k] for n, v in self.flows.items()}),
            change_times_s=self.change_times_s,
            change_kinds=self.change_kinds,
            all_settled_time_s=_finite_or_none(self.all_settled_time_s[k]),
            all_converged_times_s=tuple(
                map(_finite_or_none, self.all_converged_times_s[k].tolist())
            ),
            utilization=_finite_or_none(self.utilization[k]),
            jain_index=_finite_or_none(self.jain_index[k]),
            bottleneck=self.bottleneck,
            losses_unit=self.losses_unit,
            notes=self.notes,
            extras=dict(self.extras),
        )

    def to_dict(self, keys: Sequence[str] | None = None) -> dict[str, list[Any]]:
        """Each key of :meth:`Summary.to_dict <tcpfluid.results.Summary.to_dict>` (or
        of ``keys``, in their order there) as a list of its value in every run; the
        engine's own keys (:attr:`extras`) too when ``keys`` is ``None``.

        Raises
        ------
        ValueError
            A key no summary has, naming it and the keys.
        """
        S = len(self)
        want = None if keys is None else set(keys)
        known = {k for k, *_ in SUMMARY_KEYS} | set(self.extras)
        if want is not None and not want <= known:
            raise ValueError(
                f"keys: {sorted(want - known)[0]!r} is not a summary key; keys: "
                f"{', '.join(k for k, *_ in SUMMARY_KEYS)}"
            )
        out: dict[str, list[Any]] = {}
        for key, kind, name, how in SUMMARY_KEYS:
            if want is not None and key not in want:
                continue
            if kind == "run":
                v = getattr(self, name)
                out[key] = (
                    Column(v, **how).tolist()
                    if isinstance(v, np.ndarray)
                    else [list(v) if isinstance(v, tuple) else v for _ in range(S)]
                )
            elif name == "names":
                out[key] = [list(self.flow_names) for _ in range(S)]
            else:
                col = self.flows[name]
                out[key] = Column(col[:, 0] if kind == "f0" else col, **how).tolist()
        for k, v in self.extras.items():
            if (want is None or k in want) and k not in out:
                out[k] = [v] * S
        return out

    def records(self, keys: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Per run the dict of :meth:`Summary.to_dict <tcpfluid.results.Summary.to_dict>`
        (its ``keys`` only, when given): what a sweep keeps of each point."""
        cols = self.to_dict(keys)
        names = list(cols)
        return [dict(zip(names, vals, strict=True)) for vals in zip(*cols.values(), strict=True)]
