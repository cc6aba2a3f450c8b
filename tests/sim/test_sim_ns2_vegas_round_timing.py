"""ns-2's Vegas agent times its rounds with one tagged packet (``simulate_packets(
fast_recovery="ns2-vegas", ns2_vegas_timing=True)``, the default for those senders).

The rule (``VegasTcpAgent::recv`` in ns-2's ``tcp/tcp-vegas.cc``, lines 207-223, 286-288 and
300-312): the new ACK whose sequence number reaches ``v_begseq_`` closes the round; its RTT
is ``v_sumRTT_ / v_cntRTT_`` (each earlier new ACK of the round whose highest acknowledged
packet was sent once adds the time since that packet was sent) or, when ``v_cntRTT_`` is 0,
``now - v_begtime_``; ``v_baseRTT_`` takes it when smaller; then ``v_begseq_ = t_seqno_``,
``v_begtime_ = now``, and only then does the closing ACK's own sample count (for the next
round).

The numbers are Tsang's thesis's ns-2 agent trace of a connection after a Reno-type timeout
(ch. 3 §4.4.3.1, Fig. 3.36; times printed to 10 µs, so 20 µs tolerance): the round tagged
at 21.38648 s with ``v_begseq_`` 1058 is closed at 21.38830 s by an ACK of 1059 with no
sample before it (every earlier ACK was for a retransmitted packet), so BaseRTT becomes
0.00182 s (the thesis prints 0.001822) although the path's propagation RTT is 0.084552 s;
that ACK's own sample, packet 1059 sent once at 20.87894 s, makes ``v_sumRTT_`` 0.509364
and ``v_cntRTT_`` 1; the next round (``v_begseq_`` 1060) closes at 21.48934 s with that
RTT, 0.509364 s (the thesis's ``v_actual_ = (1062 - 1060) / 0.509364``), and its ACK's
sample, packet 1060 sent at 21.38830 s, gives ``v_sumRTT_`` 0.101033.

The simulator's ``ack`` is the next packet expected (ns-2's ``ack_`` + 1) and its round's
first packet ``I_ROUND_SEQ`` is ``v_begseq_``: a round closes at ``ack > I_ROUND_SEQ``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _simkit import ns2_vegas_agent, ns2_vegas_option_runs

from tcpfluid.engines import Packet
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import _core as C
from tcpfluid.sim import simulate_packets

_CAP = 2048  # ring slots (a power of two)
_TOL = 2e-5  # the thesis prints times to 10 µs


def _agent() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    ff, fi, fs, fq = ns2_vegas_agent(_CAP)
    ff[0, C.F_V_TIMED] = 1.0
    return ff, fi, fs, fq


def _ack(ff, fi, fs, fq, ack: int, now: float, echoed: float) -> None:  # type: ignore[no-untyped-def]
    """A new ACK as ``_on_ack`` hands it on: its echoed sample already in the round."""
    ff[0, C.F_R_SUM] += echoed
    fi[0, C.I_R_CNT] += 1
    k = int(fi[0, C.I_RING_OFF] + ((ack - 1) & (_CAP - 1)))
    # the kernel has no Python entry point (it is only called from compiled code): its
    # Python source, the one the compiler takes
    C._ns2v_round_rtt.py_func(ff, fi, fs, fq, 0, k, ack, now)


def _sent(fs, fq, seq: int, t: float, times: int = 1) -> None:  # type: ignore[no-untyped-def]
    fs[seq & (_CAP - 1)] = t
    fq[seq & (_CAP - 1), C.Q_TXC] = times


def test_the_thesis_trace_after_a_timeout_records_a_tiny_base_rtt() -> None:
    ff, fi, fs, fq = _agent()
    ff[0, C.F_BASE] = 0.084552  # the path's propagation RTT, measured before
    # the round tagged at 21.38648 s (v_begseq_ 1058), no sample yet
    fi[0, C.I_ROUND_SEQ] = 1058
    ff[0, C.F_V_BEGT] = 21.38648
    _sent(fs, fq, 1058, 21.38648, times=2)  # retransmitted at the tagging ACK
    _sent(fs, fq, 1059, 20.87894)  # sent once, before the timeout
    # 21.38830 s: the ACK of 1059 (the receiver held 1058 and 1059)
    _ack(ff, fi, fs, fq, 1060, 21.38830, echoed=0.11)
    base = ff[0, C.F_BASE]
    assert base == pytest.approx(0.001822, abs=_TOL)
    assert ff[0, C.F_R_SUM] / fi[0, C.I_R_CNT] == pytest.approx(0.001822, abs=_TOL)
    assert ff[0, C.F_V_CNT] == 1.0
    assert ff[0, C.F_V_SUM] == pytest.approx(0.509364, abs=_TOL)
    assert ff[0, C.F_V_BEGT] == 21.38830
    # _round_end tags the next round at t_seqno_ = 1060 and clears the round's samples
    fi[0, C.I_ROUND_SEQ] = 1060
    fi[0, C.I_R_CNT] = 0
    ff[0, C.F_R_SUM] = 0.0
    _sent(fs, fq, 1060, 21.38830)
    _ack(ff, fi, fs, fq, 1061, 21.48934, echoed=0.1)
    assert ff[0, C.F_R_SUM] / fi[0, C.I_R_CNT] == pytest.approx(0.509364, abs=_TOL)
    assert ff[0, C.F_BASE] == base  # the larger RTT does not raise it
    assert ff[0, C.F_V_SUM] == pytest.approx(0.101033, abs=_TOL)
    assert ff[0, C.F_V_CNT] == 1.0


def test_an_ack_inside_the_round_only_adds_its_sample() -> None:
    ff, fi, fs, fq = _agent()
    ff[0, C.F_BASE] = 0.08
    fi[0, C.I_ROUND_SEQ] = 20
    ff[0, C.F_V_BEGT] = 1.0
    _sent(fs, fq, 10, 0.93)
    _sent(fs, fq, 11, 0.94, times=2)  # a retransmission: no sample
    _ack(ff, fi, fs, fq, 11, 1.0, echoed=0.07)
    _ack(ff, fi, fs, fq, 12, 1.01, echoed=0.07)
    assert ff[0, C.F_V_CNT] == 1.0
    assert ff[0, C.F_V_SUM] == pytest.approx(1.0 - 0.93)
    assert ff[0, C.F_V_BEGT] == 1.0
    # a sample below BaseRTT lowers it (lines 314-318): packet 10's 0.07 s
    assert ff[0, C.F_BASE] == pytest.approx(0.07)


def test_a_closed_round_with_samples_takes_their_mean() -> None:
    ff, fi, fs, fq = _agent()
    ff[0, C.F_BASE] = 0.05
    fi[0, C.I_ROUND_SEQ] = 3
    ff[0, C.F_V_BEGT] = 0.5
    for s, t in ((0, 0.40), (1, 0.41), (2, 0.42), (3, 0.43)):
        _sent(fs, fq, s, t)
    _ack(ff, fi, fs, fq, 1, 0.46, echoed=0.06)  # sample 0.06
    _ack(ff, fi, fs, fq, 2, 0.49, echoed=0.08)  # sample 0.08
    _ack(ff, fi, fs, fq, 3, 0.50, echoed=0.08)  # sample 0.08
    fi[0, C.I_R_CNT] = 0  # the echoed samples play no part in the round's RTT
    ff[0, C.F_R_SUM] = 0.0
    _ack(ff, fi, fs, fq, 4, 0.52, echoed=0.09)  # closes: (0.06 + 0.08 + 0.08) / 3
    assert ff[0, C.F_R_SUM] / fi[0, C.I_R_CNT] == pytest.approx(0.22 / 3)
    assert ff[0, C.F_BASE] == 0.05
    assert ff[0, C.F_V_CNT] == 1.0  # the closing ACK's own sample, for the next round
    assert ff[0, C.F_V_SUM] == pytest.approx(0.52 - 0.43)


def test_the_switch_is_checked_and_leaves_other_senders_alone() -> None:
    sc = rtt_dumbbell(
        10e6, [0.02, 0.06], ["vegas", "vegas"], duration_s=8.0, buffer_pkts=12, red=True
    )
    with pytest.raises(TypeError, match="ns2_vegas_timing must be True or False"):
        simulate_packets(sc, ns2_vegas_timing=1)  # type: ignore[arg-type]
    assert Packet(ns2_vegas_timing=False).ns2_vegas_timing is False
    with pytest.raises((TypeError, ValueError), match="ns2_vegas_timing"):
        Packet(ns2_vegas_timing="no")  # type: ignore[arg-type]
    a, b, c, d = ns2_vegas_option_runs("ns2_vegas_timing", {"ns2_vegas_timing": False})
    assert [f.delivered_pkts for f in a.flows] == [f.delivered_pkts for f in b.flows]
    assert [f.base_rtt_s for f in a.flows] == [f.base_rtt_s for f in b.flows]
    # ns-2 Vegas agents with losses and timeouts: the timing changes the run
    assert c.conserved and d.conserved
    assert sum(f.timeouts for f in d.flows) > 0
    assert [f.delivered_pkts for f in c.flows] != [f.delivered_pkts for f in d.flows]
