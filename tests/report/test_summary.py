"""The report's summary in words: counted from the rows, grouped by stated reason."""

from __future__ import annotations

from tcpfluid.report import NA, Report, ReportConfig, Row, SectionResult, Table, Tolerance
from tcpfluid.report._summary import algorithm_of, layer_of, summarize
from tcpfluid.report._table import CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS
from tcpfluid.report._writer import render_html, render_markdown

TEN = Tolerance(rel=0.10, reason="ten per cent")


def _report(*rows: Row) -> Report:
    table = Table("t", rows)
    sec = SectionResult("sec", "Section", "intro", (table,))
    return Report(ReportConfig(), (sec,), 1.0)


def _rows() -> tuple[Row, ...]:
    return (
        # Vegas: packet agrees with the document (+5 %), rounds differs (+30 %, a reason)
        Row(
            "Vegas, BDP 1000 kb",
            "slow-start exit window",
            "pkts",
            {DOCUMENT: 100.0, PACKET: 105.0, ROUNDS: 130.0, ODE: NA("no slow start")},
            DOCUMENT,
            TEN,
            reasons={ROUNDS: "fluid burst"},
        ),
        # Quick Vegas: rounds vs closed form agrees; packet differs with no reason given
        Row(
            "Quick Vegas, BDP 1000 kb",
            "rounds to nW",
            "rounds",
            {CLOSED_FORM: 10.0, ROUNDS: 10.5, PACKET: 20.0},
            CLOSED_FORM,
            TEN,
        ),
        # a thesis setting: Enhanced Vegas; a variant column of the round model
        Row(
            "vegas-2, x2 = 10 ms",
            "Jain's index",
            "",
            {DOCUMENT: 1.0, ODE: 0.99, "round model, rtt=fluid": 0.98},
            DOCUMENT,
            TEN,
        ),
        # no comparison: the reference is missing
        Row("FAST on qv-basic", "q", "", {DOCUMENT: NA("none"), PACKET: 3.0}, DOCUMENT, TEN),
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
    assert layer_of("document analysis") == DOCUMENT


def test_counts_by_hand() -> None:
    s = summarize(_report(*_rows()))
    assert s.n_rows == 4 and s.n_no_comparison == 1
    assert len(s.comparisons) == 2 + 2 + 2  # judged cells of the first three rows
    docs, layers = s.counts("Vegas", PACKET)
    assert (docs.agree, docs.total, layers.total) == (1, 1, 0)
    docs, layers = s.counts("Vegas", ROUNDS)
    assert (docs.agree, docs.total) == (0, 1)
    docs, layers = s.counts("Quick Vegas", ROUNDS)
    assert (layers.agree, layers.total, docs.total) == (1, 1, 0)
    docs, _ = s.counts("Enhanced Vegas", ROUNDS)  # the variant column counts for its layer
    assert (docs.agree, docs.total) == (1, 1)
    assert "6 comparisons" in s.overview() and "4 agree" in s.overview()
    assert "2 differ (1 with a stated reason, 1 with reason unknown)" in s.overview()
    assert "1 rows have no comparison" in s.overview()


def test_differences_carry_the_sections_reasons() -> None:
    s = summarize(_report(*_rows()))
    (vd,) = s.differences("Vegas")
    assert vd.pair == (ROUNDS, DOCUMENT) and vd.reason == "fluid burst" and vd.n == 1
    (qd,) = s.differences("Quick Vegas")
    assert qd.reason == "reason unknown" and qd.quantities == ["rounds to nW"]
    assert s.differences("Enhanced Vegas") == []
    md = "\n".join(s.markdown())
    assert "round model vs document, 1 comparison (slow-start exit window): fluid burst" in md
    assert "**Enhanced Vegas.**" in md and "Nothing differs." in md
    assert "| Vegas | – | 0/1 · – | – | 1/1 · – |" in md
    # per layer over all algorithms: the closed form is only a reference (Quick Vegas:
    # rounds agree, packets differ); round model 0/1 (Vegas) + 1/1 (Enhanced Vegas) with
    # the documents and 1/1 with the closed form; packets 1/1 with documents, 0/1 with CF
    assert "| **all algorithms** | – · 1/2 | 1/2 · 1/1 | 1/1 · – | 1/1 · 0/1 |" in md


def test_summary_follows_the_rows() -> None:
    rows = list(_rows())
    r0 = rows[0]
    rows[0] = Row(
        r0.setting,
        r0.quantity,
        r0.unit,
        r0.values,
        r0.reference,
        r0.default_tolerance,
        reasons={ROUNDS: "another mechanism"},
    )
    md = "\n".join(summarize(_report(*rows)).markdown())
    assert "another mechanism" in md and "fluid burst" not in md


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
    assert "fluid burst" in html
