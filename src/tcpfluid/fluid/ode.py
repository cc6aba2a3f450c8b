"""Continuous-time fluid model of N window-based flows on one bottleneck.

The classical model (:func:`simulate_ode`: Mo et al. and Boutremans–Le Boudec for Vegas,
thesis ch. 2 §5; Misra–Gong–Towsley for Reno over RED) integrated with
:func:`scipy.integrate.solve_ivp`; :func:`simulate_scenario_ode` reduces a scenario
(:func:`ode_problem`) and runs it on this model or on the hybrid model
(:mod:`tcpfluid.fluid.hybrid`). State, right-hand sides, ramps and limits: docs/ode-model.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import check_choice, check_int
from ..algorithms._common import backlog
from ..algorithms.base import classical_ode_form
from ..algorithms.registry import law_class
from ..analytic import jain_index
from ..path import Path
from ..scenarios import Scenario
from ._hybrid_inputs import OPTION_RULES as HYBRID_OPTIONS
from ._hybrid_inputs import small_pages
from ._ode_solve import loss_totals, simulate_ode
from ._ode_types import ODE_LAWS, OdeFlow, OdeResult, OdeSummary, RedQueue, _time, window_metrics

__all__ = [
    "ODE_LAWS",
    "ODE_MODELS",
    "OdeFlow",
    "OdeProblem",
    "OdeResult",
    "OdeSummary",
    "RedQueue",
    "ode_problem",
    "simulate_ode",
    "simulate_scenario_ode",
]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class OdeProblem:
    """A :class:`tcpfluid.scenarios.Scenario` reduced to what the ODE model integrates.

    One :class:`OdeFlow` per flow (its own propagation RTT, the Quick Vegas paper eq. 5),
    the shared bottleneck with its ACK-path bottleneck if any, :class:`RedQueue` for a RED
    bottleneck, the CBR sources crossing it as ``(rate_pps, start_s, stop_s)``, the
    duration (s)."""

    flows: tuple[OdeFlow, ...]
    path: Path
    red: RedQueue | None
    cross_traffic: tuple[tuple[float, float, float], ...]
    duration_s: float


def _ode_law_params(algorithm: str, params: dict[str, Any]) -> dict[str, float]:
    """Map registry parameters (``tcpfluid.algorithms``) to :class:`OdeFlow` fields: every
    parameter the law's classical form reads (:attr:`OdeForm.places`), its default where
    ``params`` has none (α = β given for Enhanced Vegas are its δ:
    :meth:`ControlLaw.fold_aliases`); ``{}`` for a law without a classical form. The
    parameters it has no place for: :func:`check_classical_params`."""
    cls = law_class(algorithm)
    law = cls(**cls.fold_aliases(params))  # validates names and values, supplies the defaults
    form = classical_ode_form(cls)
    if form is None:
        return {}
    lp = cls.expand_aliases(law.params())  # Enhanced Vegas's δ as α = β
    return {field: float(lp[name]) for name, field in form.places}


def check_classical_params(flows: Sequence[Any], ack_path: bool) -> None:
    """Refuse, naming the flow, its algorithm and the parameter, a law parameter of
    ``flows`` (a scenario's) the classical model cannot honour: a value of a choice other
    than those its law's classical form runs as its rule (:attr:`OdeForm.honours`, on a
    path whose ACK-path bottleneck drops ACKs when ``ack_path``: Reno's ``recovery``), or
    one the form has no place for (:attr:`OdeForm.places`: Vegas's slow-start γ, FAST's
    ``lost_retransmit``)."""
    for fl in flows:
        cls, params = law_class(fl.algorithm), dict(fl.params)
        form = classical_ode_form(cls)
        if form is None:
            continue  # simulate_ode refuses the law itself
        declared = {p.name: p for p in cls.parameters}
        for rule in form.honours:
            value = params.pop(rule.parameter, declared[rule.parameter].default)
            if not rule.honoured(value, ack_path):
                # a value honoured on other paths: say which path refuses it
                where = " behind an ACK-path bottleneck" if rule.honoured(value, False) else ""
                raise ValueError(
                    f"flow {fl.name!r} ({fl.algorithm}): {rule.parameter}={value!r}{where} "
                    f"needs model='hybrid' ({rule.rule}: it honours {rule.accepted})"
                )
        placed = [name for name, _ in form.places]
        for name, value in cls.fold_aliases(params).items():
            if set(declared[name].sets or (name,)) <= set(placed):
                continue
            raise ValueError(
                f"flow {fl.name!r} ({fl.algorithm}): {name}={value!r} "
                f"({declared[name].description}) has no place in the classical model, which "
                f"reads {', '.join(placed) or 'no parameter'} of {fl.algorithm}: leave it "
                "out, or run the hybrid model (model='hybrid'), which takes every parameter "
                "of the law"
            )


def ode_problem(scenario: Any) -> OdeProblem:
    """Reduce a scenario (:mod:`tcpfluid.scenarios`) to an :class:`OdeProblem`.

    The reduction every fluid engine uses: :func:`tcpfluid.scenarios.reduction.fluid_view`.

    Raises
    ------
    ValueError
        If a flow has no algorithm, or the scenario has a feature the ODE engine cannot
        model (:func:`tcpfluid.scenarios.check_engine`).
    """
    return _reduced(scenario)[1]


def _reduced(scenario: Any, engine: str = "ode") -> tuple[Any, OdeProblem]:
    """The fluid view of ``scenario`` (checked for ``engine``, the name a refusal gives) and
    its :class:`OdeProblem`: read from the flows' columns, one law and one (frozen) flow
    object per distinct description."""
    from ..scenarios.reduction import fluid_view

    view: Any = fluid_view(scenario, engine=engine)
    table = view.flows.table
    table.check_algorithms(view.scenario.name)
    laws = [  # each distinct law's key and ODE form
        (tuple(sorted(p.items())), _ode_law_params(a, dict(p)) if a in ODE_LAWS else {})
        for a, p in table.laws
    ]
    flows = []
    made: dict[Any, OdeFlow] = {}
    for k, d, start, stop in zip(
        table.law.tolist(), view.base_rtt_s, view.start_s, view.stop_s, strict=True
    ):
        key = (k, float(d), float(start), float(stop))
        if key not in made:
            law_params, classical = laws[k]
            made[key] = OdeFlow(
                table.laws[k][0], d, start_s=start, stop_s=stop, law_params=law_params, **classical
            )
        flows.append(made[key])
    return view, OdeProblem(
        flows=tuple(flows),
        path=view.path,
        red=None if view.red is None else RedQueue.from_parameters(view.red),
        cross_traffic=tuple((c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic),
        duration_s=float(view.duration_s),
    )


#: the models :func:`simulate_scenario_ode` can run
ODE_MODELS = ("auto", "hybrid", "classical")


def simulate_scenario_ode(
    scenario: Any,
    *,
    model: str = "auto",
    progress: Any = None,
    rtt_sample: str | None = None,
    drop_share: str | None = None,
    whole_packets: bool | None = None,
    dt_s: float | None = None,
    boundary_ack_next_round: bool | None = None,
    hold_drops: bool | None = None,
    red_losses: str | None = None,
    min_rto_s: float | None = None,
    timeout_loss_fraction: float | None = None,
    **options: Any,
) -> OdeResult:
    """Run the continuous-time fluid model on a scenario (the ``ode`` engine).

    ``model="hybrid"`` runs :mod:`tcpfluid.fluid.hybrid` (every algorithm), ``"classical"``
    :func:`simulate_ode`'s right-hand sides (:data:`ODE_LAWS`), ``"auto"`` the hybrid model
    unless a classical-only option (``tcpfluid.engines.Ode``'s) is given. ``options``:
    ``n_points``, ``measure_from_s`` (default 0, the whole run) and the classical-only
    options; the keywords named here are :func:`~tcpfluid.fluid.hybrid.simulate_hybrid`'s
    (``None``: its default).

    Raises
    ------
    ValueError
        A feature no model here can represent, a law without a classical form on a
        scenario only the classical model can run, or (classical model) a law parameter
        it cannot honour (:func:`check_classical_params`).
    RuntimeError
        If the classical integration fails (``OdeResult.raise_for_status``).
    """
    check_choice("model", model, ODE_MODELS)
    options.setdefault("measure_from_s", 0.0)
    for bad in ("t_end_s", "red", "cross_traffic"):
        if bad in options:
            raise TypeError(
                f"simulate_scenario_ode() takes {bad!r} from the scenario, not as an option"
            )
    from ..engines._ode import CLASSICAL_ONLY

    known = ("n_points", "measure_from_s", *CLASSICAL_ONLY)
    if unknown := sorted(set(options) - set(known)):
        named = sorted({*known, *HYBRID_OPTIONS, "model"})
        raise TypeError(
            f"simulate_scenario_ode() got the unknown option {unknown[0]!r}; options: "
            f"{', '.join(named)}"
        )
    readings = {k: v for k, v in locals().items() if k in HYBRID_OPTIONS and v is not None}
    readings.pop("progress", None)
    view, prob = _reduced(scenario)  # once: the hybrid model runs it too

    classical = [k for k in CLASSICAL_ONLY if k in options]
    if choose_model(model, classical, list(readings)) == "hybrid":
        return _hybrid_as_ode(scenario, view, prob, progress=progress, readings=readings, **options)
    check_classical_params(scenario.flows, prob.path.ack_path_limits)
    return simulate_ode(
        prob.flows,
        prob.path,
        t_end_s=prob.duration_s,
        red=prob.red,
        cross_traffic=prob.cross_traffic,
        **options,
    ).raise_for_status()


def choose_model(model: str, classical: Sequence[str], hybrid: Sequence[str]) -> str:
    """The model ``model`` (:data:`ODE_MODELS`) runs, given the classical-only options
    ``classical`` and the hybrid-only options ``hybrid`` (their names): ``"auto"`` the
    classical model when a classical-only option is given, else the hybrid one; an option
    of the other model is a TypeError."""
    model = check_choice("model", model, ODE_MODELS)
    if model == "auto":
        model = "classical" if classical else "hybrid"
    if model == "hybrid" and classical:
        raise TypeError(
            f"option {classical[0]!r} applies to the classical model only (model='classical')"
        )
    if model == "classical" and hybrid:
        raise TypeError(f"option {hybrid[0]!r} applies to the hybrid model only (model='hybrid')")
    return model


def _hybrid_as_ode(
    scenario: Any,
    view: Any,
    prob: OdeProblem,
    *,
    n_points: int = 1001,
    measure_from_s: Any = 0.0,
    progress: Any = None,
    readings: dict[str, Any] | None = None,
    window: bool = True,
) -> OdeResult:
    """Run the hybrid model (``readings``: its options) and present it as an
    :class:`OdeResult` (``window``: False leaves its summary's window metrics to the
    caller, :func:`hybrid_scenario_ode`)."""
    from .hybrid import _simulate_view

    n_points = check_int("n_points", n_points, minimum=2)
    m_from = _time("measure_from_s", measure_from_s)  # < the duration: simulate_hybrid's rule
    h = _simulate_view(
        scenario,
        view,
        record_every_s=prob.duration_s / (n_points - 1),
        progress=progress,
        measure_from_s=m_from,
        **(readings or {}),
    )
    with small_pages():  # flows x samples arrays written once: huge pages bring nothing
        return _present_hybrid(h, prob, m_from, window)


def hybrid_scenario_ode(
    scenario: Scenario, *, n_points: int, measure_from_s: float, progress: Any = None,
    engine: str = "hybrid", **readings: Any,
) -> OdeResult:  # fmt: skip
    """:func:`simulate_scenario_ode`'s hybrid run of ``scenario`` (``readings``: its
    options, ``None`` for the default), its :class:`OdeSummary` without the window metrics:
    the hybrid engine judges the flows once, for its :class:`~tcpfluid.results.Summary`,
    and fills them from it (``dataclasses.replace``); ``engine``: the name a refusal gives
    (``"ode"`` runs this model too)."""
    given = {k: v for k, v in readings.items() if v is not None}
    return _hybrid_as_ode(
        scenario, *_reduced(scenario, engine), n_points=n_points, measure_from_s=measure_from_s,
        progress=progress, readings=given, window=False,
    )  # fmt: skip


def _present_hybrid(h: Any, prob: OdeProblem, m_from: float, window: bool = True) -> OdeResult:
    """The :class:`OdeResult` of the hybrid model's result ``h`` (the problem ``prob``,
    measured from ``m_from``; ``window``: with the window metrics of its summary)."""
    t_end = prob.duration_s
    t = h.time_s
    start = np.array([f.start_s for f in prob.flows])
    stop = np.array([f.stop_s for f in prob.flows])
    active = (t[None, :] >= start[:, None]) & (t[None, :] < stop[:, None])
    inactive = Inactive(t, start, stop)
    # the presented series, each made once and masked in place (flows x samples arrays:
    # with many flows, every temporary is a large allocation)
    w = inactive.zero(h.window_pkts.copy(order="K"))
    rtt = h.rtt_s.copy(order="K")  # the flow's propagation RTT before its first sample
    np.copyto(rtt, np.array([f.rtt_s for f in prob.flows])[:, None], where=~(rtt > 0))
    base = h.base_rtt_s.copy(order="K")  # its RTT before its law's first BaseRTT
    np.copyto(base, rtt, where=~(base > 0))
    rates = w / rtt  # 0 where inactive (w is)
    delta = inactive.zero(backlog(w, base, rtt))
    inactive.zero(rtt)
    inactive.zero(base)
    p = prob.red.probability(h.avg_queue_pkts) if prob.red is not None else np.zeros(t.size)

    # the totals from the state at the end of the run and at the start of the measured
    # time, not from the recorded samples (what is recorded never changes the summary)
    end = h.end
    delivered, losses = loss_totals(
        end.delivered_from_pkts, end.delivered_pkts, end.lost_from_pkts, end.lost_pkts
    )
    span = t_end - m_from
    on_at_end = stop > t_end  # a flow that stopped has no window (the engine's rule)
    base_last = end_base_rtt(h, prob.flows, t_end)
    on = np.array([max(0.0, min(f.stop_s, t_end) - max(f.start_s, m_from)) for f in prob.flows])
    D = end.delivered_pkts - end.delivered_from_pkts
    thr = np.where(on > 0, D / np.where(on > 0, on, 1.0), 0.0)
    present = on > 0
    # (the bottleneck carries every packet the CBR sources send over the measured time)
    cross = sum(r * max(0.0, min(t_end, hi) - max(m_from, lo)) for r, lo, hi in prob.cross_traffic)
    util = h.utilization if m_from == 0.0 else (delivered + cross) / (h.capacity_pps * span)
    summary = OdeSummary(
        measure_from_s=m_from,
        measure_to_s=t_end,
        throughput_pps=tuple(float(v) for v in thr),
        # undefined where no flow present delivered in the measured time
        jain_index=float(jain_index(thr[present])) if thr[present].sum() > 0 else float("nan"),
        utilization=float(util),
        mean_queue_pkts=(end.queue_area_pkt_s - end.queue_area_from_pkt_s) / span,
        final_queue_pkts=end.queue_pkts,
        final_windows_pkts=tuple(float(v) for v in np.where(on_at_end, end.windows_pkts, 0.0)),
        base_rtt_overestimate_s=tuple(
            float(max(b - f.rtt_s, 0.0)) for b, f in zip(base_last, prob.flows, strict=True)
        ),
        change_times_s=h.change_times_s,
        **losses,
        **(window_metrics(vars(h.summary)) if window else {}),
        model="hybrid",
    )
    return OdeResult(
        t=t,
        windows_pkts=w,
        rates_pps=rates,
        rtt_s=rtt,
        base_rtt_s=base,
        delta_pkts=delta,
        delivered_pkts=h.delivered_pkts,
        lost_pkts=h.lost_pkts,
        active=active,
        queue_pkts=h.queue_pkts,
        avg_queue_pkts=h.avg_queue_pkts,
        reverse_queue_pkts=(
            np.zeros(t.size) if h.reverse_queue_pkts is None else h.reverse_queue_pkts
        ),
        loss_probability=p,
        status=0,
        message="ok (hybrid model)",
        nfev=0,
        capacity_pps=h.capacity_pps,
        flows=prob.flows,
        summary=summary,
        hybrid=h,
        loss_events=_losses_by(t, [f.loss_t_s for f in h.flows]),
    )


def end_base_rtt(h: Any, flows: Sequence[OdeFlow], t_end: float) -> FloatArray:
    """The BaseRTT each flow's law holds at the end of the hybrid run ``h``, s: its last
    RTT before its law's first BaseRTT, its propagation RTT before any sample and once
    it has stopped."""
    end = h.end
    d = np.array([f.rtt_s for f in flows])
    last_rtt = np.where(end.rtt_s > 0, end.rtt_s, d)
    on = np.array([f.stop_s for f in flows]) > t_end
    return np.asarray(np.where(on, np.where(end.base_rtt_s > 0, end.base_rtt_s, last_rtt), d))


class Inactive:
    """Where flows are inactive on the samples ``t`` (increasing): before ``start`` and
    from ``stop`` on, a run of samples at each end of a flow's row."""

    def __init__(self, t: FloatArray, start: FloatArray, stop: FloatArray) -> None:
        self.first = np.searchsorted(t, start, side="left")  # first sample t >= start
        self.end = np.searchsorted(t, stop, side="left")  # first sample t >= stop
        self.rows = np.flatnonzero((self.first > 0) | (self.end < t.size)).tolist()

    def zero(self, a: FloatArray) -> FloatArray:
        """``a`` (flows x samples) with 0 where the flow is inactive, in place."""
        for j in self.rows:
            a[j, : self.first[j]] = 0.0
            a[j, self.end[j] :] = 0.0
        return a


def _losses_by(t: FloatArray, loss_t_s: Sequence[Any]) -> FloatArray:
    """Loss events of each flow at or before each time of ``t`` (increasing), shape
    ``(flows, t.size)``: every flow's events counted at once (a loss at time ``x`` counts
    from the first sample ``t >= x`` on)."""
    F = len(loss_t_s)
    sizes = np.array([np.size(x) for x in loss_t_s], dtype=np.intp)
    counts = np.zeros((F, t.size), dtype=np.float64)
    if sizes.sum():
        when = np.concatenate([np.asarray(x, dtype=np.float64).ravel() for x in loss_t_s])
        col = np.searchsorted(t, when)
        row = np.repeat(np.arange(F), sizes)
        seen = col < t.size  # a loss after the last sample counts at none
        np.add.at(counts, (row[seen], col[seen]), 1.0)
    return np.cumsum(counts, axis=1, out=counts)
