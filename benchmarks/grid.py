"""A 10^6-point round-model sweep: time to first point, points/s and peak memory.

Run: ``python benchmarks/grid.py [--points N] [--duration S]``.
Prints a human table, then one JSON line per measurement:
``{"name": ..., "value": ..., "unit": ...}``.

The grid is Vegas × 100 bandwidths (5-50 Mb/s) × 100 base RTTs (20-218 ms) × 100 values of
β (2.0-11.9 packets), one flow, no CBR, ``--duration`` simulated seconds (default 2 s: a
sweep whose cost is dominated by the grid's size, not by long runs), metric
``time_to_equilibrium_s``. Measured:

* ``grid/build_s``: building and checking the grid (:func:`tcpfluid.sweep.grid` and
  :class:`tcpfluid.sweep.Sweep`); lazy and linear in the axes' lengths.
* ``grid/first_point_s``: wall time from the call of :meth:`Sweep.run` until the first
  point is done (what the user waits for before the progress bar moves).
* ``grid/points_per_s``: points over the whole run's wall time.
* ``grid/peak_rss_mb``: the process's peak resident memory (``ru_maxrss``), the Python
  interpreter and NumPy included, and the same before the sweep (``grid/base_rss_mb``).

Single-threaded; on a shared machine the figures vary run to run.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np

from tcpfluid.sweep import Sweep, grid


def _rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1_000_000, help="grid size (a cube)")
    parser.add_argument("--duration", type=float, default=2.0, help="simulated seconds")
    args = parser.parse_args()
    side = max(1, round(args.points ** (1 / 3)))
    base = _rss_mb()
    t0 = time.perf_counter()
    g = grid(
        algorithm="vegas",
        bandwidth=[f"{b:.6g}Mbps" for b in np.linspace(5, 50, side)],
        rtt=[f"{r:.6g}ms" for r in np.linspace(20, 218, side)],
        beta=[float(f"{b:.6g}") for b in np.linspace(2.0, 11.9, side)],
        alpha=1.0,
        flows=1,
        cbr="none",
        duration=f"{args.duration}s",
    )
    sw = Sweep(points=g, engine="rounds", metrics=("time_to_equilibrium_s",))
    build = time.perf_counter() - t0
    first: list[float] = []
    start = time.perf_counter()

    def progress(fraction: float) -> None:
        if fraction > 0 and not first:
            first.append(time.perf_counter() - start)

    res = sw.run(progress=progress)
    wall = time.perf_counter() - start
    n = len(g)
    rows = [
        ("grid/points", float(n), "points"),
        ("grid/build_s", build, "s"),
        ("grid/first_point_s", first[0] if first else float("nan"), "s"),
        ("grid/run_s", wall, "s"),
        ("grid/points_per_s", n / wall, "points/s"),
        ("grid/failed", float(res.n_failed), "points"),
        ("grid/base_rss_mb", base, "MB"),
        ("grid/peak_rss_mb", _rss_mb(), "MB"),
    ]
    for name, value, unit in rows:
        print(f"{name:24s} {value:14.4g} {unit}")
    for name, value, unit in rows:
        print(json.dumps({"name": name, "value": value, "unit": unit}))


if __name__ == "__main__":
    main()
