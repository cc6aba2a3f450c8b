"""tcpfluid: closed forms, fluid models and a packet simulator for delay-based TCP.

Run any scenario on any engine with :func:`tcpfluid.simulate`
(``tcpfluid.simulate(build_scenario("qv-basic").with_algorithm("vegas"), engine="packet")``),
which returns one :class:`tcpfluid.Result` type with one :class:`tcpfluid.Summary` for every
engine; :func:`tcpfluid.packet_spread` gives the packet simulator's spread over start orders
(it informs, it is not a tolerance). Three layers describe the same congestion-control
algorithms and check each other:

* :mod:`tcpfluid.analytic` - closed forms (critical windows, rounds to equilibrium, the
  TCP-Ho conspicuous round, equilibria, Jain's index), each re-derived in SymPy;
* :mod:`tcpfluid.fluid` - a round-based model batched over scenarios, and an ODE model;
* :mod:`tcpfluid.sim` - a compiled packet-level simulator.

Your own experiment: write it as a scenario file (TOML: links, flows, cross traffic) and
load it with :func:`tcpfluid.load_scenario` (docs/your-own-scenario.md).

Internally every quantity is in packets, seconds and packets per second
(:mod:`tcpfluid.units` parses strings such as ``"50Mbps"`` or ``"100ms"``).
"""

from __future__ import annotations

import importlib
from typing import Any

from . import metrics, scenarios, units
from .path import Path
from .scenarios import load_scenario

__version__ = "0.1.0"

#: sub-modules loaded on first attribute access (``tcpfluid.sim`` imports Numba)
_LAZY = (
    "algorithms", "analytic", "engines", "fairness", "fluid", "plot", "published", "queueing",
    "report", "results", "sim", "sweep", "testing",
)  # fmt: skip

#: names loaded on first access: ``tcpfluid.simulate`` (the one way to run a scenario)
_LAZY_NAMES = {
    "simulate": "engines",
    "packet_spread": "engines",
    "Result": "results",
    "Summary": "results",
}

__all__ = [
    *_LAZY_NAMES,
    "Path",
    "__version__",
    "load_scenario",
    "metrics",
    "scenarios",
    "units",
    *_LAZY,
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module 'tcpfluid' has no attribute {name!r}")
