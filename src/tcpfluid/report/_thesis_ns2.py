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

* **Reno's recovery** (packet simulator; the sections that run Reno flows: thesis-reno,
  thesis-many-flows, thesis-delayed-ack, and the asymmetric-networks paper's, whose ns
  is of the same years: its references end in 1999). The thesis's Reno flows are ns-2's
  ``Agent/TCP/Reno`` ("TCP Reno", ch. 2 §2; ns has one Reno agent), whose
  ``tcp-reno.cc`` from 1998 to 2003 (revisions 1.2x-1.39; 1.31 of 2000-03-16 cited in
  docs/simulator.md, "Fast recovery") leaves fast recovery at the first new ACK and
  fast-retransmits again at a later third duplicate ACK:
  ``simulate_packets(fast_recovery="reno")`` for every Reno flow.
* **Vegas's recovery** (packet simulator; the same sections). The thesis's Vegas flows
  are ns-2's ``Agent/TCP/Vegas`` (ch. 2 §7; its loss handling described and traced in
  ch. 3 §4.4.2: the "Vegas-type timeout" on a duplicate ACK, ``v_newcwnd_``, the window
  inflated by ``dupacks_``), as are the asymmetric-networks paper's Vegas and
  forward-path Vegas flows (ns's Vegas agent, its remedy a change of it): ns-2's Vegas
  recovery, ``simulate_packets(fast_recovery="ns2-vegas")`` (``tcp-vegas.cc``;
  docs/simulator.md, "Fast recovery"), with the timeout routine as the thesis amended it
  (ch. 3 §4.4.2.1: the timeout keeps ``v_newcwnd_`` and ``t_cwnd_changed_``; the thesis's
  tables are of the amended agent). ns-2's ``bugFix_`` was true then as now
  (``Agent/TCP set bugFix_ true``, ``tcl/lib/ns-default.tcl``) for its Reno and Vegas
  agents alike (``RenoTcpAgent::dupack_action``, ``VegasTcpAgent::recv``): no fast
  retransmit from the duplicate ACKs of a timeout's go-back, ``timeout_recover=True`` for
  every flow.

* **RED's drops** (packet simulator; every RED router of the sections that take these
  options: thesis-many-flows, thesis-delayed-ack, thesis-vegas-delta, thesis-reno). The
  thesis states the ns ``Queue/RED`` settings it changed (ch. 2 §6: ``q_weight_`` 0.002
  "unchanged", ``thresh_`` and ``maxthresh_``, ``linterm_`` 50, ``drop_tail_`` true) and
  kept the rest of ns's defaults, among them ``wait_ true`` (``tcl/lib/ns-default.tcl`` of
  2000, as in ns-2.35): ``REDQueue::drop_early`` (``red.cc``) drops no packet until
  ``count·p_b`` reaches 1 and then with ``p_b/(2 − count·p_b)``, so that its early drops
  are three times sparser at the same average than Floyd and Jacobson's
  ``p_b/(1 − count·p_b)`` (the thesis's ch. 2 §6 text, the packet simulator's default):
  ``simulate_packets(red_wait=True)``. On the many-flow network this moves goodput from
  the Vegas flows of a mix to its Reno flows (docs/mechanisms.md, "ns-2's RED wait_ and
  the mixes of Vegas and Reno").

* **FAST's recovery** (packet simulator; the sections on the TCP-Ho paper's §5.2 tables,
  ho-fairness and ho-friendliness). The TCP-Ho paper ran its FAST flows on ns-2 (§5: "by
  using the network simulator ns-2", FAST with α = 100), whose FAST agent is the
  University of Melbourne's FAST TCP module (``Agent/TCP/Fast``, ``tcp-fast.cc`` 1.1.x, of
  2005-2007: the paper is of 2007): a SACK sender that repairs every hole below the
  highest packet the receiver reported as soon as its packets in flight fall under the
  halved window, re-sends the oldest unacknowledged packet after two average RTTs, and
  does not back off its timer: ``simulate_packets(fast_recovery="ns2-fast")`` for every
  FAST flow (:func:`ns2_fast_options`), the other flows unchanged.

