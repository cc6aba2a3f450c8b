"""ns-2's ``Agent/TCP/Vegas`` recovery (``simulate_packets(fast_recovery="ns2-vegas")``),
checked against traces worked out by hand from ns-2's ``tcp/tcp-vegas.cc`` (revision 1.37,
ns-2.35; docs/simulator.md, "Fast recovery"; line numbers are that file's).

The network: one forward link F (8 Mb/s: 1 ms per 1000-byte packet, 10 ms of propagation)
and one ACK link B (320 kb/s: 1 ms per 40-byte ACK, 5 ms), so a packet alone on the path
is acknowledged 17 ms after it is sent. The law keeps whatever window it is given (Vegas's
loss rule, which ``"ns2-vegas"`` requires, and a round rule that changes nothing): every
change of the window below is the agent's.

The agent's rules used (``VegasTcpAgent::recv``):

* each new ACK updates the fine-grained timeout ``v_timeout_`` from the RTT of the highest
  packet it acknowledges when that packet was sent once (lines 304-332), the first ACK
  after setting ``v_sa_ = 8 v_rtt_``, ``v_sd_ = v_rtt_`` (lines 179-185);
* a duplicate ACK counts (``dupacks_``); if the first unacknowledged packet has waited at
  least ``v_timeout_`` (``vegas_expire``), or at the third, the packet is retransmitted;
  if the window has not been cut since it was sent, ``win = int(cwnd_)`` becomes
  ``v_newcwnd_ = win - (win >> 2)`` and ``cwnd_ = v_newcwnd_ + dupacks_``, and
  ``dupacks_`` is set to three (lines 351-403); each further duplicate ACK adds one
  packet (lines 404-405);
* the first new ACK after more than three duplicate ACKs sets ``cwnd_ = v_newcwnd_``
  (lines 194-198); the first two new ACKs after the retransmission check the next
  unacknowledged packet the same way and retransmit it if it expired, with no cut
  (``v_worried_``, lines 337-350).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms import RoundAction, RoundSample
from tcpfluid.algorithms.base import LOSS_FAST
from tcpfluid.algorithms.vegas import Vegas
from tcpfluid.scenarios import FlowSpec, Link, Scenario, rtt_dumbbell
from tcpfluid.sim import simulate_packets


class HeldVegas(Vegas):
    """Vegas's loss rule; a first window of ``w`` packets that no round decision changes."""

    def __init__(self, w: float) -> None:
        super().__init__(initial_window=w)

    def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
        w = np.array(sample.cwnd, dtype=float)
        return RoundAction(cwnd=w, incr=np.zeros_like(w), cap=w.copy())


def _tiny(buffer: float, duration: float) -> Scenario:
    return Scenario(
        name="tiny",
        links=(Link("F", 8e6, 0.010, buffer), Link("B", 320e3, 0.005)),
        flows=(FlowSpec("f", ("F",), ("B",), algorithm=None),),
        duration_s=duration,
    )


def _run(buffer: float, duration: float, **options: Any) -> Any:
    return simulate_packets(
        _tiny(buffer, duration),
        laws={"f": HeldVegas(10)},
        sample_interval_s=0.0005,
        fast_recovery="ns2-vegas",
        **options,
    )


def _cwnd_at(res: Any, ms: float) -> float:
    """The window at ``ms`` milliseconds (the trace is sampled every 0.5 ms; the times asked
    for are half-way between two events, which all fall on whole milliseconds)."""
    t = np.asarray(res.t_s)
    i = int(np.argmin(np.abs(t - ms / 1000.0)))
    assert t[i] == pytest.approx(ms / 1000.0, abs=1e-9)
    return float(res.flows[0].cwnd_pkts[i])


def _v_timeout_ms(rtts_ms: list[float]) -> float:
    """ns-2's ``v_timeout_`` after the first ACK (``v_rtt_`` its RTT) and the samples
    ``rtts_ms`` (lines 182-184 and 320-330), in ms."""
    sa, sd = 8.0 * rtts_ms[0], rtts_ms[0]
    vto = (sa / 4 + sd) / 2
    for r in rtts_ms:
        n = r - sa / 8
        sa += n
        n = abs(n) - sd / 4
        sd += n
        vto = (sa / 4 + sd) / 2
        vto += vto / 16
    return vto


