"""The report's one verdict rule, worked by hand: a compared cell agrees when it is within
its quantity's tolerance of the row's reference, and nothing else passes it (no packet
referee, no range over the phase); the fluid cells against the packet cell are a verdict
of their own beside it."""

from __future__ import annotations

from tcpfluid.report import NA, Row

# the report's column headings, as it prints them (report.json, index.md)
CLOSED_FORM, DOCUMENT, ROUNDS, ODE, PACKET = (
    "closed form", "document", "round model", "ODE", "packet sim"
)  # fmt: skip
PHASE_MIN, PHASE_MAX = "packet sim over the phase, min", "packet sim over the phase, max"
ROUNDS_PHASE_MIN = "round model over the phase, min"
ROUNDS_PHASE_MAX = "round model over the phase, max"


def _row(ref_col: str, ref: float, packet: float | NA, rounds: float, ode: float, **extra) -> Row:
    values = {ref_col: ref, ROUNDS: rounds, ODE: ode, PACKET: packet, **extra}
    return Row("setting", "quantity", "rounds", "rounds", values, ref_col, tuple(extra))


def test_a_fluid_cell_near_the_packets_but_off_the_reference_differs():
    # rounds: ±25 % or 2 rounds. Closed form 13 (band 9.75..16.25); packets 16 (inside);
    # round model 18: +38.5 % from the closed form, +12.5 % from the packets
    row = _row(CLOSED_FORM, 13.0, 16.0, 18.0, 13.0)
    assert row.failures == (ROUNDS,)
    assert row.verdict == "DIFFERS: round model +38 %"
    assert row.layers_failures == ()  # beside it: the round model agrees with the packets
    assert row.layers_verdict == "agree"


def test_the_layers_verdict_never_changes_the_verdict():
    # the round model agrees with the closed form (14 vs 13) and differs from the packets
    # (14 vs 20: −30 %, 6 rounds): the row agrees, its layers' verdict differs
    row = _row(CLOSED_FORM, 13.0, 16.0, 14.0, 13.0)
    assert row.ok
    row = _row(CLOSED_FORM, 13.0, 20.0, 14.0, 13.0)
    assert row.failures == (PACKET,)
    assert row.layers_failures == (ROUNDS, ODE)
    assert row.layers_verdict == "DIFFERS: round model -30 %, ODE -35 %"


def test_a_range_over_the_phase_is_shown_and_never_passes_a_cell():
    # document 30; nominal packet run 40 (+33 %); over the phase the packets span 28..41,
    # which holds the document: the cell still differs
    row = _row(DOCUMENT, 30.0, 40.0, 30.0, 30.0, **{PHASE_MIN: 28.0, PHASE_MAX: 41.0})
    assert row.failures == (PACKET,)
    # a fluid range that overlaps the packets' does not pass a fluid cell either
    row = _row(PACKET, 40.0, 40.0, 25.0, 40.0, **{ROUNDS_PHASE_MIN: 25.0, ROUNDS_PHASE_MAX: 41.0})
    assert row.failures == (ROUNDS,)
    assert row.layers_compared == ()  # judged against the packets already: no second verdict


def test_the_absolute_part_is_two_rounds():
    # 4 rounds against 2: +100 %, but 2 rounds apart: agrees; 5 against 2 does not
    assert _row(CLOSED_FORM, 2.0, 4.0, 2.0, 2.0).ok
    assert _row(CLOSED_FORM, 2.0, 5.0, 2.0, 2.0).failures == (PACKET,)
