"""Two Vegas flows started together on my path share it equally, as the closed forms say."""

from __future__ import annotations

import pytest

TWO_FLOWS = {"flows": 2, "bandwidth": "155Mbps", "rtt": "80ms", "cbr": "none", "duration": "40s"}


@pytest.mark.tcpfluid_slow
def test_two_vegas_flows_share_equally(tcpfluid):
    """Jain's index of the two flows' throughputs: 1 in the closed forms, both engines agree."""
    tcpfluid.assert_matches_closed_form(
        "qv-basic",
        algorithm="vegas",
        sets=TWO_FLOWS,
        quantities=["jain_index"],
        engines=["rounds", "packet"],
        tolerance=tcpfluid.Tolerance(
            abs_tol=0.01, reason="equal alpha gives equal rates (Mo et al.)"
        ),
    )


def test_two_flows_leave_slow_start_as_one_flow_on_half_the_path(tcpfluid):
    """The round model: the second flow exits slow start like one flow on mu/2; the first,
    whose packets queue behind none of the other's slow-start growth, doubles once more
    (the packet simulator: 128 and 64 packets)."""
    one = tcpfluid.predict(
        "qv-basic", algorithm="vegas", sets={**TWO_FLOWS, "flows": 1, "bandwidth": "77.5Mbps"}
    )
    exit_alone = next(p.value for p in one if p.quantity == "ss_exit_window")
    table = tcpfluid.compare(
        "qv-basic",
        algorithm="vegas",
        sets=TWO_FLOWS,
        engines=["rounds"],
        reference="closed-form",
        quantities=["ss_exit_window"],
    )
    assert list(table["value"]) == [2 * exit_alone, exit_alone]
