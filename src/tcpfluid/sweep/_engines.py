"""The engines of a sweep: how each evaluates a point (:class:`SweepEngine`, :data:`SWEEP`),
and the picklable task and outcome of one point."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..engines import RTT_MODELS
from ..results import PUBLIC_KEYS
from ..scenarios import build_scenario
from ..scenarios.mix import with_mix


@dataclass(frozen=True)
class SweepEngine:
    """How a sweep evaluates its points on one engine (:func:`tcpfluid.simulate`'s engine of
    the same name): ``in_process`` (in chunks, no executor; the round model in batched
    calls), the ``rtt_models`` a point may name, ``reads_rtt_model`` (then in the cache key;
    the other engines refuse an ``rtt_model``), whether points may run a ``mixes`` of laws,
    the ``view_engine`` the fluid views are checked for, the ``metrics`` it reports, its
    ``revision`` (raised when its summaries gain a field; in the cache key when > 0)."""

    name: str
    metrics: tuple[str, ...]
    in_process: bool = False
    rtt_models: tuple[str, ...] = RTT_MODELS
    reads_rtt_model: bool = False
    mixes: bool = True
    view_engine: str | None = None
    revision: int = 0

    def check_law(self, algorithm: str, i: int) -> None:
        """Refuse a law the engine cannot compute (point ``i``)."""

    def columns(self, metrics: Sequence[str]) -> tuple[str, ...]:
        """Text columns the engine reports beside ``metrics`` (keys of its summaries)."""
        return ()

    def point(self, task: _Task) -> dict[str, Any]:
        """The point's summary dict from :func:`tcpfluid.simulate`."""
        from ..engines import _legacy_options, simulate

        # an engine without an RTT model (task.rtt_model None) is given none
        base = _legacy_options(task.engine, task.rtt_model or RTT_MODELS[0], task.seed)
        options = {**base, **dict(task.options)}
        sc = build_scenario(task.scenario, **dict(task.params))
        if task.algorithm is not None:  # None: a scenario file's own algorithms
            sc = with_mix(sc, task.algorithm)
        summary: dict[str, Any] = simulate(sc, task.engine, **options).summary.to_dict()
        return summary


class _ClosedFormSweep(SweepEngine):
    """The closed forms of :func:`tcpfluid.analytic.predict`."""

    def check_law(self, algorithm: str, i: int) -> None:
        from ..analytic.predict import PREDICT_ALGORITHMS

        if algorithm not in PREDICT_ALGORITHMS:
            raise ValueError(
                f"algorithm: {algorithm!r} has no closed form (point {i}); engine "
                f"'{self.name}' covers {', '.join(PREDICT_ALGORITHMS)}"
            )

    def columns(self, metrics: Sequence[str]) -> tuple[str, ...]:
        """``time_to_equilibrium_route`` beside a settling metric: where it came from."""
        return ("time_to_equilibrium_route",) if set(metrics) & set(_SETTLING) else ()

    def point(self, task: _Task) -> dict[str, Any]:
        """The closed forms of the point's first flow as ``tcpfluid predict SCENARIO`` gives
        them (:func:`~tcpfluid.analytic._scenario_flows.flow_prediction`: its group of flows started
        together sharing the bottleneck, the packet sender's slow start; the settling of
        Quick Vegas and TCP-Ho from the round map), with the settling's route and, under
        ``"reasons"``, why each empty metric is empty."""
        from ..analytic._scenario_flows import flow_prediction, flow_values
        from ..analytic.predict import _why_none
        from ..scenarios.mix import mix_label

        sc = build_scenario(task.scenario, **dict(task.params))
        if task.algorithm is not None:  # None: a scenario file's own algorithm
            sc = with_mix(sc, task.algorithm)
        laws = sc.flow_table.laws
        alg = laws[0][0]
        if len(laws) != 1 or alg is None:
            raise ValueError(
                f"the closed forms model one law with one set of parameters; this point's "
                f"flows run {mix_label(sc)} with {len(laws)} sets of parameters"
            )
        self.check_law(alg, task.index)
        try:
            view = sc.fluid_view("rounds")  # the round model's path
            if view.red is not None or not view.equal_rtt:  # one drop-tail path, one base RTT
                raise ValueError("a RED queue or flows of unequal base RTT")
        except ValueError as exc:
            raise ValueError(
                f"the closed forms model one drop-tail path with one base RTT; this point's "
                f"scenario does not reduce to one ({exc})"
            ) from None
        first = sc.flows[0]
        got = flow_prediction(first, sc.flows, view, round_map=True)
        if isinstance(got, str):
            raise ValueError(f"no closed form applies to the first flow ({first.name}): {got}")
        pr = got[0]
        out: dict[str, Any] = {k: getattr(pr, a) for k, a in _PREDICTED.items()}
        reasons = {k: _why_none(pr, a) for k, a in _PREDICTED.items() if out[k] is None}
        for k, (v, why, none) in flow_values(sc, first, pr).items():  # as predict SCENARIO
            out[k] = v
            if v is None:  # "none": the closed forms give none (TCP-Ho's window)
                reasons.setdefault(k, f"no closed form: {why}" if none else why)
        out["time_to_equilibrium_route"] = pr.time_to_equilibrium_route
        out["reasons"] = reasons
        return out


