"""``Result.window_pkts`` is one field of one result type for every engine: a flow has no
window (0) before it starts and from the time it stops, whichever engine ran it. (The
round model's rows are rounds: a row's window is the one in effect during the round
ending at its time, so its rows are not samples at their times; its flows' windows are 0
in the rounds outside their active period by construction.)"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.engines import Ode
from tcpfluid.scenarios.files import scenario_from_toml

#: flow "a" runs alone from 0 s; flow "b" joins at 1 s and leaves at 3 s of a 4-s run
TWO = """name = "two"
duration = "4s"
[[link]]
name = "bottleneck"
rate = "10Mbps"
delay = "10ms"
buffer = 100
[[flow]]
name = "a"
algorithm = "vegas"
rtt = "40ms"
[[flow]]
name = "b"
algorithm = "vegas"
rtt = "40ms"
start = "1s"
stop = "3s"
"""


@pytest.mark.parametrize("engine", ["hybrid", "packet", "ode-classical"])
def test_no_window_outside_the_active_period(engine: str) -> None:
    sc = scenario_from_toml(TWO)
    res = tcpfluid.simulate(sc, Ode() if engine == "ode-classical" else engine)
    t, w = res.time_s, res.window_pkts[list(res.flow_names).index("b")]
    outside = (t < 1.0) | (t >= 3.0)
    assert outside.any() and (~outside).any()
    np.testing.assert_array_equal(w[outside], 0.0)
    # while active it has one: at least 1 packet (every law's floor)
    assert np.all(w[(t >= 1.0) & (t < 3.0)] >= 1.0)
