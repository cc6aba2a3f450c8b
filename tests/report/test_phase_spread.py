"""A row judged against the packet simulator with the packets' range over the phase of
the change: a fluid cell outside the nominal tolerance but inside the measured range
agrees within the phase spread (inside the range, or within the row's tolerance of its
nearer end: each end is a run's value); one beyond that is still flagged. Against the
document (one ns-2 run, at a phase it does not give), the packet cell agrees when the
document's value is inside the range or within the tolerance of its nearer end. Where a row
also holds a fluid engine's own range over the same phases, the two ranges are compared."""

from __future__ import annotations

import pytest

from tcpfluid.report._table import DOCUMENT, NA, ODE, PACKET, ROUNDS, Row, Tolerance
from tcpfluid.report._table import PHASE_MAX as HI
from tcpfluid.report._table import PHASE_MIN as LO
from tcpfluid.report._table import ROUNDS_PHASE_MAX as ROUNDS_HI
from tcpfluid.report._table import ROUNDS_PHASE_MIN as ROUNDS_LO

TOL = Tolerance(rel=0.25, abs_tol=3.0, reason="settling band and round boundaries")


def _phase_row(values: dict[str, float | NA], reference: str, tol: Tolerance) -> Row:
    """A row with the packets' phase range columns (``LO``, ``HI`` among ``values``)."""
    reasons = {c: "differs" for c in values if c not in (reference, LO, HI)}
    return Row("setting", "quantity", "s", values, reference, tol, informative=(LO, HI),
               reasons=reasons)  # fmt: skip


def _row(rounds: float, ode: float, lo: float | NA, hi: float | NA) -> Row:
    # TCP-Ho at 1000 kb, convergence after the halving (RTTs), judged against the packets
    return _phase_row({ROUNDS: rounds, ODE: ode, PACKET: 8.93, LO: lo, HI: hi}, PACKET, TOL)


def test_a_fluid_cell_inside_the_packets_phase_range_agrees_and_one_outside_is_flagged():
    # nominal tolerance of 8.93: 25 % = 2.23, 3 RTTs -> [5.93, 11.93]; 15.85 and 30 fail it
    row = _row(15.85, 30.0, 8.9, 19.7)
    assert row.within_phase_spread == (ROUNDS,)
    assert row.failures == (ODE,)
    assert row.verdict.startswith("DIFFERS: ODE")
    assert "round model within the packets' phase spread [8.9" in row.verdict
    assert not row.ok
    inside = _row(15.85, 19.36, 8.9, 19.7)
    assert inside.ok
    assert inside.verdict.startswith("agree (round model and ODE within the packets' phase")
    d = inside.to_dict()
    assert d["packet_phase_range"] == [8.9, 19.7]
    assert d["within_phase_spread"] == [ROUNDS, ODE]


def test_each_run_over_the_phase_is_judged_with_the_rows_tolerance():
    # the range's ends are runs' values: 20.0 is within 25 % of the max 19.7 (a run) and
    # agrees as the nominal run would; 25.0 is beyond 19.7's 25 % (24.6) and 3 RTTs (22.7)
    assert _row(20.0, 9.0, 8.9, 19.7).failures == ()
    assert _row(25.0, 9.0, 8.9, 19.7).failures == (ROUNDS,)
    # below the range: 3.0 is 5.9 under the min 8.9 (25 % = 2.2, 3 RTTs): still flagged
    assert _row(15.85, 3.0, 12.0, 19.7).failures == (ODE,)
    # a cell within the tolerance of the nominal run (9.2 against 8.93) is not one the
    # phase runs rescue: only the round model is listed in the spread
    assert _row(15.85, 9.2, 12.0, 19.7).within_phase_spread == (ROUNDS,)


def test_without_a_measured_range_the_nominal_tolerance_decides():
    row = _row(15.85, 9.0, NA("no phase runs"), NA("no phase runs"))
    assert row.phase_range is None
    assert row.failures == (ROUNDS,)


def test_phase_columns_must_come_together_informative_and_ordered():
    with pytest.raises(ValueError, match="phase range min"):
        _row(9.0, 9.0, 20.0, 10.0)
    with pytest.raises(ValueError, match="come together"):
        Row("s", "q", "RTTs", {PACKET: 1.0, ROUNDS: 1.0, LO: 1.0}, PACKET, TOL,
            informative=(LO,))  # fmt: skip


