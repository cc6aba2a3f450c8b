"""Sweep configuration: the engines and metrics, grids, point checks, :class:`Sweep`."""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

from ..engines import RTT_MODELS, _check_engine
from ..results import PUBLIC_KEYS
from ..scenarios import (
    LAW_PARAMETER_KEYS,
    SCENARIOS,
    build_scenario,
    law_params,
    scenario_parameters,
)
from ..scenarios.files import is_scenario_file, read_toml
from ..scenarios.mix import parse_mix, with_mix
from ..scenarios.topology import RATE_KEYS
from .grids import Grid, Point, grid

if TYPE_CHECKING:
    from .tables import SweepResult

#: scenario of points that do not name one
DEFAULT_SCENARIO = "qv-basic"


@dataclass(frozen=True)
class SweepEngine:
    """How a sweep evaluates its points on one engine (:func:`tcpfluid.simulate`'s engine of
    the same name): ``in_process`` (in chunks, no executor; the round model in batched
    calls), the ``rtt_models`` a point may name, ``reads_rtt_model`` (then in the cache key),
    whether points may run a ``mixes`` of laws, the ``view_engine`` the fluid views are
    checked for, the ``metrics`` it reports."""

    name: str
    metrics: tuple[str, ...]
    in_process: bool = False
    rtt_models: tuple[str, ...] = RTT_MODELS
    reads_rtt_model: bool = False
    mixes: bool = True
    view_engine: str | None = None

    def check_law(self, algorithm: str, i: int) -> None:
        """Refuse a law the engine cannot compute (point ``i``)."""

    def point(self, task: _Task) -> dict[str, Any]:
        """The point's summary dict from :func:`tcpfluid.simulate`."""
        from ..engines import _legacy_options, simulate

        options = {**_legacy_options(task.engine, task.rtt_model, task.seed), **dict(task.options)}
        sc = with_mix(build_scenario(task.scenario, **dict(task.params)), task.algorithm)
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

    def point(self, task: _Task) -> dict[str, Any]:
        from ..algorithms.registry import expand_aliases
        from ..analytic.predict import predict

        sc = build_scenario(task.scenario, **dict(task.params))
        law = expand_aliases(task.algorithm, law_params(sc.params))  # Enhanced Vegas: α = β = δ
        kw = {k: law[k] for k in ("alpha", "beta", "gamma") if k in law}
        try:
            view = sc.fluid_view("rounds")  # the round model's path
            if view.red is not None or not view.equal_rtt:  # one drop-tail path, one base RTT
                raise ValueError("a RED queue or flows of unequal base RTT")
        except ValueError as exc:
            raise ValueError(
                f"the closed forms model one drop-tail path with one base RTT; this point's "
                f"scenario does not reduce to one ({exc})"
            ) from None
        pr = predict(task.algorithm, view.path, rtt=task.rtt_model, **kw)  # type: ignore[arg-type]
        return {k: getattr(pr, a) for k, a in _PREDICTED.items()}


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


