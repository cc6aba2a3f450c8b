"""TCP Vegas (Brakmo and Peterson) as the Quick Vegas paper (Chan, Lin, Ho 2008) §3.1
summarises it: Δ of eq (1), slow start doubling every other round and left on Δ > γ with a
7/8 cut, eq (2) in congestion avoidance, the 3/4, 1/2 and timeout loss reactions, a floor
of 2 packets. The rules, their actions and the readings that are ours: docs/algorithms.md,
"vegas".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import (
    MIN_WINDOW,
    backlog,
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
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    CompiledLaw,
    FloatArray,
    LossRule,
    OdeForm,
    Parameter,
    RoundAction,
    RoundRule,
    RoundSample,
    SenderTraits,
    State,
)

__all__ = ["ALPHA", "BETA", "GAMMA", "INITIAL_WINDOW", "Vegas"]

#: α of eq (2) of the Quick Vegas paper (Vegas, Quick Vegas, iTCP-Vegas, forward-path Vegas)
ALPHA = Parameter(
    "alpha", 2.0, "lower backlog threshold α of eq (2), packets", lower=0.0, scenario_key=True
)
#: β of eq (2)
BETA = Parameter(
    "beta",
    4.0,
    "upper backlog threshold β of eq (2), packets; >= alpha",
    lower=0.0,
    scenario_key=True,
)
#: γ, the slow-start exit threshold
GAMMA = Parameter(
    "gamma",
    1.0,
    "slow-start exit threshold γ, packets",
    lower=0.0,
    lower_open=True,
    scenario_key=True,
)
#: the window of a connection's first round
INITIAL_WINDOW = Parameter(
    "initial_window",
    2.0,
    "window of the first round, packets (the analyses start at 2, ns-2 at 1: docs/errata.md, N11)",
    lower=1.0,
    per_flow=False,
)
#: α, β, γ: the parameters Quick Vegas and iTCP-Vegas declare first, as Vegas does
THRESHOLDS = (ALPHA, BETA, GAMMA)


def _vegas_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """Vegas's rule as a rate: ±1 packet per RTT (eq. 2 of the Quick Vegas paper), ``sign/RTT``."""
    return sign / rtt


#: +1/RTT below α, −1/RTT above β (eq. 2 of the Quick Vegas paper); Vegas's 3/4 rule on a
#: loss; the classical model has no slow start (γ has no place in it)
VEGAS_ODE_FORM = OdeForm(
    _vegas_rate,
    0.25,
    "dw/dt = s(Δ)/RTT, s the ramped sign of eq. (2)",
    places=(
        ("alpha", "alpha_pkts"),
        ("beta", "beta_pkts"),
        ("initial_window", "initial_window_pkts"),
    ),
)


