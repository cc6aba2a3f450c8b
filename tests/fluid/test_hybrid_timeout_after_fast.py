"""What a timeout costs a packet sender, in the hybrid model (its kernel's rule,
``_hybrid_kernel.dupacks_behind``, is worked by hand in ``test_hybrid_kernel.py``).

The requirement: a retransmission timeout whose holes leave enough packets behind them to
bring back the duplicate ACKs that start a fast retransmit comes after that fast
retransmit, so the law reacts twice, first to the fast retransmit at the window it had,
then to the timeout at the window the fast retransmit left; a timeout for want of
duplicate ACKs is one reaction. The expected values are worked by hand (Reno's fast
reaction halves the window) and checked against the packet simulator's sequence on the
same path (another layer).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.base import LOSS_FAST, LOSS_TIMEOUT, State
from tcpfluid.fluid.hybrid import simulate_hybrid
from tcpfluid.scenarios import rtt_dumbbell


class _Recording(type(get_law("reno"))):  # type: ignore[misc]
    """Reno whose loss reactions are called from Python and recorded (kind, windows)."""

    calls: list[tuple[int, list[float]]]

    def on_loss(self, state: State, index: Any, kind: int, cwnd: Any) -> Any:  # type: ignore[override]
        self.calls.append((int(kind), np.asarray(cwnd, dtype=float).tolist()))
        return super().on_loss(state, index, kind, cwnd)


def test_hybrid_slow_start_overshoot_reaches_the_law_as_fast_retransmit_then_timeout() -> None:
    """One Reno flow, 10 Mb/s (1250 pkt/s) x 100 ms, 25-packet buffer: slow start
    overshoots and loses a burst of holes NewReno cannot repair before its timer
    (``(L - 1) RTT > RTO``) with many packets behind them; the law sees a fast retransmit
    at the window W, then a timeout at W/2 (Reno's fast reaction), as the packet
    simulator's sender does on the same path (its first two loss events)."""
    law = _Recording()
    law.calls = []
    kw: dict[str, Any] = {"mu_pps": 1250.0, "base_rtt_s": [0.1], "buffer_pkts": 25.0}
    simulate_hybrid(law, duration_s=1.5, **kw)
    assert [k for k, _ in law.calls] == [LOSS_FAST, LOSS_TIMEOUT]
    (w,), (half,) = law.calls[0][1], law.calls[1][1]
    assert w > 50.0  # the overshoot (the buffer alone overflows at a 50-packet window)
    assert half == pytest.approx(w / 2.0, rel=1e-12)

    sc = rtt_dumbbell(10e6, [0.1], ["reno"], duration_s=1.5, buffer_pkts=25.0)
    flow = tcpfluid.simulate(sc, "packet").native.flows[0]
    kinds = np.asarray(flow.loss_kind)[:2].tolist()
    assert kinds == [1, 3]  # the packet sender's fast retransmit, then its timeout
    before, after = np.asarray(flow.loss_cwnd_before_pkts), np.asarray(flow.loss_cwnd_after_pkts)
    assert before[1] == after[0]  # the timeout at the window the fast retransmit left
