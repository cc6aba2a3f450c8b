"""One scenario of Vegas and Reno flows with different base RTTs, on every engine.

The thesis's two-flow network (Tsang, "A Simulation Study on the Fairness of TCP Vegas",
base RTTs 13.2 and 71.2 ms) with Vegas on one connection and Reno on the other, a
20-packet buffer, 60 s. Every engine runs the mix and returns one summary value per flow;
the fluid engines are judged against the packet simulator (the referee) flow by flow.

The tolerance, 10 % of the link rate (18.75 of 187.5 packets/s) on each flow's throughput:
Reno's loss cycles (20-60 in the run) set the Vegas flow's residual share, and the fluid
engines share an overflow among the flows in flight where in packets the Reno flow, whose
window fills the queue, takes most drops. Measured: round model within 2 % of the link,
hybrid model within 8 %.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.mix import with_mix

pytestmark = pytest.mark.validation


@pytest.fixture(scope="module", params=["vegas:1,reno:1", "reno:1,vegas:1"])
def mixed_run(request: pytest.FixtureRequest) -> tuple[object, np.ndarray, float]:
    sc = with_mix(build_scenario("thesis-two-flow", duration="60s", buffer=20), request.param)
    assert sorted(f.algorithm for f in sc.flows) == ["reno", "vegas"]
    assert len({round(f_rtt, 6) for f_rtt in (sc.base_rtt_s(f) for f in sc.flows)}) == 2
    packet = tcpfluid.simulate(sc, "packet")
    ref = np.asarray(packet.summary.to_dict()["throughput_pps"], dtype=float)
    return sc, ref, float(sc.fluid_view().path.mu)


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "ode"])
def test_each_engine_gives_each_flow_the_packet_simulators_share(
    mixed_run: tuple[object, np.ndarray, float], engine: str
) -> None:
    sc, ref, mu = mixed_run
    res = tcpfluid.simulate(sc, engine)  # type: ignore[arg-type]
    got = np.asarray(res.summary.to_dict()["throughput_pps"], dtype=float)
    assert got.shape == ref.shape == (2,)
    np.testing.assert_allclose(got, ref, rtol=0, atol=0.1 * mu)
    # the Reno flow takes the larger share in every engine, as in packets
    reno = [f.algorithm for f in sc.flows].index("reno")  # type: ignore[attr-defined]
    assert np.argmax(got) == np.argmax(ref) == reno
    assert res.summary.to_dict()["utilization"] <= 1.0 + 1e-12
