"""A flow's first round in the hybrid model: it sends the flow's first window without
growth (no ACK of the flow's own returns before its first packet's ACK ends the round), so
the window recorded at the end of round 0 is the initial window, as the packet
simulator's round record has it. Independent route: the packet simulator's senders, which
add a law's increment only per ACK that arrives.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import build_scenario


@pytest.mark.parametrize("alg", ["quick-vegas", "reno", "vegas"])
def test_first_round_sends_the_initial_window_as_the_packet_sender(alg: str) -> None:
    # 5 Mb/s x 100 ms, no cross traffic: the first rounds stay below the pipe. Before the
    # laws' first action stopped growing, the hybrid's Quick Vegas and Reno grew on their
    # fluid ACKs before the first boundary: 2.124 and 2.248 packets at the end of round 0
    # (then 3.124, 4.248 at the end of round 1), against the packets' 2 and 3, 4.
    sc = build_scenario("qv-basic", cbr="none", bandwidth="5Mbps", duration="0.3s")
    sc = sc.with_algorithm(alg)
    hy = simulate(sc, "hybrid")
    pk = simulate(sc, "packet").rounds[0]
    first = hy.rounds[0]
    assert pk.window_pkts[0] == 2.0  # the packet sender's first round: its initial window
    np.testing.assert_allclose(first.window_pkts[:2], pk.window_pkts[:2], rtol=1e-9)
    # and the window the hybrid records before that boundary never grew
    t, w = np.asarray(hy.time_s), np.asarray(hy.window_pkts)[0]
    assert np.all(w[t < first.time_s[0]] == 2.0)
