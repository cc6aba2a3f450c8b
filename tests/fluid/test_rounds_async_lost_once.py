"""With several round clocks a packet lost at an overflow is lost once.

Three groups of three FAST flows whose base RTTs are 10 µs apart (40, 40.01, 40.02 ms) run
on three round clocks that stay within 20 µs of each other through slow start. FAST's
α = 100 keeps every flow doubling, so the three clocks double 16 → 32 packets per flow
in three rounds a few milliseconds apart, and the first of them fills the 60-packet
buffer. Independent route, packet conservation: between those rounds no flow cuts its
window and a full drop-tail queue drops exactly what arrives beyond it, so each later
round of the episode loses exactly the packets its class adds (3 flows × 16 = 48).

Before the engine took the packets a class lost out of its windows in flight (its own
share at its round, for the other classes' rounds; the share charged at another class's
round, for its own next round), the same packets were counted lost again: 71.2 and 97.5
packets instead of 48 and 48 (199.6 packets in the episode against the 126.9 that the
doubled windows exceed the pipes and the buffer by).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid import _rounds_engine
from tcpfluid.scenarios import build_scenario

#: the per-flow growth of the doubling round 16 -> 32, times the class's three flows
GROWTH_PKTS = 3 * 16.0


def _overflows(monkeypatch: pytest.MonkeyPatch, until_s: float) -> list[tuple[int, float]]:
    """(class, overflow in packets) of every round starting before ``until_s`` that loses
    packets, observed as the engine computes them."""
    seen: list[tuple[int, float]] = []
    losses = _rounds_engine.round_losses

    def observe(eng: Any, c: int, lost_s: Any, *rest: Any) -> Any:
        t0 = float(np.ravel(rest[4])[0])
        if lost_s is not None and float(lost_s[0]) > 0.0 and t0 < until_s:
            seen.append((c, float(lost_s[0])))
        return losses(eng, c, lost_s, *rest)

    monkeypatch.setattr(_rounds_engine, "round_losses", observe)
    sc = build_scenario(
        "qv-different-rtt", flows_per_group=3, bandwidth="20Mbps", core_delay="2ms",
        rtt1="40ms", rtt2="40.01ms", rtt3="40.02ms", buffer=60, duration="0.2s",
    ).with_algorithm("fast")  # fmt: skip
    tcpfluid.simulate(sc, "rounds")
    return seen


def test_each_later_round_of_an_overflow_episode_loses_its_growth_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    episode = _overflows(monkeypatch, until_s=0.2)
    # the three clocks' doubling rounds, in clock order; the first fills the buffer
    assert [c for c, _ in episode] == [0, 1, 2]
    assert episode[0][1] > 0.0
    # (to 0.01 packets: the overflow is the shared backlog beyond the buffer, and with the
    # classes' pipes μ d_k 0.025 and 0.05 packets apart a packet added to one class moves
    # that backlog by 1 − O(1e-4) packets)
    assert episode[1][1] == pytest.approx(GROWTH_PKTS, abs=0.01)
    assert episode[2][1] == pytest.approx(GROWTH_PKTS, abs=0.01)
