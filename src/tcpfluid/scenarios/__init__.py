"""Named, parameterised scenarios: one description consumed by every engine.

A :class:`Scenario` is plain data: links, flows, constant-bit-rate (CBR) sources and a
duration. The package has three parts a reader finds by name:

* :mod:`tcpfluid.scenarios.model` - the data model (:class:`Link`, :class:`FlowSpec`,
  :class:`CbrSource`, :class:`Scenario`);
* :mod:`tcpfluid.scenarios.reduction` - the one reduction of a scenario for the fluid
  engines (:func:`fluid_view`: bottleneck, rates, per-flow base RTTs, reverse path, cross
  traffic, queue discipline) and the table of what each engine can model
  (:func:`check_engine`);
* :mod:`tcpfluid.scenarios.catalogue` - the documents' setups, registered by name with the
  :func:`register` decorator, and :func:`build_scenario`.

The packet simulator (:mod:`tcpfluid.sim`) reads the links and the flows' link lists
directly; the round model and the ODE read :func:`fluid_view`.

Examples
--------
>>> sc = build_scenario("qv-basic")
>>> view = sc.fluid_view()
>>> round(view.path.bdp, 1), [(c.start_s, c.stop_s) for c in view.cross_traffic]
(626.1, [(80.0, 160.0)])
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
