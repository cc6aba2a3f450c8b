"""iTCP-Vegas (Pan, Horng, Shih and Su), the iTCP-Vegas paper (Pan et al. 2011) §3 —
an interpretation.

What the document gives (the iTCP-Vegas paper, §3, Figures 2–3 described in the text):

* Δ (``diff``) as Vegas's eq (4) of the iTCP-Vegas paper (= eq 1 of the Quick Vegas paper).
* Four areas split at the points α, (α + β)/2, β: Area 1 (Δ < α) "the network bandwidth is
  highly available ... cwnd will be updated and increased rapidly"; Area 2 (between α and
  (α+β)/2) "the increment of cwnd will be slowed down"; Area 3 (between (α+β)/2 and β)
  "cwnd is also kept stable"; Area 4 (Δ > β) "cwnd size will be reduced".
* Flow-chart parts described in the text: B (Area 1) "the throughput is exhaustedly
  prompted by increasing the scaling variable P, and the operational parameters"; C (Area 2)
  "slow down the increment of cwnd and reduce the gap between α and β"; D (Area 3) "the
  throughput is not changed but the gap between α and β will adapt closely"; E (Area 4)
  "rapidly reduce, even reset, the throughput".
* "When the diff value is equal to the partition point of α, β or (α + β)/2, the cwnd size
  and α and β values will not be revised; only P value will be set to zero."
* Slow start and the other phases are Vegas's ("the slow-start algorithm of iTCP-Vegas is
  the same"; "the phase of congestion avoidance will be focused, the other two phases will
  not be considered").

The flow chart itself (Figure 3) is missing, so the amounts are **ours**. Per round, with
the flow's current thresholds ``a`` and ``b`` and ``m = (a + b)/2``:

===========  ==========================================================================
Area 1       ``P += p_step``; ``cwnd += min(P, cwnd)``; raise both thresholds by
             ``threshold_gain × min(P, cwnd)`` (``b`` at most ``threshold_max``, ``a`` at
             most ``b − min_gap``): P scales the parameter increments as well.
Area 2       ``P = max(area2_factor × P, 1)`` (1: Vegas's +1 per round, iTCP-Vegas paper, Fig. 1);
             ``cwnd += min(P, cwnd)``; narrow the gap from above:
             ``b = max(b − threshold_step, a + min_gap)``.
Area 3       ``cwnd`` unchanged; ``P = 0``; narrow the gap as in Area 2.
Area 4       ``cwnd = max(cwnd − (Δ − m), 2)``, i.e. ``cwnd·BaseRTT/RTT + m``: the window
             is reset in one step to the one that carries the measured rate plus the
             band's middle (our reading of "rapidly reduce, even reset"); ``P = 0``;
             ``a, b`` lowered by ``threshold_gain ×`` the decrease, not below α, β.
Δ = a, m, b  ``P = 0`` only.
===========  ==========================================================================

Increases are spread over the next round's ACKs (``incr = amount / cwnd``,
``cap = cwnd + amount``, at most doubling); decreases are applied at the round boundary.
Losses are Vegas's (3/4, 1/2, timeout); *ours*: a loss also resets ``P`` and the
thresholds to the initial α, β.

Why these amounts (the iTCP-Vegas paper, §4.2, the 622 Mb/s × 110 ms run, and Table 2):

* ``P`` grows by a constant per Area-1 round, so the window grows quadratically in rounds;
  the rounds the document takes to fill the link (≈ 54 s at RTT 260 ms; Table 2: 22, 57,
  103, 156 s for RTT 240–840 ms at 155 Mb/s, i.e. 92–186 rounds) grow like the square
  root of the bandwidth-delay product, as a quadratic ramp's do. ``p_step = 1.25`` is
  fitted to these five runs (average throughputs within 5 %, times within 9 % in both
  engines; ``p_step = 1`` gives averages up to 14 % low, times up to 18 % late; see
  ``validation/test_itcp_documents.py``).
* The thresholds must grow during the ramp: each round's increment of P packets queues
  for part of the round, Δ ≈ P·W/BDP, so fixed thresholds end Area 1 long before the link
  fills (the earlier reading, ceiling 16, gave 235 Mb/s). Raising them by a share of the
  increment keeps Area 1 until the link is full and sets the backlog held afterwards:
  ``threshold_gain = 0.04`` gives ≈ 800 packets at 622 Mb/s, the "≈ 10 ms" RTT rise to
  "270 ms" of Fig. 6's text (10 ms × 77 750 packets/s = 778 packets; the window gained
  ≈ 19 800 packets in the ramp, 778/19 800 ≈ 0.04). A share of P (rather than a fixed
  step per round) means a flow that only occasionally dips into Area 1 once settled (P =
  1.25) barely moves its thresholds.
* Areas 2–3 narrow from above, so the band's middle (the held backlog) drops slightly:
  the text's "then, the RTT value will reduce slightly" (at most ``(β − α − min_gap)/2``).
* Area 4 lowers the thresholds by the share of the decrease that Area 1 adds for an
  increase, so an increase that Area 4 takes back leaves them where they were (without
  this, noisy packet-level rounds that dip into Area 1 ratchet the backlog up: +1 ms of
  RTT in 40 s on the 622 Mb/s path, and from 16 to 165 packets in 240 s on ``qv-basic``).
  Resetting them to α, β instead would drain the whole queue built in the ramp, where
  Fig. 6's text has the RTT "kept in 270 ms".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import MIN_WINDOW, backlog, check_broadcast, check_le
from .base import SLOW_START, FloatArray, FlowIndex, Parameter, RoundAction, RoundSample, State
from .vegas import ALPHA, BETA, GAMMA, Vegas

__all__ = ["ITcpVegas"]


class ITcpVegas(Vegas):
    """iTCP-Vegas: four areas, scaling variable P, dynamic α and β (the iTCP-Vegas paper, §3).

    Parameters
    ----------
    alpha, beta : float or array_like, default 2, 4
        Initial thresholds α <= β, packets (the document does not give values; these are
        the Quick Vegas paper's Vegas values).
    gamma : float or array_like, default 1
        Slow-start exit threshold, packets (Vegas's slow start).
    p_step : float or array_like, default 1.25
        *Ours*: growth of P per Area-1 round, packets per round per round; ``> 0``. Fitted
        to the ramp times and average throughputs of the iTCP-Vegas paper (Table 1, Table 2).
    threshold_gain : float or array_like, default 0.04
        *Ours*: Area 1 raises α and β by this share of the round's increment
        ``min(P, cwnd)``; ``>= 0``. From the ≈ 10 ms RTT rise of the iTCP-Vegas paper §4.2.
    threshold_step : float or array_like, default 1
        *Ours*: how far β moves down per Area-2/3 round (narrowing), packets; ``>= 0``.
    threshold_max : float or array_like, optional
        *Ours*: ceiling of β when Area 1 raises the thresholds, packets; ``>= beta``.
        Default ``None``: no ceiling (the document gives none; the thresholds only grow
        while the flow finds spare bandwidth).
    min_gap : float or array_like, default 1
        *Ours*: smallest β − α left by the narrowing, packets; ``0 < min_gap <= beta - alpha``.
    area2_factor : float or array_like, default 0.5
        *Ours*: Area 2 multiplies P by this (``0 <= area2_factor < 1``: "slowed down"),
        keeping at least Vegas's +1 packet per round.

    Notes
    -----
    State: ``phase``, ``ss_grow``, ``ssthresh`` (as Vegas), ``p`` (the scaling variable
    P), ``a`` and ``b`` (the flow's current α and β).
    """

    name: ClassVar[str] = "itcp-vegas"
    #: its steady state is a limit cycle (Area-1 increases and Area-4 resets around the band)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        ALPHA,
        BETA,
        GAMMA,
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
            "ceiling of β when Area 1 raises the thresholds, packets; >= beta",
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
            "Area 2 multiplies P by this (Area 2 slows the increment)",
            lower=0.0,
            upper=1.0,
            upper_open=True,
        ),
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        """Vegas's checks, β <= threshold_max, min_gap <= β − α, arrays of one length."""
        super()._configure(values)
        self._p_step = values["p_step"]
        self._gain = values["threshold_gain"]
        self._step = values["threshold_step"]
        self._tmax = (
            np.array(np.inf) if values["threshold_max"] is None else values["threshold_max"]
        )
        self._gap = values["min_gap"]
        self._slow = values["area2_factor"]
        check_broadcast(self._param_arrays())
        check_le("beta", self._beta, "threshold_max", self._tmax)
        check_le("min_gap", self._gap, "beta - alpha", self._beta - self._alpha)

    def _param_arrays(self) -> dict[str, FloatArray]:
        out = super()._param_arrays()
        out.update(
            p_step=self._p_step,
            threshold_gain=self._gain,
            threshold_step=self._step,
            threshold_max=self._tmax,
            min_gap=self._gap,
            area2_factor=self._slow,
        )
        return out

    def init_state(self, n: int) -> State:
        """Fresh state: Vegas's slow start, ``P = 0``, thresholds at α and β."""
        state = super().init_state(n)
        n = state["phase"].shape[0]
        state["p"] = np.zeros(n)
        state["a"] = np.broadcast_to(self._alpha, (n,)).astype(np.float64)
        state["b"] = np.broadcast_to(self._beta, (n,)).astype(np.float64)
        return state

    def on_round(
        self, state: State, sample: RoundSample, out: RoundAction | None = None
    ) -> RoundAction:
        """Vegas's slow start, then the four-area rule in congestion avoidance (written into
        ``out`` if given)."""
        cwnd = sample.cwnd
        delta = backlog(cwnd, sample.base_rtt, sample.rtt_mean)
        ss = state["phase"] == SLOW_START
        a, b, p = state["a"], state["b"], state["p"]
        m = 0.5 * (a + b)
        step, gap = self._step, self._gap

        ss_action = self._decide(state, cwnd, delta)  # only its slow-start flows are used
        ca = ~ss
        area1 = ca & (delta < a)
        area2 = ca & (delta > a) & (delta < m)
        area3 = ca & (delta > m) & (delta < b)
        area4 = ca & (delta > b)

        # at least Vegas's +1 (the iTCP-Vegas paper, Fig. 1)
        slowed = np.maximum(self._slow * p, 1.0)
        new_p = np.where(area1, p + self._p_step, np.where(area2, slowed, 0.0))
        amount = np.where(area1 | area2, np.minimum(new_p, cwnd), 0.0)
        cut = np.where(area4, delta - m, 0.0)
        new = np.maximum(cwnd - cut, MIN_WINDOW)

        raise_by = self._gain * amount  # Area 1: thresholds grow with the increment P
        b_up = np.minimum(b + raise_by, self._tmax)
        a_up = np.minimum(a + raise_by, b_up - gap)
        b_in = np.maximum(b - step, a + gap)  # narrow from above: m drops by at most step/2
        narrow = area2 | area3
        # Area 4: lower them by the same share of the decrease, not below the initial α, β
        # (the gap stays >= min_gap: b − a >= min_gap before, and β − α >= min_gap)
        lower_by = self._gain * (cwnd - new)
        a_dn = np.maximum(a - lower_by, self._alpha)
        b_dn = np.maximum(b - lower_by, self._beta)
        new_a = np.where(area1, a_up, np.where(area4, a_dn, a))
        new_b = np.where(area1, b_up, np.where(narrow, b_in, np.where(area4, b_dn, b)))

        np.copyto(p, np.where(ca, new_p, p))
        np.copyto(a, new_a)
        np.copyto(b, new_b)
        act = RoundAction.empty(cwnd.shape[0]) if out is None else out
        act.cwnd[...] = np.where(ss, ss_action.cwnd, new)
        act.incr[...] = np.where(ss, ss_action.incr, amount / cwnd)
        act.cap[...] = np.where(ss, ss_action.cap, new + amount)
        return act

    def on_loss(
        self,
        state: State,
        index: FlowIndex,
        kind: int,
        cwnd: FloatArray,
        out: FloatArray | None = None,
    ) -> FloatArray:
        """Vegas's loss reactions; P and the thresholds back to their initial values
        (written into ``out`` if given)."""
        new = super().on_loss(state, index, kind, cwnd, out)
        idx = np.asarray(index, dtype=np.intp)
        n = state["p"].shape[0]
        state["p"][idx] = 0.0
        state["a"][idx] = np.broadcast_to(self._alpha, (n,))[idx]
        state["b"][idx] = np.broadcast_to(self._beta, (n,))[idx]
        return new
