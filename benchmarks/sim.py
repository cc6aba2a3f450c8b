"""Speed of the packet simulator, this tree and a reference tree side by side.

Run: ``python benchmarks/sim.py [--quick] [--repeat N] [--reference SRC | --no-reference]
[--only NAME | --compile]``. Prints a table (one row per case and tree, and the ratio), then one
JSON line per measurement: ``{"name": ..., "tree": "new"|"reference", "value": ..., "unit": ...}``.

Every measurement runs in a fresh subprocess whose ``PYTHONPATH`` is the tree's ``src``
(this repository's, and the reference's), so both are timed in one run on the same machine
state. Make a reference tree of any commit with ``git worktree add /tmp/ref <commit>`` (or
``git archive <commit> | tar -x -C /tmp/ref``) and pass ``--reference /tmp/ref/src``;
``TCPFLUID_BENCH_REFERENCE`` sets the default. The trees' Numba kernels (the simulator's
and the case's law's) are compiled or loaded by a warm-up run of that law that is not
timed.

Cases
-----
* ``qv-basic/<law>``: document 000 §5.1, one flow on 50 Mb/s x 100 ms for 240 s with the
  25 Mb/s CBR from 80 s to 160 s (about 1 million data packets; Reno with a 1000-packet
  buffer, as its window never stops growing on the infinite one): data packets sent per
  second of wall time (``packets_per_s``, retransmissions included), events per second,
  wall time of the event loop (``wall_s``: the compiled loop plus the calls into the laws;
  building the arrays and the summary are not in it) and ``law_time_s``, its part in the
  laws, and ``cpu_s``, the process's CPU time (user + system) for the whole
  ``simulate_packets`` call, the fairer figure on a shared machine. Best of ``--repeat``
  runs.
* ``qv-many-flows/vegas``: document 000 §5.3.1, 60 flows on 1 Gb/s x 100 ms with
  1500-packet buffers, groups of 20 joining at 0, 100, 200 s, each for 300 s, 500 s in all
  (about 58 million data packets): the same figures, one run. Skipped with ``--quick``
  (which runs it for 50 s with the groups 10 s apart, ``qv-many-flows-short/vegas``).
* ``qv-different-rtt/vegas``: document 000 §5.3.2, 60 flows in three RTT groups (50, 100
  and 200 ms) on the 1 Gb/s bottleneck for 200 s (about 22 million data packets; the
  report's run), one run; ``--only different-rtt`` selects it. With mixed RTTs an event
  costs more than with equal ones (docs/simulator.md, "How it is fast"). ``--quick`` runs
  it for 50 s (``qv-different-rtt-short/vegas``).
* ``--report-runs`` (only these): the report's eight 60-flow packet runs, ``qv-many-flows``
  (500 s) and ``qv-different-rtt`` (200 s) with Vegas, Quick Vegas, Reno and FAST, one run
  each, and the CPU time of the eight in all for each tree (the part of the report's CPU
  that the packet loop sets).
* ``cli/qv-basic/vegas``: end to end through ``tcpfluid simulate qv-basic -a vegas -e
  packet --set duration=T --json`` (a new process each time: imports, kernels loaded from
  the cache, the run, the summary, the JSON), for a short and a long ``T``; the marginal
  rate ``(packets(long) - packets(short)) / (wall(long) - wall(short))`` excludes the
  start-up; the same with the processes' CPU time (user + system). Where the long run took
  no longer than the short one (the start-up's noise hides the run) a rate is printed as
  "not measurable" and written as ``null``. The shortest of
  ``--repeat`` runs of each length (the trees' runs interleaved, so both see the same
  machine), and the median of the ``--repeat`` pairs' own marginal rates. The long run is
  400 s (about 2 million data packets; ``--cli-long`` sets another, e.g. ``2000s``: the
  start-up of a process varies by about ±0.15 s here, which a longer run divides).

* ``--compile`` (only this): the cold compile, what a fresh install pays once: ``tcpfluid
  simulate qv-basic -a vegas -e packet --set duration=2s --json`` in a new process with an
  empty ``NUMBA_CACHE_DIR`` (CPU time user + system of the process, and wall), then the same
  command again with the cache it filled (kernels loaded), then again with the cache file
  of the loop's kernel (``_core.run-*.nbc``) cut to a third of its length (a damaged file:
  the run removes it and compiles that one kernel again; its callees load from the cache).
  Best of ``--repeat`` (at most 2: a cold compile costs tens of seconds). CPU time is the
  figure to compare on a loaded machine.

The machine's load matters: on a shared machine repeat, and read the figures as a ratio
between the trees measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _worker import env_for, run_worker

HERE = Path(__file__).resolve().parent
NEW_SRC = HERE.parent / "src"
DEFAULT_REFERENCE = Path(os.environ.get("TCPFLUID_BENCH_REFERENCE", "/tmp/ref/src"))
LAWS = ("vegas", "quick-vegas", "tcp-ho", "fast", "reno")


# ----------------------------------------------------------------------------- worker
def _scenario(case: str) -> Any:
    from tcpfluid.scenarios import build_scenario

    kind, _, law = case.partition("/")
    # Reno never backs off on qv-basic's infinite buffer (its window passes a million
    # packets, past the simulator's max_packets ceiling): it runs with 1000 packets
    extra = {"buffer": 1000} if law == "reno" else {}
    if kind == "qv-basic":
        return build_scenario("qv-basic", duration="240s", **extra).with_algorithm(law)
    if kind == "qv-basic-60s":
        return build_scenario("qv-basic", duration="60s", **extra).with_algorithm(law)
    if kind == "qv-many-flows":
        return build_scenario("qv-many-flows").with_algorithm(law)
    if kind == "qv-many-flows-short":
        return build_scenario(
            "qv-many-flows", group_interval="10s", active="30s", duration="50s"
        ).with_algorithm(law)
    if kind == "qv-different-rtt":
        return build_scenario("qv-different-rtt").with_algorithm(law)
    if kind == "qv-different-rtt-short":
        return build_scenario("qv-different-rtt", duration="50s").with_algorithm(law)
    if kind.startswith("qv-basic-d"):  # packet count of the CLI's run of that duration
        return build_scenario("qv-basic", duration=kind[len("qv-basic-d") :]).with_algorithm(law)
    raise SystemExit(f"unknown case {case!r}")


def _worker(case: str, repeat: int) -> None:
    from tcpfluid.scenarios import build_scenario
    from tcpfluid.sim import simulate_packets

    # warm-up: load (or compile and cache) the kernels, the simulator's and the case's law's
    law = case.partition("/")[2] or "vegas"
    simulate_packets(build_scenario("qv-basic", duration="2s", cbr="none").with_algorithm(law))
    sc = _scenario(case)
    best: dict[str, Any] | None = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        res = simulate_packets(sc)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        rec = {
            "cpu_s": cpu,
            "data_packets": res.data_packets,
            "events": res.events,
            "wall_s": res.wall_time_s,
            "total_s": total,
            "law_calls": res.law_calls,
            "law_time_s": res.law_time_s,
        }
        if best is None or rec["wall_s"] < best["wall_s"]:
            best = rec
    print(json.dumps(best))


# ----------------------------------------------------------------------------- driver
def _run_worker(src: Path, case: str, repeat: int) -> dict[str, Any] | None:
    return run_worker(__file__, src, case, repeat)


def _cli_wall(src: Path, duration: str, cache: str | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one ``tcpfluid simulate --json`` run
    of ``duration``, with the Numba cache in ``cache`` when given."""
    code = "import sys; from tcpfluid.cli import main; sys.exit(main())"
    args = ["simulate", "qv-basic", "-a", "vegas", "-e", "packet", "--set"]
    args += [f"duration={duration}", "--json"]
    env = env_for(src)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"tcpfluid simulate on {src} failed:\n{out.stderr[-2000:]}")
    json.loads(out.stdout)  # the output is JSON
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _compile_mode(trees: list[tuple[str, Path]], repeat: int) -> None:
    """Cold compile (empty Numba cache) and warm load of each tree, side by side."""
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")
    print("tcpfluid simulate qv-basic -a vegas -e packet --set duration=2s --json")
    cols = ("cold CPU s", "cold wall s", "warm CPU s", "warm wall s", "damaged CPU", "damaged wall")
    print(f"{'tree':<10} " + " ".join(f"{c:>12}" for c in cols))
    records = []
    cold: dict[str, float] = {}
    damaged: dict[str, float] = {}
    for tree, src in trees:
        runs = []
        for _ in range(max(1, min(repeat, 2))):
            with tempfile.TemporaryDirectory(prefix="tcpfluid-numba-") as cache:
                c_wall, c_cpu = _cli_wall(src, "2s", cache)
                w_wall, w_cpu = _cli_wall(src, "2s", cache)
                victim = next(Path(cache).rglob("_core.run-*.nbc"))
                data = victim.read_bytes()
                victim.write_bytes(data[: len(data) // 3])
                d_wall, d_cpu = _cli_wall(src, "2s", cache)
            runs.append((c_cpu, c_wall, w_cpu, w_wall, d_cpu, d_wall))
        c_cpu, c_wall, w_cpu, w_wall, _, _ = min(runs)
        d_cpu, d_wall = min((r[4], r[5]) for r in runs)
        cold[tree], damaged[tree] = c_cpu, d_cpu
        print(f"{tree:<10} {c_cpu:>12.1f} {c_wall:>12.1f} {w_cpu:>12.2f} {w_wall:>12.2f} "
              f"{d_cpu:>12.2f} {d_wall:>12.2f}")  # fmt: skip
        for key, value in (("cold_cpu_s", c_cpu), ("cold_wall_s", c_wall),
                           ("warm_cpu_s", w_cpu), ("warm_wall_s", w_wall),
                           ("damaged_cpu_s", d_cpu), ("damaged_wall_s", d_wall)):  # fmt: skip
            records.append({"name": f"sim/compile/{key}", "tree": tree, "value": value,
                            "unit": "s"})  # fmt: skip
    if "reference" in cold and "new" in cold:
        print(f"{'new/ref':<10} {cold['new'] / cold['reference']:>12.2f}x (cold CPU), "
              f"{damaged['new'] / damaged['reference']:.2f}x (damaged CPU)")  # fmt: skip
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    for rec in records:
        print(json.dumps(rec))


def _cli_marginals(
    trees: list[tuple[str, Path]], short: str, long: str, repeat: int
) -> dict[str, dict[str, Any]]:
    """:func:`_cli_marginal` of every tree, their runs interleaved (pair by pair)."""
    counts: dict[str, tuple[int, int]] = {}
    for tree, src in trees:
        r_short = _run_worker(src, f"qv-basic-d{short}/vegas", 1)
        r_long = _run_worker(src, f"qv-basic-d{long}/vegas", 1)
        if r_short is None or r_long is None:
            raise SystemExit(f"the packet count runs failed on {src}")
        counts[tree] = (r_short["data_packets"], r_long["data_packets"])
        _cli_wall(src, short)  # warm the file system and the kernel cache
    pairs: dict[str, list[Any]] = {tree: [] for tree, _ in trees}
    for _ in range(repeat):
        for tree, src in trees:
            pairs[tree].append((_cli_wall(src, short), _cli_wall(src, long)))
    return {tree: _cli_marginal(counts[tree], pairs[tree]) for tree, _ in trees}


def _rate(packets: int, seconds: float) -> float | None:
    """``packets / seconds``, or ``None`` (not measurable) where the long run took no
    longer than the short one (``seconds <= 0``: the start-up's noise hides the run)."""
    return packets / seconds if seconds > 0 else None


def _cli_marginal(counts: tuple[int, int], pairs: list[Any]) -> dict[str, Any]:
    """The marginal rates from the packet counts of the short and long run and the
    ``((wall, cpu) short, (wall, cpu) long)`` of each pair of runs; a rate is ``None``
    (not measurable, :func:`_rate`) where the long run was no slower than the short one."""
    n_short, n_long = counts
    w_short = min(p[0][0] for p in pairs)
    w_long = min(p[1][0] for p in pairs)
    c_short = min(p[0][1] for p in pairs)
    c_long = min(p[1][1] for p in pairs)
    # the pairs' own rates, a pair that is not measurable ranked above every rate
    own = sorted((p[1][0] - p[0][0] for p in pairs), key=lambda dt: -dt if dt > 0 else 0.0)
    return {
        "median_pair_packets_per_s": _rate(n_long - n_short, own[len(own) // 2]),
        "short_s": w_short,
        "long_s": w_long,
        "short_cpu_s": c_short,
        "long_cpu_s": c_long,
        "packets_short": n_short,
        "packets_long": n_long,
        "marginal_packets_per_s": _rate(n_long - n_short, w_long - w_short),
        "marginal_packets_per_cpu_s": _rate(n_long - n_short, c_long - c_short),
    }


def _per_s(rate: float | None, unit: str = "packets/s") -> str:
    """A rate as printed: ``"not measurable"`` for ``None``."""
    return "not measurable" if rate is None else f"{rate:,.0f} {unit}"


def _cli_line(tree: str, m: dict[str, Any]) -> str:
    """The printed line of one tree's end-to-end figures (:func:`_cli_marginal`)."""
    return (
        f"{'cli/qv-basic/vegas':<28} {tree:<9} {m['short_s']:>7.2f} s / "
        f"{m['long_s']:>7.2f} s for {m['packets_short']:,} / {m['packets_long']:,} "
        f"packets: marginal {_per_s(m['marginal_packets_per_s'])} "
        f"(CPU {m['short_cpu_s']:.2f} s / {m['long_cpu_s']:.2f} s: "
        f"{_per_s(m['marginal_packets_per_cpu_s'], 'packets per CPU s')}; median of the "
        f"pairs' own: {_per_s(m['median_pair_packets_per_s'])})"
    )


def _ratio(new: float | None, reference: float | None) -> str:
    """``new / reference`` as printed, ``"not measurable"`` where either is ``None``."""
    return "not measurable" if new is None or reference is None else f"{new / reference:.2f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--quick", action="store_true", help="shorter runs, Vegas only")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE,
                        help="src directory of the tree to compare with")  # fmt: skip
    parser.add_argument("--no-reference", action="store_true", help="time this tree only")
    parser.add_argument("--only", help="run only the cases whose name contains this")
    parser.add_argument("--compile", action="store_true",
                        help="only the cold compile (empty cache) and the warm load")  # fmt: skip
    parser.add_argument(
        "--cli-long", default=None, help="the end-to-end case's long run (default 400s)"
    )
    parser.add_argument(
        "--report-runs", action="store_true", help="only the report's eight 60-flow runs"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.worker, args.repeat)
        return

    trees = [("new", NEW_SRC)]
    if not args.no_reference:
        if (args.reference / "tcpfluid").is_dir():
            trees.append(("reference", args.reference))
        else:
            print(f"(no reference tree at {args.reference}: timing this tree only)")
    if args.compile:
        _compile_mode(trees, args.repeat)
        return
    laws = ("vegas",) if args.quick else LAWS
    cases = [(f"qv-basic{'-60s' if args.quick else ''}/{law}", args.repeat) for law in laws]
    cases.append(("qv-many-flows-short/vegas" if args.quick else "qv-many-flows/vegas", 1))
    cases.append(("qv-different-rtt-short/vegas" if args.quick else "qv-different-rtt/vegas", 1))
    if args.report_runs:
        cases = [
            (f"{kind}/{law}", 1)
            for kind in ("qv-many-flows", "qv-different-rtt")
            for law in ("vegas", "quick-vegas", "reno", "fast")
        ]
    if args.only:
        cases = [c for c in cases if args.only in c[0]]

    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")
    records: list[dict[str, object]] = []
    head = (f"{'case':<28} {'tree':<9} {'data pkts':>11} {'wall s':>8} {'pkts/s':>11} "
            f"{'events/s':>11} {'law calls':>9} {'in laws s':>9} {'CPU s':>8}")  # fmt: skip
    print(head)
    total_cpu: dict[str, float] = {}
    for name, repeat in cases:
        walls: dict[str, float] = {}
        cpus: dict[str, float] = {}
        for tree, src in trees:
            r = _run_worker(src, name, repeat)
            if r is None:
                continue
            pps = r["data_packets"] / r["wall_s"]
            eps = r["events"] / r["wall_s"]
            walls[tree] = r["wall_s"]
            cpus[tree] = r["cpu_s"]
            total_cpu[tree] = total_cpu.get(tree, 0.0) + r["cpu_s"]
            print(
                f"{name:<28} {tree:<9} {r['data_packets']:>11,} {r['wall_s']:>8.2f} "
                f"{pps:>11,.0f} {eps:>11,.0f} {r['law_calls']:>9,} {r['law_time_s']:>9.2f} "
                f"{r['cpu_s']:>8.2f}"
            )
            for key, value, unit in (
                ("packets_per_s", pps, "packets/s"),
                ("events_per_s", eps, "events/s"),
                ("wall_s", r["wall_s"], "s"),
                ("total_s", r["total_s"], "s"),
                ("cpu_s", r["cpu_s"], "s"),
                ("law_time_s", r["law_time_s"], "s"),
                ("law_calls", r["law_calls"], "calls"),
            ):
                records.append(
                    {"name": f"sim/{name}/{key}", "tree": tree, "value": value, "unit": unit}
                )
        if "reference" in walls and "new" in walls:
            print(
                f"{'':<28} {'speed-up':<9} {walls['reference'] / walls['new']:>32.2f}x wall, "
                f"{cpus['reference'] / cpus['new']:.2f}x CPU"
            )

    if args.report_runs:
        for tree, cpu in total_cpu.items():
            print(f"{f'{len(cases)} runs in all':<28} {tree:<9} {cpu:>8.2f} s CPU")
            records.append(
                {"name": "sim/report-runs/cpu_s", "tree": tree, "value": cpu, "unit": "s"}
            )
        if "reference" in total_cpu and "new" in total_cpu:
            ratio = total_cpu["reference"] / total_cpu["new"]
            print(f"{'':<28} {'speed-up':<9} {ratio:.2f}x CPU")
    if not args.report_runs and (not args.only or "cli" in args.only):
        short, long = ("2s", "60s") if args.quick else ("2s", "400s")
        long = args.cli_long or long
        print(f"\nend to end: tcpfluid simulate qv-basic -a vegas -e packet --json, "
              f"duration {short} and {long}")  # fmt: skip
        rates: dict[str, float | None] = {}
        cpu_rates: dict[str, float | None] = {}
        marginals = _cli_marginals(trees, short, long, args.repeat)
        for tree, _src in trees:
            m = marginals[tree]
            rates[tree] = m["marginal_packets_per_s"]
            print(_cli_line(tree, m))
            cpu_rates[tree] = m["marginal_packets_per_cpu_s"]
            for key in (
                "marginal_packets_per_s",
                "marginal_packets_per_cpu_s",
                "median_pair_packets_per_s",
            ):
                name = f"sim/cli/qv-basic/vegas/{key}"
                records.append({"name": name, "tree": tree, "value": m[key], "unit": "packets/s"})
        if "reference" in rates:
            print(
                f"{'':<28} {'speed-up':<9} {_ratio(rates['new'], rates['reference']):>11} "
                f"wall, {_ratio(cpu_rates['new'], cpu_rates['reference'])} CPU"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    for rec in records:
        print(json.dumps(rec, allow_nan=False))  # strict JSON: a rate not measurable is null


if __name__ == "__main__":
    main()
