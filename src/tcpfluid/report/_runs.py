"""Task functions of the report: one engine run of a named scenario each, returning plain
numbers and arrays (picklable, never the result object), or ``{"error": message}`` when
the engine refuses the configuration (the section then shows ``n/a`` with it), with
``"failed": True`` when the run failed (:func:`._common.failure`: its cells differ).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..algorithms import get_law
from ..engines import simulate
from ..engines._base import bottleneck_name
from ..fluid._rounds_results import flow_records
from ..fluid.rounds import PathBatch, simulate_rounds
from ..metrics import summarise
from ..results import Result
from ..scenarios import build_scenario
from ._common import failure
from ._core import current_progress


def _run(
    engine: str,
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    **options: Any,
) -> tuple[Result | None, dict[str, Any]]:
    """Build the scenario (every flow running ``algorithm`` with ``params``) and run it:
    the result (``None``: refused) and what every task returns of the run, or ``{"error":
    message}``: the fluid view's μ, d and BDP, summary, traces, each flow's start and stop
    and (laws deciding at round boundaries) its round log: boundary times, the window the
    law saw, its phase."""
    sc = build_scenario(scenario, **dict(overrides)).with_algorithm(algorithm, **dict(params or {}))
    points = options.pop("record_points", None)
    if points is not None:  # samples over the run, as many as asked (one every T / (n - 1))
        options["record_interval_s"] = sc.duration_s / (int(points) - 1)
    progress = current_progress()  # the report's bar, when one is drawn
    if progress is not None:
        options.setdefault("progress", progress)
    res = checked_simulate(sc, engine, **options)
    if not isinstance(res, Result):
        return None, res
    try:
        p = sc.fluid_view(None).path
        out: dict[str, Any] = {"bdp_pkts": float(p.bdp), "d_s": float(p.d), "mu_pps": float(p.mu)}
    except ValueError:
        out = {}
    out |= {
        "summary": res.summary.to_dict(),
        "t_s": res.time_s,
        "window_pkts": res.window_pkts,
        "queue_pkts": res.queue_pkts,
        "goodput_pps": res.throughput_pps,
        "start_s": [float(f.start_s) for f in sc.flows],
        "stop_s": [float(f.stop_s) for f in sc.flows],
    }
    if res.rounds:
        out["round_t_s"] = [_f64(r.time_s) for r in res.rounds]
        out["round_cwnd_pkts"] = [_f64(r.window_pkts) for r in res.rounds]
        out["round_phase"] = [_f64(r.phase) for r in res.rounds]
    return res, out


def checked_simulate(sc: Any, engine: str, **options: Any) -> Result | dict[str, Any]:
    """Run ``sc`` on ``engine``: the result, or what a task returns instead of its values:
    ``{"error": message}`` when the engine refuses the configuration (a ``ValueError``), a
    :func:`._common.failure` when the run failed (a ``RuntimeError``, or a result whose
    status says it did not compute the whole run, with its message)."""
    try:
        res = simulate(sc, engine, **options)
    except ValueError as exc:
        return {"error": str(exc)}
    except RuntimeError as exc:  # e.g. a failed ODE solve
        return failure(f"{engine} run failed: {exc}")
    if not res.success:
        return failure(f"{engine} run failed (status {res.status}): {res.message}")
    return res


def _f64(a: Any) -> Any:
    return np.asarray(a, dtype=np.float64)


def packet_run(
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    *,
    sample_interval: float = 0.1,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    packet_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the packet simulator (``packet_options``: :class:`tcpfluid.engines.Packet`'s)
    sampled every ``sample_interval`` s: :func:`_run`'s fields, each flow's throughput and
    the data packets sent."""
    opts = {"seed": seed, "record_interval_s": sample_interval, **dict(packet_options or {})}
    res, out = _run("packet", scenario, algorithm, overrides, params, **opts)
    if res is not None:
        out["throughput_pps"] = [float(x or 0.0) for x in res.summary.throughput_pps]
        out["data_packets"] = int(res.stats["data_packets"])
    return out


