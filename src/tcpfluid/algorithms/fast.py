"""FAST TCP (Jin, Wei and Low), the delay-based baseline of the Quick Vegas paper (Chan,
Lin, Ho 2008) §2 and §5: once per round ``w ← min(2w, (1 − γ) w + γ (BaseRTT / RTT · w +
α))``, α = 100 packets (§5). γ = 0.5, the pacing, the loss reactions and
``lost_retransmit`` are *ours*: docs/algorithms.md, "fast"; docs/errata.md, N13.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import (
    MIN_WINDOW,
    check_broadcast,
    check_flows,
    check_index,
    f64,
    fmax,
    fmin,
    rule_params,
    stride,
)
from ._jit import Kernel
from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_RETX,
    LOSS_TIMEOUT,
    SLOW_START,
    CompiledLaw,
    FloatArray,
    LossRule,
    OdeForm,
    Parameter,
    RoundRule,
    RoundSample,
    State,
)

__all__ = ["LOST_RETRANSMIT", "Fast"]

#: The readings of a retransmission lost again (:class:`Fast`'s ``lost_retransmit``).
LOST_RETRANSMIT: tuple[str, ...] = ("keep", "halve")


def _fast_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """FAST's per-RTT update as a rate: ``min(γ(α − Δ), w)/RTT`` (the update moves γ of the
    way to the target ``w BaseRTT/RTT + α`` each RTT, at most doubling)."""
    return np.minimum(gamma * (alpha - delta), w) / rtt


class Fast(CompiledLaw):
    """FAST TCP's per-round window update."""

    name: ClassVar[str] = "fast"
    ode_form: ClassVar[OdeForm | None] = OdeForm(
        _fast_rate,
        0.5,
        "dw/dt = min(γ(α − Δ), w)/RTT; a loss halves the window",
        places=(("alpha", "alpha_pkts"), ("gamma", "fast_gamma")),
    )

    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "alpha",
            100.0,
            "packets the flow aims to keep queued (the Quick Vegas paper, §5)",
            lower=0.0,
            lower_open=True,
            scenario_key=True,
        ),
        Parameter(
            "gamma",
            0.5,
            "step size of the update",
            lower=0.0,
            lower_open=True,
            upper=1.0,
            scenario_key=True,
        ),
        Parameter(
            "lost_retransmit",
            "keep",
            "a retransmission lost again: 'keep' re-sends it without a second cut (ns-2's FAST "
            "TCP module: one cut per loss episode), 'halve' halves again",
            choices=LOST_RETRANSMIT,
        ),
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        """The per-flow arrays of the same length."""
        self._alpha = values["alpha"]
        self._gamma = values["gamma"]
        check_broadcast(self._param_arrays())
        self._lost_retransmit = values["lost_retransmit"]
        #: α, γ as the rows of one array (:func:`_fast_rule`)
        self._rule_params = rule_params(self._alpha, self._gamma)

    def _param_arrays(self) -> dict[str, FloatArray]:
        return {"alpha": self._alpha, "gamma": self._gamma}

    def init_state(self, n: int) -> State:
        """Fresh state: the multiplicative-increase ramp."""
        n = check_flows(self._param_arrays(), n)
        return {"phase": np.full(n, SLOW_START)}

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_fast_rule` on the law's state and parameters and the sample."""
        measured = f64(sample.cwnd, sample.base_rtt, sample.rtt_mean)
        return _FAST, measured[0].shape[0], (state["phase"], *measured, self._rule_params)

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`_fast_loss` on the law's state, with ``lost_retransmit``."""
        return _FAST_LOSS, (state["phase"],), (self._lost_retransmit == "keep",)


def _fast_rule(phase: Any, cwnd: Any, base_rtt: Any, rtt_mean: Any, params: Any, new: Any,
    incr: Any, cap: Any) -> None:  # fmt: skip
    """FAST's update for each flow ``i`` (``params``: the rows α, γ): an increase spread
    over the next round's ACKs, a decrease at the boundary, at least 2 packets."""
    s = stride(params, cwnd.shape[0])
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        g = params[1, i * s]
        fixed = (1.0 - g) * w + g * (base_rtt[i] / rtt_mean[i] * w + params[0, i * s])
        double = 2.0 * w
        target = fmax(fmin(double, fixed), MIN_WINDOW)
        if fixed < double:
            phase[i] = CONGESTION_AVOIDANCE
        cap[i] = target
        if target > w:
            new[i] = w
            incr[i] = (target - w) / w
        else:
            new[i] = target
            incr[i] = 0.0


_FAST = Kernel(_fast_rule, "wrrrRwww", uses=(stride, fmax, fmin))


def _fast_loss(phase: Any, index: Any, kind: int, keep: bool, cwnd: Any, new: Any) -> None:
    """FAST's loss reactions: half the window, a timeout 2 packets and the ramp again, a
    retransmission lost again keeps the window when ``keep``."""
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        w = cwnd[j]
        if kind == LOSS_RETX and keep:
            new[j] = w
        elif kind == LOSS_TIMEOUT:
            phase[i] = SLOW_START
            new[j] = MIN_WINDOW
        else:
            phase[i] = CONGESTION_AVOIDANCE
            new[j] = fmax(w / 2.0, MIN_WINDOW)


_FAST_LOSS = Kernel(_fast_loss, "wIibrw", uses=(check_index, fmax))
