"""iTCP-Vegas (Pan, Horng, Shih and Su), the iTCP-Vegas paper (Pan et al. 2011) §3 — an
interpretation: Vegas's Δ and slow start, four areas split at a, (a + b)/2, b with a scaling
variable P and thresholds a, b that move; the flow chart (Fig. 3) is missing, so the
amounts are *ours*. The areas' rules, the document's quotes, why these amounts and the
measured runs against the paper's Tables 1–2: docs/algorithms.md, "itcp-vegas".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import (
    MIN_WINDOW,
    backlog,
    check_broadcast,
    check_index,
    check_le,
    f64,
    fmax,
    fmin,
    rule_params,
    stride,
)
from ._jit import Kernel
from .base import (
    SENDER_DEFAULTS,
    SLOW_START,
    FloatArray,
    LossRule,
    Parameter,
    RoundRule,
    RoundSample,
    SenderTraits,
    State,
)
from .vegas import _VEGAS, _VEGAS_LOSS, THRESHOLDS, Vegas, _vegas_loss, _vegas_rule

__all__ = ["ITcpVegas"]


class ITcpVegas(Vegas):
    """iTCP-Vegas: four areas, scaling variable P, dynamic α and β (the iTCP-Vegas paper, §3).

    α, β, γ default to the Quick Vegas paper's Vegas values, the others are *ours*.

    Notes
    -----
    State: ``phase``, ``ss_grow``, ``ssthresh`` (as Vegas), ``p`` (the scaling variable
    P), ``a`` and ``b`` (the flow's current α and β).
    """

    name: ClassVar[str] = "itcp-vegas"
    #: computes its own Δ from the window and RTTs: no sender's Δ
    sender: ClassVar[SenderTraits] = SENDER_DEFAULTS
    #: its steady state is a limit cycle (Area-1 increases and Area-4 resets around the band)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        *THRESHOLDS,
        Parameter(
            "p_step",
            1.25,
            "growth of P per Area-1 round, packets per round per round",
            lower=0.0,
            lower_open=True,
        ),
        Parameter(
            "threshold_gain", 0.04, "share of an Area-1 increment added to α and β", lower=0.0
        ),
        Parameter(
            "threshold_step", 1.0, "how far β moves down per Area-2/3 round, packets", lower=0.0
        ),
        Parameter(
            "threshold_max",
            None,
            "ceiling of β when Area 1 raises the thresholds, packets; >= beta (None: no ceiling)",
            lower=0.0,
            lower_open=True,
            optional=True,
        ),
        Parameter(
            "min_gap",
            1.0,
            "smallest β − α left by the narrowing, packets; <= beta - alpha",
            lower=0.0,
            lower_open=True,
        ),
        Parameter(
            "area2_factor",
            0.5,
            "Area 2 multiplies P by this (slowed down, at least Vegas's +1 packet per round)",
            lower=0.0,
            upper=1.0,
            upper_open=True,
        ),
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        """Vegas's checks, β <= threshold_max, min_gap <= β − α, arrays of one length."""
        super()._configure(values)
        #: its parameters after Vegas's, in the order of the rule's rows
        more = {p.name: values[p.name] for p in self.parameters[len(THRESHOLDS) :]}
        if more["threshold_max"] is None:
            more["threshold_max"] = np.array(np.inf)
        self._more: dict[str, FloatArray] = more
        check_broadcast(self._param_arrays())
        check_le("beta", self._beta, "threshold_max", more["threshold_max"])
        check_le("min_gap", more["min_gap"], "beta - alpha", self._beta - self._alpha)
        #: the parameters as the rows of one array (:func:`_itcp_vegas_rule`; Vegas's α, β,
        #: γ first)
        self._rule_params = rule_params(*self._param_arrays().values())

    def _param_arrays(self) -> dict[str, FloatArray]:
        return {**super()._param_arrays(), **self._more}

    def init_state(self, n: int) -> State:
        """Fresh state: Vegas's slow start, ``P = 0``, thresholds at α and β."""
        state = super().init_state(n)
        n = state["phase"].shape[0]
        state["p"] = np.zeros(n)
        state["a"] = np.broadcast_to(self._alpha, (n,)).astype(np.float64)
        state["b"] = np.broadcast_to(self._beta, (n,)).astype(np.float64)
        return state

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_itcp_vegas_rule`: Vegas's slow start, then the four-area rule in
        congestion avoidance, on the law's state and parameters and the sample."""
        measured = f64(sample.cwnd, sample.base_rtt, sample.rtt_mean)
        states = [state[key] for key in _STATE]
        return _ITCP_VEGAS, measured[0].shape[0], (*states, *measured, self._rule_params)

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`_itcp_vegas_loss` on the law's state."""
        return _ITCP_VEGAS_LOSS, tuple(state[key] for key in _STATE), (self._rule_params,)


#: the law's state arrays its compiled rules take, in order
_STATE = ("phase", "ss_grow", "ssthresh", "p", "a", "b")


def _follow(a: Any, b: Any, i: int, w: float, params: Any, s: int) -> None:
    """Flow ``i``'s thresholds on entering congestion avoidance with window ``w``: α and β
    raised by ``threshold_gain × w`` (β at most ``threshold_max``, α at most β − ``min_gap``)."""
    raise_by = params[4, i * s] * w
    b[i] = fmin(params[1, i * s] + raise_by, params[6, i * s])
    a[i] = fmin(params[0, i * s] + raise_by, b[i] - params[7, i * s])


def _itcp_vegas_rule(phase: Any, ss_grow: Any, ssthresh: Any, p: Any, a: Any, b: Any,
    cwnd: Any, base_rtt: Any, rtt_mean: Any, params: Any, new: Any, incr: Any,
    cap: Any) -> None:  # fmt: skip
    """iTCP-Vegas's decision for each flow ``i``: Vegas's slow start, then the four areas of
    §3 with the amounts of docs/algorithms.md on ``p[i]``, ``a[i]``, ``b[i]``; ``params``
    holds the rows α, β, γ, p_step, threshold_gain, threshold_step, threshold_max, min_gap,
    area2_factor. Writes the action into ``new``, ``incr``, ``cap`` and the state in place."""
    n = cwnd.shape[0]
    s = stride(params, n)
    delta = np.empty(n)
    ss = np.empty(n, dtype=np.bool_)
    for i in range(n):
        delta[i] = backlog(cwnd[i], base_rtt[i], rtt_mean[i])
        ss[i] = phase[i] == SLOW_START
    # Vegas's decision; only its slow-start flows' is kept (in congestion avoidance it
    # changes no state)
    _vegas_rule(
        phase, ss_grow, ssthresh, cwnd, base_rtt, rtt_mean, delta, params, False, new, incr, cap
    )
    for i in range(n):
        if ss[i]:
            if phase[i] != SLOW_START:  # left slow start: thresholds follow the window
                _follow(a, b, i, new[i], params, s)
            continue
        w = cwnd[i]
        d = delta[i]
        pi = p[i]
        ai = a[i]
        bi = b[i]
        alpha = params[0, i * s]
        beta = params[1, i * s]
        p_step = params[3, i * s]
        gain = params[4, i * s]
        step = params[5, i * s]
        tmax = params[6, i * s]
        gap = params[7, i * s]
        slow = params[8, i * s]
        m = 0.5 * (ai + bi)
        area1 = d < ai
        area2 = d > ai and d < m
        area3 = d > m and d < bi
        area4 = d > bi

        # at least Vegas's +1 (the iTCP-Vegas paper, Fig. 1)
        slowed = fmax(slow * pi, 1.0)
        new_p = pi + p_step if area1 else (slowed if area2 else 0.0)
        amount = fmin(new_p, w) if (area1 or area2) else 0.0
        cut = d - m if area4 else 0.0
        x = fmax(w - cut, MIN_WINDOW)

        raise_by = gain * amount  # Area 1: thresholds grow with the increment P
        b_up = fmin(bi + raise_by, tmax)
        a_up = fmin(ai + raise_by, b_up - gap)
        # Area 2: the thresholds follow the increment as in Area 1; then narrow from
        # above: m drops by at most step/2
        b_in = fmax(b_up - step, a_up + gap)
        # Area 4: lower them by the same share of the decrease, not below the initial α, β
        # (the gap stays >= min_gap: b − a >= min_gap before, and β − α >= min_gap)
        lower_by = gain * (w - x)
        a_dn = fmax(ai - lower_by, alpha)
        b_dn = fmax(bi - lower_by, beta)

        p[i] = new_p
        a[i] = a_up if (area1 or area2 or area3) else (a_dn if area4 else ai)
        b[i] = b_up if area1 else (b_in if (area2 or area3) else (b_dn if area4 else bi))
        new[i] = x
        incr[i] = amount / w
        cap[i] = x + amount


_ITCP_VEGAS = Kernel(
    _itcp_vegas_rule, "wwwwwwrrrRwww", uses=(backlog, stride, fmax, fmin, _VEGAS, _follow)
)


def _itcp_vegas_loss(phase: Any, ss_grow: Any, ssthresh: Any, p: Any, a: Any, b: Any,
    index: Any, kind: int, params: Any, cwnd: Any, new: Any) -> None:  # fmt: skip
    """Vegas's loss reactions, then *ours*: P back to 0, the thresholds to follow the new
    window (:func:`_follow`)."""
    n = phase.shape[0]
    s = stride(params, n)
    _vegas_loss(phase, ss_grow, ssthresh, index, kind, cwnd, new)
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        p[i] = 0.0
        _follow(a, b, i, new[j], params, s)


_ITCP_VEGAS_LOSS = Kernel(
    _itcp_vegas_loss, "wwwwwwIiRrw", uses=(check_index, stride, fmax, fmin, _VEGAS_LOSS, _follow)
)
