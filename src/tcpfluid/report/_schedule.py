"""The order in which the report's pool runs its tasks: estimated costs, longest first,
and one Numba compile shared by the workers (see :func:`tcpfluid.report._core.run_tasks`).
Only the order depends on anything here, never a result."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core import Task

__all__ = ["QUEUED_OPEN_S", "QUEUED_S", "SMALL_S", "WARMUP_S", "estimate_cost", "schedule"]


#: functions of tasks that run the packet simulator (Numba-compiled, cached on disk)
_COMPILING = ("packet_run", "thesis_run")
#: seconds of other tasks started right after the first packet run (see :func:`schedule`)
WARMUP_S = 30.0
#: estimated seconds of tasks kept queued in the pool behind the running ones while the
#: packet tasks wait for the first one to compile (see :class:`_CompileGate`): longer than
#: the longest section assembly (a few seconds of figures) times the workers. Once that
#: first task is done every remaining task is queued (:data:`QUEUED_OPEN_S`)
QUEUED_S = 10.0
#: the same once the gate is open: every remaining task. The estimates are rough (the
#: short tasks' run 2 to 50 times shorter than estimated), and a pool whose queue runs dry
#: while this process draws a section's figures leaves every worker idle (seen: both
#: workers idle 1.9 s during a 2.3 s assembly with 10 estimated seconds queued); the pool
#: starts the tasks in the order they were submitted, so the order stays the same
QUEUED_OPEN_S = math.inf

#: tasks estimated below this many seconds are the end of the order, grouped by section (see
#: :func:`schedule`)
SMALL_S = 1.0

#: seconds per simulated packet slot of the bottleneck and per flow-round, one core
#: (order of magnitude of the packet simulator; only the order of the tasks depends on it)
_S_PER_PACKET = 1.0e-6
_S_PER_FLOW_ROUND = 5.0e-5
_S_PER_ROUND_STEP = 5.0e-4


def _scenario_size(kwargs: Mapping[str, Any]) -> tuple[float, float]:
    """(packet slots of the slowest link over the run, flow-rounds) of a scenario task."""
    from ..scenarios import build_scenario

    sc = build_scenario(kwargs["scenario"], **dict(kwargs.get("overrides", {})))
    rate_pps = min(lk.rate_bps for lk in sc.links) / (8.0 * sc.packet_size_bytes)
    rounds = 0.0
    for f in sc.flows:
        active = max(min(f.stop_s, sc.duration_s) - f.start_s, 0.0)
        rounds += active / max(sc.base_rtt_s(f), 1e-3)
    return rate_pps * sc.duration_s, rounds


def _scenario_steps(kwargs: Mapping[str, Any]) -> float:
    """Rounds of the shortest-RTT flow over the run (steps of the batched round model)."""
    from ..scenarios import build_scenario

    sc = build_scenario(kwargs["scenario"], **dict(kwargs.get("overrides", {})))
    rtt = min((sc.base_rtt_s(f) for f in sc.flows), default=0.1)
    return sc.duration_s / max(rtt, 1e-3)


def estimate_cost(task: Task) -> float:
    """Estimated seconds of ``task`` on one core: its own ``cost`` when given; else, for
    the report's engine runs, packet slots of the bottleneck and flow-rounds of the
    scenario (packet runs), flow-rounds (round model, ODE); 1 s otherwise. Only the order
    in which a pool starts the tasks (longest first) depends on it, never a result."""
    if task.cost is not None:
        return float(task.cost)
    name = task.function.rpartition(":")[2]
    try:
        if name == "packet_run":
            slots, rounds = _scenario_size(task.kwargs)
            return 0.2 + slots * _S_PER_PACKET + rounds * _S_PER_FLOW_ROUND
        if name == "rounds_run":  # flows are batched: one step per round of the run
            steps = _scenario_steps(task.kwargs)
            return 0.2 + steps * _S_PER_ROUND_STEP
        if name == "ode_run":
            _, rounds = _scenario_size(task.kwargs)
            return 0.5 + rounds * _S_PER_FLOW_ROUND / 10.0
        if name == "rounds_bdp_batch":
            return 0.1
    except (KeyError, TypeError, ValueError):
        return 0.1  # the task will report its own error quickly
    return 1.0


def schedule(
    costs: Sequence[float],
    compiles: Sequence[bool] | None = None,
    *,
    groups: Sequence[int] | None = None,
    finish_s: Mapping[int, float] | None = None,
) -> list[int]:
    """Task indices in the order a pool should start them: longest estimated cost first
    (ties: task order).

    With ``compiles`` (which tasks run the Numba-compiled packet simulator): the first
    task is followed by enough tasks that do not (about :data:`WARMUP_S` seconds of them),
    so that on a cold Numba cache one worker compiles the kernels and writes the cache
    while the others run round-model and ODE tasks, instead of every worker compiling the
    same kernels at once.

    With ``groups`` (the section of each task) and ``finish_s`` (per section, the seconds
    the caller spends on it once its last task is in: the report draws its figures): the
    tasks estimated below :data:`SMALL_S` end the order grouped by section, the sections
    with the largest ``finish_s`` first (ties: section number), each in longest-first
    order. Sections then complete one after another and each one's figures are drawn while
    the workers run the next one's tasks; in longest-first order the short tasks of
    every section end together and all their figures are drawn after the last task, with
    the workers idle.
    """
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    keep: set[int] = set(order[:1])  # the first task and the warm-up stay where they are
    if compiles is not None and len(order) >= 3 and compiles[order[0]]:
        head, rest = order[:1], order[1:]
        warm: list[int] = []
        total = 0.0
        for i in rest:
            if total >= WARMUP_S:
                break
            if not compiles[i]:
                warm.append(i)
                total += costs[i]
        chosen = set(warm)
        order = head + warm + [i for i in rest if i not in chosen]
        keep |= chosen
    if groups is None or finish_s is None:
        return order
    small = [i for i in order if costs[i] < SMALL_S and i not in keep]
    moved = set(small)
    rank = sorted(set(groups[i] for i in small), key=lambda g: (-finish_s.get(g, 0.0), g))
    return [i for i in order if i not in moved] + [i for g in rank for i in small if groups[i] == g]


class _CompileGate:
    """Hands a pool its tasks in ``order`` as workers become free, holding back the tasks
    that run the Numba-compiled packet simulator until the first of them has finished.

    On a cold Numba cache that first task compiles the kernels and writes the cache; the
    others then load it instead of compiling the same kernels in every worker at once
    (about 20 s of CPU each). Meanwhile the free workers run the round-model and ODE
    tasks. ``slots`` is the number of tasks kept in flight (the pool's workers).

    With ``costs`` (estimated seconds per task; without them ``queued_s`` is not used),
    more tasks are kept in flight when needed so that the tasks waiting behind the
    ``workers`` running ones add up to at least ``queued_s`` seconds: the workers then
    keep busy while the process that submits them is occupied (it draws a finished
    section's figures, seconds long) instead of idling after a few short tasks.
    ``open_queued_s`` (default ``queued_s``) replaces ``queued_s`` once the gate is open
    (``math.inf``: every remaining task is submitted then).
    """

    def __init__(
        self,
        order: Sequence[int],
        compiles: Sequence[bool],
        *,
        slots: int,
        costs: Sequence[float] | None = None,
        queued_s: float = 0.0,
        workers: int = 1,
        open_queued_s: float | None = None,
    ) -> None:
        self._waiting = list(order)
        self._compiles = list(compiles)
        self._slots = max(int(slots), 1)
        self._costs = list(costs) if costs is not None else [0.0] * len(self._compiles)
        self._queued_s = float(queued_s) if costs is not None else 0.0
        self._open_queued_s = (
            self._queued_s
            if open_queued_s is None or costs is None
            else max(float(open_queued_s), self._queued_s)
        )
        self._workers = max(int(workers), 1)
        self._flight: list[int] = []  # submitted, not finished, in order of submission
        first = [i for i in order if compiles[i]]
        self._first: int | None = first[0] if first else None
        self.open = self._first is None

    def finished(self, index: int) -> None:
        """Task ``index`` is done (the gate opens when it is the first compiling task)."""
        if index in self._flight:
            self._flight.remove(index)
        if index == self._first:
            self.open = True

    def _queued(self) -> float:
        """Estimated seconds of the submitted tasks behind the first ``workers`` (the
        pool starts tasks in the order they were submitted)."""
        return sum(self._costs[i] for i in self._flight[self._workers :])

    def next_tasks(self, *, in_flight: int) -> list[int]:
        """The tasks to submit now, in order, with ``in_flight`` tasks running."""
        out: list[int] = []
        target = self._open_queued_s if self.open else self._queued_s
        while self._waiting and (
            in_flight + len(out) < self._slots or target == math.inf or self._queued() < target
        ):
            pick = next(
                (
                    i
                    for i in self._waiting
                    if self.open or not self._compiles[i] or i == self._first
                ),
                None,
            )
            if pick is None:
                break
            self._waiting.remove(pick)
            self._flight.append(pick)
            out.append(pick)
        return out
