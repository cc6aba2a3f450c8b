"""Cost of many flows outside the engines' compiled loops: building the scenario, running
it, and turning the engine's own result into the common result (round logs, per-flow
records, the summary).

Run: ``python benchmarks/many_flows.py [--flows 1000,10000,100000] [--engines rounds,ode]
[--duration-rounds 1s] [--duration-ode 2s]``. Prints one line per (engine, flows): the
seconds to build the scenario (``qv-many-flows``, Vegas, one group), to run the engine
(its native result), to build the result and summary, and the flows per second of the
whole; then one JSON line per measurement. Each case runs in this process, after one
untimed 100-flow run of the same engine (Numba's compilation or cache load is not
counted). The ODE engine keeps flows x samples arrays: its largest case needs memory in
proportion (about 0.15 GB per 1,000 flows for a 2-s run); ``--max-ode-flows`` (default
10,000) skips larger ones. Timings on a loaded machine are noisy: give the load
(``uptime``) beside any figure.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from tcpfluid.engines import get_engine
from tcpfluid.scenarios import build_scenario


def _case(engine: str, flows: int, duration: str) -> dict[str, float]:
    t0 = time.perf_counter()
    sc = build_scenario(
        "qv-many-flows", flows=flows, groups=1, duration=duration, algorithm="vegas"
    )
    t1 = time.perf_counter()
    eng = get_engine(engine)
    native = eng._native(sc, None)
    t2 = time.perf_counter()
    result = eng._result_of(sc, native, eng.name)
    t3 = time.perf_counter()
    assert len(result.summary.flows) == flows
    return {"build_s": t1 - t0, "run_s": t2 - t1, "result_s": t3 - t2, "total_s": t3 - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default="1000,10000,100000")
    ap.add_argument("--engines", default="rounds,ode")
    ap.add_argument("--duration-rounds", default="1s")
    ap.add_argument("--duration-ode", default="2s")
    ap.add_argument("--max-ode-flows", type=int, default=10_000)
    a = ap.parse_args()
    counts = [int(x) for x in a.flows.split(",")]
    print(f"load average: {os.getloadavg()}")
    print(f"{'engine':8} {'flows':>8} {'build s':>9} {'run s':>9} {'result s':>9} {'flows/s':>10}")
    rows = []
    for engine in a.engines.split(","):
        duration = a.duration_ode if engine in ("ode", "hybrid") else a.duration_rounds
        _case(engine, 100, duration)  # warm-up: imports, Numba
        for n in counts:
            if engine in ("ode", "hybrid") and n > a.max_ode_flows:
                print(f"{engine:8} {n:>8} skipped (--max-ode-flows {a.max_ode_flows})")
                continue
            r = _case(engine, n, duration)
            rate = n / r["total_s"]
            print(
                f"{engine:8} {n:>8} {r['build_s']:9.2f} {r['run_s']:9.2f} "
                f"{r['result_s']:9.2f} {rate:10.0f}"
            )
            rows.append({"engine": engine, "flows": n, "duration": duration, **r})
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
