"""Report machinery: configuration, tasks, sections, the parallel runner and progress bar.

A section is split into independent **tasks** (one engine run each, returning small
picklable results) and an **assemble** step that turns their results into tables and
figures in the main process; results are put back in task order, so the report does not
depend on ``jobs`` (docs/report.md, "Where the report's time goes").
"""

from __future__ import annotations

import functools
import importlib
import io
import itertools
import math
import os
import sys
import time
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any, TextIO

from .._json import FieldsDict
from ._table import Table


@cache
def _texts() -> dict[str, dict[str, Any]]:
    return tomllib.loads(resources.files(__package__).joinpath("prose.toml").read_text("utf-8"))


def texts(section: str) -> dict[str, Any]:
    """Every entry of ``section`` in ``prose.toml`` (the report's texts), as written."""
    return _texts()[section]


def prose(section: str, key: str, **fields: Any) -> str:
    """The text ``key`` of ``section`` in ``prose.toml``, its ``{name}`` fields filled in."""
    return _texts()[section][key].format(**fields)


@dataclass(frozen=True)
class ReportConfig(FieldsDict):
    """Options of a report run: ``quick``, smaller grids and scaled-down many-flow
    scenarios (for CI); ``jobs``, worker processes (1: run in this process)."""

    quick: bool = False
    jobs: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.quick, bool):
            raise TypeError(f"quick must be True or False, got {self.quick!r}")
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ValueError(f"jobs must be an integer >= 1, got {self.jobs!r}")


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(**kwargs)`` with ``function`` a ``"module:name"`` path
    (so that it pickles to a worker process)."""

    function: str
    kwargs: Mapping[str, Any]
    label: str = ""
    #: estimated seconds on one core (``None``: 1): the progress bar's step, nothing else
    cost: float | None = None

    def run(self) -> Any:
        """Import the function and call it."""
        mod, _, name = self.function.partition(":")
        fn = getattr(importlib.import_module(mod), name)
        return fn(**dict(self.kwargs))


#: in a report worker process with a progress bar: the queue its tasks report to
_PROGRESS_QUEUE: Any = None
#: the progress callable of the task running in this process (None: nobody draws)
_CURRENT: Callable[[float], None] | None = None


def current_progress() -> Callable[[float], None] | None:
    """The ``progress`` callable of the report task running in this process (``None``
    when no progress bar is drawn): a task function passes it to a long engine run."""
    return _CURRENT


def _init_progress(queue: Any) -> None:
    """Pool worker set-up: its tasks report their progress to ``queue``."""
    global _PROGRESS_QUEUE
    _PROGRESS_QUEUE = queue


class _Forward:
    """A task's progress in a worker: ``(index, fraction)`` to the parent, <= 2 a second."""

    def __init__(self, index: int) -> None:
        self.index = index
        self._last = -math.inf

    def __call__(self, fraction: float) -> None:
        now = time.monotonic()
        if fraction < 1.0 and now - self._last < 0.5:
            return
        self._last = now
        try:
            _PROGRESS_QUEUE.put_nowait((self.index, float(fraction)))
        except Exception:  # progress must never fail a run
            pass


def _run_task(
    task: Task, index: int | None = None, local: Callable[[float], None] | None = None
) -> tuple[Any, float, float, float, int]:
    """``(result, wall seconds, CPU seconds, start, process id)`` of ``task``; ``start``
    is :func:`time.monotonic` (one clock for all the processes of the machine)."""
    global _CURRENT
    if local is not None:
        _CURRENT = local
    elif _PROGRESS_QUEUE is not None and index is not None:
        _CURRENT = _Forward(index)
    start = time.monotonic()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        out = task.run()
    finally:
        _CURRENT = None
    return out, time.perf_counter() - t0, time.process_time() - c0, start, os.getpid()


@dataclass(frozen=True)
class Figure:
    """A rendered figure: file stem ``name`` (written as ``<name>.png`` and
    ``<name>.svg``), ``caption`` and the image bytes."""

    name: str
    caption: str
    png: bytes
    svg: bytes

    def to_dict(self) -> dict[str, Any]:
        """Name and caption (the images are files)."""
        return {"name": self.name, "caption": self.caption}

    @classmethod
    def from_matplotlib(cls, fig: Any, name: str, caption: str, *, dpi: int = 110) -> Figure:
        """Render a matplotlib figure (then close it), both images with one tight bounding
        box computed once."""
        import matplotlib
        import matplotlib.pyplot as plt

        fig.set_dpi(dpi)
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        box = box.padded(float(matplotlib.rcParams["savefig.pad_inches"]))
        png, svg = io.BytesIO(), io.BytesIO()
        fig.savefig(png, format="png", dpi=dpi, bbox_inches=box)
        fig.savefig(svg, format="svg", bbox_inches=box)
        plt.close(fig)
        return cls(name, caption, png.getvalue(), svg.getvalue())


