"""Start-up wall time: ``import tcpfluid`` and the ``tcpfluid predict`` command.

Run: ``python benchmarks/startup.py [--repeat N] [--baseline DIR]``. Each figure is the best
and the median of ``--repeat`` fresh interpreters (the wall time a user waits), next to a
bare ``python -c pass`` for the interpreter's own start-up. Prints a human table, then one
JSON line per measurement: ``{"name": ..., "value": ..., "unit": "s"}``.

``--baseline DIR`` also times the checkout in ``DIR`` (its ``src/`` is put first on
``PYTHONPATH``), side by side in the same run. For where the time goes, use
``python -X importtime -c "import tcpfluid" 2>&1 | sort -t'|' -k2 -n | tail``.

Targets: ``import tcpfluid`` <= 0.3 s and ``tcpfluid predict`` <= 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

PREDICT = (
    "import sys; from tcpfluid.cli import main; "
    "sys.exit(main(['predict', '-a', 'vegas,quick-vegas,tcp-ho', "
    "'--bandwidth', '50Mbps', '--rtt', '100ms']))"
)
CASES = {
    "python -c pass": "pass",
    "import tcpfluid": "import tcpfluid",
    "tcpfluid predict -a vegas,quick-vegas,tcp-ho --bandwidth 50Mbps --rtt 100ms": PREDICT,
}


def _wall(code: str, env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL, timeout=300
    )
    return time.perf_counter() - t0


def _measure(label: str, src: str | None, repeat: int) -> list[dict[str, object]]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    rows: list[dict[str, object]] = []
    for name, code in CASES.items():
        _wall(code, env)  # warm the file cache and the .pyc files
        times = [_wall(code, env) for _ in range(repeat)]
        best, median = min(times), statistics.median(times)
        print(f"{label:10s} {name:78s} best {best:6.3f} s  median {median:6.3f} s")
        for stat, value in (("best", best), ("median", median)):
            rows.append({"name": f"startup/{label}/{name}/{stat}", "value": value, "unit": "s"})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="fresh interpreters per figure")
    ap.add_argument("--baseline", default=None, metavar="DIR", help="another checkout to time")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat must be >= 1, got {args.repeat}")
    rows = _measure("this", None, args.repeat)
    if args.baseline is not None:
        src = os.path.join(os.path.abspath(args.baseline), "src")
        if not os.path.isdir(os.path.join(src, "tcpfluid")):
            ap.error(f"--baseline must be a checkout with src/tcpfluid, got {args.baseline!r}")
        rows += _measure("baseline", src, args.repeat)
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
