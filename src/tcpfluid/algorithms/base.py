"""The control-law interface shared by the round model and the packet simulator.

A control law makes **decisions once per round**; the engine that drives it does the
per-packet work. One round (the documents' "round", after Padhye et al.) starts with the
transmission of a window and ends when the ACK of its first packet returns.

At the end of each round the engine hands the law a :class:`RoundSample` (what the sender
measured over the round: window, BaseRTT, mean/min/max RTT, ACKs) and the law returns a
:class:`RoundAction` for the next round:

``cwnd``
    the window to set now, at the round boundary (decrements, cuts, caps happen here);
``incr``
    the amount added to the window on each ACK received during the next round
    (Vegas slow start: 1 per ACK every other round; Quick Vegas slow start: 1/2 per ACK, one
    extra packet per two ACKs; Reno congestion avoidance: 1/cwnd per ACK);
``cap``
    a ceiling the per-ACK increments may not pass during the next round (Reno's
    ssthresh, Quick Vegas's "at most double", a target window).

The round model applies a whole round at once: ``next = min(cwnd + incr * acks, cap)``;
the packet simulator sets ``cwnd`` at the boundary and adds ``incr`` per ACK up to ``cap``.
So the law is written once and both engines use it.

Losses are reported between rounds through :meth:`ControlLaw.on_loss` with a kind
(:data:`LOSS_FAST`, :data:`LOSS_RETX`, :data:`LOSS_TIMEOUT`, :data:`LOSS_BURST`,
:data:`LOSS_BURST_TIMEOUT`).

Every method works on arrays of shape ``(n,)``: ``n`` flows or scenarios at once. Laws
keep their state in a ``dict`` of float64 arrays (``init_state``) updated in place; they
use ``numpy.where``/masks, never Python branches on per-flow values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "CONGESTION_AVOIDANCE",
    "LOSS_BURST",
    "LOSS_BURST_TIMEOUT",
    "LOSS_FAST",
    "LOSS_RETX",
    "LOSS_TIMEOUT",
    "SLOW_START",
    "ControlLaw",
    "OdeForm",
    "RoundAction",
    "RoundSample",
    "classical_ode_form",
    "loss_kind",
]

FloatArray = NDArray[np.float64]
State = dict[str, FloatArray]
#: indices of flows in a law's state arrays (``on_loss``)
FlowIndex = NDArray[np.intp]

#: phase codes stored in ``state["phase"]``
SLOW_START = 0.0
CONGESTION_AVOIDANCE = 1.0

#: loss kinds passed to :meth:`ControlLaw.on_loss`
LOSS_FAST = 1  # detected by duplicate ACKs / Vegas's fine-grained check; first transmission
LOSS_RETX = 2  # a retransmitted packet was lost again
LOSS_TIMEOUT = 3  # coarse-grained retransmission timeout
#: a duplicate-ACK loss while the flow's ACKs are being dropped on an ACK-path bottleneck
#: (the fluid engines report it; every law but Reno treats it exactly as LOSS_FAST)
LOSS_BURST = 4
#: a timeout while the flow's ACKs are being dropped (every law but Reno: LOSS_TIMEOUT)
LOSS_BURST_TIMEOUT = 5


def loss_kind(timeout: bool, burst: bool) -> int:
    """The kind a fluid engine reports for a loss event: :data:`LOSS_TIMEOUT` or
    :data:`LOSS_FAST`, their burst variants when the flow's ACKs were being dropped on the
    ACK path (``burst``)."""
    if timeout:
        return LOSS_BURST_TIMEOUT if burst else LOSS_TIMEOUT
    return LOSS_BURST if burst else LOSS_FAST


@dataclass
class RoundSample:
    """What each sender measured over the round that just ended (arrays of shape ``(n,)``).

    Attributes
    ----------
    cwnd
        Congestion window at the end of the round, packets.
    base_rtt
        BaseRTT: the minimum RTT ever measured, s.
    rtt_mean
        Mean RTT of the packets of the round (the "smoothed RTT" of Vegas implementations), s.
    rtt_min, rtt_max
        Minimum and maximum RTT of the round (TCP-Ho's Minimal and Maximal RTT), s.
    acks
        ACKs received during the round.
    fwd_delay_mean, fwd_delay_base
        Forward one-way delay of the round (mean) and its minimum ever, s, from RFC 1323
        timestamps; used by forward-path Vegas (the asymmetric-networks paper, §V).
        ``None`` when the engine does not measure it.
    """

    cwnd: FloatArray
    base_rtt: FloatArray
    rtt_mean: FloatArray
    rtt_min: FloatArray
    rtt_max: FloatArray
    acks: FloatArray
    fwd_delay_mean: FloatArray | None = None
    fwd_delay_base: FloatArray | None = None


@dataclass
class RoundAction:
    """A law's decision for the next round (arrays of shape ``(n,)``)."""

    cwnd: FloatArray
    incr: FloatArray
    cap: FloatArray


@dataclass(frozen=True)
class OdeForm:
    """A law's classical fluid (ODE) form: the window's rate of change between losses.

    Attributes
    ----------
    rate
        ``rate(sign, delta, w, rtt, alpha, gamma) -> dw/dt`` (packets/s), array code:
        ``delta`` Vegas's backlog estimate Δ (eq. 1 of the Quick Vegas paper), ``w`` the window,
        ``rtt`` the RTT, ``alpha``/``gamma`` the law's parameters as the ODE flow carries
        them, ``sign`` the ramped sign of Vegas's rule (+1 below α, −1 above β; the ODE
        engine computes it with its stated ramp width).
    loss_cut
        Fraction of the window removed per loss event (Vegas 1/4, Reno and FAST 1/2).
    description
        The formula, for documentation.
    forward_delay
        Δ from the forward queueing delay only, ``w q_f/(BaseRTT + q_f)`` with
        ``q_f = q/C`` (forward-path Vegas, the asymmetric-networks paper §V), instead of
        eq. (1) on the RTT.
    """

    rate: Callable[..., Any]
    loss_cut: float
    description: str
    forward_delay: bool = False


def classical_ode_form(cls: type[ControlLaw]) -> OdeForm | None:
    """The classical ODE form a law class declares itself (``None`` if it has none).

    Only a form declared on the class itself counts: a subclass that changes the law (Quick
    Vegas, iTCP-Vegas, forward-path Vegas change Vegas's rule) does not inherit Vegas's.
    """
    form = cls.__dict__.get("ode_form")
    return form if isinstance(form, OdeForm) else None


class ControlLaw(ABC):
    """Base class of every congestion-control law.

    Subclasses set :attr:`name` (the registry name), validate their parameters in
    ``__init__`` (each may be a scalar or an array broadcastable to the flows), and
    implement :meth:`init_state`, :meth:`on_round` and :meth:`on_loss`.
    """

    name: ClassVar[str]
    #: window at the start of a connection, packets
    initial_window: float = 2.0
    #: the law's classical ODE form (:func:`classical_ode_form`), if it has one
    ode_form: ClassVar[OdeForm | None] = None
    #: the largest amplitude (packets) of a limit cycle the law's own moves keep at steady
    #: state, accepted as settled by :func:`tcpfluid.metrics.settling` (0: the law stops on
    #: a fixed point; ``inf``: any cycle that neither drifts nor grows)
    cycle_amplitude_pkts: ClassVar[float] = 0.0

    @abstractmethod
    def init_state(self, n: int) -> State:
        """Fresh per-flow state for ``n`` flows (must contain ``"phase"``)."""

    @abstractmethod
    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        """Decide the next round from the round just measured; update ``state`` in place."""

    @abstractmethod
    def on_loss(self, state: State, index: FlowIndex, kind: int, cwnd: FloatArray) -> FloatArray:
        """React to a loss of ``kind`` on flows ``index``; return their new windows.

        ``cwnd`` holds the current windows of those flows. State such as ssthresh and
        phase is updated in place for the flows in ``index``. The loss reaction replaces
        the current round's action for those flows: until the next :meth:`on_round` the
        engine adds nothing per ACK (``incr = 0``, ``cap`` = the returned window).
        """

    def initial_action(self, state: State) -> RoundAction:
        """The action for the very first round, before any measurement exists.

        Engines call it once after :meth:`init_state` and apply it to round 0 exactly like
        an action returned by :meth:`on_round`. The default (window
        :attr:`initial_window`, no growth) suits Vegas and TCP-Ho, whose window stays put
        in the first round (Table 1 of the Quick Vegas paper, Table 4 of the TCP-Ho
        paper); laws that grow in round 0 (Quick Vegas slow start, Reno slow start)
        override it.
        """
        n = state["phase"].shape[0]
        w = np.full(n, float(self.initial_window))
        return RoundAction(cwnd=w, incr=np.zeros(n), cap=w.copy())

    def params(self) -> dict[str, Any]:
        """The law's parameters (for summaries and JSON)."""
        return {}

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({inner})"
