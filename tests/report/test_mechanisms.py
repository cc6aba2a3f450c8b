"""Mechanisms that explain differences: one entry each in docs/mechanisms.md, an experiment
that exists, matched to a differing cell by its declared scope only; no reason prose in the
report's library code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import tcpfluid.report
from tcpfluid.report._mechanisms import MECHANISMS, explain
from tcpfluid.report._summary import row_mechanisms
from tcpfluid.report._table import DOCUMENT, ODE, PACKET, ROUNDS, Row

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "mechanisms.md"


def test_every_mechanism_has_one_entry_and_each_entry_a_mechanism() -> None:
    headings = re.findall(r"^## (\S+)\s*$", DOC.read_text(encoding="utf-8"), re.M)
    ids = [m.id for m in MECHANISMS]
    assert len(set(ids)) == len(ids)
    assert sorted(headings) == sorted(ids)


def test_each_experiment_exists_and_is_the_one_the_entry_names() -> None:
    text = DOC.read_text(encoding="utf-8")
    for m in MECHANISMS:
        path, _, name = m.experiment.partition("::")
        src = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^\s*def {name}\(", src, re.M), m.experiment
        entry = text.split(f"## {m.id}\n", 1)[1].split("\n## ", 1)[0]
        assert f"Experiment: `{m.experiment}`" in entry, m.id


def test_a_cell_is_matched_by_scope_not_by_text() -> None:
    m = next(m for m in MECHANISMS if m.id == "micro-queue")
    q = "convergence, bandwidth halved"
    case = {"bdp_kb": 3000.0}
    assert m in explain("convergence-bdp", ODE, q, "Quick Vegas", case)
    assert m not in explain("convergence-bdp", ROUNDS, q, "Quick Vegas", case)  # column
    assert m not in explain("convergence-bdp", ODE, q, "Vegas", case)  # other algorithm
    assert m not in explain("new-equilibrium", ODE, q, "Quick Vegas", case)  # other section
    # only the cases its experiment ran: 3000 and 5000 kb, not 1000 kb nor an unstated case
    assert m not in explain("convergence-bdp", ODE, q, "Quick Vegas", {"bdp_kb": 1000.0})
    assert m not in explain("convergence-bdp", ODE, q, "Quick Vegas")
    # a row's setting text does not matter; an agreeing row has no mechanism
    values = {PACKET: 10.0, ROUNDS: 10.0, ODE: 20.0, DOCUMENT: 10.0}
    row = Row("Quick Vegas, anything at all", q, "RTTs", "rounds", values, PACKET, case=case)
    assert "micro-queue" in row_mechanisms("convergence-bdp", row)
    ok = Row("Quick Vegas", q, "RTTs", "rounds", {**values, ODE: 10.0}, PACKET, case=case)
    assert row_mechanisms("convergence-bdp", ok) == ()


def test_a_differing_cell_outside_every_scope_is_unexplained() -> None:
    row = Row("Reno, x", "q", "", "window", {DOCUMENT: 10.0, PACKET: 20.0}, DOCUMENT)
    assert not row.ok and row_mechanisms("asymmetric", row) == ()


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
