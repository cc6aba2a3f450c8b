"""ns-2's Vegas agent resets BaseRTT after a round of at most one packet
(``simulate_packets(fast_recovery="ns2-vegas", ns2_vegas_base_reset=True)``).

The rule (``VegasTcpAgent::recv`` in ns-2's ``tcp/tcp-vegas.cc``, revision 1.37, its
once-per-round block): when a new ACK closes the round, ``rttLen = t_seqno_ - v_begseq_``
(the packets sent from the round's first one to that ACK) and ``if(rtt<v_baseRTT_ ||
rttLen<=1) v_baseRTT_ = rtt``, with ``rtt`` the round's RTT (the mean of its samples, or
the time since the round was tagged when it has none). Tsang's thesis's agent dropped the second
condition (its ch. 3 §3): the simulator's default.

Each case is worked by hand on the agent's state: the simulator's ``ack`` is the next
packet expected (ns-2's ``ack_`` + 1), its round's first packet ``I_ROUND_SEQ`` is
``v_begseq_`` and ``I_NXT`` is ``t_seqno_`` (already raised to ``ack`` by ``_on_ack``, as
ns-2's ``newack`` raises ``t_seqno_``).
"""

from __future__ import annotations

import pytest
from _simkit import ns2_vegas_agent, ns2_vegas_option_runs

from tcpfluid.engines import Packet
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import _core as C
from tcpfluid.sim import simulate_packets

_CAP = 64  # ring slots (a power of two)


def _agent(timed: float, base: float, begseq: int, begtime: float, nxt: int):  # type: ignore[no-untyped-def]
    ff, fi, fs, fq = ns2_vegas_agent(_CAP)
    ff[0, C.F_V_TIMED] = timed
    ff[0, C.F_BASE] = base
    fi[0, C.I_ROUND_SEQ] = begseq
    ff[0, C.F_V_BEGT] = begtime
    fi[0, C.I_NXT] = nxt
    return ff, fi, fs, fq


def _close(ff, fi, fs, fq, ack: int, now: float, echoed: float) -> None:  # type: ignore[no-untyped-def]
    """The round-closing ACK as ``_on_ack`` hands it on (its echoed sample in the round)."""
    ff[0, C.F_R_SUM] += echoed
    fi[0, C.I_R_CNT] += 1
    k = int((ack - 1) & (_CAP - 1))
    # the kernel has no Python entry point: its Python source, the one the compiler takes
    C._ns2v_round_rtt.py_func(ff, fi, fs, fq, 0, k, ack, now)


@pytest.mark.parametrize(("timed", "expected"), [(1.0, 0.05), (2.0, 0.09)])
def test_a_round_of_one_packet_makes_its_rtt_the_base_rtt(timed: float, expected: float) -> None:
    # round tagged at 1.00 s with packet 7 the next to send; packet 7, sent once at 1.00 s,
    # is the only packet sent before its ACK at 1.09 s: rttLen = 8 - 7 = 1. No sample came
    # before the closing ACK, so the round's RTT is 1.09 - 1.00 = 0.09 s; the ACK's own
    # sample (0.09 s) does not lower it
    ff, fi, fs, fq = _agent(timed, base=0.05, begseq=7, begtime=1.0, nxt=8)
    fs[7] = 1.0
    fq[7, C.Q_TXC] = 1
    _close(ff, fi, fs, fq, ack=8, now=1.09, echoed=0.09)
    assert ff[0, C.F_BASE] == pytest.approx(expected)
    assert ff[0, C.F_R_SUM] / fi[0, C.I_R_CNT] == pytest.approx(0.09)


@pytest.mark.parametrize("timed", [1.0, 2.0])
def test_a_round_of_two_packets_keeps_the_smaller_base_rtt(timed: float) -> None:
    # as above, with packet 8 also sent before the closing ACK (rttLen = 9 - 7 = 2): the
    # larger 0.09 s does not replace 0.05 s under either rule
    ff, fi, fs, fq = _agent(timed, base=0.05, begseq=7, begtime=1.0, nxt=9)
    fs[7], fs[8] = 1.0, 1.0008
    fq[7, C.Q_TXC] = fq[8, C.Q_TXC] = 1
    _close(ff, fi, fs, fq, ack=8, now=1.09, echoed=0.09)
    assert ff[0, C.F_BASE] == pytest.approx(0.05)


def test_the_reset_takes_the_round_mean_and_a_later_sample_lowers_it_again() -> None:
    # round tagged at 2.0 s (packet 20 next); packets 18 and 19, sent once at 1.90 and
    # 1.91 s, are acknowledged at 2.01 and 2.03 s inside it (samples 0.11 and 0.12 s);
    # packet 20 goes out at 2.0 s and nothing after it: rttLen = 21 - 20 = 1 when its ACK
    # closes the round at 2.08 s. The round's RTT is (0.11 + 0.12)/2 = 0.115 s, above the
    # BaseRTT 0.05 s: it becomes BaseRTT; then the closing ACK's own sample, 2.08 - 2.0 =
    # 0.08 s, is smaller and lowers it (lines 314-318)
    ff, fi, fs, fq = _agent(2.0, base=0.05, begseq=20, begtime=2.0, nxt=20)
    for seq, t in ((18, 1.90), (19, 1.91), (20, 2.0)):
        fs[seq] = t
        fq[seq, C.Q_TXC] = 1
    C._ns2v_round_rtt.py_func(ff, fi, fs, fq, 0, 18, 19, 2.01)
    C._ns2v_round_rtt.py_func(ff, fi, fs, fq, 0, 19, 20, 2.03)
    assert ff[0, C.F_BASE] == pytest.approx(0.05)  # inside the round: samples only
    fi[0, C.I_NXT] = 21
    _close(ff, fi, fs, fq, ack=21, now=2.08, echoed=0.08)
    assert ff[0, C.F_R_SUM] / fi[0, C.I_R_CNT] == pytest.approx(0.115)
    assert ff[0, C.F_BASE] == pytest.approx(0.08)


def test_the_switch_is_checked_and_leaves_other_senders_alone() -> None:
    with pytest.raises(TypeError, match="ns2_vegas_base_reset must be True or False"):
        simulate_packets(
            rtt_dumbbell(10e6, [0.02], ["vegas"], duration_s=1.0),
            ns2_vegas_base_reset=1,  # type: ignore[arg-type]
        )
    assert Packet(ns2_vegas_base_reset=True).ns2_vegas_base_reset is True
    with pytest.raises((TypeError, ValueError), match="ns2_vegas_base_reset"):
        Packet(ns2_vegas_base_reset="yes")  # type: ignore[arg-type]
    a, b, c, d = ns2_vegas_option_runs("ns2_vegas_base_reset", {})
    assert [f.delivered_pkts for f in a.flows] == [f.delivered_pkts for f in b.flows]
    assert [f.base_rtt_s for f in a.flows] == [f.base_rtt_s for f in b.flows]
    # ns-2 Vegas agents with losses and timeouts: the rule moves BaseRTT up after them
    assert c.conserved and d.conserved
    assert [f.delivered_pkts for f in c.flows] != [f.delivered_pkts for f in d.flows]