_ODE_EXTRA = ("mean_queue_pkts", "final_queue_pkts", "final_windows_pkts", "lost_pkts")
#: the engines a sweep can use, by name
SWEEP: dict[str, SweepEngine] = {
    e.name: e
    for e in (
        _ClosedFormSweep(
            "closed-form",
            tuple(_PREDICTED),
            in_process=True,
            rtt_models=("average", "last"),
            reads_rtt_model=True,
            mixes=False,
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
#: keys of a sweep configuration (``tcpfluid sweep CONFIG.toml``)
CONFIG_KEYS = (
    "engine", "scenario", "algorithm", "metrics", "rtt_model", "grid", "points", "options"
)  # fmt: skip
_PATH_COLUMNS = ("mu_pps", "d_s", "bdp_pkts")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(point: Mapping[str, Any]) -> str:
    """The point as compact JSON with sorted keys (the same text in every process)."""
    return _ENCODER.encode(dict(point))


def _point_seed(point: Mapping[str, Any]) -> int:
    """A seed in ``[0, 2**63)`` from the SHA-256 of the point (stable everywhere)."""
    digest = hashlib.sha256(_canonical(point).encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: ``points`` (from :func:`grid` or a list of dicts, each naming an
    ``algorithm``, optionally a ``scenario``, and that scenario's parameters) × ``engine``
    (:data:`SWEEP_ENGINES`) × ``metrics`` (:data:`ENGINE_METRICS`) and the ``rtt_model`` of
    ``"rounds"``/``"closed-form"``; ``options``: the engine's options for every point, as
    :func:`tcpfluid.simulate` takes them (``{"feedback_rounds": 0}``, ``{"delayed_ack":
    True}``); ValueError/TypeError naming a bad one (docs/sweeps.md).
    """

    points: Sequence[Point]
    engine: str = "rounds"
    metrics: tuple[str, ...] = ("ss_exit_window", "time_to_equilibrium_s")
    rtt_model: str = "average"
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        engine = _check_engine(self.engine, SWEEP_ENGINES, "engine")
        object.__setattr__(self, "options", _check_options(engine, self.options))
        if isinstance(self.metrics, str) or not isinstance(self.metrics, Sequence):
            raise TypeError(f"metrics must be a list of names, got {self.metrics!r}")
        metrics = tuple(self.metrics)
        if not metrics:
            raise ValueError(
                f"metrics: empty list; choose from {', '.join(ENGINE_METRICS[engine])}"
            )
        for m in metrics:
            if m not in ENGINE_METRICS[engine]:
                raise ValueError(
                    f"metrics: unknown metric {m!r} for engine {engine!r}; metrics: "
                    f"{', '.join(ENGINE_METRICS[engine])}"
                )
        if len(set(metrics)) != len(metrics):
            raise ValueError(f"metrics: a metric is listed twice in {list(metrics)}")
        object.__setattr__(self, "metrics", metrics)
        choices = SWEEP[engine].rtt_models
        if self.rtt_model not in choices:
            raise ValueError(
                f"rtt_model: must be one of {', '.join(choices)} for engine {engine!r}, "
                f"got {self.rtt_model!r}"
            )
        if isinstance(self.points, Mapping) or not isinstance(self.points, Sequence):
            raise TypeError(f"points must be a list of dicts, got {type(self.points).__name__}")
        if not self.points:
            raise ValueError("points: the grid is empty; give at least one point")
        if isinstance(self.points, Grid):  # checked per kind of point, kept lazy
            object.__setattr__(self, "points", _check_grid(self.points, engine))
            return
        checked: set[tuple[Any, ...]] = set()
        object.__setattr__(
            self,
            "points",
            tuple(_check_point(i, p, engine, checked) for i, p in enumerate(self.points)),
        )

    @classmethod
    def from_dict(cls, config: Mapping[str, Any]) -> Sweep:
        """A sweep from a configuration mapping (keys :data:`CONFIG_KEYS`, docs/sweeps.md)."""
        if not isinstance(config, Mapping):
            raise TypeError(f"a sweep config must be a table/mapping, got {config!r}")
        unknown = [k for k in config if k not in CONFIG_KEYS]
        if unknown:
            raise ValueError(
                f"unknown key {unknown[0]!r} in the sweep config; accepted keys: "
                f"{', '.join(CONFIG_KEYS)} (scenario parameters go under [grid])"
            )
        metrics = config.get("metrics")
        if metrics is None:
            raise ValueError(
                "metrics: missing; list the metrics to compute, e.g. "
                'metrics = ["ss_exit_window", "time_to_equilibrium_s"]'
            )
        if isinstance(metrics, str):
            metrics = [metrics]
        if not isinstance(metrics, list | tuple):
            raise TypeError(f"metrics must be a list of metric names, got {metrics!r}")
        if "grid" in config and "points" in config:
            raise ValueError("give either [grid] or [[points]], not both")
        axes = {k: config[k] for k in ("scenario", "algorithm") if k in config}
        for k, v in axes.items():
            if isinstance(v, list) and not v:
                raise ValueError(f"{k}: empty list; give at least one value")
        if "points" in config:
            pts = config["points"]
            if not isinstance(pts, list) or not all(isinstance(p, Mapping) for p in pts):
                raise TypeError("points must be a list of tables ([[points]])")
            if not pts:
                raise ValueError("points: the list is empty; give at least one point")
            for i, p in enumerate(pts):
                clash = [k for k in axes if k in p]
                if clash:
                    raise ValueError(
                        f"points[{i}] sets {clash[0]!r}, which is also given at the top level"
                    )
            base = grid(**axes) if axes else ({},)
            points: Sequence[Point] = [{**b, **dict(p)} for b in base for p in pts]
        else:
            g = config.get("grid", {})
            if not isinstance(g, Mapping):
                raise TypeError(f"grid must be a table of parameter lists, got {g!r}")
            for k in g:
                if k in ("scenario", "algorithm"):
                    raise ValueError(f"grid.{k}: give {k!r} at the top level, not in [grid]")
                if isinstance(g[k], list) and not g[k]:
                    raise ValueError(f"grid.{k}: empty list; give at least one value")
            allaxes = {**axes, **dict(g)}
            if not allaxes:
                raise ValueError("the sweep config has no algorithm and no [grid]: nothing to run")
            points = grid(**allaxes)
        return cls(
            points=points if isinstance(points, Grid) else tuple(points),
            engine=config.get("engine", "rounds"),
            metrics=tuple(metrics),
            rtt_model=config.get("rtt_model", "average"),
            options=config.get("options", {}),
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Sweep:
        """Read a TOML sweep configuration (see :meth:`from_dict`)."""
        p = FsPath(path)
        return cls.from_dict(_files_beside(read_toml(p, "config"), p.parent))

    @property
    def parameters(self) -> tuple[str, ...]:
        """Parameter names that appear in the points, in order of first appearance."""
        if isinstance(self.points, Grid):
            return tuple(k for k in self.points.axes if k not in ("scenario", "algorithm"))
        keys = (k for p in self.points for k in p if k not in ("scenario", "algorithm"))
        return tuple(dict.fromkeys(keys))

    def run(
        self,
        *,
        executor: cf.Executor | None = None,
        jobs: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        progress: bool | Callable[[float], None] = False,
    ) -> SweepResult:
        """Evaluate every point and return the table (docs/sweeps.md).

        Parameters
        ----------
        executor
            Where ``"packet"``/``"ode"`` points run (not shut down); default a process pool
            of ``jobs`` workers (``1``: in this process; default the CPUs).
        cache_dir
            Directory of the result cache; ``None``: no cache.
        progress
            ``True``: a progress bar on stderr; a callable: given the fraction done.
        """
        from .execution import run_sweep

        return run_sweep(self, executor, jobs, cache_dir, progress)

    def _task(self, i: int) -> _Task:
        p = self.points[i]
        params = tuple((k, v) for k, v in p.items() if k not in ("scenario", "algorithm"))
        seed = _point_seed(p)
        return _Task(
            i, self.engine, p["scenario"], p["algorithm"], params, seed, self.rtt_model,
            tuple(self.options.items()),
        )  # fmt: skip


def sweep(
    points: Sequence[Mapping[str, Any]],
    *,
    engine: str = "rounds",
    metrics: Sequence[str] = ("ss_exit_window", "time_to_equilibrium_s"),
    rtt_model: str = "average",
    executor: cf.Executor | None = None,
    jobs: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool | Callable[[float], None] = False,
    options: Mapping[str, Any] | None = None,
) -> SweepResult:
    """``Sweep(points, engine, metrics, rtt_model, options).run(...)`` (:class:`Sweep`)."""
    return Sweep(
        points=points,  # type: ignore[arg-type]
        engine=engine,
        metrics=metrics,  # type: ignore[arg-type]
        rtt_model=rtt_model,
        options={} if options is None else options,
    ).run(executor=executor, jobs=jobs, cache_dir=cache_dir, progress=progress)


#: engine options a sweep sets otherwise: each point's seed, the ``rtt_model`` key
_OWN_KEYS = {"seed": "each point's seed is its own", "rtt_model": "give it as rtt_model"}


def _check_options(engine: str, options: Any) -> dict[str, Any]:
    """``options`` checked for ``engine`` as :func:`tcpfluid.simulate` checks them (the
    closed forms take none), in a new dict sorted by name (the cache key's order)."""
    from ..engines import get_engine

    if not isinstance(options, Mapping):
        raise TypeError(f"options must be a table/mapping of engine options, got {options!r}")
    for name in options:
        if name in _OWN_KEYS:
            raise ValueError(f"options: {name!r} is not an option here; {_OWN_KEYS[name]}")
    if options and engine == "closed-form":
        raise ValueError(
            f"options: the closed forms take no engine options, got {', '.join(options)}"
        )
    if options:
        get_engine(engine, **options)  # names and values, as simulate() checks them
    return {k: options[k] for k in sorted(options)}


def _files_beside(data: dict[str, Any], folder: FsPath) -> dict[str, Any]:
    """``data`` with each relative scenario-file path taken from ``folder`` when it is there."""

    def fix(v: Any) -> Any:
        if isinstance(v, str) and v.endswith(".toml") and not os.path.isabs(v):
            beside = folder / v
            return str(beside) if beside.is_file() else v
        return v

    out = dict(data)
    if "scenario" in out:
        v = out["scenario"]
        out["scenario"] = [fix(x) for x in v] if isinstance(v, list) else fix(v)
    if isinstance(out.get("points"), list):
        out["points"] = [
            {**p, "scenario": fix(p["scenario"])} if isinstance(p, dict) and "scenario" in p else p
            for p in out["points"]
        ]
    return out


def _check_point(
    i: int, point: Any, engine: str, checked: set[tuple[Any, ...]] | None = None
) -> Point:
    """The point with its scenario filled in, names and value types checked (``checked``:
    the shapes already accepted, which is all the checks depend on)."""
    from ..algorithms.registry import ALGORITHMS, law_class

    if not isinstance(point, Mapping):
        raise TypeError(f"points[{i}] must be a dict of parameters, got {point!r}")
    p = dict(point)
    scen = p.setdefault("scenario", DEFAULT_SCENARIO)
    if not isinstance(scen, str) or not (scen in SCENARIOS or is_scenario_file(scen)):
        raise ValueError(
            f"scenario: unknown scenario {scen!r} (point {i}); scenarios: {', '.join(SCENARIOS)}"
            ", or a scenario file (FILE.toml)"
        )
    if "algorithm" not in p:
        raise ValueError(
            f"algorithm: point {i} names no algorithm; give one of {', '.join(ALGORITHMS)}"
        )
    alg = p["algorithm"]
    if not isinstance(alg, str) or alg not in ALGORITHMS:
        if isinstance(alg, str) and ":" in alg and SWEEP[engine].mixes:
            parse_mix(alg)  # a mix of laws (vegas:8,reno:2): each name checked
        else:
            raise ValueError(
                f"algorithm: unknown algorithm {alg!r} (point {i}); algorithms: "
                f"{', '.join(ALGORITHMS)}, or a mix such as vegas:8,reno:2"
            )
    shape = (engine, scen, alg, *((k, type(v)) for k, v in p.items()))
    if checked is not None and shape in checked:
        return p
    SWEEP[engine].check_law(alg, i)
    if alg in ALGORITHMS:
        try:
            law_class(alg)._check_parameter_names(
                k for k in LAW_PARAMETER_KEYS if p.get(k) is not None
            )
        except TypeError as exc:
            raise ValueError(f"points[{i}]: {exc}") from None
    valid = scenario_parameters(scen)
    for k, v in p.items():
        if not isinstance(k, str):
            raise TypeError(f"points[{i}]: parameter names must be strings, got {k!r}")
        if k in ("scenario", "algorithm"):
            continue
        if k not in valid:
            raise ValueError(
                f"unknown parameter {k!r} (point {i}) for scenario {scen!r}; parameters: "
                f"{', '.join(x for x in valid if x != 'algorithm')}"
            )
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            raise TypeError(
                f"{k}: value {v!r} (point {i}) must be a number or a string with a unit"
            )
        if k in RATE_KEYS and not isinstance(v, str):  # the scenarios' rule, before any work
            raise ValueError(
                f"{k}={v!r} (point {i}) has no unit; give a packet rate such as '6250pps' or "
                "a bit rate such as '50Mbps'"
            )
    if checked is not None:
        checked.add(shape)
    return p


def _check_grid(g: Grid, engine: str) -> Grid:
    """:func:`_check_point` for a grid: one point per combination of scenario, algorithm and
    value types."""
    g = g.with_axis("scenario", DEFAULT_SCENARIO)
    names = list(g.axes)
    strides = dict(zip(names, g._strides, strict=True))
    choices: list[list[int]] = []  # per axis: positions of one value of each kind
    for name in names:
        vals = g.axes[name]
        if name in ("scenario", "algorithm"):
            choices.append(list(range(len(vals))))
            continue
        first: dict[Any, int] = {}
        for pos, v in enumerate(vals):
            first.setdefault(type(v), pos)
        choices.append(list(first.values()))
    for combo in itertools.product(*choices):
        index = sum(pos * strides[name] for name, pos in zip(names, combo, strict=True))
        _check_point(index, g[index], engine)
    return g


@dataclass(frozen=True)
class _Task:
    """One point to evaluate (picklable: sent to worker processes or a Dask cluster)."""

    index: int
    engine: str
    scenario: str
    algorithm: str
    params: tuple[tuple[str, Any], ...]
    seed: int
    rtt_model: str
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: str
    message: str
    summary: dict[str, Any]

    @staticmethod
    def failed(exc: BaseException) -> _Outcome:
        return _Outcome("error", f"{type(exc).__name__}: {exc}", {})
