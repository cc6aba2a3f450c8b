"""TCP Reno, the loss-based baseline (the Quick Vegas paper §1, the iTCP-Vegas paper §2
eqs 1–2, the TCP-Ho paper §1).

Rules:

* Slow start: one packet per ACK (``incr = 1``) up to ``ssthresh`` (``cap =
  min(2 × cwnd, ssthresh)``), from the first round; congestion avoidance once
  ``cwnd >= ssthresh``.
* Congestion avoidance (AIMD, the iTCP-Vegas paper eq 1 with a = 1): ``1/cwnd`` per ACK, at most
  one packet per round (``cap = cwnd + 1``).
* Fast retransmit / fast recovery (the iTCP-Vegas paper, §2 and eq 2 with b = 1/2): on three
  duplicate ACKs (:data:`LOSS_FAST`), ``ssthresh = max(cwnd / 2, 2)`` and ``cwnd =
  ssthresh``, congestion avoidance.
* Timeout (:data:`LOSS_TIMEOUT`): ``ssthresh = max(cwnd / 2, 2)``, ``cwnd = 1``, slow start.

Loss recovery (``recovery``, ours): ``"newreno"`` (default) ends a loss event at the
2-packet floor when the engine reports it as :data:`LOSS_BURST` or
:data:`LOSS_BURST_TIMEOUT` (the flow's ACKs were being dropped on an ACK-path bottleneck
in the round of the loss: in congestion avoidance with ``ssthresh`` at the floor; a
timeout: one packet, slow start up to the floor) and follows the rules above otherwise.
``"halving"`` is the rules above for every kind (one halving per loss event);
``"collapse"`` ends every loss event at the floor. The floor is what the packet
simulator's NewReno sender reaches behind the asymmetric-networks paper's ACK-path
bottleneck: each surviving cumulative ACK releases a burst into the 15-packet forward
buffer, one overflow drops tens of packets of one window and the duplicate ACKs are
themselves dropped in the full ACK queue (92 -> 46 -> 23 packets, a timeout, lost
retransmissions, 2 packets; the paper's §IV.C describes Reno's window there as
oscillating over ``[1, w_renomax]`` through "a succession of window cutback"); with the
forward link the bottleneck (no ACK dropped) an overflow drops one packet and the sender
halves. The fluid engines count loss events, not the holes a window's recovery must
repair one per round trip, so they report which case a loss falls in and the law chooses.
The packet simulator never reports the burst kinds: its sender's recovery is simulated.

*Ours*: a retransmission lost again (:data:`LOSS_RETX`) is treated as another fast
retransmit (halving): Reno has no separate rule for it (Vegas's 1/2 is a Vegas rule). The
2-packet floor of ``ssthresh`` follows RFC 5681. The round in which a loss is reported keeps
the engine's no-growth rule of :meth:`ControlLaw.on_loss`, so slow start after a timeout
resumes at the next round boundary. Increments are per ACK received: with delayed ACKs,
slow start grows ×1.5 per round and congestion avoidance by 1/2 packet per round, as in
ns-2 without ACK counting.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ._common import MIN_WINDOW, check_flows, keeps_float_path, loss_args
from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_BURST,
    LOSS_BURST_TIMEOUT,
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

__all__ = ["Reno"]


class Reno(ControlLaw):
    """TCP Reno: slow start, AIMD, fast retransmit/recovery, timeout.

    It starts from :attr:`initial_window` (2 packets) with an infinite ``ssthresh``.

    Parameters
    ----------
    recovery
        ``"newreno"`` (default), ``"halving"`` or ``"collapse"``: the window after a loss
        event (module docstring, "Loss recovery").

    Notes
    -----
    State: ``phase`` and ``ssthresh`` (packets).
    """

    name: ClassVar[str] = "reno"
    ode_form: ClassVar[OdeForm | None] = None  # set below the class
    #: the accepted values of ``recovery``
    RECOVERIES: ClassVar[tuple[str, ...]] = ("halving", "collapse", "newreno")

    def __init__(self, *, recovery: str = "newreno") -> None:
        if recovery not in self.RECOVERIES:
            raise ValueError(
                f"recovery must be one of {', '.join(self.RECOVERIES)}, got {recovery!r}"
            )
        self.recovery = recovery

    def init_state(self, n: int) -> State:
        """Fresh state: slow start, ``ssthresh = inf``."""
        n = check_flows({}, n)
        return {"phase": np.full(n, SLOW_START), "ssthresh": np.full(n, np.inf)}

    def initial_action(self, state: State) -> RoundAction:
        """Slow start from the first round: one packet per ACK."""
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        return RoundAction(cwnd=w, incr=np.ones(n), cap=np.minimum(2.0 * w, state["ssthresh"]))

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        """Slow start below ``ssthresh``, additive increase above it."""
        cwnd = sample.cwnd
        phase = state["phase"]
        ssthresh = state["ssthresh"]
        ss = (phase == SLOW_START) & (cwnd < ssthresh)
        np.putmask(phase, ~ss, CONGESTION_AVOIDANCE)
        incr = np.where(ss, 1.0, 1.0 / cwnd)
        cap = np.where(ss, np.minimum(2.0 * cwnd, ssthresh), cwnd + 1.0)
        return RoundAction(cwnd=cwnd.copy(), incr=incr, cap=cap)

    def _round_floats(
        self, state: State, cwnd: float, base_rtt: float, rtt_mean: float
    ) -> tuple[float, float, float] | None:
        """:meth:`on_round` for one flow on Python floats: the same IEEE operations, so the
        same (cwnd, incr, cap) and phase; ``None`` (the array path decides) for a window
        or ssthresh that is NaN, or a window of 0, where NumPy's rules and Python's differ."""
        phase = state["phase"]
        ssthresh = float(state["ssthresh"][0])
        if cwnd == 0.0 or math.isnan(cwnd) or math.isnan(ssthresh):
            return None
        if phase[0] == SLOW_START and cwnd < ssthresh:
            return cwnd, 1.0, min(2.0 * cwnd, ssthresh)
        phase[0] = CONGESTION_AVOIDANCE
        return cwnd, 1.0 / cwnd, cwnd + 1.0

    def _one_flow_path(
        self,
    ) -> Callable[[State, float, float, float], tuple[float, float, float] | None] | None:
        """The bound :meth:`_round_floats` when it is exactly what :meth:`on_round` does
        (a class that keeps this class's round decision), else ``None``. The packet
        simulator calls it per one-flow decision."""
        return self._round_floats if keeps_float_path(self, "on_round", "_round_floats") else None

    def on_loss(self, state: State, index: FlowIndex, kind: int, cwnd: FloatArray) -> FloatArray:
        """Halve on duplicate ACKs, one packet and slow start up to half the window on a
        timeout (``recovery="collapse"``: the 2-packet floor in place of the half;
        ``recovery="newreno"``: the floor on :data:`LOSS_BURST` and
        :data:`LOSS_BURST_TIMEOUT`, the half otherwise)."""
        burst = kind in (LOSS_BURST, LOSS_BURST_TIMEOUT)
        kind, idx, w = loss_args(index, kind, cwnd)
        half = np.maximum(w / 2.0, MIN_WINDOW)
        if self.recovery == "collapse" or (self.recovery == "newreno" and burst):
            half = np.full(w.shape, MIN_WINDOW)
        state["ssthresh"][idx] = half
        if kind == LOSS_TIMEOUT:
            state["phase"][idx] = SLOW_START
            return np.ones(w.shape)
        state["phase"][idx] = CONGESTION_AVOIDANCE
        return half

    def params(self) -> dict[str, Any]:
        """Reno's one option: ``{"recovery": ...}``."""
        return {"recovery": self.recovery}


def _reno_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """Reno's congestion avoidance as a rate: one packet per RTT (Misra-Gong-Towsley)."""
    return 1.0 / rtt


Reno.ode_form = OdeForm(_reno_rate, 0.5, "dw/dt = 1/RTT; a loss halves the window (MGT)")