def test_one_drop_cut_to_three_quarters_in_whole_packets() -> None:
    # Ten packets at t = 0 into a buffer of 8 waiting places: packet 9 is dropped (it
    # finds 8 waiting). Packets 0-8 are acknowledged at 17..25 ms (packet k waited k ms
    # in the queue), each ACK sending one new packet (10..18 at 17..25 ms), whose
    # duplicate ACKs reach the sender at 34..42 ms.
    res = _run(buffer=8, duration=0.052)
    assert res.links[0].data_drops == 1
    # v_timeout_ from the RTTs 17..25 ms: about 30.4 ms, less than the 34 ms packet 9 has
    # waited at the first duplicate ACK: Vegas's fine-grained retransmission, there
    assert _v_timeout_ms([17.0 + k for k in range(9)]) < 34.0
    fl = res.flows[0]
    assert fl.loss_t_s.tolist() == pytest.approx([0.034], abs=1e-9)
    assert fl.loss_kind.tolist() == [LOSS_FAST]
    # win = 10: v_newcwnd_ = 10 - (10 >> 2) = 8 (Vegas's 3/4 rule gives 7.5)
    assert fl.loss_cwnd_before_pkts.tolist() == [10.0]
    assert fl.loss_cwnd_after_pkts.tolist() == [8.0]
    assert _cwnd_at(res, 33.5) == 10.0
    # cwnd_ = v_newcwnd_ + dupacks_ = 8 + 1 at 34 ms; dupacks_ = 3 then, and each
    # duplicate ACK from 35 ms on adds one: 10 at 35 ms ... 17 at 42 ms
    assert _cwnd_at(res, 34.5) == 9.0
    assert [_cwnd_at(res, m + 0.5) for m in range(35, 43)] == [10.0 + k for k in range(8)]
    assert _cwnd_at(res, 50.5) == 17.0
    # the retransmission (34 ms) is acknowledged at 51 ms: dupacks_ = 9 > 3, cwnd_ = 8
    assert _cwnd_at(res, 51.5) == 8.0
    # sent: 10, then 9 on the ACKs at 17..25 ms, the retransmission, one packet each for
    # the windows 11..17 (36..42 ms: 10 packets outstanding until then), and one at 51 ms
    # (outstanding 26 - 19 = 7 < 8)
    assert fl.sent_pkts == 10 + 9 + 1 + 7 + 1
    assert fl.retransmissions == 1
    assert fl.fast_retransmits == 1
    assert fl.timeouts == 0


def test_second_hole_retransmitted_at_the_new_ack_without_a_second_cut() -> None:
    # A buffer of 7: packets 8 and 9 are dropped. Packets 0-7 are acknowledged at
    # 17..24 ms and send packets 10..17, whose duplicate ACKs arrive at 34..41 ms.
    res = _run(buffer=7, duration=0.069)
    assert _cwnd_at(res, 67.5) == 14.0
    assert res.links[0].drops[int(np.searchsorted(res.t_s, 0.0675))] == 2
    assert _v_timeout_ms([17.0 + k for k in range(8)]) < 34.0
    fl = res.flows[0]
    # 34 ms: packet 8 expired, retransmitted, cut 10 -> 8, cwnd_ = 9; +1 per duplicate
    # ACK from 35 ms: 16 at 41 ms (packets 18..23 sent at 36..41 ms)
    assert _cwnd_at(res, 34.5) == 9.0
    assert _cwnd_at(res, 41.5) == 16.0
    # 51 ms: the ACK of the retransmission (ack 9) deflates to 8, and, v_worried_,
    # finds packet 9 waiting since 0 ms (> v_timeout_): retransmitted, no cut,
    # dupacks_ = 3 again
    assert _cwnd_at(res, 51.5) == 8.0
    # packets 18..23 bring duplicate ACKs at 53..58 ms: 9 .. 14
    assert [_cwnd_at(res, m + 0.5) for m in range(53, 59)] == [9.0 + k for k in range(6)]
    # 68 ms: packet 9's retransmission acknowledged (ack 24, everything sent): cwnd_ =
    # v_newcwnd_ = 8. It is the second new ACK after the cut (v_worried_ 1 -> 0): packet
    # 24, never sent, counts as expired (its v_sendtime_ entry is -1) and goes out
    # (``output(expired)``, line 347), then ``send_much`` sends from ``t_seqno_`` = 24:
    # packet 24 again and 25..31, nine packets at once into 7 waiting places: packet 31 is
    # dropped (the thesis's "unnecessary retransmission", ch. 3 §4.4.2.2)
    assert _cwnd_at(res, 68.5) == 8.0
    assert res.links[0].data_drops == 3
    assert fl.sent_pkts == 10 + 8 + 1 + 6 + 1 + 9
    # one cut (one loss told to the law); packets 8, 9 and 24 sent twice
    assert fl.loss_t_s.tolist() == pytest.approx([0.034], abs=1e-9)
    assert fl.loss_cwnd_after_pkts.tolist() == [8.0]
    assert fl.retransmissions == 3
    assert fl.timeouts == 0


