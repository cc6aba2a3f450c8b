"""Named, parameterised scenarios: one description consumed by every engine.

A :class:`Scenario` is plain data (links, flows, CBR sources, a duration); the packet
simulator reads its links, the fluid engines its reduction to one bottleneck
(:func:`fluid_view`, checked per engine by :func:`check_engine`). The documents' setups are
registered by name (:func:`register`) and built by :func:`build_scenario`.
"""

from . import _paper_tables  # noqa: F401  (registers the documents' table scenarios)
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
    "COMMON_DEFAULTS", "DISCIPLINES", "ENGINE_CAPABILITIES", "LAW_PARAMETER_KEYS", "SCENARIOS",
    "CbrSource", "CrossTrafficChange", "FlowSpec", "FluidView", "Link", "Scenario", "ScenarioSpec",
    "bottleneck", "build_scenario", "check_engine", "fluid_view", "law_params", "load_scenario",
    "register", "rtt_dumbbell", "scenario_names", "scenario_parameters", "scenario_to_toml",
]  # fmt: skip
