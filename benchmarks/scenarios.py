"""Speed of building and reducing scenarios with many flows, and of the common summary.

Run: ``python benchmarks/scenarios.py [--flows 10000] [--repeat 3]``. Prints a human table,
then one JSON line per measurement: ``{"name": ..., "value": ..., "unit": ...}``.

Measurements
------------
* ``scenarios/build/<n>``: ``build_scenario("qv-basic", flows=n, cbr="none")``, seconds
  (building is linear in flows: 4 links and 1 flow per host pair, kept as columns).
* ``scenarios/reduce/<n>``: ``.with_algorithm("vegas").fluid_view()``, seconds.
* ``scenarios/summary/<n>``: :func:`tcpfluid.simulate` on the round engine for 2 s (the
  engine plus :func:`tcpfluid.metrics.summarise` of every flow), seconds.

Each figure is the best of ``--repeat`` runs, to reduce the noise of a shared machine.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import tcpfluid
from tcpfluid.scenarios import build_scenario


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    for n in args.flows:
        sc = build_scenario("qv-basic", flows=n, cbr="none", duration="2s")
        rows.append(
            (
                f"scenarios/build/{n}",
                _best(lambda n=n: build_scenario("qv-basic", flows=n, cbr="none"), args.repeat),
            )
        )
        rows.append(
            (
                f"scenarios/reduce/{n}",
                _best(lambda sc=sc: sc.with_algorithm("vegas").fluid_view(), args.repeat),
            )
        )
        rows.append(
            (
                f"scenarios/summary/{n}",
                _best(lambda sc=sc: tcpfluid.simulate(sc, "rounds", algorithm="vegas"), 1),
            )
        )
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name.ljust(width)}  {value:8.3f} s")
    for name, value in rows:
        print(json.dumps({"name": name, "value": value, "unit": "s"}))


if __name__ == "__main__":
    main()
