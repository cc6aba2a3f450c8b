"""The benchmarks' runner of one case on a given source tree: the calling script again, in
a fresh interpreter with ``PYTHONPATH`` set to that tree, in its ``--worker`` mode, which
prints its result as a JSON line last."""

from __future__ import annotations

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