Not modelled (each section says where it matters): the thesis's maximum window of 30
packets on the two-flow network (the engines have none; nor the Vegas agent's ring of
send times of that size), ns-2's initial timeout (the thesis does not give it), and the
RTT samples rounded to ticks.
"""

from __future__ import annotations

from typing import Any

from ..scenarios.mix import with_flow_params

__all__ = [
    "DELACK_TIMEOUT_S",
    "DELAYED_ACK_ECHO",
    "MANY_FLOWS_MIN_RTO_S",
    "NS2_BUG_FIX",
    "NS2_FAST_RECOVERY",
    "NS2_RED_WAIT",
    "NS2_RENO_RECOVERY",
    "NS2_VEGAS_RECOVERY",
    "THESIS_INITIAL_WINDOW",
    "ns2_fast_options",
    "ns2_fast_recovery",
    "ns2_initial_window",
    "ns2_packet_options",
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


#: the fast recovery of ns-2's ``Agent/TCP/Reno`` as the documents' ns-2 had it (module
#: docstring; :func:`tcpfluid.sim.simulate_packets`, ``fast_recovery``)
NS2_RENO_RECOVERY = "reno"
#: the recovery of ns-2's ``Agent/TCP/Vegas`` (module docstring): every flow whose law is
#: of the Vegas family (Vegas's loss rule, :class:`tcpfluid.algorithms.vegas.Vegas`)
NS2_VEGAS_RECOVERY = "ns2-vegas"
#: the recovery of ns-2's FAST TCP module (``Agent/TCP/Fast``, ``tcp-fast.cc``; module
#: docstring): every flow whose law is FAST
NS2_FAST_RECOVERY = "ns2-fast"
#: ns-2's ``bugFix_`` (its default, for the Reno and Vegas agents): the packet simulator's
#: ``timeout_recover``
NS2_BUG_FIX = True
#: ns-2's ``Queue/RED`` ``wait_`` (its default, which the thesis kept; module docstring):
#: the packet simulator's ``red_wait``
NS2_RED_WAIT = True


def ns2_fast_recovery(algorithm: str) -> str:
    """The packet simulator's ``fast_recovery`` for a flow running ``algorithm``, as the
    documents' ns-2 agent for it recovered: Reno's for ``"reno"`` (``Agent/TCP/Reno``),
    the Vegas agent's for a law of the Vegas family (``Agent/TCP/Vegas``), the FAST TCP
    module's for ``"fast"`` (``Agent/TCP/Fast``), the simulator's default for any other
    (module docstring)."""
    from ..algorithms.registry import law_class
    from ..algorithms.vegas import Vegas

    if algorithm == "reno":
        return NS2_RENO_RECOVERY
    if algorithm == "fast":
        return NS2_FAST_RECOVERY
    if issubclass(law_class(algorithm), Vegas):
        return NS2_VEGAS_RECOVERY
    return "newreno"


def ns2_packet_options(scenario: Any) -> dict[str, Any]:
    """The packet simulator's sender options for ``scenario`` as the documents' ns-2 ran
    its flows: each flow's ``fast_recovery`` (:func:`ns2_fast_recovery`), ``timeout_recover``
    (ns-2's ``bugFix_``) and ``red_wait`` (ns-2's RED ``wait_``; module docstring)."""
    rec = tuple(ns2_fast_recovery(f.algorithm) for f in scenario.flows)
    return {"fast_recovery": rec, "timeout_recover": NS2_BUG_FIX, "red_wait": NS2_RED_WAIT}


def ns2_fast_options(scenario: Any) -> dict[str, Any]:
    """The packet simulator's sender options for ``scenario`` with its FAST flows as ns-2's
    FAST TCP module recovers (``fast_recovery="ns2-fast"``) and every other flow with the
    simulator's default recovery (module docstring); ``{}`` when no flow runs FAST."""
    rec = tuple(NS2_FAST_RECOVERY if f.algorithm == "fast" else "newreno" for f in scenario.flows)
    return {"fast_recovery": rec} if NS2_FAST_RECOVERY in rec else {}
