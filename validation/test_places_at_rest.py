"""Flows on one round clock keep their places in the train at rest, and the packets' offsets cancel.

Nine iTCP-Vegas flows started together, 120 Mb/s × 48 ms, a 3025-packet buffer (hold-out
seed 87, scenario 12's path; 30 s). Their packets cross the bottleneck in the flows' order
in every round (docs/round-model.md, "Places in the burst"), so a flow later in the order
reads the queue the flows ahead of it added in the round. In the packets that offset
follows the queue's direction: over the rounds after which the flows grow the last flow's
mean RTT is 3.4 packets of queue above the flows' mean, over those after which they cut it
is 6.0 below, and over the whole cycle every flow's is within 0.07 packet of the mean: the
packet flows rest at 81.9–83.8 packets each. The round model reads the offsets of the
round's growth only (a cut at the round's start lowers the queue for every flow alike), so
its offsets keep one sign over the cycle (from its Δ: the last flow's mean RTT 4.1 packets
above the mean, the first flow's 4.2 below) and its flows rest in their order, 94.7 down to
77.2 packets.

The experiment switches the places off in the round model (no flow placed): its flows
rest together, each within 10 % of every packet flow's window (87.0 packets). The round
model with its places is a strict expected failure (docs/round-model.md, "Places at
rest").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid import _rounds_engine
from tcpfluid.scenarios import rtt_dumbbell

N, MU_BPS, RTT_S, BUFFER_PKTS, DURATION_S = 9, 120e6, 0.048, 3025, 30.0
PKTS_PER_S = MU_BPS / 8000.0  # 1000-byte packets


def _run(engine: str) -> Any:
    sc = rtt_dumbbell(
        MU_BPS, [RTT_S] * N, ["itcp-vegas"] * N, buffer_pkts=BUFFER_PKTS, duration_s=DURATION_S
    )
    return tcpfluid.simulate(sc, engine)


def _settled(result: Any) -> np.ndarray:
    return np.array([f.settled_window_pkts for f in result.summary.flows], dtype=float)


def _offsets(result: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each flow's mean RTT above the flows' mean, packets of queue, over the second half's
    rounds (on the first flow's boundaries, the last 0.5 s left out): after which the
    flows' windows grow in sum, after which they fall, and all."""
    logs = result.rounds
    t0 = logs[0].time_s
    grid = t0[(t0 > DURATION_S / 2.0) & (t0 < DURATION_S - 0.5)]  # not the run's cut round
    rtt, change = [], []
    for log in logs:
        last = len(log.time_s) - 1
        k = np.clip(np.searchsorted(log.time_s, grid), 0, last)
        rtt.append(log.rtt_mean_s[k])
        change.append(log.window_pkts[np.minimum(k + 1, last)] - log.window_pkts[k])
    dev = (np.array(rtt) - np.mean(rtt, axis=0)) * PKTS_PER_S
    net = np.sum(change, axis=0)
    return dev[:, net > 0.5].mean(axis=1), dev[:, net < -0.5].mean(axis=1), dev.mean(axis=1)


@pytest.fixture(scope="module")
def packets() -> Any:
    return _run("packet")


def test_packet_offsets_follow_the_queue_and_cancel(packets: Any) -> None:
    """The last flow above the mean where the flows grow (3.4 packets), below where they
    cut (−6.0), within 0.25 packet over the cycle (0.07); the flows rest within 5 % of each
    other (81.9–83.8 packets)."""
    grow, cut, every = _offsets(packets)
    assert grow[-1] > 1.0 and cut[-1] < -1.0
    assert np.max(np.abs(every)) < 0.25
    w = _settled(packets)
    assert w.max() < 1.05 * w.min()


def test_round_model_without_places_rests_together(
    packets: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Switched off (no flow placed): the round model's flows rest together, each within
    the hold-out's 10 % of every packet flow's window (87.0 packets against 81.9–83.8)."""
    monkeypatch.setattr(
        _rounds_engine, "placed_flows", lambda s, d, w, g: (np.zeros(len(s), dtype=bool), 1.0)
    )
    w = _settled(_run("rounds"))
    assert w == pytest.approx(np.full(N, w[0]), rel=1e-6)
    p = _settled(packets)
    assert w[0] == pytest.approx(p, rel=0.10)


@pytest.mark.xfail(
    strict=True,
    reason="the round model's places read the round's growth only, so at rest its flows keep "
    "their order (94.7 down to 77.2 packets against the packets' 81.9-83.8)",
)
def test_round_model_rests_as_the_packets(packets: Any) -> None:
    """Each round-model flow's settled window within 10 % of the packet flow's."""
    assert _settled(_run("rounds")) == pytest.approx(_settled(packets), rel=0.10)
