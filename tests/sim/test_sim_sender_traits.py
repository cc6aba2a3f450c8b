"""The packet sender's retransmission behaviour comes from the law's declared sender traits
(``ControlLaw.sender``), not from the law's name.

Reno's sender retransmits on three duplicate ACKs or a timeout only; every other law's
uses Vegas's fine-grained check (the Quick Vegas paper §3.1) unless the run sets
``fine_retransmit``. The references here are runs with ``fine_retransmit`` given
explicitly, which the sender obeys whatever the law; each case first checks that the
setting changes its run.
"""

from __future__ import annotations

from typing import ClassVar

from _simkit import assert_same_run

from tcpfluid.algorithms import Reno, SenderTraits, Vegas
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets


class _RenoUnderAnotherName(Reno):
    name: ClassVar[str] = "reno-renamed"


class _CoarseVegas(Vegas):
    name: ClassVar[str] = "vegas-coarse"
    sender: ClassVar[SenderTraits] = SenderTraits(fine_retransmit=False)


def test_reno_under_another_name_keeps_renos_sender() -> None:
    # two Reno flows overflowing a 10-packet buffer
    sc = build_scenario("thesis-two-flow", duration="20s", buffer=10).with_algorithm("reno")
    coarse = simulate_packets(sc, fine_retransmit=False)
    fine = simulate_packets(sc, fine_retransmit=True)
    assert fine.events != coarse.events
    renamed = simulate_packets(sc, laws={f.name: _RenoUnderAnotherName() for f in sc.flows})
    assert_same_run(renamed, coarse)


def test_a_law_that_declares_no_fine_check_gets_none() -> None:
    # Vegas's slow start overflows a 30-packet buffer under the CBR
    sc = build_scenario("qv-basic", duration="20s", buffer=30).with_algorithm("vegas")
    coarse = simulate_packets(sc, fine_retransmit=False)
    fine = simulate_packets(sc)
    assert fine.events != coarse.events
    declared = simulate_packets(sc, laws={f.name: _CoarseVegas() for f in sc.flows})
    assert_same_run(declared, coarse)
    assert_same_run(simulate_packets(sc, laws={f.name: Vegas() for f in sc.flows}), fine)
