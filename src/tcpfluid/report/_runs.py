"""Task functions of the report: one engine run each, returning small picklable dicts.

Each function builds a named scenario (:func:`tcpfluid.scenarios.build_scenario`) with
overrides, runs one engine and returns plain numbers and NumPy arrays (never the whole
result object), so that it can run in a worker process. ``{"error": message}`` is
returned instead when the engine refuses the configuration (the section then shows
``n/a`` with that message rather than a number).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..algorithms import get_law
from ..fluid.ode import simulate_scenario_ode
from ..fluid.rounds import PathBatch, simulate_rounds, simulate_scenario_rounds
from ..scenarios import build_scenario
from ..sim import simulate_packets

__all__ = ["ode_run", "packet_run", "rounds_bdp_batch", "rounds_run"]


def _scenario(name: str, algorithm: str, overrides: Mapping[str, Any]) -> Any:
    return build_scenario(name, **dict(overrides)).with_algorithm(algorithm)


def _view(sc: Any) -> dict[str, float]:
    try:
        v = sc.fluid_view()
    except ValueError:
        return {}
    return {"bdp_pkts": float(v.path.bdp), "d_s": float(v.path.d), "mu_pps": float(v.path.mu)}


def packet_run(
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    *,
    traces: bool = False,
    sample_interval: float = 0.1,
    seed: int = 0,
) -> dict[str, Any]:
    """Run the packet simulator; summary per flow, and optionally traces."""
    sc = _scenario(scenario, algorithm, overrides)
    try:
        res = simulate_packets(sc, seed=seed, sample_interval=sample_interval)
    except ValueError as exc:
        return {"error": str(exc)}
    s = res.summary
    out: dict[str, Any] = {
        **_view(sc),
        "summary": s.flow(0),
        "throughput_pps": [float(x) for x in s.throughput_pps],
        "bottleneck": s.bottleneck,
        "base_rtt_s": [float(f.base_rtt_s) for f in res.flows],
        "start_s": [float(f.start_s) for f in res.flows],
        "stop_s": [float(f.stop_s) for f in res.flows],
        "round_t_s": [f.round_t_s.astype(np.float64) for f in res.flows],
        "round_cwnd_pkts": [f.round_cwnd_pkts.astype(np.float64) for f in res.flows],
        "round_phase": [f.round_phase.astype(np.float64) for f in res.flows],
        "wall_time_s": float(res.wall_time_s),
        "data_packets": int(res.data_packets),
    }
    lk = res.link(s.bottleneck)
    out["t_s"] = res.t_s.astype(np.float64)
    out["goodput_pps"] = np.array([f.goodput_pps for f in res.flows], dtype=np.float64)
    out["queue_pkts"] = lk.queue_pkts.astype(np.float64)
    out["utilization"] = lk.utilization.astype(np.float64)
    if traces:
        out["cwnd_pkts"] = np.array([f.cwnd_pkts for f in res.flows], dtype=np.float64)
    return out


def rounds_run(
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    *,
    rtt: str = "average",
) -> dict[str, Any]:
    """Run the round model on a scenario; summary and per-round traces."""
    sc = _scenario(scenario, algorithm, overrides)
    try:
        tr = simulate_scenario_rounds(sc, rtt=rtt)  # type: ignore[arg-type]
    except ValueError as exc:
        return {"error": str(exc)}
    s = tr.summary
    return {
        **_view(sc),
        "summary": s.scenario(0, 0),
        "ss_exit_round": [float(x) for x in s.ss_exit_round[0]],
        "throughput_pps": [float(x) for x in s.throughput_pps[0]],
        "time_s": tr.time_s[:, 0].astype(np.float64),
        "window_pkts": tr.window_pkts[:, 0, :].astype(np.float64),
        "queue_pkts": None if tr.queue_pkts is None else tr.queue_pkts[:, 0].astype(np.float64),
        "flow_throughput_pps": (
            None if tr.throughput_pps is None else tr.throughput_pps[:, 0, :].astype(np.float64)
        ),
        "start_s": tr.flow_start_s.astype(np.float64),
        "stop_s": tr.flow_stop_s.astype(np.float64),
    }


def ode_run(
    scenario: str, algorithm: str, overrides: Mapping[str, Any], *, n_points: int = 2001
) -> dict[str, Any]:
    """Run the ODE model on a scenario; summary and trajectories."""
    sc = _scenario(scenario, algorithm, overrides)
    try:
        r = simulate_scenario_ode(sc, n_points=n_points)
    except ValueError as exc:
        return {"error": str(exc)}
    if not r.success:
        return {"error": f"ODE solver failed: {r.message}"}
    return {
        **_view(sc),
        "summary": r.summary.to_dict() if r.summary is not None else {},
        "t_s": np.asarray(r.t, dtype=np.float64),
        "windows_pkts": np.asarray(r.windows_pkts, dtype=np.float64),
        "queue_pkts": np.asarray(r.queue_pkts, dtype=np.float64),
        "delivered_pkts": np.asarray(r.delivered_pkts, dtype=np.float64),
        "rates_pps": np.asarray(r.rates_pps, dtype=np.float64),
        "base_rtt_s": np.asarray(r.base_rtt_s, dtype=np.float64)[:, -1],
        "start_s": [float(f.start_s) for f in sc.flows],
        "stop_s": [float(f.stop_s) for f in sc.flows],
    }


def rounds_bdp_batch(
    algorithm: str,
    params: Mapping[str, Any],
    bdp_pkts: Sequence[float],
    d_s: float,
    *,
    rounds: int,
) -> dict[str, Any]:
    """One batched round-model run over a BDP grid (one scenario per BDP, no cross traffic):
    the per-round windows (R, S) and the slow-start exit rounds."""
    law = get_law(algorithm, **dict(params))
    tr = simulate_rounds(
        law,
        PathBatch.from_bdp(np.asarray(bdp_pkts, dtype=float), d_s),
        rounds=rounds,
        record=(),
    )
    s = tr.summary
    return {
        "window_pkts": tr.window_pkts[:, :, 0].astype(np.float64),
        "time_s": tr.time_s.astype(np.float64),
        "ss_exit_round": s.ss_exit_round[:, 0].astype(np.float64),
        "ss_exit_window_pkts": s.ss_exit_window_pkts[:, 0].astype(np.float64),
    }


def first_at_least(t: Any, w: Any, target: float, *, after: float = -math.inf) -> int | None:
    """Index of the first sample with ``t > after`` and ``w >= target`` (None if none)."""
    t = np.asarray(t)
    w = np.asarray(w)
    idx = np.flatnonzero((t > after) & (w >= target))
    return int(idx[0]) if idx.size else None
