"""ns-2's Vegas agent measures Vegas's Δ from its packet counts, and ns-2.35's rounds it
(``simulate_packets(fast_recovery="ns2-vegas")`` with ``ns2_vegas_timing=True``, the
default, and ``ns2_vegas_agent_delta`` or ``ns2_vegas_integer_delta``); ns-2.35's agent
grows only a window it nearly fills (``ns2_vegas_growth_check``).

The rule (``VegasTcpAgent::recv`` in ns-2's ``tcp/tcp-vegas.cc``, revision 1.37, its
once-per-round block): at the new ACK that closes a round, ``rttLen = t_seqno_ -
v_begseq_`` (the packets sent in the round), ``v_actual_ = rttLen / rtt`` (the round's RTT),
``expect = (t_seqno_ - last_ack_) / v_baseRTT_`` and ``delta = int((expect - v_actual_) *
v_baseRTT_ + 0.5)``: an integer, C's ``int`` truncating toward zero. Tsang's thesis's agent
made ``v_delta_`` a double (its ch. 3 §3, change 2), without the rounding: the default.

The numbers are the thesis's agent trace of Fig. 3.36 (ch. 3 §4.4.3.1), whose rows print
``t_seqno_``, ``ack_``, ``v_begseq_``, ``v_sumRTT_ / v_cntRTT_``, BaseRTT 0.001822 s and the
agent's ``v_delta_``: the value is worked from those, by the formula, independently of the
kernel. The simulator's ``ack`` is the next packet expected (ns-2's ``ack_`` + 1), its
``I_NXT`` is ``t_seqno_`` and ``I_ROUND_SEQ`` is ``v_begseq_``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _simkit import ns2_vegas_agent, ns2_vegas_option_runs

from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE
from tcpfluid.engines import Packet
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.sim import _core as C
from tcpfluid.sim import simulate_packets

_CAP = 2048  # ring slots (a power of two)
#: the trace prints BaseRTT to four digits (0.001822 ± 5e-7 s): Δ = 3 − 3·base/0.1022 moves
#: by 1.5e-5 packet across that rounding
_TOL = 3e-5


def _close(integer: bool, ack_: int, t_seqno: int, begseq: int, rtt: float, base: float):  # type: ignore[no-untyped-def]
    """The agent's state at the ACK of ``ack_`` (ns-2's numbering) that closes the round
    tagged at ``v_begseq_ = begseq`` with one sample of ``rtt`` before it; returns its Δ."""
    ff, fi, fs, fq = ns2_vegas_agent(_CAP)
    ff[0, C.F_V_TIMED] = 1.0
    ff[0, C.F_V_DELTA] = 2.0 if integer else 1.0
    ff[0, C.F_BASE] = base
    ff[0, C.F_V_CNT], ff[0, C.F_V_SUM] = 1.0, rtt
    fi[0, C.I_ROUND_SEQ], fi[0, C.I_NXT] = begseq, t_seqno
    ack = ack_ + 1
    fi[0, C.I_R_CNT] = 1
    # the kernel has no Python entry point: its Python source, the one the compiler takes
    C._ns2v_round_rtt.py_func(ff, fi, fs, fq, 0, int((ack - 1) & (_CAP - 1)), ack, 21.6)
    return ff[0, C.F_S_DELTA]


# (ack_, t_seqno_, v_begseq_, round RTT, the thesis's v_delta_): Fig. 3.36's rounds at
# 21.48934 s (v_actual_ = (1062 − 1060)/0.509364) and 21.59442 s ((1065 − 1062)/(0.204371/2))
_ROWS = [(1060, 1062, 1060, 0.509364, 1.992847), (1062, 1065, 1062, 0.204371 / 2, 2.946519)]


@pytest.mark.parametrize(("ack_", "t_seqno", "begseq", "rtt", "printed"), _ROWS)
def test_the_thesis_agents_delta_is_its_trace(
    ack_: int, t_seqno: int, begseq: int, rtt: float, printed: float
) -> None:
    # by hand: (t_seqno_ − ack_) − rttLen·base/rtt, e.g. 3 − 3 × 0.001822/0.1021855 = 2.94651
    by_hand = (t_seqno - ack_) - (t_seqno - begseq) * 0.001822 / rtt
    assert by_hand == pytest.approx(printed, abs=_TOL)
    assert _close(False, ack_, t_seqno, begseq, rtt, 0.001822) == pytest.approx(printed, abs=_TOL)
    # ns-2.35: int(x + 0.5)
    assert _close(True, ack_, t_seqno, begseq, rtt, 0.001822) == round(printed)


def test_the_rounding_truncates_toward_zero() -> None:
    # 10 outstanding (t_seqno_ 110, ack_ 100), 12 sent in a round of 0.06 s on a 0.05-s
    # BaseRTT: Δ = 10 − 12 × 0.05/0.06 = 0 exactly; with 13 sent, 10 − 13 × 5/6 = −0.8333:
    # int(−0.3333) is 0 in C (a floor would give −1); with 14 sent, −1.6667 → int(−1.1667) = −1
    for sent, real, rounded in ((12, 0.0, 0.0), (13, -0.8333333, 0.0), (14, -1.6666667, -1.0)):
        assert _close(False, 100, 110, 110 - sent, 0.06, 0.05) == pytest.approx(real, abs=1e-6)
        assert _close(True, 100, 110, 110 - sent, 0.06, 0.05) == rounded


def test_the_law_decides_on_the_agents_rounded_delta() -> None:
    # three ns-2.35 Vegas agents (α 2, β 4) on one bottleneck: every round's Δ, as the run
    # records it, is a whole number, and each congestion-avoidance round moves the window
    # by eq (2) of the Quick Vegas paper on it: down one packet above β, none within [α, β]
    sc = rtt_dumbbell(5e6, [0.02, 0.05, 0.08], ["vegas"] * 3, duration_s=20.0, buffer_pkts=40)
    res = simulate_packets(sc, fast_recovery="ns2-vegas", ns2_vegas_integer_delta=True)
    high, held = 0, 0
    for tr in res.flows:
        d = np.asarray(tr.round_delta_pkts)
        assert len(d) > 50
        assert np.array_equal(d, np.round(d))
        # the rounds decided in congestion avoidance (the round before left the law in it)
        ca = np.flatnonzero(np.asarray(tr.round_phase)[:-1] == CONGESTION_AVOIDANCE) + 1
        w, nxt, d = (np.asarray(x)[ca] for x in (tr.round_cwnd_pkts, tr.round_next_cwnd_pkts, d))
        up, mid = d > 4.0, (d >= 2.0) & (d <= 4.0)
        assert np.array_equal(nxt[up], np.maximum(w[up] - 1.0, 2.0))
        assert np.array_equal(nxt[mid], w[mid])
        high, held = high + int(up.sum()), held + int(mid.sum())
    assert high > 0 and held > 0
    # the double Δ of the thesis's agent is not whole
    tf = simulate_packets(sc, fast_recovery="ns2-vegas", ns2_vegas_agent_delta=True).flows[0]
    assert not np.array_equal(tf.round_delta_pkts, np.round(tf.round_delta_pkts))


@pytest.mark.parametrize(
    ("una", "check", "grown"), [(93, 1.0, 10.1), (94, 1.0, 10.0), (94, 0.0, 10.1)]
)
def test_the_agent_grows_only_a_nearly_full_window(una: int, check: float, grown: float) -> None:
    # tcp-vegas.cc line 290: ``if(v_incr_>0 && (cwnd_-(t_seqno_-last_ack_))<=2) cwnd_ +=
    # v_incr_``. A window of 10 with t_seqno_ 100: after an ACK of 92 (``una`` 93, the
    # next expected) 10 − (100 − 92) = 2, it grows by its 0.1; after an ACK of 93,
    # 10 − 7 = 3 > 2, it does not (without the check it does)
    ff, fi, _fs, _fq = ns2_vegas_agent(_CAP)
    ff[0, C.F_V_GROW_CHECK] = check
    ff[0, C.F_CWND], ff[0, C.F_INCR], ff[0, C.F_CAP] = 10.0, 0.1, 11.0
    fi[0, C.I_NXT], fi[0, C.I_UNA] = 100, una
    C._apply_incr.py_func(ff, fi, 0)
    assert ff[0, C.F_CWND] == pytest.approx(grown)


@pytest.mark.parametrize(
    "option", ["ns2_vegas_agent_delta", "ns2_vegas_integer_delta", "ns2_vegas_growth_check"]
)
def test_the_options_leave_other_senders_alone(option: str) -> None:
    # (the options' checks: tests/sim/test_sim_validation.py)
    assert getattr(Packet(**{option: True}), option) is True
    a, b, c, d = ns2_vegas_option_runs(option, {})
    assert [f.delivered_pkts for f in a.flows] == [f.delivered_pkts for f in b.flows]
    assert np.array_equal(a.flows[0].round_delta_pkts, b.flows[0].round_delta_pkts)
    # ns-2 Vegas agents with losses and timeouts: the option acts
    assert c.conserved and d.conserved
    assert [f.delivered_pkts for f in c.flows] != [f.delivered_pkts for f in d.flows]
