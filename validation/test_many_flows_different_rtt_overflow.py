"""FAST on the Quick Vegas paper's different-RTT network (``qv-different-rtt``: 60 flows of
50/100/200 ms on 1 Gb/s, a 1500-packet buffer, 200 s): who an overflow reaches.

FAST's α = 100 packets per flow needs 6000 packets of queue, so every engine is loss-driven
here (without loss the round model reaches FAST's closed form, equal rates whatever the base
RTT: tests/fluid/test_rounds_async_fast_equilibrium.py). The round model charges each
overflow to every flow in flight and every flow with a share takes a loss event: the
halvings are synchronised across the base RTTs, each flow halves as often per second, and the
rates go about as 1/RTT² (the packets': about 1/RTT). In the packets an overflow reaches a
few flows, the ones whose packets meet the full queue, and each loses a run of packets.

The switch (``overflow_in_runs=True``): the overflow in proportion to the flows' rates
(their packets arriving at the full queue); a flow whose growth of the round exceeds a
packet (FAST's increments, slow start) loses in runs of that growth (a loss event once its
share reaches it; the rest carried), the others take a loss event for any share, as in the
model. It is an experiment, not the model: the hold-out gets worse with it
(docs/round-model-unequal-rtt.md) and it gives 2.4-3.0 times the packets' loss events. The
packet run takes about 25 s of CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fairness import delivered_pkts, period_throughputs
from tcpfluid.scenarios import build_scenario

EDGES = [0.0, 50.0, 100.0, 150.0, 200.0]
#: the report's tolerance on a spread of the flows' shares (kind ``share spread``)
TOL = 0.10


def _spreads(t: Any, rates: Any, sc: Any) -> list[float]:
    """The flows' throughputs' std/mean per 50-s period (the report's quantity)."""
    t = np.asarray(t, dtype=np.float64)
    dl = delivered_pkts(t, np.asarray(rates, dtype=np.float64))
    per = period_throughputs(
        t, dl, [f.start_s for f in sc.flows], [f.stop_s for f in sc.flows], EDGES
    )
    return [float(np.std(x) / np.mean(x)) for _i, x in per]


def _scenario() -> Any:
    return build_scenario("qv-different-rtt").with_algorithm("fast")


@pytest.fixture(scope="module")
def packet_spreads() -> list[float]:
    sc = _scenario()
    res = tcpfluid.simulate(sc, "packet", seed=0, record_interval_s=0.1)  # as the report
    return _spreads(res.time_s, res.throughput_pps, sc)


def _round_model(overflow_in_runs: bool = False) -> tuple[list[float], Any]:
    sc = _scenario()
    res = tcpfluid.simulate(sc, "rounds", overflow_in_runs=overflow_in_runs)
    losses = np.asarray(res.summary.to_dict()["losses"], dtype=np.float64).reshape(3, -1)
    return _spreads(res.time_s, res.throughput_pps, sc), losses.mean(axis=1)


def test_fast_different_rtt_round_model_halves_every_flow_at_every_overflow(
    packet_spreads: list[float],
) -> None:
    """The default: the 50- and 100-ms flows take the same number of loss events (741 each
    in 200 s; packets 328 and 210) and every period's spread is above the packets' by more
    than the tolerance (0.94-0.98 against 0.54-0.69)."""
    got, losses = _round_model()
    assert losses[0] == pytest.approx(losses[1], rel=0.02)
    for g, p in zip(got, packet_spreads, strict=True):
        assert g > p + TOL


#: the periods the switch brings within the tolerance (the mechanism's scope in the report);
#: the last one stays 0.13 above the packets' since the round model keeps its placed flows'
#: places in every phase and loses a packet once at several round clocks (docs/round-model.md)
SWITCHED_IN = 3


def test_fast_different_rtt_round_model_follows_the_packets_when_an_overflow_reaches_few_flows(
    packet_spreads: list[float],
) -> None:
    """With the switch the spreads of the first three periods are within the report's 0.10
    of the packets' (0.671/0.659/0.674 against 0.61/0.69/0.60); the 150-200 s period is not
    (0.667 against 0.54), so it is outside the mechanism's scope. The 50-ms flows take more
    loss events than the 100-ms ones (780 and 483)."""
    got, losses = _round_model(overflow_in_runs=True)
    for g, p in zip(got[:SWITCHED_IN], packet_spreads[:SWITCHED_IN], strict=True):
        assert g == pytest.approx(p, abs=TOL)
    assert abs(got[SWITCHED_IN] - packet_spreads[SWITCHED_IN]) > TOL
    assert losses[0] > 1.3 * losses[1]
