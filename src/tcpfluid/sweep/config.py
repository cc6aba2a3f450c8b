"""Sweep configuration: grids, point checks, seeds, :class:`Sweep` (the engines:
:mod:`tcpfluid.sweep._engines`)."""

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

from ..engines import _check_engine
from ..scenarios import LAW_PARAMETER_KEYS, SCENARIOS, scenario_parameters
from ..scenarios.files import is_scenario_file, read_toml
from ..scenarios.mix import parse_mix
from ..scenarios.topology import RATE_KEYS
from ._engines import ENGINE_METRICS, SWEEP, SWEEP_ENGINES, _Task
from .grids import Grid, Point, grid

if TYPE_CHECKING:
    from .tables import SweepResult

#: scenario of points that do not name one
DEFAULT_SCENARIO = "qv-basic"

#: keys of a sweep configuration (``tcpfluid sweep CONFIG.toml``)
CONFIG_KEYS = (
    "engine", "scenario", "algorithm", "metrics", "rtt_model", "grid", "points", "options"
)  # fmt: skip
_PATH_COLUMNS = ("mu_pps", "d_s", "bdp_pkts")
#: the engines' text columns (:meth:`SweepEngine.columns`), after ``reason``
_TEXT_COLUMNS = ("time_to_equilibrium_route",)


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(point: Mapping[str, Any]) -> str:
    """The point as compact JSON with sorted keys (the same text in every process)."""
    return _ENCODER.encode(dict(point))


def _scenario_files(points: Sequence[Point]) -> dict[str, str]:
    """Each scenario file the points name (a name that is not a registered scenario) and
    ``"file sha256:HEX"``, HEX the SHA-256 of its text with ``\r\n`` read as ``\n``: the
    file by what it says, wherever it is and however its path is written. A file that
    cannot be read keeps its path (its points fail)."""
    from .grids import Grid

    if isinstance(points, Grid):
        names: Any = points.axes.get("scenario", (DEFAULT_SCENARIO,))
    else:
        names = {p.get("scenario", DEFAULT_SCENARIO) for p in points}
    out: dict[str, str] = {}
    for name in names:
        if isinstance(name, str) and name not in SCENARIOS and name not in out:
            try:
                text = FsPath(name).read_bytes().replace(b"\r\n", b"\n")
            except OSError:
                continue
            out[name] = "file sha256:" + hashlib.sha256(text).hexdigest()
    return out


def _identity(point: Mapping[str, Any], files: Mapping[str, str]) -> Mapping[str, Any]:
    """The point as its seed and cache key read it: a scenario file by its content
    (:func:`_scenario_files`), a registered scenario by its name."""
    scen = point.get("scenario")
    return {**point, "scenario": files[scen]} if isinstance(scen, str) and scen in files else point


