"""The TCP-Ho paper's §5.2 sections and the iTCP-Vegas paper's tables in quick mode: every
row judged, against the packet simulator or the printed value.

Building the sections runs every engine on the papers' settings (several seconds), so
these checks live here; the scenarios' settings and the transcriptions are checked without
runs in ``tests/scenarios/test_paper_tables.py``.
"""

from __future__ import annotations

import pytest

from tcpfluid.report import build_report


@pytest.fixture(scope="module")
def quick_report():
    return build_report(["ho-fairness", "ho-friendliness"], quick=True)


def test_quick_sections_hold_judged_rows(quick_report):
    by_name = {s.name: s for s in quick_report.sections}
    fair = by_name["ho-fairness"]
    t5 = fair.tables[0]
    # Vegas and TCP-Ho in quick mode: fairness, utilization and time to balance each
    assert [r.quantity.split(",")[0].split(":")[0] for r in t5.rows][:3] == [
        "spread of the flows' shares (std/mean)",
        "bottleneck utilization by the flows' goodput",
        "time to balance",
    ]
    assert all(r.judged for r in t5.rows)
    # Table 6's document is context: the rows are judged against the packet simulator
    assert all(r.reference == "packet sim" for r in fair.tables[1].rows)
    friend = by_name["ho-friendliness"].tables[0]
    assert len(friend.rows) == 3 and all(r.judged for r in friend.rows)
    assert {r.values["document"] for r in friend.rows[1:]} == {564.0, 438.0}
    assert fair.figures and by_name["ho-friendliness"].figures


def test_itcp_quick_section_says_its_reading_and_is_judged():
    rep = build_report(["itcp-tables"], quick=True)
    (sec,) = rep.sections
    # the flow chart is missing: the section names the documented reading and that its
    # amounts were fitted to these tables
    assert "flow chart" in sec.intro and "interpretation" in sec.intro
    assert "fitted to Table 1, Table 2" in sec.intro
    t1, t2 = sec.tables[:2]
    assert [r.values["document"] for r in t1.rows] == [412.32, 15.33]
    assert len(t2.rows) == 4 and all(r.judged for r in (*t1.rows, *t2.rows))
    # the averages are whole-run means: a 155 Mb/s path carries at most 155 Mb/s
    for r in t2.rows[::2]:
        assert 0.0 < r.values["packet sim"] <= 155.0
