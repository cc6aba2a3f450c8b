"""Checks of tcpfluid's layers on my path: 155 Mb/s bottleneck, 80 ms base RTT.

Run with ``pytest`` in a project where tcpfluid is installed: the ``tcpfluid`` fixture comes
from tcpfluid's pytest plugin (no conftest needed). Every packet-level run is made once per
test session and shared by the assertions that ask for the same scenario.
"""

from __future__ import annotations

import pytest

# my path: the Quick Vegas paper's dumbbell (qv-basic) at 155 Mb/s x 80 ms, no cross traffic,
# 60 simulated seconds (each engine run takes a few seconds at most)
MY_PATH = {"bandwidth": "155Mbps", "rtt": "80ms", "cbr": "none", "duration": "60s"}


@pytest.mark.tcpfluid_slow
def test_quick_vegas_closed_form_vs_packet_simulator(tcpfluid):
    """Quick Vegas: slow-start exit and settled window of the closed forms within 20 %."""
    tcpfluid.assert_matches_closed_form(
        "qv-basic",
        algorithm="quick-vegas",
        sets=MY_PATH,
        quantities=["ss_exit_window", "settled_window"],
        engines=["packet"],
        tolerance=tcpfluid.Tolerance(
            rel=0.20,
            reason="the closed forms count whole rounds; packets leave slow start on the "
            "first ACK that shows the queue, inside a round",
        ),
    )


@pytest.mark.tcpfluid_slow
def test_round_model_tracks_packet_simulator(tcpfluid):
    """The round model against the packet simulator on the same run (served from the cache)."""
    tcpfluid.assert_layers_agree(
        "qv-basic",
        algorithm="quick-vegas",
        sets=MY_PATH,
        quantities=["settled_window", "throughput_pps", "utilization"],
        engines=["rounds"],
        reference="packet",
        tolerance=tcpfluid.Tolerance(
            rel=0.05, reason="both settle in Quick Vegas's band mu*d + [alpha, beta]"
        ),
    )


def test_vegas_prediction_on_my_path(tcpfluid):
    """Closed-form predictions need no simulation: Vegas's window settles at mu*d + alpha."""
    rows = {p.quantity: p for p in tcpfluid.predict("qv-basic", algorithm="vegas", sets=MY_PATH)}
    mu = 155e6 / 8000  # packets/s of 1000-byte packets
    # base RTT (eq. 5 of the Quick Vegas paper): propagation plus the transmission times of a
    # 1000-byte packet and a 40-byte ACK on the bottleneck and the two 1 Gb/s access links
    d = 0.080 + (8000 + 320) / 155e6 + 2 * (8000 + 320) / 1e9
    assert rows["settled_window"].source == "closed form"
    assert rows["settled_window"].value == pytest.approx(mu * d + 2.0, rel=1e-9)
    assert rows["ss_exit_window"].value == 128  # a power of two: Vegas doubles every other round
