"""Congestion-control laws, written once as array code and used by every engine."""

from __future__ import annotations

from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_BURST,
    LOSS_BURST_TIMEOUT,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    SLOW_START,
    ControlLaw,
    Parameter,
    RoundAction,
    RoundSample,
    SenderTraits,
)
from .enhanced_vegas import EnhancedVegas
from .fast import Fast
from .forward_vegas import ForwardVegas
from .itcp_vegas import ITcpVegas
from .quick_vegas import QuickVegas
from .registry import (
    ALGORITHMS,
    expand_aliases,
    get_law,
    law_class,
    law_parameters,
    parameter_declarations,
    scenario_parameter_keys,
)
from .reno import Reno
from .tcp_ho import TcpHo
from .vegas import Vegas

__all__ = [
    "ALGORITHMS",
    "CONGESTION_AVOIDANCE",
    "LOSS_BURST",
    "LOSS_BURST_TIMEOUT",
    "LOSS_FAST",
    "LOSS_RETX",
    "LOSS_TIMEOUT",
    "SLOW_START",
    "ControlLaw",
    "EnhancedVegas",
    "Fast",
    "ForwardVegas",
    "ITcpVegas",
    "Parameter",
    "QuickVegas",
    "Reno",
    "RoundAction",
    "RoundSample",
    "SenderTraits",
    "TcpHo",
    "Vegas",
    "expand_aliases",
    "get_law",
    "law_class",
    "law_parameters",
    "parameter_declarations",
    "scenario_parameter_keys",
]
