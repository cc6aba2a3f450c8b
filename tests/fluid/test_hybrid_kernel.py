"""The hybrid kernel (:mod:`tcpfluid.fluid._hybrid_kernel`): its rule for a timeout's
duplicate ACKs worked by hand, and the kernel resuming after it returned.

A retransmission timeout comes after a fast retransmit only when the packets behind the
holes bring back the duplicate ACKs that start it (``dupacks_behind``; the sequence of
reactions it gives is checked against the packet simulator in
``test_hybrid_timeout_after_fast.py``).

The kernel computes each flow's sending of the next step in the same pass as its ACKs
(and its law's decision, when its round ends there); when it resumes after returning (a
join, a progress report, a law written in Python deciding), it recomputes the sending of
the flows Python changed and sums the step's arrivals again in flow order. Returning every
few steps and recomputing every flow's sending at every resumption must therefore give
the same run bit for bit: if a flow were missed (or a flow's stored sending were stale),
the two runs would part. The cases cover the one-pass
and two-pass steps (an ACK-path queue; drops under departure RTT samples), joins and
leaves, RED, every drop share, drops freed at once, whole packets and the round-ending
step's ACKs carried into the next round.

A flow that sends nothing (silent after a timeout, stopped, not started) and has nothing
in the queue or on the way back is parked: the pass over the flows skips it until it may
act again, and a resumption wakes every parked flow. The parked flow's ACK slots of the
steps it skipped are zeroed when it wakes; a stale slot, or a flow woken too late, would
make the two runs part. The many-flow case below parks flows for most of its steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _hashkit import assert_same

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import _hybrid_kernel as K
from tcpfluid.fluid._hybrid_kernel import dupacks_behind
from tcpfluid.fluid.hybrid import simulate_hybrid
from tcpfluid.queueing import red_parameters


def test_a_fast_retransmit_first_needs_the_duplicate_acks_behind_the_holes() -> None:
    # 40 packets, 37 lost: 3 behind the holes, Reno's three duplicate ACKs
    assert dupacks_behind(40.0, 37.0, 3.0)
    assert not dupacks_behind(40.0, 37.5, 3.0)
    # a law with Vegas's fine-grained check retransmits on the first duplicate ACK
    assert dupacks_behind(40.0, 39.0, 1.0)
    assert not dupacks_behind(40.0, 39.5, 1.0)
    got = dupacks_behind(np.array([40.0, 40.0]), np.array([25.0, 38.0]), np.array([3.0, 3.0]))
    assert got.tolist() == [True, False]


_BASE: dict[str, Any] = {
    "mu_pps": 2000.0,
    "base_rtt_s": [0.05] * 3 + [0.08] * 3 + [0.12] * 3,
    "duration_s": 12.0,
    "buffer_pkts": 40.0,
    "flow_start_s": [0.0] * 3 + [2.0] * 3 + [4.0] * 3,
    "flow_stop_s": [np.inf] * 8 + [9.0],
}

_CASES: list[tuple[str, dict[str, Any]]] = [
    ("vegas", {}),
    ("reno", {"rtt_sample": "departure"}),
    ("reno", {"drop_share": "in-turn", "cross_traffic": [(400.0, 3.0, 8.0)]}),
    ("quick-vegas", {"drop_share": "proportional", "hold_drops": False}),
    ("vegas", {"whole_packets": True, "boundary_ack_next_round": True}),
    (
        "reno",
        {"red": red_parameters({"min_th": 5.0, "max_th": 15.0, "max_p": 0.1}), "buffer_pkts": 60.0},
    ),
    ("forward-vegas", {"reverse_mu_pps": 900.0, "reverse_buffer_pkts": 5.0}),
    (
        "vegas",  # 30 flows on a 20-packet pipe and a 4-packet buffer: timeouts, leaves
        {
            "mu_pps": 400.0,
            "buffer_pkts": 4.0,
            "base_rtt_s": [0.05] * 30,
            "flow_start_s": [0.0] * 20 + [3.0] * 10,
            "flow_stop_s": [np.inf] * 25 + [7.0] * 5,
        },
    ),
]


@pytest.mark.parametrize("case", _CASES, ids=lambda c: f"{c[0]}-{'-'.join(c[1]) or 'default'}")
def test_recomputing_every_flow_on_resuming_changes_nothing(
    case: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, extra = case
    kw = {**_BASE, **extra}
    kept = simulate_hybrid(get_law(name), **kw)
    calls = [0]
    advance = K.advance

    def every_53_steps(k: int, *args: Any) -> Any:
        # args: advance's arguments after k; g is the ninth, the laws' tuple the last
        # (its 16th entry the loop's counters): pause after 53 steps (a prime stride: the
        # resumptions, about 1,160 in the 61,440 steps of d/256, fall at every phase of a
        # round of 256 steps or more), and recompute every flow's sending when the loop
        # resumes
        args[8][K.G_REDO] = 1.0
        args[-1][15][K.I_PAUSE] = k + 53
        calls[0] += 1
        return advance(k, *args)

    monkeypatch.setattr(K, "advance", every_53_steps)
    redone = simulate_hybrid(get_law(name), **kw)
    assert calls[0] > 300  # it resumed every 53 steps
    if name == "reno":  # with loss reactions
        assert sum(len(f.loss_t_s) for f in kept.flows) > 0
    assert_same(kept, redone)


def test_silent_flows_are_parked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The many-flow case parks flows (else its resumption test would not cover
    parking): some return of the kernel finds flows parked (``sends`` row 3, the step
    each parked flow wakes at, beyond the step reached)."""
    kw = {**_BASE, **_CASES[-1][1]}
    seen = [0]
    advance = K.advance

    def spy(k: int, *args: Any) -> Any:
        args[-1][15][K.I_PAUSE] = k + 50  # return every 50 steps to look
        out = advance(k, *args)
        seen[0] = max(seen[0], int(np.sum(args[-3][3] > out[0])))
        return out

    monkeypatch.setattr(K, "advance", spy)
    simulate_hybrid(get_law("vegas"), **kw)
    assert seen[0] >= 5
