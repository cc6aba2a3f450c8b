"""Named, parameterised scenarios: one description consumed by every engine.

A :class:`Scenario` is plain data: links, flows, constant-bit-rate (CBR) sources and a
duration (:mod:`~tcpfluid.scenarios.model`). The packet simulator reads the links and the
flows' link lists directly; the round model and the ODE read the one reduction to a
bottleneck, :func:`fluid_view`, checked per engine by :func:`check_engine`
(:mod:`~tcpfluid.scenarios.reduction`). The documents' setups are registered by name with
:func:`register` and built by :func:`build_scenario` (:mod:`~tcpfluid.scenarios.catalogue`).

Examples
--------
>>> build_scenario("qv-basic", cbr="none").fluid_view().cross_traffic
()
>>> short = build_scenario("qv-many-flows", duration="150s")
>>> len(short.flows), short.notes[0][:40]
(40, '20 of 60 flows (S41-D41 ... S60-D60) wou')
"""

from . import (
    _paper_tables,  # noqa: F401  (registers the TCP-Ho paper's §5.2 scenarios)
    _thesis_tables,  # noqa: F401  (registers Tsang's thesis's many-flow network)
)
from .catalogue import (
    COMMON_DEFAULTS,
    LAW_PARAMETER_KEYS,
    SCENARIOS,
    ScenarioSpec,
    build_scenario,
    law_params,
    register,
    scenario_names,
    scenario_parameters,
)
from .files import load_scenario, scenario_to_toml
from .model import DISCIPLINES, CbrSource, FlowSpec, Link, Scenario
from .reduction import (
    ENGINE_CAPABILITIES,
    CrossTrafficChange,
    FluidView,
    bottleneck,
    check_engine,
    fluid_view,
)
from .topology import rtt_dumbbell

__all__ = [
    "COMMON_DEFAULTS",
    "DISCIPLINES",
    "ENGINE_CAPABILITIES",
    "LAW_PARAMETER_KEYS",
    "SCENARIOS",
    "CbrSource",
    "CrossTrafficChange",
    "FlowSpec",
    "FluidView",
    "Link",
    "Scenario",
    "ScenarioSpec",
    "bottleneck",
    "build_scenario",
    "check_engine",
    "fluid_view",
    "law_params",
    "load_scenario",
    "register",
    "rtt_dumbbell",
    "scenario_names",
    "scenario_parameters",
    "scenario_to_toml",
]