def _doc_row(packet: float, rounds: float, lo: float | NA, hi: float | NA) -> Row:
    # Quick Vegas on qv-basic after the doubling (s), judged against the document (one
    # ns-2 run at a phase it does not give)
    doc_tol = Tolerance(rel=0.10, abs_tol=0.3, reason="times read off ns-2 plots")
    values = {ROUNDS: rounds, PACKET: packet, DOCUMENT: 2.0, LO: lo, HI: hi}
    return _phase_row(values, DOCUMENT, doc_tol)


def test_against_the_document_the_packet_cell_agrees_when_a_phase_of_its_runs_does():
    # 1.57 is 0.43 from the document's 2.0 (tolerance max(0.2, 0.3) = 0.3); the runs over
    # the phase reach 1.77, 0.23 from it: the packet cell agrees within the phase spread
    row = _doc_row(1.57, 1.79, 1.57, 1.77)
    assert row.phase_range == (1.57, 1.77)
    assert row.within_phase_spread == (PACKET,)
    assert row.ok
    assert row.verdict == "agree (packet sim within the packets' phase spread [1.57, 1.77])"
    # a range that ends 0.35 below the document's value does not rescue it
    assert _doc_row(1.57, 1.79, 1.50, 1.65).failures == (PACKET,)
    # a document value inside the range agrees
    assert _doc_row(1.57, 1.79, 1.50, 2.10).ok
    # a fluid cell is judged against the document, and where it misses it, against its
    # referee, the packet simulator over the range: 1.5 is 0.5 from 2.0 but 0.07 from 1.57
    assert _doc_row(1.57, 1.5, 1.57, 1.77).agree_with_packets == (ROUNDS,)
    assert _doc_row(1.57, 1.5, 1.57, 1.77).ok
    # 1.1 is 0.9 from the document and 0.47 from the range's nearer end 1.57: flagged
    assert _doc_row(1.57, 1.1, 1.57, 1.77).failures == (ROUNDS,)


def _fluid_row(rounds: float, r_lo: float | NA, r_hi: float | NA) -> Row:
    # TCP-Ho on ho-basic, peak queue after the halving (pkts), judged against the packets,
    # with the round model's own range over the same phases of the CBR start
    tol = Tolerance(rel=0.05, abs_tol=2.0, reason="windows and queues")
    values = {ROUNDS: rounds, ODE: 540.0, PACKET: 540.0, LO: 390.0, HI: 540.0,
              ROUNDS_LO: r_lo, ROUNDS_HI: r_hi}  # fmt: skip
    return Row("setting", "quantity", "pkts", values, PACKET, tol,
               informative=(LO, HI, ROUNDS_LO, ROUNDS_HI), reasons={ROUNDS: "differs"})  # fmt: skip


def test_a_fluid_engines_own_range_over_the_phase_is_compared_with_the_packets_range():
    # 596 is 10 % above the packets' max 540 (5 % = 27): alone it differs; its own runs over
    # the phase reach 515, inside the packets' [390, 540]: the ranges overlap
    assert _fluid_row(596.0, NA("no runs"), NA("no runs")).failures == (ROUNDS,)
    row = _fluid_row(596.0, 515.0, 596.0)
    assert row.fluid_phase_range(ROUNDS) == (515.0, 596.0)
    assert row.within_phase_spread == (ROUNDS,)
    assert row.ok
    assert "round model over the phase [515.0, 596.0]" in row.verdict
    assert row.to_dict()["fluid_phase_ranges"] == {ROUNDS: [515.0, 596.0]}
    # nearer ends 570 and 540: 30 > 27 (5 %) and > 2: still flagged; 566 is within 27
    assert _fluid_row(596.0, 570.0, 600.0).failures == (ROUNDS,)
    assert _fluid_row(596.0, 566.0, 600.0).ok
    # the nominal value belongs to the engine's range even when its runs lie elsewhere
    assert _fluid_row(596.0, 600.0, 620.0).fluid_phase_range(ROUNDS) == (596.0, 620.0)


def test_fluid_phase_columns_come_together_informative_and_ordered():
    with pytest.raises(ValueError, match="phase range min"):
        _fluid_row(596.0, 600.0, 500.0)
    with pytest.raises(ValueError, match="come together"):
        Row("s", "q", "pkts", {PACKET: 1.0, ROUNDS: 1.0, ROUNDS_LO: 1.0}, PACKET, TOL,
            informative=(ROUNDS_LO,))  # fmt: skip
