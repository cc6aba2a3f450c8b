"""What every engine shares: the options base class (the recording vocabulary), the
capabilities lookup, the older option names (:func:`renamed_keywords`), the round-log and
sample helpers."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .._result_columns import _READ_AT_BOUNDARY
from .._validation import check_int, check_positive, warn_renamed
from ..results import Result, RoundLog, Summary

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario
    from ..scenarios.reduction import Capabilities

FloatArray = NDArray[np.float64]

#: the ``settle_band`` of the run being summarised (:meth:`Engine.run` sets it around
#: :meth:`Engine._result`, :func:`summary_of` hands it to the summary)
_SETTLE_BAND: contextvars.ContextVar[float | dict[str, float] | None] = contextvars.ContextVar(
    "settle_band", default=None
)

#: the per-sample quantities an engine can record beside the windows (``record=``); each
#: engine records the subset of :attr:`Engine.recordable` asked for
RECORD_FIELDS: tuple[str, ...] = (
    "queue_pkts",
    "throughput_pps",
    "rtt_s",
    "delta_pkts",
    "delivered_pkts",
    "lost_pkts",
    "base_rtt_s",
    "utilization",
)


def check_record(record: Any, recordable: tuple[str, ...]) -> tuple[str, ...]:
    """``record`` as a tuple of names of ``recordable`` (a string is one name)."""
    names = (record,) if isinstance(record, str) else record
    if not isinstance(names, Collection):
        raise TypeError(f"record must be a collection of field names, got {record!r}")
    out = tuple(names)
    for n in out:
        if n not in recordable:
            raise ValueError(
                f"record: {n!r} is not a field this engine records; fields: {', '.join(recordable)}"
            )
    return out


@dataclass(frozen=True, kw_only=True)
class Engine:
    """An engine and its options (a frozen, validated dataclass; subclasses add fields).

    ``simulate(scenario, Rounds(feedback_rounds=0))`` runs the scenario on that engine with
    those options; :meth:`run` does the same. Every engine takes the one recording
    vocabulary:

    Attributes
    ----------
    record_interval_s
        About how far apart the samples of :class:`~tcpfluid.results.Result`'s series are,
        s (``None``: the engine's default: every round in the round model, ``duration /
        1000`` in the fluid ODE and hybrid models (coarser for more than 2,000 flows in
        the hybrid model), 0.1 s or coarser in the packet simulator). What is recorded
        never changes the summary.
    record
        The per-sample quantities to keep beside the windows (names of
        :attr:`recordable`; ``None``: all of them).
    """

    #: the engine's name (``simulate(sc, name)``)
    name: ClassVar[str] = ""
    #: the per-sample quantities it can record (names of :data:`RECORD_FIELDS`)
    recordable: ClassVar[tuple[str, ...]] = ()
    #: whether a run draws random numbers (then it takes a ``seed``)
    stochastic: ClassVar[bool] = False
    #: what the model steps through: ``"packet"`` (packet events: the documents' ns-2
    #: agents' options apply), ``"round"`` (its samples are its rounds) or ``"continuous"``
    #: (continuous time: it keeps the delivered packets)
    granularity: ClassVar[str] = ""
    #: whether the run reports its progress itself (else 0 and 1 are reported around it)
    reports_progress: ClassVar[bool] = True
    #: the most flows a run takes (``None``: as many as memory allows, the engine's own
    #: estimate), and what each flow costs it: bytes, and seconds per simulated second
    #: (measured: ``benchmarks/million.py`` and the engines' benchmarks)
    max_flows: ClassVar[int | None] = None
    flow_cost: ClassVar[tuple[float, float]] = (0.0, 0.0)
    #: the model's own check of its options (keywords by name -> the checked values, the
    #: switches as plain bools), whose values replace those given; ``None``: none
    _check_options: ClassVar[Callable[..., Mapping[str, Any]] | None] = None

    record_interval_s: float | None = None
    record: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.record_interval_s is not None:
            check_positive("record_interval_s", self.record_interval_s)
        rec = self.recordable if self.record is None else check_record(self.record, self.recordable)
        object.__setattr__(self, "record", rec)
        if self._check_options is not None:
            for name, value in self._check_options(**self._options()).items():
                object.__setattr__(self, name, value)

    @property
    def capabilities(self) -> Capabilities:
        """What the engine can model (:data:`tcpfluid.scenarios.ENGINE_CAPABILITIES`)."""
        from ..scenarios import ENGINE_CAPABILITIES

        return ENGINE_CAPABILITIES[self.name]

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The options (the dataclass fields), in order."""
        return tuple(f.name for f in fields(cls))

    def run(
        self,
        scenario: Scenario,
        *,
        progress: Callable[[float], None] | None = None,
        label: str | None = None,
        settle_band: float | Mapping[str, float] | None = None,
    ) -> Result:
        """Run ``scenario`` (its flows have an algorithm) and return the common
        :class:`~tcpfluid.results.Result` (``label``: the engine name it carries; default
        :attr:`name`; ``settle_band``: the summary's settling band, as
        :func:`tcpfluid.simulate`)."""
        self.check_flows(scenario, label or self.name)
        from ..metrics.summary import check_settle_band, check_summary_size

        band = check_settle_band(settle_band)
        check_summary_size(scenario)  # the summary's flows x changes table, before the run
        try:
            native = self._native(scenario, progress, label or self.name)
        except ValueError as e:
            # the fluid functions call the scenario's duration ``duration_s``; the user
            # gave the scenario's ``duration``: a refusal names what the user can change
            if str(e).startswith("duration_s="):
                rest = str(e).partition(" ")[2]
                raise ValueError(f"duration={scenario.duration_s:g} s {rest}") from None
            raise
        from ..scenarios.model import paused_gc

        # the result makes a few objects per flow and frees none: collections would make it
        # quadratic in the flows
        token = _SETTLE_BAND.set(band)
        try:
            with paused_gc():
                return self._result(scenario, native, label or self.name)
        finally:
            _SETTLE_BAND.reset(token)

    def check_flows(self, scenario: Scenario, label: str = "") -> None:
        """Refuse, before any work, more flows than :attr:`max_flows`, with the estimate
        of the memory and time they would take.

        Raises
        ------
        ValueError
            Naming the number of flows, the engine's limit, the estimate and what to change.
        """
        n = len(scenario.flows)
        if self.max_flows is None or n <= self.max_flows:
            return
        per_byte, per_s = self.flow_cost
        raise ValueError(
            f"flows must be at most {self.max_flows:,} on the {label or self.name} engine, "
            f"got {n:,} "
            f"(about {n * per_byte / 1e9:.3g} GB and {n * per_s * scenario.duration_s:.3g} s "
            f"for duration={scenario.duration_s:g} s); give fewer flows, or run them on the "
            "rounds engine"
        )

    def _native(
        self, scenario: Scenario, progress: Callable[[float], None] | None, label: str
    ) -> Any:
        """The engine's own result of ``scenario`` (:attr:`Result.native`); ``label``: the
        engine's name as the user asked for it, which a refusal names ("ode" runs the
        hybrid model)."""
        raise NotImplementedError  # pragma: no cover

    def _result(self, sc: Scenario, native: Any, label: str) -> Result:
        """The :class:`~tcpfluid.results.Result` of the engine's own result ``native``."""
        raise NotImplementedError  # pragma: no cover

    def _wrap(
        self,
        label: str,
        sc: Scenario,
        summary: Summary,
        native: Any,
        t: FloatArray,
        w: FloatArray,
        queue: FloatArray | None,
        throughput: FloatArray | None,
        **more: Any,
    ) -> Result:
        """The :class:`~tcpfluid.results.Result` of sample times ``t`` and windows ``w``
        (flows x samples); the queue and the throughputs NaN where not recorded."""
        if queue is None or not self.records("queue_pkts"):
            queue = np.full_like(t, np.nan)
        if throughput is None or not self.records("throughput_pps"):
            throughput = np.full(w.shape, np.nan)
        return Result(
            label, sc, summary.flow_names, t, w, queue, throughput, summary, native, **more
        )

    def records(self, quantity: str) -> bool:
        """Whether ``quantity`` is recorded."""
        return quantity in (self.record or ())

    def _options(self) -> dict[str, Any]:
        """The engine's own options by name (its fields but the recording ones): the
        keywords of the function that runs it, which takes them under the same names."""
        skip = ("record_interval_s", "record")
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}