def test_bad_inputs_are_refused() -> None:
    sc = rtt_dumbbell(10e6, [0.05], ["reno"], duration_s=2.0, buffer_pkts=30)
    with pytest.raises(ValueError, match=r"fast_recovery='ns2-vegas' \(flow .*Reno"):
        simulate_packets(sc, fast_recovery="ns2-vegas")
    with pytest.raises(ValueError, match=r"fast_recovery='ns2-vegas' \(flow .*Fast"):
        simulate_packets(sc.with_algorithm("fast"), fast_recovery="ns2-vegas")
    vegas = sc.with_algorithm("vegas")
    with pytest.raises(ValueError, match="cannot take fine_retransmit=False"):
        simulate_packets(vegas, fast_recovery="ns2-vegas", fine_retransmit=False)
    with pytest.raises(ValueError, match=r"fast_recovery must be one of .*'ns2-vegas'"):
        simulate_packets(vegas, fast_recovery="ns2_vegas")
    # per flow: a Vegas flow may take it beside a Reno flow recovering as Reno
    two = rtt_dumbbell(10e6, [0.05, 0.05], ["vegas", "reno"], duration_s=2.0, buffer_pkts=30)
    assert simulate_packets(two, fast_recovery=("ns2-vegas", "reno")).conserved
    with pytest.raises(ValueError, match=r"flow .*Reno"):
        simulate_packets(two, fast_recovery=("ns2-vegas", "ns2-vegas"))


def test_packet_engine_takes_the_option() -> None:
    from tcpfluid.engines import Packet

    assert Packet(fast_recovery="ns2-vegas").fast_recovery == "ns2-vegas"
    with pytest.raises(ValueError, match="fast_recovery"):
        Packet(fast_recovery="vegas")


def test_many_losses_conserve_packets_and_repeat() -> None:
    # eight Vegas flows behind a small RED buffer: many fast retransmissions, inflations,
    # fine-grained checks and timeouts; every packet accounted for, and the same seed gives
    # the same run
    sc = rtt_dumbbell(
        10e6, [0.02, 0.04, 0.06, 0.08] * 2, ["vegas"] * 8, duration_s=20.0, buffer_pkts=20,
        red=True,
    )  # fmt: skip
    a = simulate_packets(sc, seed=5, fast_recovery="ns2-vegas", timeout_recover=True)
    b = simulate_packets(sc, seed=5, fast_recovery="ns2-vegas", timeout_recover=True)
    assert a.conserved
    assert sum(f.fast_retransmits for f in a.flows) > 20
    assert [f.delivered_pkts for f in a.flows] == [f.delivered_pkts for f in b.flows]
    assert [f.cwnd_pkts.tolist() for f in a.flows] == [f.cwnd_pkts.tolist() for f in b.flows]
    assert all(float(np.min(f.cwnd_pkts[1:])) >= 1.0 for f in a.flows)
