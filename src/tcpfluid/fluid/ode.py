"""Continuous-time fluid model of N window-based flows on one bottleneck.

The model follows the fluid arguments the documents lean on: Mo et al. and Boutremans–Le
Boudec for Vegas (Tsang's thesis, ch. 2 §5), Low's duality view of Vegas, and the
Misra–Gong–Towsley (MGT) model of TCP Reno over RED. It is integrated with
:func:`scipy.integrate.solve_ivp`. See ``docs/ode-model.md`` for the derivation, how the
Vegas discontinuity is handled and the limits of the model.

State (``n`` flows):

``w_j``  congestion window, packets;
``x_j``  over-estimation of the propagation delay in the recorded BaseRTT, s
         (BaseRTT_j = d_j + x_j, thesis ch. 2 §5); a flow joining a busy link records the
         queueing delay it sees at its first RTT sample and only lowers it when the queue
         empties further (a running minimum);
``D_j``, ``L_j`` cumulative delivered and lost packets (exact averages);
``q``   bottleneck queue, packets, kept within ``[0, buffer]``;
``q̄``   RED's averaged queue (MGT eq.: dq̄/dt = C ln(1 − w_q)(q̄ − q));
``q_r`` queue of the ACK path bottleneck (the asymmetric-networks paper), ACKs;
``∫q``  integrated queue (for the mean queue length).

Right-hand sides (rate ``r_j = w_j / RTT_j`` with ``RTT_j = d_j + q/C + q_r/C_r``, loss
probability ``p`` from drop-tail or RED, Vegas's backlog ``Δ_j = w_j (1 − BaseRTT_j/RTT_j)``,
eq. 1 of the Quick Vegas paper):

* Vegas / Enhanced Vegas (eq. 2 of the Quick Vegas paper: ±1 per RTT):
  ``dw_j/dt = s(Δ_j)/RTT_j − κ_j w_j p r_j`` with ``s`` a ramped sign of stated width ε;
* FAST: ``dw_j/dt = min(γ (α_j − Δ_j), w_j) / RTT_j − w_j p r_j / 2``
  (per-RTT update ``w ← min(2w, (1−γ)w + γ(w BaseRTT/RTT + α))``);
* Reno (MGT, without the feedback delay): ``dw_j/dt = 1/RTT_j − w_j p r_j / 2``;
* queue: ``dq/dt = inflow − min(C, inflow + C q/q_s)`` with ``inflow = (1 − p)(Σ r_j +
  CBR)``: the link serves C while a queue exists and the arrivals while it is empty.

Every switch (Vegas's sign, the empty queue, drop-tail overflow, RED's cliff, the window
floor and cap) is a Lipschitz ramp of stated width: a jump in the right-hand side lets an
implicit solver's Newton iteration converge to a wrong trajectory silently.
"""

from __future__ import annotations

from ._ode_scenario import ODE_MODELS, OdeProblem, ode_problem, simulate_scenario_ode
from ._ode_solve import simulate_ode
from ._ode_types import ODE_LAWS, OdeFlow, OdeResult, OdeSummary, RedQueue

__all__ = [
    "ODE_LAWS",
    "ODE_MODELS",
    "OdeFlow",
    "OdeProblem",
    "OdeResult",
    "OdeSummary",
    "RedQueue",
    "ode_problem",
    "simulate_ode",
    "simulate_scenario_ode",
]
