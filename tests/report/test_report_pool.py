"""The report's task pool, called directly: a long task's fractions move the progress bar
while it runs (in this process and through the workers' queue), and the pool is capped at
the tasks and the CPUs.

Private-name unit tests: the bar's intermediate fractions are not drawn as frames a
terminal keeps (the bar redraws at most 10 times a second and tqdm's own interval), and the
pool's size is seen only by replacing the pool; :func:`tcpfluid.report.build_report`, the
public route, is tested in test_report.py.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

import tcpfluid.sweep.execution as sweep_exec
from tcpfluid.report import SECTIONS, ReportConfig, Task
from tcpfluid.report._core import Progress, run_tasks


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _section_function(section: str, name: str) -> str:
    """The ``module:name`` path of a task function the report's ``section`` uses."""
    tasks = SECTIONS[section].tasks(ReportConfig(quick=True))
    return next(t.function for t in tasks if t.function.endswith(f":{name}"))


def _packet_task(label: str) -> Task:
    return Task(
        _section_function("basic", "packet_run"),
        {"scenario": "qv-basic", "algorithm": "vegas", "overrides": {"duration": "20s"}},
        label,
    )


def test_a_long_task_moves_the_bar_while_it_runs() -> None:
    calls: list[tuple[int, float]] = []

    class Recording(Progress):
        def partial(self, index: int, fraction: float) -> None:
            calls.append((index, fraction))
            super().partial(index, fraction)

    tasks = [_packet_task("a"), _packet_task("b")]
    bar = Recording(tasks, stream=_Tty())
    run_tasks(tasks, jobs=1, progress=bar)
    bar.close()
    # the packet engine reported fractions of each task, ending at 1.0
    assert {i for i, _ in calls} == {0, 1}
    assert max(f for i, f in calls if i == 0) == 1.0
    # in worker processes the fractions travel through a queue; the run completes the same
    stream = _Tty()
    bar2 = Progress(tasks, stream=stream)
    out = run_tasks(tasks, jobs=2, progress=bar2)
    bar2.close()
    assert out[0][0]["data_packets"] == out[1][0]["data_packets"] > 0
    assert "100%" in stream.getvalue()


class _PoolSeen(Exception):
    pass


def test_report_workers_are_capped_at_the_tasks_and_the_cpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[int] = []

    def fake_pool(workers: int, *_: Any) -> Any:
        seen.append(workers)
        raise _PoolSeen

    monkeypatch.setattr(sweep_exec, "_new_pool", fake_pool)
    monkeypatch.setattr(sweep_exec, "usable_cpus", lambda: 4)
    tasks = [Task("builtins:dict", {"a": i}, label=f"t{i}", cost=1.0) for i in range(6)]
    for jobs, expected in ((10**9, 4), (100, 4), (3, 3)):
        with pytest.raises(_PoolSeen):
            run_tasks(tasks, jobs=jobs)
        assert seen.pop() == expected
    # one task: no pool at all, whatever jobs asks
    assert run_tasks(tasks[:1], jobs=100)[0][0] == {"a": 0}
    assert seen == []
