"""``benchmarks/report.py``: the schedule analysis of a report.json, on a hand-made one."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "report.py"


def _module() -> Any:
    spec = importlib.util.spec_from_file_location("benchmark_report", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _task(section: str, label: str, start: float, wall: float, worker: int) -> dict[str, Any]:
    return {
        "section": section,
        "label": label,
        "wall_s": wall,
        "cpu_s": wall,
        "started_s": start,
        "ended_s": start + wall,
        "worker": worker,
    }


def test_the_analysis_finds_the_idle_time_the_critical_path_and_the_bounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # worker 0: a (0-10), c (12-14); worker 1: b (0-6), d (6-9); the report ends at 15
    tasks = [
        _task("long", "a", 0.0, 10.0, 0),
        _task("short", "b", 0.0, 6.0, 1),
        _task("short", "c", 12.0, 2.0, 0),
        _task("short", "d", 6.0, 3.0, 1),
    ]
    report = {
        "config": {"jobs": 2},
        "elapsed_s": 15.0,
        "tasks": tasks,
        "tasks_cpu_s": 21.0,
        "main_cpu_s": 1.0,
        "sections": [{"name": "long", "elapsed_s": 10.5}, {"name": "short", "elapsed_s": 11.0}],
    }
    figures = {f["name"]: f["value"] for f in _module().analyse(report, target=12.0)}
    text = capsys.readouterr().out
    # (21 + 1) / 2 = 11 s if perfectly packed
    assert "-> 11.0 s on 2 core(s)" in text
    # worker 0 is idle 2 s between its tasks, worker 1 for 5 s after its last one
    assert "w0: busy    12.0  idle    2.0" in text
    assert "w1: busy     9.0  idle    5.0" in text
    # the worker that ended last (w0 at 14 s) carries the critical path; 1 s after it
    assert "critical path: worker w0, 2 tasks, 12.0 s of tasks" in text
    assert "after the last task 1.0 s" in text
    assert "gaps > 0.2 s on it: 2.0 s at 10.0 s" in text
    # longest first on 2 workers: 10 | 6 + 3 + 2 = 11 -> 11 s, plus the 1 s after the tasks
    assert figures["report/bound/longest_first"] == pytest.approx(12.0)
    # the CPU seconds on 2 idle cores in the order the tasks started (a, b, d, c):
    # 10 | 6 + 3 + 2 = 11 s, the same as longest first here
    assert figures["report/schedule/in_order_cpu"] == pytest.approx(11.0)
    assert figures["report/schedule/longest_first_cpu"] == pytest.approx(11.0)
    # 2 workers x 15 s - 21 s of tasks
    assert figures["report/idle"] == pytest.approx(9.0)
    # 12 s on 2 cores, 1 s serial, 1 s main CPU: the tasks may use (12 - 1) x 2 - 1 = 21 s
    assert figures["report/target/task_cpu_budget"] == pytest.approx(21.0)
    # per section: tasks, CPU, wall, longest, last end, and the assembly (the section's
    # elapsed time less its tasks' wall time: 10.5 - 10 and 11 - 11)
    assert figures["report/section/long/cpu"] == pytest.approx(10.0)
    assert re.search(r"^long +1 +10\.0 +10\.0 +10\.0 +10\.0 +0\.50$", text, re.M)
    assert re.search(r"^short +3 +11\.0 +11\.0 +6\.0 +14\.0 +0\.00$", text, re.M)


def test_the_order_of_a_list_schedule_can_cost_time(capsys: pytest.CaptureFixture[str]) -> None:
    # CPU seconds 1, 1, 2 started in that order on two idle cores: in order 1 | 1 + 2 = 3;
    # longest first 2 | 1 + 1 = 2
    tasks = [
        _task("s", "a", 0.0, 1.0, 0),
        _task("s", "b", 0.1, 1.0, 1),
        _task("s", "c", 1.0, 2.0, 0),
    ]
    report = {"config": {"jobs": 2}, "elapsed_s": 3.0, "tasks": tasks}
    figures = {f["name"]: f["value"] for f in _module().analyse(report)}
    capsys.readouterr()
    assert figures["report/schedule/in_order_cpu"] == pytest.approx(3.0)
    assert figures["report/schedule/longest_first_cpu"] == pytest.approx(2.0)
    # the bound schedules the wall times longest first: 2 s, no serial part before the
    # first task or after the last one (the report ends at 3 s, when c ends)
    assert figures["report/bound/longest_first"] == pytest.approx(2.0)


def test_an_older_report_without_start_times_is_placed_on_the_first_free_worker(
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = [
        {"section": "s", "label": "a", "wall_s": 4.0, "cpu_s": 4.0, "ended_s": 4.0},
        {"section": "s", "label": "b", "wall_s": 1.0, "cpu_s": 1.0, "ended_s": 1.0},
        {"section": "s", "label": "c", "wall_s": 2.0, "cpu_s": 2.0, "ended_s": 3.0},
    ]
    _module().analyse({"config": {"jobs": 2}, "elapsed_s": 4.0, "tasks": old})
    text = capsys.readouterr().out
    # the longest tasks' lines: wall, CPU, start, end, worker, label
    row = re.compile(r"^ +\S+ +\S+ +(\S+) +\S+ +w(\d+) +(\w)$", re.M)
    lines = {label: (float(start), int(w)) for start, w, label in row.findall(text)}
    # a and b start at 0 on two workers; c starts at 1, when b's worker is free
    assert lines == {"a": (0.0, 0), "b": (0.0, 1), "c": (1.0, 1)}
    # w1 carries b then c: 3 s busy, idle 1 s of the 4 s until a ends
    assert "w1: busy     3.0  idle    1.0" in text