# ------------------------------------------------------------------ helpers of the engines
#: old name -> new name, or (new name, conversion of the old value, how the unit changed)
Renamed = Mapping[str, "str | tuple[str, Callable[[Any], Any], str]"]


def renamed_keywords(
    where: str, options: Mapping[str, Any], renamed: Renamed, *, stacklevel: int = 3
) -> dict[str, Any]:
    """``options`` with every older name of ``renamed`` replaced by its new name (the value
    converted when the unit changed), with a :class:`DeprecationWarning` naming both
    (``where``: what takes the options, ``"the rounds engine"``); a ``TypeError`` when both
    an old name and its new name are given."""
    out = dict(options)
    for old, spec in renamed.items():
        if old not in out:
            continue
        new, convert, note = (spec, None, "") if isinstance(spec, str) else spec
        if new in out:
            raise TypeError(f"{where}: give {new} or its older name {old}, not both")
        value = out.pop(old)
        out[new] = value if convert is None else convert(value)
        warn_renamed(where, old, new, note, stacklevel=stacklevel + 1)
    return out


def older_names(options: Collection[str], scenario: Scenario | None) -> dict[str, Any]:
    """The older option names of every engine whose new name is one of ``options`` (one
    table for every engine): old name -> new name, or ``(new name, conversion, note)``;
    ``scenario`` gives the conversions counted in the run's own units (base RTTs, points)."""
    rtts = "rounds, which need the scenario's base RTT"
    every = counted_option(
        "record_every", 1, rtts, scenario, lambda sc, m: m * min(map(sc.base_rtt_s, sc.flows))
    )
    points = "samples over the run, which needs its duration"
    n_points = counted_option(
        "n_points", 2, points, scenario, lambda sc, n: sc.duration_s / (n - 1)
    )
    table: dict[str, Any] = {
        "record_every": ("record_interval_s", every, "record_every=m is taken as m base RTTs"),
        "n_points": ("record_interval_s", n_points, "n_points=n is duration / (n - 1)"),
        **dict.fromkeys(("record_every_s", "sample_interval", "sample_interval_s"),
                        "record_interval_s"),
        "rtt": "rtt_model",
        **{old: f"{old}_s" for old in ("delack_timeout", "min_rto", "initial_rto", "max_rto")},
    }  # fmt: skip
    return {
        old: spec
        for old, spec in table.items()
        if (spec if isinstance(spec, str) else spec[0]) in options
    }


