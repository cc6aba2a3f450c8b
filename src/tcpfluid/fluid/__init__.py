"""Fluid models: the round-based model (batched over scenarios) and the ODE model.

* :func:`simulate_rounds` - one step per RTT round (document 000 §4), any control law,
  thousands of scenarios per call (:mod:`tcpfluid.fluid.rounds`);
* :func:`simulate_ode` - continuous-time model of many flows (:mod:`tcpfluid.fluid.ode`);
* :func:`simulate_hybrid` - the hybrid fluid model: continuous queue and windows, every
  control law deciding at its flow's own round boundaries (:mod:`tcpfluid.fluid.hybrid`);
* equilibria of the ODE model (:mod:`tcpfluid.fluid.equilibrium`).
"""

from __future__ import annotations

from .equilibrium import (
    LowEquilibrium,
    RenoEquilibrium,
    low_utility_equilibrium,
    reno_equilibrium,
)
from .hybrid import HybridResult, simulate_hybrid, simulate_scenario_hybrid
from .ode import (
    ODE_LAWS,
    OdeFlow,
    OdeProblem,
    OdeResult,
    OdeSummary,
    RedQueue,
    ode_problem,
    simulate_ode,
    simulate_scenario_ode,
)
from .rounds import (
    RECORDABLE,
    CrossTraffic,
    PathBatch,
    RoundSummary,
    RoundTrace,
    RttModel,
    simulate_rounds,
    simulate_scenario_rounds,
)

__all__ = [
    "ODE_LAWS",
    "RECORDABLE",
    "CrossTraffic",
    "HybridResult",
    "LowEquilibrium",
    "OdeFlow",
    "OdeProblem",
    "OdeResult",
    "OdeSummary",
    "PathBatch",
    "RedQueue",
    "RenoEquilibrium",
    "RoundSummary",
    "RoundTrace",
    "RttModel",
    "low_utility_equilibrium",
    "ode_problem",
    "reno_equilibrium",
    "simulate_hybrid",
    "simulate_ode",
    "simulate_rounds",
    "simulate_scenario_hybrid",
    "simulate_scenario_ode",
    "simulate_scenario_rounds",
]
