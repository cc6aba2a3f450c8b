"""Quick Vegas in lock-step: a large cycle that packet senders hold and fluid senders leave.

Fourteen Quick Vegas flows of one base RTT (130 ms) on 122 Mb/s (15,250 packets/s of 1,000
bytes), a buffer far above the BDP, and a constant-bit-rate source taking 30 % of the link
for 2 s at 60 s. Before the pulse every engine holds the same small cycle: the flows' Δ
moves about their α–β band and the queue stays between about 20 and 70 packets. The pulse
pushes the flows far below the link (their windows sum to 1,200-1,500 packets against a
BDP of 1,982); when it ends, each flow's Δ is 0 for several rounds and Quick Vegas's eq (3)
adds (β − Δ) × succ a round with succ growing, so the windows overshoot and eq (4) takes
them back, the queue swinging from 0 to about 300 packets (the Quick Vegas paper, §3.2.2).

The fluid engines leave that cycle within about 4 s and return to the small one. The
deterministic packet senders keep it to the end of the run: their ACK-clocked windows
cross the bottleneck as trains, one after another, so the flows' rounds stay staggered by
a train's length (about 10 ms here) round after round in a pattern that repeats exactly.
*Switched off* by a per-packet send jitter far below a flow's share of the link
(``send_overhead_s`` = 0.5 × N/μ, 0.46 ms: a uniform wait of up to 0.46 ms before each
data packet, where the flow's share needs 0.92 ms a packet): the packets leave the large
cycle as the fluid engines do. Vegas's ±1 moves do not start the cycle (its packet queue
returns to its level after the same pulse). docs/fluid-promises.md, "Quick Vegas in
lock-step".

The test asserts a change of cycle, not agreement: the queue's 95th percentile in the
last 20 s against the same engine's before the pulse (the small cycle's top is 70
packets in every engine), and whether the queue empties once a cycle."""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios.topology import rtt_dumbbell

N_FLOWS = 14
RATE_BPS = 122e6
PACKET_BYTES = 1000
MU_PPS = RATE_BPS / (8 * PACKET_BYTES)
#: the send jitter that breaks the lock-step, s: half a flow's share of a packet time
JITTER_S = 0.5 * N_FLOWS / MU_PPS
BEFORE = (40.0, 60.0)
AFTER = (70.0, 90.0)


def _queue_percentiles(res: tcpfluid.Result, span: tuple[float, float]) -> tuple[float, float]:
    t = np.asarray(res.time_s)
    q = np.asarray(res.queue_pkts)
    m = (t > span[0]) & (t < span[1])
    return float(np.percentile(q[m], 5)), float(np.percentile(q[m], 95))


def _runs(law: str) -> dict[str, dict[str, tuple[float, float]]]:
    sc = rtt_dumbbell(
        RATE_BPS, [0.13] * N_FLOWS, [law] * N_FLOWS, duration_s=90.0, buffer_pkts=14900,
        packet_size_bytes=PACKET_BYTES, name="lockstep", cbr=(0.3 * RATE_BPS, 60.0, 62.0),
    )  # fmt: skip
    runs = {
        "packet": tcpfluid.simulate(sc, "packet"),
        "packet, jittered": tcpfluid.simulate(sc, "packet", send_overhead_s=JITTER_S),
        "rounds": tcpfluid.simulate(sc, "rounds"),
        "hybrid": tcpfluid.simulate(sc, "hybrid"),
    }
    return {
        k: {"before": _queue_percentiles(r, BEFORE), "after": _queue_percentiles(r, AFTER)}
        for k, r in runs.items()
    }


@pytest.fixture(scope="module")
def quick() -> dict[str, dict[str, tuple[float, float]]]:
    return _runs("quick-vegas")


def test_every_engine_holds_the_same_small_cycle_before_the_pulse(quick: dict) -> None:
    tops = {k: v["before"][1] for k, v in quick.items()}
    # the same small cycle: each top within 10 % of the packet run's (the hold-out's
    # tolerance on a queue-sized quantity, windows and queues ±10 %)
    for top in tops.values():
        assert abs(top - tops["packet"]) <= 0.10 * tops["packet"], tops


def test_packet_senders_keep_the_large_cycle_after_the_pulse(quick: dict) -> None:
    low, top = quick["packet"]["after"]
    before_top = quick["packet"]["before"][1]
    # a new cycle: its top several times the small cycle's, and the queue empties
    assert top > 3.0 * before_top, (top, before_top)
    assert low <= 2.0, low


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "packet, jittered"])
def test_fluid_and_jittered_senders_return_to_the_small_cycle(quick: dict, engine: str) -> None:
    low, top = quick[engine]["after"]
    before_low, before_top = quick[engine]["before"]
    # back on the cycle they held before: its top within 10 % of their own before the
    # pulse, and the queue does not empty
    assert abs(top - before_top) <= 0.10 * before_top, (engine, top, before_top)
    assert low >= 0.5 * before_low, (engine, low, before_low)
    assert top < 0.5 * quick["packet"]["after"][1]


def test_vegas_does_not_start_the_cycle() -> None:
    vegas = _runs("vegas")
    for engine, v in vegas.items():
        assert v["after"][1] <= 1.25 * v["before"][1], (engine, v)
        assert v["after"][0] >= 0.5 * v["before"][0], (engine, v)
