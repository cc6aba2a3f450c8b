"""Sweep execution: per-point runs (in process or on an executor) and batched round-model
calls."""

from __future__ import annotations

import concurrent.futures as cf
import functools
import itertools
import logging
import math
import os
import queue
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

import numpy as np

from ..scenarios import LAW_PARAMETER_KEYS, build_scenario, law_params
from ._engines import SWEEP, _Outcome, _Task
from ._signals import _WAKE_SIGNAL, _DeferredSignals, _stop_pool, _stop_signals_held, _worker_init
from .cache import _Cache, _cache_key, invalid_metric
from .config import _scenario_files
from .tables import SweepResult, _Results, _table, check_table_fits

if TYPE_CHECKING:
    from .config import Sweep

_log = logging.getLogger("tcpfluid.sweep")

# in-process engines take the points in chunks of this many; fluid views kept for reuse
_CHUNK = 1 << 14
_STRUCTURES_KEPT = 4096
# one batched round-model call holds at most this many recorded rounds × scenarios × flows
# (memory) and this many flows (the per-round arrays stay in the CPU caches)
_ROUNDS_BUDGET = 1 << 24
_ROUNDS_FLOWS_PER_CALL = 8192
#: a point's keys that leave its scenario's structure (its fluid view) unchanged
_NOT_PATH = frozenset({*LAW_PARAMETER_KEYS, "algorithm", "scenario"})
#: what a round-model point keeps of its summary: its metrics and the change times
_POINT_KEYS = ("change_times_s", *SWEEP["rounds"].metrics)


def run_sweep(
    self: Sweep, executor: Any, jobs: int | None, cache_dir: Any, progress: Any
) -> SweepResult:
    """:meth:`Sweep.run`."""
    if executor is not None and not isinstance(executor, cf.Executor):
        raise TypeError(
            f"executor must be a concurrent.futures.Executor, got {type(executor).__name__}"
        )
    if jobs is not None and (
        isinstance(jobs, bool) or not isinstance(jobs, int | np.integer) or jobs < 1
    ):
        raise ValueError(f"jobs must be an integer >= 1 (or None: all CPUs), got {jobs!r}")
    n = len(self.points)
    check_table_fits(n, len(self.metrics))
    cache = None
    if cache_dir is not None:  # a cache that cannot be used: a warning, no cache
        try:
            cache = _Cache(cache_dir)
        except OSError as exc:
            _log.warning(
                "sweep cache %s cannot be used (%s); the sweep runs without it",
                os.fspath(cache_dir),
                exc.strerror or exc,
            )
    engine = SWEEP[self.engine]
    results = _Results(n, self.metrics, engine.columns(self.metrics))
    paths = np.full((n, 3), np.nan)
    opts = {"rtt_model": self.rtt_model} if engine.reads_rtt_model else {}
    opts |= self.options  # (none: the key of a sweep without options, as before)
    files = _scenario_files(self.points)  # read now: the content this run computes
    structures = _Structures(engine.view_engine)
    keys: dict[int, str] = {}
    metrics = self.metrics
    n_cached = 0

    def lookup(i: int) -> bool:  # point ``i`` taken from the cache?
        nonlocal n_cached
        if cache is None:
            return False
        k = keys[i] = _cache_key(self.points[i], self.engine, opts, files, engine.revision)
        hit = cache.get(k, metrics)
        if hit is None:
            return False
        results.set(i, _Outcome("ok", "", hit))
        n_cached += 1
        return True

    def record(i: int, out: _Outcome) -> None:
        # never a silent NaN in the table: a failed point
        if out.status == "ok" and (bad := invalid_metric(out.summary, metrics)) is not None:
            lacking = [m for m in metrics if m not in out.summary]
            what = f"did not report metric {lacking[0]!r}" if lacking else f"returned {bad}"
            out = _Outcome("error", f"engine {self.engine!r} {what}", {})
        if out.status == "ok" and cache is not None:  # every point was looked up first
            cache.put(keys.pop(i), out.summary)
        results.set(i, out)

    def view_of(i: int) -> Any:
        view = structures.view_or_error(self.points[i])
        if not isinstance(view, Exception):
            paths[i] = (view.path.mu, view.path.d, view.path.bdp)
        return view

    bar = _progress(n, progress, f"sweep ({self.engine})")
    try:
        if engine.in_process or (executor is None and jobs == 1):
            # in process, in chunks: the first points are computed at once, whatever n
            for lo in range(0, n, _CHUNK):
                chunk = range(lo, min(n, lo + _CHUNK))
                views = {i: view_of(i) for i in chunk}
                todo = [i for i in chunk if not lookup(i)]
                bar.update(len(chunk) - len(todo))
                if self.engine == "rounds":  # batched calls of the round model
                    _run_rounds(self, files, todo, views, record, bar)
                    continue
                for i in todo:
                    record(i, _evaluate(self._task(i, files)))
                    bar.update(1)
        else:
            for i in range(n):
                view_of(i)
            todo = [i for i in range(n) if not lookup(i)]
            bar.update(n - len(todo))
            _run_executor(self, files, todo, executor, jobs, record, bar)
    finally:
        bar.close()
        if cache is not None:
            cache.close()
    table = _table(self, results, paths, files)
    return SweepResult(table, self.engine, self.metrics, self.parameters, n - n_cached, n_cached)


