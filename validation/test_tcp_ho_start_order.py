"""TCP-Ho flows that start together end unequal in the packets, and their start order decides.

Three identical TCP-Ho flows (69 Mb/s × 40.1 ms, a 3161-packet buffer, a CBR of 25.67 %
of the bottleneck from 20 to 40 s, 60 s; the shape of a hold-out scenario whose packet
run ends with one flow at twice the others' throughput). With a standing queue every
split of the link is a rest point of TCP-Ho's rules, so the transient decides the split.
The switch-off experiment: the flows start one packet time apart, in every order. If
the split is set by the flows' positions in the start order (their packets' places in
the bottleneck's cycle, which sets where each flow's round boundaries fall in the queue's
swings), permuting the order permutes the per-flow throughputs exactly; if it were set
by anything tied to a flow's index, it would not move. The fluid engines, whose flows
see one queue at the same instants, stay near equal shares when the flows start apart
(docs/algorithms.md, "tcp-ho", "Start order decides the split", which also gives the
hybrid's split of flows that start together, since it reads their places in the
slow-start burst).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import Scenario, rtt_dumbbell

RATE_BPS = 69e6
RTT_S = 0.0401
#: one 1000-byte packet's service time at the bottleneck, s
PACKET_TIME_S = 8000.0 / RATE_BPS


def _scenario(order: tuple[int, ...]) -> Scenario:
    """Flow ``order[p]`` starts at ``p`` packet times."""
    starts = [0.0] * len(order)
    for pos, flow in enumerate(order):
        starts[flow] = pos * PACKET_TIME_S
    return rtt_dumbbell(
        RATE_BPS,
        [RTT_S] * 3,
        ["tcp-ho"] * 3,
        duration_s=60.0,
        buffer_pkts=3161,
        cbr=(0.2567 * RATE_BPS, 20.0, 40.0),
        start_s=starts,
    )


def _throughputs(engine: str, order: tuple[int, ...]) -> np.ndarray:
    res = simulate(_scenario(order), engine)
    return np.array([f.throughput_pps for f in res.summary.flows])


@pytest.fixture(scope="module")
def packet_runs() -> dict[tuple[int, ...], np.ndarray]:
    return {order: _throughputs("packet", order) for order in itertools.permutations(range(3))}


def test_packet_split_follows_the_start_order_exactly(packet_runs):
    first = packet_runs[(0, 1, 2)]
    for order, thr in packet_runs.items():
        # the flow started p-th gets what flow p got in the order 0, 1, 2
        expected = np.empty(3)
        expected[list(order)] = first
        np.testing.assert_allclose(thr, expected, rtol=1e-9)


def test_packet_flows_started_together_end_unequal(packet_runs):
    share = packet_runs[(0, 1, 2)] / packet_runs[(0, 1, 2)].sum()
    # identical flows: the fair share is 1/3 (the TCP-Ho paper's Table 5: Jain 0.999995
    # for five flows); the flow started first ends with about half of the link
    assert share.max() > 0.45
    assert share.min() < 0.27


@pytest.mark.xfail(
    strict=True,
    reason="the fluid engines do not model where each flow's round boundaries fall in "
    "the bottleneck's cycle: with the order 0, 1, 2 their largest share is 0.349 (round "
    "model) and 0.339 (hybrid), the packets' 0.487",
)
@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_fluid_engines_follow_the_packets_split(engine, packet_runs):
    thr = _throughputs(engine, (0, 1, 2))
    share = thr / thr.sum()
    ref = packet_runs[(0, 1, 2)] / packet_runs[(0, 1, 2)].sum()
    np.testing.assert_allclose(share, ref, atol=0.05)