@dataclass(frozen=True)
class SectionResult:
    """What one section contributes: text, tables and figures."""

    name: str
    title: str
    intro: str
    tables: tuple[Table, ...]
    figures: tuple[Figure, ...] = ()
    notes: tuple[str, ...] = ()
    #: wall time of the section's tasks (summed over workers) and of its assembly, s
    elapsed_s: float = 0.0
    #: why a row compares what it compares where that is not the obvious reading
    comparisons: tuple[str, ...] = ()

    @property
    def n_rows(self) -> int:
        """Rows over all tables."""
        return sum(len(t.rows) for t in self.tables)

    @property
    def n_disagreements(self) -> int:
        """Rows whose verdict is DIFFERS."""
        return sum(t.n_disagreements for t in self.tables)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "name": self.name,
            "title": self.title,
            "intro": self.intro,
            "tables": [t.to_dict() for t in self.tables],
            "figures": [f.to_dict() for f in self.figures],
            "notes": list(self.notes),
            "comparisons": list(self.comparisons),
            "elapsed_s": self.elapsed_s,
        }


@dataclass(frozen=True)
class SectionSpec:
    """A section of the report: its tasks and how to assemble their results."""

    name: str
    title: str
    tasks: Callable[[ReportConfig], list[Task]]
    assemble: Callable[[ReportConfig, list[Any]], SectionResult]


@dataclass(frozen=True)
class Report:
    """A finished report."""

    config: ReportConfig
    sections: tuple[SectionResult, ...]
    elapsed_s: float
    versions: Mapping[str, str] = field(default_factory=dict)
    #: per task: section, label, wall and CPU seconds, start and end (s after the
    #: report's start) and worker (``benchmarks/report.py``)
    tasks: tuple[Mapping[str, Any], ...] = ()
    #: CPU seconds of this process (the report's own work: scheduling, tables, figures)
    main_cpu_s: float = 0.0

    @property
    def tasks_cpu_s(self) -> float:
        """CPU seconds of all tasks (summed over the workers)."""
        return float(sum(float(t.get("cpu_s", 0.0)) for t in self.tasks))

    @property
    def n_rows(self) -> int:
        """Compared rows over all sections."""
        return sum(s.n_rows for s in self.sections)

    @property
    def n_disagreements(self) -> int:
        """Rows whose verdict is DIFFERS."""
        return sum(s.n_disagreements for s in self.sections)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "config": self.config.to_dict(),
            "elapsed_s": self.elapsed_s,
            "versions": dict(self.versions),
            "sections": [s.to_dict() for s in self.sections],
            "tasks": [dict(t) for t in self.tasks],
            "tasks_cpu_s": round(self.tasks_cpu_s, 3),
            "main_cpu_s": round(self.main_cpu_s, 3),
        }


class Progress:
    """Tasks done (each by its ``cost``) and the fractions running tasks report, as a
    :func:`tcpfluid._progress.progress_bar` on ``stream`` (drawn on a terminal only)."""

    def __init__(
        self, tasks: Sequence[Task], *, enabled: bool = True, stream: TextIO | None = None
    ) -> None:
        from .._progress import progress_bar

        self.total = len(tasks)
        self.done = 0
        self._labels = [t.label for t in tasks]
        self._costs = [1.0 if t.cost is None else float(t.cost) for t in tasks]
        self._weight = sum(self._costs) or 1.0
        self._sum = 0.0
        self._running: dict[int, float] = {}
        self._finished: set[int] = set()
        self._bar = progress_bar(f"report ({self.total} tasks)", enabled=enabled, stream=stream)

    @property
    def active(self) -> bool:
        """True when the bar is drawn (enabled, on a terminal)."""
        return bool(self._bar.active)

    def partial(self, index: int, fraction: float) -> None:
        """Task ``index`` (of the list given) is ``fraction`` done."""
        if not 0 <= index < self.total or index in self._finished:
            return  # a late message of a task already counted as done
        self._running[index] = min(max(float(fraction), 0.0), 1.0)
        running = sum(self._costs[i] * f for i, f in self._running.items())
        self._bar(min((self._sum + running) / self._weight, 0.999))

    def update(self, index: int) -> None:
        """Task ``index`` finished."""
        self.done += 1
        self._sum += self._costs[index]
        self._running.pop(index, None)
        self._finished.add(index)
        self._bar.note(f"{self.done}/{self.total} {self._labels[index]}")
        self._bar(1.0 if self.done >= self.total else self._sum / self._weight)

    def close(self) -> None:
        """Finish the bar."""
        self._bar.close()


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    on_result: Callable[[int, Any], None] | None = None,
) -> list[Any]:
    """Run ``tasks`` on :func:`tcpfluid.sweep.execution.run_on_pool` (one worker: in this
    process) and return each one's :func:`_run_task` tuple **in task order**, calling
    ``on_result(index, item)`` in this process as each finishes. The kernels are compiled
    before the pool forks (docs/report.md, "One compile")."""
    from ..sweep.execution import pool_size, run_on_pool

    results: list[Any] = [None] * len(tasks)

    def finished(i: int, item: Any) -> None:
        results[i] = item
        if progress is not None:
            progress.update(i)
        if on_result is not None:
            on_result(i, item)

    bar = progress if progress is not None and progress.active else None  # drawn
    n = pool_size(jobs, len(tasks))
    if n == 1:
        for i, t in enumerate(tasks):
            finished(i, _run_task(t, i, None if bar is None else functools.partial(bar.partial, i)))
        return results
    _warm_up_both()
    queue: Any = None
    if bar is not None:
        import multiprocessing

        queue = multiprocessing.get_context().Queue()  # the workers' in-task progress
    try:
        run_on_pool(
            _run_task,
            ((i, (t, i)) for i, t in enumerate(tasks)),
            lambda i, fut: finished(i, fut.result()),
            workers=n,
            initializer=None if bar is None else functools.partial(_init_progress, queue),
            tick=None if bar is None else functools.partial(_drain, queue, bar),
        )
    finally:
        if queue is not None:
            queue.close()
            queue.join_thread()
    return results


