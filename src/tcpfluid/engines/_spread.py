"""The packet simulator's spread over start orders: :func:`packet_spread`.

Flows that start together can end unequal in packets because of which first packet
reaches the bottleneck first. :func:`packet_spread` runs the packet simulator on the same
scenario several times, each with another start order (:func:`tcpfluid.sim.start_jitter`),
summarises each run with the one summary (:attr:`tcpfluid.results.Result.summary`) and
gives each quantity's min, median and max over the runs. It informs an analyst what a
single packet run can be relied on for; it is not a tolerance, and nothing judges by it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .._result_columns import FlowSummaries
from .._text import cell, columns
from .._validation import check_int, check_progress
from ..metrics._arrays import _finite_or_none, _plain

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result, Summary
    from ..scenarios import Scenario
    from ._packet import Packet

FloatArray = NDArray[np.float64]

#: the per-flow quantities of the spread (attribute -> table heading)
_FLOW_QUANTITIES = {
    "throughput_pps": "throughput (pkt/s)",
    "throughput_share": "share",
    "settled_window_pkts": "settled window (pkts)",
    "time_to_equilibrium_s": "time to equilibrium (s)",
    "ss_exit_window_pkts": "slow-start exit window (pkts)",
}
#: the per-run quantities of the spread (attribute -> table heading)
_RUN_QUANTITIES = {"utilization": "utilization", "jain_index": "Jain's index"}


@dataclass(frozen=True, eq=False)
class Spread:
    """One quantity over the runs of :func:`packet_spread`.

    Attributes
    ----------
    values
        Each run's value, shape ``(runs, flows)`` for a per-flow quantity, ``(runs,)`` for
        a per-run one; NaN where the run has none (did not settle, no slow-start exit).
    min, median, max
        Over the runs that have a value (NaN where none has), shape ``values.shape[1:]``.
    missing
        The number of runs without a value.
    """

    values: FloatArray
    min: FloatArray = field(init=False)
    median: FloatArray = field(init=False)
    max: FloatArray = field(init=False)
    missing: NDArray[np.int64] = field(init=False)

    def __post_init__(self) -> None:
        v = np.asarray(self.values, dtype=np.float64)
        with warnings.catch_warnings():  # no run has a value: NaN, as documented
            warnings.simplefilter("ignore", RuntimeWarning)
            stats = {f.__name__[3:]: f(v, axis=0) for f in (np.nanmin, np.nanmedian, np.nanmax)}
        for name, value in {"values": v, **stats, "missing": np.isnan(v).sum(axis=0)}.items():
            object.__setattr__(self, name, np.asarray(value))

    def to_dict(self) -> dict[str, Any]:
        """``min``, ``median``, ``max`` (``None`` where no run has a value) and ``missing``."""
        return {k: _plain(getattr(self, k)) for k in ("min", "median", "max")} | {
            "missing": self.missing.tolist()
        }

    def _cell(self, at: int | tuple[()] = ()) -> str:
        """``min–max (median)`` of flow ``at`` (``()``: a per-run quantity; one number when
        every run shows the same), with the runs that have no value; ``-`` when none has."""
        lo, mid, hi = (_finite_or_none(getattr(self, k)[at]) for k in ("min", "median", "max"))
        if lo is None:
            return "-"
        none = int(self.missing[at])
        text = cell(lo) if cell(lo) == cell(hi) else f"{cell(lo)}–{cell(hi)} ({cell(mid)})"
        return text + (f", {none} none" if none else "")


def _quantities(summary: Summary) -> dict[str, FloatArray]:
    """The spread's quantities of one run's summary (NaN for ``None``)."""
    fl = FlowSummaries.of(summary.flows)
    thr = fl.throughput_pps
    total = float(np.nansum(thr))
    share = thr / total if total > 0 else np.full_like(thr, np.nan)
    runs = {k: np.float64(np.nan if getattr(summary, k) is None else getattr(summary, k))
            for k in _RUN_QUANTITIES}  # fmt: skip
    flows = {k: getattr(fl, k) for k in _FLOW_QUANTITIES if k != "throughput_share"}
    return {**flows, "throughput_share": share, **runs}


@dataclass(frozen=True, eq=False)
class PacketSpread:
    """The packet simulator's min, median and max over start orders (:func:`packet_spread`):
    it informs, it is not a tolerance.

    Attributes
    ----------
    seed
        The seed of the start orders.
    flow_names
        The flows, in order.
    start_delays_s
        Each run's senders' start delays, s, shape ``(runs, flows)`` (run 0: the engine's
        own ``start_delay_s``; run ``k``: those plus :func:`tcpfluid.sim.start_jitter` of
        ``(seed, k)``).
    throughput_pps, throughput_share
        Per flow (:class:`Spread` of shape ``(runs, flows)``): throughput, packets/s, and
        its share of the flows' total.
    settled_window_pkts, time_to_equilibrium_s, ss_exit_window_pkts
        Per flow: the settled window, packets; the time to equilibrium, s; the slow-start
        exit window, packets (:class:`tcpfluid.results.FlowSummary`).
    utilization, jain_index
        Per run (:class:`Spread` of shape ``(runs,)``, :class:`tcpfluid.results.Summary`).
    summaries
        Each run's summary.
    first
        Run 0 whole: the result of ``simulate(scenario, engine)``.
    """

    seed: int
    flow_names: tuple[str, ...]
    start_delays_s: FloatArray
    throughput_pps: Spread
    throughput_share: Spread
    settled_window_pkts: Spread
    time_to_equilibrium_s: Spread
    ss_exit_window_pkts: Spread
    utilization: Spread
    jain_index: Spread
    summaries: tuple[Summary, ...] = field(repr=False)
    first: Result = field(repr=False)

    @property
    def runs(self) -> int:
        """The number of packet runs (start orders)."""
        return len(self.summaries)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``runs``, ``seed``, ``flow_names``, ``start_delays_s`` and, per
        quantity, its :meth:`Spread.to_dict` (per-flow lists, or numbers)."""
        head = {"runs": self.runs, "seed": self.seed, "flow_names": list(self.flow_names)}
        spreads = {k: getattr(self, k).to_dict() for k in (*_FLOW_QUANTITIES, *_RUN_QUANTITIES)}
        return head | {"start_delays_s": self.start_delays_s.tolist()} | spreads

    def table(self, *, beside: Summary | None = None, max_flows: int | None = None) -> str:
        """A text table: each quantity's ``min–max (median)`` over the runs, per run, then
        per flow (every flow, or the first ``max_flows``); ``beside``: another run's
        summary of the same scenario (a fluid engine's), its value in a column before each
        range."""
        other = None if beside is None else _quantities(beside)
        if other is not None and len(other["throughput_pps"]) != len(self.flow_names):
            raise ValueError(
                f"beside must summarise the spread's {len(self.flow_names)} flows, "
                f"got {len(other['throughput_pps'])}"
            )

        def cells(k: str, at: int | tuple[()] = ()) -> tuple[str, ...]:
            own = () if other is None else (cell(_finite_or_none(other[k][at])),)
            return (*own, getattr(self, k)._cell(at))

        eng = None if beside is None else beside.engine

        def heads(title: str) -> tuple[str, ...]:
            return (title,) if eng is None else (f"{title}: {eng}", "packets")

        title = (
            f"packet simulator over {self.runs} start orders (run 0 as given, seed {self.seed}): "
            "min–max (median); it informs, it is not a tolerance"
        )
        lines = [title, "-" * len(title)]
        for k, t in _RUN_QUANTITIES.items():
            c = cells(k)
            lines.append(f"{t}: {c[0]}" if eng is None else f"{t}: {eng} {c[0]}; packets {c[1]}")
        n = len(self.flow_names) if max_flows is None else min(max_flows, len(self.flow_names))
        head = ("flow", *(h for t in _FLOW_QUANTITIES.values() for h in heads(t)))
        body = [(self.flow_names[i], *(c for k in _FLOW_QUANTITIES for c in cells(k, i)))
                for i in range(n)]  # fmt: skip
        lines += ["", columns(head, body)]
        if n < len(self.flow_names):
            lines.append(f"... {len(self.flow_names) - n} more flows (to_dict() lists every flow)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def packet_spread(
    scenario: Scenario,
    engine: str | Packet = "packet",
    *,
    runs: int = 8,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    settle_band: float | Mapping[str, float] | None = None,
) -> PacketSpread:
    """Run the packet simulator ``runs`` times on ``scenario``, each with another start
    order, and return each quantity's min, median and max over the runs (per flow).

    Run 0 is ``simulate(scenario, engine)``; run ``k`` adds :func:`tcpfluid.sim.start_jitter`
    of ``(seed, k)`` to the senders' start delays (the same scenario with another start
    order: the first packets' order and phase change, nothing else; the simulator's own
    ``seed`` is the same in every run). Where one packet run of flows that start together
    ends unequal, the spread says which of its values hang on the start order. It informs;
    it is not a tolerance for judging another engine (docs/fluid-promises.md).

    Parameters
    ----------
    scenario
        The scenario (its flows with an algorithm), as :func:`tcpfluid.simulate`.
    engine
        ``"packet"`` or a :class:`tcpfluid.engines.Packet` with its options.
    runs
        The number of runs (start orders), an integer >= 2.
    seed
        The seed of the start orders, an integer >= 0: same seed, same spread.
    progress
        ``None`` or a callable receiving the fraction of the runs done, in [0, 1].
    settle_band
        The summaries' settling band, as :func:`tcpfluid.simulate`.

    Raises
    ------
    ValueError
        ``engine`` not the packet simulator, ``runs`` < 2, ``seed`` < 0, or what
        :func:`tcpfluid.simulate` refuses.
    TypeError
        ``runs`` or ``seed`` not an integer, ``progress`` not callable, or what
        :func:`tcpfluid.simulate` refuses.
    """
    from ..sim import start_jitter
    from . import simulate
    from ._packet import Packet

    if isinstance(engine, str) and engine == "packet":
        engine = Packet()
    if not isinstance(engine, Packet):
        raise ValueError(
            f"engine must be 'packet' or a tcpfluid.engines.Packet (the spread is the packet "
            f"simulator's), got {engine!r}"
        )
    check_int("runs", runs, minimum=2)
    check_int("seed", seed, minimum=0)
    check_progress(progress)

    def run(k: int, eng: Packet) -> Result:  # run k, its progress a part of the whole
        part = None if progress is None else (lambda f: progress((k + f) / runs))
        return simulate(scenario, eng, progress=part, settle_band=settle_band)

    first = run(0, engine)
    summaries = [first.summary]  # only run 0 is kept whole
    delays = [np.broadcast_to(engine.start_delay_s, len(scenario.flows))]
    for k in range(1, runs):  # the engine's own start delays, and run k's jitter on them
        delays.append(delays[0] + start_jitter(scenario, (seed, k)))
        summaries.append(run(k, replace(engine, start_delay_s=tuple(delays[k].tolist()))).summary)
    cols = [_quantities(s) for s in summaries]
    spreads = {k: Spread(np.array([c[k] for c in cols])) for k in cols[0]}
    return PacketSpread(
        seed=seed,
        flow_names=tuple(summaries[0].flow_names),
        start_delays_s=np.array(delays, dtype=np.float64),
        summaries=tuple(summaries),
        first=first,
        **spreads,
    )
