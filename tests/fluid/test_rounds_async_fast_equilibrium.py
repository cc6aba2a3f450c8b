"""FAST on flows of unequal base RTT in the asynchronous round model, against FAST's closed
form.

FAST's window update ``w <- (1 - γ) w + γ (BaseRTT/RTT · w + α)`` rests where every flow
keeps α packets in the queue: ``w_j (1 - d_j/RTT_j) = α``. With one FIFO every flow sees
the same queueing delay ``q/μ``, so its rate ``x_j = w_j/RTT_j = α μ/q`` is the same
whatever its base RTT; with ``Σ x_j = μ`` the queue is ``q = n α`` and each flow holds
``w_j = (μ/n)(d_j + n α/μ)``. Nothing here is taken from the model: the numbers are the
law's fixed point. If a flow's BaseRTT, its round clock or the shared backlog were off,
the rates would part by base RTT (what the report's qv-different-rtt rows show once the
buffer is below n α and losses set the shares: docs/round-model-unequal-rtt.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.fluid.rounds import simulate_rounds_async
from tcpfluid.path import Path

MU = 1000.0  # packets/s
BASE = (0.05, 0.1, 0.2)  # s, the Quick Vegas paper's three groups' RTTs (ours)
ALPHA = 100.0  # FAST's default α, packets per flow


@pytest.fixture(scope="module")
def lossless_run() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Three FAST flows of 50, 100 and 200 ms on 1000 packets/s, no buffer limit, 30 s."""
    tr = simulate_rounds_async(
        get_law("fast", alpha=ALPHA), Path(MU, BASE[0]), list(BASE), duration_s=30.0
    )
    t = np.asarray(tr.time_s)[:, 0]
    return (
        t,
        np.asarray(tr.throughput_pps)[:, 0],
        np.asarray(tr.queue_pkts)[:, 0],
        np.asarray(tr.window_pkts)[-1, 0],
        np.asarray(tr.losses),
    )


def test_fast_flows_of_unequal_base_rtt_share_the_link_equally(lossless_run: tuple) -> None:
    t, x, q, _w, losses = lossless_run
    assert not losses.any()  # no buffer limit: FAST's own equilibrium, no loss
    last = t > 20.0  # the last 10 s (the 200-ms flow's 50 rounds)
    dt = np.diff(t, prepend=0.0)[last]
    rate = (x[last] * dt[:, None]).sum(axis=0) / dt.sum()
    np.testing.assert_allclose(rate, MU / len(BASE), rtol=1e-3)
    np.testing.assert_allclose(q[last], len(BASE) * ALPHA, rtol=1e-3)


def test_fast_windows_hold_alpha_each_over_their_own_pipe(lossless_run: tuple) -> None:
    *_, w, _losses = lossless_run
    n = len(BASE)
    expected = [MU / n * (d + n * ALPHA / MU) for d in BASE]  # 116.7, 133.3, 166.7
    np.testing.assert_allclose(w, expected, rtol=1e-3)
