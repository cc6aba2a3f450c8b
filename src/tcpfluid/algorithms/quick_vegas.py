"""Quick Vegas, §3.2 of the Quick Vegas paper (Chan, Lin and Ho 2008): slow start ×1.5 a
round (§3.2.1), the succ/incr pseudo-code of §3.2.2 in congestion avoidance (eqs 3–4), Vegas's
losses. The rules, the slow-start cap, when Δ is sampled (``sampling``, *our reading*) and the
measured queues of each reading: docs/algorithms.md, "quick-vegas".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import MIN_WINDOW, backlog, check_index, f64, fmax, fmin, rule_params, stride
from ._jit import Kernel
from .base import (
    CONGESTION_AVOIDANCE,
    SENDER_DEFAULTS,
    SLOW_START,
    LossRule,
    Parameter,
    RoundAction,
    RoundRule,
    RoundSample,
    SenderTraits,
    State,
)
from .vegas import _VEGAS_LOSS, THRESHOLDS, Vegas, _vegas_loss

__all__ = ["SAMPLINGS", "QuickVegas"]

#: readings of when Δ is sampled in congestion avoidance (docs/algorithms.md)
SAMPLINGS = (
    "near-band",
    "every-round",
    "after-increase",
    "every-other-round",
    "near-band-after-overshoot",
)

#: "near-band": an eq-(3) increase is followed by a measurement round when it was taken
#: with a backlog of at least this fraction of α (the flow is near its band)
_NEAR_BAND = 0.25
#: "near-band-after-overshoot": a backlog above this multiple of β is an overshoot, after
#: which every eq-(3) increase is measured until one is seen to reach the band
_OVERSHOOT = 2.0

#: codes of the readings in the compiled rule (their index in SAMPLINGS)
_NEAR_BAND_CODE, _EVERY_ROUND, _AFTER_INCREASE, _EVERY_OTHER_ROUND, _AFTER_OVERSHOOT = range(5)


class QuickVegas(Vegas):
    """Quick Vegas: ×1.5 slow start and succ/incr congestion avoidance (Quick Vegas paper, §3.2).

    Defaults from its §5.

    ``sampling``: ``"near-band"`` skips the round after an eq.-(3) increase taken with
    Δ ≥ α/4, ``"every-round"`` decides every round (the printed pseudo-code literally),
    ``"after-increase"`` skips the round after every eq.-(3) increase,
    ``"every-other-round"`` the round after every decision, ``"near-band-after-overshoot"``
    also after every eq.-(3) increase from an overshoot (Δ > 2β) until back in the band.

    Notes
    -----
    State: ``phase``, ``succ`` (consecutive eq-(3) increases), ``ssthresh``, ``hold`` (1
    where the next congestion-avoidance round only measures), ``wary`` (1 from an overshoot
    until back in the band), ``last_inc`` (the last decision: 1 an eq-(3) increase, −1 in
    the band's lower half, 0 a decrease) and ``ss_grow`` (unused, Vegas's).
    """

    name: ClassVar[str] = "quick-vegas"
    #: computes its own Δ from the window and RTTs: no sender's Δ
    sender: ClassVar[SenderTraits] = SENDER_DEFAULTS
    #: its steady state is a limit cycle (±1 moves around the band; Δ = m is the only rest)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        *THRESHOLDS,
        Parameter(
            "sampling",
            "near-band",
            "when congestion avoidance samples Δ and decides (class docstring)",
            choices=SAMPLINGS,
        ),
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        super()._configure(values)
        self._sampling_code = SAMPLINGS.index(values["sampling"])
        #: α, β, γ, m and the near-band and overshoot thresholds of Δ (:data:`_NEAR_BAND`
        #: of α, :data:`_OVERSHOOT` of β) as the rows of one array (:func:`_quick_vegas_rule`)
        self._rule_params = rule_params(
            self._alpha,
            self._beta,
            self._gamma,
            0.5 * (self._alpha + self._beta),
            _NEAR_BAND * self._alpha,
            _OVERSHOOT * self._beta,
        )

    def init_state(self, n: int) -> State:
        """Fresh state: slow start, ``succ = 0``, next congestion-avoidance round decides."""
        state = super().init_state(n)
        for key in ("succ", "hold", "wary", "last_inc"):
            state[key] = np.zeros(state["phase"].shape[0])
        return state

    def initial_action(self, state: State) -> RoundAction:
        """Round 0 already grows by one packet per two ACKs (Table 1: 2 → 3)."""
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        cap = np.minimum(w + 0.5 * np.floor(w), state["ssthresh"])
        return RoundAction(cwnd=w, incr=np.full(n, 0.5), cap=cap)

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_quick_vegas_rule` on the law's state and parameters and the sample."""
        measured = f64(sample.cwnd, sample.base_rtt, sample.rtt_mean)
        states = [state[k] for k in ("phase", "succ", "ssthresh", "hold", "wary", "last_inc")]
        args = (*states, *measured, self._rule_params, self._sampling_code)
        return _QUICK_VEGAS, measured[0].shape[0], args

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`_quick_vegas_loss` on the law's state."""
        arrays = ("phase", "ss_grow", "ssthresh", "succ", "hold", "last_inc")
        return _QUICK_VEGAS_LOSS, tuple(state[key] for key in arrays), ()