def _run_point(task: _Task) -> dict[str, Any]:
    """THE adapter to the engines: the point's summary dict (:meth:`SweepEngine.point`)."""
    return SWEEP[task.engine].point(task)


def _evaluate(task: _Task) -> _Outcome:
    """Run one point, catching its failure (executed in worker processes)."""
    try:
        return _Outcome("ok", "", _run_point(task))
    except Exception as exc:  # a failed point is recorded, not fatal
        return _Outcome.failed(exc)


class _Structures:
    """Fluid views of the points' scenarios (checked for engine ``check``), one per distinct
    set of non-law parameters, the most recently used :data:`_STRUCTURES_KEPT` kept."""

    def __init__(self, check: str | None) -> None:
        self._check = check
        self._view = functools.lru_cache(maxsize=_STRUCTURES_KEPT)(self._build)

    def view_or_error(self, point: Mapping[str, Any]) -> Any:
        """The fluid view of the point's scenario, or the exception building it raised."""
        return self._view(
            point["scenario"], *sorted((k, v) for k, v in point.items() if k not in _NOT_PATH)
        )

    def _build(self, scenario: str, *params: tuple[str, Any]) -> Any:
        try:
            return build_scenario(scenario, **dict(params)).fluid_view(self._check)
        except (ValueError, TypeError) as exc:
            return exc
        except ArithmeticError as exc:  # the point fails, the sweep goes on
            return ValueError(
                f"the point's parameters are out of the range the model can compute "
                f"({type(exc).__name__}: {exc})"
            )


class _CallbackBar:
    """Reports the fraction of points done to ``callback`` (at most ~10 calls a second)."""

    def __init__(self, callback: Callable[[float], None], total: int) -> None:
        self._cb, self._total, self._done, self._last = callback, max(total, 1), 0, -math.inf
        callback(0.0)

    def update(self, n: int = 1) -> None:
        if n <= 0:
            return
        first = self._done == 0
        self._done += n
        now = time.monotonic()
        if first or now - self._last >= 0.1 or self._done >= self._total:
            self._last = now
            self._cb(min(1.0, self._done / self._total))

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool | Callable[[float], None], desc: str) -> Any:
    if callable(enabled) or not enabled:
        return _CallbackBar(enabled if callable(enabled) else lambda f: None, total)
    from tqdm import tqdm

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):  # not a terminal, or no real stderr
        size = os.terminal_size((0, 0))
    # a terminal that reports no size would hide a bar sized to it: 80 columns
    sized = size.columns > 0 and size.lines > 0
    fit = {"dynamic_ncols": True} if sized else {"ncols": 80, "nrows": 24}
    return tqdm(total=total, initial=0, desc=desc, unit="pt", **fit)


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def pool_size(jobs: int | None, n_points: int) -> int:
    """Worker processes for ``n_points`` points (or a report's tasks): ``jobs`` (default:
    the CPUs), capped at the work and at the CPUs."""
    cpus = usable_cpus()
    wanted = cpus if jobs is None else int(jobs)
    size = max(1, min(wanted, n_points, cpus))
    if jobs is not None and size < jobs:
        _log.info("jobs=%d capped at %d (work items: %d, CPUs: %d)", jobs, size, n_points, cpus)
    return size


def _new_pool(workers: int, initializer: Callable[[], None] | None = None) -> cf.Executor:
    """A process pool whose workers end with this process, however it ends."""
    return cf.ProcessPoolExecutor(
        max_workers=workers, initializer=_init_worker, initargs=(os.getpid(), initializer)
    )


