"""A flow whose stop time is at or after the run's end runs to the end: every engine's
summary reports it as a flow without a stop (``stop_s`` inf, ``None`` in JSON), the
documented meaning of ``None``; a stop inside the run is reported as given."""

from __future__ import annotations

import math

import pytest

import tcpfluid
from tcpfluid.engines import Ode
from tcpfluid.scenarios.files import scenario_from_toml

#: a 3-s run: "early" stops at 2 s, "late" at 5 s (after the end), "never" has no stop
THREE = """name = "stops"
duration = "3s"
[[link]]
name = "bottleneck"
rate = "10Mbps"
delay = "10ms"
[[flow]]
name = "early"
algorithm = "vegas"
rtt = "40ms"
stop = "2s"
[[flow]]
name = "late"
algorithm = "vegas"
rtt = "40ms"
stop = "5s"
[[flow]]
name = "never"
algorithm = "vegas"
rtt = "40ms"
"""


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "packet", "ode-classical"])
def test_a_stop_after_the_end_is_reported_as_running_to_the_end(engine: str) -> None:
    sc = scenario_from_toml(THREE)
    s = tcpfluid.simulate(sc, Ode() if engine == "ode-classical" else engine).summary
    assert [f.stop_s for f in s.flows] == [2.0, math.inf, math.inf]
    assert s.to_dict()["flow_stop_s"] == [2.0, None, None]
    # and the run judges the same flows as with no stop at all
    sc2 = scenario_from_toml(THREE.replace('stop = "5s"\n', ""))
    s2 = tcpfluid.simulate(sc2, Ode() if engine == "ode-classical" else engine).summary
    assert s.to_dict()["throughput_pps"] == s2.to_dict()["throughput_pps"]
