"""The per-flow parts of :class:`tcpfluid.results.Summary` and
:class:`tcpfluid.results.Result` kept as columns: :class:`FlowSummaries` (every flow's
summary values) and :class:`RoundLogs` (every flow's round log). Each reads back as a
sequence of the one-flow objects (:class:`~tcpfluid.results.FlowSummary`,
:class:`~tcpfluid.results.RoundLog`), made when read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np
from numpy.typing import NDArray

from ._json import Column
from ._validation import item_index

if TYPE_CHECKING:  # pragma: no cover
    from .results import FlowSummary, RoundLog

__all__ = ["FlowSummaries", "RoundLogs"]

FloatArray = NDArray[np.float64]


def _opt(a: NDArray[Any], *, kind: type = float, inf: bool = False) -> list[Any]:
    """Plain values of ``a`` (nested lists for 2-d), ``None`` for NaN (and for ``inf``
    when ``inf``)."""
    return Column(a, nullable=True, none_inf=inf, integer=kind is int).tolist()


def _lazy(names: Sequence[str]) -> bool:
    """Whether ``names`` is a scenario's :class:`~tcpfluid.scenarios._columns.Names`."""
    from .scenarios._columns import Names

    return isinstance(names, Names)


def _none_or(kind: type, x: float) -> Any:
    return None if x != x else kind(x)