def rounds_run(
    scenario: str, algorithm: str, overrides: Mapping[str, Any], *, rtt_model: str = "average"
) -> dict[str, Any]:
    """Run the round model: :func:`_run`'s fields and each flow's throughput (NaN: none)."""
    res, out = _run("rounds", scenario, algorithm, overrides, rtt_model=rtt_model)
    if res is not None:
        thr = res.summary.throughput_pps
        out["throughput_pps"] = [math.nan if x is None else float(x) for x in thr]
    return out


def ode_run(
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    *,
    n_points: int = 2001,
    params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run the ODE model sampled at ``n_points`` times: :func:`_run`'s fields and each
    flow's delivered packets."""
    res, out = _run("ode", scenario, algorithm, overrides, params, record_points=n_points)
    if res is not None:
        out["delivered_pkts"] = _f64(res.series["delivered_pkts"])
    return out


def rounds_bdp_batch(
    algorithm: str, params: Mapping[str, Any], bdp_pkts: Sequence[float], d_s: float, *, rounds: int
) -> dict[str, Any]:
    """One batched round-model run over a BDP grid (one scenario per BDP, no cross traffic):
    the per-round windows (R, S) and the slow-start exit rounds, from the summaries of the
    batch (:func:`tcpfluid.metrics.summarise`, each row the run's :class:`Summary`)."""
    sc = build_scenario("qv-basic", cbr="none").with_algorithm(algorithm, **dict(params))
    tr = simulate_rounds(
        get_law(algorithm, **dict(params)),
        PathBatch.from_bdp(np.asarray(bdp_pkts, dtype=float), d_s),
        rounds=rounds,
        record=(),
    )
    end = float(np.max(tr.elapsed_s))
    s = summarise(
        "rounds", sc, flow_records(tr, sc.flow_table.names), scenarios=tr.n_scenarios,
        end_s=end, carried_pkts=tr.carried_pkts, capacity_pps=tr.paths.mu_pps,
        measured_s=(0.0, tr.elapsed_s), bottleneck=bottleneck_name(sc),
    ).flows  # fmt: skip
    return {
        "window_pkts": tr.window_pkts[:, :, 0].astype(np.float64),
        "time_s": tr.time_s.astype(np.float64),
        "ss_exit_round": s["ss_exit_round"][:, 0].astype(np.float64),
        "ss_exit_window_pkts": s["ss_exit_window_pkts"][:, 0].astype(np.float64),
    }


def first_at_least(t: Any, w: Any, target: float, *, after: float = -math.inf) -> int | None:
    """Index of the first sample with ``t > after`` and ``w >= target`` (None if none)."""
    idx = np.flatnonzero((np.asarray(t) > after) & (np.asarray(w) >= target))
    return int(idx[0]) if idx.size else None


def warm_up_packets() -> None:
    """Compile, or load from the Numba cache, the settling rule's kernel (every engine's
    summary), the packet simulator's kernels and every law's round-model rule by 2-s runs
    on the §5.1 path: the report's process, beside :func:`warm_up_hybrid` in a child."""
    from ..algorithms.registry import ALGORITHMS
    from ..metrics import settling

    settling([0.0, 1.0, 2.0], [1.0, 1.0, 1.0])
    sc = build_scenario("qv-basic", duration="2s")
    simulate(sc.with_algorithm("vegas"), "packet")
    for a in ALGORITHMS:
        try:
            simulate(sc.with_algorithm(a), "rounds")
        except ValueError:  # a law this path does not suit: compiled by its own task
            pass


def warm_up_hybrid() -> None:
    """Compile, or load from the Numba cache, the hybrid model's kernels by a 2-s run on
    the §5.1 path (the longest compile: its own process, :func:`warm_up_packets` beside)."""
    simulate(build_scenario("qv-basic", duration="2s").with_algorithm("vegas"), "ode")
