"""A flow that joins later leaves slow start in its own rounds, in every engine.

The round model keeps one round clock for every flow, so a flow that starts at 20 s has
rows (window 0) for the rounds before it; its law's state may show any phase there. The
summary must find the joiner's slow-start exit after its start and count its exit round
from its own first round, as the packet simulator (the referee: its senders log rounds
only once they send) does. Tolerance: one round (the engines' round boundaries differ by
the queue the joiner finds) and 20 % of the exit window (TCP-Ho's ramp adds up to a fifth
in its last round). TCP-Ho's joiner is an expected failure: the round model's leaves at
146 packets in its round 27, the packets' at 122 in their round 25, a ramp round more
(each flow alone leaves in round 21 in both, tests/fluid/test_rounds_late_start_exit_round.py
for a late flow alone); the one round this test allowed held only while the round model
counted a late flow's rounds one short.
"""

from __future__ import annotations

import pytest

import tcpfluid
from tcpfluid.scenarios.topology import rtt_dumbbell

JOIN_S = 20.0


@pytest.mark.parametrize(
    "law",
    [
        "vegas",
        pytest.param(
            "tcp-ho",
            marks=pytest.mark.xfail(
                strict=True,
                reason="measured: the round model's joiner leaves in its round 27 at 146 "
                "packets, the packets' in round 25 at 122 (a ramp round more behind the "
                "first flow's queue)",
            ),
        ),
    ],
)
def test_a_joiners_exit_is_after_its_start_and_counted_in_its_own_rounds(law: str) -> None:
    sc = rtt_dumbbell(5e6, [0.1, 0.1], [law, law], duration_s=40.0, start_s=[0.0, JOIN_S])
    packets = tcpfluid.simulate(sc, "packet").summary.flows
    rounds = tcpfluid.simulate(sc, "rounds").summary.flows
    assert packets.ss_exit_time_s[1] > JOIN_S
    assert JOIN_S < rounds.ss_exit_time_s[1] < JOIN_S + 10.0
    assert rounds.ss_exit_round[1] == pytest.approx(packets.ss_exit_round[1], abs=1)
    assert rounds.ss_exit_window_pkts[1] == pytest.approx(packets.ss_exit_window_pkts[1], rel=0.2)
    # the flow that started with the run is counted as before
    assert rounds.ss_exit_round[0] == pytest.approx(packets.ss_exit_round[0], abs=1)


def test_the_round_models_result_gives_the_base_rtt_its_laws_held() -> None:
    """``Result.base_rtt_s`` is the BaseRTT each flow's law held at the end: a Vegas flow
    joining at 20 s measures the queue the first flow keeps (α to β packets, 0.3-0.6 ms on
    5 Mb/s) into its BaseRTT, as the packet simulator's sender does; the first flow holds
    its propagation RTT. Tolerance 0.5 % (a fifth of the queue's delay)."""
    sc = rtt_dumbbell(5e6, [0.1, 0.1], ["vegas", "vegas"], duration_s=40.0, start_s=[0.0, JOIN_S])
    packets = tcpfluid.simulate(sc, "packet").base_rtt_s
    rounds = tcpfluid.simulate(sc, "rounds").base_rtt_s
    assert packets is not None and rounds is not None
    propagation = sc.base_rtts_s()
    assert packets[1] > propagation[1] * 1.02  # the joiner counted a queue in its BaseRTT
    assert rounds[1] == pytest.approx(packets[1], rel=0.005)
    assert rounds[0] == pytest.approx(propagation[0], rel=1e-9)
