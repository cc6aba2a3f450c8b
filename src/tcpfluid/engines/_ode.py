"""The continuous-time fluid models as engines: :class:`Hybrid` (every law deciding at its
own round boundaries) and :class:`Ode` (the classical right-hand sides), and the older
engine name ``"ode"``, which chooses between them as it always has (:func:`ode_by_name`)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._json import fields_dict
from .._validation import check_nonnegative
from ..fluid._hybrid_inputs import check_options as check_hybrid_options
from ..fluid._hybrid_inputs import small_pages
from ..fluid._ode_solve import classical_records
from ..fluid._ode_types import OWN_KEYS, check_solver, window_metrics
from ..fluid.hybrid import simulate_hybrid
from ..fluid.ode import choose_model, end_base_rtt, simulate_ode
from ..metrics import FlowRecord
from ..metrics.summary import traced_flow_record
from ..results import FlowSummaries
from ._base import Engine, sample_rows, summary_of, traced_log

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result
    from ..scenarios import Scenario

#: samples of the fluid models' series when no ``record_interval_s`` is given (the
#: ``n_points`` the ``"ode"`` engine always had)
DEFAULT_POINTS = 1001


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """The keyword defaults of an engine function (the one place they are written)."""
    return {
        n: p.default
        for n, p in inspect.signature(fn).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


_HYBRID = _defaults(simulate_hybrid)
_ODE = _defaults(simulate_ode)
_MEASURE_FROM_S = 0.0  # the whole run, as the round model reports


#: the flows x samples the hybrid model's default recording keeps at most (beyond 2,000
#: flows the default recording is coarser; 10,000 flows: 201 samples)
DEFAULT_FLOW_SAMPLES = 2_000_000
#: the fewest samples the default recording keeps
MIN_DEFAULT_POINTS = 11


def _points(interval_s: float | None, duration_s: float) -> int:
    return DEFAULT_POINTS if interval_s is None else max(2, round(duration_s / interval_s) + 1)


def default_points(flows: int) -> int:
    """The samples of the hybrid model's default recording for ``flows`` flows:
    :data:`DEFAULT_POINTS`, fewer when that many of every flow would exceed
    :data:`DEFAULT_FLOW_SAMPLES` (at least :data:`MIN_DEFAULT_POINTS`)."""
    fit = (DEFAULT_FLOW_SAMPLES // max(flows, 1)) // 10 * 10 + 1
    return max(MIN_DEFAULT_POINTS, min(DEFAULT_POINTS, fit))


@dataclass(frozen=True, kw_only=True)
class Hybrid(Engine):
    """The hybrid fluid model (:mod:`tcpfluid.fluid.hybrid`): queue and windows in
    continuous time, each flow's law deciding at its own round boundaries (every law).

    The engine called ``"ode"`` runs it unless a classical-only option is given
    (:func:`ode_by_name`).

    Attributes
    ----------
    rtt_sample, drop_share, whole_packets, dt_s
        :func:`tcpfluid.fluid.hybrid.simulate_hybrid`'s readings and time step.
    hold_drops, boundary_ack_next_round, red_losses, min_rto_s, timeout_loss_fraction
        :func:`tcpfluid.fluid.hybrid.simulate_hybrid`'s loss options.
    packets_per_ack
        Data packets acknowledged by one ACK (>= 1; 2: the ACK stream of delayed ACKs,
        without their timer): it sets the load on the ACK path, so an ACK-path bottleneck
        of μr ACKs/s clocks up to ``packets_per_ack`` × μr packets/s; the law's per-ACK
        growth is unchanged (the packet simulator's ``delayed_ack=True`` also slows slow
        start).
    measure_from_s
        Start of the time over which throughputs and utilization are averaged, s.
    record_interval_s, record
        The recording (:class:`Engine`; ``None``: ``duration / 1000``, or coarser for
        more than 2,000 flows: about :data:`DEFAULT_FLOW_SAMPLES` flow-samples in all);
        ``record`` picks among :attr:`recordable`. What is recorded never changes the
        summary.

    Examples
    --------
    >>> Hybrid(rtt_sample="departure").rtt_sample
    'departure'
    """

    name: ClassVar[str] = "hybrid"
    granularity: ClassVar[str] = "continuous"
    _check_options = staticmethod(check_hybrid_options)
    #: 20,000 Vegas flows on a 1 Gb/s link for 0.3 s: about 16 kB and 1.6 ms of work per
    #: flow and simulated second (on a loaded 2-core machine)
    max_flows: ClassVar[int | None] = 200_000
    flow_cost: ClassVar[tuple[float, float]] = (16e3, 1.6e-3)
    recordable: ClassVar[tuple[str, ...]] = (
        "queue_pkts", "throughput_pps", "rtt_s", "delta_pkts", "delivered_pkts", "lost_pkts",
        "base_rtt_s",
    )  # fmt: skip

    rtt_sample: str = _HYBRID["rtt_sample"]
    drop_share: str = _HYBRID["drop_share"]
    whole_packets: bool = _HYBRID["whole_packets"]
    dt_s: float | None = _HYBRID["dt_s"]
    hold_drops: bool = _HYBRID["hold_drops"]
    red_losses: str = _HYBRID["red_losses"]
    boundary_ack_next_round: bool = _HYBRID["boundary_ack_next_round"]
    min_rto_s: float = _HYBRID["min_rto_s"]
    timeout_loss_fraction: float | None = _HYBRID["timeout_loss_fraction"]
    measure_from_s: float = _MEASURE_FROM_S
    packets_per_ack: float = _HYBRID["packets_per_ack"]

    def _native(
        self, scenario: Scenario, progress: Callable[[float], None] | None, label: str
    ) -> Any:
        from ..fluid.ode import hybrid_scenario_ode

        return hybrid_scenario_ode(
            scenario,
            n_points=(
                default_points(len(scenario.flows))
                if self.record_interval_s is None
                else _points(self.record_interval_s, scenario.duration_s)
            ),
            progress=progress,
            engine=label,
            **self._options(),
        )

    def _result(self, sc: Scenario, native: Any, label: str) -> Result:
        with small_pages():  # flows x samples arrays written once
            return _result(sc, native, self, label, slice(None))


@dataclass(frozen=True, kw_only=True)
class Ode(Engine):
    """The classical continuous-time fluid model (:func:`tcpfluid.fluid.simulate_ode`):
    Vegas, Enhanced Vegas, FAST and Reno right-hand sides (Mo et al., Low, Misra-Gong-
    Towsley) integrated by :func:`scipy.integrate.solve_ivp`; no slow start, no rounds.

    Attributes
    ----------
    measure_from_s
        Start of the time over which throughputs and utilization are averaged, s.
    switch_width_pkts, droptail_width_pkts, method, rtol, atol, max_step_s, max_rhs_evals
        The integration's options (:func:`tcpfluid.fluid.simulate_ode`).
    record_interval_s, record
        The recording (:class:`Engine`; ``None``: ``duration / 1000``). The summary is
        judged on the same 1001 points of the run whatever is recorded.
    """

    name: ClassVar[str] = "ode"
    granularity: ClassVar[str] = "continuous"
    #: 2,000 Vegas flows on a 1 Gb/s link for 2 s: about 500 kB and 75 ms of work per flow
    #: and simulated second (on a loaded 2-core machine)
    max_flows: ClassVar[int | None] = 20_000
    flow_cost: ClassVar[tuple[float, float]] = (500e3, 75e-3)
    recordable: ClassVar[tuple[str, ...]] = Hybrid.recordable
    reports_progress: ClassVar[bool] = False

    measure_from_s: float = _MEASURE_FROM_S
    switch_width_pkts: float = _ODE["switch_width_pkts"]
    droptail_width_pkts: float = _ODE["droptail_width_pkts"]
    method: str = _ODE["method"]
    rtol: float = _ODE["rtol"]
    atol: float = _ODE["atol"]
    max_step_s: float = _ODE["max_step_s"]
    max_rhs_evals: int = _ODE["max_rhs_evals"]

    def __post_init__(self) -> None:
        super().__post_init__()
        check_nonnegative("measure_from_s", self.measure_from_s)
        check_solver(
            self.switch_width_pkts, self.droptail_width_pkts, self.method, self.rtol,
            self.atol, self.max_step_s, self.max_rhs_evals,
        )  # fmt: skip

    def _judged(self, sc: Scenario) -> int:
        """The summary is judged on DEFAULT_POINTS points; a finer recording refines that
        grid by this whole factor, so those points stay among the samples."""
        n = _points(self.record_interval_s, sc.duration_s)
        return max(1, math.ceil((n - 1) / (DEFAULT_POINTS - 1)))

    def _native(
        self, scenario: Scenario, progress: Callable[[float], None] | None, label: str
    ) -> Any:
        from ..fluid.ode import simulate_scenario_ode

        return simulate_scenario_ode(
            scenario,
            model="classical",
            n_points=(DEFAULT_POINTS - 1) * self._judged(scenario) + 1,
            **self._options(),
        )

    def _result(self, sc: Scenario, native: Any, label: str) -> Result:
        return _result(sc, native, self, label, slice(None, None, self._judged(sc)))


#: options only the classical model has (the ``"ode"`` name then runs it)
CLASSICAL_ONLY = tuple(n for n in Ode.option_names() if n not in Hybrid.option_names())
#: options only the hybrid model has
HYBRID_ONLY = tuple(n for n in Hybrid.option_names() if n not in Ode.option_names())


def ode_by_name(options: Mapping[str, Any]) -> Engine:
    """The engine the name ``"ode"`` runs with ``options``: ``model="auto"`` (default) the
    hybrid model unless a classical-only option is given, ``"hybrid"`` or ``"classical"``
    (:data:`tcpfluid.fluid.ode.ODE_MODELS`)."""
    opts = dict(options)
    model = opts.pop("model", "auto")
    classical = [k for k in CLASSICAL_ONLY if k in opts]
    hybrid = [k for k in HYBRID_ONLY if k in opts]
    return Hybrid(**opts) if choose_model(model, classical, hybrid) == "hybrid" else Ode(**opts)


#: the columns of a :class:`~tcpfluid.results.Summary`'s flows the hybrid model's native
#: summary shows (:func:`~tcpfluid.fluid._ode_types.window_metrics`)
_WINDOW = ("settled_window_pkts", "time_to_equilibrium_s", "convergence_times_s",
           "ss_exit_window_pkts", "ss_exit_time_s")  # fmt: skip


def _result(sc: Scenario, r: Any, opts: Engine, label: str, judged: slice) -> Result:
    """The :class:`~tcpfluid.results.Result` of an :class:`~tcpfluid.fluid.OdeResult`
    (``judged``: the samples the classical model's window metrics are judged on)."""
    t = np.asarray(r.t, dtype=np.float64)
    w = np.asarray(r.windows_pkts, dtype=np.float64)
    native = r.summary
    m_from = float(native.measure_from_s)
    span = float(native.measure_to_s) - m_from
    D = np.asarray(r.delivered_pkts, dtype=np.float64)
    hybrid = getattr(r, "hybrid", None)
    ft = sc.flow_table
    recs: list[FlowRecord] = []
    logs: tuple[Any, ...] = ()
    if hybrid is not None:  # laws deciding at round boundaries: each flow's round log
        logs = tuple(traced_log(fl) for fl in hybrid.flows)
        for i, name in enumerate(ft.names.all()):
            fl = hybrid.flows[i]
            # totals counted to the end of the run (not to the last recorded sample)
            events = int(np.count_nonzero(np.asarray(fl.loss_t_s) >= m_from))
            delivered = float(fl.delivered_pkts) - float(hybrid.end.delivered_from_pkts[i])
            recs.append(traced_flow_record(name, fl, delivered, events))
        # the BaseRTT at the end of the run (the overestimate is BaseRTT less the RTT)
        base_end = end_base_rtt(hybrid, r.flows, sc.duration_s)
    else:  # no slow start: settling judged on the fixed grid of the run
        # loss events of the classical model: the expected number of cuts (MGT)
        L = np.asarray(r.lost_pkts if r.loss_events is None else r.loss_events)
        recs = classical_records(
            list(ft.names.all()), ft.start_s, ft.stop_s, t[judged], w[:, judged],
            D[:, judged], L[:, judged], m_from,
        )  # fmt: skip
        # the last sample's, the propagation RTT where none
        base = np.asarray(r.base_rtt_s, dtype=np.float64)
        prop = np.array([f.rtt_s for f in r.flows], dtype=np.float64)
        base_end = np.where(base[:, -1] > 0, base[:, -1], prop) if base.shape[1] else prop
    extras = fields_dict(native, OWN_KEYS)
    extras["lost_pkts_per_flow"] = [float(x) for x in native.losses_pkts]
    summary = summary_of(
        label,
        sc,
        recs,
        carried_pkts=float(native.utilization) * float(r.capacity_pps) * span,
        capacity_pps=float(r.capacity_pps),
        measured_s=(m_from, float(native.measure_to_s)),
        extras=extras,
    )
    if hybrid is not None:  # the native summary's window metrics: the flows judged once
        fl = FlowSummaries.of(summary.flows)
        v = {k: getattr(fl, k) for k in _WINDOW}
        v["reached_equilibrium"] = np.isfinite(fl.settled_window_pkts)
        r = replace(r, summary=replace(native, **window_metrics(v)))
    # the hybrid model samples at the interval itself; the classical run's grid is thinned
    rows = sample_rows(t, opts.record_interval_s) if isinstance(opts, Ode) else slice(None)
    series: dict[str, Any] = {
        name: np.asarray(getattr(r, name), dtype=np.float64)[:, rows]
        for name in ("rtt_s", "delta_pkts", "delivered_pkts", "lost_pkts", "base_rtt_s")
        if opts.records(name)
    }
    return opts._wrap(
        label,
        sc,
        summary,
        r,
        t[rows],
        w[:, rows],
        np.asarray(r.queue_pkts, dtype=np.float64)[rows],
        delivery_rates(t[rows], D[:, rows]),
        status=int(r.status),
        message=str(r.message),
        rounds=logs,
        base_rtt_s=base_end,
        series=series,
        stats={"nfev": int(r.nfev)},
    )


def delivery_rates(t: Any, delivered: Any) -> Any:
    """Packets delivered per sample interval, per flow, packets/s: sample ``j`` covers
    ``(t[j-1], t[j]]``, the first from 0 (``t[-1] = 0``, nothing delivered before the run;
    0 for an interval of no length). The rate of the packets that arrive, not of those
    sent (some of which are lost): the summary's throughputs are these packets over the
    flow's active time, and ``tcpfluid.fairness`` adds them back up to ``delivered``."""
    t = np.asarray(t, dtype=np.float64)
    d = np.asarray(delivered, dtype=np.float64)
    out = np.empty_like(d)
    if t.size == 0:
        return out
    out[:, 0] = d[:, 0]
    np.subtract(d[:, 1:], d[:, :-1], out=out[:, 1:])
    gaps = np.diff(t, prepend=0.0)
    np.divide(out, gaps, out=out, where=gaps > 0)
    out[:, gaps <= 0] = 0.0
    return out
