"""A flow's first round in the round model: it ends with the ACK of the flow's first packet,
so no ACK of its own returns before it ends and it sends its first window without growth,
as a packet sender does. The round model's record (``time_s[k]`` the end of round k,
``window_pkts[k]`` the window then) then lies at the packet simulator's round records'
times (``round_t_s``, ``round_cwnd_pkts``: the window at the end of each round). Independent
route: the packet simulator's senders, which add a law's increment only per ACK that
arrives.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import build_scenario


@pytest.mark.parametrize(
    ("alg", "windows"),
    [
        # one packet per two ACKs of the window's whole packets from the second round
        ("quick-vegas", [2.0, 3.0, 4.5, 6.5, 9.5, 14.0]),
        # one packet per ACK from the second round
        ("reno", [2.0, 4.0, 8.0, 16.0, 32.0, 64.0]),
        # doubling every other round; its first action never grew (the control)
        ("vegas", [2.0, 4.0, 4.0, 8.0, 8.0, 16.0]),
    ],
)
def test_slow_start_windows_are_the_packet_senders_at_the_same_round_ends(
    alg: str, windows: list[float]
) -> None:
    # 5 Mb/s x 100 ms, no cross traffic: the first six rounds stay below the pipe (62.5
    # packets), each lasts d. Before the first round kept its window, Quick Vegas's and
    # Reno's round model recorded the packets' window one round early (3, 4.5, 6.5, ...
    # and 4, 8, 16, ... at 0.1, 0.2, 0.3 s).
    sc = build_scenario("qv-basic", cbr="none", bandwidth="5Mbps", duration="0.7s")
    sc = sc.with_algorithm(alg)
    tr = simulate(sc, "rounds").native
    pk = simulate(sc, "packet").rounds[0]
    n = len(windows)
    np.testing.assert_allclose(pk.window_pkts[:n], windows)
    np.testing.assert_allclose(tr.window_pkts[:n, 0, 0], pk.window_pkts[:n])
    # the same round ends: d each (the packets' within a packet's transmission time)
    np.testing.assert_allclose(tr.time_s[:n, 0], pk.time_s[:n], atol=2e-3)
