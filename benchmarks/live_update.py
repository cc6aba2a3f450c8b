"""Update time of the live notebook (notebooks/06_live.ipynb): one slider move, end to end.

Run: ``python benchmarks/live_update.py [--repeat N]``. Executes the notebook's definitions
cell (the one that defines ``update``) and times ``update(**setting)`` at three settings:
the round model run, the closed forms, the figure drawn and rendered to the PNG the
notebook displays, with the run cache cleared before each call (a slider move to a new
setting). Prints a human table, then
one JSON line per measurement: ``{"name": ..., "value": ..., "unit": ...}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import nbformat

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "06_live.ipynb"


def _definitions() -> dict[str, Any]:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and "def update(" in cell.source:
            namespace: dict[str, Any] = {}
            exec(compile(cell.source, str(NOTEBOOK), "exec"), namespace)
            return namespace
    raise SystemExit(f"{NOTEBOOK} has no cell defining update()")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="updates per setting (median)")
    args = parser.parse_args()
    ns = _definitions()
    defaults = ns["DEFAULTS"]
    settings = {
        "defaults": defaults,
        "quick-vegas-4-flows": {**defaults, "algorithm": "quick-vegas", "flows": 4},
        "vegas-155Mbps-80ms": {**defaults, "bandwidth_mbps": 155.0, "rtt_ms": 80.0},
    }
    ns["CACHE"].clear()
    ns["update"](**defaults)  # warm-up: imports, first calls
    rows = []
    for name, setting in settings.items():
        times = []
        for _ in range(args.repeat):
            ns["CACHE"].clear()
            times.append(ns["update"](**setting)[2])
        rows.append((name, statistics.median(times), min(times)))
    print(f"{'setting':<22} {'median (ms)':>12} {'best (ms)':>10}")
    for name, med, best in rows:
        print(f"{name:<22} {1000 * med:>12.0f} {1000 * best:>10.0f}")
    for name, med, _ in rows:
        print(json.dumps({"name": f"live/update/{name}", "value": med, "unit": "s"}))


if __name__ == "__main__":
    main()
