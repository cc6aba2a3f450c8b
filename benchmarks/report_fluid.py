"""CPU of the validation report's fluid runs, this tree and a reference tree side by side.

Run: ``python benchmarks/report_fluid.py [--reference SRC | --no-reference] [--repeat N]
[--alternate K]``.

Times, in a child process per tree (each importing its own ``tcpfluid``; a first run
compiles and is not timed), the fluid runs that take most of the report's fluid CPU:

* ``thesis hybrid`` / ``thesis rounds``: one point of the thesis-fairness section (two
  Enhanced Vegas flows, RED, x2 = 10 ms, 60 s) on the hybrid model and on the asynchronous
  round model (the section runs 52 such points);
* ``60-flow hybrid``: the many-flows section's hybrid run of Vegas on ``qv-many-flows``
  (eight such runs);
* ``one-flow hybrid``: a convergence-bdp point (TCP-Ho, qv-basic; 28 such runs);
* ``3-RTT rounds``: the many-flows section's round-model run of Vegas on
  ``qv-different-rtt`` (three RTT classes of 20 flows joining in groups; four such runs).

The trees' child processes alternate (this tree, the reference, this tree, ...) ``--alternate``
times (default 2), so that a change of the machine's load during the measurement falls on
both trees alike. Printed: CPU seconds per run (the best of ``--repeat`` runs in each of the
``--alternate`` children) per tree and the ratio; then one JSON line per measurement
``{"name", "tree", "value", "unit"}``. Make a reference tree of
any commit with ``git archive <commit> | tar -x -C /tmp/ref`` and pass
``--reference /tmp/ref/src``. On a shared machine CPU time is the fairer measure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "src"

_CHILD = r"""
import json, sys, time
from tcpfluid.report._runs import ode_run
from tcpfluid.scenarios import build_scenario
from tcpfluid.engines import simulate
from tcpfluid.fluid.ode import simulate_scenario_ode

repeat = int(sys.argv[1])
thesis = build_scenario(
    "thesis-two-flow", x2="10ms", queue="red", duration="60s", delta=1.0
).with_algorithm("enhanced-vegas", delta=1.0)
three_rtt = build_scenario("qv-different-rtt").with_algorithm("vegas")
runs = {
    "thesis hybrid": lambda: simulate_scenario_ode(thesis, n_points=601),
    "thesis rounds": lambda: simulate(thesis, "rounds"),
    "60-flow hybrid": lambda: ode_run("qv-many-flows", "vegas", {}),
    "one-flow hybrid": lambda: ode_run("qv-basic", "tcp-ho", {"cbr": "0.75Mbps"}),
    "3-RTT rounds": lambda: simulate(three_rtt, "rounds"),
}
out = {}
for name, run in runs.items():
    run()  # compiles (cold cache) and warms up
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        run()
        best = min(best, time.process_time() - c0)
    out[name] = best
print(json.dumps(out))
"""


def _time_tree(src: Path, repeat: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(repeat)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reference", type=Path, default=Path("/work/baseline/src"))
    parser.add_argument("--no-reference", action="store_true", help="time this tree only")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per child process")
    parser.add_argument(
        "--alternate", type=int, default=2, help="child processes per tree, the trees alternating"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        raise SystemExit(f"--repeat must be >= 1, got {args.repeat}")
    if args.alternate < 1:
        raise SystemExit(f"--alternate must be >= 1, got {args.alternate}")
    trees = [("new", HERE)]
    if not args.no_reference:
        if (args.reference / "tcpfluid").is_dir():
            trees.append(("reference", args.reference))
        else:
            print(f"(no reference tree at {args.reference}: timing this tree only)")
    times: dict[str, dict[str, float]] = {}
    for _ in range(args.alternate):  # the trees alternate: a load change hits both alike
        for tree, src in trees:
            got = _time_tree(src, args.repeat)
            best = times.setdefault(tree, got)
            for name, value in got.items():
                best[name] = min(best[name], value)
    print(f"{'run':<18} " + " ".join(f"{t + ' CPU s':>16}" for t, _ in trees) + "   ratio")
    for name in times["new"]:
        cells = " ".join(f"{times[t][name]:>16.3f}" for t, _ in trees)
        ratio = ""
        if "reference" in times:
            ratio = f"   {times['reference'][name] / times['new'][name]:.2f}x"
        print(f"{name:<18} {cells}{ratio}")
    for tree, _ in trees:
        for name, value in times[tree].items():
            print(json.dumps({"name": name, "tree": tree, "value": value, "unit": "s CPU"}))


if __name__ == "__main__":
    main()
