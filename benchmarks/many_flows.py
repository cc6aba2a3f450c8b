"""Cost of many flows outside the engines' compiled loops: building the scenario, running
it, and turning the engine's own result into the common result (round logs, per-flow
records, the summary).

Run: ``python benchmarks/many_flows.py [--flows 1000,10000,100000] [--engines rounds,ode]
[--duration-rounds 1s] [--duration-ode 2s] [--cli-flows 10000] [--reference PATH/src]``
(``--engines ""`` or ``--flows ""``: the command alone). Prints one line per
(engine, flows): the
seconds to build the scenario (``qv-many-flows``, Vegas, one group), to run the engine
(its native result), to build the result and summary, and the flows per second of the
whole; then one JSON line per measurement. Each case runs in this process, after one
untimed 100-flow run of the same engine (Numba's compilation or cache load is not
counted). The ODE engine keeps flows x samples arrays (by default about two million
flow-samples of each recorded quantity); ``--max-ode-flows`` (default 10,000) skips
larger ones. Then, as a user runs it (process start to exit: imports, Numba's cache load,
the run and the printed summary), ``tcpfluid simulate qv-many-flows -a vegas -e ode --set
flows=N --set groups=1 --set duration=2s`` for each N of ``--cli-flows`` (default
10,000; ``""``: none): wall and CPU seconds, the peak memory and the model's throughput
(flow-steps per CPU second of the whole command: flows x time steps, the compiled
kernel's work); with ``--reference PATH/src`` (a tree made by ``git archive <commit> src |
tar -x -C /tmp/ref``) the same command on that tree beside it, in the same run, each
after one untimed run (its Numba kernels cached). Timings on a loaded machine are noisy:
give the load (``uptime``) beside any figure; the CPU seconds are steadier than the wall
time there.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time

from tcpfluid.engines import get_engine
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.model import paused_gc


def _case(engine: str, flows: int, duration: str) -> dict[str, float]:
    t0 = time.perf_counter()
    sc = build_scenario(
        "qv-many-flows", flows=flows, groups=1, duration=duration, algorithm="vegas"
    )
    t1 = time.perf_counter()
    eng = get_engine(engine)
    native = eng._native(sc, None)
    t2 = time.perf_counter()
    with paused_gc():  # as the engine's run makes its result
        result = eng._result(sc, native, eng.name)
    t3 = time.perf_counter()
    assert len(result.summary.flows) == flows
    return {"build_s": t1 - t0, "run_s": t2 - t1, "result_s": t3 - t2, "total_s": t3 - t0}


def _cli(flows: int, duration: str, src: str | None = None) -> dict[str, float]:
    """The ODE engine's many-flows run as a user runs it, in a fresh process (on the
    source tree ``src``, else this one)."""
    cmd = [sys.executable, "-m", "tcpfluid", "simulate", "qv-many-flows", "-a", "vegas"]
    cmd += ["-e", "ode", "--set", f"flows={flows}", "--set", "groups=1"]
    cmd += ["--set", f"duration={duration}", "--quiet"]
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # the largest child so far (this one: the cases grow)
    return {"wall_s": wall, "cpu_s": cpu, "peak_gb": after.ru_maxrss / 2**20}


def _flow_steps(flows: int, duration: str) -> float:
    """The hybrid model's flow-steps of the command :func:`_cli` runs (flows x steps)."""
    from tcpfluid.fluid._hybrid_inputs import STEPS_PER_RTT
    from tcpfluid.scenarios.reduction import fluid_view

    sc = build_scenario(
        "qv-many-flows", flows=flows, groups=1, duration=duration, algorithm="vegas"
    )
    view = fluid_view(sc, engine="ode")
    dt = float(min(view.base_rtt_s)) / STEPS_PER_RTT
    return flows * math.ceil(view.duration_s / dt - 1e-9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default="1000,10000,100000")
    ap.add_argument("--engines", default="rounds,ode")
    ap.add_argument("--duration-rounds", default="1s")
    ap.add_argument("--duration-ode", default="2s")
    ap.add_argument("--max-ode-flows", type=int, default=10_000)
    ap.add_argument("--cli-flows", default="10000")
    ap.add_argument("--reference", help="a reference tree's src: its command timed beside")
    a = ap.parse_args()
    counts = [int(x) for x in a.flows.split(",") if x]
    print(f"load average: {os.getloadavg()}")
    print(f"{'engine':8} {'flows':>8} {'build s':>9} {'run s':>9} {'result s':>9} {'flows/s':>10}")
    rows = []
    for engine in [e for e in a.engines.split(",") if e]:
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
    cli = [int(x) for x in a.cli_flows.split(",") if x]
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if a.reference:
        trees.append(("reference", a.reference))
    if cli:
        print(
            f"{'as a user runs it':18} {'tree':>10} {'flows':>8} {'wall s':>8} {'CPU s':>8} "
            f"{'peak GB':>8} {'flow-steps/CPU s':>17}"
        )
    for n in sorted(cli):
        steps = _flow_steps(n, a.duration_ode)
        for label, src in trees:
            _cli(100, a.duration_ode, src)  # untimed: the tree's kernels compiled or cached
            c = _cli(n, a.duration_ode, src)
            print(
                f"{'tcpfluid simulate':18} {label:>10} {n:>8} {c['wall_s']:8.2f} "
                f"{c['cpu_s']:8.2f} {c['peak_gb']:8.2f} {steps / c['cpu_s']:17.3g}"
            )
            rows.append(
                {"engine": "ode", "flows": n, "duration": a.duration_ode, "cli": True,
                 "tree": label, "flow_steps": steps, **c}
            )  # fmt: skip
    print(f"load average: {os.getloadavg()}")
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
