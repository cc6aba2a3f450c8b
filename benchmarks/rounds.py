"""Speed of the round model (one base RTT, batched over scenarios), this tree and a reference
tree side by side: flow-round updates per second, per law, one and 10,000 scenarios.

Run: ``python benchmarks/rounds.py [--quick] [--repeat N] [--reference SRC | --no-reference]
[--only NAME]``. Prints a table (one row per case and tree, and the ratio), then one JSON
line per measurement: ``{"name": ..., "tree": "new"|"reference", "value": ..., "unit": ...}``.

Every measurement runs in a fresh subprocess whose ``PYTHONPATH`` is the tree's ``src``
(this repository's, and the reference's), so both are timed in one run on the same machine
state. Make a reference tree of any commit with ``git archive <commit> src | tar -x -C
/tmp/ref`` and pass ``--reference /tmp/ref/src``; ``TCPFLUID_BENCH_REFERENCE`` sets the
default. The figure is the best CPU time (user + system of the process) of ``--repeat``
runs after one untimed run.

Cases
-----
* ``<law>/single``: one scenario (μd = 626 packets, 1000-packet buffer) for 2,000 rounds:
  the per-round Python overhead dominates.
* ``<law>/batch10000``: 10,000 scenarios (μd from 10 to 10,000 packets, a buffer as large
  as the pipe) for 200 rounds, only time/window/phase recorded.
* ``vegas/bdp_sweep``: a 10,000-scenario BDP sweep of 1,000 rounds of Vegas, all per-round
  fields recorded.

``--quick`` divides the rounds and scenarios by ten (a smoke test).
"""

from __future__ import annotations

import json
import time

from _worker import bench_args, compare

LAWS = ("vegas", "quick-vegas", "tcp-ho", "itcp-vegas", "enhanced-vegas", "reno", "fast")


def _cases(quick: bool) -> list[str]:
    q = "q:" if quick else ""
    out = [f"{q}{law}/{kind}" for law in LAWS for kind in ("single", "batch10000")]
    return [*out, f"{q}vegas/bdp_sweep"]


# ----------------------------------------------------------------------------- worker
def _worker(case: str, repeat: int) -> None:
    import numpy as np

    from tcpfluid.algorithms import get_law
    from tcpfluid.fluid import PathBatch, simulate_rounds

    quick = case.startswith("q:")
    law_name, _, kind = case.removeprefix("q:").partition("/")
    scale = 10 if quick else 1
    if kind == "single":
        paths = PathBatch.from_bdp(np.array([626.0]), 0.1, buffer_pkts=1000.0)
        n, kw = 1, {"rounds": 2000 // scale}
    elif kind == "batch10000":
        bdp = np.geomspace(10.0, 10_000.0, 10_000 // scale)
        paths = PathBatch.from_bdp(bdp, 0.1, buffer_pkts=np.maximum(bdp, 20.0))
        n, kw = bdp.size, {"rounds": 200 // scale, "record": ()}
    elif kind == "bdp_sweep":
        paths = PathBatch.from_bdp(np.linspace(10.0, 10_000.0, 10_000 // scale), 0.1)
        n, kw = 10_000 // scale, {"rounds": 1000 // scale}
    else:
        raise SystemExit(f"unknown case {case!r}")
    law = get_law(law_name)
    simulate_rounds(law, paths, **kw)  # untimed: imports, first calls
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        simulate_rounds(law, paths, **kw)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    updates = n * int(kw["rounds"])  # type: ignore[call-overload]
    print(json.dumps({"updates": updates, "cpu_s": best_cpu, "wall_s": best_wall}))


# ----------------------------------------------------------------------------- driver
def main() -> None:
    args = bench_args((__doc__ or "").splitlines()[0], quick=True)
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    cases = (
        [("q:" if args.quick else "") + c for c in args.only] if args.only else _cases(args.quick)
    )
    compare(__file__, args, cases, "updates", "rate", "flow-round updates/s (CPU)")


if __name__ == "__main__":
    main()
