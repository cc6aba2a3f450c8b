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
* ``many/<flows>/<law>``: the "TCP Vegas fairness" thesis's many-flows network
  (``thesis-many-flows``, RED-5-15, 60 s) with access links at the bottleneck's rate
  (``access_factor`` = flows, as the fluid engines run it): every flow its own base RTT,
  so one RTT class per flow. Default ``many/30/vegas``; ``many/200/vegas`` is the
  largest row's size.

The figure is class rounds per second (``rounds_per_s``: rounds of every RTT class, each
one step of the model's event loop) and the CPU seconds of one run (``cpu_s``).
"""

from __future__ import annotations

import json
import time
from typing import Any

from _worker import bench_args, compare

CASES = (
    "thesis/vegas-1/50",
    "thesis/vegas-1_3/10",
    "qv-different-rtt/reno",
    "qv-different-rtt/vegas",
    "many/30/vegas",
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
    if kind == "many":
        flows, _, law = rest.partition("/")
        if not flows.isdigit():
            raise SystemExit(f"unknown case {case!r}: many/<flows>/<law>")
        n = int(flows)
        return build_scenario("thesis-many-flows", flows=n, access_factor=n).with_algorithm(law)
    raise SystemExit(f"unknown case {case!r}")


def _class_rounds(result: Any) -> int:
    """The rounds of every RTT class in a round-model result (its trace's round ends of
    each class's first flow)."""
    import numpy as np

    try:
        from tcpfluid.fluid.rounds import rtt_classes
    except ImportError:  # (a reference tree before the round model's modules were merged)
        from tcpfluid.fluid._rounds_async import rtt_classes  # type: ignore[no-redef]

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
def main() -> None:
    args = bench_args((__doc__ or "").splitlines()[0])
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    compare(__file__, args, args.only or list(CASES), "rounds", "rounds_per_s", "rounds/s (CPU)")


if __name__ == "__main__":
    main()
