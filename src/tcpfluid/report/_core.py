"""Report machinery: configuration, tasks, sections, the parallel runner and progress bar.

A section is split into independent **tasks** (one packet-simulator run, one batched
round-model sweep, ...) that return small picklable results (numbers and down-sampled
traces, never whole simulator results), and an **assemble** step that turns the task
results into tables and figures in the main process. Tasks of all chosen sections run
in one pool (``jobs`` processes, :class:`concurrent.futures.ProcessPoolExecutor`) or in
process (``jobs=1``); results are put back in task order, so the report is identical
whatever ``jobs`` is.
"""

from __future__ import annotations

import importlib
import io
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, TextIO

from ._table import Table

__all__ = [
    "Figure",
    "Report",
    "ReportConfig",
    "SectionResult",
    "SectionSpec",
    "Task",
    "run_tasks",
]


@dataclass(frozen=True)
class ReportConfig:
    """Options of a report run.

    Attributes
    ----------
    quick
        Smaller grids, fewer points and scaled-down many-flow scenarios (for CI); the
        tables then say which document values cannot be compared.
    jobs
        Worker processes (1: run in this process).
    """

    quick: bool = False
    jobs: int = 1

    def __post_init__(self) -> None:
        if not isinstance(self.quick, bool):
            raise TypeError(f"quick must be True or False, got {self.quick!r}")
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ValueError(f"jobs must be an integer >= 1, got {self.jobs!r}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return {"quick": self.quick, "jobs": self.jobs}


@dataclass(frozen=True)
class Task:
    """One unit of work: ``function(**kwargs)`` with ``function`` a ``"module:name"`` path
    (so that it pickles to a worker process)."""

    function: str
    kwargs: Mapping[str, Any]
    label: str = ""

    def run(self) -> Any:
        """Import the function and call it."""
        mod, _, name = self.function.partition(":")
        fn = getattr(importlib.import_module(mod), name)
        return fn(**dict(self.kwargs))


def _run_task(task: Task) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = task.run()
    return out, time.perf_counter() - t0


@dataclass(frozen=True)
class Figure:
    """A rendered figure.

    Attributes
    ----------
    name
        File stem (``"critical_window"``); written as ``<name>.png`` and ``<name>.svg``.
    caption
        What it shows and which document figure it corresponds to.
    png, svg
        The image bytes.
    """

    name: str
    caption: str
    png: bytes
    svg: bytes

    def to_dict(self) -> dict[str, Any]:
        """Name and caption (the images are files)."""
        return {"name": self.name, "caption": self.caption}

    @classmethod
    def from_matplotlib(cls, fig: Any, name: str, caption: str, *, dpi: int = 110) -> Figure:
        """Render a matplotlib figure (then close it)."""
        import matplotlib.pyplot as plt

        png, svg = io.BytesIO(), io.BytesIO()
        fig.savefig(png, format="png", dpi=dpi, bbox_inches="tight")
        fig.savefig(svg, format="svg", bbox_inches="tight")
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
        }


class Progress:
    """A small progress bar on a text stream (stderr by default); silent when disabled.

    Uses :mod:`tqdm` (a declared dependency) when the stream is a terminal, and plain
    ``[k/n] label`` lines otherwise (logs of CI runs stay readable).
    """

    def __init__(self, total: int, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.total = total
        self.done = 0
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self._bar: Any = None
        if enabled and hasattr(self.stream, "isatty") and self.stream.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, file=self.stream, unit="task", desc="report")

    def update(self, label: str) -> None:
        """One more task finished."""
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(label[:40])
            self._bar.update(1)
        else:
            width = 24
            filled = int(width * self.done / max(self.total, 1))
            bar = "#" * filled + "-" * (width - filled)
            self.stream.write(f"report [{bar}] {self.done}/{self.total} {label}\n")
            self.stream.flush()

    def close(self) -> None:
        """Finish the bar."""
        if self._bar is not None:
            self._bar.close()


def run_tasks(
    tasks: Sequence[Task],
    *,
    jobs: int = 1,
    progress: Progress | None = None,
    executor: Executor | None = None,
) -> list[Any]:
    """Run ``tasks`` and return ``(result, seconds)`` pairs **in task order** (the results
    do not depend on ``jobs``; the seconds are each task's own wall time)."""
    results: list[Any] = [None] * len(tasks)
    if jobs == 1 and executor is None:
        for i, t in enumerate(tasks):
            results[i] = _run_task(t)
            if progress is not None:
                progress.update(t.label)
        return results
    own = executor is None
    ex = executor if executor is not None else ProcessPoolExecutor(max_workers=jobs)
    try:
        # the longest tasks first keeps the pool busy; order of submission does not change
        # the results, which are indexed by task
        futs = {ex.submit(_run_task, t): i for i, t in enumerate(tasks)}
        for fut in as_completed(futs):
            i = futs[fut]
            results[i] = fut.result()
            if progress is not None:
                progress.update(tasks[i].label)
    finally:
        if own:
            ex.shutdown(wait=True, cancel_futures=True)
    return results


def run_sections(
    specs: Sequence[SectionSpec],
    config: ReportConfig,
    *,
    progress: bool = True,
    stream: TextIO | None = None,
) -> Report:
    """Run the tasks of ``specs`` (all in one pool) and assemble each section."""
    t0 = time.perf_counter()
    per: list[list[Task]] = [s.tasks(config) for s in specs]
    flat = [t for ts in per for t in ts]
    bar = Progress(len(flat), enabled=progress, stream=stream)
    try:
        out = run_tasks(flat, jobs=config.jobs, progress=bar)
    finally:
        bar.close()
    sections = []
    k = 0
    for spec, ts in zip(specs, per, strict=True):
        s0 = time.perf_counter()
        chunk = out[k : k + len(ts)]
        res = spec.assemble(config, [r for r, _ in chunk])
        k += len(ts)
        sections.append(
            SectionResult(
                res.name,
                res.title,
                res.intro,
                res.tables,
                res.figures,
                res.notes,
                elapsed_s=sum(s for _, s in chunk) + time.perf_counter() - s0,
            )
        )
    return Report(config, tuple(sections), time.perf_counter() - t0, _versions())


def _versions() -> dict[str, str]:
    import matplotlib
    import numpy
    import scipy

    from .. import __version__

    return {
        "tcpfluid": __version__,
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "matplotlib": matplotlib.__version__,
        "cpus": str(os.cpu_count() or 0),
    }


def finite(x: Any) -> bool:
    """True for a finite real number."""
    try:
        return math.isfinite(float(x))
    except (TypeError, ValueError):
        return False
