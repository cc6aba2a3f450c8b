"""The report's summary: counted from the rows by the one rule; differing cells grouped by
the mechanism whose declared scope covers them, or unexplained."""

from __future__ import annotations

from tcpfluid.report import NA, Report, ReportConfig, Row, SectionResult, Table
from tcpfluid.report._summary import algorithm_of, layer_of, summarize
from tcpfluid.report._table import CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS
from tcpfluid.report._writer import render_html, render_markdown


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


def test_algorithm_and_layer_are_read_from_settings_and_columns() -> None:
    assert algorithm_of("Quick Vegas, BDP 100 kb (μd = 12.5 pkts)") == "Quick Vegas"
    assert algorithm_of("Vegas on qv-basic") == "Vegas"
    assert algorithm_of("forward-path Vegas, k = 3") == "forward-path Vegas"
    assert algorithm_of("vegas-1_3, x2 = 10 ms") == "Vegas"  # thesis α=1, β=3
    assert algorithm_of("vegas-3, x2 = 10 ms") == "Enhanced Vegas"
    assert algorithm_of("something else") == "other"
    assert layer_of("round model, rtt=fluid") == ROUNDS
    assert layer_of("W* eq. (10)") == CLOSED_FORM


def test_counts_by_hand() -> None:
    s = summarize(_report(*_rows()))
    assert s.n_rows == 4 and s.n_no_comparison == 1 and s.n_differs == 2
    assert len(s.verdict_cells) == 2 + 2 + 2  # the compared cells of the first three rows
    assert len(s.comparisons) == 6 + 1 + 1  # and the round model against the packets twice
    docs, packets = s.counts("Vegas", PACKET)
    assert (docs.agree, docs.total, packets.total) == (1, 1, 0)
    docs, packets = s.counts("Vegas", ROUNDS)
    assert (docs.agree, docs.total, packets.agree, packets.total) == (0, 1, 0, 1)
    docs, packets = s.counts("Quick Vegas", ROUNDS)
    assert (docs.agree, docs.total, packets.agree, packets.total) == (1, 1, 0, 1)
    docs, _ = s.counts("Enhanced Vegas", ROUNDS)  # the variant column counts for its layer
    assert (docs.agree, docs.total) == (1, 1)
    text = s.overview()
    assert text.startswith("2 of 4 rows DIFFER: 2 of 6 compared cells")
    assert "2 of 2 fluid cells" in text


def test_differences_are_grouped_by_mechanism_or_unexplained() -> None:
    s = summarize(_report(*_rows()))
    # the differing cells of the verdicts (the overview's 2), not the layers' comparisons
    assert s.mechanism_counts() == [("unexplained", 2)]
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
    s = summarize(_report(row, section="convergence-bdp"))
    assert s.mechanism_counts() == [("micro-queue", 1), ("unexplained", 0)]
    md = "\n".join(s.markdown())
    assert "[micro-queue](../docs/mechanisms.md#micro-queue): 1" in md


def test_the_printed_count_is_the_summarys() -> None:
    rep = _report(*_rows())
    s = summarize(rep)
    assert s.n_differs == rep.n_disagreements == 2
    assert s.to_dict()["differs"] == 2 and s.to_dict()["compared_cells"] == 6


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
    from tcpfluid.report._writer import write_report

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
