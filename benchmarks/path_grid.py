"""The fluid engines against the packet simulator on ``tcpfluid.Path``'s dumbbell: a fixed
grid of the simplest multi-flow questions, judged as the hold-out benchmark judges.

Run: ``python benchmarks/path_grid.py [--algorithms vegas,reno] [--jobs 2] [--json OUT]``.

The grid: every law; 1, 2 and 4 flows of it starting together; 10 and 100 Mb/s; 20 and
100 ms; an unlimited buffer (not for Reno, whose window would grow for ever), one BDP and
0.3 BDP; the hold-out's run length (twice the
law's settling-time sizing, at least 5 s, capped at its packet budget: ``holdout.segment_s``)
(``Path(bandwidth, rtt, buffer=...).scenario(law, duration=..., flows=n)``: the flows reach
the bottleneck directly, with no access links, unlike the hold-out's dumbbells). Each
scenario runs on the packet simulator, the round model and the hybrid model; the quantities,
tolerances and verdicts are :mod:`holdout`'s (``_values`` and ``compare``: per-flow
throughput share and settled window, utilization, time to equilibrium, the worst flow
against its tolerance). Prints agree/compared per engine, then per law and quantity where
an engine misses any. The grid is fixed, not drawn: it is the front door's first questions,
not a hold-out, so it measures a change beside the hold-out's seeds, never instead of them.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import holdout

LAWS = (
    "vegas",
    "enhanced-vegas",
    "quick-vegas",
    "itcp-vegas",
    "forward-vegas",
    "tcp-ho",
    "reno",
    "fast",
)
FLOWS, MBPS, RTT_MS, BUFFERS_BDP = (1, 2, 4), (10.0, 100.0), (20.0, 100.0), (None, 1.0, 0.3)
ENGINES = ("rounds", "hybrid")


def run_point(point: tuple[str, int, float, float, float | None]) -> dict[str, Any]:
    """One grid point on every engine, with the comparisons against the packets."""
    import tcpfluid

    law, n, mbps, rtt_ms, bdps = point
    bdp = mbps * 1e6 / 8000.0 * rtt_ms / 1e3
    buffer = None if bdps is None else max(2, round(bdps * bdp))
    path = tcpfluid.Path(f"{mbps}Mb/s", f"{rtt_ms}ms", buffer=buffer)
    mu_pps = mbps * 1e6 / 8000.0
    inf = float("inf")
    duration = holdout.segment_s([law], rtt_ms / 1e3, mu_pps, buffer or inf, n)
    capped = mu_pps * duration > holdout.PACKET_BUDGET
    if capped:
        duration = holdout.PACKET_BUDGET / mu_pps
    sc = path.scenario(law, duration=duration, flows=n)
    run: dict[str, Any] = {"spec": {"capped": capped}, "rtt_max_s": rtt_ms / 1e3, "engines": {}}
    for eng in ("packet", *ENGINES):
        try:
            values = holdout._values(tcpfluid.simulate(sc, eng))
        except Exception as exc:  # a failure is reported, not hidden
            run["engines"][eng] = {"status": "failed", "message": f"{type(exc).__name__}: {exc}"}
        else:
            run["engines"][eng] = {"status": "ok", "values": values}
    failed = {e: r["message"] for e, r in run["engines"].items() if r["status"] != "ok"}
    return {
        "point": {"law": law, "flows": n, "mbps": mbps, "rtt_ms": rtt_ms, "buffer_bdp": bdps},
        "failed": failed,
        "comparisons": {e: holdout.compare(run, e) for e in ENGINES},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algorithms", default=",".join(LAWS))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", help="write every point and comparison here")
    args = ap.parse_args()
    grid = [
        p
        for p in itertools.product(args.algorithms.split(","), FLOWS, MBPS, RTT_MS, BUFFERS_BDP)
        if not (p[0] == "reno" and p[4] is None)  # no loss: a window that grows for ever
    ]
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = []
        for k, res in enumerate(pool.map(run_point, grid, chunksize=4), 1):
            results.append(res)
            if k % 24 == 0 or k == len(grid):
                print(f"  [{k}/{len(grid)}]", file=sys.stderr, flush=True)
    agree: collections.Counter[tuple[str, ...]] = collections.Counter()
    compared: collections.Counter[tuple[str, ...]] = collections.Counter()
    for res in results:
        for eng, cmps in res["comparisons"].items():
            for c in cmps:
                if c["verdict"] in ("agree", "differ"):
                    for key in ((eng,), (eng, res["point"]["law"], c["quantity"])):
                        compared[key] += 1
                        agree[key] += c["verdict"] == "agree"
        for eng, msg in res["failed"].items():
            print(f"failed: {eng} on {res['point']}: {msg}")
    print(f"{len(grid)} grid points; agree/compared:")
    for eng in ENGINES:
        a, n = agree[(eng,)], compared[(eng,)]
        print(f"  {eng:8s} {a}/{n} ({100 * a / max(n, 1):.0f} %)")
    print("where an engine misses (law, quantity):")
    for key in sorted(k for k in compared if len(k) == 3 and agree[k] < compared[k]):
        print(f"  {key[0]:8s} {key[1]:16s} {key[2]:20s} {agree[key]}/{compared[key]}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, default=holdout._json_default)


if __name__ == "__main__":
    main()
