"""TCP-Ho's first window: Table 4 of the TCP-Ho paper starts at 2 packets, ns-2's TCP agents
(which ran the paper's simulations) at 1.

Unlike Vegas, whose slow start doubles the window every other round (from one packet it
reaches μd two rounds later), TCP-Ho's ramp adds an amount in packets: from one packet its
first increase lands on Table 4's window of round 2, and every later round is the same. So
the paper's ns-2 start moves neither the ramp nor the phase of a later bandwidth change in
the TCP-Ho rows; the engines start from 2 packets as Table 4 does.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms import get_law
from tcpfluid.scenarios import build_scenario


def _round_windows(engine: str, initial_window: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-round (end time, window) of a TCP-Ho flow on ho-basic without CBR, 4 s."""
    sc = build_scenario("ho-basic", duration="4s", cbr="none").with_algorithm(
        "tcp-ho", initial_window=initial_window
    )
    res = simulate(sc, engine)
    if engine == "rounds":
        return np.asarray(res.time_s), np.asarray(res.window_pkts)[0]
    f = res.native.flows[0]
    return np.asarray(f.round_t_s), np.asarray(f.round_cwnd_pkts)


@pytest.mark.parametrize("engine", ["rounds", "packet"])
def test_tcp_ho_from_one_packet_joins_table_4_at_the_second_round(engine):
    t1, w1 = _round_windows(engine, 1.0)
    t2, w2 = _round_windows(engine, 2.0)
    assert w1[0] == 1.0 and w2[0] == 2.0
    n = min(w1.size, w2.size, 35)  # 3.5 s: the ramp is at ~290 packets, far below μd
    assert n >= 30
    # from the second round on the windows and the round boundaries are the same
    np.testing.assert_allclose(w1[1:n], w2[1:n], rtol=0, atol=1e-9)
    np.testing.assert_allclose(t1[1:n], t2[1:n], rtol=0, atol=1e-3)
    # and the ramp is Table 4's growing amounts (3, 4, 6, 8, 11, ...), not a standstill
    assert w1[n - 1] > 250.0


def test_the_initial_window_is_a_parameter_and_bad_values_are_refused():
    assert get_law("tcp-ho", initial_window=1).params()["initial_window"] == 1.0
    assert get_law("tcp-ho").initial_window == 2.0
    assert get_law("tcp-ho").params()["initial_window"] == 2.0  # Table 4's start: the default
    with pytest.raises(ValueError, match=r"initial_window must be in \[1.0, inf\), got 0.5"):
        get_law("tcp-ho", initial_window=0.5)
