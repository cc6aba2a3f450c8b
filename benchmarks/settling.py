"""Speed of the settling rule (:func:`tcpfluid.metrics.settling`, every engine's summary),
this tree and a reference tree side by side: series settled per CPU second.

Run: ``python benchmarks/settling.py [--quick] [--repeat N] [--reference SRC |
--no-reference] [--only NAME]``. Prints a table (one row per case and tree, and the ratio),
then one JSON line per measurement: ``{"name": ..., "tree": "new"|"reference", "value":
..., "unit": ...}``.

Every measurement runs in a fresh subprocess whose ``PYTHONPATH`` is the tree's ``src``
(``benchmarks/_worker.py``: make a reference tree with ``git archive <commit> src | tar -x
-C /tmp/ref`` and pass ``--reference /tmp/ref/src``). The figure is the best CPU time of
``--repeat`` calls after one untimed call (imports, compiled kernels).

Cases (seeded series, one sample a round of 50 ms, column-contiguous as the engines hand
them over; a ramp to a level drawn per series, then a cycle of a drawn amplitude and
period with noise rounded to 0.1 packet, so that most series settle, many in a cycle;
``settle_band`` 3 packets):

* ``batch8192``: 8,192 series of 400 samples in one call (a sweep's batch of one-flow
  points).
* ``batch256``: 256 series of 400 samples (a run of many flows).
* ``long``: 16 series of 20,000 samples (long runs of a few flows).

``--quick`` divides the series by eight (a smoke test).
"""

from __future__ import annotations

import json
import time
from typing import Any

from _worker import bench_args, compare

CASES = {"batch8192": (8192, 400), "batch256": (256, 400), "long": (16, 20_000)}


def _series(case: str) -> tuple[Any, Any]:
    import numpy as np

    quick = case.startswith("q:")
    m, n = CASES[case.removeprefix("q:")]
    m = max(m // 8, 1) if quick else m
    rng = np.random.default_rng(20261204)
    t = np.arange(1, n + 1) * 0.05
    level = rng.uniform(20.0, 400.0, m)
    ramp = np.minimum(t[:, None] * rng.uniform(5.0, 200.0, m), level)
    cycle = rng.uniform(0.0, 3.0, m) * np.sin(2 * np.pi * t[:, None] / rng.uniform(0.3, 2.0, m))
    v = np.round(ramp + cycle + rng.normal(0.0, 0.3, (n, m)), 1)
    return np.asfortranarray(np.repeat(t[:, None], m, axis=1)), np.asfortranarray(v)


# ----------------------------------------------------------------------------- worker
def _worker(case: str, repeat: int) -> None:
    from tcpfluid.metrics import settling

    t, v = _series(case)
    settling(t[:, :4], v[:, :4], settle_band=3.0)  # untimed: imports, compiled kernels
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        settling(t, v, settle_band=3.0)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    print(json.dumps({"series": int(v.shape[1]), "cpu_s": best_cpu, "wall_s": best_wall}))


# ----------------------------------------------------------------------------- driver
def main() -> None:
    args = bench_args((__doc__ or "").splitlines()[0], quick=True)
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    names = args.only or list(CASES)
    cases = [("q:" if args.quick else "") + c for c in names]
    compare(__file__, args, cases, "series", "rate", "series settled/s (CPU)")


if __name__ == "__main__":
    main()
