"""The whole ``tcpfluid report --quick`` (every section), as CI runs the main job's quick mode."""

import json
import math
from pathlib import Path

from tcpfluid.cli import main
from tcpfluid.report import SECTIONS


def test_full_quick_report_through_the_command(tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    assert main(["report", "--quick", "--jobs", "2", "--out", str(out), "--quiet"]) == 0
    assert "wrote" in capsys.readouterr().out
    md = (out / "index.md").read_text(encoding="utf-8")
    # every section the issue lists is there, with its table and a stated tolerance
    for name in SECTIONS:
        assert f'<a id="{name}"></a>' in md
    assert md.count("Tolerances:") >= len(SECTIONS)
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["config"]["quick"] is True

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
