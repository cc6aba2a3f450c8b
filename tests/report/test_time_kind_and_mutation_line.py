"""A time judged against a document's printed number is of kind ``document time`` (±10 % or
0.2 s), whichever section makes the row; the header's mutation score says how many of the
planted faults were run."""

from __future__ import annotations

import pytest

from tcpfluid.report import Row
from tcpfluid.report._writer import mutation_line

DOCUMENT, PACKET, CLOSED_FORM = "document", "packet sim", "closed form"


def test_a_time_against_a_document_is_a_document_time() -> None:
    with pytest.raises(ValueError, match="'document time', not 'time'"):
        Row("Vegas, five flows", "time to balance", "s", "time", {DOCUMENT: 5.0}, DOCUMENT)
    with pytest.raises(ValueError, match="'time', not 'document time'"):
        Row("Vegas", "t", "s", "document time", {CLOSED_FORM: 5.0}, CLOSED_FORM)
    # 4.3 s against the document's 5.0 s: -14 %, outside ±10 % (4.5..5.5 s), inside ±25 %
    row = Row("Vegas", "t", "s", "document time", {DOCUMENT: 5.0, PACKET: 4.3}, DOCUMENT)
    assert row.verdict == "DIFFERS: packet sim -14 %"


def test_a_partial_mutation_run_says_how_many_faults_were_planted() -> None:
    # benchmarks/mutations.py --only ack-size: one fault of the eight planted, caught
    score = {"measured_at": "2026-12-04 21:22 UTC", "commit": "abc", "mode": "quick"}
    one = [{"name": "ack-size", "caught": True}]
    line = mutation_line({**score, "planted": 8, "faults": one})
    assert line.startswith(
        "Mutation score: 1 of 1 deliberate faults caught, 1 run of the 8 planted"
    )
    # a score file without the count: said so, not taken as every fault
    old = mutation_line({**score, "faults": one})
    assert "1 run; how many are planted was not recorded" in old
