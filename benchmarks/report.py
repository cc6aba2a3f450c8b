"""Where the validation report's time goes: per section, per worker, and the critical path.

Run: ``python benchmarks/report.py [--sections S] [--jobs N] [--cold] [--quick]`` runs
``tcpfluid report`` in a child process (into a temporary directory, or ``--out DIR``) and
analyses the ``report.json`` it writes; ``python benchmarks/report.py --json PATH`` only
analyses an existing ``report.json``. ``--cold`` points ``NUMBA_CACHE_DIR`` at an empty
directory, so the compiled kernels are built as on a fresh clone. ``--warm-up`` runs only
the compile that precedes the pool (``tcpfluid.report._core._warm_up_both``) on an empty
Numba cache, in a child process, and prints its wall and CPU seconds (the child's and its
own child's): the part of a fresh clone's report that no task overlaps.

Printed:

* the command's wall time and CPU time (the child's user + system, when it was run here),
  the report's own figures (``elapsed_s``, ``tasks_cpu_s``, ``main_cpu_s``) and the wall
  time the CPU allows on ``jobs`` cores: ``(tasks CPU + main CPU) / jobs``;
* per section: tasks, their CPU and wall seconds, the longest task, when its last task
  ended and how long its assembly (tables, figures) took in the main process;
* the longest tasks;
* per worker: busy seconds, idle seconds inside the run, when its last task ended;
* the critical path: the chain of tasks on the worker that ended last, and the time
  before the first task started (imports, task lists) and after the last ended;
* the lower bounds of the wall time (longest task; CPU / jobs) and a longest-first
  schedule of the measured task times on ``jobs`` workers; the tasks' CPU seconds
  scheduled on ``jobs`` idle cores in the order they started and longest first (what the
  order costs, whatever the machine's load);
* with ``--target S``: how much CPU the tasks may use for the report to end in ``S``
  seconds on ``jobs`` cores with the measured serial parts.

One JSON line per headline figure follows the table (``{"name", "value", "unit"}``).
Timings on a shared machine: CPU time is the fairer measure.

Reports written before tasks recorded ``started_s`` and ``worker`` are analysed with
``started = ended - wall`` and workers reconstructed greedily (approximate).
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def _run_report(
    sections: str | None, jobs: int, out: Path, *, cold: bool, quick: bool
) -> tuple[float, float]:
    """Run ``tcpfluid report`` in a child process; (wall s, child CPU s)."""
    cmd = [sys.executable, "-m", "tcpfluid.cli", "report", "--jobs", str(jobs), "--out", str(out)]
    cmd += ["--quiet"]
    if sections:
        cmd += ["--sections", sections]
    if quick:
        cmd += ["--quick"]
    env = dict(os.environ)
    cache = None
    if cold:
        cache = tempfile.TemporaryDirectory(prefix="tcpfluid-numba-")
        env["NUMBA_CACHE_DIR"] = cache.name
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, check=True, env=env)
    finally:
        if cache is not None:
            cache.cleanup()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _timeline(tasks: Sequence[Mapping[str, Any]], jobs: int) -> list[dict[str, Any]]:
    """Tasks with ``start``, ``end`` and ``worker`` (recorded, or reconstructed)."""
    out = []
    for t in tasks:
        wall = float(t.get("wall_s", 0.0))
        end = float(t.get("ended_s", 0.0))
        start = float(t["started_s"]) if "started_s" in t else max(end - wall, 0.0)
        out.append({**t, "start": start, "end": end, "worker": t.get("worker")})
    if any(t["worker"] is None for t in out):  # older report: first free worker
        free = [0.0] * max(jobs, 1)
        for t in sorted(out, key=lambda t: t["start"]):
            w = min(range(len(free)), key=lambda k: (free[k] > t["start"] + 1e-3, free[k]))
            t["worker"] = w
            free[w] = t["end"]
    return out


def _in_order(durations: Sequence[float], workers: int) -> float:
    """Makespan of a list schedule of ``durations`` on ``workers``, in the order given
    (each task to the first free worker)."""
    heap = [0.0] * max(workers, 1)
    for d in durations:
        heapq.heappush(heap, heapq.heappop(heap) + d)
    return max(heap)


def _lpt(durations: Sequence[float], workers: int) -> float:
    """Makespan of a longest-first list schedule of ``durations`` on ``workers``."""
    return _in_order(sorted(durations, reverse=True), workers)


def analyse(report: Mapping[str, Any], *, target: float | None = None) -> list[dict[str, Any]]:
    """Print the analysis of a ``report.json``; return the headline figures."""
    jobs = int(report.get("config", {}).get("jobs", 1))
    elapsed = float(report.get("elapsed_s", 0.0))
    tasks = _timeline(report.get("tasks", []), jobs)
    tasks_cpu = float(report.get("tasks_cpu_s", sum(t["cpu_s"] for t in tasks)))
    main_cpu = float(report.get("main_cpu_s", 0.0))
    figures: list[dict[str, Any]] = []

    def fig(name: str, value: float, unit: str = "s") -> None:
        figures.append({"name": f"report/{name}", "value": round(value, 3), "unit": unit})

    print(f"jobs {jobs}; report elapsed {elapsed:.1f} s; {len(tasks)} tasks")
    print(
        f"CPU: tasks {tasks_cpu:.1f} s + main process {main_cpu:.1f} s = "
        f"{tasks_cpu + main_cpu:.1f} s -> {(tasks_cpu + main_cpu) / jobs:.1f} s on {jobs} "
        "core(s) if perfectly packed"
    )
    fig("elapsed", elapsed)
    fig("tasks_cpu", tasks_cpu)
    fig("main_cpu", main_cpu)

    # ------------------------------------------------------------------ per section
    assembly = {
        s["name"]: float(s.get("elapsed_s", 0.0))
        - sum(t["wall_s"] for t in tasks if t["section"] == s["name"])
        for s in report.get("sections", [])
    }
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in tasks:
        by[t["section"]].append(t)
    print()
    print(
        f"{'section':18s} {'tasks':>5s} {'CPU s':>8s} {'wall s':>8s} {'longest':>8s} "
        f"{'last end':>8s} {'assembly':>8s}"
    )
    for name, ts in sorted(by.items(), key=lambda kv: -sum(t["cpu_s"] for t in kv[1])):
        cpu = sum(t["cpu_s"] for t in ts)
        print(
            f"{name:18s} {len(ts):5d} {cpu:8.1f} {sum(t['wall_s'] for t in ts):8.1f} "
            f"{max(t['wall_s'] for t in ts):8.1f} {max(t['end'] for t in ts):8.1f} "
            f"{assembly.get(name, 0.0):8.2f}"
        )
        fig(f"section/{name}/cpu", cpu)
    print(f"{'all':18s} {len(tasks):5d} {tasks_cpu:8.1f}")

    print("\nlongest tasks (wall s, CPU s, start, end, worker):")
    for t in sorted(tasks, key=lambda t: -t["wall_s"])[:12]:
        print(
            f"  {t['wall_s']:7.1f} {t['cpu_s']:7.1f} {t['start']:7.1f} {t['end']:7.1f}  "
            f"w{t['worker']}  {t['label']}"
        )

    # ------------------------------------------------------------------ workers
    if not tasks:
        return figures
    print("\nworkers (busy s, idle s inside the run, first start, last end):")
    lines: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for t in tasks:
        lines[int(t["worker"])].append(t)
    end_all = max(t["end"] for t in tasks)
    for w, ts in sorted(lines.items()):
        ts.sort(key=lambda t: t["start"])
        busy = sum(t["wall_s"] for t in ts)
        print(
            f"  w{w}: busy {busy:7.1f}  idle {end_all - ts[0]['start'] - busy:6.1f}  "
            f"first {ts[0]['start']:6.1f}  last end {ts[-1]['end']:7.1f}  ({len(ts)} tasks)"
        )

    # ------------------------------------------------------------------ critical path
    last = max(lines, key=lambda w: lines[w][-1]["end"])
    chain = lines[last]
    head = min(t["start"] for t in tasks)
    tail = max(elapsed - end_all, 0.0)
    print(
        f"\ncritical path: worker w{last}, {len(chain)} tasks, "
        f"{sum(t['wall_s'] for t in chain):.1f} s of tasks; before the first task "
        f"{head:.1f} s; after the last task {tail:.1f} s"
    )
    per_sec: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for t in chain:
        per_sec[t["section"]][0] += 1
        per_sec[t["section"]][1] += t["wall_s"]
    for name, (n, s) in sorted(per_sec.items(), key=lambda kv: -kv[1][1]):
        print(f"  {name:18s} {int(n):4d} tasks {s:7.1f} s")
    gaps = [(b["start"] - a["end"], a["end"]) for a, b in itertools.pairwise(chain)]
    gaps = [g for g in gaps if g[0] > 0.2]
    if gaps:
        print(
            "  gaps > 0.2 s on it: "
            + ", ".join(f"{g:.1f} s at {at:.1f} s" for g, at in sorted(gaps, reverse=True)[:6])
        )

    # ------------------------------------------------------------------ bounds
    longest = max(t["wall_s"] for t in tasks)
    walls = [t["wall_s"] for t in tasks]
    packed = sum(walls) / jobs
    lpt = _lpt(walls, jobs)
    print(
        f"\nbounds: longest task {longest:.1f} s; task wall / jobs {packed:.1f} s; "
        f"longest-first schedule of the measured task times {lpt:.1f} s; "
        f"+ serial {head + tail:.1f} s -> {max(lpt, longest) + head + tail:.1f} s "
        f"(measured {elapsed:.1f} s)"
    )
    fig("bound/longest_first", max(lpt, longest) + head + tail)
    # the same on idle cores (each task's CPU seconds): the runner's order against longest
    # first, independent of the machine's load
    cpus = [t["cpu_s"] for t in sorted(tasks, key=lambda t: t["start"])]
    in_order, lpt_cpu = _in_order(cpus, jobs), _lpt(cpus, jobs)
    print(
        f"tasks' CPU seconds scheduled on {jobs} idle cores: in the order they started "
        f"{in_order:.1f} s, longest first {lpt_cpu:.1f} s"
    )
    fig("schedule/in_order_cpu", in_order)
    fig("schedule/longest_first_cpu", lpt_cpu)
    fig("idle", elapsed * jobs - sum(walls))
    if target is not None:
        budget = (target - head - tail) * jobs - main_cpu
        print(
            f"target {target:.0f} s wall on {jobs} cores with these serial parts: tasks may use "
            f"<= {budget:.0f} s CPU (now {tasks_cpu:.0f} s: cut {tasks_cpu - budget:.0f} s)"
        )
        fig("target/task_cpu_budget", budget)
    return figures


_WARM_UP = (
    "import time; t0 = time.perf_counter(); "
    "from tcpfluid.report._core import _warm_up_both; t1 = time.perf_counter(); "
    "_warm_up_both(); print(t1 - t0, time.perf_counter() - t1)"
)


def _warm_up_only() -> list[dict[str, Any]]:
    """The report's compile before its pool, on an empty Numba cache: wall and CPU."""
    with tempfile.TemporaryDirectory(prefix="tcpfluid-numba-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(
            [sys.executable, "-c", _WARM_UP], env=env, check=True, capture_output=True, text=True
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    imports, wall = (float(x) for x in out.stdout.split())
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"cold warm-up: {wall:.1f} s wall after {imports:.1f} s of imports; {cpu:.1f} s CPU "
          "(imports included, both processes)")  # fmt: skip
    return [
        {"name": "report/warm_up/cold_wall", "value": round(wall, 3), "unit": "s"},
        {"name": "report/warm_up/cold_cpu", "value": round(cpu, 3), "unit": "s"},
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--json", type=Path, help="analyse this report.json (nothing is run)")
    ap.add_argument("--sections", help="comma-separated sections (default: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="run the --quick report")
    ap.add_argument("--cold", action="store_true", help="empty Numba cache (fresh clone)")
    ap.add_argument("--out", type=Path, help="report directory (default: a temporary one)")
    ap.add_argument("--warm-up", action="store_true", help="only the cold compile before the pool")
    ap.add_argument("--target", type=float, default=120.0, help="wall seconds to budget for")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error(f"--jobs must be >= 1, got {args.jobs}")
    figures: list[dict[str, Any]] = []
    if args.warm_up:
        for f in _warm_up_only():
            print(json.dumps(f))
        return 0
    if args.json is not None:
        report = json.loads(args.json.read_text())
    else:
        with tempfile.TemporaryDirectory(prefix="tcpfluid-report-") as tmp:
            out = args.out if args.out is not None else Path(tmp) / "report"
            wall, cpu = _run_report(args.sections, args.jobs, out, cold=args.cold, quick=args.quick)
            report = json.loads((out / "report.json").read_text())
        print(
            f"command: {wall:.1f} s wall, {cpu:.1f} s CPU (user + system of the child and its "
            f"workers){'; cold Numba cache' if args.cold else ''}"
        )
        figures += [
            {"name": "report/command_wall", "value": round(wall, 3), "unit": "s"},
            {"name": "report/command_cpu", "value": round(cpu, 3), "unit": "s"},
        ]
    figures += analyse(report, target=args.target)
    for f in figures:
        print(json.dumps(f))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
