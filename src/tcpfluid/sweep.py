"""Parameter sweeps: a grid of points × an engine × metrics → a tidy table.

A **point** is a dict: the scenario (``"scenario"``, default ``"qv-basic"``), the control
law (``"algorithm"``) and any parameters of that scenario (``bandwidth``, ``rtt``,
``buffer``, ``flows``, ``duration``, ``cbr``, ``alpha``, ``beta``, ``gamma``...; see
:data:`tcpfluid.scenarios.SCENARIOS`), values as numbers or strings with units. A sweep
evaluates every point with one engine and returns a :class:`SweepResult` whose ``table``
has one row per point: ``point`` (its index), the point's parameters as given, the
bottleneck path it reduces to (``mu_pps``, ``d_s``, ``bdp_pkts``; document 000 eq 5), the
requested metrics, ``status`` (``"ok"``/``"error"``), ``message`` and ``seed``.

Engines (:data:`SWEEP_ENGINES`)
-------------------------------
``"closed-form"``
    :func:`tcpfluid.analytic.predict` on the point's bottleneck path (document 000 eqs 6,
    9-12, document 004 eq 5); evaluated in process (microseconds per point).
``"rounds"``
    The round-based fluid model (document 000 §4). Points are grouped by what one
    :func:`~tcpfluid.fluid.simulate_rounds` call cannot vary (algorithm, the set of law
    parameters given, number of flows, flow start/stop times, duration, CBR timing);
    each group runs as **one batched call** (in chunks bounded by memory, points sorted by
    base RTT), path parameters (bandwidth, RTT, buffer, ACK path, CBR rate) and law
    parameters varying along the batch. If a batched call raises, its points are re-run
    one by one so that only the offending points are marked failed.
``"packet"`` and ``"ode"``
    One run per point, fanned out over any :class:`concurrent.futures.Executor`: a local
    process pool by default (``jobs=``), or a Dask cluster
    (``distributed.Client(address).get_executor()``; ``pip install tcpfluid[dask]``).

Metrics (:data:`ENGINE_METRICS`) are the public summary keys of ``tcpfluid simulate``
(``ss_exit_window``, ``time_to_equilibrium_s``, ...); ``None`` ("did not happen") becomes
NaN. A metric with one value per flow or per bandwidth change (``throughput_pps``,
``losses``, ``convergence_times_s``) becomes columns ``name[0]``, ``name[1]``, ...

Determinism, caching, failures
------------------------------
Each point gets a ``seed`` from a SHA-256 hash of the point (stable across runs, processes
and machines), handed to engines that draw random numbers. With ``cache_dir=`` every
computed point is appended to a JSON-lines file in that directory, keyed by a hash of
(point, engine, engine options, tcpfluid version); a re-run (after an interruption, or with
more points) takes the cached points from there and computes only the missing ones. A
point whose engine raises is recorded with ``status="error"`` and the exception in
``message``; it is not cached, so a re-run retries it. Errors in the sweep itself (an
unknown engine, metric, scenario, algorithm or parameter, an empty grid) raise
``ValueError``/``TypeError`` naming the offending key before any work starts.

Examples
--------
>>> from tcpfluid.sweep import grid, sweep
>>> points = grid(algorithm=["vegas", "quick-vegas"], bandwidth=["10Mbps", "50Mbps"])
>>> res = sweep(points, engine="closed-form", metrics=["ss_exit_window"])
>>> list(res.table.columns[:3]), len(res.table), res.n_failed
(['point', 'scenario', 'algorithm'], 4, 0)
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import itertools
import json
import logging
import math
import os
import tomllib
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any

import numpy as np
import pandas as pd

from . import __version__
from .scenarios import LAW_PARAMETER_KEYS, SCENARIOS, Scenario, build_scenario, law_params

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_SCENARIO",
    "ENGINE_METRICS",
    "SWEEP_ENGINES",
    "Sweep",
    "SweepResult",
    "grid",
    "plot_sweep",
    "read_table",
    "sweep",
]

_log = logging.getLogger(__name__)

#: engines a sweep can use
SWEEP_ENGINES: tuple[str, ...] = ("closed-form", "rounds", "ode", "packet")
#: scenario of points that do not name one
DEFAULT_SCENARIO = "qv-basic"

# the keys every run engine's summary carries (the contract of ``tcpfluid simulate``)
_RUN_METRICS = (
    "ss_exit_window",
    "ss_exit_time_s",
    "settled_window",
    "time_to_equilibrium_s",
    "convergence_times_s",
    "utilization",
    "throughput_pps",
    "jain_index",
)
#: metrics each engine reports (the keys of its summary)
ENGINE_METRICS: dict[str, tuple[str, ...]] = {
    "closed-form": (
        "ss_exit_window",
        "ss_exit_time_s",
        "ss_exit_round",
        "settled_window",
        "time_to_equilibrium_s",
        "critical_window",
        "rounds_to_equilibrium",
    ),
    "rounds": (*_RUN_METRICS, "ss_exit_round", "losses"),
    "packet": (*_RUN_METRICS, "losses", "retransmissions", "timeouts", "conserved"),
    "ode": (
        *_RUN_METRICS,
        "ss_exit_round",
        "losses",
        "mean_queue_pkts",
        "final_queue_pkts",
        "final_windows_pkts",
        "lost_pkts",
        "loss_fraction",
    ),
}
#: keys of a sweep configuration (``tcpfluid sweep CONFIG.toml``)
CONFIG_KEYS: tuple[str, ...] = (
    "engine",
    "scenario",
    "algorithm",
    "metrics",
    "rtt_model",
    "grid",
    "points",
)
_RTT_MODELS = ("average", "last", "fluid")
_PATH_COLUMNS = ("mu_pps", "d_s", "bdp_pkts")
_TAIL_COLUMNS = ("status", "message", "seed")
# one batched round-model call holds at most this many recorded rounds × scenarios × flows
# (memory) and this many flows (the per-round arrays stay in the CPU caches: measured 2x
# faster at 8,192 flows per call than at 50,000, with the same results)
_ROUNDS_BUDGET = 1 << 24
_ROUNDS_FLOWS_PER_CALL = 8192

Point = dict[str, Any]


# ------------------------------------------------------------------------------ grids
def grid(**axes: Any) -> tuple[Point, ...]:
    """The product of named parameter lists, as a tuple of points.

    Parameters
    ----------
    **axes
        ``name=[v1, v2, ...]``; a scalar (or a string) is one fixed value. The last axis
        varies fastest.

    Raises
    ------
    ValueError
        If no axis is given, an axis is an empty list, or an axis repeats a value (which
        would give duplicate rows), naming the axis.

    Examples
    --------
    >>> grid(algorithm=["vegas", "quick-vegas"], rtt=["50ms", "100ms"], cbr="none")[1]
    {'algorithm': 'vegas', 'rtt': '100ms', 'cbr': 'none'}
    """
    if not axes:
        raise ValueError("grid needs at least one axis, got none")
    names = list(axes)
    values: list[list[Any]] = []
    for name in names:
        v = axes[name]
        vals = list(v) if isinstance(v, list | tuple) else [v]
        if not vals:
            raise ValueError(f"grid axis {name!r} is empty; give it at least one value")
        seen: list[Any] = []
        for x in vals:
            if x in seen:
                raise ValueError(f"grid axis {name!r} repeats the value {x!r}; list it once")
            seen.append(x)
        values.append(vals)
    return tuple(dict(zip(names, combo, strict=True)) for combo in itertools.product(*values))


# ------------------------------------------------------------------------------ hashing
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))


def _canonical(point: Mapping[str, Any]) -> str:
    """The point as compact JSON with sorted keys (the same text in every process)."""
    return _ENCODER.encode(dict(point))


def _point_seed(point: Mapping[str, Any]) -> int:
    """A seed in ``[0, 2**63)`` from the SHA-256 of the point (stable everywhere)."""
    digest = hashlib.sha256(_canonical(point).encode()).digest()
    return int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)


def _cache_key(point: Mapping[str, Any], engine: str, options: Mapping[str, Any]) -> str:
    blob = json.dumps(
        {"point": dict(point), "engine": engine, "options": dict(options), "version": __version__},
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()


# ------------------------------------------------------------------------------ the sweep
@dataclass(frozen=True)
class Sweep:
    """A validated sweep: points × engine × metrics (module docstring).

    Parameters
    ----------
    points
        The points (from :func:`grid` or an explicit list of dicts). Each names an
        ``algorithm`` (one of :data:`tcpfluid.algorithms.ALGORITHMS`), optionally a
        ``scenario`` (default :data:`DEFAULT_SCENARIO`), and parameters of that scenario.
    engine
        One of :data:`SWEEP_ENGINES` that is available (``"ode"`` and ``"packet"`` once
        registered with ``tcpfluid simulate``).
    metrics
        Names from :data:`ENGINE_METRICS` ``[engine]``, at least one.
    rtt_model
        The RTT a law sees in a growing round, for ``"rounds"`` (``"average"``, ``"last"``,
        ``"fluid"``) and ``"closed-form"`` (``"average"``, ``"last"``).

    Raises
    ------
    ValueError, TypeError
        Unknown engine, metric, scenario, algorithm or parameter (naming it and listing
        the accepted ones), an empty list of points or metrics, a value that is not a
        number or a string.
    """

    points: tuple[Point, ...]
    engine: str = "rounds"
    metrics: tuple[str, ...] = ("ss_exit_window", "time_to_equilibrium_s")
    rtt_model: str = "average"

    def __post_init__(self) -> None:
        engine = self.engine
        if not isinstance(engine, str) or engine not in SWEEP_ENGINES:
            raise ValueError(
                f"engine: unknown engine {engine!r}; engines: {', '.join(SWEEP_ENGINES)}"
            )
        available = _available_engines()
        if engine not in available:
            raise ValueError(
                f"engine: {engine!r} is not available yet; available: {', '.join(available)}"
            )
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
        choices = _RTT_MODELS if engine != "closed-form" else ("average", "last")
        if self.rtt_model not in choices:
            raise ValueError(
                f"rtt_model: must be one of {', '.join(choices)} for engine {engine!r}, "
                f"got {self.rtt_model!r}"
            )
        if isinstance(self.points, Mapping) or not isinstance(self.points, Sequence):
            raise TypeError(f"points must be a list of dicts, got {type(self.points).__name__}")
        if not self.points:
            raise ValueError("points: the grid is empty; give at least one point")
        checked: set[tuple[Any, ...]] = set()
        object.__setattr__(
            self,
            "points",
            tuple(_check_point(i, p, engine, checked) for i, p in enumerate(self.points)),
        )

    # -------------------------------------------------------------- configuration
    @classmethod
    def from_dict(cls, config: Mapping[str, Any]) -> Sweep:
        """A sweep from a configuration mapping (the TOML file's content).

        Keys (:data:`CONFIG_KEYS`): ``engine`` (default ``"rounds"``), ``scenario``,
        ``algorithm`` (a string, or a list that is swept), ``metrics`` (a list),
        ``rtt_model``, and either ``[grid]`` (each key a scenario parameter with a list of
        values, or one value; the product is swept) or ``[[points]]`` (an explicit list of
        tables). Top-level ``scenario``/``algorithm`` lists are crossed with the grid or
        the points.

        Raises
        ------
        ValueError, TypeError
            An unknown key (naming it), an empty grid or list, or any error of
            :class:`Sweep`.
        """
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
        if "grid" in config and "points" in config:
            raise ValueError("give either [grid] or [[points]], not both")
        axes: dict[str, Any] = {}
        for key in ("scenario", "algorithm"):
            if key in config:
                v = config[key]
                if isinstance(v, list) and not v:
                    raise ValueError(f"{key}: empty list; give at least one value")
                axes[key] = v
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
            points = [{**b, **dict(p)} for b in base for p in pts]
        else:
            g = config.get("grid", {})
            if not isinstance(g, Mapping):
                raise TypeError(f"grid must be a table of parameter lists, got {g!r}")
            for k in g:
                if k in axes or k in ("scenario", "algorithm"):
                    raise ValueError(f"grid.{k}: give {k!r} at the top level, not in [grid]")
                if isinstance(g[k], list) and not g[k]:
                    raise ValueError(f"grid.{k}: empty list; give at least one value")
            allaxes = {**axes, **dict(g)}
            if not allaxes:
                raise ValueError("the sweep config has no algorithm and no [grid]: nothing to run")
            points = list(grid(**allaxes))
        return cls(
            points=tuple(points),
            engine=config.get("engine", "rounds"),
            metrics=tuple(metrics),
            rtt_model=config.get("rtt_model", "average"),
        )

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> Sweep:
        """Read a TOML sweep configuration (see :meth:`from_dict`)."""
        p = FsPath(path)
        if not p.is_file():
            raise ValueError(f"config: no such file {str(p)!r}")
        try:
            with p.open("rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"config {str(p)!r} is not valid TOML: {exc}") from None
        return cls.from_dict(data)

    # -------------------------------------------------------------- running
    @property
    def parameters(self) -> tuple[str, ...]:
        """Parameter names that appear in the points, in order of first appearance."""
        seen: dict[str, None] = {}
        for p in self.points:
            for k in p:
                if k not in ("scenario", "algorithm"):
                    seen.setdefault(k, None)
        return tuple(seen)

    def _options(self) -> dict[str, Any]:
        return {"rtt_model": self.rtt_model} if self.engine in ("rounds", "closed-form") else {}

    def run(
        self,
        *,
        executor: cf.Executor | None = None,
        jobs: int | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        progress: bool = False,
    ) -> SweepResult:
        """Evaluate every point (module docstring) and return the table.

        Parameters
        ----------
        executor
            Where ``"packet"``/``"ode"`` points run: any :class:`concurrent.futures.Executor`
            (e.g. a Dask ``Client.get_executor()``); it is not shut down. Ignored by the
            in-process engines ``"rounds"`` and ``"closed-form"``.
        jobs
            Without ``executor``: worker processes of a local process pool (default: the
            number of CPUs); ``1`` runs the points one after another in this process.
        cache_dir
            Directory of the result cache (created if needed); ``None``: no cache.
        progress
            Show a progress bar (tqdm, on stderr).

        Raises
        ------
        ValueError, TypeError
            Bad options, before any work starts.
        """
        if executor is not None and not isinstance(executor, cf.Executor):
            raise TypeError(
                f"executor must be a concurrent.futures.Executor, got {type(executor).__name__}"
            )
        if jobs is not None and (
            isinstance(jobs, bool) or not isinstance(jobs, int | np.integer) or jobs < 1
        ):
            raise ValueError(f"jobs must be an integer >= 1 (or None: all CPUs), got {jobs!r}")
        cache = _Cache(cache_dir) if cache_dir is not None else None
        n = len(self.points)
        opts = self._options()
        seeds = [_point_seed(p) for p in self.points]
        keys = [_cache_key(p, self.engine, opts) for p in self.points] if cache else None
        outcomes: list[_Outcome | None] = [None] * n
        n_cached = 0
        if cache is not None and keys is not None:
            for i, k in enumerate(keys):
                hit = cache.get(k)
                if hit is not None:
                    outcomes[i] = _Outcome("ok", "", hit)
                    n_cached += 1
        todo = [i for i in range(n) if outcomes[i] is None]
        structures = _Structures()
        views = [structures.view_or_error(p) for p in self.points]
        paths = [
            (math.nan, math.nan, math.nan)
            if isinstance(v, Exception)
            else (v.path.mu, v.path.d, v.path.bdp)
            for v in views
        ]
        bar = _progress(n, progress, initial=n_cached, desc=f"sweep ({self.engine})")

        def record(i: int, out: _Outcome) -> None:
            outcomes[i] = out
            if cache is not None and keys is not None and out.status == "ok":
                cache.put(keys[i], out.summary)

        try:
            if self.engine == "rounds":
                _run_rounds(self, todo, views, record, bar)
            elif self.engine == "closed-form" or (executor is None and jobs == 1):
                for i in todo:
                    record(i, _evaluate(self._task(i, seeds[i])))
                    bar.update(1)
            else:
                _run_executor(self, todo, seeds, executor, jobs, record, bar)
        finally:
            bar.close()
            if cache is not None:
                cache.close()
        done = [o if o is not None else _Outcome("error", "not run", {}) for o in outcomes]
        table = _table(self, done, seeds, paths)
        return SweepResult(
            table=table,
            engine=self.engine,
            metrics=self.metrics,
            parameters=self.parameters,
            n_computed=n - n_cached,
            n_cached=n_cached,
        )

    def _task(self, i: int, seed: int) -> _Task:
        p = self.points[i]
        params = tuple((k, v) for k, v in p.items() if k not in ("scenario", "algorithm"))
        return _Task(i, self.engine, p["scenario"], p["algorithm"], params, seed, self.rtt_model)


def sweep(
    points: Sequence[Mapping[str, Any]],
    *,
    engine: str = "rounds",
    metrics: Sequence[str] = ("ss_exit_window", "time_to_equilibrium_s"),
    rtt_model: str = "average",
    executor: cf.Executor | None = None,
    jobs: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = False,
) -> SweepResult:
    """Run a sweep: ``Sweep(points, engine, metrics, rtt_model).run(...)``.

    See :class:`Sweep` for the arguments and errors and :meth:`Sweep.run` for the options.
    """
    return Sweep(
        points=tuple(dict(p) for p in points) if _is_seq(points) else points,  # type: ignore[arg-type]
        engine=engine,
        metrics=tuple(metrics) if _is_seq(metrics) else metrics,  # type: ignore[arg-type]
        rtt_model=rtt_model,
    ).run(executor=executor, jobs=jobs, cache_dir=cache_dir, progress=progress)


def _is_seq(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str) and not isinstance(x, Mapping)


def _available_engines() -> tuple[str, ...]:
    runners = _runner_table()
    return tuple(e for e in SWEEP_ENGINES if e == "closed-form" or e in runners)


@functools.cache
def _law_keys(algorithm: str) -> tuple[str, ...]:
    from .algorithms.registry import law_parameters

    return tuple(law_parameters(algorithm))


def _check_point(
    i: int, point: Any, engine: str, checked: set[tuple[Any, ...]] | None = None
) -> Point:
    """The point with its scenario filled in, after checking names and value types.

    ``checked`` remembers the shapes (engine, scenario, algorithm, parameter names and
    value types) already accepted: the checks depend on nothing else.
    """
    from .algorithms.registry import ALGORITHMS

    if not isinstance(point, Mapping):
        raise TypeError(f"points[{i}] must be a dict of parameters, got {point!r}")
    p = dict(point)
    scen = p.setdefault("scenario", DEFAULT_SCENARIO)
    if not isinstance(scen, str) or scen not in SCENARIOS:
        raise ValueError(
            f"scenario: unknown scenario {scen!r} (point {i}); scenarios: {', '.join(SCENARIOS)}"
        )
    if "algorithm" not in p:
        raise ValueError(
            f"algorithm: point {i} names no algorithm; give one of {', '.join(ALGORITHMS)}"
        )
    alg = p["algorithm"]
    if not isinstance(alg, str) or alg not in ALGORITHMS:
        raise ValueError(
            f"algorithm: unknown algorithm {alg!r} (point {i}); algorithms: {', '.join(ALGORITHMS)}"
        )
    shape = (engine, scen, alg, *((k, type(v)) for k, v in p.items()))
    if checked is not None and shape in checked:
        return p
    if engine == "closed-form":
        from .analytic.predict import PREDICT_ALGORITHMS

        if alg not in PREDICT_ALGORITHMS:
            raise ValueError(
                f"algorithm: {alg!r} has no closed form (point {i}); engine 'closed-form' "
                f"covers {', '.join(PREDICT_ALGORITHMS)}"
            )
    accepted = _law_keys(alg)
    for k in LAW_PARAMETER_KEYS:
        if p.get(k) is not None and k not in accepted:
            raise ValueError(
                f"{k}: not a parameter of algorithm {alg!r} (point {i}); it accepts "
                f"{', '.join(accepted) or 'none'}"
            )
    valid = SCENARIOS[scen].defaults
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
    if checked is not None:
        checked.add(shape)
    return p


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True, eq=False)
class SweepResult:
    """The outcome of a sweep.

    Attributes
    ----------
    table
        One row per point: ``point``, ``scenario``, ``algorithm``, the swept parameters
        (as given), ``mu_pps``, ``d_s``, ``bdp_pkts`` (the bottleneck path, NaN if the
        scenario has none), the metrics (list metrics as ``name[i]``), ``status``,
        ``message``, ``seed``.
    engine, metrics, parameters
        What was run.
    n_computed, n_cached
        Points computed in this run and points taken from the cache.
    """

    table: pd.DataFrame = field(repr=False)
    engine: str
    metrics: tuple[str, ...]
    parameters: tuple[str, ...]
    n_computed: int
    n_cached: int

    @property
    def n_points(self) -> int:
        """Rows of the table."""
        return len(self.table)

    @property
    def n_failed(self) -> int:
        """Points whose status is not ``"ok"``."""
        return int((self.table["status"] != "ok").sum())

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`table`."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what was run, the counts and the rows (NaN as ``None``)."""
        rows = self.table.astype(object).where(self.table.notna(), None).to_dict("records")
        return {
            "engine": self.engine,
            "metrics": list(self.metrics),
            "parameters": list(self.parameters),
            "n_points": self.n_points,
            "n_computed": self.n_computed,
            "n_cached": self.n_cached,
            "n_failed": self.n_failed,
            "rows": rows,
        }

    def plot(
        self,
        metric: str,
        *,
        x: str,
        y: str | None = None,
        where: Mapping[str, Any] | None = None,
        by: Sequence[str] | None = None,
        ax: Any = None,
    ) -> list[Any]:
        """Line plot or heat map of ``metric`` (:func:`plot_sweep`); returns the artists."""
        return plot_sweep(self.table, metric, x=x, y=y, where=where, by=by, ax=ax)

    def write(self, path: str | os.PathLike[str]) -> FsPath:
        """Write the table to ``.csv`` or ``.parquet`` (atomically: a complete file or none).

        Raises
        ------
        ValueError
            Another extension, or ``.parquet`` without pyarrow (``pip install
            tcpfluid[parquet]``).
        """
        out = FsPath(path)
        fmt = _table_format(out)
        tmp = out.with_name(f".{out.name}.{uuid.uuid4().hex}.tmp")
        try:
            if fmt == "csv":
                self.table.to_csv(tmp, index=False)
            else:
                self.table.to_parquet(tmp, index=False)
            os.replace(tmp, out)
        finally:
            if tmp.exists():
                tmp.unlink()
        return out


def _table_format(path: FsPath) -> str:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(
                f"{str(path)!r}: writing parquet needs pyarrow; install the extra with "
                "`pip install tcpfluid[parquet]` (or use a .csv file)"
            ) from None
        return "parquet"
    raise ValueError(f"output file {str(path)!r} must end in .csv or .parquet, got {suffix!r}")


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a sweep table written by :meth:`SweepResult.write` (``.csv`` or ``.parquet``).

    Raises
    ------
    ValueError
        A missing file, another extension, parquet without pyarrow, a file that cannot be
        parsed, or one that is not a sweep table (no ``status`` column).
    """
    p = FsPath(path)
    fmt = _table_format(p)
    if not p.is_file():
        raise ValueError(f"sweep file {str(p)!r} does not exist")
    try:
        df = pd.read_csv(p) if fmt == "csv" else pd.read_parquet(p)
    except (ValueError, OSError) as exc:  # empty or unparsable csv, corrupt parquet
        raise ValueError(
            f"{str(p)!r} is not a readable {fmt} sweep table ({exc}); write one with "
            "`tcpfluid sweep`"
        ) from None
    if "message" in df.columns:  # csv reads the empty messages of "ok" rows as NaN
        df["message"] = df["message"].astype(object).where(df["message"].notna(), "").astype(str)
    for col in ("point", "status", *_PATH_COLUMNS):
        if col not in df.columns:
            raise ValueError(
                f"{str(p)!r} is not a sweep table (no {col!r} column); write one with "
                "`tcpfluid sweep`"
            )
    return df


# ------------------------------------------------------------------------------ plotting
_METRIC_UNITS = {
    "ss_exit_window": "packets",
    "settled_window": "packets",
    "critical_window": "packets",
    "ss_exit_time_s": "s",
    "time_to_equilibrium_s": "s",
    "convergence_times_s": "s",
    "ss_exit_round": "rounds",
    "rounds_to_equilibrium": "rounds",
    "utilization": "fraction of capacity",
    "jain_index": "Jain's index, 1 = fair",
    "throughput_pps": "packets/s",
    "losses": "loss events",
    "retransmissions": "packets",
    "timeouts": "timeouts",
    "mu_pps": "packets/s",
    "d_s": "s",
    "bdp_pkts": "packets",
}


# parameters of the registered scenarios that shape the bottleneck path (eq 5 of doc 000)
_PATH_PARAMETERS = frozenset(
    {"bandwidth", "rtt", "access_bandwidth", "access_delay", "packet_size", "ack_size"}
)


def _parameter_columns(table: pd.DataFrame) -> list[str]:
    cols = list(table.columns)
    return cols[cols.index("point") + 1 : cols.index("mu_pps")]


def _label(name: str) -> str:
    base = name.split("[")[0]
    unit = _METRIC_UNITS.get(base)
    if unit is None:
        for suffix, u in (("_pkts", "packets"), ("_pps", "packets/s"), ("_s", "s")):
            if base.endswith(suffix):
                unit = u
                break
    return f"{name} ({unit})" if unit else name


def _axis(table: pd.DataFrame, name: str) -> tuple[np.ndarray | None, list[Any], str]:
    """Numeric values of column ``name`` (or None if categorical), the raw values, label.

    Strings with units (``"50Mbps"``, ``"100ms"``) are parsed with :mod:`tcpfluid.units`
    and shown in Mb/s or ms where that reads better.
    """
    from . import units

    if name not in table.columns:
        raise ValueError(
            f"no column {name!r} in the sweep table; columns: {', '.join(map(str, table.columns))}"
        )
    raw = list(table[name])
    if pd.api.types.is_numeric_dtype(table[name]) and not pd.api.types.is_bool_dtype(table[name]):
        return np.asarray(raw, dtype=np.float64), raw, _label(name)
    parsers: tuple[tuple[Callable[..., float], str], ...] = (
        (units.bits_per_second, "bit/s"),
        (units.time_or_zero, "s"),
        (units.bytes_, "bytes"),
    )
    for parse, unit in parsers:
        try:
            vals = np.array([parse(v, name=name) for v in raw], dtype=np.float64)
        except (ValueError, TypeError):
            continue
        top = float(np.nanmax(np.abs(vals))) if vals.size else 0.0
        if unit == "bit/s" and top >= 1e6:
            return vals / 1e6, raw, f"{name} (Mb/s)"
        if unit == "s" and 0.0 < top < 1.0:
            return vals * 1e3, raw, f"{name} (ms)"
        return vals, raw, f"{name} ({unit})"
    return None, raw, name


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def plot_sweep(
    table: pd.DataFrame,
    metric: str,
    *,
    x: str,
    y: str | None = None,
    where: Mapping[str, Any] | None = None,
    by: Sequence[str] | None = None,
    ax: Any = None,
) -> list[Any]:
    """Plot ``metric`` over one parameter (lines) or two (a heat map with a colour bar).

    Parameters
    ----------
    table
        A sweep table (:attr:`SweepResult.table` or :func:`read_table`).
    metric
        A metric column (``"time_to_equilibrium_s"``, ``"throughput_pps[0]"``...).
    x, y
        Parameter columns (or ``mu_pps``, ``d_s``, ``bdp_pkts``). Without ``y``: one line
        of ``metric`` over ``x`` per combination of the other varying parameters. With
        ``y``: a heat map over ``x`` × ``y`` (every other varying parameter must be fixed
        with ``where``).
    where
        ``{column: value}`` selecting rows (values compared as strings, so ``"50Mbps"``
        or ``2`` both work).
    by
        Line plot: the columns whose combinations get one line each. Default: the other
        varying parameters; when ``x`` is a path column (``bdp_pkts``...) the parameters
        that shape the path (bandwidth, rtt, access links, packet sizes) are left out, so
        that e.g. the points of every bandwidth × rtt line up along the BDP axis.
    ax
        Matplotlib axes (default: a new figure's).

    Returns
    -------
    list
        The artists drawn (lines, or the mesh and its colour bar).

    Raises
    ------
    ValueError
        Unknown columns, no row left, or (heat map) ``y == x`` or other parameters
        still varying.
    """
    import matplotlib.pyplot as plt

    if y is not None and y == x:
        raise ValueError(f"y must differ from x (a heat map needs two axes), got x = y = {y!r}")
    if metric not in table.columns:
        raise ValueError(
            f"metric: no column {metric!r} in the sweep table; columns: "
            f"{', '.join(map(str, table.columns))}"
        )
    df = table
    for k, v in (where or {}).items():
        if k not in df.columns:
            raise ValueError(f"where: no column {k!r} in the sweep table")
        df = df[df[k].astype(str) == str(v)]
        if df.empty:
            raise ValueError(f"where: no row has {k} = {v!r}")
    if not (df["status"] == "ok").any():
        raise ValueError("no successful point to plot (every selected row has status != ok)")
    # failed points stay on the axes, as gaps (lines) or empty cells (heat map)
    df = df.assign(**{metric: df[metric].where(df["status"] == "ok")})
    x_num, x_raw, x_label = _axis(df, x)
    others = [
        c for c in _parameter_columns(df) if c not in (x, y) and df[c].astype(str).nunique() > 1
    ]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    artists: list[Any] = []
    if y is None:
        if by is not None:
            for c in by:
                if c not in df.columns:
                    raise ValueError(f"by: no column {c!r} in the sweep table")
            others = list(by)
        elif x not in _parameter_columns(df):
            others = [c for c in others if c not in _PATH_PARAMETERS]
        groups = df.groupby(others, sort=False) if others else [((), df)]
        for key, sub in groups:
            xs, _, _ = _axis(sub, x)
            order = np.argsort(xs) if xs is not None else np.arange(len(sub))
            xv = xs[order] if xs is not None else np.arange(len(sub))
            yv = np.asarray(sub[metric], dtype=np.float64)[order]
            keys = key if isinstance(key, tuple) else (key,)
            lab = ", ".join(f"{c}={_fmt(v)}" for c, v in zip(others, keys, strict=True))
            artists += ax.plot(xv, yv, marker="o", label=lab or None)
            if xs is None:
                ax.set_xticks(xv, [_fmt(v) for v in np.asarray(sub[x])[order]])
        ax.set_xlabel(x_label)
        ax.set_ylabel(_label(metric))
        if others:
            ax.legend(fontsize="small")
        ax.grid(True, alpha=0.3)
        return artists
    if others:
        raise ValueError(
            f"a heat map of {metric} over {x} x {y} needs the other parameters fixed; "
            f"{', '.join(others)} vary: pick values with where= (--where KEY=VALUE)"
        )
    y_num, _, y_label = _axis(df, y)
    xs_u = _unique_sorted(x_num, x_raw)
    ys_u = _unique_sorted(y_num, list(df[y]))
    grid_v = np.full((len(ys_u), len(xs_u)), np.nan)
    xi = {str(v): j for j, (_, v) in enumerate(xs_u)}
    yi = {str(v): j for j, (_, v) in enumerate(ys_u)}
    for xv, yv, mv in zip(df[x], df[y], df[metric], strict=True):
        grid_v[yi[str(yv)], xi[str(xv)]] = mv
    mesh = ax.pcolormesh(
        np.arange(len(xs_u) + 1) - 0.5,
        np.arange(len(ys_u) + 1) - 0.5,
        np.ma.masked_invalid(grid_v),
        shading="flat",
    )
    cbar = ax.figure.colorbar(mesh, ax=ax)
    cbar.set_label(_label(metric))
    ax.set_xticks(np.arange(len(xs_u)), [_fmt(n if n is not None else v) for n, v in xs_u])
    ax.set_yticks(np.arange(len(ys_u)), [_fmt(n if n is not None else v) for n, v in ys_u])
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if len(xs_u) * len(ys_u) <= 64:  # small grids: the values in the cells
        for (r, c), val in np.ndenumerate(grid_v):
            if not math.isfinite(val):
                ax.text(c, r, "n/a", ha="center", va="center", fontsize="small", color="0.3")
                continue
            light = sum(mesh.cmap(mesh.norm(val))[:3]) > 1.8
            ax.text(
                c,
                r,
                f"{val:.3g}",
                ha="center",
                va="center",
                fontsize="small",
                color="k" if light else "w",
            )
    return [mesh, cbar]


def _unique_sorted(num: np.ndarray | None, raw: list[Any]) -> list[tuple[float | None, Any]]:
    """Distinct values as (numeric or None, raw), sorted numerically when possible."""
    seen: dict[str, tuple[float | None, Any]] = {}
    for j, v in enumerate(raw):
        seen.setdefault(str(v), (None if num is None else float(num[j]), v))
    vals = list(seen.values())
    if num is not None:
        vals.sort(key=lambda t: t[0])  # type: ignore[arg-type,return-value]
    return vals


# ------------------------------------------------------------------------------ internals
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


@dataclass(frozen=True)
class _Outcome:
    status: str
    message: str
    summary: dict[str, Any]


def _runner_table() -> Mapping[str, Any]:
    """The registered per-point engines (:data:`tcpfluid.engines.ENGINES`)."""
    from .engines import ENGINES

    return ENGINES


def _run_point(task: _Task) -> dict[str, Any]:
    """THE adapter to the per-point engine runners; returns the summary dict.

    ``"closed-form"`` uses :func:`tcpfluid.analytic.predict`; the other engines call
    :func:`tcpfluid.engines.simulate_summary` (the runner behind ``tcpfluid simulate``)
    with the point's seed.
    """
    params = dict(task.params)
    if task.engine == "closed-form":
        return _closed_form(task.scenario, task.algorithm, params, task.rtt_model)
    from . import engines

    kwargs: dict[str, Any] = {"engine": task.engine, "sets": params, "seed": task.seed}
    if task.engine == "rounds":
        kwargs["rtt_model"] = task.rtt_model
    out: dict[str, Any] = engines.simulate_summary(task.scenario, task.algorithm, **kwargs)
    return {k: v for k, v in out.items() if k not in ("scenario", "algorithm", "engine", "params")}


def _closed_form(
    scenario: str, algorithm: str, params: Mapping[str, Any], rtt_model: str
) -> dict[str, Any]:
    from .analytic.predict import predict

    sc = build_scenario(scenario, **params)
    law = law_params(sc.params)
    kw = {k: law[k] for k in ("alpha", "beta", "gamma") if k in law}
    if "delta" in law:  # Enhanced Vegas: α = β = δ (document 001)
        kw["alpha"] = kw["beta"] = law["delta"]
    pr = predict(algorithm, sc.fluid_view().path, rtt=rtt_model, **kw)  # type: ignore[arg-type]
    return {
        "ss_exit_window": pr.ss_exit_window_pkts,
        "ss_exit_time_s": pr.ss_exit_time_s,
        "ss_exit_round": pr.ss_exit_round,
        "settled_window": pr.equilibrium_window_pkts,
        "time_to_equilibrium_s": pr.time_to_equilibrium_s,
        "critical_window": pr.critical_window_pkts,
        "rounds_to_equilibrium": pr.rounds_to_equilibrium,
    }


def _evaluate(task: _Task) -> _Outcome:
    """Run one point, catching its failure (executed in worker processes)."""
    try:
        return _Outcome("ok", "", _run_point(task))
    except Exception as exc:  # a failed point is recorded, not fatal
        return _Outcome("error", f"{type(exc).__name__}: {exc}", {})


class _Structures:
    """Scenarios and their fluid views, built once per distinct set of non-law parameters
    (law parameters and the algorithm do not change the topology)."""

    def __init__(self) -> None:
        self._built: dict[tuple[Any, ...], tuple[Scenario, Any] | Exception] = {}

    def _get(self, point: Mapping[str, Any]) -> tuple[Scenario, Any]:
        params = {
            k: v
            for k, v in point.items()
            if k not in LAW_PARAMETER_KEYS and k not in ("algorithm", "scenario")
        }
        key = (point["scenario"], *sorted(params.items()))
        if key not in self._built:
            try:
                sc = build_scenario(point["scenario"], **params)
            except (ValueError, TypeError) as exc:
                self._built[key] = exc
            else:
                try:
                    self._built[key] = (sc, sc.fluid_view())
                except (ValueError, TypeError) as exc:
                    self._built[key] = (sc, exc)
        got = self._built[key]
        if isinstance(got, Exception):
            raise got
        return got

    def view(self, point: Mapping[str, Any]) -> Any:
        """The fluid view of the point's scenario (raises what building it raised)."""
        view = self._get(point)[1]
        if isinstance(view, Exception):
            raise view
        return view

    def view_or_error(self, point: Mapping[str, Any]) -> Any:
        """The fluid view, or the exception building the scenario or its view raised."""
        try:
            return self.view(point)
        except (ValueError, TypeError) as exc:
            return exc


class _Cache:
    """Append-only JSON-lines cache: ``{"key": ..., "summary": ...}`` per computed point.

    Every ``*.jsonl`` file of the directory is read at start (a torn last line of an
    interrupted run is skipped); this run appends to a file of its own, flushed per line.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = FsPath(directory)
        if self.dir.exists() and not self.dir.is_dir():
            raise ValueError(f"cache_dir {str(self.dir)!r} exists and is not a directory")
        self.dir.mkdir(parents=True, exist_ok=True)
        self._data: dict[str, dict[str, Any]] = {}
        for f in sorted(self.dir.glob("*.jsonl")):
            with f.open(encoding="utf-8") as fh:
                for line in fh:
                    try:
                        rec = json.loads(line)
                        self._data[rec["key"]] = rec["summary"]
                    except (ValueError, KeyError, TypeError):
                        continue
        self._file = self.dir / f"part-{os.getpid()}-{uuid.uuid4().hex[:12]}.jsonl"
        self._fh: Any = None

    def get(self, key: str) -> dict[str, Any] | None:
        return self._data.get(key)

    def put(self, key: str, summary: Mapping[str, Any]) -> None:
        if self._fh is None:
            self._fh = self._file.open("a", encoding="utf-8")
        self._fh.write(json.dumps({"key": key, "summary": dict(summary)}) + "\n")
        self._fh.flush()
        self._data[key] = dict(summary)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool, *, initial: int, desc: str) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=desc, unit="pt", dynamic_ncols=True)


def _run_executor(
    sw: Sweep,
    todo: list[int],
    seeds: list[int],
    executor: cf.Executor | None,
    jobs: int | None,
    record: Callable[[int, _Outcome], None],
    bar: Any,
) -> None:
    """Fan the points out over ``executor`` (or a process pool of ``jobs`` workers).

    A point whose worker process dies (a crash in compiled code, the OOM killer) breaks
    our own pool: the points then in flight are recorded as failed (not cached: a re-run
    retries them) and the remaining points go to a fresh pool.
    """
    if not todo:
        return
    own = executor is None
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    pool: list[cf.Executor] = [
        cf.ProcessPoolExecutor(max_workers=workers) if executor is None else executor
    ]
    window = max(4 * workers, 64) if own else 1024  # futures in flight
    pending: dict[cf.Future[_Outcome], int] = {}
    generation: dict[cf.Future[_Outcome], int] = {}
    it: Iterator[int] = iter(todo)

    n_pools = [0]

    def renew() -> None:
        pool[0].shutdown(wait=False, cancel_futures=True)
        pool[0] = cf.ProcessPoolExecutor(max_workers=workers)
        n_pools[0] += 1

    def submit(i: int) -> None:
        task = sw._task(i, seeds[i])
        try:
            fut = pool[0].submit(_evaluate, task)
        except BrokenProcessPool:
            if not own:
                raise
            renew()
            fut = pool[0].submit(_evaluate, task)
        pending[fut] = i
        generation[fut] = n_pools[0]

    try:
        for i in itertools.islice(it, window):
            submit(i)
        while pending:
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                gen = generation.pop(fut)
                try:
                    out = fut.result()
                except Exception as exc:  # the worker itself died
                    out = _Outcome("error", f"{type(exc).__name__}: {exc}", {})
                    if own and isinstance(exc, BrokenProcessPool) and gen == n_pools[0]:
                        renew()  # later points go to a fresh pool at once
                record(i, out)
                bar.update(1)
                nxt = next(it, None)
                if nxt is not None:
                    submit(nxt)
    except BaseException:
        for fut in pending:
            fut.cancel()
        if own:
            pool[0].shutdown(wait=False, cancel_futures=True)
        raise
    if own:
        pool[0].shutdown(wait=True)


# ------------------------------------------------------------------------------ rounds
def _run_rounds(
    sw: Sweep,
    todo: list[int],
    views: list[Any],
    record: Callable[[int, _Outcome], None],
    bar: Any,
) -> None:
    """Group the points and run each group as batched :func:`simulate_rounds` calls
    (``views``: each point's fluid view, or the exception building it raised)."""
    from .fluid.rounds import CrossTraffic, PathBatch, simulate_rounds

    groups: dict[tuple[Any, ...], list[tuple[int, Any, dict[str, float]]]] = {}
    for i in todo:
        p = sw.points[i]
        try:
            view = views[i]
            if isinstance(view, Exception):
                raise view
            lp = law_params(p)
        except (ValueError, TypeError) as exc:
            record(i, _Outcome("error", f"{type(exc).__name__}: {exc}", {}))
            bar.update(1)
            continue
        key = (
            p["algorithm"],
            len(view.flows),
            view.duration_s,
            tuple(f.start_s for f in view.flows),
            tuple(f.stop_s for f in view.flows),
            tuple((c.start_s, c.stop_s) for c in view.cross_traffic),
            tuple(sorted(lp)),
        )
        groups.setdefault(key, []).append((i, view, lp))

    for key, members in groups.items():
        alg, n_flows, duration, starts, stops, cross_times, law_keys = key
        members.sort(key=lambda m: m[1].path.d)
        d_min = min(m[1].path.d for m in members)
        rounds = math.ceil(duration / d_min) + 2
        chunk = max(1, min(_ROUNDS_BUDGET // (rounds * n_flows), _ROUNDS_FLOWS_PER_CALL // n_flows))
        stack = [members[lo : lo + chunk] for lo in range(0, len(members), chunk)][::-1]
        while stack:
            part = stack.pop()
            idx = [m[0] for m in part]
            try:
                summaries = _rounds_batch(
                    simulate_rounds,
                    PathBatch,
                    CrossTraffic,
                    alg,
                    n_flows,
                    duration,
                    starts,
                    stops,
                    cross_times,
                    law_keys,
                    part,
                    sw.rtt_model,
                )
            except (ValueError, TypeError, ArithmeticError) as exc:
                # a bad point spoils its batch: bisect down to the offending points
                _log.info("batched round-model call of %d points failed: %s", len(part), exc)
                if len(part) == 1:
                    i = idx[0]
                    record(i, _evaluate(sw._task(i, _point_seed(sw.points[i]))))
                    bar.update(1)
                else:
                    half = len(part) // 2
                    stack += [part[half:], part[:half]]
                continue
            for i, summ in zip(idx, summaries, strict=True):
                record(i, _Outcome("ok", "", summ))
            bar.update(len(idx))


def _rounds_batch(
    simulate_rounds: Any,
    path_batch: Any,
    cross_traffic: Any,
    alg: str,
    n_flows: int,
    duration: float,
    starts: tuple[float, ...],
    stops: tuple[float, ...],
    cross_times: tuple[tuple[float, float], ...],
    law_keys: tuple[str, ...],
    part: list[tuple[int, Any, dict[str, float]]],
    rtt_model: str,
) -> list[dict[str, Any]]:
    """One :func:`simulate_rounds` call over ``part``; one summary dict per point."""
    from .algorithms.registry import get_law

    paths = [m[1].path for m in part]
    batch = path_batch.from_paths(paths)
    law_arrays = {
        k: np.repeat(np.array([m[2][k] for m in part], dtype=np.float64), n_flows) for k in law_keys
    }
    law = get_law(alg, **law_arrays)
    cross = []
    for j, (c_start, c_stop) in enumerate(cross_times):
        rates = np.array([m[1].cross_traffic[j].rate_pps for m in part], dtype=np.float64)
        cross.append(cross_traffic(rates, c_start, c_stop))
    trace = simulate_rounds(
        law,
        batch,
        duration_s=duration,
        n_flows=n_flows,
        flow_start_s=list(starts),
        flow_stop_s=list(stops),
        rtt=rtt_model,
        cross_traffic=cross,
        record=(),
    )
    return _round_summaries(trace.summary)


def _round_summaries(s: Any) -> list[dict[str, Any]]:
    """Per-scenario public summary dicts of a batched :class:`RoundSummary` (its own
    :meth:`~tcpfluid.fluid.RoundSummary.scenario`, the dict ``tcpfluid simulate`` prints)."""
    return [s.scenario(j) for j in range(s.utilization.shape[0])]


# ------------------------------------------------------------------------------ table
def _table(
    sw: Sweep,
    outcomes: list[_Outcome],
    seeds: list[int],
    paths: list[tuple[float, float, float]],
) -> pd.DataFrame:
    n = len(sw.points)
    outcomes = list(outcomes)
    for i, o in enumerate(outcomes):
        lacking = [m for m in sw.metrics if o.status == "ok" and m not in o.summary]
        if lacking:
            outcomes[i] = _Outcome(
                "error", f"engine {sw.engine!r} did not report metric {lacking[0]!r}", {}
            )
    cols: dict[str, Any] = {
        "point": np.arange(n),
        "scenario": [p["scenario"] for p in sw.points],
        "algorithm": [p["algorithm"] for p in sw.points],
    }
    for name in sw.parameters:
        vals = [p.get(name) for p in sw.points]
        kinds = {type(v) for v in vals if v is not None}
        if len(kinds) > 1:  # e.g. buffer = ["inf", 100]: one type per column (parquet)
            vals = [None if v is None else str(v) for v in vals]
        cols[name] = vals
    arr = np.array(paths, dtype=np.float64).reshape(n, 3)
    for j, name in enumerate(_PATH_COLUMNS):
        cols[name] = arr[:, j]
    for m in sw.metrics:
        values = [o.summary.get(m) if o.status == "ok" else None for o in outcomes]
        if any(isinstance(v, list) for v in values):
            width = max(len(v) for v in values if isinstance(v, list))
            for k in range(width):
                cols[f"{m}[{k}]"] = _column(
                    [v[k] if isinstance(v, list) and k < len(v) else None for v in values]
                )
        else:
            cols[m] = _column(values)
    cols["status"] = [o.status for o in outcomes]
    cols["message"] = [o.message for o in outcomes]
    cols["seed"] = np.array(seeds, dtype=np.int64)
    return pd.DataFrame(cols)


def _column(values: list[Any]) -> Any:
    """Numbers as float (None → NaN); booleans kept as object with None."""
    if any(isinstance(v, bool) for v in values):
        return pd.array(values, dtype="boolean")
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)
