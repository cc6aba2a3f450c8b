"""The validation report run end to end (quick mode): the engines run the critical-window
and conspicuous sections, the report is written and read back, its numbers are checked
against values worked by hand and a document's printed value, and the number of jobs does
not change it (several engines on each scenario, so this is the validation suite's)."""

from __future__ import annotations

import base64
import itertools
import json
from html.parser import HTMLParser
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from tcpfluid.report import SECTIONS, ReportConfig, build_report, write_report

# the report's columns as report.json names them (the contract tests/report reads too)
CLOSED_FORM, ROUNDS, ODE, DOCUMENT = "closed form", "round model", "ODE", "document"


# ------------------------------------------------------------------ end to end (quick)
class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.imgs: list[str] = []
        self.stack: list[str] = []
        self.balanced = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.imgs.append(dict(attrs).get("src") or "")
        elif tag not in ("meta", "br"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack.pop() != tag:
            self.balanced = False


@pytest.fixture(scope="module")
def quick_report():
    return build_report(["critical-window", "conspicuous"], quick=True, jobs=1)


def test_quick_report_end_to_end(quick_report, tmp_path: Path) -> None:
    rep = quick_report
    assert [s.name for s in rep.sections] == ["critical-window", "conspicuous"]
    files = write_report(rep, tmp_path / "r")["files"]
    out = tmp_path / "r"
    assert (out / "index.md").exists() and (out / "index.html").exists()
    assert (out / "figures" / "critical_window.png").read_bytes().startswith(b"\x89PNG")
    assert any(f.endswith("critical_window.svg") for f in files)
    page = (out / "index.html").read_text()
    p = _Collect()
    p.feed(page)
    assert p.balanced and not p.stack
    assert p.imgs and all(s.startswith("data:image/png;base64,") for s in p.imgs)
    png = base64.b64decode(p.imgs[0].split(",", 1)[1])
    assert png.startswith(b"\x89PNG")
    md = (out / "index.md").read_text()
    assert "![" in md and "figures/critical_window.png" in md
    data = json.loads((out / "report.json").read_text())
    assert data["config"]["quick"] is True


def test_tables_carry_tolerance_and_verdict(quick_report) -> None:
    for s in quick_report.sections:
        for t in s.tables:
            for r in t.rows:
                assert r.verdict
                assert r.tolerance.reason


def test_report_numbers_against_independent_values(quick_report) -> None:
    rows = {
        (r.setting, r.quantity): r for s in quick_report.sections for t in s.tables for r in t.rows
    }
    # Vegas at 1000 kb (125 packets): W* = (1 + sqrt(1 + 16*125))/2 = 22.87 (eq. 6, by hand);
    # the first slow-start window at or above it is 32 (2, 2, 4, 4, 8, 8, 16, 16, 32)
    r = rows[("Vegas, BDP 1000 kb (μd = 125 pkts)", "window of the round that leaves slow start")]
    assert r.values["W* eq. (6)"] == pytest.approx((1 + (1 + 16 * 125) ** 0.5) / 2)
    assert r.values[CLOSED_FORM] == 32.0
    assert r.values[ROUNDS] == 32.0
    assert r.values[ODE] == 32.0  # the hybrid model has the law's slow start
    # TCP-Ho Example 3: the paper's simulation printed 5.1 s (the TCP-Ho paper's §4.3); erratum E8's
    # k >= 3 + sqrt(4*625 - 7) = 52.93 -> even 54 rounds -> 5.4 s
    ex3 = rows[
        (
            "TCP-Ho, Example 3 (μd = 625 pkts, d = 0.1 s)",
            "time to reach the available bandwidth (conspicuous round × d)",
        )
    ]
    assert ex3.values[DOCUMENT] == 5.1
    assert ex3.values[CLOSED_FORM] == pytest.approx(5.4)


def test_jobs_do_not_change_the_report() -> None:
    a = build_report(["conspicuous"], quick=True, jobs=1)
    b = build_report(["conspicuous"], quick=True, jobs=2)
    assert a.sections[0].to_dict()["tables"] == b.sections[0].to_dict()["tables"]
    # where the time went: one entry per task, wall and CPU seconds, in the JSON
    n_tasks = len(SECTIONS["conspicuous"].tasks(ReportConfig(quick=True)))
    for rep in (a, b):
        tasks = rep.to_dict()["tasks"]
        assert [t["label"] for t in tasks] == [
            t.label for t in SECTIONS["conspicuous"].tasks(ReportConfig(quick=True))
        ]
        assert len(tasks) == n_tasks and {t["section"] for t in tasks} == {"conspicuous"}
        assert all(t["wall_s"] >= 0 and t["cpu_s"] >= 0 and t["label"] for t in tasks)
        assert max(t["ended_s"] for t in tasks) <= rep.elapsed_s
        # each task on its worker's time line: started before it ended, by its own wall
        # time; one worker with one job, at most two with two
        for t in tasks:
            assert 0.0 <= t["started_s"] <= t["ended_s"]
            assert t["ended_s"] - t["started_s"] == pytest.approx(t["wall_s"], abs=2e-3)
        assert {t["worker"] for t in tasks} <= set(range(rep.config.jobs))
        assert {t["worker"] for t in tasks} == {0} or rep.config.jobs > 1
    # tasks of one worker do not overlap in time
    for w in {t["worker"] for t in b.to_dict()["tasks"]}:
        line = sorted(
            (t["started_s"], t["ended_s"]) for t in b.to_dict()["tasks"] if t["worker"] == w
        )
        assert all(e0 <= s1 + 2e-3 for (_, e0), (s1, _) in itertools.pairwise(line))
