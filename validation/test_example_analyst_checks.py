"""The example analyst project (``examples/analyst-checks``) passes with plain pytest and only
the installed plugin: its checks run the packet simulator for 60 s at 155 Mb/s and compare
it with the closed forms and the round model, so this run lives here; the plugin's own
behaviour on small projects is tested in ``tests/test_pytest_plugin.py``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_example_analyst_checks_pass_with_plain_pytest() -> None:
    # what an analyst runs: pytest in the example project (no conftest), in a fresh process
    project = ROOT / "examples" / "analyst-checks"
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(project), "-q"],
        capture_output=True,
        text=True,
        cwd=project,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "5 passed" in out.stdout
