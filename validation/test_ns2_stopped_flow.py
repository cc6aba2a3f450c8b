"""ns-2.35 as the referee of a flow's stop: ``benchmarks/ns2_referee.py`` writes a flow's
``stop_s`` as ``$ftp stop`` (the application gives no new data; the TCP agent still
retransmits until all it sent is acknowledged), the packet simulator's meaning of a stop
(docs/simulator.md, "Flows").

One Reno flow on 10 Mb/s x 60 ms with a 50-packet buffer, stopped at 0.52 s in its first
slow-start overshoot: ns-2.35 (Debian's ``ns2`` package; not a dependency of tcpfluid)
acknowledges all 456 packets it sent, 45.6 packets/s over 0-10 s, measured with the
script's ``ns2_script``/``run_ns2`` as below.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tcpfluid import load_scenario
from tcpfluid.scenarios import Scenario

#: ns-2.35: the stopped flow's goodput over 0-10 s, packets/s (456 packets)
NS2_STOPPED_RENO_PPS = 45.6
WINDOW_S = (0.0, 10.0)
#: the one Reno flow above (stopped below), the network ns-2's value was measured on
EXAMPLE = Path(__file__).resolve().parents[1] / "examples/scenarios/one-reno-overshoot.toml"


@pytest.fixture(scope="module")
def referee(ns3_script: Callable[[str], ModuleType]) -> ModuleType:
    return ns3_script("ns2_referee")


def _scenario() -> Scenario:
    return load_scenario(EXAMPLE, **{"flow.1.stop": "0.52s"})


def test_a_stopped_reno_flow_delivers_what_ns2s_delivers(
    referee: ModuleType,
) -> None:
    """The packet simulator's goodput within 5 % of ns-2's: both retransmit every packet
    lost before the stop; 5 %, half the report's tolerance on throughputs, for the
    simulators' different timers (ns-2's ticks and once-a-window RTT samples, the packet
    simulator's per-ACK ones: docs/simulator.md "What differs from ns-2"), which could move
    the end of the repairs past the window's end. The ns-2 part is skipped without ``ns``."""
    sc = _scenario()
    assert sc.flows[0].stop_s == 0.52
    assert referee.packet_goodput(sc, WINDOW_S)[0] == pytest.approx(NS2_STOPPED_RENO_PPS, rel=0.05)
    ns = referee.find_ns()
    if ns is None:
        pytest.skip("ns-2 is not installed (apt-get install ns2)")
    script = referee.ns2_script(sc, window_s=WINDOW_S)
    assert '"$ftp(0) stop"' in script
    got = referee.run_ns2(script, ns, WINDOW_S)
    assert got["goodput_pps"][0] == pytest.approx(NS2_STOPPED_RENO_PPS, rel=1e-3)
