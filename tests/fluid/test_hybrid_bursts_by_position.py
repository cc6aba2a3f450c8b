"""Who loses the first windows of flows that start together at a drop-tail overflow in the
hybrid model (``drop_share="growth"``, the default; docs/ode-model.md, "How an overflow is
shared"): the windows reach the queue side by side (the access links are ten times faster
than the bottleneck), every window's first packet before any window's second, so the
queue keeps the first positions and drops the last ones, as a packet queue does: the
flows keep their first packets and the later flows in the arrival order lose their second
ones. Dealt as whole bursts flow after flow (the rule for other bursts), the overflow took
both packets of the first flows and locked them out behind RFC 6298's 1-s first timer
(docs/fluid-promises.md, "Lock-out at small buffers")."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.fluid import _hybrid_kernel as K
from tcpfluid.results import Result
from tcpfluid.scenarios import rtt_dumbbell


def _deal(bursts: list[float], over: float, ptr: int = 0) -> tuple[np.ndarray, float]:
    """The drops of an overflow of ``over`` packets on the first windows ``bursts`` (all
    the flows send) and the overflow left."""
    g = np.zeros(K.N_GLOBALS)
    g[K.G_GROW_PTR] = ptr
    gro = np.array(bursts, dtype=float)
    send = gro.copy()
    drops = np.zeros_like(gro)
    left, dropped = K._bursts_by_position(g, gro, send, drops, over)
    np.testing.assert_allclose(send + drops, bursts)
    assert dropped == pytest.approx(min(over, sum(bursts)))
    assert g[K.G_GROW_PTR] == ptr  # the start's order: the pointer is left for later bursts
    return drops, left


def test_equal_bursts_lose_their_last_packets_first() -> None:
    # four bursts of 2 (arrivals a1 b1 c1 d1 a2 b2 c2 d2), 3 over: the queue keeps the
    # first five arrivals, so a keeps both, b, c and d lose their second (by hand)
    drops, left = _deal([2.0, 2.0, 2.0, 2.0], 3.0)
    np.testing.assert_allclose(drops, [0.0, 1.0, 1.0, 1.0])
    assert left == 0.0


def test_the_boundary_position_is_kept_in_turn_from_the_pointer() -> None:
    drops, _ = _deal([2.0, 2.0, 2.0, 2.0], 3.0, ptr=2)
    np.testing.assert_allclose(drops, [1.0, 1.0, 0.0, 1.0])


def test_a_long_burst_loses_its_tail() -> None:
    # a1 b1 a2 b2 a3 ... a10, 9 over: the queue keeps a1 b1 a2 (by hand)
    drops, _ = _deal([10.0, 2.0], 9.0)
    np.testing.assert_allclose(drops, [8.0, 1.0])


def test_an_overflow_beyond_the_bursts_takes_them_whole_and_leaves_the_rest() -> None:
    drops, left = _deal([1.0, 0.5, 0.0], 4.0)
    np.testing.assert_allclose(drops, [1.0, 0.5, 0.0])
    assert left == pytest.approx(2.5)


# Eight Reno flows start together on 1.28 Mb/s x 12.8 ms (1500-byte packets) with a
# 10-packet buffer: their 16 first packets meet a queue that keeps about 11.
N_FLOWS = 8


@pytest.fixture(scope="module")
def runs() -> dict[str, Result]:
    sc = rtt_dumbbell(
        1.28e6, [0.0128] * N_FLOWS, ["reno"] * N_FLOWS, duration_s=1.0, buffer_pkts=10,
        packet_size_bytes=1500,
    )  # fmt: skip
    return {"packet": simulate(sc, "packet", seed=1), "hybrid": simulate(sc, "hybrid")}


def test_no_flow_loses_its_whole_first_window(runs: dict[str, Result]) -> None:
    # a flow that kept a packet has an RTT sample and a 0.2-s timer and delivers from its
    # first round on; one that lost both waits RFC 6298's first 1-s timer (the run's
    # length) and delivers nothing
    for eng, res in runs.items():
        delivered = np.array([f.delivered_pkts for f in _flows(res)])
        assert delivered.min() > 2.0, (eng, delivered)


def test_the_flows_that_lose_a_packet_of_their_first_window_are_the_packets(
    runs: dict[str, Result],
) -> None:
    # in packets a flow that lost its second packet gets one ACK, no duplicate ACK, and
    # waits for its 0.2-s timer: its second round ends after 0.2 s, the others' by 0.16 s;
    # the hybrid flow learns of the drop one RTT after it (docs/ode-model.md, "Losses")
    pk = [np.asarray(log.time_s) for log in runs["packet"].rounds]
    losers = {j for j, t in enumerate(pk) if t.size < 2 or t[1] > 0.2}
    assert losers == {3, 4, 5, 6, 7}
    hy = [np.asarray(f.loss_t_s) for f in _flows(runs["hybrid"])]
    assert {j for j, t in enumerate(hy) if t.size and t[0] < 0.05} == losers


def _flows(res: Result) -> list[Any]:
    """The engine's own per-flow records (the hybrid's inside the "hybrid" engine's result)."""
    return list(getattr(res.native, "hybrid", res.native).flows)