def _point_seed(point: Mapping[str, Any], files: Mapping[str, str] | None = None) -> int:
    """A seed in ``[0, 2**63)`` from the SHA-256 of the point (stable everywhere; a
    scenario file of ``files`` enters by its content, :func:`_identity`)."""
    key = _identity(point, files or {})
    digest = hashlib.sha256(_canonical(key).encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


@dataclass(frozen=True)
class Sweep:
    """A validated sweep: ``points`` (from :func:`grid` or a list of dicts, each naming an
    ``algorithm`` (a scenario file's point may leave it out: the file's own), optionally a
    ``scenario``, and that scenario's parameters) × ``engine``
    (:data:`SWEEP_ENGINES`) × ``metrics`` (:data:`ENGINE_METRICS`) and the ``rtt_model`` of
    ``"rounds"``/``"closed-form"`` (default ``"average"``; refused for the other engines,
    which have none); ``options``: the engine's options for every point, as
    :func:`tcpfluid.simulate` takes them (``{"feedback_rounds": 0}``, ``{"delayed_ack":
    True}``); ValueError/TypeError naming a bad one (docs/sweeps.md).
    """

    points: Sequence[Point]
    engine: str = "rounds"
    metrics: tuple[str, ...] = ("ss_exit_window", "time_to_equilibrium_s")
    rtt_model: str | None = None
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
        object.__setattr__(self, "rtt_model", _check_rtt_model(engine, self.rtt_model))
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
            rtt_model=config.get("rtt_model"),
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

    def _task(self, i: int, files: Mapping[str, str]) -> _Task:
        """Point ``i`` to evaluate (``files``: :func:`_scenario_files` of the run)."""
        p = self.points[i]
        params = tuple((k, v) for k, v in p.items() if k not in ("scenario", "algorithm"))
        seed = _point_seed(p, files)
        return _Task(
            i, self.engine, p["scenario"], p.get("algorithm"), params, seed, self.rtt_model,
            tuple(self.options.items()),
        )  # fmt: skip


def sweep(
    points: Sequence[Mapping[str, Any]],
    *,
    engine: str = "rounds",
    metrics: Sequence[str] = ("ss_exit_window", "time_to_equilibrium_s"),
    rtt_model: str | None = None,
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


def _check_rtt_model(engine: str, rtt_model: Any) -> str | None:
    """The RTT model of a sweep on ``engine``: ``rtt_model`` checked, ``"average"`` by
    default; ``None`` for an engine without one (it refuses one given)."""
    eng = SWEEP[engine]
    if not eng.reads_rtt_model:
        if rtt_model is not None:
            readers = " and ".join(e.name for e in SWEEP.values() if e.reads_rtt_model)
            raise ValueError(
                f"rtt_model: engine {engine!r} has no RTT model to choose (rtt_model applies "
                f"to the {readers} engines), got {rtt_model!r}; leave it out"
            )
        return None
    if rtt_model is None:
        return "average"
    if rtt_model not in eng.rtt_models:
        which = "one of " if len(eng.rtt_models) > 1 else ""
        raise ValueError(
            f"rtt_model: must be {which}{', '.join(eng.rtt_models)} for engine {engine!r}, "
            f"got {rtt_model!r}"
        )
    return str(rtt_model)


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
    alg = p.get("algorithm")
    if "algorithm" in p and (not isinstance(alg, str) or alg not in ALGORITHMS):
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
    # no algorithm: the laws of a scenario file run as written
    own = _own_algorithms(scen, p, i, engine) if "algorithm" not in p else ()
    for law in own or (str(alg),):
        SWEEP[engine].check_law(law, i)
        if law not in ALGORITHMS:
            continue
        try:
            law_class(law)._check_parameter_names(
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


def _own_algorithms(scen: str, point: Mapping[str, Any], i: int, engine: str) -> tuple[str, ...]:
    """The algorithms scenario file ``scen`` gives its flows, for point ``i``, which names
    none (the file runs as written); ValueError if ``scen`` is a registered scenario (its
    flows have none), a ``[[flow]]`` names none, or ``engine`` runs one law and the file
    has several."""
    from ..algorithms.registry import ALGORITHMS

    give = f"give algorithm = one of {', '.join(ALGORITHMS)}"
    if scen in SCENARIOS:
        raise ValueError(
            f"algorithm: point {i} names no algorithm, and scenario {scen!r} leaves its flows' "
            f"algorithm to the caller; {give}"
        )
    tables = read_toml(scen, "scenario file").get("flow")
    flows = [t for t in tables if isinstance(t, dict)] if isinstance(tables, list) else []
    named = any(k.startswith("flow.") and k.endswith(".algorithm") for k in point)
    for n, t in enumerate(flows, start=1):
        if not isinstance(t.get("algorithm"), str) and not named:
            raise ValueError(
                f"algorithm: point {i} names no algorithm, and [[flow]] {n} of {scen!r} has "
                f"none; {give}, or a mix such as vegas:8,reno:2 (or name one in the file)"
            )
    laws = tuple(dict.fromkeys(str(t["algorithm"]) for t in flows if t.get("algorithm")))
    if len(laws) > 1 and not SWEEP[engine].mixes:
        raise ValueError(
            f"algorithm: point {i} names no algorithm, and the flows of {scen!r} run "
            f"{', '.join(laws)}; engine {engine!r} computes one law per point: give algorithm"
        )
    return laws


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