def _quick_vegas_rule(phase: Any, succ: Any, ssthresh: Any, hold: Any, wary: Any,
    last_inc: Any, cwnd: Any, base_rtt: Any, rtt_mean: Any, params: Any, sampling: int,
    new: Any, incr: Any, cap: Any) -> None:  # fmt: skip
    """Quick Vegas's decision for each flow ``i`` (§3.2.1–3.2.2) with the measurement rounds
    of ``sampling`` (an index into :data:`SAMPLINGS`); ``params`` holds the rows α, β, γ,
    m = (α + β)/2, ``_NEAR_BAND × α`` and ``_OVERSHOOT × β``. Writes the action into
    ``new``, ``incr``, ``cap`` and the state in place."""
    s = stride(params, cwnd.shape[0])
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        d = backlog(w, base_rtt[i], rtt_mean[i])
        th = ssthresh[i]
        alpha = params[0, i * s]
        beta = params[1, i * s]
        mid = params[3, i * s]
        old_succ = succ[i]

        ss = phase[i] == SLOW_START
        exit_gamma = ss and d > params[2, i * s]
        leave = exit_gamma or (ss and w >= th)
        grow = ss and not leave
        ca = not ss
        above = ca and d > beta
        below = ca and d < alpha
        upper = ca and not above and d > mid
        lower = ca and not below and d < mid

        # eq (3): (β − Δ) × succ, at most doubling
        new_succ = old_succ + 1.0 if below else 0.0
        amount = fmin((beta - d) * new_succ, w)
        # decreases at the boundary: eq (4) above β, −1 between m and β
        drop = 0.5 * (d - mid) if above else (1.0 if upper else 0.0)
        x = fmax(0.875 * w if exit_gamma else w - drop, MIN_WINDOW)
        if grow:
            # one packet per two ACKs of the window's whole packets (module docstring)
            up = 0.5
            top = fmin(w + 0.5 * np.floor(w), th)
        else:
            up = amount / w if below else (1.0 / w if lower else 0.0)
            top = x + (amount if below else (1.0 if lower else 0.0))

        if sampling != _EVERY_ROUND:
            # a measurement round after a congestion-avoidance decision: the window,
            # succ and incr are left as they are (nothing added per ACK)
            held = ca and hold[i] == 1.0
            if held:
                x, up, top, new_succ = w, 0.0, w, old_succ
            decided = ca and not held
            if sampling == _AFTER_INCREASE:
                decided = decided and below
            elif sampling == _NEAR_BAND_CODE:
                decided = decided and below and d >= params[4, i * s]
            elif sampling == _AFTER_OVERSHOOT:
                # after an overshoot (Δ > 2β) every eq-(3) increase is measured until the
                # flow is back in its band: a decision that follows an increase finds
                # Δ >= α, or two decisions in a row find α <= Δ <= m (settled from above)
                last = last_inc[i]
                decided = decided and below and (d >= params[4, i * s] or wary[i] == 1.0)
                moved = ca and not held
                settled = not below and not above and not upper
                back = (last == 1.0 and not below) or (last == -1.0 and settled)
                if moved and d > params[5, i * s]:
                    wary[i] = 1.0
                if moved and back:
                    wary[i] = 0.0
                # last decision: 1 an eq-(3) increase, -1 in the lower half of the band,
                # 0 a decrease
                if moved:
                    last_inc[i] = 1.0 if below else (-1.0 if settled else 0.0)
            hold[i] = 1.0 if decided else 0.0

        new[i] = x
        incr[i] = up
        cap[i] = top
        if leave:
            phase[i] = CONGESTION_AVOIDANCE
        succ[i] = 0.0 if ss else new_succ


_QUICK_VEGAS = Kernel(_quick_vegas_rule, "wwwwwwrrrRiwww", uses=(backlog, stride, fmax, fmin))


def _quick_vegas_loss(phase: Any, ss_grow: Any, ssthresh: Any, succ: Any, hold: Any,
    last_inc: Any, index: Any, kind: int, cwnd: Any, new: Any) -> None:  # fmt: skip
    """Vegas's loss reactions, then *ours*: ``succ``, ``hold`` and ``last_inc`` reset."""
    _vegas_loss(phase, ss_grow, ssthresh, index, kind, cwnd, new)
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        succ[i] = 0.0
        hold[i] = 0.0
        last_inc[i] = 0.0


_QUICK_VEGAS_LOSS = Kernel(_quick_vegas_loss, "wwwwwwIirw", uses=(check_index, fmax, _VEGAS_LOSS))
