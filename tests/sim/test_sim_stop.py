"""A flow's stop: its application gives no new data from ``stop_s`` on, its sender still
repairs what it sent (docs/simulator.md, "Flows").

One Reno flow on 10 Mb/s x 60 ms with a 50-packet buffer, stopped at 0.52 s in its first
slow-start overshoot: about a hundred of the packets it sent by then are dropped, and the
losses are found (duplicate ACKs, then a timeout) after the stop. A Vegas flow overflows a
10-packet buffer there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcpfluid import load_scenario
from tcpfluid.scenarios import Scenario
from tcpfluid.sim import simulate_packets

STOP_S = 0.52
#: the one Reno flow above, 10 s
SCENARIO = Path(__file__).resolve().parents[2] / "examples/scenarios/one-reno-overshoot.toml"


def stopping_reno(algorithm: str = "reno", **overrides: object) -> Scenario:
    """The scenario above (``overrides`` as :func:`tcpfluid.load_scenario`'s) with its flow
    running ``algorithm``."""
    return load_scenario(SCENARIO, **overrides).with_algorithm(algorithm)


@pytest.mark.parametrize(
    ("algorithm", "fast_recovery", "buffer"),
    [
        ("reno", "newreno", 50),
        ("reno", "reno", 50),
        ("reno", "reno-exit", 50),
        ("reno", "ns2-fast", 50),
        ("vegas", "ns2-vegas", 10),
    ],
)
def test_a_stopped_flow_delivers_every_packet_it_sent_before_its_stop(
    algorithm: str, fast_recovery: str, buffer: int
) -> None:
    """The packets the flow sent before its stop are those a run ending at the stop sent
    (the same events up to then: its sent packets less its retransmissions); the stopped
    flow's receiver has all of them in order at the end, and no other: every drop was
    repaired, nothing new was sent after the stop, nothing is left in flight."""
    buf = {"link.bn.buffer": buffer}
    upto = simulate_packets(
        stopping_reno(algorithm, duration=f"{STOP_S}s", **buf),
        fast_recovery=fast_recovery,
    )
    before = upto.flows[0].sent_pkts - upto.flows[0].retransmissions
    res = simulate_packets(
        stopping_reno(algorithm, **{"flow.1.stop": f"{STOP_S}s"}, **buf),
        fast_recovery=fast_recovery,
    )
    fl = res.flows[0]
    data = res.conservation["data"]
    assert data["dropped"] > 0  # the stop comes amid losses
    assert fl.sent_pkts - fl.retransmissions == before
    assert fl.delivered_pkts == before
    # every data packet sent reached the receiver or was dropped (a needless retransmission
    # reaches it twice)
    assert data["in_flight"] == 0
    assert data["sent"] == data["delivered"] + data["dropped"]
    assert fl.retransmissions >= data["dropped"]


def test_a_flow_with_nothing_lost_sends_nothing_after_its_stop() -> None:
    """Stopped at 0.3 s, before its first overflow, the flow's sends are those of a run that
    ends at the stop, all delivered once; no retransmission, no loss."""
    upto = simulate_packets(stopping_reno(duration="0.3s"))
    res = simulate_packets(stopping_reno(**{"flow.1.stop": "0.3s"}))
    fl = res.flows[0]
    assert upto.flows[0].retransmissions == 0
    assert fl.sent_pkts == fl.delivered_pkts == upto.flows[0].sent_pkts
    assert fl.retransmissions == 0 and fl.loss_t_s.size == 0
