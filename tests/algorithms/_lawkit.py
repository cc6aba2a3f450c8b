"""Test helpers for the control laws: hand-made samples and a ten-line round driver.

The driver implements the documented contract of :class:`RoundAction` (base.py): the
window of the next round is ``min(cwnd + incr * acks, cap)``, with one ACK per packet of
the round. It is the definition the tests check the laws against, not a model of a path.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tcpfluid.algorithms import ControlLaw, RoundAction, RoundSample


def arr(x: float | list[float] | np.ndarray, n: int | None = None) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if n is not None and a.ndim == 0:
        a = np.full(n, float(a))
    return np.atleast_1d(a).astype(np.float64)


def sample(
    cwnd,
    base_rtt=0.1,
    rtt_mean=None,
    rtt_min=None,
    rtt_max=None,
    acks=None,
    fwd_delay_mean=None,
    fwd_delay_base=None,
) -> RoundSample:
    """A RoundSample from scalars or lists (broadcast to the length of ``cwnd``)."""
    c = arr(cwnd)
    n = c.shape[0]
    b = arr(base_rtt, n)
    m = b.copy() if rtt_mean is None else arr(rtt_mean, n)
    lo = m.copy() if rtt_min is None else arr(rtt_min, n)
    hi = m.copy() if rtt_max is None else arr(rtt_max, n)
    a = c.copy() if acks is None else arr(acks, n)
    fm = None if fwd_delay_mean is None else arr(fwd_delay_mean, n)
    fb = None if fwd_delay_base is None else arr(fwd_delay_base, n)
    return RoundSample(
        cwnd=c,
        base_rtt=b,
        rtt_mean=m,
        rtt_min=lo,
        rtt_max=hi,
        acks=a,
        fwd_delay_mean=fm,
        fwd_delay_base=fb,
    )


def rtt_for_delta(cwnd: float, delta: float, base_rtt: float = 0.1) -> float:
    """The mean RTT at which eq (1) of the Quick Vegas paper gives backlog ``delta``:
    Δ = W (1 − d/D)  ⇔  D = d / (1 − Δ/W)."""
    return base_rtt / (1.0 - delta / cwnd)


def apply(action: RoundAction, acks: np.ndarray) -> np.ndarray:
    """Window at the end of a round under ``action`` (the contract of base.py)."""
    return np.minimum(action.cwnd + action.incr * acks, action.cap)


def drive(
    law: ControlLaw,
    rounds: int,
    make_sample: Callable[[int, np.ndarray], RoundSample],
    n: int = 1,
) -> tuple[list[np.ndarray], list[RoundAction]]:
    """Start with ``initial_action`` and step ``rounds`` rounds.

    Returns the window at the start of each round (W_0, W_1, ...) and the actions.
    ``make_sample(k, w_end)`` builds the sample of round k from the end-of-round window.
    """
    state = law.init_state(n)
    action = law.initial_action(state)
    starts: list[np.ndarray] = []
    actions: list[RoundAction] = [action]
    for k in range(rounds):
        w_start = action.cwnd.copy()
        starts.append(w_start)
        w_end = apply(action, w_start)
        action = law.on_round(state, make_sample(k, w_end))
        actions.append(action)
    return starts, actions
