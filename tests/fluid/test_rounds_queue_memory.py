"""Round model, a FIFO shared with cross traffic: how long the rounds last while the queue
builds (docs/round-model.md, "Queue memory")."""

from __future__ import annotations

from typing import Any

import numpy as np

from tcpfluid import simulate
from tcpfluid.report._sec_convergence import _cb_overrides
from tcpfluid.scenarios import build_scenario

#: when the constant-rate cross traffic (half the link) starts, s
_ON = 10.0


def _fixed_window_run(engine: str) -> tuple[Any, float, float, float]:
    """A flow whose window stops changing after slow start (Vegas with α = 0 and a β no
    backlog reaches; γ = 8 leaves slow start below the pipe of 62.5 packets) on the
    convergence-bdp grid's 500-kb path, the cross traffic starting at ``_ON``: its round
    boundary times, the window it keeps, μ and d."""
    o = {**_cb_overrides(500.0), "duration": "13s", "cbr_start": f"{_ON}s", "cbr_stop": "20s"}
    sc = build_scenario("qv-basic", **o).with_algorithm("vegas", alpha=0.0, beta=1e6, gamma=8.0)
    path = sc.fluid_view().path
    log = simulate(sc, engine).rounds[0]
    t, w = np.asarray(log.time_s), np.asarray(log.next_window_pkts)
    assert np.ptp(w[t > _ON - 2.0]) == 0.0  # the window is fixed around the change
    return t, float(w[-1]), float(path.mu), float(path.d)


def _fifo_rounds(q0: float, window: float, mu: float, mu_a: float, d: float, n: int) -> Any:
    """Hand derivation: n round durations from a link queue ``q0`` (packets) when a fixed
    window shares a FIFO of rate ``mu`` with cross traffic that leaves the flows ``mu_a``.
    A round lasts the RTT of its first packet, ``T = d + Q/μ``; over it the window's
    packets and the cross traffic's ``(μ − μa) T`` arrive and ``μ T`` leave, so
    ``Q' = Q + W − μa T`` (towards ``μ (W/μa − d)``, where ``T = W/μa``)."""
    q, out = q0, []
    for _ in range(n):
        dur = d + q / mu
        out.append(dur)
        q = q + window - mu_a * dur
    return np.array(out)


def test_rounds_last_as_long_as_the_fifo_queue_they_start_behind() -> None:
    # Before the change the window (56 packets) is below the pipe (62.5): no queue, rounds
    # of d. From the first round at half the rate the backlog builds over rounds (the
    # queue memory) and each round lasts d plus the delay of the queue it starts behind:
    # 0.1, 0.1396, 0.1594, ... s towards W/μa = 0.1792 s, not W/μa at once.
    t, window, mu, d = _fixed_window_run("rounds")
    after = t[t > _ON]
    got = np.diff(after)[:8]
    expected = _fifo_rounds(0.0, window, mu, mu / 2.0, d, 8)
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    assert got[0] < 0.6 * window / (mu / 2.0)  # the standing backlog's round is 0.1792 s


def test_packet_rounds_follow_the_same_fifo_recursion() -> None:
    # The packet simulator on the same path, an independent route to the recursion: its
    # flow keeps ⌊w⌋ = 60 packets in flight and its round boundaries fall anywhere in the
    # cross traffic's first round (phase), so its durations from the second round after
    # the change on follow the recursion from the queue its first round left, within 3 %.
    t, window, mu, d = _fixed_window_run("packet")
    after = np.diff(t[t > _ON])[:7]
    q1 = (after[0] - d) * mu  # the queue the second round after the change starts behind
    expected = _fifo_rounds(q1, float(np.floor(window)), mu, mu / 2.0, d, 7)
    np.testing.assert_allclose(after, expected, rtol=0.03)
