"""Speed of the asynchronous round model (flows of unequal base RTTs), this tree and a
reference tree side by side.

Run: ``python benchmarks/rounds_async.py [--repeat N] [--reference SRC | --no-reference]
[--only NAME]``. Prints a table (one row per case and tree, and the ratio), then one JSON
line per measurement: ``{"name": ..., "tree": "new"|"reference", "value": ..., "unit": ...}``.

Every measurement runs in a fresh subprocess whose ``PYTHONPATH`` is the tree's ``src``
(this repository's, and the reference's), so both are timed in one run on the same machine
state. Make a reference tree of any commit with ``git archive <commit> src | tar -x -C
/tmp/ref`` and pass ``--reference /tmp/ref/src``; ``TCPFLUID_BENCH_REFERENCE`` sets the
default. Each worker runs its case once untimed (imports, first calls), then
``--repeat`` times; the best CPU time (user + system of the process, the fairer figure on
a shared machine) and the best wall time are kept.

Cases
-----
* ``thesis/<setting>/<x2>``: the report's thesis-fairness round-model run: the
  "TCP Vegas fairness" thesis's two-flow network (connection 2's extra delay ``x2``,
  RED bottleneck, 60 s), one flow per RTT class, through ``simulate(sc, "rounds")``
  (the setting's law and parameters as in the report: ``vegas-1`` is Enhanced Vegas
  with δ = 1). Default ``thesis/vegas-1/50``.
* ``qv-different-rtt/<law>``: the Quick Vegas paper's §5.3.2 scenario, 60 flows in three
  RTT classes of 20 (50, 100, 200 ms) on a 1 Gb/s bottleneck for 200 s (the report's
  many-flows round-model run). Default laws: Reno and Vegas.

The figure is class rounds per second (``rounds_per_s``: rounds of every RTT class, each
one step of the model's event loop) and the CPU seconds of one run (``cpu_s``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from _worker import run_worker

HERE = Path(__file__).resolve().parent
NEW_SRC = HERE.parent / "src"
DEFAULT_REFERENCE = Path(os.environ.get("TCPFLUID_BENCH_REFERENCE", "/tmp/ref/src"))
CASES = (
    "thesis/vegas-1/50",
    "thesis/vegas-1_3/10",
    "qv-different-rtt/reno",
    "qv-different-rtt/vegas",
)
#: the thesis-fairness section's settings: (law, parameters)
SETTINGS = {
    "vegas-1_3": ("vegas", {"alpha": 1.0, "beta": 3.0}),
    "vegas-1": ("enhanced-vegas", {"delta": 1.0}),
    "vegas-2": ("enhanced-vegas", {"delta": 2.0}),
    "vegas-3": ("enhanced-vegas", {"delta": 3.0}),
}


# ----------------------------------------------------------------------------- worker
def _scenario(case: str) -> Any:
    from tcpfluid.scenarios import build_scenario

    kind, _, rest = case.partition("/")
    if kind == "thesis":
        setting, _, x2 = rest.partition("/")
        if setting not in SETTINGS or not x2.isdigit():
            raise SystemExit(f"unknown case {case!r}: thesis/<{'|'.join(SETTINGS)}>/<x2 ms>")
        law, params = SETTINGS[setting]
        return build_scenario(
            "thesis-two-flow", x2=f"{x2}ms", queue="red", duration="60s", **params
        ).with_algorithm(law)
    if kind == "qv-different-rtt":
        return build_scenario("qv-different-rtt").with_algorithm(rest)
    raise SystemExit(f"unknown case {case!r}")


def _class_rounds(result: Any) -> int:
    """The rounds of every RTT class in a round-model result (its trace's round ends of
    each class's first flow)."""
    import numpy as np

    from tcpfluid.fluid._rounds_async import rtt_classes

    trace = result.native
    ends = trace.round_end
    return sum(
        int(np.count_nonzero(ends[:, 0, int(ix[0])])) for ix in rtt_classes(trace.base_rtt_s)
    )


def _worker(case: str, repeat: int) -> None:
    from tcpfluid import simulate

    sc = _scenario(case)
    rounds = _class_rounds(simulate(sc, "rounds"))  # untimed: imports, first calls
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        simulate(sc, "rounds")
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    print(json.dumps({"rounds": rounds, "cpu_s": best_cpu, "wall_s": best_wall}))


# ----------------------------------------------------------------------------- driver
def _run_worker(src: Path, case: str, repeat: int) -> dict[str, Any] | None:
    return run_worker(__file__, src, case, repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (best kept)")
    parser.add_argument(
        "--reference", type=Path, default=DEFAULT_REFERENCE, help="the reference tree's src"
    )
    parser.add_argument("--no-reference", action="store_true", help="time this tree only")
    parser.add_argument(
        "--only", action="append", help="a case to run (repeatable), e.g. thesis/vegas-2/110"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        raise SystemExit(f"--repeat must be >= 1, got {args.repeat}")
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    trees = [("new", NEW_SRC)]
    if not args.no_reference:
        if (args.reference / "tcpfluid").is_dir():
            trees.append(("reference", args.reference))
        else:
            print(f"(no reference tree at {args.reference}: timing this tree only)")
    cases = args.only or list(CASES)
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")
    print(f"{'case':<30} {'tree':<10} {'rounds':>7} {'CPU s':>7} {'wall s':>7} {'rounds/s':>9}")
    records = []
    for case in cases:
        cpus: dict[str, float] = {}
        for tree, src in trees:
            rec = _run_worker(src, case, args.repeat)
            if rec is None:
                continue
            rate = rec["rounds"] / rec["cpu_s"]
            cpus[tree] = rec["cpu_s"]
            print(
                f"{case:<30} {tree:<10} {rec['rounds']:>7d} {rec['cpu_s']:>7.3f} "
                f"{rec['wall_s']:>7.3f} {rate:>9.0f}"
            )
            records.append(
                {"name": f"rounds_async/{case}/rounds_per_s", "tree": tree, "value": rate,
                 "unit": "rounds/s (CPU)"}
            )  # fmt: skip
            records.append(
                {"name": f"rounds_async/{case}/cpu_s", "tree": tree, "value": rec["cpu_s"],
                 "unit": "s"}
            )  # fmt: skip
        if "reference" in cpus and "new" in cpus:
            print(f"{'':<30} {'speed-up':<10} {cpus['reference'] / cpus['new']:>15.2f}x CPU")
    for r in records:
        print(json.dumps(r))


if __name__ == "__main__":
    main()
