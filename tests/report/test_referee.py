"""Who judges whom in a row whose reference is a document or a closed form.

The packet simulator is the fluid layers' referee; the documents (and the closed forms they
print) are the packet simulator's. So a fluid cell outside its tolerance of the reference
agrees when it is within that tolerance of the packet cell (or of the nearest point of the
packets' range over the phase), and the packet cell is still judged against the reference:
a row whose packet cell misses the reference differs whatever its fluid cells do. Every
number below is worked by hand from the tolerance's definition."""

from __future__ import annotations

from tcpfluid.report._table import CLOSED_FORM, DOCUMENT, NA, ODE, PACKET, ROUNDS, Row, Tolerance

#: ±35 % (the new-equilibrium section's tolerance for rounds)
REL35 = Tolerance(rel=0.35, reason="rounds to nW: measurement rounds and the ACK train")
#: ×1.5 (a slow-start window may move by one Quick Vegas growth round)
X15 = Tolerance(factor=1.5, reason="one growth round")


def _row(ref_col: str, ref: float, packet: float | NA, rounds: float, ode: float,
         tol: Tolerance = REL35) -> Row:  # fmt: skip
    values = {ref_col: ref, ROUNDS: rounds, ODE: ode, PACKET: packet}
    return Row("setting", "quantity", "rounds", values, ref_col, tol,
               reasons={c: "named reason" for c in (ROUNDS, ODE, PACKET)})  # fmt: skip


def test_a_fluid_cell_that_tracks_the_packets_agrees_when_the_packets_meet_the_closed_form():
    # closed form 13; packets 17 (+30.8 %, inside ±35 %); round model 18: +38.5 % from the
    # closed form (outside) but +5.9 % from the packets (inside)
    row = _row(CLOSED_FORM, 13.0, 17.0, 18.0, 13.0)
    assert row.agree_with_packets == (ROUNDS,)
    assert row.failures == ()
    assert row.ok
    assert row.verdict == (
        "agree (round model within tolerance of the packet simulator, the fluid layers' referee)"
    )
    assert row.to_dict()["agree_with_packets"] == [ROUNDS]


def test_the_packet_cell_is_still_judged_against_the_reference():
    # packets 31 against the closed form 18: +72 % > 35 %; the round model's 31 equals the
    # packets' but the row differs, by the packet cell alone
    row = _row(CLOSED_FORM, 18.0, 31.0, 31.0, 19.0)
    assert row.agree_with_packets == (ROUNDS,)
    assert row.failures == (PACKET,)
    assert row.verdict.startswith("DIFFERS: packet sim +72 % (named reason)")


def test_a_fluid_cell_far_from_both_referees_is_flagged():
    # ODE 61: +165 % from 23 and -12.9 % from the packets' 70 (inside: agrees with them);
    # round model 49: +113 % from 23, -30 % from 70 (inside ±35 %); ODE 93 against 70: +33 %
    assert _row(CLOSED_FORM, 23.0, 70.0, 49.0, 61.0).agree_with_packets == (ROUNDS, ODE)
    # ODE 100 is +43 % from 70 and +335 % from 23: flagged
    row = _row(CLOSED_FORM, 23.0, 70.0, 49.0, 100.0)
    assert ODE in row.failures and ROUNDS not in row.failures


def test_a_factor_tolerance_is_applied_to_the_packet_cell_as_to_the_reference():
    # exit windows: closed form 22.78, packets 31.5 (x1.38), ODE 34.42: x1.51 of the closed
    # form (outside x1.5), x1.09 of the packets
    row = _row(CLOSED_FORM, 22.78, 31.5, 22.78, 34.42, tol=X15)
    assert row.agree_with_packets == (ODE,)
    assert row.ok


def test_without_a_packet_cell_the_reference_alone_judges():
    row = _row(DOCUMENT, 3.0, NA("no packet run"), 2.5, 3.0, tol=Tolerance(rel=0.10))
    assert row.agree_with_packets == ()
    assert row.failures == (ROUNDS,)


def test_rows_judged_against_the_packet_simulator_are_unchanged():
    # the packets are the reference: nothing to defer to
    values = {ROUNDS: 18.0, ODE: 8.0, PACKET: 13.0}  # +38 % and -38 %
    row = Row("s", "q", "rounds", values, PACKET, REL35)
    assert row.agree_with_packets == ()
    assert row.failures == (ROUNDS, ODE)
