"""The whole ``tcpfluid report --quick`` (every section), run as the README's main job is
run (default output folder, in a fresh clone of this repository): the clone stays clean."""

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from tcpfluid.cli import main
from tcpfluid.report import SECTIONS

ROOT = Path(__file__).resolve().parents[1]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120
    ).stdout


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    dest = tmp_path / "clone"
    _git("clone", "-q", "--depth", "1", f"file://{ROOT}", str(dest), cwd=tmp_path)
    return dest


def test_full_quick_report_leaves_a_clean_checkout(clone: Path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(clone)
    # the README's main job with --quick (and no progress bar)
    assert main(["report", "--jobs", "2", "--quick", "--quiet"]) == 0
    assert "wrote report-quick" in capsys.readouterr().out
    # the figures went next to the report, not over the tracked figures/; git sees nothing
    assert _git("status", "--porcelain", "--untracked-files=all", cwd=clone) == ""
    assert _git("check-ignore", "report/index.html", cwd=clone).strip() == "report/index.html"
    out = clone / "report-quick"
    assert (out / "figures" / "convergence_vs_bdp.png").is_file()
    md = (out / "index.md").read_text(encoding="utf-8")
    # the generated summary comes first, then every section with a stated tolerance
    assert md.index("## Summary") < md.index("## Sections")
    for name in SECTIONS:
        assert f'<a id="{name}"></a>' in md
    assert md.count("(tolerance: ") >= len(SECTIONS)  # every table states its tolerance
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["config"]["quick"] is True
    assert data["summary"]["overview"] in md

    # no number in the machine-readable report is NaN or infinite (n/a is said, not hidden)
    def walk(x):
        if isinstance(x, float):
            assert math.isfinite(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data)
    html = (out / "index.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= len(SECTIONS)
