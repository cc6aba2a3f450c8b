"""Congestion-control laws, written once as array code and used by every engine."""

from __future__ import annotations

from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_RETX,
    LOSS_TIMEOUT,
    SLOW_START,
    ControlLaw,
    RoundAction,
    RoundSample,
)

__all__ = [
    "CONGESTION_AVOIDANCE",
    "LOSS_FAST",
    "LOSS_RETX",
    "LOSS_TIMEOUT",
    "SLOW_START",
    "ControlLaw",
    "RoundAction",
    "RoundSample",
]