def _init_worker(parent_pid: int, initializer: Callable[[], None] | None) -> None:
    _worker_init(parent_pid)
    if initializer is not None:
        initializer()


def run_on_pool(
    fn: Callable[..., Any],
    items: Iterable[tuple[Any, tuple[Any, ...]]],
    on_done: Callable[[Any, cf.Future[Any]], None],
    *,
    workers: int,
    executor: cf.Executor | None = None,
    initializer: Callable[[], None] | None = None,
    tick: Callable[[], None] | None = None,
) -> None:
    """The one runner of parallel work: ``fn(*args)`` for each ``(key, args)`` of ``items``
    on ``executor`` or an own pool of ``workers`` processes, a bounded number in flight;
    ``on_done(key, future)`` runs here as each finishes, ``tick()`` at least twice a second.
    Ctrl-C and SIGTERM are raised here, never inside ``concurrent.futures``; then an own
    pool is stopped at once. A dead worker's pool is replaced for later items."""
    own = executor is None
    pool = [_new_pool(workers, initializer) if executor is None else executor]
    window = max(4 * workers, 64) if own else 1024  # futures in flight
    pending: dict[cf.Future[Any], tuple[Any, cf.Executor]] = {}  # key, pool
    it = iter(items)
    # completed futures arrive here (their done callbacks), and a noted signal's wake-up
    wake: queue.SimpleQueue[Any] = queue.SimpleQueue()

    def renew() -> None:
        pool[0].shutdown(wait=False, cancel_futures=True)
        pool[0] = _new_pool(workers, initializer)

    def submit(key: Any, args: tuple[Any, ...]) -> None:
        try:
            with _stop_signals_held():  # the pool's first submit forks its workers
                fut = pool[0].submit(fn, *args)
        except BrokenProcessPool:
            if not own:
                raise
            renew()
            with _stop_signals_held():
                fut = pool[0].submit(fn, *args)
        pending[fut] = (key, pool[0])
        fut.add_done_callback(wake.put)

    with _DeferredSignals(wake) as signals:
        try:
            for key, args in itertools.islice(it, window):
                submit(key, args)
            while pending:
                try:
                    got = wake.get(timeout=0.25 if tick is not None else 0.5)
                except queue.Empty:
                    got = None
                if tick is not None:
                    tick()
                if got is _WAKE_SIGNAL:
                    signals.deliver()  # raises for Ctrl-C and SIGTERM
                    continue
                if got is None or got not in pending:
                    continue
                key, on = pending.pop(got)
                broken = not got.cancelled() and isinstance(got.exception(), BrokenProcessPool)
                if own and broken and on is pool[0]:
                    renew()  # later items go to a fresh pool at once
                with signals.paused():  # Ctrl-C stops a long on_done at once
                    on_done(key, got)
                nxt = next(it, None)
                if nxt is not None:
                    submit(*nxt)
        except BaseException:
            for fut in pending:
                fut.cancel()
            if own:
                _stop_pool(pool[0])
            raise
    if own:
        pool[0].shutdown(wait=True)


def _run_executor(
    sw: Sweep,
    files: Mapping[str, str],
    todo: list[int],
    executor: cf.Executor | None,
    jobs: int | None,
    record: Callable[[int, _Outcome], None],
    bar: Any,
) -> None:
    """The points on ``executor`` or a pool of ``jobs`` workers (a dead worker's point fails)."""

    def done(i: int, fut: cf.Future[_Outcome]) -> None:
        try:
            out = fut.result()
        except Exception as exc:  # the worker itself died
            out = _Outcome.failed(exc)
        record(i, out)
        bar.update(1)

    items = ((i, (sw._task(i, files),)) for i in todo)
    run_on_pool(_evaluate, items, done, workers=pool_size(jobs, len(todo)), executor=executor)


