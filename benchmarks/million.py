"""A million flows for ten rounds: building, the round model, the summary, the JSON.

Run: ``python benchmarks/million.py [--flows 10000 100000 1000000] [--rounds 10] [--cli]``.
Each flow count runs in a fresh process (so that its peak memory is its own) on
``qv-many-flows`` with one group of Vegas flows (``groups=1``), ``duration`` = ``--rounds``
base RTTs (100 ms each), the round engine. Prints a human table, then one JSON line per
measurement: ``{"name": ..., "value": ..., "unit": ...}``.

Measurements (per flow count n)
-------------------------------
* ``million/build/<n>``: ``build_scenario(...).with_algorithm("vegas")``, s and flows/s;
* ``million/rounds/<n>``: the round model's run itself (the engine's native trace), s and
  flow-rounds/s;
* ``million/summary/<n>``: the :class:`tcpfluid.results.Result` with its summary
  (:func:`tcpfluid.metrics.summarise` of every flow), s and flows/s;
* ``million/to_dict/<n>``: ``result.summary.to_dict()`` (the ``--json`` keys), s;
* ``million/total/<n>``: the sum of the four, s;
* ``million/json/<n>``: the ``--json`` text of the summary (:func:`tcpfluid._json.dump` of
  :meth:`~tcpfluid.results.Summary._to_dict`, as ``tcpfluid simulate --json`` writes it)
  written to ``os.devnull``, s, and its size, MB;
* ``million/write_floor/<n>``: writing a text of that size, already made, to the same
  sink, s (what no writer can beat);
* ``million/peak_rss/<n>``: the process's peak resident memory up to ``to_dict``, GB
  (including the interpreter and the compiled laws, about 0.2 GB);
* with ``--cli``: ``million/cli_json/<n>``, the wall time of ``tcpfluid simulate ... --json``
  in a new process (start-up, compile-cache load and printing included), s, and
  ``million/cli_json/10``, the same command for ten flows (start-up and compile-cache
  load: the fixed part).

The laws are compiled (or loaded from Numba's cache) by a small run before the timings.
Timings on a shared machine are noisy: read them beside ``uptime``, or give ``--cpu`` for
the process's CPU time (user + system), which a loaded machine disturbs less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from typing import Any


def one(n: int, rounds: int, cpu: bool) -> dict[str, float]:
    """The measurements of ``n`` flows, in this process."""
    import tcpfluid
    from tcpfluid import _json
    from tcpfluid.engines import Rounds
    from tcpfluid.scenarios import build_scenario
    from tcpfluid.scenarios.model import paused_gc

    duration = f"{0.1 * rounds:.6g}s"
    tcpfluid.simulate(  # compile (or load) the law and the engine first
        build_scenario("qv-many-flows", flows=10, groups=1, duration=duration), algorithm="vegas"
    )
    clock = time.process_time if cpu else time.perf_counter
    t0 = clock()
    sc = build_scenario("qv-many-flows", flows=n, groups=1, duration=duration).with_algorithm(
        "vegas"
    )
    t1 = clock()
    eng = Rounds()
    native = eng._native(sc, None)
    t2 = clock()
    with paused_gc():  # as the engine's run makes its result
        res = eng._result(sc, native, "rounds")
    t3 = clock()
    res.summary.to_dict()
    t4 = clock()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6  # before the floor's text
    with open(os.devnull, "w") as sink:
        sizes: list[int] = []

        class Counted:  # the sink, counting what is written
            def write(self, text: str) -> None:
                sizes.append(len(text))
                sink.write(text)

        t4 = clock()
        _json.dump(res.summary._to_dict(), Counted())  # type: ignore[arg-type]
        t5 = clock()
        size = sum(sizes)
        text = "x" * size
        t6 = clock()
        sink.write(text)
        t7 = clock()
    done = int(native.time_s.shape[0])
    return {
        "build": t1 - t0,
        "rounds": t2 - t1,
        "summary": t3 - t2,
        "to_dict": t4 - t3,
        "total": t4 - t0,
        "json": t5 - t4,
        "json_mb": size / 1e6,
        "write_floor": t7 - t6,
        "rounds_run": float(done),
        "peak_rss": peak,
    }


def cli(n: int, rounds: int, cpu: bool) -> float:
    """Wall time (``cpu``: the child's CPU time) of ``tcpfluid simulate ... --json`` for
    ``n`` flows, s."""
    cmd = [
        sys.executable, "-m", "tcpfluid", "simulate", "qv-many-flows", "-a", "vegas",
        "--set", f"flows={n}", "--set", "groups=1", "--set", f"duration={0.1 * rounds:.6g}s",
        "--json",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return used if cpu else wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--cli", action="store_true", help="also time the command line's --json")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="CPU time of the process (user + system) instead of wall time: steadier on a "
        "loaded machine",
    )
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.rounds, args.cpu)))
        return
    rows: list[tuple[str, float, str]] = []
    for n in args.flows:
        out = subprocess.run(
            [sys.executable, __file__, "--one", str(n), "--rounds", str(args.rounds)]
            + (["--cpu"] if args.cpu else []),
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        m: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        r = m["rounds_run"]
        rows += [
            (f"million/build/{n}", m["build"], "s"),
            (f"million/build_rate/{n}", n / m["build"], "flows/s"),
            (f"million/rounds/{n}", m["rounds"], "s"),
            (f"million/rounds_rate/{n}", n * r / m["rounds"], "flow-rounds/s"),
            (f"million/summary/{n}", m["summary"], "s"),
            (f"million/summary_rate/{n}", n / m["summary"], "flows/s"),
            (f"million/to_dict/{n}", m["to_dict"], "s"),
            (f"million/total/{n}", m["total"], "s"),
            (f"million/json/{n}", m["json"], "s"),
            (f"million/json_size/{n}", m["json_mb"], "MB"),
            (f"million/write_floor/{n}", m["write_floor"], "s"),
            (f"million/peak_rss/{n}", m["peak_rss"], "GB"),
        ]
        if args.cli:
            rows.append((f"million/cli_json/{n}", cli(n, args.rounds, args.cpu), "s"))
    if args.cli:
        rows.append(("million/cli_json/10", cli(10, args.rounds, args.cpu), "s"))
    width = max(len(name) for name, _, _ in rows)
    for name, value, unit in rows:
        print(f"{name.ljust(width)}  {value:14,.3f} {unit}")
    for name, value, unit in rows:
        print(json.dumps({"name": name, "value": value, "unit": unit}))


if __name__ == "__main__":
    main()
