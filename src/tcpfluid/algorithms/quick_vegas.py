"""Quick Vegas, §3.2 of the Quick Vegas paper (Chan, Lin and Ho 2008).

Rules, each from the Quick Vegas paper unless marked *ours*:

* Δ as Vegas, eq (1): ``cwnd × (1 − BaseRTT / RTT)`` with the round's mean RTT.
* Slow start (§3.2.1): "a sender sends out an extra packet whenever it receives two ACKs"
  and "the congestion window is adjusted every RTT": ``incr = 1/2`` per ACK every round,
  ``cap = 1.5 × cwnd`` — Table 1: 2, 3, 4.5, 6.75, 10.13, ... The first round already
  grows (Table 1 has 3 packets in round 1), so :meth:`QuickVegas.initial_action` returns
  the slow-start action.
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
* When Δ is sampled (``sampling``). The pseudo-code runs "for every estimation"; at packet
  level an estimation at the boundary of round i sees the windows of round i − 1, so a
  change made at round i "can be detected at the (i + 2)th round" (§3.2.2). Eq. (4) halves
  its decrease for that reason. Eq. (3) counts *successful* increases ("if the increment
  was successful, it might be the case that there is enough bandwidth"), and whether an
  increase succeeded is only measurable two rounds later. Default ``"near-band"`` (*our
  reading*): a decision every round, except that an eq.-(3) increase taken with a backlog
  Δ ≥ α/4 (the flow is near its band, where an unseen increase can overshoot β) is followed
  by a measurement round (no decision; succ and the window kept). ``"every-round"`` is the
  pseudo-code read literally: succ grows before its first increase is seen and many flows
  fall into a limit cycle (queue 0–1297 packets with 60 flows on 1 Gb/s, where the Quick
  Vegas paper's §5.3 reports a maximum queue similar to Vegas's). ``"after-increase"``
  measures after every eq.-(3) increase, ``"every-other-round"`` after every decision (both slow the
  ramp-up). ``"near-band-after-overshoot"`` (*ours*) is ``"near-band"`` plus: after a
  decision that sees an overshoot (Δ > 2β) every eq.-(3) increase is measured, until a
  decision following an increase finds Δ ≥ α again. Without it, flows that overshoot
  together (a group joining in slow start) drain the queue to zero, where every flow is
  "far from the band" and takes the literal increases again: a large cycle through the
  empty queue that the near-band rule cannot leave (docs/algorithms.md, §5.3). Not the
  default: backlog noise also sets its flag (under a CBR of 5/6 of the link a packet flow
  in its band reads Δ up to 12), after which the next ramp is measured round by round. The
  analysis is :func:`tcpfluid.analytic.round_map_stability`; docs/algorithms.md gives the
  numbers. ns-2's Vegas, on which the paper's ns-2 runs were built, decides every round
  from the round's mean RTT (Δ rounded to a whole packet, ``incr`` per ACK): that is
  ``"every-round"``, which cycles with many flows; the measurement round near the band
  is what keeps §5.3's queue near Vegas's (docs/algorithms.md, "What ns-2's Vegas reads").
* Losses: as Vegas (3/4, 1/2, timeout to 2 packets and slow start). *Ours*: a loss also
  resets ``succ`` (the run of consecutive increases is broken).
* *Ours*: the window never goes below 2 packets.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from ._common import MIN_WINDOW, backlog
from .base import CONGESTION_AVOIDANCE, SLOW_START, RoundAction, RoundSample
from .vegas import Vegas

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

FloatArray = NDArray[np.float64]
State = dict[str, FloatArray]


class QuickVegas(Vegas):
    """Quick Vegas: ×1.5 slow start and succ/incr congestion avoidance (Quick Vegas paper, §3.2).

    Parameters
    ----------
    alpha : float or array_like, default 2
        Lower backlog threshold α, packets; ``>= 0``.
    beta : float or array_like, default 4
        Upper backlog threshold β, packets; ``>= alpha``.
    gamma : float or array_like, default 1
        Slow-start exit threshold γ, packets; ``> 0``.
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

    def __init__(
        self,
        *,
        alpha: Any = 2.0,
        beta: Any = 4.0,
        gamma: Any = 1.0,
        sampling: Literal[
            "near-band",
            "every-round",
            "after-increase",
            "every-other-round",
            "near-band-after-overshoot",
        ] = "near-band",
    ) -> None:
        super().__init__(alpha=alpha, beta=beta, gamma=gamma)
        if sampling not in SAMPLINGS:
            raise ValueError(
                f"sampling must be one of {', '.join(map(repr, SAMPLINGS))}; got {sampling!r}"
            )
        self._sampling = sampling
        self._mid = 0.5 * (self._alpha + self._beta)

    def init_state(self, n: int) -> State:
        """Fresh state: slow start, ``succ = 0``, next congestion-avoidance round decides."""
        state = super().init_state(n)
        state["succ"] = np.zeros(state["phase"].shape[0])
        state["hold"] = np.zeros(state["phase"].shape[0])
        state["wary"] = np.zeros(state["phase"].shape[0])
        state["last_inc"] = np.zeros(state["phase"].shape[0])
        return state

    def params(self) -> dict[str, Any]:
        """α, β, γ and the sampling reading."""
        return {**super().params(), "sampling": self._sampling}

    def initial_action(self, state: State) -> RoundAction:
        """Round 0 already grows by one packet per two ACKs (Table 1: 2 → 3)."""
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        return RoundAction(cwnd=w, incr=np.full(n, 0.5), cap=np.minimum(1.5 * w, state["ssthresh"]))

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        """One Quick Vegas decision per round (§3.2.1 slow start, §3.2.2 pseudo-code)."""
        cwnd = sample.cwnd
        if (
            cwnd.shape == sample.base_rtt.shape == sample.rtt_mean.shape == (1,)
            and self._alpha.size == self._beta.size == self._gamma.size == 1
        ):
            # one flow (the packet simulator decides one flow at a time): Δ of eq (1) and
            # the decision on Python floats, the same IEEE operations as the array path
            # below; an RTT of 0 or a value that is not finite takes the array path
            r = float(sample.rtt_mean[0])
            w = float(cwnd[0])
            if r != 0.0 and math.isfinite(r) and math.isfinite(w):
                d = w * (1.0 - float(sample.base_rtt[0]) / r)
                if math.isfinite(d):
                    return self._decide_one(state, w, d)
        delta = backlog(cwnd, sample.base_rtt, sample.rtt_mean)
        phase = state["phase"]
        succ = state["succ"]
        ssthresh = state["ssthresh"]
        alpha, beta, mid = self._alpha, self._beta, self._mid

        ss = phase == SLOW_START
        exit_gamma = ss & (delta > self._gamma)
        leave = exit_gamma | (ss & (cwnd >= ssthresh))
        grow = ss & ~leave
        ca = ~ss
        above = ca & (delta > beta)
        below = ca & (delta < alpha)
        upper = ca & ~above & (delta > mid)
        lower = ca & ~below & (delta < mid)

        # eq (3): (β − Δ) × succ, at most doubling
        new_succ = np.where(below, succ + 1.0, 0.0)
        amount = np.minimum((beta - delta) * new_succ, cwnd)
        # decreases at the boundary: eq (4) above β, −1 between m and β
        drop = np.where(above, 0.5 * (delta - mid), np.where(upper, 1.0, 0.0))
        new = np.where(exit_gamma, 0.875 * cwnd, cwnd - drop)
        np.maximum(new, MIN_WINDOW, out=new)

        incr = np.where(grow, 0.5, np.where(below, amount / cwnd, np.where(lower, 1.0 / cwnd, 0.0)))
        cap = np.where(
            grow,
            np.minimum(1.5 * cwnd, ssthresh),
            new + np.where(below, amount, np.where(lower, 1.0, 0.0)),
        )

        if self._sampling != "every-round":
            # a measurement round after a congestion-avoidance decision: the window,
            # succ and incr are left as they are (nothing added per ACK)
            hold = ca & (state["hold"] == 1.0)
            new = np.where(hold, cwnd, new)
            incr = np.where(hold, 0.0, incr)
            cap = np.where(hold, cwnd, cap)
            new_succ = np.where(hold, succ, new_succ)
            decided = ca & ~hold
            if self._sampling == "after-increase":
                decided &= below
            elif self._sampling == "near-band":
                decided &= below & (delta >= _NEAR_BAND * alpha)
            elif self._sampling == "near-band-after-overshoot":
                # after an overshoot (Δ > 2β) every eq-(3) increase is measured until the
                # flow is back in its band: a decision that follows an increase finds
                # Δ >= α, or two decisions in a row find α <= Δ <= m (settled from above)
                wary, last = state["wary"], state["last_inc"]
                decided &= below & ((delta >= _NEAR_BAND * alpha) | (wary == 1.0))
                moved = ca & ~hold
                settled = ~below & ~above & ~upper
                back = ((last == 1.0) & ~below) | ((last == -1.0) & settled)
                np.copyto(wary, np.where(moved & (delta > _OVERSHOOT * beta), 1.0, wary))
                np.copyto(wary, np.where(moved & back, 0.0, wary))
                # last decision: 1 an eq-(3) increase, -1 in the lower half of the band,
                # 0 a decrease
                np.copyto(
                    last, np.where(moved, np.where(below, 1.0, np.where(settled, -1.0, 0.0)), last)
                )
            np.copyto(state["hold"], np.where(decided, 1.0, 0.0))

        np.putmask(phase, leave, CONGESTION_AVOIDANCE)
        np.copyto(succ, np.where(ss, 0.0, new_succ))
        return RoundAction(cwnd=new, incr=incr, cap=cap)

    def _round_floats(
        self, state: State, cwnd: float, base_rtt: float, rtt_mean: float
    ) -> tuple[float, float, float] | None:
        """:meth:`on_round` for one flow whose sample is given as Python floats: the
        action's (cwnd, incr, cap), or ``None`` where :meth:`on_round` takes its array
        path (an RTT of 0, a value that is not finite)."""
        if rtt_mean != 0.0 and math.isfinite(rtt_mean) and math.isfinite(cwnd):
            d = cwnd * (1.0 - base_rtt / rtt_mean)
            if math.isfinite(d):
                return self._decide_floats(state, cwnd, d)
        return None

    def _decide_floats(self, state: State, cwnd: float, delta: float) -> tuple[float, float, float]:
        """:meth:`on_round` for one flow on Python floats (cwnd, incr, cap): the same IEEE
        operations in the same order, so the same action and state, without NumPy's fixed
        cost per operation on 1-element arrays (finite ``cwnd`` and ``delta``); wrapped in
        a :class:`RoundAction` by :meth:`Vegas._decide_one`."""
        phase = state["phase"]
        succ_a = state["succ"]
        ssthresh = float(state["ssthresh"][0])
        alpha, beta = self._alpha.item(), self._beta.item()
        mid = self._mid.item()
        succ = float(succ_a[0])

        ss = bool(phase[0] == SLOW_START)
        exit_gamma = ss and delta > self._gamma.item()
        leave = exit_gamma or (ss and cwnd >= ssthresh)
        grow = ss and not leave
        ca = not ss
        above = ca and delta > beta
        below = ca and delta < alpha
        upper = ca and not above and delta > mid
        lower = ca and not below and delta < mid

        # eq (3): (β − Δ) × succ, at most doubling
        new_succ = succ + 1.0 if below else 0.0
        amount = min((beta - delta) * new_succ, cwnd)
        # decreases at the boundary: eq (4) above β, −1 between m and β
        drop = 0.5 * (delta - mid) if above else (1.0 if upper else 0.0)
        new = 0.875 * cwnd if exit_gamma else cwnd - drop
        new = max(new, MIN_WINDOW)

        if grow:
            incr = 0.5
            cap = min(1.5 * cwnd, ssthresh)
        else:
            incr = amount / cwnd if below else (1.0 / cwnd if lower else 0.0)
            cap = new + (amount if below else (1.0 if lower else 0.0))

        if self._sampling != "every-round":
            hold_a = state["hold"]
            hold = ca and float(hold_a[0]) == 1.0
            if hold:  # a measurement round: nothing changes, nothing is added per ACK
                new, incr, cap, new_succ = cwnd, 0.0, cwnd, succ
            decided = ca and not hold
            if self._sampling == "after-increase":
                decided = decided and below
            elif self._sampling == "near-band":
                decided = decided and below and delta >= _NEAR_BAND * alpha
            elif self._sampling == "near-band-after-overshoot":
                wary_a, last_a = state["wary"], state["last_inc"]
                wary, last = float(wary_a[0]), float(last_a[0])
                decided = decided and below and (delta >= _NEAR_BAND * alpha or wary == 1.0)
                moved = ca and not hold
                settled = not below and not above and not upper
                back = (last == 1.0 and not below) or (last == -1.0 and settled)
                if moved and delta > _OVERSHOOT * beta:
                    wary_a[0] = 1.0
                if moved and back:
                    wary_a[0] = 0.0
                if moved:
                    last_a[0] = 1.0 if below else (-1.0 if settled else 0.0)
            hold_a[0] = 1.0 if decided else 0.0

        if leave:
            phase[0] = CONGESTION_AVOIDANCE
        succ_a[0] = 0.0 if ss else new_succ
        return new, incr, cap

    def on_loss(
        self, state: State, index: NDArray[np.intp], kind: int, cwnd: FloatArray
    ) -> FloatArray:
        """Vegas's loss reactions (the Quick Vegas paper, §3.1); ``succ`` is reset."""
        new = super().on_loss(state, index, kind, cwnd)
        state["succ"][np.asarray(index, dtype=np.intp)] = 0.0
        state["hold"][np.asarray(index, dtype=np.intp)] = 0.0
        state["last_inc"][np.asarray(index, dtype=np.intp)] = 0.0
        return new
