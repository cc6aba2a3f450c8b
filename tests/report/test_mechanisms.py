"""Mechanisms that explain differences: one entry each in docs/mechanisms.md, an experiment
that exists, matched to a differing cell by its declared scope only; no reason prose in the
report's library code."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import tcpfluid.report
from tcpfluid.report import Report, ReportConfig, Row, SectionResult, Table, write_report
from tcpfluid.report._mechanisms import MECHANISMS

#: the report's columns, as report.json names them
ROUNDS, ODE, PACKET, DOCUMENT = "round model", "ODE", "packet sim", "document"

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mechanisms.md"


def test_every_mechanism_has_one_entry_and_each_entry_a_mechanism() -> None:
    headings = re.findall(r"^## (\S+)\s*$", DOC.read_text(encoding="utf-8"), re.M)
    ids = [m.id for m in MECHANISMS]
    assert len(set(ids)) == len(ids)
    assert sorted(headings) == sorted(ids)


def _entries() -> dict[str, str]:
    """docs/mechanisms.md's entries by heading."""
    parts = re.split(r"^## (\S+)\s*$", DOC.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_each_experiment_exists_and_is_the_one_the_entry_names() -> None:
    entries = _entries()
    assert entries
    for mid, entry in entries.items():
        found = re.findall(r"Experiment: `([^`]+)`", entry)
        assert len(found) == 1, mid
        path, _, name = found[0].partition("::")
        src = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^\s*def {name}\(", src, re.M), found[0]


def _mechanisms(section: str, row: Row, tmp_path: Path) -> dict[str, Any]:
    """The summary's differing cells by mechanism for a report of ``row`` alone."""
    sec = SectionResult(section, "Section", "intro", (Table("t", (row,)),))
    write_report(Report(ReportConfig(), (sec,), 1.0), tmp_path / section)
    text = (tmp_path / section / "report.json").read_text(encoding="utf-8")
    return json.loads(text)["summary"]["mechanisms"]


def test_a_cell_is_matched_by_scope_not_by_text(tmp_path: Path) -> None:
    # the micro-queue entry's scope: Quick Vegas's ODE cell of convergence-bdp after the
    # halving, at 3000 and 5000 kb (the cases its experiment ran)
    q = "convergence, bandwidth halved"
    case = {"bdp_kb": 3000.0}
    ode_differs = {PACKET: 10.0, ROUNDS: 10.0, ODE: 20.0}
    rounds_differ = {PACKET: 10.0, ROUNDS: 20.0, ODE: 10.0}

    def row(setting: str, values: dict[str, float], case: dict[str, float] | None) -> Row:
        return Row(setting, q, "RTTs", "rounds", values, PACKET, case=case or {})

    def micro(section: str, r: Row) -> int:
        return _mechanisms(section, r, tmp_path).get("micro-queue", 0)

    # a row's setting text does not matter beyond its algorithm
    assert micro("convergence-bdp", row("Quick Vegas, anything at all", ode_differs, case)) == 1
    assert micro("convergence-bdp", row("Quick Vegas", rounds_differ, case)) == 0  # column
    assert micro("convergence-bdp", row("Vegas", ode_differs, case)) == 0  # other algorithm
    assert micro("new-equilibrium", row("Quick Vegas", ode_differs, case)) == 0  # section
    # not 1000 kb, nor an unstated case
    assert micro("convergence-bdp", row("Quick Vegas", ode_differs, {"bdp_kb": 1000.0})) == 0
    assert micro("convergence-bdp", row("Quick Vegas", ode_differs, None)) == 0
    # an agreeing row has no mechanism and nothing unexplained
    agree = row("Quick Vegas", {PACKET: 10.0, ROUNDS: 10.0, ODE: 10.0}, case)
    assert _mechanisms("convergence-bdp", agree, tmp_path) == {"unexplained": 0}


def test_a_differing_cell_outside_every_scope_is_unexplained(tmp_path: Path) -> None:
    row = Row("Reno, x", "q", "", "window", {DOCUMENT: 10.0, PACKET: 20.0}, DOCUMENT)
    assert not row.ok and _mechanisms("asymmetric", row, tmp_path) == {"unexplained": 1}


def test_the_report_code_cites_no_test_in_prose() -> None:
    """Reasons live in docs/mechanisms.md: no string of the report's library code cites a
    test, except the mechanisms' experiment ids."""
    cite = re.compile(r"tests/[\w/]+\.py::test_|::test_")
    bad = []
    for path in sorted(Path(tcpfluid.report.__file__).parent.glob("*.py")):
        if path.name == "_mechanisms.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
            and n.body
            and isinstance(n.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if cite.search(node.value) and id(node) not in docs:
                    bad.append((path.name, node.value[:60]))
    assert not bad, bad
