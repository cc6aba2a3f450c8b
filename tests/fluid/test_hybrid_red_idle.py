"""RED's averaged queue decays while the link idles (Floyd and Jacobson 1993, §4: after an
idle period of m packet times the average is (1 − w_q)^m of what it was), in the hybrid
model as in the packet gateway and the round model.

Without the decay a loss-based flow behind RED was shut out for good: its slow-start
overshoot left the average above max_th, every packet it sent was dropped, nothing
arrived to lower the average, and one Reno flow on 10 Mb/s carried 0.9 % of the link
(the packet simulator: 85 %)."""

from __future__ import annotations

import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import FlowSpec, Link, Scenario


def _behind_red(algorithm: str, delay_s: float) -> Scenario:
    red = {"min_th": 10, "max_th": 30, "max_p": 0.1, "w_q": 0.002}
    links = (
        Link("b", 10e6, 0.01, buffer_pkts=100, discipline="red", red=red),
        Link("ack", 10e6, delay_s),
        Link("access", 1e9, delay_s),
    )
    flow = FlowSpec("f", ("access", "b"), ("ack",), algorithm=algorithm)
    return Scenario("red-idle", links, (flow,), duration_s=30.0)


@pytest.mark.parametrize(
    ("algorithm", "delay_s"), [("reno", 0.005), ("reno", 0.015), ("fast", 0.04)]
)
def test_a_flow_behind_red_is_not_shut_out(algorithm, delay_s):
    sc = _behind_red(algorithm, delay_s)
    packets = simulate(sc, "packet").summary.utilization
    hybrid = simulate(sc, "hybrid").summary.utilization
    # the hold-out's utilization tolerance: 10 % of the packet value
    assert hybrid == pytest.approx(packets, rel=0.10)
