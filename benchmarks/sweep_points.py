"""Speed of round-model sweeps (batched runs and their summaries, up to the table), this
tree and a reference tree side by side: sweep points per CPU second.

Run: ``python benchmarks/sweep_points.py [--quick] [--repeat N] [--reference SRC |
--no-reference] [--only NAME]``. Prints a table (one row per case and tree, and the ratio),
then one JSON line per measurement: ``{"name": ..., "tree": "new"|"reference", "value":
..., "unit": ...}``.

Every measurement runs in a fresh subprocess whose ``PYTHONPATH`` is the tree's ``src``
(``benchmarks/_worker.py``: make a reference tree with ``git archive <commit> src | tar -x
-C /tmp/ref`` and pass ``--reference /tmp/ref/src``), so both are timed in one run on the
same machine state. The figure is the best CPU time of ``--repeat`` runs of
:func:`tcpfluid.sweep.sweep` (grid expansion, checks, batched calls, summaries, table)
after one untimed run of a small sweep (imports, compiled kernels).

Cases
-----
* ``grid``: Vegas and Quick Vegas × 50 bandwidths (5-50 Mb/s at 50 ms) × 1 or 2 flows ×
  50 values of β, no CBR, 20 s: 10,000 points (``benchmarks/sweep.py``'s grid, smaller),
  metrics ``time_to_equilibrium_s``, ``settled_window``, ``jain_index``.
* ``cbr``: the documents' §5.1 scenario (``qv-basic``, a CBR source at half the bandwidth
  from 80 s to 160 s of 240 s) for Vegas and Quick Vegas × 10 bandwidths (30-100 Mb/s) × 5
  RTTs (40-200 ms) × 4 values of α: 400 points, every round-model metric (convergence
  after the CBR changes included).
* ``flows4``: ``qv-many-flows`` with 4 flows in two groups (two joining at 20 s), Vegas ×
  50 bandwidths (6-50 Mb/s) × 20 values of β, 60 s: 1,000 points, every round-model
  metric.

``--quick`` divides the points by ten (a smoke test).
"""

from __future__ import annotations

import json
import time
from typing import Any

from _worker import bench_args, compare

ALL = (
    "ss_exit_window", "ss_exit_time_s", "ss_exit_round", "settled_window",
    "time_to_equilibrium_s", "convergence_times_s", "utilization", "throughput_pps",
    "jain_index", "losses",
)  # fmt: skip


def _points(case: str) -> tuple[Any, list[str]]:
    import numpy as np

    from tcpfluid.sweep import grid

    quick = case.startswith("q:")
    name = case.removeprefix("q:")
    k = 10 if quick else 1

    def lin(a: float, b: float, n: int, unit: str = "") -> list[Any]:
        vals = np.linspace(a, b, max(n // k, 2) if unit else n).tolist()
        return [f"{v:.5g}{unit}" for v in vals] if unit else [float(v) for v in vals]

    if name == "grid":
        pts = grid(
            algorithm=["vegas", "quick-vegas"], bandwidth=lin(5.0, 50.0, 50, "Mbps"),
            flows=[1, 2], beta=lin(2.0, 12.0, 50), rtt="50ms", cbr="none", duration="20s",
        )  # fmt: skip
        return pts, ["time_to_equilibrium_s", "settled_window", "jain_index"]
    if name == "cbr":
        pts = grid(
            algorithm=["vegas", "quick-vegas"], bandwidth=lin(30.0, 100.0, 10, "Mbps"),
            rtt=lin(40.0, 200.0, 5, "ms"), alpha=[1.0, 1.5, 2.0, 2.5][: max(4 // k, 2)],
        )  # fmt: skip
        return pts, list(ALL)
    if name == "flows4":
        pts = grid(
            scenario="qv-many-flows", algorithm="vegas", flows=4, groups=2,
            group_interval="20s",
            bandwidth=lin(6.0, 50.0, 50, "Mbps"), beta=lin(3.0, 8.0, 20), duration="60s",
        )  # fmt: skip
        return pts, list(ALL)
    raise SystemExit(f"unknown case {case!r}")


# ----------------------------------------------------------------------------- worker
def _worker(case: str, repeat: int) -> None:
    from tcpfluid.sweep import sweep

    pts, metrics = _points(case)
    sweep(list(pts)[:8], engine="rounds", metrics=metrics)  # untimed: imports, first calls
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        res = sweep(pts, engine="rounds", metrics=metrics)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
        if res.n_failed:
            raise SystemExit(f"{res.n_failed} points failed: {res.table['message'].iloc[0]}")
    print(json.dumps({"points": len(pts), "cpu_s": best_cpu, "wall_s": best_wall}))


# ----------------------------------------------------------------------------- driver
def main() -> None:
    args = bench_args((__doc__ or "").splitlines()[0], quick=True)
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    names = args.only or ["grid", "cbr", "flows4"]
    cases = [("q:" if args.quick else "") + c for c in names]
    compare(__file__, args, cases, "points", "rate", "sweep points/s (CPU)")


if __name__ == "__main__":
    main()