def counted_option(
    name: str,
    minimum: int,
    counts: str,
    scenario: Scenario | None,
    to_s: Callable[[Scenario, int], float],
) -> Callable[[Any], float]:
    """The conversion to seconds of an older option counted in the run's own units
    (rounds, points; at least ``minimum``): ``to_s(scenario, count)``, a ``TypeError``
    saying what it ``counts`` without the scenario."""

    def convert(value: Any) -> float:
        n = check_int(name, value, minimum=minimum)
        if scenario is None:
            raise TypeError(
                f"{name} counts {counts}: give record_interval_s (seconds), or the scenario "
                "to get_engine"
            )
        return to_s(scenario, n)

    return convert


def sample_rows(t: FloatArray, interval_s: float | None) -> NDArray[np.intp] | slice:
    """The rows of a sample grid ``t`` kept for samples about ``interval_s`` apart: the first
    row at or after each multiple of the interval from ``t[0]`` (every row when ``None``,
    and when the interval is shorter than the rows' spacing). One pass over the rows: a row
    is kept when it reaches a multiple its predecessor did not."""
    if interval_s is None or t.size == 0:
        return slice(None)
    tol = 1e-12 * max(1.0, float(t[-1]))  # a row a rounding error short of a multiple
    reached = np.floor((t - float(t[0]) + tol) / interval_s)  # the last multiple reached
    return np.flatnonzero(np.diff(reached, prepend=-1.0) > 0)


def traced_log(fl: Any) -> RoundLog:
    """The round log of a flow traced round by round (``round_t_s``, ``round_cwnd_pkts``,
    ``round_next_cwnd_pkts``, ``round_phase`` and, where the trace keeps them,
    ``round_rtt_mean_s``, ``round_rtt_min_s``, ``round_rtt_max_s``, ``round_base_rtt_s``,
    ``round_delta_pkts``)."""
    return RoundLog(
        time_s=np.asarray(fl.round_t_s, dtype=np.float64),
        window_pkts=np.asarray(fl.round_cwnd_pkts, dtype=np.float64),
        next_window_pkts=np.asarray(fl.round_next_cwnd_pkts, dtype=np.float64),
        phase=np.asarray(fl.round_phase).astype(np.int8),
        **{k: getattr(fl, "round_" + k, None) for k in _READ_AT_BOUNDARY},
    )


def summary_of(label: str, sc: Scenario, recs: Any, **kw: Any) -> Summary:
    """:func:`tcpfluid.metrics.summarise` of the run of ``sc`` to its end, on its
    bottleneck (``kw``: the carried packets, capacity, ...)."""
    from ..metrics import summarise

    kw.setdefault("bottleneck", bottleneck_name(sc))
    kw.setdefault("settle_band", _SETTLE_BAND.get())
    return summarise(label, sc, recs, end_s=sc.duration_s, **kw)


def bottleneck_name(sc: Scenario) -> str:
    """The scenario's bottleneck link (:func:`tcpfluid.scenarios.bottleneck`)."""
    from ..scenarios import bottleneck

    link = bottleneck(sc)
    if link is None:
        raise ValueError(f"scenario {sc.name!r} has no bottleneck link")
    return link.name
