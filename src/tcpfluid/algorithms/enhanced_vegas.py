"""Enhanced TCP Vegas (Hasegawa, Murata and Miyahara), Tsang's thesis chapter 2 §4: Vegas
with one threshold δ, +1 per round if Δ < δ and −1 if Δ >= δ (no dead band); slow start,
retransmission and losses are Vegas's (docs/algorithms.md, "enhanced-vegas").
"""

from __future__ import annotations

from typing import ClassVar

from .base import OdeForm, Parameter
from .vegas import GAMMA, INITIAL_WINDOW, VEGAS_ODE_FORM, Vegas

__all__ = ["DELTA", "EnhancedVegas"]

#: δ, Enhanced Vegas's one threshold: the rule is Vegas's with α = β = δ
DELTA = Parameter(
    "delta",
    3.0,
    "the single backlog threshold δ, packets (α = β = δ; 3 is Hasegawa et al.'s example)",
    lower=0.0,
    lower_open=True,
    scenario_key=True,
    sets=("alpha", "beta"),
)


class EnhancedVegas(Vegas):
    """Enhanced Vegas: α = β = δ, decrease when Δ >= δ (Tsang's thesis, chapter 2 §4)."""

    name: ClassVar[str] = "enhanced-vegas"
    #: Vegas's form with α = β = δ (the ODE flow carries δ as both thresholds)
    ode_form: ClassVar[OdeForm | None] = VEGAS_ODE_FORM
    _decrease_inclusive: ClassVar[bool] = True
    #: no dead band: the window cycles around Δ = δ for ever (docs/algorithms.md)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (DELTA, GAMMA, INITIAL_WINDOW)
