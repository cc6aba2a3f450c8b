"""Speed of the ODE fluid model: wall time per run and right-hand-side evaluations.

Run: ``python benchmarks/ode.py [--quick] [--repeat N]``. Prints a human table, then one
JSON line per measurement: ``{"name": ..., "value": ..., "unit": ...}``.

Measurements (one core; each figure is the best of ``--repeat`` runs)
--------------------------------------------------------------------
* ``ode/thesis-two-flow/<law>``: document 001's two flows on 1.5 Mb/s, x2 = 90 ms, RED,
  60 s (Enhanced Vegas δ = 2, Vegas 1/3, Reno): seconds per run, per solver method.
* ``ode/qv-basic/vegas``: document 000 §5.1, one Vegas flow on 50 Mb/s x 100 ms for 240 s
  with the CBR from 80 to 160 s (classical right-hand side, ``model="classical"``).
* ``ode/sweep/x2``: the thesis x2 sweep of 13 values x 4 settings (52 runs), seconds.
* ``ode/qv-many-flows/vegas``: 60 flows on 1 Gb/s for 500 s, classical (skipped with
  ``--quick``).
* ``hybrid/qv-basic/<law>``: the same §5.1 run on the hybrid model (the ode engine's
  default), for Vegas, Quick Vegas and FAST; ``hybrid/qv-many-flows/vegas``: the 60 flows
  (skipped with ``--quick``). The first call compiles the Numba kernel (cached on disk).
* ``hybrid/asymmetric/<law>``: the asymmetric-network paper's path at k = 5 (ACK-path
  bottleneck, 100 s) on the hybrid model, Reno and forward-path Vegas (skipped on a tree
  whose hybrid model has no ACK path).
* ``hybrid/qv-basic/fast/arrival``: the FAST run with ``rtt_sample="arrival"``.

``--hybrid-only`` measures the hybrid lines alone. To compare two trees in one run, run the
script once per tree, e.g. ``for src in OLD/src src; do PYTHONPATH=$src python
benchmarks/ode.py --hybrid-only; done`` (the first call on a tree compiles its kernel).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from tcpfluid.fairness import thesis_two_flow_study
from tcpfluid.fluid.ode import simulate_scenario_ode
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.scenarios import build_scenario


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best = float("inf")
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _best_cpu(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Best wall time and best CPU time (user + system of this process) over ``repeat`` runs:
    on a shared machine the CPU time is the fairer figure."""
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall = min(wall, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the 60-flow run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hybrid-only", action="store_true", help="only the hybrid-model lines")
    args = ap.parse_args()
    rows: list[tuple[str, float, str]] = []
    if args.hybrid_only:
        _hybrid_rows(rows, args)
        _print(rows)
        return

    cases = {
        "enhanced-vegas": {"delta": 2.0},
        "vegas": {"alpha": 1.0, "beta": 3.0},
        "reno": {},
    }
    for law, params in cases.items():
        sc = build_scenario("thesis-two-flow", x2="90ms", queue="red", duration="60s")
        sc = sc.with_algorithm(law, **params)
        for method in ("BDF", "LSODA"):
            sec, r = _best(lambda sc=sc, m=method: simulate_scenario_ode(sc, method=m), args.repeat)
            rows.append((f"ode/thesis-two-flow/{law}/{method}", sec, "s"))
            rows.append((f"ode/thesis-two-flow/{law}/{method}/nfev", float(r.nfev), "evals"))

    sc = build_scenario("qv-basic").with_algorithm("vegas")
    sec, r = _best(lambda: simulate_scenario_ode(sc, model="classical"), args.repeat)
    rows.append(("ode/qv-basic/vegas", sec, "s"))
    _hybrid_rows(rows, args, many=False)

    sec, _ = _best(lambda: thesis_two_flow_study(x2_ms=tuple(THESIS_TABLE_3_16)), 1)
    rows.append(("ode/sweep/x2_52_runs", sec, "s"))

    if not args.quick:
        sc = build_scenario("qv-many-flows").with_algorithm("vegas")
        sec, r = _best(lambda: simulate_scenario_ode(sc, n_points=2001, model="classical"), 1)
        rows.append(("ode/qv-many-flows/vegas", sec, "s"))
        sec, r = _best(lambda: simulate_scenario_ode(sc, n_points=2001, model="hybrid"), 1)
        rows.append(("hybrid/qv-many-flows/vegas", sec, "s"))

    _print(rows)


def _hybrid_rows(rows: list[tuple[str, float, str]], args: Any, *, many: bool = True) -> None:
    """The ``hybrid/...`` measurements, wall and CPU time (the 60-flow one unless ``--quick``
    or not ``many``)."""
    from tcpfluid.fluid.hybrid import simulate_scenario_hybrid

    fn: Callable[[], Any]

    def add(name: str, fn: Callable[[], Any], repeat: int) -> None:
        wall, cpu = _best_cpu(fn, repeat)
        rows.append((name, wall, "s"))
        rows.append((f"{name}/cpu", cpu, "s cpu"))

    for law in ("vegas", "quick-vegas", "fast"):
        sc = build_scenario("qv-basic").with_algorithm(law)
        fn = partial(simulate_scenario_ode, sc, model="hybrid")
        add(f"hybrid/qv-basic/{law}", fn, args.repeat)
    sc = build_scenario("qv-basic").with_algorithm("fast")
    try:
        fn = partial(simulate_scenario_hybrid, sc, rtt_sample="arrival")
        add("hybrid/qv-basic/fast/arrival", fn, args.repeat)
    except TypeError:  # a tree without the option
        pass
    for law in ("reno", "forward-vegas"):
        p: dict[str, Any] = {"k": 5, "duration": "100s"}
        if law != "reno":
            p.update(alpha=1, beta=3)
        sc = build_scenario("asymmetric", **p).with_algorithm(law)
        try:
            fn = partial(simulate_scenario_ode, sc, model="hybrid")
            add(f"hybrid/asymmetric/{law}", fn, args.repeat)
        except ValueError:  # a hybrid model without an ACK path
            continue
    if many and not args.quick:
        sc = build_scenario("qv-many-flows").with_algorithm("vegas")
        fn = partial(simulate_scenario_ode, sc, n_points=2001, model="hybrid")
        add("hybrid/qv-many-flows/vegas", fn, 1)


def _print(rows: list[tuple[str, float, str]]) -> None:
    width = max(len(n) for n, _, _ in rows)
    for name, value, unit in rows:
        print(f"{name.ljust(width)}  {value:10.4g} {unit}")
    for name, value, unit in rows:
        print(json.dumps({"name": name, "value": value, "unit": unit}))


if __name__ == "__main__":
    main()