class FlowSummaries(Sequence["FlowSummary"]):
    """The :class:`FlowSummary` of every flow, kept as columns (arrays, NaN for ``None``);
    each :class:`FlowSummary` is made when it is read (:attr:`Summary.flows`)."""

    __slots__ = (
        "_cache", "convergence_times_s", "cycle_amplitude_pkts", "cycle_centre_pkts", "losses",
        "names", "not_settled_reason", "settled_window_pkts", "ss_exit_round",
        "ss_exit_time_s", "ss_exit_window_pkts", "start_s", "stop_s", "throughput_pps",
        "time_to_equilibrium_s",
    )  # fmt: skip

    def __init__(
        self,
        *,
        names: Sequence[str],
        start_s: FloatArray,
        stop_s: FloatArray,
        ss_exit_window_pkts: FloatArray,
        ss_exit_time_s: FloatArray,
        ss_exit_round: FloatArray,
        settled_window_pkts: FloatArray,
        time_to_equilibrium_s: FloatArray,
        convergence_times_s: FloatArray,
        throughput_pps: FloatArray,
        losses: NDArray[Any],
        cycle_centre_pkts: FloatArray,
        cycle_amplitude_pkts: FloatArray,
        not_settled_reason: NDArray[Any],
    ) -> None:
        self.names = names
        self.start_s, self.stop_s = start_s, stop_s
        self.ss_exit_window_pkts, self.ss_exit_time_s = ss_exit_window_pkts, ss_exit_time_s
        self.ss_exit_round = ss_exit_round
        self.settled_window_pkts = settled_window_pkts
        self.time_to_equilibrium_s = time_to_equilibrium_s
        self.convergence_times_s = convergence_times_s
        self.throughput_pps, self.losses = throughput_pps, losses
        self.cycle_centre_pkts, self.cycle_amplitude_pkts = cycle_centre_pkts, cycle_amplitude_pkts
        self.not_settled_reason = not_settled_reason
        self._cache: dict[int, FlowSummary] = {}

    @classmethod
    def of(cls, flows: Sequence[FlowSummary]) -> FlowSummaries:
        """``flows`` as columns (itself if it is already)."""
        if isinstance(flows, FlowSummaries):
            return flows
        fl = tuple(flows)

        def col(name: str) -> FloatArray:
            return np.array(
                [np.nan if getattr(f, name) is None else getattr(f, name) for f in fl],
                dtype=np.float64,
            )

        n_changes = max((len(f.convergence_times_s) for f in fl), default=0)
        ints = all(isinstance(f.losses, int) for f in fl)
        out = cls(
            names=[f.name for f in fl],
            start_s=col("start_s"),
            stop_s=col("stop_s"),
            ss_exit_window_pkts=col("ss_exit_window_pkts"),
            ss_exit_time_s=col("ss_exit_time_s"),
            ss_exit_round=col("ss_exit_round"),
            settled_window_pkts=col("settled_window_pkts"),
            time_to_equilibrium_s=col("time_to_equilibrium_s"),
            convergence_times_s=np.array(
                [[np.nan if c is None else c for c in f.convergence_times_s] for f in fl],
                dtype=np.float64,
            ).reshape(len(fl), n_changes),
            throughput_pps=col("throughput_pps"),
            losses=np.array([f.losses for f in fl], dtype=np.int64 if ints else np.float64),
            cycle_centre_pkts=col("cycle_centre_pkts"),
            cycle_amplitude_pkts=col("cycle_amplitude_pkts"),
            not_settled_reason=np.array([f.not_settled_reason for f in fl], dtype=object),
        )
        out._cache.update(enumerate(fl))
        return out

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, i: int) -> FlowSummary: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[FlowSummary, ...]: ...
    def __getitem__(self, i: int | slice) -> FlowSummary | tuple[FlowSummary, ...]:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(len(self))[i])
        k = item_index(i, len(self), "flow")
        f = self._cache.get(k)
        if f is None:
            from .results import FlowSummary

            f = self._cache[k] = FlowSummary(
                name=self.names[k],
                start_s=float(self.start_s[k]),
                stop_s=float(self.stop_s[k]),
                ss_exit_window_pkts=_none_or(float, self.ss_exit_window_pkts[k]),
                ss_exit_time_s=_none_or(float, self.ss_exit_time_s[k]),
                ss_exit_round=_none_or(int, self.ss_exit_round[k]),
                settled_window_pkts=_none_or(float, self.settled_window_pkts[k]),
                time_to_equilibrium_s=_none_or(float, self.time_to_equilibrium_s[k]),
                convergence_times_s=tuple(
                    _none_or(float, c) for c in self.convergence_times_s[k].tolist()
                ),
                throughput_pps=_none_or(float, self.throughput_pps[k]),
                losses=self.losses[k].item(),
                cycle_centre_pkts=_none_or(float, self.cycle_centre_pkts[k]),
                cycle_amplitude_pkts=_none_or(float, self.cycle_amplitude_pkts[k]),
                not_settled_reason=self.not_settled_reason[k],
            )
        return f

    def __iter__(self) -> Iterator[FlowSummary]:
        return (self[k] for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FlowSummaries | tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<{len(self)} flow summaries>"


class RoundLogs(Sequence["RoundLog"]):
    """Every flow's :class:`RoundLog` kept as columns, flows along the last axis
    (:attr:`Result.rounds`); each flow's log is made when it is read.

    ``time_s`` is ``(R,)`` when every flow's rounds end together, else ``(R, F)``; the
    other columns are ``(R, F)``; flow ``k``'s log is its first ``sizes[k]`` rows (``None``:
    all R).
    """

    __slots__ = ("next_window_pkts", "phase", "sizes", "time_s", "window_pkts")

    def __init__(
        self,
        time_s: FloatArray,
        window_pkts: FloatArray,
        next_window_pkts: FloatArray,
        phase: NDArray[np.int8],
        sizes: NDArray[np.int64] | None = None,
    ) -> None:
        self.time_s, self.window_pkts = time_s, window_pkts
        self.next_window_pkts, self.phase = next_window_pkts, phase
        self.sizes = sizes

    def __len__(self) -> int:
        return int(self.window_pkts.shape[1])

    @overload
    def __getitem__(self, i: int) -> RoundLog: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[RoundLog, ...]: ...
    def __getitem__(self, i: int | slice) -> RoundLog | tuple[RoundLog, ...]:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(len(self))[i])
        k = item_index(i, len(self), "flow")
        from .results import RoundLog

        if self.sizes is None:
            return RoundLog(
                self.time_s, self.window_pkts[:, k], self.next_window_pkts[:, k], self.phase[:, k]
            )
        s = int(self.sizes[k])
        t = self.time_s[:s] if self.time_s.ndim == 1 else self.time_s[:s, k]
        return RoundLog(t, self.window_pkts[:s, k], self.next_window_pkts[:s, k], self.phase[:s, k])

    def __iter__(self) -> Iterator[RoundLog]:
        return (self[k] for k in range(len(self)))

    def __repr__(self) -> str:
        return f"<round logs of {len(self)} flows>"