class Vegas(CompiledLaw):
    """TCP Vegas: slow start with γ, congestion avoidance with α and β (the Quick Vegas
    paper, §3.1).

    Defaults from its §5; every parameter but ``initial_window`` may have
    one value per flow.

    Notes
    -----
    State: ``phase``, ``ss_grow`` (1 when the next slow-start round doubles the window),
    ``ssthresh`` (packets; ``inf`` until a timeout).
    """

    name: ClassVar[str] = "vegas"
    #: a steady window may dither by one move of its ±1-packet-per-round rule (packets
    #: quantise Δ at the band's edges)
    cycle_amplitude_pkts: ClassVar[float] = 1.0
    ode_form: ClassVar[OdeForm | None] = VEGAS_ODE_FORM
    #: Enhanced Vegas decreases when Δ >= δ (not only when Δ > β)
    _decrease_inclusive: ClassVar[bool] = False
    #: decides on its sender's Δ when given (:meth:`_round_rule`); Enhanced Vegas too, the
    #: subclasses that compute their own quantities from the window declare the default
    sender: ClassVar[SenderTraits] = SenderTraits(decides_on_sender_delta=True)

    parameters: ClassVar[tuple[Parameter, ...]] = (*THRESHOLDS, INITIAL_WINDOW)
    #: α <= β (eq (2): the band between them), for the law and its classical form
    ordered: ClassVar[tuple[tuple[str, str], ...]] = (("alpha", "beta"),)

    def _configure(self, values: Mapping[str, Any]) -> None:
        """The per-flow arrays of the same length (α <= β: :attr:`ordered`)."""
        self.initial_window = values.get("initial_window", INITIAL_WINDOW.default)
        self._alpha = values["alpha"]
        self._beta = values["beta"]
        self._gamma = values["gamma"]
        check_broadcast(Vegas._param_arrays(self))  # subclasses check their own in full
        #: α, β, γ as the rows of one array (:func:`_vegas_rule`)
        self._rule_params = rule_params(self._alpha, self._beta, self._gamma)

    def _param_arrays(self) -> dict[str, FloatArray]:
        return {"alpha": self._alpha, "beta": self._beta, "gamma": self._gamma}

    def init_state(self, n: int) -> State:
        """Fresh state: slow start, the first on_round call starts a growing round."""
        n = check_flows(self._param_arrays(), n)
        return {
            "phase": np.full(n, SLOW_START),
            "ss_grow": np.ones(n),
            "ssthresh": np.full(n, np.inf),
        }

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_vegas_rule` on the law's state and parameters, the sample's window and
        Δ of eq (1) from its RTTs, or the sender's own Δ (``sample.backlog``) if given."""
        cwnd, base_rtt = f64(sample.cwnd, sample.base_rtt)
        delta = _NO_DELTA if sample.backlog is None else sample.backlog
        return self._vegas(state, cwnd, base_rtt, sample.rtt_mean, delta)

    def _decide(
        self, state: State, cwnd: FloatArray, delta: FloatArray, out: RoundAction | None = None
    ) -> RoundAction:
        """Slow start and eq (2) on a backlog estimate ``delta`` in place of Δ of eq (1)
        (a subclass that estimates the backlog its own way)."""
        w = np.asarray(cwnd, dtype=np.float64)
        return self._run_rule(*self._vegas(state, w, _NO_DELTA, _NO_DELTA, delta), out)

    def _vegas(
        self, state: State, cwnd: FloatArray, base_rtt: FloatArray, rtt_mean: Any, delta: Any
    ) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`_vegas_rule`, the number of flows and its arguments."""
        rtt = np.asarray(rtt_mean, dtype=np.float64)
        options = (np.asarray(delta, dtype=np.float64), self._rule_params, self._decrease_inclusive)
        phase, ss_grow, ssthresh = state["phase"], state["ss_grow"], state["ssthresh"]
        return _VEGAS, cwnd.shape[0], (phase, ss_grow, ssthresh, cwnd, base_rtt, rtt, *options)

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`_vegas_loss` on the law's state."""
        return _VEGAS_LOSS, tuple(state[k] for k in _VEGAS_STATE), ()


#: the law's state arrays its compiled rules take, in order
_VEGAS_STATE = ("phase", "ss_grow", "ssthresh")


def _vegas_rule(phase: Any, ss_grow: Any, ssthresh: Any, cwnd: Any, base_rtt: Any,
    rtt_mean: Any, delta: Any, params: Any, inclusive: bool, new: Any, incr: Any,
    cap: Any) -> None:  # fmt: skip
    """Vegas's decision for each flow ``i`` from ``cwnd[i]`` and Δ of eq (1) (``delta[i]``
    when ``delta`` is not empty); ``params`` holds the rows α, β, γ (one column, or one per
    flow); ``inclusive`` decreases at Δ >= β (Enhanced Vegas). Writes the action into
    ``new``, ``incr``, ``cap`` and the state in place."""
    s = stride(params, cwnd.shape[0])
    given = delta.shape[0] > 0
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        d = delta[i] if given else backlog(w, base_rtt[i], rtt_mean[i])
        th = ssthresh[i]
        ss = phase[i] == SLOW_START
        exit_gamma = ss and d > params[2, i * s]
        leave = exit_gamma or (ss and w >= th)
        grow = ss and ss_grow[i] > 0.0 and not leave
        inc = not ss and d < params[0, i * s]
        beta = params[1, i * s]
        dec = not ss and (d >= beta if inclusive else d > beta)

        x = w * 0.875 if exit_gamma else w
        if dec:
            x -= 1.0
        x = fmax(x, MIN_WINDOW)
        new[i] = x
        if grow:  # one packet per ACK, at most doubling (and not past ssthresh)
            incr[i] = 1.0
            cap[i] = fmin(2.0 * w, th)
        else:
            incr[i] = 1.0 / w if inc else 0.0
            cap[i] = x + 1.0 if inc else x

        if leave:
            phase[i] = CONGESTION_AVOIDANCE
        if ss:
            ss_grow[i] = 1.0 - ss_grow[i]


_VEGAS = Kernel(_vegas_rule, "wwwrrrrRbwww", uses=(backlog, stride, fmax, fmin))


def _vegas_loss(
    phase: Any, ss_grow: Any, ssthresh: Any, index: Any, kind: int, cwnd: Any, new: Any
) -> None:
    """Vegas's loss reactions (the Quick Vegas paper, §3.1) for flows ``index[j]`` whose
    windows are ``cwnd[j]``, ``kind`` a checked base kind; the new windows into ``new``."""
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        w = cwnd[j]
        if kind == LOSS_TIMEOUT:
            ssthresh[i] = fmax(w / 2.0, MIN_WINDOW)
            phase[i] = SLOW_START
            ss_grow[i] = 1.0
            new[j] = MIN_WINDOW
        else:
            x = fmax(w * (0.75 if kind == LOSS_FAST else 0.5), MIN_WINDOW)
            phase[i] = CONGESTION_AVOIDANCE
            ssthresh[i] = x
            new[j] = x


_VEGAS_LOSS = Kernel(_vegas_loss, "wwwIirw", uses=(check_index, fmax))
#: no Δ given (the rule computes eq (1)), or no sample RTTs (Δ given: :meth:`Vegas._decide`)
_NO_DELTA = np.empty(0)
