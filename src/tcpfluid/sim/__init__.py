"""The embedded packet simulator: a compiled discrete-event core driving the control laws.

:func:`simulate_packets` runs a :class:`tcpfluid.scenarios.Scenario` packet by packet:
FIFO links (drop-tail or RED), window-based ACK-clocked senders whose per-round decisions
come from the same :mod:`tcpfluid.algorithms` law objects as the round model, receivers
with immediate or delayed cumulative ACKs, CBR cross traffic. See ``docs/simulator.md``.
:func:`start_jitter` gives the senders' start delays of the same scenario with another
start order (:func:`tcpfluid.packet_spread` runs several).
"""

from __future__ import annotations

from ._start_order import JITTER_PACKET_TIMES, JITTER_RTT_FRACTION, start_jitter
from .engine import FlowTrace, LinkTrace, PacketResult, simulate_packets
from .summary import PacketSummary

__all__ = [
    "JITTER_PACKET_TIMES",
    "JITTER_RTT_FRACTION",
    "FlowTrace",
    "LinkTrace",
    "PacketResult",
    "PacketSummary",
    "simulate_packets",
    "start_jitter",
]
