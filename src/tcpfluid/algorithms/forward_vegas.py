"""Forward-path Vegas, §V of the asymmetric-networks paper (Vegas in asymmetric
networks, Fu, Chung and Liew).

The window rule is Vegas's with ``DIFF_f = Expected − Actual_f``, ``Actual_f`` the rate on
the forward path from RFC 1323 timestamps (§V), in place of ``DIFF``, so that an ACK-path
queue, which raises the RTT, does not throttle the sender (§IV). With the round's forward
queueing delay ``q_f = fwd_delay_mean − fwd_delay_base`` (``sample.fwd_delay_mean`` and
``sample.fwd_delay_base``, the round's mean forward delay and its minimum ever):

    Δ_f = DIFF_f × BaseRTT = cwnd × q_f / RTT,

the flow's backlog in the forward queue by Little's law. *Ours*: slow start also tests
Δ_f > γ; the printed pseudo-code's ``DIFF_f * BaseRTT < β`` is read as ``> β`` (eq (2)
and the text). Everything else (slow start, 1/8 cut, losses, floor of 2) is
:class:`tcpfluid.algorithms.vegas.Vegas`'s. The reading, and the measured runs:
docs/algorithms.md, "forward-vegas".
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ._common import backlog, fmax, fmin, stride
from ._jit import Kernel
from .base import OdeForm, RoundSample, State
from .vegas import VEGAS_ODE_FORM, Vegas, _vegas_rule

__all__ = ["ForwardVegas"]


class ForwardVegas(Vegas):
    """Vegas driven by the forward-path backlog Δ_f (the asymmetric-networks paper, §V).

    Parameters
    ----------
    alpha, beta, gamma : float or array_like
        As :class:`~tcpfluid.algorithms.vegas.Vegas` (defaults 2, 4, 1), applied to Δ_f.
    initial_window : float, default 2
        Window of the first round, packets; ``>= 1`` (as Vegas).

    Raises
    ------
    ValueError
        From :meth:`on_round` if the sample has no forward-delay measurements
        (``fwd_delay_mean`` or ``fwd_delay_base`` is ``None``): the engine must measure
        the forward one-way delay for this law.
    """

    name: ClassVar[str] = "forward-vegas"
    #: Vegas's rate form with Δ_f from the forward queueing delay (an ACK-path queue does
    #: not enter it)
    ode_form: ClassVar[OdeForm | None] = OdeForm(
        VEGAS_ODE_FORM.rate,
        VEGAS_ODE_FORM.loss_cut,
        "dw/dt = s(Δ_f)/RTT with Δ_f = w q_f/RTT, q_f the forward queueing delay",
        forward_delay=True,
    )

    def _round_rule(self, state: State, sample: RoundSample) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`_forward_vegas_rule`: Vegas's decision with Δ_f = cwnd × q_f / RTT (the
        forward backlog) from the sample's window, forward delays and mean RTT."""
        if sample.fwd_delay_mean is None or sample.fwd_delay_base is None:
            raise ValueError(
                "forward-vegas needs sample.fwd_delay_mean and sample.fwd_delay_base "
                "(forward one-way delays from timestamps, the asymmetric-networks paper §V); "
                "the engine gave None — use an engine that measures forward delays"
            )
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        fwd_mean = np.asarray(sample.fwd_delay_mean, dtype=np.float64)
        fwd_base = np.asarray(sample.fwd_delay_base, dtype=np.float64)
        rtt_mean = np.asarray(sample.rtt_mean, dtype=np.float64)
        states = (state["phase"], state["ss_grow"], state["ssthresh"])
        args = (
            *states,
            cwnd,
            fwd_mean,
            fwd_base,
            rtt_mean,
            self._rule_params,
            self._decrease_inclusive,
        )
        return _FORWARD_VEGAS, cwnd.shape[0], args


def _forward_backlog(cwnd: Any, fwd_delay_mean: Any, fwd_delay_base: Any, rtt_mean: Any) -> Any:
    """Δ_f = cwnd × q_f / RTT with q_f = ``fwd_delay_mean − fwd_delay_base``: the flow's
    backlog in the forward queue by Little's law (module docstring; the asymmetric-networks
    paper, §V)."""
    return cwnd * (fwd_delay_mean - fwd_delay_base) / rtt_mean


def _forward_vegas_rule(
    phase: Any,
    ss_grow: Any,
    ssthresh: Any,
    cwnd: Any,
    fwd_delay_mean: Any,
    fwd_delay_base: Any,
    rtt_mean: Any,
    params: Any,
    inclusive: bool,
    new: Any,
    incr: Any,
    cap: Any,
) -> None:
    """Forward-path Vegas's decision for each flow ``i``: Δ_f of the window ``cwnd[i]``, the
    round's mean and least forward delays ``fwd_delay_mean[i]``, ``fwd_delay_base[i]`` and
    its mean RTT ``rtt_mean[i]`` (:func:`_forward_backlog`), then Vegas's rule on Δ_f in
    place of Δ (:func:`~tcpfluid.algorithms.vegas._vegas_rule`, same ``params`` and
    ``inclusive``). Writes the action into ``new``, ``incr``, ``cap`` and the state in
    place. Compiled once (:mod:`tcpfluid.algorithms._jit`)."""
    n = cwnd.shape[0]
    delta_f = np.empty(n)
    for i in range(n):
        delta_f[i] = _forward_backlog(cwnd[i], fwd_delay_mean[i], fwd_delay_base[i], rtt_mean[i])
    _vegas_rule(
        phase,
        ss_grow,
        ssthresh,
        cwnd,
        rtt_mean,  # not read: Δ_f is given
        rtt_mean,
        delta_f,
        params,
        inclusive,
        new,
        incr,
        cap,
    )


_FORWARD_VEGAS = Kernel(
    _forward_vegas_rule,
    "wwwrrrrRbwww",
    uses=(backlog, _forward_backlog, stride, fmax, fmin, _vegas_rule),
)
