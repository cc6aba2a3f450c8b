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

Loss recovery (``recovery``, *ours*): ``"newreno"`` (default) ends a loss event at the
2-packet floor when the engine reports it as :data:`LOSS_BURST` or
:data:`LOSS_BURST_TIMEOUT` (the flow's ACKs were being dropped on an ACK-path bottleneck,
where the packet simulator's NewReno sender falls to that floor) and follows the rules
above otherwise; ``"halving"`` is the rules above for every kind; ``"collapse"`` ends every
loss event at the floor. *Ours*: a retransmission lost again (:data:`LOSS_RETX`) is another
fast retransmit; the floor of ``ssthresh`` is RFC 5681's. The mechanism, the measured runs
and the round the growth resumes in after a timeout: docs/algorithms.md, "reno".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import MIN_WINDOW, check_flows, check_index, fmax, fmin
from ._jit import Kernel
from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_BURST,
    LOSS_BURST_TIMEOUT,
    LOSS_TIMEOUT,
    SLOW_START,
    CompiledLaw,
    FloatArray,
    OdeForm,
    Parameter,
    RoundAction,
    RoundSample,
    SenderTraits,
    State,
)
from .vegas import INITIAL_WINDOW

__all__ = ["Reno"]


class Reno(CompiledLaw):
    """TCP Reno: slow start, AIMD, fast retransmit/recovery, timeout.

    It starts from :attr:`initial_window` (2 packets) with an infinite ``ssthresh``.

    Parameters
    ----------
    recovery
        ``"newreno"`` (default), ``"halving"`` or ``"collapse"``: the window after a loss
        event (module docstring, "Loss recovery").
    initial_window : float, default 2
        Window of the first round, packets; ``>= 1``. ns-2's TCP agents start at 1
        (``windowInit_``), as did the Reno flows of Tsang's thesis.

    Notes
    -----
    State: ``phase`` and ``ssthresh`` (packets).
    """

    name: ClassVar[str] = "reno"
    ode_form: ClassVar[OdeForm | None] = None  # set below the class
    #: the accepted values of ``recovery``
    RECOVERIES: ClassVar[tuple[str, ...]] = ("halving", "collapse", "newreno")
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "recovery",
            "newreno",
            'the window after a loss event (module docstring, "Loss recovery")',
            choices=RECOVERIES,
        ),
        INITIAL_WINDOW,
    )
    #: a Reno sender retransmits on three duplicate ACKs or a timeout only
    sender: ClassVar[SenderTraits] = SenderTraits(fine_retransmit=False)

    def _configure(self, values: Mapping[str, Any]) -> None:
        self.recovery = values["recovery"]
        self.initial_window = values["initial_window"]

    def init_state(self, n: int) -> State:
        """Fresh state: slow start, ``ssthresh = inf``."""
        n = check_flows({}, n)
        return {"phase": np.full(n, SLOW_START), "ssthresh": np.full(n, np.inf)}

    def initial_action(self, state: State) -> RoundAction:
        """Slow start from the first round: one packet per ACK."""
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        return RoundAction(cwnd=w, incr=np.ones(n), cap=np.minimum(2.0 * w, state["ssthresh"]))

    def _round_rule(self, state: State, sample: RoundSample) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`_reno_rule` on the law's state and the sample's window."""
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        return _RENO, cwnd.shape[0], (state["phase"], state["ssthresh"], cwnd)

    def _loss_rule(
        self, state: State, kind: int
    ) -> tuple[Any, tuple[FloatArray, ...], tuple[Any, ...]]:
        """:func:`_reno_loss` on the law's state, with the floor of ``recovery`` for a loss
        of ``kind``."""
        burst = kind in (LOSS_BURST, LOSS_BURST_TIMEOUT)
        floor = self.recovery == "collapse" or (self.recovery == "newreno" and burst)
        return _RENO_LOSS, (state["phase"], state["ssthresh"]), (floor,)


def _reno_rule(phase: Any, ssthresh: Any, cwnd: Any, new: Any, incr: Any, cap: Any) -> None:
    """Reno's round for each flow ``i``: slow start (one packet per ACK, at most doubling,
    not past ``ssthresh``) while ``cwnd[i] < ssthresh[i]``, else congestion avoidance
    (``1/cwnd`` per ACK, at most one packet per round). Writes the action into ``new``,
    ``incr``, ``cap`` and the phase in place. Compiled once (:mod:`tcpfluid.algorithms._jit`).
    """
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        th = ssthresh[i]
        new[i] = w
        if phase[i] == SLOW_START and w < th:
            incr[i] = 1.0
            cap[i] = fmin(2.0 * w, th)
        else:
            phase[i] = CONGESTION_AVOIDANCE
            incr[i] = 1.0 / w
            cap[i] = w + 1.0


_RENO = Kernel(_reno_rule, "wwrwww", uses=(fmin,))


def _reno_loss(
    phase: Any, ssthresh: Any, index: Any, kind: int, floor: bool, cwnd: Any, new: Any
) -> None:
    """Reno's loss reactions for flows ``index[j]`` whose windows are ``cwnd[j]``:
    ``ssthresh`` half the window (at least 2 packets; the 2-packet floor itself when
    ``floor``), then a timeout one packet and slow start, any other loss ``ssthresh`` and
    congestion avoidance. ``kind`` is a checked base kind. Writes the new windows into
    ``new``. Compiled once (:mod:`tcpfluid.algorithms._jit`)."""
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        h = MIN_WINDOW if floor else fmax(cwnd[j] / 2.0, MIN_WINDOW)
        ssthresh[i] = h
        if kind == LOSS_TIMEOUT:
            phase[i] = SLOW_START
            new[j] = 1.0
        else:
            phase[i] = CONGESTION_AVOIDANCE
            new[j] = h


_RENO_LOSS = Kernel(_reno_loss, "wwIibrw", uses=(check_index, fmax))


def _reno_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """Reno's congestion avoidance as a rate: one packet per RTT (Misra-Gong-Towsley)."""
    return 1.0 / rtt


Reno.ode_form = OdeForm(_reno_rate, 0.5, "dw/dt = 1/RTT; a loss halves the window (MGT)")