def _run_rounds(
    sw: Sweep,
    files: Mapping[str, str],
    todo: list[int],
    views: Mapping[int, Any],
    record: Callable[[int, _Outcome], None],
    bar: Any,
) -> None:
    """Group the points and run each group as batched :func:`simulate_rounds` calls, each
    point's inputs those a run of it alone takes (:func:`scenario_inputs`)."""
    from ..fluid.rounds import batch_key, scenario_inputs

    groups: dict[tuple[Any, ...], list[tuple[int, Any, dict[str, float], dict[str, Any]]]] = {}

    def one(i: int, out: _Outcome) -> None:
        record(i, out)
        bar.update(1)

    for i in todo:
        p = sw.points[i]
        try:
            view = views[i]
            if isinstance(view, Exception):
                raise view
            lp = law_params(p)
        except (ValueError, TypeError) as exc:
            one(i, _Outcome.failed(exc))
            continue
        # the view is built without the point's law parameters: its flows' own (a scenario
        # file's) are those the point does not replace, which the batch would not see
        own_laws = any(not set(params) <= set(lp) for _, params in view.scenario.flow_table.laws)
        if view.red is not None or not view.equal_rtt or "algorithm" not in p or own_laws:
            # one round clock per base RTT (or RED): the asynchronous round model; flows with
            # laws or parameters of their own (a scenario file's): as written; alone
            one(i, _evaluate(sw._task(i, files)))
            continue
        inputs = scenario_inputs(view)
        key = (
            p["algorithm"],
            len(view.flows),
            tuple(sorted(lp)),
            batch_key(inputs),  # all of the round model's inputs but the path's and rates
            # what the batch's one summary takes from the first point's scenario
            tuple((c.start_s, c.stop_s) for c in view.scenario.cbr),
            view.notes,
        )
        groups.setdefault(key, []).append((i, view, lp, inputs))

    for key, members in groups.items():
        n_flows, duration = key[1], members[0][3]["duration_s"]
        members.sort(key=lambda m: m[1].path.d)
        rounds = math.ceil(duration / members[0][1].path.d) + 2  # the shortest base RTT's
        chunk = max(1, min(_ROUNDS_BUDGET // (rounds * n_flows), _ROUNDS_FLOWS_PER_CALL // n_flows))
        stack = [members[lo : lo + chunk] for lo in range(0, len(members), chunk)][::-1]
        while stack:
            part = stack.pop()
            idx = [m[0] for m in part]
            try:
                summaries = _rounds_batch(key, part, sw.rtt_model, sw.options)
            except (ValueError, TypeError, ArithmeticError) as exc:
                # a bad point spoils its batch: bisect down to the offending points
                _log.info("batched round-model call of %d points failed: %s", len(part), exc)
                if len(part) == 1:
                    one(idx[0], _evaluate(sw._task(idx[0], files)))
                else:
                    half = len(part) // 2
                    stack += [part[half:], part[:half]]
                continue
            for i, summ in zip(idx, summaries, strict=True):
                record(i, _Outcome("ok", "", summ))
            bar.update(len(idx))


def _rounds_batch(
    key: tuple[Any, ...],
    part: list[tuple[int, Any, dict[str, float], dict[str, Any]]],
    rtt_model: Any,
    options: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """One :func:`simulate_rounds` call over ``part`` (group ``key``) with the round model's
    ``options`` (its recording aside: the summary reads every round); a summary per point."""
    from ..algorithms.registry import get_law
    from ..fluid._rounds_results import flow_records
    from ..fluid.rounds import PathBatch, simulate_rounds, stack_inputs
    from ..metrics import summarise
    from ..scenarios.mix import with_mix

    alg, n_flows, law_keys = key[:3]
    batch = PathBatch.from_paths([m[1].path for m in part])
    law_arrays = {
        k: np.repeat(np.array([m[2][k] for m in part], dtype=np.float64), n_flows) for k in law_keys
    }
    law = get_law(alg, **law_arrays)
    inputs = stack_inputs([m[3] for m in part])
    duration = inputs["duration_s"]
    trace = simulate_rounds(
        law, batch, n_flows=n_flows, rtt=rtt_model, record=(), **inputs,
        **{k: v for k, v in options.items() if k not in ("record", "record_interval_s")},
    )  # fmt: skip
    # one summary of every point, each row the one tcpfluid.simulate gives its run alone
    view = part[0][1]  # the group's flows, laws, CBR sources and notes are every point's
    sc = with_mix(view.scenario, alg)
    summaries = summarise(
        "rounds",
        sc,
        flow_records(trace, sc.flow_table.names),
        scenarios=len(part),
        end_s=duration,
        carried_pkts=trace.carried_pkts,
        capacity_pps=trace.paths.mu_pps,
        measured_s=(0.0, trace.elapsed_s),
        bottleneck=view.bottleneck,
    )
    return summaries.records(_POINT_KEYS)
