"""One result type and one summary type for every engine.

:func:`tcpfluid.simulate` returns a :class:`Result` whatever the engine (the round model,
the ODE model or the packet simulator): the same fields with the same units, so plots,
tables, sweeps and reports need no per-engine code. Its :class:`Summary` (per flow a
:class:`FlowSummary`) is computed in one place, :func:`tcpfluid.metrics.summarise`.

Definitions and units
---------------------
Changes
    A CBR source starting or stopping, or a flow joining or leaving, inside
    ``(0, duration)`` (:func:`tcpfluid.metrics.run_changes`).
Losses
    **Loss events** per flow: the congestion signals handed to the law, each a window cut,
    in every engine. The round model and the packet simulator count them (integers). The
    ODE engine's hybrid model (its default) counts the events its laws reacted to (several
    drops within a round are one event); its classical model is a fluid in which the window
    is cut at the rate packets are lost (the Misra-Gong-Towsley form
    ``dw/dt = 1/RTT - w p r / 2``: every lost packet is one cut), so there the loss events
    are the expected number of cuts, the integral of the loss rate (a real number). Lost
    packets are a separate quantity (the ODE's ``lost_pkts``; the packet simulator's drops
    per link).
Throughput
    Packets delivered by the flow over its active time inside the run, packets/s: from its
    start to the later of its stop and its last delivery (the packets in flight at its stop
    arrive after it; counted over the time they took, a flow is never faster than its
    path).
Utilization
    Packets carried by the bottleneck (flows and cross traffic) over its capacity × the
    measured time.

Examples
--------
>>> import tcpfluid
>>> res = tcpfluid.simulate(tcpfluid.scenarios.build_scenario(
...     "qv-basic", duration="20s", cbr="none").with_algorithm("vegas"))
>>> res.engine, res.window_pkts.shape[0], res.summary.losses_unit
('rounds', 1, 'loss events')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, cast

import numpy as np
from numpy.typing import NDArray

from ._json import Column, fields_dict
from ._result_columns import SUMMARY_KEYS, FlowSummaries, RoundLog, RoundLogs, SummaryBatch, _lazy
from ._text import cell, columns

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .scenarios import Scenario

__all__ = [
    "PUBLIC_KEYS",
    "FlowSummaries",
    "FlowSummary",
    "Result",
    "RoundLog",
    "RoundLogs",
    "Summary",
    "SummaryBatch",
]

FloatArray = NDArray[np.float64]

#: the unit of :attr:`FlowSummary.losses` in every engine
LOSSES_UNIT = "loss events"
#: the keys every engine's :meth:`Summary.to_dict` carries (flow 0's and the run's): the
#: contract of ``tcpfluid simulate --json`` and the metrics every run engine's sweep reads
PUBLIC_KEYS: tuple[str, ...] = (
    "ss_exit_window",
    "ss_exit_time_s",
    "settled_window",
    "time_to_equilibrium_s",
    "convergence_times_s",
    "utilization",
    "throughput_pps",
    "jain_index",
)


@dataclass(frozen=True)
class FlowSummary:
    """Summary values of one flow (``None``: did not happen / did not settle).

    Attributes
    ----------
    name
        The flow's name in the scenario.
    start_s, stop_s
        Its active interval inside the run, s: ``stop_s`` is ``inf`` (``None`` in JSON)
        when the flow runs to the end, its stop time (if any) at or after the run's end.
    ss_exit_window_pkts, ss_exit_time_s, ss_exit_round
        Slow-start exit (:func:`tcpfluid.metrics.slow_start_exit`): the window that made
        the law leave, the time of the decision, and the round index (0-based).
    settled_window_pkts, time_to_equilibrium_s
        The window settled at before the first change after the flow's start, and the time
        from its start to reach it (:func:`tcpfluid.metrics.settling`).
    convergence_times_s
        One entry per change of :attr:`Summary.change_times_s`: time from the change until
        the window settles again (``None``: not active after it or did not settle).
    throughput_pps
        Delivered packets over the flow's active time (to the later of its stop and its
        last delivery), packets/s.
    losses
        Loss events (module docstring): a count, or an expected number (a float) in the
        ODE's classical model.
    cycle_centre_pkts, cycle_amplitude_pkts
        Centre and amplitude (half-range) of the window in its settled state
        (:func:`tcpfluid.metrics.settling`: over a law's limit cycle's steady stretch, or
        over the tail, ≈ 0 amplitude, on a fixed point); ``None`` when it did not settle.
    not_settled_reason
        Why the window did not settle before the first change, as text (``None`` if it did).
    """

    name: str
    start_s: float
    stop_s: float
    ss_exit_window_pkts: float | None
    ss_exit_time_s: float | None
    ss_exit_round: int | None
    settled_window_pkts: float | None
    time_to_equilibrium_s: float | None
    convergence_times_s: tuple[float | None, ...]
    throughput_pps: float | None
    losses: int | float
    cycle_centre_pkts: float | None = None
    cycle_amplitude_pkts: float | None = None
    not_settled_reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain values (``stop_s`` ``None`` when the flow runs to the end)."""
        return fields_dict(self, none_inf=("stop_s",))


