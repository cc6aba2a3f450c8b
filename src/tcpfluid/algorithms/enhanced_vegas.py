"""Enhanced TCP Vegas (Hasegawa, Murata and Miyahara), Tsang's thesis chapter 2 §4.

The rule, "cwnd + 1 if diff < δ / base_rtt, cwnd − 1 if diff >= δ / base_rtt" (Tsang's
thesis, chapter 2 §4), in packets of backlog: +1 per round if Δ < δ, −1 if Δ >= δ (no dead
band: the window cycles around Δ = δ; docs/algorithms.md). Everything else is
:class:`tcpfluid.algorithms.vegas.Vegas`'s: "Enhanced TCP Vegas uses the same aggressive
retransmission strategy but conservative slow-start strategy as TCP Vegas" (ibid.).
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
    "the single backlog threshold δ, packets (α = β = δ)",
    lower=0.0,
    lower_open=True,
    scenario_key=True,
    sets=("alpha", "beta"),
)


class EnhancedVegas(Vegas):
    """Enhanced Vegas: α = β = δ, decrease when Δ >= δ (Tsang's thesis, chapter 2 §4).

    Parameters
    ----------
    delta : float or array_like, default 3
        The single threshold δ, packets of backlog; ``> 0``. 3 is the value of Hasegawa et
        al.'s example and the one "most research uses" (Tsang's thesis, chapter 1).
    gamma : float or array_like, default 1
        Slow-start exit threshold γ, packets; ``> 0`` (as Vegas).
    initial_window : float, default 2
        Window of the first round, packets; ``>= 1`` (as Vegas). The thesis's ns-2 agents
        start at 1 (``windowInit_``; Tsang's thesis ch. 3 §4.1.1: the window "grows from 1
        to 2 and then from 2 to 4").
    """

    name: ClassVar[str] = "enhanced-vegas"
    #: Vegas's form with α = β = δ (the ODE flow carries δ as both thresholds)
    ode_form: ClassVar[OdeForm | None] = VEGAS_ODE_FORM
    _decrease_inclusive: ClassVar[bool] = True
    #: no dead band: the window cycles around Δ = δ for ever (docs/algorithms.md)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (DELTA, GAMMA, INITIAL_WINDOW)
