"""Speed of the round model: flow-round updates per second, per law, one and 10,000 scenarios.

Run: ``python benchmarks/rounds.py [--quick]``. Prints a human table, then one JSON line per
measurement: ``{"name": ..., "value": ..., "unit": ...}``.

Measurements
------------
* ``rounds/<law>/single``: one scenario (μd = 626 packets, 1000-packet buffer) for 2,000
  rounds: the per-round Python overhead dominates.
* ``rounds/<law>/batch10000``: 10,000 scenarios (μd from 10 to 10,000 packets, same buffer
  rule) for 200 rounds, only time/window/phase recorded.
* ``rounds/vegas/bdp_sweep_10000x1000``: a 10,000-scenario BDP sweep
  of 1,000 rounds of Vegas, all per-round fields recorded; seconds, and seconds including
  the summary metrics.

Each figure is the best of ``--repeat`` runs (default 3) to reduce the noise of a shared
machine. Uses one thread (NumPy element-wise operations do not use more).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.registry import ALGORITHMS
from tcpfluid.fluid import PathBatch, simulate_rounds


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _paths(n: int) -> PathBatch:
    bdp = np.geomspace(10.0, 10_000.0, n) if n > 1 else np.array([626.0])
    # a finite buffer (as large as the pipe) so that loss-driven laws (Reno) stay bounded
    return PathBatch.from_bdp(bdp, 0.1, buffer_pkts=np.maximum(bdp, 20.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = parser.parse_args()
    single_rounds = 200 if args.quick else 2000
    batch_n = 1000 if args.quick else 10_000
    batch_rounds = 50 if args.quick else 200
    sweep_rounds = 100 if args.quick else 1000
    records: list[dict[str, object]] = []

    def record(name: str, value: float, unit: str) -> None:
        records.append({"name": name, "value": value, "unit": unit})

    print(f"{'law':16s} {'1 scenario':>18s} {f'{batch_n} scenarios':>20s}")
    one = _paths(1)
    many = _paths(batch_n)
    for name in ALGORITHMS:
        run_one = partial(simulate_rounds, get_law(name), one, rounds=single_rounds)
        run_many = partial(simulate_rounds, get_law(name), many, rounds=batch_rounds, record=())
        t1 = _best(run_one, args.repeat)
        tb = _best(run_many, args.repeat)
        r1 = single_rounds / t1
        rb = batch_n * batch_rounds / tb
        print(f"{name:16s} {r1:14.3g} fr/s {rb:16.3g} fr/s")
        record(f"rounds/{name}/single", r1, "flow-round updates/s")
        record(f"rounds/{name}/batch{batch_n}", rb, "flow-round updates/s")

    sweep = PathBatch.from_bdp(np.linspace(10.0, 10_000.0, batch_n), 0.1)
    run_sweep = partial(simulate_rounds, get_law("vegas"), sweep, rounds=sweep_rounds)
    t_sim = _best(run_sweep, args.repeat)

    def with_summary() -> None:
        _ = simulate_rounds(get_law("vegas"), sweep, rounds=sweep_rounds).summary

    t_all = _best(with_summary, args.repeat)
    label = f"bdp_sweep_{batch_n}x{sweep_rounds}"
    print(
        f"\nVegas BDP sweep, {batch_n} scenarios x {sweep_rounds} rounds: {t_sim:.2f} s "
        f"({batch_n * sweep_rounds / t_sim:.3g} flow-round updates/s), {t_all:.2f} s with "
        "the summary metrics"
    )
    record(f"rounds/vegas/{label}", t_sim, "s")
    record(f"rounds/vegas/{label}_with_summary", t_all, "s")
    record(f"rounds/vegas/{label}_rate", batch_n * sweep_rounds / t_sim, "flow-round updates/s")
    for rec in records:
        print(json.dumps(rec))


if __name__ == "__main__":
    main()