def _warm_up_both() -> None:
    """Compile (or load from Numba's cache) every kernel in this process before the pool
    forks: the packet simulator's and the round model's here while a forked child compiles
    the hybrid model's into the cache (the longest compile, about as long as the others
    together), then the hybrid's loaded here."""
    import multiprocessing

    from ._runs import warm_up_hybrid, warm_up_packets

    child = None
    if "fork" in multiprocessing.get_all_start_methods():
        child = multiprocessing.get_context("fork").Process(target=warm_up_hybrid)
        child.start()
    try:
        warm_up_packets()
    finally:
        if child is not None:
            child.join()
    warm_up_hybrid()


def _drain(queue: Any, progress: Progress) -> None:
    """Move the workers' ``(index, fraction)`` messages onto the bar."""
    import queue as queue_module

    latest: dict[int, float] = {}
    while True:
        try:
            i, f = queue.get_nowait()
        except queue_module.Empty:
            break
        latest[int(i)] = float(f)
    for i, f in latest.items():
        progress.partial(i, f)


def run_sections(
    specs: Sequence[SectionSpec],
    config: ReportConfig,
    *,
    progress: bool = True,
    stream: TextIO | None = None,
) -> Report:
    """Run the tasks of ``specs`` in one pool and assemble each section in this process as
    soon as its last task is in (while the pool runs the others)."""
    t0, c0, m0 = time.perf_counter(), time.process_time(), time.monotonic()
    per: list[list[Task]] = [s.tasks(config) for s in specs]
    flat = [t for ts in per for t in ts]
    owner = [j for j, ts in enumerate(per) for _ in ts]
    first = [0, *itertools.accumulate(len(ts) for ts in per)]
    remaining = [len(ts) for ts in per]
    items: list[Any] = [None] * len(flat)
    timings: list[dict[str, Any]] = [{} for _ in flat]
    done: list[SectionResult | None] = [None] * len(specs)
    workers: dict[int, int] = {}  # process id -> worker number, in order of first task

    def assemble(j: int) -> None:
        s0 = time.perf_counter()
        chunk = items[first[j] : first[j + 1]]
        res = specs[j].assemble(config, [r[0] for r in chunk])
        done[j] = replace(res, elapsed_s=sum(r[1] for r in chunk) + time.perf_counter() - s0)

    def on_result(i: int, item: Any) -> None:
        items[i] = item
        _, wall, cpu, start, pid = item
        started = max(start - m0, 0.0)
        ended = min(started + wall, time.perf_counter() - t0)
        secs = {"wall_s": wall, "cpu_s": cpu, "started_s": started, "ended_s": ended}
        timings[i] = {"section": specs[owner[i]].name, "label": flat[i].label}
        timings[i] |= {k: round(v, 3) for k, v in secs.items()}
        timings[i]["worker"] = workers.setdefault(int(pid), len(workers))
        remaining[owner[i]] -= 1
        if remaining[owner[i]] == 0:
            assemble(owner[i])

    bar = Progress(flat, enabled=progress, stream=stream)
    try:
        for j, n in enumerate(remaining):
            if n == 0:  # a section without tasks
                assemble(j)
        run_tasks(flat, jobs=config.jobs, progress=bar, on_result=on_result)
    finally:
        bar.close()
    sections = tuple(d for d in done if d is not None)
    tasks_cpu = sum(float(t.get("cpu_s", 0.0)) for t in timings)  # in this process if jobs=1
    if len(sections) != len(specs):  # pragma: no cover - every task reports or raises
        raise RuntimeError("a report section was not assembled")
    main_cpu = max(time.process_time() - c0 - (tasks_cpu if config.jobs == 1 else 0), 0.0)
    elapsed = time.perf_counter() - t0
    return Report(config, sections, elapsed, _versions(), tuple(timings), main_cpu_s=main_cpu)


def _versions() -> dict[str, str]:
    import matplotlib
    import numpy
    import scipy

    from .. import __version__

    libs = {m.__name__: m.__version__ for m in (numpy, scipy, matplotlib)}
    python = sys.version.split()[0]
    return {"tcpfluid": __version__, "python": python, **libs, "cpus": str(os.cpu_count() or 0)}
