"""The report's tasks' estimated costs (the pool starts the longest first) and its worker
count (see :func:`tcpfluid.report._core.run_tasks`). Only the order and the number of
workers depend on anything here, never a result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._core import Task

__all__ = ["estimate_cost", "worker_count"]


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
    in which the pool starts the tasks (longest first) depends on it, never a result."""
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


def worker_count(jobs: int, n_tasks: int) -> int:
    """Worker processes for ``n_tasks`` tasks asked to run on ``jobs``: capped at the work
    and at the CPUs this process may use (the one policy of every command,
    :func:`tcpfluid.sweep.execution.usable_cpus`; at least one)."""
    from ..sweep.execution import usable_cpus

    return max(1, min(int(jobs), int(n_tasks), usable_cpus()))
