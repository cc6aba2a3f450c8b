"""Forward-path Vegas, §V of the asymmetric-networks paper (Vegas in asymmetric networks,
Fu, Chung and Liew): Vegas's rule on the forward-path backlog Δ_f = cwnd × q_f / RTT, with
``q_f = fwd_delay_mean − fwd_delay_base`` from RFC 1323 timestamps, so that an ACK-path
queue does not throttle the sender. The reading and the measured runs: docs/algorithms.md,
"forward-vegas".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from ._common import backlog, f64, fmax, fmin, stride
from ._jit import Kernel
from .base import SENDER_DEFAULTS, OdeForm, RoundRule, RoundSample, SenderTraits, State
from .vegas import _VEGAS, VEGAS_ODE_FORM, Vegas, _vegas_rule

__all__ = ["ForwardVegas"]


class ForwardVegas(Vegas):
    """Vegas driven by the forward-path backlog Δ_f (the asymmetric-networks paper, §V).

    :meth:`on_round` raises ValueError when the sample has no forward delays."""

    name: ClassVar[str] = "forward-vegas"
    #: computes its own Δ from the window and RTTs: no sender's Δ
    sender: ClassVar[SenderTraits] = SENDER_DEFAULTS
    #: Vegas's rate form with Δ_f from the forward queueing delay (an ACK-path queue does
    #: not enter it)
    ode_form: ClassVar[OdeForm | None] = replace(
        VEGAS_ODE_FORM,
        description="dw/dt = s(Δ_f)/RTT with Δ_f = w q_f/RTT, q_f the forward queueing delay",
        forward_delay=True,
    )

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_forward_vegas_rule`: Vegas's decision with Δ_f = cwnd × q_f / RTT (the
        forward backlog) from the sample's window, forward delays and mean RTT."""
        if sample.fwd_delay_mean is None or sample.fwd_delay_base is None:
            raise ValueError(
                "forward-vegas needs sample.fwd_delay_mean and sample.fwd_delay_base "
                "(forward one-way delays from timestamps, the asymmetric-networks paper §V); "
                "the engine gave None — use an engine that measures forward delays"
            )
        measured = f64(sample.cwnd, sample.fwd_delay_mean, sample.fwd_delay_base, sample.rtt_mean)
        states = (state["phase"], state["ss_grow"], state["ssthresh"])
        args = (*states, *measured, self._rule_params, self._decrease_inclusive)
        return _FORWARD_VEGAS, measured[0].shape[0], args


def _forward_backlog(cwnd: Any, fwd_delay_mean: Any, fwd_delay_base: Any, rtt_mean: Any) -> Any:
    """Δ_f = cwnd × q_f / RTT, q_f = ``fwd_delay_mean − fwd_delay_base`` (Little's law)."""
    return cwnd * (fwd_delay_mean - fwd_delay_base) / rtt_mean


def _forward_vegas_rule(phase: Any, ss_grow: Any, ssthresh: Any, cwnd: Any,
    fwd_delay_mean: Any, fwd_delay_base: Any, rtt_mean: Any, params: Any, inclusive: bool,
    new: Any, incr: Any, cap: Any) -> None:  # fmt: skip
    """Vegas's decision (:func:`~tcpfluid.algorithms.vegas._vegas_rule`) on Δ_f of each flow
    (:func:`_forward_backlog`) in place of Δ."""
    n = cwnd.shape[0]
    delta_f = np.empty(n)
    for i in range(n):
        delta_f[i] = _forward_backlog(cwnd[i], fwd_delay_mean[i], fwd_delay_base[i], rtt_mean[i])
    # the two RTT arguments are not read: Δ_f is given
    _vegas_rule(phase, ss_grow, ssthresh, cwnd, rtt_mean, rtt_mean, delta_f, params, inclusive,
                new, incr, cap)  # fmt: skip


_FORWARD_VEGAS = Kernel(
    _forward_vegas_rule,
    "wwwrrrrRbwww",
    uses=(backlog, _forward_backlog, stride, fmax, fmin, _VEGAS),
)
