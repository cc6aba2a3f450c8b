"""The send overhead (ns-2's ``Agent/TCP`` ``overhead_``): each data packet waits a uniform
random time in [0, overhead] before it goes out, so a window of one packet on an idle path
sees a round-trip time of its propagation and transmission times plus that draw."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.sim import simulate_packets

# two_link(): 1 ms per data packet on F, 10 ms on F's wire, 1 ms per ACK on B, 5 ms on B's
RTT_IDLE_S = 0.001 + 0.010 + 0.001 + 0.005
OVERHEAD_S = 0.004


def _rtts(seed: int, overhead: float) -> np.ndarray:
    law = FixedWindow(1)
    simulate_packets(two_link(duration=2.0), laws={"f": law}, seed=seed, send_overhead_s=overhead)
    # one packet per round: the round's mean RTT is that packet's
    return np.array([s["rtt_mean"] for s in law.seen if s["acks"] > 0])


def test_one_packet_rtt_is_the_idle_rtt_plus_a_uniform_draw() -> None:
    rtt = _rtts(1, OVERHEAD_S)
    assert rtt.size > 80  # about 2 s / (17 ms + 2 ms)
    u = (rtt - RTT_IDLE_S) / OVERHEAD_S  # the draws, scaled to [0, 1]
    assert np.all(u >= -1e-9)
    assert np.all(u <= 1.0 + 1e-9)
    # the mean of n uniform draws is 1/2 with a standard deviation sqrt(1/12/n): 4 of them
    assert abs(u.mean() - 0.5) < 4.0 * math.sqrt(1.0 / 12.0 / u.size)
    # spread over the interval, not one repeated value
    assert u.std() > 0.2


def test_no_overhead_is_deterministic_idle_rtt() -> None:
    rtt = _rtts(1, 0.0)
    np.testing.assert_allclose(rtt, RTT_IDLE_S, rtol=0, atol=1e-12)


def test_same_seed_same_draws_other_seed_other_draws() -> None:
    a, b, c = _rtts(3, OVERHEAD_S), _rtts(3, OVERHEAD_S), _rtts(4, OVERHEAD_S)
    np.testing.assert_array_equal(a, b)
    n = min(a.size, c.size)
    assert not np.array_equal(a[:n], c[:n])


@pytest.mark.parametrize("bad", [-1e-3, float("nan"), float("inf")])
def test_bad_overhead_is_a_value_error_naming_it(bad: float) -> None:
    with pytest.raises(ValueError, match="send_overhead_s"):
        simulate_packets(two_link(), laws={"f": FixedWindow(1)}, send_overhead_s=bad)


def test_overhead_of_the_wrong_type_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match="send_overhead_s"):
        simulate_packets(two_link(), laws={"f": FixedWindow(1)}, send_overhead_s="1ms")
