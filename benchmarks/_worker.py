"""The benchmarks' runner of one case on a given source tree: the calling script again, in
a fresh interpreter with ``PYTHONPATH`` set to that tree, in its ``--worker`` mode, which
prints its result as a JSON line last; and the options and trees of a benchmark that
times this tree beside a reference tree."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def env_for(src: Path) -> dict[str, str]:
    """This process's environment with ``PYTHONPATH`` pointing at the source tree ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(src)
    return env


def run_worker(script: str, src: Path, case: str, repeat: int) -> dict[str, Any] | None:
    """Run ``script --worker case --repeat repeat`` on tree ``src``; its last JSON line, or
    ``None`` (with the worker's error printed) when it failed."""
    out = subprocess.run(
        [sys.executable, str(Path(script).resolve()), "--worker", case, "--repeat", str(repeat)],
        env=env_for(src),
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        print(f"worker {case} on {src} failed:\n{out.stderr[-1500:]}")
        return None
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


#: the reference tree's ``src`` when ``--reference`` is not given
DEFAULT_REFERENCE = Path(os.environ.get("TCPFLUID_BENCH_REFERENCE", "/tmp/ref/src"))


def bench_args(description: str, *, quick: bool = False) -> argparse.Namespace:
    """The options of a benchmark that times this tree beside a reference tree:
    ``--repeat``, ``--reference``, ``--no-reference``, ``--only`` (repeatable), the
    worker's ``--worker`` and, with ``quick``, ``--quick``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per case (best kept)")
    if quick:
        parser.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    parser.add_argument(
        "--reference", type=Path, default=DEFAULT_REFERENCE, help="the reference tree's src"
    )
    parser.add_argument("--no-reference", action="store_true", help="time this tree only")
    parser.add_argument("--only", action="append", help="a case to run (repeatable)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.repeat < 1:
        raise SystemExit(f"--repeat must be >= 1, got {args.repeat}")
    return args


def bench_trees(script: str, args: argparse.Namespace) -> list[tuple[str, Path]]:
    """The trees to time: ``("new", this repository's src)`` and, unless
    ``--no-reference`` or it is missing, ``("reference", --reference)``; prints the load."""
    out = [("new", Path(script).resolve().parent.parent / "src")]
    if not args.no_reference:
        if (args.reference / "tcpfluid").is_dir():
            out.append(("reference", args.reference))
        else:
            print(f"(no reference tree at {args.reference}: timing this tree only)")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")
    return out


def compare(
    script: str, args: argparse.Namespace, cases: list[str], count: str, rate: str, unit: str
) -> None:
    """Time each case on each tree (:func:`bench_trees`) in fresh workers; print a table
    (the case's ``count`` of work, CPU and wall seconds, ``count`` per CPU second, and the
    reference's CPU over this tree's: the speed-up), then one JSON line per figure:
    ``{"name": "<script>/<case>/<rate>", "tree", "value", "unit"}`` and the CPU seconds
    (``.../cpu_s``)."""
    prefix = Path(script).stem
    trees = bench_trees(script, args)
    print(f"{'case':<30} {'tree':<10} {count:>8} {'CPU s':>7} {'wall s':>7} {'per CPU s':>10}")
    records = []
    for case in cases:
        cpus: dict[str, float] = {}
        for tree, src in trees:
            rec = run_worker(script, src, case, args.repeat)
            if rec is None:
                continue
            per_s = rec[count] / rec["cpu_s"]
            cpus[tree] = rec["cpu_s"]
            print(
                f"{case:<30} {tree:<10} {rec[count]:>8d} {rec['cpu_s']:>7.3f} "
                f"{rec['wall_s']:>7.3f} {per_s:>10.4g}"
            )
            name = f"{prefix}/{case}"
            records.append({"name": f"{name}/{rate}", "tree": tree, "value": per_s, "unit": unit})
            records.append(
                {"name": f"{name}/cpu_s", "tree": tree, "value": rec["cpu_s"], "unit": "s"}
            )
        if "reference" in cpus and "new" in cpus:
            print(f"{'':<30} {'speed-up':<10} {cpus['reference'] / cpus['new']:>17.2f}x CPU")
    for r in records:
        print(json.dumps(r))
