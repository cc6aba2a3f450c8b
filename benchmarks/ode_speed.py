"""Speed of the ODE engine (its default, the hybrid model) on this tree and on a reference
tree, side by side in one run: simulated seconds per CPU second.

Run: ``python benchmarks/ode_speed.py [--reference PATH/src] [--repeat N]``. Each case runs
in a fresh interpreter per tree (``benchmarks/_worker.py``), first once untimed (it compiles
or loads the Numba kernel), then ``--repeat`` times; the figure is the best CPU time (user
+ system of the worker, the fairer figure on a shared machine). Prints a table and one
JSON line per case and tree: ``{"name": ..., "tree": ..., "value": ..., "unit": ...}``.

Cases
-----
* ``qv-basic/vegas``: one Vegas flow on 50 Mb/s x 100 ms with the CBR step (240 s).
* ``thesis-two-flow/vegas`` and ``thesis-two-flow/reno``: document 001's two flows, 400 s.
* ``qv-many-flows/vegas``: 60 flows joining in groups on 1 Gb/s (60 s).
* ``reno-25/reno``: one Reno flow, 10 Mb/s x 100 ms, 25-packet buffer (600 s): losses.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

CASES: dict[str, tuple[str, str, dict[str, object]]] = {
    "qv-basic/vegas": ("qv-basic", "vegas", {}),
    "thesis-two-flow/vegas": ("thesis-two-flow", "vegas", {"duration": "400s"}),
    "thesis-two-flow/reno": ("thesis-two-flow", "reno", {"duration": "400s"}),
    "qv-many-flows/vegas": ("qv-many-flows", "vegas", {"duration": "60s"}),
    "reno-25/reno": (
        "qv-basic",
        "reno",
        {"bandwidth": "10Mbps", "buffer": 25, "cbr": "none", "duration": "600s"},
    ),
}


def _worker(case: str, repeat: int) -> None:
    import tcpfluid
    from tcpfluid.scenarios import build_scenario

    name, alg, sets = CASES[case]
    sc = build_scenario(name, **sets).with_algorithm(alg)  # type: ignore[arg-type]
    tcpfluid.simulate(sc, "ode")  # compile or load the kernel
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        tcpfluid.simulate(sc, "ode")
        best = min(best, time.process_time() - c0)
    print(json.dumps({"cpu_s": best, "simulated_s": float(sc.duration_s)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", type=Path, default=Path("/work/base/src"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--worker", default=None)
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    if args.worker is not None:
        _worker(args.worker, args.repeat)
        return
    from _worker import run_worker

    here = Path(__file__).resolve().parent.parent / "src"
    trees = {"reference": args.reference, "this": here}
    print(f"{'case':28s} {'reference':>12s} {'this tree':>12s}  ratio (sim s / CPU s)")
    for case in args.cases:
        got: dict[str, float] = {}
        for label, src in trees.items():
            r = run_worker(__file__, src, case, args.repeat)
            if r is not None:
                got[label] = r["simulated_s"] / r["cpu_s"]
                print(
                    json.dumps(
                        {"name": f"ode/{case}", "tree": label, "value": got[label],
                         "unit": "simulated s per CPU s"}
                    )
                )  # fmt: skip
        ref, new = got.get("reference", float("nan")), got.get("this", float("nan"))
        print(f"{case:28s} {ref:12.1f} {new:12.1f}  {new / ref:6.3f}")


if __name__ == "__main__":
    main()
