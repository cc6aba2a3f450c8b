"""Continuous-time fluid model of N window-based flows on one bottleneck.

The classical model (:func:`simulate_ode`): the fluid arguments the documents lean on (Mo
et al. and Boutremans–Le Boudec for Vegas, thesis ch. 2 §5; Low's duality view of Vegas;
the Misra–Gong–Towsley model of Reno over RED), each flow's window, recorded BaseRTT and
delivered and lost packets, the bottleneck, RED-averaged and ACK-path queues, integrated
with :func:`scipy.integrate.solve_ivp`; every switch is a Lipschitz ramp of stated width.
:func:`simulate_scenario_ode` runs a scenario on it or on the hybrid model
(:mod:`tcpfluid.fluid.hybrid`). The state, right-hand sides, ramps and limits:
docs/ode-model.md.
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