@dataclass(frozen=True)
class Summary:
    """The summary of a run, the same type for every engine (module docstring).

    Attributes
    ----------
    engine
        ``"rounds"``, ``"ode"`` or ``"packet"``.
    flows
        One :class:`FlowSummary` per flow.
    change_times_s, change_kinds
        The changes (increasing) and what each is: ``"cbr-start"``, ``"cbr-stop"``,
        ``"flow-join"``, ``"flow-leave"`` (joined with ``+`` when several coincide).
    all_settled_time_s
        Time from the run's start until every flow active before the first change has
        settled (the latest of their start + time to equilibrium); ``None`` if one did not.
    all_converged_times_s
        Per change: time until every flow active after it has settled again (the largest of
        their convergence times); ``None`` if one did not.
    utilization
        Bottleneck utilization over the measured time (all traffic), in [0, 1].
    jain_index
        Jain's index of the throughputs of the flows active in the run (the Quick Vegas
        paper (Chan, Lin, Ho 2008), eq. 13).
    losses_unit
        ``"loss events"``.
    bottleneck
        Name of the bottleneck link (:func:`tcpfluid.scenarios.bottleneck`).
    notes
        Remarks on the run (e.g. flows left out of a shortened run).
    extras
        The engine's own JSON keys kept beside the shared ones (the packet engine's
        ``retransmissions``, ``timeouts``, ``packets_per_s``...; the ODE's ``lost_pkts``,
        ``mean_queue_pkts``...).
    """

    engine: str
    flows: Sequence[FlowSummary]
    change_times_s: tuple[float, ...]
    change_kinds: tuple[str, ...]
    all_settled_time_s: float | None
    all_converged_times_s: tuple[float | None, ...]
    utilization: float | None
    jain_index: float | None
    bottleneck: str
    losses_unit: str = LOSSES_UNIT
    notes: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "flows", FlowSummaries.of(self.flows))

    @property
    def flow_names(self) -> Sequence[str]:
        """The flows' names, in order (a tuple, or the scenario's names spelled out when
        read)."""
        names = self._columns.names
        return names if isinstance(names, tuple) or _lazy(names) else tuple(names)

    @property
    def throughput_pps(self) -> tuple[float | None, ...]:
        """Per-flow throughput, packets/s."""
        return tuple(Column(self._columns.throughput_pps, nullable=True).tolist())

    @property
    def losses(self) -> tuple[int | float, ...]:
        """Per-flow loss events."""
        return tuple(self._columns.losses.tolist())

    @property
    def _columns(self) -> FlowSummaries:
        return cast(FlowSummaries, self.flows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the public keys of ``tcpfluid simulate --json``: ``ss_exit_window``,
        ``settled_window``... of **flow 0** and the run's aggregates as every engine has
        always had them, a list per flow beside them (``flow_names``,
        ``ss_exit_windows_pkts``...), then the engine's own keys (:attr:`extras`)."""
        from .scenarios.model import paused_gc

        with paused_gc():  # a list per flow: collections would walk them all, again and again
            return {
                k: v.tolist() if isinstance(v, Column) else v for k, v in self._to_dict().items()
            }

    def _to_dict(self) -> dict[str, Any]:
        """:meth:`to_dict` with the per-flow lists as :class:`~tcpfluid._json.Column`
        (written by :func:`tcpfluid._json.dumps` without making the lists): the keys of
        :data:`~tcpfluid._result_columns.SUMMARY_KEYS`, then :attr:`extras`."""
        f0 = self.flows[0]
        out: dict[str, Any] = {}
        for key, kind, name, how in SUMMARY_KEYS:
            if kind == "flows":
                out[key] = Column(getattr(self._columns, name), **how)
                continue
            v = getattr(f0 if kind == "f0" else self, name)
            out[key] = list(v) if isinstance(v, tuple) else v
        for k, v in self.extras.items():
            out.setdefault(k, v)
        return out

    def table(self, *, max_flows: int | None = None) -> str:
        """A text table: the aggregates, then one row per flow (every flow, or the first
        ``max_flows``)."""
        s = self
        shown = s.flows if max_flows is None else s.flows[:max_flows]
        rows = [
            ("bandwidth changes at (s)", cell(list(s.change_times_s))),
            ("  kinds", cell(list(s.change_kinds))),
            ("all flows settled at (s)", cell(s.all_settled_time_s)),
            ("all flows converged after each change (s)", cell(list(s.all_converged_times_s))),
            ("utilization", cell(s.utilization)),
            ("Jain's index", cell(s.jain_index)),
            (f"{s.losses_unit}, all flows", cell(sum(s.losses))),
        ]
        width = max(len(a) for a, _ in rows)
        lines = [f"{a.ljust(width)}  {b}" for a, b in rows]
        head: tuple[str, ...] = ("flow", "start (s)", "slow-start exit window (pkts)", "at (s)")
        head += ("settled window (pkts)", "time to equilibrium (s)", "throughput (pkt/s)")
        head += (s.losses_unit, "convergence after each change (s)")

        def row(f: FlowSummary) -> tuple[str, ...]:
            start = map(cell, (f.start_s, f.ss_exit_window_pkts, f.ss_exit_time_s))
            after = map(cell, (f.time_to_equilibrium_s, f.throughput_pps))
            convergence = cell(list(f.convergence_times_s))
            return (f.name, *start, _settled_cell(f), *after, cell(f.losses), convergence)

        body = [row(f) for f in shown]
        lines += ["", columns(head, body)]
        if len(shown) < len(s.flows):
            lines.append(f"... {len(s.flows) - len(shown)} more flows (to_dict() lists every flow)")
        lines += [
            f"{f.name} did not settle: {f.not_settled_reason}"
            for f in shown
            if f.not_settled_reason
        ]
        lines += [f"note: {n}" for n in s.notes]
        return "\n".join(lines)


def _settled_cell(f: FlowSummary) -> str:
    """The settled window with the cycle it settled in, centre ± amplitude: ``66.9 ±1.87``
    where the centre reads as the settled window, else ``16.33 (cycle 16.5 ±1.5)``; no
    amplitude where the cell's digits do not show it (a fixed point's rounding error)."""
    settled, centre, amp = f.settled_window_pkts, f.cycle_centre_pkts, f.cycle_amplitude_pkts
    if settled is None or amp is None or not amp > 0 or cell(settled + amp) == cell(settled):
        return cell(settled)
    if centre is None or cell(centre) == cell(settled):
        return f"{cell(settled)} ±{cell(amp)}"
    return f"{cell(settled)} (cycle {cell(centre)} ±{cell(amp)})"


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

    #: whether the engine's keys carry ``ss_exit_round`` (``None`` without that field)
    _round_key: ClassVar[bool] = False

    def flow(self, flow: int = 0) -> dict[str, Any]:
        """The public summary keys (``None``: did not happen), window metrics of flow
        ``flow`` (``throughput_pps`` and ``losses`` list every flow), then the engine's own
        keys."""
        return {**self._keys((flow,)), **self._own_keys()}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`flow` of the first flow."""
        return self.flow(0)

    def _own_keys(self) -> dict[str, Any]:
        return {}

    def _keys(self, flow: tuple[int, ...], run: tuple[int, ...] = ()) -> dict[str, Any]:
        """The public summary keys (``None``: did not happen) of the flow at index
        ``flow`` and the run's aggregates at index ``run`` (``()``: the run's own)."""
        from .metrics import _finite_or_none as num

        out: dict[str, Any] = {
            "ss_exit_window": num(self.ss_exit_window_pkts[flow]),
            "ss_exit_time_s": num(self.ss_exit_time_s[flow]),
        }
        if self._round_key:
            r = getattr(self, "ss_exit_round", None)
            out["ss_exit_round"] = None if r is None or (x := num(r[flow])) is None else int(x)
        settled = bool(self.reached_equilibrium[flow])
        out["settled_window"] = num(self.settled_window_pkts[flow]) if settled else None
        out["time_to_equilibrium_s"] = num(self.time_to_equilibrium_s[flow])
        out["convergence_times_s"] = [num(x) for x in self.convergence_times_s[flow]]
        out["change_times_s"] = list(self.change_times_s)
        out["utilization"] = num(np.asarray(self.utilization)[run])
        out["throughput_pps"] = [num(x) for x in np.asarray(self.throughput_pps)[run]]
        out["jain_index"] = num(np.asarray(self.jain_index)[run])
        out["losses"] = [int(x) for x in self.losses[run]]
        return out


@dataclass(frozen=True, eq=False)
class Result:
    """The result of :func:`tcpfluid.simulate`, the same type for every engine.

    Attributes
    ----------
    engine
        ``"rounds"``, ``"ode"`` or ``"packet"``.
    scenario
        The scenario run (with its algorithm).
    flow_names
        The flows' names, in order (the rows of the per-flow arrays).
    time_s
        Sample times, s, shape ``(T,)``: one per round (rounds), per output point (ODE),
        per sample interval (packet).
    window_pkts
        Congestion window of each flow, packets, shape ``(F, T)``; 0 before the flow
        starts and from the time it stops.
    queue_pkts
        Queue at the bottleneck, packets, shape ``(T,)``.
    throughput_pps
        Delivery rate of each flow, packets/s, shape ``(F, T)``: the round's rate (round
        model), the packets delivered (ACKed, never the lost ones) in each sample interval
        (ODE and packet engines), the rate the summary's throughput averages.
    summary
        The :class:`Summary`, computed from the whole run: what is recorded
        (``record_interval_s``, ``record``) never changes it.
    native
        The engine's own result object (``RoundTrace``, ``OdeResult``, ``PacketResult``),
        for what only that engine records.
    status, message
        0 and ``"ok"`` when the whole run was computed; otherwise a negative status and the
        reason (:meth:`raise_for_status`).
    rounds
        Each flow's :class:`RoundLog`, every round (empty for the classical ODE, which has
        no rounds).
    base_rtt_s
        The BaseRTT each flow's law held at the end of the run, s, shape ``(F,)`` (its
        propagation RTT where the engine keeps no BaseRTT).
    series
        The other recorded quantities, by name, on the samples ``time_s``: per flow
        ``(F, T)`` (``"rtt_s"``, ``"delta_pkts"``, ``"delivered_pkts"``, ``"lost_pkts"``,
        ``"base_rtt_s"``) or per run ``(T,)`` (``"utilization"``: the bottleneck's, per
        sample interval).
    stats
        Facts about the run itself: ``"wall_time_s"``, ``"data_packets"``, ``"events"``,
        ``"nfev"``... (whichever the engine has).
    link_queues_pkts
        The queue of every link the packet simulator models, by link name, packets, on the
        samples ``time_s`` (empty for the fluid engines; :meth:`link_queue_pkts`).
    """

    engine: str
    scenario: Scenario
    flow_names: Sequence[str]
    time_s: FloatArray
    window_pkts: FloatArray
    queue_pkts: FloatArray
    throughput_pps: FloatArray
    summary: Summary
    native: Any = field(repr=False)
    status: int = 0
    message: str = "ok"
    rounds: Sequence[RoundLog] = ()
    base_rtt_s: FloatArray | None = field(default=None, repr=False)
    series: Mapping[str, FloatArray] = field(default_factory=dict, repr=False)
    stats: Mapping[str, Any] = field(default_factory=dict, repr=False)
    link_queues_pkts: Mapping[str, FloatArray] = field(default_factory=dict, repr=False)

    def link_queue_pkts(self, link: str) -> FloatArray:
        """The queue of the link called ``link``, packets, on the samples ``time_s``, shape
        ``(T,)``: the bottleneck's is :attr:`queue_pkts`; the packet simulator has every
        link's (NaN where the queue is not recorded).

        Raises
        ------
        TypeError
            For a ``link`` that is not a string.
        ValueError
            For a link the engine does not model, naming the links it does.
        """
        if not isinstance(link, str):
            raise TypeError(
                f"link must be a str (a link's name), got {type(link).__name__} {link!r}"
            )
        if link in self.link_queues_pkts:
            return self.link_queues_pkts[link]
        if link == self.summary.bottleneck:
            return self.queue_pkts
        known = sorted({self.summary.bottleneck, *self.link_queues_pkts})
        raise ValueError(
            f"link must be a link the {self.engine} engine models ({', '.join(known)}), "
            f"got {link!r}"
        )

    def delivered_pkts(self) -> FloatArray:
        """Each flow's delivered packets since the run's start, on the samples ``time_s``,
        shape ``(F, T)``: the engine's own count where it records one (``series
        ["delivered_pkts"]``: the ODE's rates count lost packets too), else
        :attr:`throughput_pps` integrated over the sample intervals."""
        if "delivered_pkts" in self.series:
            return np.asarray(self.series["delivered_pkts"], dtype=np.float64)
        from .fairness.trains import delivered_pkts

        return delivered_pkts(self.time_s, self.throughput_pps)

    @property
    def success(self) -> bool:
        """True when the whole run was computed (``status == 0``)."""
        return self.status == 0

    def raise_for_status(self) -> Result:
        """Raise :class:`RuntimeError` with :attr:`message` if the run failed; else return self."""
        if self.status != 0:
            raise RuntimeError(f"{self.engine} run failed (status {self.status}): {self.message}")
        return self

    def __post_init__(self) -> None:
        T, F = self.time_s.shape[0], len(self.flow_names)
        shapes = {"window_pkts": (F, T), "queue_pkts": (T,), "throughput_pps": (F, T)}
        for name, shape in shapes.items():
            if (got := getattr(self, name).shape) != shape:
                raise ValueError(f"{name} must have shape {shape}, got {got}")

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"Result(engine={self.engine!r}, scenario={self.scenario.name!r}, "
            f"flows={len(self.flow_names)}, samples={self.time_s.shape[0]}, "
            f"utilization={s.utilization!r}, jain_index={s.jain_index!r})"
        )

    def to_frame(self) -> pd.DataFrame:
        """A tidy pandas frame: columns ``time_s``, ``flow``, ``quantity``, ``value``.

        Quantities: ``window_pkts`` and ``throughput_pps`` per flow (``flow`` = its name),
        ``queue_pkts`` of the bottleneck (``flow`` = ``""``).
        """
        import pandas as pd

        T, F = self.time_s.shape[0], len(self.flow_names)
        t, names = np.tile(self.time_s, F), np.repeat(np.asarray(self.flow_names, dtype=object), T)
        parts: list[tuple[Any, ...]] = [
            (t, names, q, getattr(self, q).reshape(-1)) for q in ("window_pkts", "throughput_pps")
        ]
        parts.append((self.time_s, "", "queue_pkts", self.queue_pkts))
        cols = ("time_s", "flow", "quantity", "value")
        return pd.concat(
            [pd.DataFrame(dict(zip(cols, p, strict=True))) for p in parts], ignore_index=True
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: engine, scenario name, flow names, the arrays as lists, the summary."""
        return {
            **fields_dict(self, ("engine", "status", "message")),
            "scenario": self.scenario.name,
            "flow_names": list(self.flow_names),
            **fields_dict(self, ("time_s", "window_pkts", "queue_pkts", "throughput_pps")),
            "summary": self.summary.to_dict(),
        }

    def plot(
        self,
        ax: Any = None,
        *,
        quantity: str = "window_pkts",
        flows: Sequence[int] | None = None,
        label: str | None = None,
        link: str | None = None,
        **style: Any,
    ) -> list[Any]:
        """Plot ``quantity`` (``"window_pkts"``, ``"throughput_pps"`` or ``"queue_pkts"``)
        against time; returns the artists.

        ``flows`` (which flows, default all) applies to the per-flow quantities, ``link``
        (default the bottleneck) to the queue, which is one line; ``label`` and ``**style``
        as in :func:`tcpfluid.plot.window`.
        """
        from . import plot

        draw: dict[str, Callable[..., list[Any]]]
        draw = dict(window_pkts=plot.window, throughput_pps=plot.throughput, queue_pkts=plot.queue)
        if quantity not in draw:
            raise ValueError(f"quantity must be one of {', '.join(draw)}; got {quantity!r}")
        if quantity == "queue_pkts":
            if flows is not None:
                raise TypeError(
                    f"flows={flows!r} does not apply to quantity='queue_pkts': the queue of a "
                    "link is one line for all flows (choose the link with link=...)"
                )
            return plot.queue(self, ax, link=link, label=label, **style)
        if link is not None:
            raise TypeError(
                f"link={link!r} applies only to quantity='queue_pkts', got quantity={quantity!r}"
            )
        return draw[quantity](self, ax, flows=flows, label=label, **style)
