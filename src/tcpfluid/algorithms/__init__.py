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
    RoundAction,
    RoundSample,
)
from .enhanced_vegas import EnhancedVegas
from .fast import Fast
from .forward_vegas import ForwardVegas
from .itcp_vegas import ITcpVegas
from .quick_vegas import QuickVegas
from .registry import ALGORITHMS, get_law, law_class, law_parameters
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
    "QuickVegas",
    "Reno",
    "RoundAction",
    "RoundSample",
    "TcpHo",
    "Vegas",
    "get_law",
    "law_class",
    "law_parameters",
]
