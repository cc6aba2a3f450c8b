"""Tsang's thesis's simulator, ns-2, as the report's thesis sections model it.

The thesis ran ns-2's ``Agent/TCP/Vegas`` (with its two changes, ch. 2 §7) and
``Agent/TCP/Reno`` agents. Where the thesis, or ns-2's defaults that it kept, states a
setting that the library can take, every packet run of a thesis section takes it, the
same for every row of the section (and the fluid engines where they have the setting):

* **Initial window: one packet.** The thesis says so of its Vegas agents on both networks
  (ch. 3 §4.1.1: the window "grows from 1 to 2 and then from 2 to 4"; §4.2.1: "from 1 to
  2 at 0.026420 seconds"; §4.5.2, on the many-flow network: "TCP Vegas sends 1 segment
  and waits for the return of its acknowledgement"); of its Reno agents it says nothing,
  and ns-2's default applies, also one packet: ``Agent/TCP set windowInit_ 1``
  (ns-2's ``tcl/lib/ns-default.tcl``) and ``TcpAgent::reset`` starts ``cwnd_`` at
  ``initial_window()`` (ns-2's ``tcp/tcp.cc``). The library's laws start at 2.
* **Retransmission timer.** ns-2 never lets the timeout fall below two ticks of its
  clock (``tcp/tcp.cc``, ``TcpAgent::rtt_timeout``: ``if (timeout < 2 * tcp_tick_)
  timeout = 2 * tcp_tick_``). The tick is ns-2's default 0.1 s on the two-flow network
  (the thesis sets none there): a floor of 0.2 s, the packet simulator's own; on the
  many-flow network the thesis sets 0.5 s (Table 3.19: "TCP timeout granularity 0.5
  seconds (Default in ns is 0.1 second)"): a floor of 1 s.
* **Delayed ACKs** (ch. 3 §4.5 only). The timer is 0.5 s (Table 3.28's first BaseRTT
  behind a delaying receiver, 0.518544 s, is the 0.013211-s minimum RTT plus 0.5 s and
  one packet time), and ns-2's ``DelAckSink`` acknowledges a pair with the packet that
  completes it, echoing that packet's send time (``tcp/tcp-sink.cc``,
  ``DelAckSink::recv``: ``ack(pkt)`` of the arriving packet); the packet simulator echoes
  the first packet's by default (RFC 7323 §4.3). Only the packet simulator models
  delayed ACKs.

Not modelled (each section says where it matters): the thesis's maximum window of 30
packets on the two-flow network (the engines have none), ns-2's Reno's recovery without
partial ACKs (the packet simulator's sender recovers as New Reno does), ns-2's initial
timeout (the thesis does not give it), and the RTT samples rounded to ticks.
"""

from __future__ import annotations

from typing import Any

from ..scenarios.mix import with_flow_params

__all__ = [
    "DELACK_TIMEOUT_S",
    "DELAYED_ACK_ECHO",
    "MANY_FLOWS_MIN_RTO_S",
    "THESIS_INITIAL_WINDOW",
    "ns2_initial_window",
]

#: the window every thesis agent starts from, packets (module docstring)
THESIS_INITIAL_WINDOW = 1.0
#: ns-2's timer floor, two ticks: Table 3.19's 0.5 s on the many-flow network
MANY_FLOWS_MIN_RTO_S = 2 * 0.5
#: the thesis's delayed-ACK timer, s (module docstring)
DELACK_TIMEOUT_S = 0.5
#: whose send time a delayed ACK echoes: ns-2's DelAckSink, the latest packet's
DELAYED_ACK_ECHO = "latest"


def ns2_initial_window(scenario: Any, initial_window: float = THESIS_INITIAL_WINDOW) -> Any:
    """``scenario`` with every flow's window starting at ``initial_window`` packets (the
    thesis's ns-2 agents: one packet; module docstring)."""
    return with_flow_params(scenario, None, {"initial_window": float(initial_window)})
