"""The report's summary: counted from the rows by the one rule; differing cells grouped by
the mechanism whose declared scope covers them, or unexplained.

Read as a user reads it: the ``summary`` of the written ``report.json`` and the rendered
pages (:func:`tcpfluid.report.write_report`, :func:`render_markdown`); the expected counts
are counted by hand from the rows below.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from _report_columns import CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS

from tcpfluid.report import (
    NA,
    Report,
    ReportConfig,
    Row,
    SectionResult,
    Table,
    render_html,
    render_markdown,
    write_report,
)

#: the mechanisms' page of this source tree
DOCS_MECHANISMS = Path(__file__).resolve().parents[2] / "docs" / "mechanisms.md"


def _report(*rows: Row, section: str = "sec") -> Report:
    table = Table("t", rows)
    sec = SectionResult(section, "Section", "intro", (table,))
    return Report(ReportConfig(), (sec,), 1.0)


def _rows() -> tuple[Row, ...]:
    return (
        # Vegas: packet agrees with the document (+5 %), rounds differs (+30 %); beside it
        # the round model against the packets: 130 vs 105, +24 %: differs too
        Row(
            "Vegas, BDP 1000 kb",
            "slow-start exit window",
            "pkts",
            "window",
            {DOCUMENT: 100.0, PACKET: 105.0, ROUNDS: 130.0, ODE: NA("no slow start")},
            DOCUMENT,
        ),
        # Quick Vegas: rounds vs closed form agrees (10.5 vs 10), packet differs (20 vs
        # 10: 10 rounds); round model vs packets: 10.5 vs 20, differs
        Row(
            "Quick Vegas, BDP 1000 kb",
            "rounds to nW",
            "rounds",
            "rounds",
            {CLOSED_FORM: 10.0, ROUNDS: 10.5, PACKET: 20.0},
            CLOSED_FORM,
        ),
        # a thesis setting: Enhanced Vegas; a variant column of the round model
        Row(
            "vegas-2, x2 = 10 ms",
            "smaller share",
            "",
            "share",
            {DOCUMENT: 0.5, ODE: 0.49, "round model, rtt=fluid": 0.48},
            DOCUMENT,
        ),
        # no comparison: the reference is missing
        Row("FAST on qv-basic", "q", "", "window", {DOCUMENT: NA("none"), PACKET: 3.0}, DOCUMENT),
    )


def _summary(rep: Report, tmp_path: Path) -> dict[str, Any]:
    """The ``summary`` of the ``report.json`` that :func:`write_report` writes."""
    out = tmp_path / "out"
    write_report(rep, out)
    return json.loads((out / "report.json").read_text(encoding="utf-8"))["summary"]


def _counts(s: dict[str, Any], algorithm: str, layer: str) -> tuple[int, int, int, int]:
    """(agree, compared) against the documents, then against the packets."""
    c = s["algorithms"][algorithm][layer]
    return (c["documents"]["agree"], c["documents"]["compared"], c["packets"]["agree"],
            c["packets"]["compared"])  # fmt: skip


def test_algorithm_and_layer_are_read_from_settings_and_columns(tmp_path: Path) -> None:
    settings = {
        "Quick Vegas, BDP 100 kb (μd = 12.5 pkts)": "Quick Vegas",
        "Vegas on qv-basic": "Vegas",
        "forward-path Vegas, k = 3": "forward-path Vegas",
        "vegas-1_3, x2 = 10 ms": "Vegas",  # the thesis's α=1, β=3
        "vegas-3, x2 = 10 ms": "Enhanced Vegas",
        "vegas-3 + Reno (30 % Vegas-3), 30 flows, RED-5-15": "mixed laws",
        "something else": "other",
    }
    for setting, algorithm in settings.items():
        row = Row(setting, "w", "pkts", "window", {DOCUMENT: 10.0, PACKET: 10.0}, DOCUMENT)
        s = _summary(_report(row), tmp_path)
        assert [a for a in s["algorithms"] if a != "all algorithms"] == [algorithm], setting
    # a variant column counts for its layer; a named closed form for the closed forms
    values = {DOCUMENT: 10.0, "round model, rtt=fluid": 10.0, "W* eq. (10)": 30.0}
    row = Row("Vegas", "w", "pkts", "window", values, DOCUMENT)
    s = _summary(_report(row), tmp_path)
    assert _counts(s, "Vegas", ROUNDS) == (1, 1, 0, 0)
    assert _counts(s, "Vegas", CLOSED_FORM) == (0, 1, 0, 0)


def test_counts_by_hand(tmp_path: Path) -> None:
    s = _summary(_report(*_rows()), tmp_path)
    assert s["rows"] == 4 and s["differs"] == 2
    assert s["compared_cells"] == 2 + 2 + 2  # the compared cells of the first three rows
    assert s["differing_cells"] == 2
    assert _counts(s, "Vegas", PACKET)[:3] == (1, 1, 0) and _counts(s, "Vegas", PACKET)[3] == 0
    assert _counts(s, "Vegas", ROUNDS) == (0, 1, 0, 1)
    assert _counts(s, "Quick Vegas", ROUNDS) == (1, 1, 0, 1)
    # the variant column counts for its layer
    assert _counts(s, "Enhanced Vegas", ROUNDS)[:2] == (1, 1)
    text = s["overview"]
    assert text.startswith("2 of 4 rows DIFFER: 2 of 6 compared cells")
    assert "1 rows have no comparison" in text
    assert "2 of 2 fluid cells" in text  # the round model against the packets, twice


def test_differences_are_grouped_by_mechanism_or_unexplained(tmp_path: Path) -> None:
    s = _summary(_report(*_rows()), tmp_path)
    # the differing cells of the verdicts (the overview's 2), not the layers' comparisons
    assert s["mechanisms"] == {"unexplained": 2}
    # a Quick Vegas ODE cell of convergence-bdp after the halving: the micro-queue's scope
    row = Row(
        "Quick Vegas, BDP 3000 kb",
        "convergence, bandwidth halved",
        "RTTs",
        "rounds",
        {PACKET: 20.0, ODE: 30.0, ROUNDS: 20.0},
        PACKET,
        case={"bdp_kb": 3000.0},
    )
    rep = _report(row, section="convergence-bdp")
    assert _summary(rep, tmp_path)["mechanisms"] == {"micro-queue": 1, "unexplained": 0}
    # without the page's place the mechanism is named; with it, linked
    assert "- micro-queue: 1" in render_markdown(rep)
    md = render_markdown(rep, mechanisms_href="../docs/mechanisms.md")
    assert "[micro-queue](../docs/mechanisms.md#micro-queue): 1" in md


@pytest.mark.parametrize("depth", ["report", "a/b/c/report"])
def test_the_written_reports_mechanism_links_reach_the_page(tmp_path: Path, depth: str) -> None:
    # index.md written anywhere links docs/mechanisms.md by a path that resolves from its
    # folder (the page of this source tree)
    row = Row(
        "Quick Vegas, BDP 3000 kb", "convergence, bandwidth halved", "RTTs", "rounds",
        {PACKET: 20.0, ODE: 30.0, ROUNDS: 20.0}, PACKET, case={"bdp_kb": 3000.0},
    )  # fmt: skip
    out = tmp_path / depth
    write_report(_report(row, section="convergence-bdp"), out)
    md = (out / "index.md").read_text(encoding="utf-8")
    links = re.findall(r"\[micro-queue\]\(([^)#]+)#micro-queue\)", md)
    assert links and all((out / link).resolve() == DOCS_MECHANISMS for link in links)


def test_the_printed_count_is_the_summarys(tmp_path: Path) -> None:
    rep = _report(*_rows())
    s = _summary(rep, tmp_path)
    assert s["differs"] == rep.n_disagreements == 2
    assert s["overview"] in render_markdown(rep)


def test_summary_opens_the_rendered_report() -> None:
    rep = _report(*_rows())
    md = render_markdown(rep)
    # the summary comes first: straight after the title, before the run's details
    assert md.index("## Summary") < md.index("## This run") < md.index("## Sections")
    assert md.index("## Sections") < md.index("## Section\n")
    assert md.split("\n")[2] == "## Summary"
    html = render_html(rep)
    assert html.index('id="summary"') < html.index('id="this-run"') < html.index('id="sec"')
    assert html.index('id="summary"') < html.index("Mode:")


def test_index_md_counts_the_agreeing_rows_and_links_the_differing_ones(tmp_path) -> None:
    """The written index.md states each table's caption, tolerance and how many rows
    agree, and links its differing rows on sections/<name>.md; the row that agrees (the
    Enhanced Vegas share, 0.49 against 0.5) is not listed there, the two that differ and
    the one with no comparison are."""
    rep = _report(*_rows())
    write_report(rep, tmp_path / "out")
    md = (tmp_path / "out" / "index.md").read_text(encoding="utf-8")
    assert "(tolerance: " in md and '<a id="sec"></a>' in md
    assert "1 of 4 rows agree" in md and "[the 3 that differ](sections/sec.md)" in md
    assert "Vegas, BDP 1000 kb" not in md  # the rows are on the section's page
    page = (tmp_path / "out" / "sections" / "sec.md").read_text(encoding="utf-8")
    assert "Vegas, BDP 1000 kb" in page and "Quick Vegas, BDP 1000 kb" in page
    assert "FAST on qv-basic" in page and "vegas-2, x2 = 10 ms" not in page
    # the full rendering (render_markdown's default) still holds every differing row
    assert "Quick Vegas, BDP 1000 kb" in render_markdown(rep)