#: the closed forms' metrics: the :class:`~tcpfluid.analytic.Prediction` field of each
#: (``time_to_target_s``: the first reach of the target; ``time_to_equilibrium_s``: settling)
_PREDICTED = {
    "ss_exit_window": "ss_exit_window_pkts",
    "ss_exit_time_s": "ss_exit_time_s",
    "ss_exit_round": "ss_exit_round",
    "settled_window": "equilibrium_window_pkts",
    "time_to_equilibrium_s": "time_to_equilibrium_s",
    "critical_window": "critical_window_pkts",
    "rounds_to_equilibrium": "rounds_to_equilibrium",
    "time_to_target_s": "time_to_target_s",
    "rounds_to_target": "rounds_to_target",
}
#: the settling metrics (their route: a closed form or the round map)
_SETTLING = ("time_to_equilibrium_s", "rounds_to_equilibrium")


_ODE_EXTRA = ("mean_queue_pkts", "final_queue_pkts", "final_windows_pkts", "lost_pkts")
#: the engines a sweep can use, by name
SWEEP: dict[str, SweepEngine] = {
    e.name: e
    for e in (
        _ClosedFormSweep(
            "closed-form",
            tuple(_PREDICTED),
            in_process=True,
            # a scenario's flows slow-start as the packet sender does, reading the round's
            # average RTT (predict's rule="sender")
            rtt_models=("average",),
            reads_rtt_model=True,
            mixes=False,
            revision=2,  # 1: the settling's route and the reasons; 2: predict SCENARIO's forms
        ),
        SweepEngine(
            "rounds",
            (*PUBLIC_KEYS, "ss_exit_round", "losses"),
            in_process=True,
            reads_rtt_model=True,
            view_engine="rounds",
        ),
        SweepEngine("ode", (*PUBLIC_KEYS, "ss_exit_round", "losses", *_ODE_EXTRA, "loss_fraction")),
        SweepEngine("packet", (*PUBLIC_KEYS, "losses", "retransmissions", "timeouts", "conserved")),
    )
}
#: engines a sweep can use
SWEEP_ENGINES: tuple[str, ...] = tuple(SWEEP)
#: metrics each engine reports (the keys of its summary)
ENGINE_METRICS: dict[str, tuple[str, ...]] = {
    k: SWEEP[k].metrics for k in ("closed-form", "rounds", "packet", "ode")
}


@dataclass(frozen=True)
class _Task:
    """One point to evaluate (picklable: sent to worker processes or a Dask cluster)."""

    index: int
    engine: str
    scenario: str
    algorithm: str | None  # None: a scenario file's own algorithms
    params: tuple[tuple[str, Any], ...]
    seed: int
    rtt_model: str | None  # None: the engine has none
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: str
    message: str
    summary: dict[str, Any]

    @staticmethod
    def failed(exc: BaseException) -> _Outcome:
        return _Outcome("error", f"{type(exc).__name__}: {exc}", {})
