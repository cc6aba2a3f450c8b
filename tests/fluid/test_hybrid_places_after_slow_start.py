"""The hybrid model's placed flows keep their places after slow start, in the rounds in
which the queue empties, until they lose.

Quick Vegas flows that start together on one round clock on 17.9 Mb/s × 110 ms (unlimited
buffer: no loss) leave slow start apart (their places in the slow-start burst) and then
grow by eq. (3), many packets a round. The ACK clock keeps the flows' order in every
round's train, so in a round whose queue empties a later flow's packets queue behind the
growth of the flows ahead of it as they did in slow start: the smaller flows read the
larger Δ, the flows stay apart through the ramp and then drift together one packet a
round inside their band (docs/ode-model.md, "Places after slow start (kept)"). With
places in slow start only, the smaller flows read the common queue times their smaller
windows, grow faster, catch the first one and settle with it: times to
equilibrium of 3.89 s (two flows) and 2.55 s (three) against the packets' 10.0 s and
9.0 s.

The numbers asserted are the packet simulator's on the same dumbbell
(``tcpfluid.simulate(sc, "packet")``): an independent route. The tolerances are the
hold-out benchmark's (``benchmarks/holdout.py``, ``TOLERANCES``).
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

#: the path's round-trip time, s
RTT_S = 0.11
#: the time the windows are compared at: after the flows' ramp, before they drift together, s
AFTER_RAMP_S = 3.0


def _runs(flows: int) -> tuple[tcpfluid.Result, tcpfluid.Result]:
    sc = rtt_dumbbell(17.9e6, [RTT_S] * flows, ["quick-vegas"] * flows, duration_s=20.0)
    return tcpfluid.simulate(sc, "packet"), tcpfluid.simulate(sc, "hybrid")


def _windows_at(res: tcpfluid.Result, t_s: float) -> np.ndarray:
    """Each flow's window in effect at ``t_s`` (its round log's last decision before)."""
    out = []
    for log in res.rounds:
        k = int(np.searchsorted(np.asarray(log.time_s), t_s, side="right")) - 1
        out.append(float(np.asarray(log.next_window_pkts)[k]))
    return np.array(out)


def test_three_flows_stay_apart_through_the_ramp_as_in_the_packets() -> None:
    """Each of three flows' windows at 3 s within 10 % of its packet flow's (the hold-out's
    tolerance for a settled window): measured 106.0, 82.5 and 70.3 packets against the
    packets' 110.3, 83.3 and 74.9; with places in slow start only 85.6, 85.4 and 85.4."""
    packet, hybrid = _runs(3)
    want = _windows_at(packet, AFTER_RAMP_S)
    assert _windows_at(hybrid, AFTER_RAMP_S) == pytest.approx(want, rel=0.10)


@pytest.mark.xfail(
    strict=True,
    reason="measured: 7.30 s against the packets' 10.04 s (7.98 s before the round-ending"
    " step's ACKs beyond the round's first packet grew the next round, docs/ode-model.md)",
)
def test_two_flows_time_to_equilibrium_is_the_packets() -> None:
    """Two flows: the time until both have settled within the hold-out's tolerance of the
    packets' (25 % or 3 RTTs, the larger: the band's edge and a round's granularity):
    measured 7.98 s against the packets' 10.04 s (3.89 s with places in slow start only).
    How long the flows take to drift together once apart is the law's own: with three
    flows the model settles at 12.2 s against the packets' 9.0 s (the round model 12.3 s),
    with four at 7.1 s against 11.1 s."""
    packet, hybrid = _runs(2)
    want = packet.summary.all_settled_time_s
    got = hybrid.summary.all_settled_time_s
    assert want is not None and got is not None
    assert abs(got - want) <= max(0.25 * want, 3.0 * RTT_S)
