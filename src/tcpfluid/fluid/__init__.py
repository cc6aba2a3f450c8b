"""Fluid models: the round-based model (batched over scenarios) and the ODE model.

* :func:`simulate_rounds` - one step per RTT round (the Quick Vegas paper, §4), any control law,
  thousands of scenarios per call (:mod:`tcpfluid.fluid.rounds`);
* :func:`simulate_ode` - continuous-time model of many flows (:mod:`tcpfluid.fluid.ode`);
* :func:`simulate_hybrid` - the hybrid fluid model: continuous queue and windows, every
  control law deciding at its flow's own round boundaries (:mod:`tcpfluid.fluid.hybrid`);
* equilibria of the ODE model (:mod:`tcpfluid.fluid.equilibrium`).
"""

from __future__ import annotations

import importlib
from typing import Any

# each public name (``__all__`` in this order) and its module, loaded on first use
_WHERE = {
    "ODE_LAWS": "ode",
    "RECORDABLE": "rounds",
    "CrossTraffic": "rounds",
    "HybridResult": "hybrid",
    "LowEquilibrium": "equilibrium",
    "OdeFlow": "ode",
    "OdeProblem": "ode",
    "OdeResult": "ode",
    "OdeSummary": "ode",
    "PathBatch": "rounds",
    "RedQueue": "ode",
    "RenoEquilibrium": "equilibrium",
    "RoundSummary": "rounds",
    "RoundTrace": "rounds",
    "RttModel": "rounds",
    "low_utility_equilibrium": "equilibrium",
    "ode_problem": "ode",
    "reno_equilibrium": "equilibrium",
    "simulate_hybrid": "hybrid",
    "simulate_ode": "ode",
    "simulate_rounds": "rounds",
    "simulate_scenario_hybrid": "hybrid",
    "simulate_scenario_ode": "ode",
    "simulate_scenario_rounds": "rounds",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = list(_WHERE)
