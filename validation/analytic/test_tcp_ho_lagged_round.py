"""TCP-Ho's conspicuous round against the packet simulator.

The TCP-Ho paper's analysis (eq. 4 with the bottleneck queue, erratum E8) ends the ramp at
the first even round k with W_{k-2} >= μd: the round's own RTTs. An ACK-clocked sender
decides on the RTTs of the packets it sent a round earlier, so its ramp ends at the first
even k with W_{k-3} >= μd (``conspicuous_round(..., feedback_rounds=1)``, derived in
SymPy), two rounds later at about half of all μd. ``predict("tcp-ho", ...)`` uses it."""

from __future__ import annotations

import pytest

from tcpfluid import Path, simulate
from tcpfluid.analytic import conspicuous_round, predict


@pytest.mark.parametrize("bdp", [8.0, 30.0, 40.0, 200.0, 300.0, 625.0])
def test_the_packets_end_the_ramp_a_round_late(bdp):
    path = Path.from_bdp(bdp, 0.1)
    lagged = int(conspicuous_round("tcp-ho", bdp, feedback_rounds=1))
    flow = simulate(path.scenario("tcp-ho", 0.1 * (lagged + 30)), "packet").summary.flows[0]
    # the summary's exit round is the round after the ramp's last (docs/analytic.md)
    assert flow.ss_exit_round - 1 == lagged
    assert predict("tcp-ho", path, round_map=False).rounds_to_target == lagged
    if bdp != 625.0:  # 625: W_51 = 627 >= μd, both forms give 54
        assert lagged == conspicuous_round("tcp-ho", bdp) + 2
