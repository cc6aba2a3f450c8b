"""TCP Reno, the loss-based baseline (the Quick Vegas paper §1, the iTCP-Vegas paper §2
eqs 1–2, the TCP-Ho paper §1): slow start to ``ssthresh``, AIMD, fast retransmit and
recovery halving to ``ssthresh = max(cwnd / 2, 2)``, a timeout to one packet and slow start.
``recovery`` (*ours*) and the measured runs: docs/algorithms.md, "reno".
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
    HonouredValues,
    LossRule,
    OdeForm,
    Parameter,
    RoundAction,
    RoundRule,
    RoundSample,
    SenderTraits,
    State,
)
from .vegas import INITIAL_WINDOW

__all__ = ["Reno"]


def _reno_rate(sign: Any, delta: Any, w: Any, rtt: Any, alpha: Any, gamma: Any) -> Any:
    """Reno's congestion avoidance as a rate: one packet per RTT (Misra-Gong-Towsley)."""
    return 1.0 / rtt


class Reno(CompiledLaw):
    """TCP Reno: slow start, AIMD, fast retransmit/recovery, timeout.

    ``ssthresh`` starts infinite.

    Notes
    -----
    State: ``phase`` and ``ssthresh`` (packets).
    """

    name: ClassVar[str] = "reno"
    ode_form: ClassVar[OdeForm | None] = OdeForm(
        _reno_rate,
        0.5,
        "dw/dt = 1/RTT; a loss halves the window (MGT)",
        places=(("initial_window", "initial_window_pkts"),),
        honours=(
            HonouredValues(
                "recovery",
                ("halving",),
                "the classical Reno right-hand side halves once per loss",
                without_ack_drops=("newreno",),
            ),
        ),
    )
    #: the accepted values of ``recovery``
    RECOVERIES: ClassVar[tuple[str, ...]] = ("halving", "collapse", "newreno")
    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "recovery",
            "newreno",
            "the window after a loss event: 'newreno' the 2-packet floor for a burst loss "
            "(LOSS_BURST, LOSS_BURST_TIMEOUT), 'halving' never the floor, 'collapse' always",
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

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`_reno_rule` on the law's state and the sample's window."""
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        return _RENO, cwnd.shape[0], (state["phase"], state["ssthresh"], cwnd)

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`_reno_loss` on the law's state, with the floor of ``recovery`` for a loss
        of ``kind``."""
        burst = kind in (LOSS_BURST, LOSS_BURST_TIMEOUT)
        floor = self.recovery == "collapse" or (self.recovery == "newreno" and burst)
        return _RENO_LOSS, (state["phase"], state["ssthresh"]), (floor,)


def _reno_rule(phase: Any, ssthresh: Any, cwnd: Any, new: Any, incr: Any, cap: Any) -> None:
    """Reno's round for each flow ``i``: slow start while ``cwnd[i] < ssthresh[i]`` (at
    most doubling), else ``1/cwnd`` per ACK."""
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
    """Reno's loss reactions: ``ssthresh`` half the window (at least 2 packets; 2 with
    ``floor``), then a timeout one packet and slow start, else ``ssthresh``."""
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
