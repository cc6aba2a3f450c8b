"""Tsang's thesis's many-flow and delayed-ACK sections (Tables 3.21-3.28) in quick mode:
the packet simulator over the thesis's many-flow network and its two-flow network behind
delaying receivers, row by row against the printed values.

Building the two sections runs the packet simulator on 30 flows for each mix and router
(several seconds), so these checks live here; the sections' scenarios are checked without
runs in ``tests/report/test_thesis_tables.py``. Rows are read by their columns' headings
as the report prints them (``"document"``, ``"packet sim"``).
"""

from __future__ import annotations

import pytest

from tcpfluid.report import build_report

DOCUMENT = "document"
PACKET = "packet sim"


@pytest.fixture(scope="module")
def quick_many() -> dict:
    rep = build_report(["thesis-many-flows", "thesis-delayed-ack"], quick=True, jobs=1)
    return {s.name: s for s in rep.sections}


def test_no_vegas_flow_shuts_down(quick_many: dict) -> None:
    # the thesis's "shut down" connections were ns-2's Vegas setting its window to 0 after a
    # Reno-type timeout; the reading: a flow that delivers nothing over 20-60 s. The packet
    # simulator's Vegas has no such state: every row counts 0
    sec = quick_many["thesis-many-flows"]
    rows = [r for t in sec.tables[:2] for r in t.rows]
    assert rows
    assert all(r.values["flows shut down, packet sim"] == 0.0 for r in rows)


def test_the_many_flow_rows_reference_the_thesis_after_its_fix(quick_many: dict) -> None:
    sec = quick_many["thesis-many-flows"]
    v3 = next(r for r in sec.tables[0].rows if r.case == {"router": "red-5-15", "flows": 30,
                                                         "law": "vegas-3"})  # fmt: skip
    # Table 3.21a, 30 flows, Vegas-3: after 0.900, before 0.923
    assert v3.values["Jain's index, document"] == 0.900
    assert v3.values["Jain's index, thesis before its ns-2 fix"] == 0.923
    assert v3.reference == DOCUMENT and v3.kind == "share spread"


def test_delayed_acks_delay_the_first_base_rtt_by_the_timer(quick_many: dict) -> None:
    # Table 3.28: behind delaying receivers, ns-2's Vegas (window from one packet) records
    # first BaseRTTs of 0.518544 and 0.513211 s (the 0.5-s timer); ours, in some order
    sec = quick_many["thesis-delayed-ack"]
    t28 = sec.tables[-1]
    dada = [r for r in t28.rows if r.case.get("acks") == "da-da"]
    first = sorted(r.values[PACKET] for r in dada if r.case.get("quantity") == "first")
    assert first == pytest.approx([0.513211, 0.518544], abs=1e-5)
    # from the library's initial window of 2 the second packet is acknowledged at once
    iw2 = [r.values["packet sim, initial window 2 (the library's)"] for r in dada
           if r.case.get("quantity") == "first"]  # fmt: skip
    assert max(iw2) < 0.1
    # Table 3.27, the many-flow network: the first BaseRTT is the timer and a round trip
    # (the thesis's median 0.601 s), from 2 packets one round trip (0.09-0.10 s
    # propagation and the queue)
    t27 = sec.tables[1].rows[0]
    assert t27.case == {"quantity": "first_base_rtt_median"}
    assert 0.59 <= t27.values[PACKET] <= 0.62
    assert t27.values["packet sim, initial window 2 (the library's)"] < 0.2


def test_table_3_28_mixed_row_delays_only_the_delaying_receivers_connection(
    quick_many: dict,
) -> None:
    # Table 3.28, connection 1's receiver delays, connection 2's does not: the first
    # BaseRTT of connection 1 holds the 0.5-s timer (the thesis: 0.518544 s), connection
    # 2's is a round trip without it (0.013211 s; ours may wait one packet time, 5.3 ms,
    # behind connection 1's first packet); the final BaseRTTs are the thesis's 0.032 s
    # (one packet and a half-window's wait behind the delaying receiver) and 0.013211 s
    t28 = quick_many["thesis-delayed-ack"].tables[-1]
    dai = {
        (r.case["connection"], r.case["quantity"]): r
        for r in t28.rows
        if r.case.get("acks") == "da-ia" and "quantity" in r.case
    }
    assert set(dai) == {(c, q) for c in (1, 2) for q in ("first", "final")}
    assert dai[(1, "first")].values[DOCUMENT] == 0.518544
    assert dai[(1, "first")].values[PACKET] == pytest.approx(0.513211 + 0.0053333, abs=6e-3)
    assert dai[(2, "first")].values[PACKET] < 0.02
    assert dai[(2, "final")].values[PACKET] == pytest.approx(0.013211, abs=1e-5)
    goodput = {r.case["connection"]: r for r in t28.rows if r.case.get("acks") == "da-ia"
               and "quantity" not in r.case}  # fmt: skip
    assert goodput[1].values[DOCUMENT] == pytest.approx(993.13351)
    assert goodput[2].values[DOCUMENT] == pytest.approx(507.3669)
    # the report's run echoes the latest packet of a delayed ACK (ns-2's DelAckSink): the
    # delaying connection takes the larger share, as the thesis's; echoing the first
    # (RFC 7323, shown beside) it backs off and takes the smaller one
    rfc = "packet sim, delayed ACK echoing the first packet (RFC 7323)"
    assert goodput[1].values[PACKET] > goodput[2].values[PACKET]
    assert goodput[1].values[rfc] < goodput[2].values[rfc]


@pytest.mark.parametrize(
    ("table", "case", "jain"),
    [
        # Tables 3.22a/b, 30 flows, as printed
        (1, {"router": "red-5-15", "flows": 30, "law": "vegas-3", "vegas_percent": 10}, 0.974),
        (1, {"router": "red-5-15", "flows": 30, "law": "vegas-1_3", "vegas_percent": 90}, 0.879),
        (1, {"router": "red-5-15", "flows": 30, "law": "vegas-1_3", "vegas_percent": 100}, 0.873),
        (1, {"router": "red-54-108", "flows": 30, "law": "vegas-1_3", "vegas_percent": 100}, 0.778),
    ],
)
def test_every_column_of_table_3_22_is_a_row(
    quick_many: dict, table: int, case: dict, jain: float
) -> None:
    rows = quick_many["thesis-many-flows"].tables[table].rows
    row = next(r for r in rows if r.case == case)
    assert row.values["Jain's index, document"] == jain
    assert row.reference == DOCUMENT and row.kind == "share spread"
    # 5 mixes of each Vegas law and Vegas-1_3 alone, per router at 30 flows
    assert len(rows) == 2 * (2 * 5 + 1)


def test_every_column_of_table_3_26_is_a_row(quick_many: dict) -> None:
    rows = quick_many["thesis-delayed-ack"].tables[0].rows
    got = {(r.case["router"], r.case["vegas_percent"]): r for r in rows}
    assert sorted(p for r, p in got if r == "red-5-15") == [10, 30, 50, 70, 90, 100]
    # Table 3.26a/b, 30 flows, DA, as printed
    assert got[("red-5-15", 10)].values["Jain's index, document"] == 0.958
    assert got[("red-54-108", 90)].values["Jain's index, document"] == 0.985
