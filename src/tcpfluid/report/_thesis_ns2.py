"""Tsang's thesis's simulator, ns-2, as the report's thesis sections model it: the settings
every packet run of a thesis section takes (one-packet initial window, the timer's floor,
delayed ACKs, the agents' recovery, RED's ``wait_``), each with its source in the thesis and
ns-2's code, are listed in docs/report.md, "The thesis's ns-2 set-up".
"""

from __future__ import annotations

from typing import Any

from ..scenarios.mix import with_flow_params

#: the window every thesis agent starts from, packets
THESIS_INITIAL_WINDOW = 1.0
#: ns-2's timer floor, two ticks: Table 3.19's 0.5 s on the many-flow network
MANY_FLOWS_MIN_RTO_S = 2 * 0.5
#: the thesis's delayed-ACK timer, s
DELACK_TIMEOUT_S = 0.5
#: whose send time a delayed ACK echoes: ns-2's DelAckSink, the latest packet's
DELAYED_ACK_ECHO = "latest"


def ns2_initial_window(scenario: Any, initial_window: float = THESIS_INITIAL_WINDOW) -> Any:
    """``scenario`` with every flow's window starting at ``initial_window`` packets."""
    return with_flow_params(scenario, None, {"initial_window": float(initial_window)})


#: the packet simulator's ``fast_recovery`` of ns-2's ``Agent/TCP/Reno``, ``Agent/TCP/Vegas``
#: (every law of the Vegas family) and FAST TCP module; its ``red_wait`` of ns-2's RED
NS2_RENO_RECOVERY = "reno"
NS2_VEGAS_RECOVERY = "ns2-vegas"
NS2_FAST_RECOVERY = "ns2-fast"
NS2_RED_WAIT = True


def ns2_fast_recovery(algorithm: str) -> str:
    """The packet simulator's ``fast_recovery`` for a flow running ``algorithm`` as the
    documents' ns-2 agent for it recovered (the simulator's default for any other law)."""
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
    """The packet simulator's options for ``scenario`` as the documents' ns-2 ran its flows:
    each flow's ``fast_recovery`` and ``red_wait`` (``bugFix_`` is the default)."""
    rec = tuple(ns2_fast_recovery(f.algorithm) for f in scenario.flows)
    return {"fast_recovery": rec, "red_wait": NS2_RED_WAIT}


def ns2_fast_options(scenario: Any) -> dict[str, Any]:
    """The packet simulator's options for ``scenario`` with its FAST flows recovering as
    ns-2's FAST TCP module, the others as by default; ``{}`` when no flow runs FAST."""
    rec = tuple(NS2_FAST_RECOVERY if f.algorithm == "fast" else "newreno" for f in scenario.flows)
    return {"fast_recovery": rec} if NS2_FAST_RECOVERY in rec else {}
