"""What a loss event costs FAST with a buffer smaller than its α, in each engine.

One FAST flow (α = 100 packets) on qv-basic scaled to 8 Mb/s × 20 ms (a pipe of 20 packets)
with a 10-packet drop-tail buffer, 60 s (the CBR of qv-basic starts after the end). FAST's
target keeps α packets queued, so every ramp overflows the buffer, and FAST's ×2 term doubles
the window each round (the increase spread over the round's ACKs, like slow start).

The packet simulator's default sender (NewReno, RFC 6582, ns-2's ``bugFix_``) learns of the
first drop from the duplicate ACKs about one RTT after it, by which time the doubling has
gone on: 96 of its 192 fast retransmits in 60 s come at windows of 53–63 packets, about
twice the 30 packets (pipe + buffer) where the overflow began, with ~25 packets of the
window lost; NewReno repairs one hole per round trip, so each of these 96 ends in a timeout
SRTT + RTO later. The other 96 come at 24–30 packets, in the ramp after a timeout (the
burst of a doubling fills the buffer early), and 32 of them end in a timeout: 320 loss
events, 128 timeouts, 6496 retransmissions, utilization 0.476. (With ns-2's FAST agent's
SACK recovery, ``fast_recovery="ns2-fast"``, the same events are all repaired: 436 fast
retransmits, no timeout, utilization 0.639.)

The round model reacts at the end of the round whose peak overflows, at that round's
window: it halves at 32 packets with ~2 packets lost, a fast retransmit every other round,
a 16 ↔ 32 cycle (1150 loss events, no timeout, utilization 0.902). Deferring its reaction to
the end of the next round (the experiment below, option ``late_detection``: the law decides
meanwhile as if nothing were lost, the reaction then comes at that round's window with both
rounds' losses) puts its reactions at 64 packets, where the packets' are, and its
utilization at 0.629 (410 loss events, each a timeout by the lost fraction). Made the
model's rule, that deferral moved hold-out seed 1 (``benchmarks/holdout.py --seed 1``) from
150/257 to 145/250 agreeing comparisons for the round model (FAST 22/34 → 23/30, the Vegas
laws and Reno lose verdicts), so it is not kept (docs/round-model.md, "Finite buffer").

The hybrid already holds a dropped packet's place until the detection (docs/ode-model.md,
"Losses as a sender sees them") and its loss events are NewReno's timeouts by too many holes,
but every one of them is (187 timeouts in 187 loss events, 15.7 packets lost per event), each
with one RTO of silence at the detection, and its ramp after each timeout (2 → 44 packets)
overflows again: utilization 0.237. The packet sender keeps sending at the halved window
until its timeout, and 64 of its fast retransmits (in the ramp after a timeout, at windows
of 24–30) end without one. Not fixed.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms import LOSS_FAST, LOSS_TIMEOUT
from tcpfluid.engines import simulate
from tcpfluid.scenarios import Scenario, build_scenario

#: the pipe (8 Mb/s × 20 ms of 1000-byte packets) and the buffer, packets
_PIPE, _BUFFER = 20.0, 10.0

#: the hold-out benchmark's utilization tolerance (benchmarks/holdout.py): 10 % of the
#: packet value
_TOL = 0.10


def _scenario() -> Scenario:
    return build_scenario(
        "qv-basic", bandwidth="8Mbps", rtt="20ms", buffer=int(_BUFFER), duration="60s"
    ).with_algorithm("fast")


@cache
def _run(engine: str) -> Any:
    return simulate(_scenario(), engine)


def test_the_packet_sender_learns_of_an_overflow_a_doubling_later() -> None:
    """Half the packets' fast retransmits (96 of 192) come at windows about twice the
    overflow's start (53–63 packets), each followed by a timeout."""
    flow = _run("packet").native.flows[0]
    kind = np.asarray(flow.loss_kind)
    before = np.asarray(flow.loss_cwnd_before_pkts)[kind == LOSS_FAST]
    assert np.max(before) > 1.8 * (_PIPE + _BUFFER)
    late = np.flatnonzero(
        (kind == LOSS_FAST) & (np.asarray(flow.loss_cwnd_before_pkts) > 1.5 * (_PIPE + _BUFFER))
    )
    assert late.size >= 90
    assert np.all(kind[late[late + 1 < kind.size] + 1] == LOSS_TIMEOUT)


def test_the_round_model_reacts_at_the_overflowing_rounds_window() -> None:
    """The mechanism: the round model never carries a window past the overflow's start
    by more than a round's overflow."""
    w = np.asarray(_run("rounds").window_pkts)
    assert np.max(w[..., np.asarray(_run("rounds").time_s) > 5.0]) <= _PIPE + _BUFFER + 3.0


def test_reacting_a_round_later_carries_the_round_model_where_the_packets_go() -> None:
    """The experiment (``late_detection=True``): with the reaction a round late the round
    model's windows reach twice the overflow's start (the packets' fast retransmits: 55–63
    packets) and its utilization falls from 0.902 to 0.629 (the packets 0.476, with SACK
    0.639)."""
    res = simulate(_scenario(), "rounds", late_detection=True)
    w = np.asarray(res.window_pkts)
    assert np.max(w[..., np.asarray(res.time_s) > 5.0]) > 1.8 * (_PIPE + _BUFFER)
    assert res.summary.utilization < _run("rounds").summary.utilization - 0.2


def _not_yet(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


@pytest.mark.parametrize(
    "engine",
    [
        pytest.param(
            "rounds",
            marks=_not_yet(
                "the round model reacts at the overflowing round's window (halving at 32 "
                "packets, ~2 lost, no timeout): utilization 0.902 against the packets' 0.476"
            ),
        ),
        pytest.param(
            "hybrid",
            marks=_not_yet(
                "every hybrid loss event is a timeout with one RTO of silence (187 of 187) "
                "and each ramp after it overflows again: utilization 0.237 against the "
                "packets' 0.476"
            ),
        ),
    ],
)
def test_the_fluid_utilization_follows_the_packets(engine: str) -> None:
    p = _run("packet").summary.utilization
    assert _run(engine).summary.utilization == pytest.approx(p, rel=_TOL)
