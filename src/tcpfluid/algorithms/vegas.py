"""TCP Vegas (Brakmo and Peterson), as summarised in the Quick Vegas paper (Chan, Lin,
Ho 2008) §3.1.

Rules, each from the Quick Vegas paper §3.1 unless marked *ours*:

* Δ = (Expected − Actual) × BaseRTT = cwnd × (1 − BaseRTT / RTT)  (eq 1), with RTT the
  mean RTT of the round (``sample.rtt_mean``) and cwnd the sample's window.
* Slow start: the window doubles every other round; in between it stays fixed "so that a
  valid comparison of the Expected and Actual throughput can be made". The doubling is
  spread over the ACKs: one packet per ACK (``incr = 1``) with ``cap = 2 × cwnd``; the
  rounds alternate between growing and fixed, starting with a fixed first round (Table 1:
  2, 2, 4, 4, 8, ...).
* Leaving slow start: when Δ > γ, the window is cut by 1/8 (× 7/8) and the flow enters
  congestion avoidance. *Ours*: Δ is checked every round (growing and fixed ones), and
  slow start also ends without a cut when the window reaches ``ssthresh`` (set only by a
  timeout; infinite at the start), as in Reno.
* Congestion avoidance (eq 2): +1 per round if Δ < α, −1 if Δ > β, unchanged otherwise.
  The +1 is spread as ``1/cwnd`` per ACK with ``cap = cwnd + 1``; the −1 is applied at the
  round boundary.
* Losses: a retransmission triggered by duplicate ACKs sets the window to 3/4 of its
  value (:data:`LOSS_FAST`) or to 1/2 if the retransmitted packet had already been sent
  more than once (:data:`LOSS_RETX`); a coarse timeout sets ``ssthresh = cwnd / 2``,
  ``cwnd = 2`` and restarts slow start (:data:`LOSS_TIMEOUT`). *Ours*: after a 3/4 or
  1/2 cut the flow is in congestion avoidance.
* *Ours*: the window never goes below 2 packets (the window a timeout restarts from).

Delayed ACKs: increments are per ACK received, as in ns-2 and Linux, so with one ACK per
two packets slow start grows by half a window per growing round and the congestion-avoidance
increase is about 1/2 packet per round; the cap still bounds the round's growth.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ._common import (
    MIN_WINDOW,
    backlog,
    check_broadcast,
    check_flows,
    check_initial_window,
    check_le,
    keeps_float_path,
    loss_args,
    param_array,
    param_value,
)
from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    ControlLaw,
    FloatArray,
    FlowIndex,
    OdeForm,
    RoundAction,
    RoundSample,
    State,
)

__all__ = ["Vegas"]


class Vegas(ControlLaw):
    """TCP Vegas: slow start with γ, congestion avoidance with α and β (the Quick Vegas
    paper, §3.1).

    Parameters
    ----------
    alpha : float or array_like, default 2
        Lower backlog threshold α of eq (2), packets; ``>= 0``.
    beta : float or array_like, default 4
        Upper backlog threshold β of eq (2), packets; ``>= alpha``.
    gamma : float or array_like, default 1
        Slow-start exit threshold γ, packets; ``> 0``.
    initial_window : float, default 2
        Window of the first round, packets; ``>= 1``. The analyses start at 2 (Table 3 of the
        TCP-Ho paper, Table 1 of the Quick Vegas paper); ns-2's TCP agents start at 1
        (``windowInit_``), which makes a Vegas slow start two rounds longer (its window doubles
        every other round).

    Each parameter except ``initial_window`` may be a scalar or an array with one value per
    flow (a batched sweep). The defaults are those of the Quick Vegas paper §5 (γ = 1, α = 2,
    β = 4).

    Notes
    -----
    State (arrays over flows): ``phase`` (:data:`SLOW_START` or
    :data:`CONGESTION_AVOIDANCE`), ``ss_grow`` (1 when the next slow-start round doubles
    the window), ``ssthresh`` (packets; ``inf`` until a timeout).
    """

    name: ClassVar[str] = "vegas"
    #: a steady window may dither by one move of its ±1-packet-per-round rule (packets
    #: quantise Δ at the band's edges)
    cycle_amplitude_pkts: ClassVar[float] = 1.0
    ode_form: ClassVar[OdeForm | None] = None  # set below the class (it names _vegas_rate)
    #: Enhanced Vegas decreases when Δ >= δ (not only when Δ > β)
    _decrease_inclusive: ClassVar[bool] = False

    def __init__(
        self,
        *,
        alpha: Any = 2.0,
        beta: Any = 4.0,
        gamma: Any = 1.0,
        initial_window: float = 2.0,
    ) -> None:
        self.initial_window = check_initial_window(initial_window)
        self._alpha = param_array("alpha", alpha, nonnegative=True)
        self._beta = param_array("beta", beta, nonnegative=True)
        self._gamma = param_array("gamma", gamma, positive=True)
        check_le("alpha", self._alpha, "beta", self._beta)
        check_broadcast(Vegas._param_arrays(self))  # subclasses check their own in full

    def params(self) -> dict[str, Any]:
        """``{"alpha": ..., "beta": ..., "gamma": ..., "initial_window": ...}`` as floats or
        lists (a subclass with its own constructor lists the parameters it accepts)."""
        out: dict[str, Any] = {
            "alpha": param_value(self._alpha),
            "beta": param_value(self._beta),
            "gamma": param_value(self._gamma),
        }
        if type(self).__init__ is Vegas.__init__:  # the constructor that accepts it
            out["initial_window"] = self.initial_window
        return out

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

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        """One Vegas decision per round (eqs 1–2 and slow start of the Quick Vegas paper §3.1)."""
        cwnd = sample.cwnd
        base, rtt = sample.base_rtt, sample.rtt_mean
        if (
            cwnd.shape == base.shape == rtt.shape == (1,)
            and self._alpha.size == self._beta.size == self._gamma.size == 1
        ):
            # one flow: Δ of eq (1) on Python floats, the same IEEE operations as
            # :func:`backlog` on arrays (an RTT of 0 takes the array path and its inf/nan)
            r = float(rtt[0])
            if r != 0.0:
                w = float(cwnd[0])
                return self._decide_one(state, w, w * (1.0 - float(base[0]) / r))
        return self._decide(state, cwnd, backlog(cwnd, base, rtt))

    def _decide(self, state: State, cwnd: FloatArray, delta: FloatArray) -> RoundAction:
        """Slow start and eq (2) from the window and the backlog estimate Δ."""
        if cwnd.shape == (1,) and self._alpha.size == self._beta.size == self._gamma.size == 1:
            return self._decide_one(state, float(cwnd[0]), float(delta[0]))
        phase = state["phase"]
        ss_grow = state["ss_grow"]
        ssthresh = state["ssthresh"]

        ss = phase == SLOW_START
        exit_gamma = ss & (delta > self._gamma)
        leave = exit_gamma | (ss & (cwnd >= ssthresh))
        grow = ss & (ss_grow > 0.0) & ~leave
        ca = ~ss
        inc = ca & (delta < self._alpha)
        if self._decrease_inclusive:
            dec = ca & (delta >= self._beta)
        else:
            dec = ca & (delta > self._beta)

        new = np.where(exit_gamma, cwnd * 0.875, cwnd)
        new -= dec
        np.maximum(new, MIN_WINDOW, out=new)
        incr = np.where(grow, 1.0, np.where(inc, 1.0 / cwnd, 0.0))
        cap = np.where(grow, np.minimum(2.0 * cwnd, ssthresh), new + inc)

        np.putmask(phase, leave, CONGESTION_AVOIDANCE)
        np.subtract(1.0, ss_grow, out=ss_grow, where=ss)
        return RoundAction(cwnd=new, incr=incr, cap=cap)

    def _decide_one(self, state: State, cwnd: float, delta: float) -> RoundAction:
        """:meth:`_decide` for one flow, on Python floats: the same IEEE operations in the
        same order, so the same action and state, without NumPy's fixed cost per operation
        on 1-element arrays (the packet simulator decides one flow at a time: this took
        most of its time in the laws)."""
        new, incr, cap = self._decide_floats(state, cwnd, delta)
        return RoundAction(cwnd=np.array([new]), incr=np.array([incr]), cap=np.array([cap]))

    def _round_floats(
        self, state: State, cwnd: float, base_rtt: float, rtt_mean: float
    ) -> tuple[float, float, float] | None:
        """:meth:`on_round` for one flow whose sample is given as Python floats: the
        action's (cwnd, incr, cap), or ``None`` where :meth:`on_round` takes its array
        path (an RTT of 0). Used through :meth:`_one_flow_path` only."""
        if rtt_mean == 0.0:
            return None
        return self._decide_floats(state, cwnd, cwnd * (1.0 - base_rtt / rtt_mean))

    def _one_flow_path(
        self,
    ) -> Callable[[State, float, float, float], tuple[float, float, float] | None] | None:
        """The bound :meth:`_round_floats` when it is exactly what :meth:`on_round` does
        for one flow (scalar parameters, and a class that keeps this class's round
        decision), else ``None``. The packet simulator calls it per one-flow decision to
        skip the arrays of :class:`RoundSample` and :class:`RoundAction`.

        The float path mirrors the round decision of the class that writes it (the first
        in the MRO to define ``_round_floats``: Vegas, or Quick Vegas with its own): a
        subclass that changes any of the mirrored methods gets none."""
        scalar = self._alpha.size == self._beta.size == self._gamma.size == 1
        mirrored = ("on_round", "_decide_one", "_decide_floats", "_round_floats")
        return self._round_floats if scalar and keeps_float_path(self, *mirrored) else None

    def _decide_floats(self, state: State, cwnd: float, delta: float) -> tuple[float, float, float]:
        """:meth:`_decide_one`'s decision as Python floats (cwnd, incr, cap)."""
        phase = state["phase"]
        ss_grow = state["ss_grow"]
        ss = bool(phase[0] == SLOW_START)
        exit_gamma = ss and delta > self._gamma.item()
        leave = exit_gamma or (ss and cwnd >= float(state["ssthresh"][0]))
        grow = ss and float(ss_grow[0]) > 0.0 and not leave
        inc = not ss and delta < self._alpha.item()
        beta = self._beta.item()
        dec = not ss and (delta >= beta if self._decrease_inclusive else delta > beta)

        new = cwnd * 0.875 if exit_gamma else cwnd
        if dec:
            new -= 1.0
        new = max(new, MIN_WINDOW)
        if grow:
            incr = 1.0
            cap = min(2.0 * cwnd, float(state["ssthresh"][0]))
        else:
            incr = 1.0 / cwnd if inc else 0.0
            cap = new + 1.0 if inc else new

        if leave:
            phase[0] = CONGESTION_AVOIDANCE
        if ss:
            ss_grow[0] = 1.0 - ss_grow[0]
        return new, incr, cap

    def on_loss(self, state: State, index: FlowIndex, kind: int, cwnd: FloatArray) -> FloatArray:
        """Vegas loss reactions (the Quick Vegas paper, §3.1): 3/4, 1/2, or timeout to 2 packets."""
        kind, idx, w = loss_args(index, kind, cwnd)
        if kind == LOSS_TIMEOUT:
            state["ssthresh"][idx] = np.maximum(w / 2.0, MIN_WINDOW)
            state["phase"][idx] = SLOW_START
            state["ss_grow"][idx] = 1.0
            return np.full(w.shape, MIN_WINDOW)
        factor = 0.75 if kind == LOSS_FAST else 0.5
        new = np.maximum(w * factor, MIN_WINDOW)
        state["phase"][idx] = CONGESTION_AVOIDANCE
        state["ssthresh"][idx] = new
        return new


def _vegas_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """Vegas's rule as a rate: ±1 packet per RTT (eq. 2 of the Quick Vegas paper), ``sign/RTT``."""
    return sign / rtt


#: +1/RTT below α, −1/RTT above β (eq. 2 of the Quick Vegas paper); Vegas's 3/4 rule on a loss
VEGAS_ODE_FORM = OdeForm(_vegas_rate, 0.25, "dw/dt = s(Δ)/RTT, s the ramped sign of eq. (2)")
Vegas.ode_form = VEGAS_ODE_FORM
