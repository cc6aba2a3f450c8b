"""Cost of parameter sweeps: the 10^5-point round-model sweep and one point per engine.

Run: ``python benchmarks/sweep.py [--quick] [--skip-dask] [--grid-only] [--repeat N]``.
Prints a human table, then one JSON line per measurement:
``{"name": ..., "value": ..., "unit": ...}``.
Single-threaded library code (NumPy element-wise work; the packet engine is one compiled
loop); run it on an otherwise idle core for figures you can compare.

Measurements
------------
* ``sweep/rounds/grid100000``: 10^5 points of the round model,
  Vegas vs Quick Vegas × 100 bandwidths (5-50 Mb/s, BDP 31-313 packets at 50 ms) × 1 or 2
  flows × 250 values of β (2-12 packets), no CBR, 20 s (400 rounds of 50 ms: enough for
  every Vegas and 94 % of the Quick Vegas points to settle), metrics
  ``time_to_equilibrium_s``, ``settled_window``, ``jain_index``; wall time of
  :func:`tcpfluid.sweep.sweep` (grid expansion, validation, batched calls, summaries,
  table), and the same per point.
* ``sweep/<engine>/point``: one point of each engine on the documents' §5.1 scenario
  (``qv-basic``: 50 Mb/s, 100 ms, 240 s, 25 Mb/s CBR from 80 s to 160 s), Vegas; mean over a
  few points in process (``jobs=1``).
* ``sweep/<engine>/bdp<k>``, ``/flows<n>``, ``/duration<s>``: how the cost of one point grows
  with the bandwidth-delay product, the number of flows and the simulated time (``rounds``,
  ``ode`` and ``packet``; Quick Vegas, which fills the pipe within a few seconds, so that the
  packets simulated grow with μ × duration; 20 s without CBR unless the duration varies).
* ``sweep/packet/100pts_jobs1``, ``_jobs2``, ``_dask2``: a 100-point packet sweep of tiny
  points (1-3 Mb/s, 2 s) in process, on a 2-process pool and on a 2-worker Dask
  LocalCluster (start-up included: what the executors cost when points are cheap).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np

from tcpfluid.cli.simulate import ENGINES
from tcpfluid.sweep import grid, sweep


def _timed(fn: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _ok(res: Any) -> None:
    """A benchmark of failed points would time error paths: refuse it."""
    if res.n_failed:
        raise RuntimeError(f"benchmark point failed: {res.table['message'].iloc[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    parser.add_argument("--skip-dask", action="store_true", help="no Dask LocalCluster figure")
    parser.add_argument(
        "--repeat", type=int, default=2, help="runs of the 10^5-point sweep (best kept)"
    )
    parser.add_argument("--grid-only", action="store_true", help="only the 10^5-point sweep")
    args = parser.parse_args()
    records: list[dict[str, Any]] = []

    def rec(name: str, value: float, unit: str, note: str = "") -> None:
        records.append({"name": name, "value": value, "unit": unit})
        print(f"{name:<36} {value:>12.4g} {unit:<8} {note}")

    # ------------------------------------------------------------ 10^5-point round sweep
    n_bw, n_beta = (10, 25) if args.quick else (100, 250)
    bandwidths = [f"{b:.4g}Mbps" for b in np.linspace(5.0, 50.0, n_bw)]
    betas = [float(b) for b in np.linspace(2.0, 12.0, n_beta)]
    points = grid(
        algorithm=["vegas", "quick-vegas"],
        bandwidth=bandwidths,
        flows=[1, 2],
        beta=betas,
        rtt="50ms",
        cbr="none",
        duration="20s",
    )
    metrics = ["time_to_equilibrium_s", "settled_window", "jain_index"]
    best_wall = best_cpu = float("inf")
    for _ in range(args.repeat):
        cpu0 = time.process_time()
        secs, res = _timed(lambda: sweep(points, engine="rounds", metrics=metrics))
        best_cpu = min(best_cpu, time.process_time() - cpu0)
        best_wall = min(best_wall, secs)
    n = len(points)
    settled = res.table["time_to_equilibrium_s"].notna()
    note = f"{n} points, {res.n_failed} failed, best of {args.repeat}"
    rec(f"sweep/rounds/grid{n}", best_wall, "s", note)
    rec(f"sweep/rounds/grid{n}_cpu", best_cpu, "s", "CPU time of this process (one core)")
    rec(f"sweep/rounds/grid{n}_per_point", best_wall / n * 1e6, "us")
    for alg in ("vegas", "quick-vegas"):
        sel = res.table["algorithm"] == alg
        med = float(res.table.loc[sel & settled, "time_to_equilibrium_s"].median())
        share = float(settled[sel].mean())
        print(f"    {alg}: settled in {share:.0%} of points, median time {med:.3g} s")

    if args.grid_only:
        for r in records:
            print(json.dumps(r))
        return

    # ------------------------------------------------------------ one point per engine
    engines = ["closed-form", "rounds", *(e for e in ("ode", "packet") if e in ENGINES)]
    reps = {"closed-form": 50, "rounds": 3, "ode": 2, "packet": 2}
    for engine in engines:
        k = 1 if args.quick and engine in ("ode", "packet") else reps[engine]
        pts = [{"algorithm": "vegas", "alpha": 2.0 + 1e-6 * i} for i in range(k)]
        secs, r = _timed(lambda pts=pts, engine=engine: sweep(pts, engine=engine, jobs=1))
        _ok(r)
        rec(f"sweep/{engine}/point", secs / k, "s", f"qv-basic, mean of {k}; failed {r.n_failed}")

    # ------------------------------------------------------------ growth of one point
    base = {"algorithm": "quick-vegas", "cbr": "none", "rtt": "100ms", "duration": "20s"}
    scale = [10, 20, 40] if args.quick else [10, 20, 40, 80, 160]
    for engine in ("rounds", "ode", "packet"):
        if engine not in ENGINES:
            continue
        # the ODE model has Vegas but not Quick Vegas
        base["algorithm"] = "vegas" if engine == "ode" else "quick-vegas"
        for bw in scale:
            pt = {**base, "bandwidth": f"{bw}Mbps"}
            secs, r = _timed(lambda pt=pt, engine=engine: sweep([pt], engine=engine, jobs=1))
            _ok(r)
            bdp = float(r.table["bdp_pkts"].iloc[0])
            rec(f"sweep/{engine}/bdp{bdp:.0f}", secs, "s", f"{bw} Mb/s x 100 ms, 20 s")
        for flows in [1, 2, 4] if args.quick else [1, 2, 4, 8, 16]:
            pt = {**base, "bandwidth": "40Mbps", "flows": flows}
            secs, r = _timed(lambda pt=pt, engine=engine: sweep([pt], engine=engine, jobs=1))
            _ok(r)
            rec(f"sweep/{engine}/flows{flows}", secs, "s", "40 Mb/s x 100 ms, 20 s")
        for dur in [10, 20, 40] if args.quick else [10, 20, 40, 80, 160]:
            pt = {**base, "bandwidth": "40Mbps", "duration": f"{dur}s"}
            secs, r = _timed(lambda pt=pt, engine=engine: sweep([pt], engine=engine, jobs=1))
            _ok(r)
            rec(f"sweep/{engine}/duration{dur}", secs, "s", "40 Mb/s x 100 ms")

    # ------------------------------------------------------------ executors
    if "packet" in ENGINES:
        tiny = list(
            grid(
                algorithm=["vegas", "quick-vegas"],
                bandwidth=["1Mbps", "1.5Mbps", "2Mbps", "2.5Mbps", "3Mbps"],
                rtt=["20ms", "30ms", "40ms", "50ms", "60ms"],
                beta=[4, 6],
                cbr="none",
                duration="2s",
            )
        )
        m = ["utilization"]
        secs, _ = _timed(lambda: sweep(tiny, engine="packet", metrics=m, jobs=1))
        rec("sweep/packet/100pts_jobs1", secs, "s")
        secs, _ = _timed(lambda: sweep(tiny, engine="packet", metrics=m, jobs=2))
        rec("sweep/packet/100pts_jobs2", secs, "s", "process pool, start-up included")
        if not args.skip_dask:
            from distributed import Client, LocalCluster

            def on_dask() -> Any:
                with (
                    LocalCluster(
                        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
                    ) as cluster,
                    Client(cluster) as client,
                ):
                    return sweep(tiny, engine="packet", metrics=m, executor=client.get_executor())

            secs, _ = _timed(on_dask)
            rec("sweep/packet/100pts_dask2", secs, "s", "LocalCluster start-up included")

    for r in records:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
