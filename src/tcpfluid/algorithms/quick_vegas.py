"""Quick Vegas, §3.2 of the Quick Vegas paper (Chan, Lin and Ho 2008).

Rules, each from the Quick Vegas paper unless marked *ours*:

* Δ as Vegas, eq (1): ``cwnd × (1 − BaseRTT / RTT)`` with the round's mean RTT.
* Slow start (§3.2.1): one extra packet per two ACKs, every round from the first:
  ``incr = 1/2`` per ACK, ``cap = cwnd + ⌊cwnd⌋/2`` (a packet sender's windows 2, 3, 4.5,
  6.5, 9.5, ...; Table 1's 2, 3, 4.5, 6.75, ... is the fluid limit ×1.5 a round:
  docs/mechanisms.md ``senders-slow-start-lag``).
* Leaving slow start: Δ > γ, window × 7/8, congestion avoidance (§3.1, kept by §3.2.1).
  *Ours*: also (without a cut) when the window reaches ``ssthresh`` after a timeout.
* Congestion avoidance: exactly the pseudo-code of §3.2.2, with ``m = (α + β)/2``:

  ========================  ==============================================================
  Δ > β                     ``cwnd −= (Δ − m)/2`` (eq 4); ``incr = 0``; ``succ = 0``
  Δ < α                     ``succ += 1``; ``incr = 1`` if ``(β − Δ)·succ > cwnd`` else
                            ``incr = (β − Δ)·succ / cwnd`` (eq 3, "at most double")
  m < Δ <= β                ``cwnd −= 1``; ``incr = 0``; ``succ = 0``
  α <= Δ < m                ``incr = 1/cwnd``; ``succ = 0``
  Δ = m                     ``incr = 0``; ``succ = 0``
  ========================  ==============================================================

  ``incr`` is added per ACK ("the incr is served as the increment amount of congestion
  window after each ACK is received"); the cap of the round is ``cwnd +
  min((β − Δ)·succ, cwnd)`` for an eq-(3) increase and ``cwnd + 1`` for the ``1/cwnd``
  move, so a full round of ACKs adds exactly the pseudo-code's amount.
* When Δ is sampled (``sampling``, *our reading*: :class:`QuickVegas`): a change made at
  round i "can be detected at the (i + 2)th round" (§3.2.2). Why, and each reading's
  measured queues: docs/algorithms.md, "When Δ is sampled".
* Losses: as Vegas (3/4, 1/2, timeout to 2 packets and slow start). *Ours*: a loss also
  resets ``succ`` (the run of consecutive increases is broken).
* *Ours*: the window never goes below 2 packets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import MIN_WINDOW, backlog, check_index, fmax, fmin, rule_params, stride
from ._jit import Kernel
from .base import (
    CONGESTION_AVOIDANCE,
    SLOW_START,
    FloatArray,
    Parameter,
    RoundAction,
    RoundSample,
    State,
)
from .vegas import ALPHA, BETA, GAMMA, Vegas, _vegas_loss

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

    Parameters
    ----------
    alpha, beta, gamma : float or array_like, default 2, 4, 1
        Vegas's thresholds α <= β and slow-start exit threshold γ, packets (:class:`Vegas`).
    sampling : {"near-band", "every-round", "after-increase", "every-other-round", \
"near-band-after-overshoot"}
        When congestion avoidance samples Δ and decides (module docstring):
        ``"near-band"`` (default) skips the round after an eq.-(3) increase taken with
        Δ ≥ α/4, ``"every-round"`` decides every round (the printed pseudo-code
        literally), ``"after-increase"`` skips the round after every eq.-(3) increase,
        ``"every-other-round"`` the round after every decision,
        ``"near-band-after-overshoot"`` is ``"near-band"`` that also skips the round after
        every eq.-(3) increase from an overshoot (Δ > 2β) until the flow is back in its
        band.

    Defaults are those of §5 of the Quick Vegas paper (γ = 1, α = 2, β = 4).

    Notes
    -----
    State: ``phase``, ``succ`` (consecutive eq-(3) increases), ``ssthresh`` (packets, ``inf``
    until a timeout), ``hold`` (1 where the next congestion-avoidance round only measures),
    ``wary`` (1 from an overshoot until the flow is back in its band) and ``last_inc`` (the
    last decision: 1 an eq-(3) increase, −1 in the lower half of the band, 0 a decrease),
    both used by
    ``"near-band-after-overshoot"``, and ``ss_grow`` (unused, kept for compatibility with
    Vegas's state).
    """

    name: ClassVar[str] = "quick-vegas"
    #: its steady state is a limit cycle (±1 moves around the band; Δ = m is the only rest)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        ALPHA,
        BETA,
        GAMMA,
        Parameter(
            "sampling",
            "near-band",
            "when congestion avoidance samples Δ and decides (module docstring)",
            choices=SAMPLINGS,
        ),
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        super()._configure(values)
        sampling = values["sampling"]
        self._sampling = sampling
        self._sampling_code = SAMPLINGS.index(sampling)
        self._mid = 0.5 * (self._alpha + self._beta)
        #: α, β, γ, m and the near-band and overshoot thresholds of Δ (:data:`_NEAR_BAND`
        #: of α, :data:`_OVERSHOOT` of β) as the rows of one array (:func:`_quick_vegas_rule`)
        self._rule_params = rule_params(
            self._alpha,
            self._beta,
            self._gamma,
            self._mid,
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

    def _round_rule(self, state: State, sample: RoundSample) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`_quick_vegas_rule` on the law's state and parameters and the sample."""
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        base_rtt = np.asarray(sample.base_rtt, dtype=np.float64)
        rtt_mean = np.asarray(sample.rtt_mean, dtype=np.float64)
        s = state
        states = (s["phase"], s["succ"], s["ssthresh"], s["hold"], s["wary"], s["last_inc"])
        args = (*states, cwnd, base_rtt, rtt_mean, self._rule_params, self._sampling_code)
        return _QUICK_VEGAS, cwnd.shape[0], args

    def _loss_rule(
        self, state: State, kind: int
    ) -> tuple[Any, tuple[FloatArray, ...], tuple[Any, ...]]:
        """:func:`_quick_vegas_loss` on the law's state: Vegas's loss reactions (the Quick
        Vegas paper, §3.1); ``succ`` is reset."""
        arrays = ("phase", "ss_grow", "ssthresh", "succ", "hold", "last_inc")
        return _QUICK_VEGAS_LOSS, tuple(state[key] for key in arrays), ()


def _quick_vegas_rule(
    phase: Any,
    succ: Any,
    ssthresh: Any,
    hold: Any,
    wary: Any,
    last_inc: Any,
    cwnd: Any,
    base_rtt: Any,
    rtt_mean: Any,
    params: Any,
    sampling: int,
    new: Any,
    incr: Any,
    cap: Any,
) -> None:
    """Quick Vegas's decision for each flow ``i`` from its window ``cwnd[i]`` and Δ of eq
    (1) (``backlog`` of the window, ``base_rtt[i]`` and ``rtt_mean[i]``): the slow start of
    §3.2.1 and the pseudo-code of §3.2.2 (module docstring), with the measurement rounds of
    ``sampling`` (the index of the reading in :data:`SAMPLINGS`).

    ``params`` holds the rows α, β, γ, m = (α + β)/2, the near-band threshold
    ``_NEAR_BAND × α`` and the overshoot threshold ``_OVERSHOOT × β`` (one column, or one
    per flow). Writes the action into ``new``, ``incr``, ``cap`` and the state in place.
    Compiled once (:mod:`tcpfluid.algorithms._jit`).
    """
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


def _quick_vegas_loss(
    phase: Any,
    ss_grow: Any,
    ssthresh: Any,
    succ: Any,
    hold: Any,
    last_inc: Any,
    index: Any,
    kind: int,
    cwnd: Any,
    new: Any,
) -> None:
    """Quick Vegas's loss reactions for flows ``index[j]`` whose windows are ``cwnd[j]``:
    Vegas's (the Quick Vegas paper, §3.1; :func:`~tcpfluid.algorithms.vegas._vegas_loss`),
    then *ours*: ``succ`` reset (the run of consecutive increases is broken), no
    measurement round pending and no last decision. ``kind`` is a checked base kind
    (:func:`~._common.loss_args`). Writes the new windows into ``new``. Compiled once."""
    _vegas_loss(phase, ss_grow, ssthresh, index, kind, cwnd, new)
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        succ[i] = 0.0
        hold[i] = 0.0
        last_inc[i] = 0.0


_QUICK_VEGAS_LOSS = Kernel(_quick_vegas_loss, "wwwwwwIirw", uses=(check_index, fmax, _vegas_loss))
