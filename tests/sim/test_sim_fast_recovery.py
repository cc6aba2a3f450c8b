"""The senders' fast recovery (``simulate_packets(fast_recovery=...)``): NewReno, and ns-2's
``Agent/TCP/Reno`` as its ``tcp-reno.cc`` was in 1998-2003 (``"reno"``) and from 2005 on
(``"reno-exit"``); docs/simulator.md, "Fast recovery".

The checks read the bottleneck's drop counter, not the sender's bookkeeping: one flow on a
path whose only losses are the bottleneck's drops and whose links keep packets in order.
A fast retransmit is for a packet dropped before it. ns-2's rules say where that drop can
fall:

* NewReno ends recovery when the packets outstanding at the loss are acknowledged, so a
  later fast retransmit is for a packet sent, hence dropped, after the previous loss event;
* ``"reno-exit"`` with ``bugFix_`` (``timeout_recover=True``; ``dupack_action`` of
  ns-2.35's ``tcp-reno.cc``) allows no fast retransmit until the ACKs pass the highest
  packet sent at the previous one: the same, and the other holes of that window end in a
  timeout;
* ``"reno"`` leaves recovery at the first new ACK and retransmits again at the next third
  duplicate ACK (``allow_fast_retransmit``: the last action was a fast retransmit): a
  window with two drops is two fast retransmits, the second with no drop since the first
  (several halvings).
"""

from __future__ import annotations

import pytest
from _simkit import spurious_fast_retransmits as _spurious

from tcpfluid.engines import Packet
from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.scenarios.mix import with_flow_params
from tcpfluid.sim import PacketResult, simulate_packets


def _run(fast_recovery: str, timeout_recover: bool = True) -> PacketResult:
    # one Reno flow, 10 Mb/s x 50 ms behind RED (buffer 80): RED's random drops put two
    # drops in some windows; a fine trace reads the drop counter at each loss
    sc = rtt_dumbbell(10e6, [0.05], ["reno"], duration_s=60.0, buffer_pkts=80, red=True)
    sc = with_flow_params(sc, None, {"initial_window": 1.0})
    return simulate_packets(
        sc,
        seed=3,
        sample_interval_s=0.001,
        fast_recovery=fast_recovery,
        timeout_recover=timeout_recover,
    )


def test_reno_cuts_again_for_a_second_drop_of_the_same_window() -> None:
    newreno, reno, exit_ = _run("newreno"), _run("reno"), _run("reno-exit")
    # NewReno and ns-2.35's Reno: every fast retransmit follows a drop since the last loss
    assert _spurious(newreno) == 0
    assert _spurious(exit_) == 0
    # ns-2's Reno of 1998-2003: some follow none (a second cut for the same window)
    assert _spurious(reno) >= 1
    assert reno.flows[0].fast_retransmits > newreno.flows[0].fast_retransmits
    # ns-2.35's: the windows that the other two repair end in a timeout instead
    assert exit_.flows[0].timeouts > reno.flows[0].timeouts
    assert exit_.flows[0].timeouts > newreno.flows[0].timeouts


def test_reno_exit_without_bugfix_is_reno() -> None:
    # without bugFix_ (timeout_recover=False) nothing holds a fast retransmit back, and
    # the two revisions of tcp-reno.cc differ only in what bugFix_ holds back and in the
    # window's inflation by duplicate ACKs that start no fast retransmit (none then)
    a = _run("reno", timeout_recover=False)
    b = _run("reno-exit", timeout_recover=False)
    assert a.flows[0].fast_retransmits == b.flows[0].fast_retransmits
    assert a.flows[0].delivered_pkts == b.flows[0].delivered_pkts


def test_fast_recovery_per_flow() -> None:
    sc = rtt_dumbbell(10e6, [0.05, 0.05], ["reno", "reno"], duration_s=5.0, buffer_pkts=30)
    res = simulate_packets(sc, fast_recovery=("reno", "newreno"))
    assert res.conserved
    with pytest.raises(ValueError, match=r"fast_recovery as a sequence .* \(2 flows\)"):
        simulate_packets(sc, fast_recovery=("reno",))
    with pytest.raises(ValueError, match="fast_recovery as a sequence"):
        simulate_packets(sc, fast_recovery=("reno", "tahoe"))


@pytest.mark.parametrize("bad", ["tahoe", "Reno", ""])
def test_fast_recovery_is_checked(bad: str) -> None:
    sc = rtt_dumbbell(10e6, [0.05], ["reno"], duration_s=1.0, buffer_pkts=30)
    with pytest.raises(ValueError, match=f"fast_recovery must be one of .* got {bad!r}"):
        simulate_packets(sc, fast_recovery=bad)
    with pytest.raises(ValueError, match="fast_recovery must be one of"):
        Packet(fast_recovery=bad)


def test_fast_recovery_type_is_checked() -> None:
    sc = rtt_dumbbell(10e6, [0.05], ["reno"], duration_s=1.0, buffer_pkts=30)
    with pytest.raises(TypeError, match="fast_recovery must be one of"):
        simulate_packets(sc, fast_recovery=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="timeout_recover must be True or False, got 1"):
        Packet(timeout_recover=1)  # type: ignore[arg-type]


def test_packet_engine_passes_the_sender_options() -> None:
    # the engine's options reach the simulator: the run through Packet is the direct one
    sc = rtt_dumbbell(10e6, [0.05], ["reno"], duration_s=20.0, buffer_pkts=80, red=True)
    direct = simulate_packets(sc, seed=3, fast_recovery="reno-exit", timeout_recover=True)
    default = simulate_packets(sc, seed=3)
    eng = Packet(seed=3, fast_recovery="reno-exit", timeout_recover=True)
    res = eng.run(sc)
    assert res.native.flows[0].timeouts == direct.flows[0].timeouts
    assert res.native.flows[0].delivered_pkts == direct.flows[0].delivered_pkts
    assert direct.flows[0].delivered_pkts != default.flows[0].delivered_pkts
