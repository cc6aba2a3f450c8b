"""The round model's placed flows keep their places after slow start.

Two iTCP-Vegas flows that start together on one round clock (12.3 Mb/s × 117 ms, unlimited
buffer) leave slow start together and then ramp their windows by a growing share per round.
The ACK clock keeps the flows' order in every round's train, so the second flow's packets
queue behind the first flow's growth in the ramp as they did in slow start: it reads the
larger Δ, stops ramping first and the flows part (docs/round-model.md, "Places in the
burst"). With places in slow start only both model flows read one Δ and ramp together to
117.4 packets each.

The numbers asserted are the packet simulator's on the same dumbbell
(``tcpfluid.simulate(sc, "packet")``, each flow's ``rounds`` log): an independent route.
The live comparison, and the experiment that switches the places off in the packets, is
``validation/test_places_after_slow_start.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

#: the packet simulator's decisions in the last four ramp rounds before the flows part
#: (boundaries 2.005, 2.123, 2.241, 2.359 s): each flow's Δ, packets
PACKET_DELTA = ((1.828, 2.714, 3.254, 4.273), (2.978, 4.371, 5.405, 6.406))
#: the packets' windows in the round the flows part (2.359 s) and at their peaks, packets
PACKET_SPLIT = (96.04, 89.22)
PACKET_PEAK = (140.84, 90.22)
PACKET_SPLIT_T_S = 2.359


@pytest.fixture(scope="module")
def logs() -> tuple[object, object]:
    sc = rtt_dumbbell(12.3e6, [0.117, 0.117], ["itcp-vegas"] * 2, duration_s=2.8)
    first, second = tcpfluid.simulate(sc, "rounds").rounds
    return first, second


def _split_round(first: object, second: object) -> int:
    w0 = np.asarray(first.window_pkts)  # type: ignore[attr-defined]
    w1 = np.asarray(second.window_pkts)  # type: ignore[attr-defined]
    n = min(w0.size, w1.size)
    return int(np.flatnonzero(w0[:n] != w1[:n])[0])


def test_the_flows_part_in_the_round_the_packets_part(logs) -> None:
    """The first round whose windows differ is the packets' (one round lasts 0.118 s):
    windows within 2 % of the packets' there (the round model's windows follow its own
    ramp, 96.75 and 89.88)."""
    first, second = logs
    k = _split_round(first, second)
    assert float(first.time_s[k]) == pytest.approx(PACKET_SPLIT_T_S, abs=0.03)
    got = (float(first.window_pkts[k]), float(second.window_pkts[k]))
    assert got == pytest.approx(PACKET_SPLIT, rel=0.02)


def test_each_flow_reads_the_delta_of_its_place_in_the_ramp(logs) -> None:
    """Δ of each flow in the four rounds before the split within 10 % of the packets' (one
    Δ for both, 2.50 … 5.66, is 37 % above the first packet flow's and 16 % below the
    second's)."""
    first, second = logs
    k = _split_round(first, second)
    for log, want in zip((first, second), PACKET_DELTA, strict=True):
        got = np.asarray(log.delta_pkts)[k - 3 : k + 1]  # type: ignore[attr-defined]
        assert got == pytest.approx(np.array(want), rel=0.10)


def test_the_first_flow_ramps_on_and_the_second_stays(logs) -> None:
    """The ramp's peaks within 10 % of the packets' (133.0 and 90.9; 117.4 each with
    places in slow start only)."""
    first, second = logs
    peaks = (float(np.max(first.window_pkts)), float(np.max(second.window_pkts)))
    assert peaks == pytest.approx(PACKET_PEAK, rel=0.10)
