"""Speed of the ODE engine (its default, the hybrid model) on this tree and on a reference
tree, side by side in one run: flow-steps per CPU second.

Run: ``python benchmarks/ode_speed.py [--reference PATH/src | --no-reference] [--repeat N]
[--only CASE]``. Each case runs in a fresh interpreter per tree (``benchmarks/_worker.py``),
first once untimed (it compiles or loads the Numba kernel; the 10,000-flow cases with 100
of their flows), then ``--repeat`` times; the figure is the best CPU time (user + system of the
worker, the fairer figure on a shared machine; the wall time of the same run beside it).
A flow-step is one flow advanced by one time step of the model (flows x steps, the
kernel's work). Prints a table (the load average first) and one JSON line per case and
tree: ``{"name": "ode_speed/<case>/flow_steps_per_cpu_s", "tree": ..., "value": ...,
"unit": ...}`` and its CPU seconds. Make a reference tree of any commit with
``git archive <commit> src | tar -x -C /tmp/ref``.

Cases
-----
* ``qv-basic/vegas``: one Vegas flow on 50 Mb/s x 100 ms with the CBR step (240 s).
* ``thesis-two-flow/vegas`` and ``thesis-two-flow/reno``: document 001's two flows, 400 s.
* ``qv-many-flows/vegas``: 60 flows joining in groups on 1 Gb/s (60 s).
* ``reno-25/reno``: one Reno flow, 10 Mb/s x 100 ms, 25-packet buffer (600 s): losses.
* ``many10k-2s/vegas``, ``many10k-5s/vegas``, ``many10k-20s/vegas``: 10,000 Vegas flows
  starting together on 1 Gb/s x 100 ms with a 1500-packet buffer (qv-many-flows,
  ``flows=10000 groups=1``), 2, 5 and 20 s: the model's cost at scale (a round of some
  flow ends at nearly every step, so the laws decide at nearly every step).
* ``cmd10k-2s``, ``cmd10k-5s``, ``cmd10k-20s``: the same runs as a user types them,
  ``tcpfluid simulate qv-many-flows -a vegas --set groups=1 -e ode --set flows=10000
  --set duration=D --json``, each a fresh process (``python -m tcpfluid``, its output
  discarded): wall and CPU (user + system of the process) of the whole command, imports,
  scenario, model and summary included, once its Numba kernels are cached (one untimed
  run first).
"""

from __future__ import annotations

import json
import math
import resource
import subprocess
import sys
import time

from _worker import bench_args, compare

_MANY = {"flows": 10_000, "groups": 1}
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
    "many10k-2s/vegas": ("qv-many-flows", "vegas", {**_MANY, "duration": "2s"}),
    "many10k-5s/vegas": ("qv-many-flows", "vegas", {**_MANY, "duration": "5s"}),
    "many10k-20s/vegas": ("qv-many-flows", "vegas", {**_MANY, "duration": "20s"}),
}
#: the command cases: the duration of the 10,000-flow run
COMMANDS = {"cmd10k-2s": "2s", "cmd10k-5s": "5s", "cmd10k-20s": "20s"}


def _command(case: str, repeat: int) -> None:
    """Time the command of ``case`` (:data:`COMMANDS`) in fresh processes: the best wall
    and CPU (the child's user + system) of ``repeat`` runs after an untimed one."""
    from tcpfluid.fluid.hybrid import STEPS_PER_RTT
    from tcpfluid.scenarios import build_scenario
    from tcpfluid.scenarios.reduction import fluid_view

    duration = COMMANDS[case]
    argv = [sys.executable, "-m", "tcpfluid", "simulate", "qv-many-flows", "-a", "vegas"]
    argv += ["--set", "groups=1", "-e", "ode", "--set", "flows=10000"]
    argv += ["--set", f"duration={duration}", "--json"]
    sc = build_scenario("qv-many-flows", **_MANY, duration=duration).with_algorithm("vegas")
    view = fluid_view(sc, engine="ode")
    dt = min(view.base_rtt_s) / STEPS_PER_RTT
    steps = max(1, math.ceil(view.duration_s / dt)) * len(view.base_rtt_s)
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)  # compiles or loads the kernels
    best_cpu, best_wall = float("inf"), float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        best_wall = min(best_wall, time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_cpu = min(best_cpu, cpu)
    print(json.dumps({"flow_steps": steps, "cpu_s": best_cpu, "wall_s": best_wall}))


def _worker(case: str, repeat: int) -> None:
    if case in COMMANDS:
        _command(case, repeat)
        return
    import tcpfluid
    from tcpfluid.scenarios import build_scenario

    name, alg, sets = CASES[case]
    sc = build_scenario(name, **sets).with_algorithm(alg)  # type: ignore[arg-type]
    # compile or load the kernel (a 10,000-flow case: on a run of 100 of its flows)
    warm = sc
    if sets.get("flows") == _MANY["flows"]:
        warm = build_scenario(name, **{**sets, "flows": 100}).with_algorithm(alg)  # type: ignore[arg-type]
    tcpfluid.simulate(warm, "ode")
    best_cpu, best_wall, steps = float("inf"), float("inf"), 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        res = tcpfluid.simulate(sc, "ode")
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
        raw = res.native.hybrid  # the hybrid model's own result
        steps = max(1, math.ceil(raw.duration_s / raw.dt_s)) * len(raw.flows)
    print(json.dumps({"flow_steps": steps, "cpu_s": best_cpu, "wall_s": best_wall}))


def main() -> None:
    args = bench_args((__doc__ or "").splitlines()[0])
    if args.worker:
        _worker(args.worker, args.repeat)
        return
    cases = args.only if args.only else [*CASES, *COMMANDS]
    compare(__file__, args, cases, "flow_steps", "flow_steps_per_cpu_s", "flow-steps per CPU s")


if __name__ == "__main__":
    main()
