"""Equilibria of the fluid model that are not closed forms: Low's utility maximiser of
Vegas (:func:`low_utility_equilibrium`) and the ODE model's Reno fixed point
(:func:`reno_equilibrium`); their derivations are in docs/analytic.md ("Equilibria that
are not closed forms")."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq

from .._json import FieldsDict
from .._validation import as_float_array, check_positive
from .ode import RedQueue

__all__ = ["LowEquilibrium", "RenoEquilibrium", "low_utility_equilibrium", "reno_equilibrium"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class LowEquilibrium(FieldsDict):
    """Maximiser of Low's Vegas utility ``Σ α_j log r_j + x_j r_j`` under ``Σ r_j ≤ C``.

    Attributes
    ----------
    rates_pps
        Equilibrium rates r_j, packets/s.
    queueing_delay_s
        The price δ (the common queueing delay), s, recovered from the KKT condition
        ``δ = x_j + α_j / r_j`` (averaged over the flows).
    kkt_residual_s
        Largest deviation of ``x_j + α_j / r_j`` from δ across the flows, s: how far the
        optimiser's answer is from exact optimality.
    windows_pkts
        ``r_j (d_j + δ)`` when propagation delays were given, else ``None``.
    utility
        Objective value at the optimum.
    """

    rates_pps: FloatArray
    queueing_delay_s: float
    kkt_residual_s: float
    windows_pkts: FloatArray | None
    utility: float


def _newton_max_utility(alpha: FloatArray, x: FloatArray, C: float) -> FloatArray:
    """Maximise Σ α_j log r_j + x_j r_j subject to Σ r_j = C (Newton, feasible start)."""

    def f(r: FloatArray) -> float:
        return float(np.sum(alpha * np.log(r) + x * r))

    r = C * alpha / np.sum(alpha)  # feasible, strictly positive
    polish = 0
    scale = float(np.sum(alpha))
    amin = float(np.min(alpha))
    for _ in range(500):
        g = alpha / r + x  # gradient
        h = -alpha / (r * r)  # diagonal Hessian (negative definite)
        nu = np.sum(g / h) / np.sum(1.0 / h)  # multiplier making Σ step = 0
        step = (nu - g) / h
        decrement = float(-np.sum(step * step * h))  # Newton decrement squared
        if decrement <= 1e-20 * scale or float(np.max(np.abs(step) / r)) <= 1e-12:
            break  # converged to the rounding floor (relative rate changes ~1e-12)
        # α_j log r_j is self-concordant after scaling by 1/α_j: once the decrement is below
        # ~min α / 100 every |step_j|/r_j < 0.1, full steps converge quadratically and a
        # few reach the rounding floor (~1e-10 relative when x_j r_j dwarfs α_j)
        quadratic = decrement <= 1e-2 * amin
        if quadratic:
            polish += 1
            if polish > 12:
                break
        t = 1.0
        neg = step < 0
        if neg.any():  # stay inside r > 0
            t = min(1.0, 0.99 * float(np.min(-r[neg] / step[neg])))
        if not quadratic:  # damped phase: backtracking line search
            f0 = f(r)
            while f(r + t * step) < f0 + 0.25 * t * decrement and t > 1e-16:
                t *= 0.5
        r = r + t * step
        r = r * (C / np.sum(r))  # remove rounding drift off the constraint
    else:  # pragma: no cover - Newton converges quadratically on this problem
        raise RuntimeError("low_utility_equilibrium: Newton's method did not converge")
    return np.asarray(r, dtype=np.float64)


def low_utility_equilibrium(
    alpha_pkts: Any, overestimate_s: Any, capacity_pps: float, *, prop_delay_s: Any = None
) -> LowEquilibrium:
    """Vegas equilibrium as the solution of Low's utility maximisation.

    Parameters
    ----------
    alpha_pkts
        Backlog α_j each flow keeps queued, packets (shape ``(n,)``; > 0).
    overestimate_s
        Over-estimation x_j of each flow's propagation delay in its BaseRTT, s (≥ 0;
        broadcast against ``alpha_pkts``).
    capacity_pps
        Bottleneck rate C, packets/s.
    prop_delay_s
        Propagation RTTs d_j, s (only used to report windows).

    Returns
    -------
    LowEquilibrium
        Found by Newton's method on the primal problem (docs/analytic.md).
    """
    alpha = np.atleast_1d(as_float_array("alpha_pkts", alpha_pkts, positive=True))
    x = np.atleast_1d(as_float_array("overestimate_s", overestimate_s, nonnegative=True))
    try:
        alpha, x = np.broadcast_arrays(alpha, x)
    except ValueError as exc:
        raise ValueError(
            f"overestimate_s (shape {x.shape}) must broadcast against alpha_pkts "
            f"(shape {alpha.shape})"
        ) from exc
    alpha, x = (np.array(a, dtype=np.float64) for a in (alpha, x))
    if alpha.ndim != 1:
        raise ValueError(f"alpha_pkts must be one-dimensional, got shape {alpha.shape}")
    C = check_positive("capacity_pps", capacity_pps)
    d = None
    if prop_delay_s is not None:
        d = np.atleast_1d(as_float_array("prop_delay_s", prop_delay_s, positive=True))
        d = np.array(np.broadcast_to(d, alpha.shape), dtype=np.float64)
    r = _newton_max_utility(alpha, x, C)
    prices = x + alpha / r
    delta = float(np.mean(prices))
    return LowEquilibrium(
        rates_pps=r,
        queueing_delay_s=delta,
        kkt_residual_s=float(np.max(np.abs(prices - delta))),
        windows_pkts=None if d is None else r * (d + delta),
        utility=float(np.sum(alpha * np.log(r) + x * r)),
    )


@dataclass(frozen=True)
class RenoEquilibrium(FieldsDict):
    """Fixed point of the ODE model's Reno flows (MGT without feedback delay).

    Attributes
    ----------
    rates_pps
        Sending rates ``W / RTT_j``, packets/s.
    window_pkts
        The common window ``sqrt(2/p)``, packets.
    queue_pkts
        Equilibrium queue q, packets.
    loss_probability
        Drop probability p at that queue.
    rtt_s
        ``d_j + q/C``, s.
    """

    rates_pps: FloatArray
    window_pkts: float
    queue_pkts: float
    loss_probability: float
    rtt_s: FloatArray


def reno_equilibrium(
    prop_delay_s: Any,
    capacity_pps: float,
    *,
    buffer_pkts: float = math.inf,
    red: RedQueue | None = None,
    droptail_width_pkts: float = 1.0,
) -> RenoEquilibrium:
    """Equilibrium of Reno flows in the ODE model over drop-tail or RED.

    Every flow at ``w = sqrt(2/p)``, the queue where ``(1 − p) Σ w / RTT_j = C``
    (docs/analytic.md).

    Parameters
    ----------
    prop_delay_s
        Propagation RTTs d_j, s (shape ``(n,)``).
    capacity_pps
        Bottleneck rate C, packets/s.
    buffer_pkts, red, droptail_width_pkts
        As in :func:`tcpfluid.fluid.ode.simulate_ode`; a finite buffer or RED is needed
        (without any loss Reno has no equilibrium).
    """
    d = np.atleast_1d(as_float_array("prop_delay_s", prop_delay_s, positive=True))
    C = check_positive("capacity_pps", capacity_pps)
    B = check_positive("buffer_pkts", buffer_pkts, allow_inf=True)
    eps = check_positive("droptail_width_pkts", droptail_width_pkts)
    if red is not None and not isinstance(red, RedQueue):
        raise TypeError(f"red must be a RedQueue or None, got {red!r}")
    if red is None and math.isinf(B):
        raise ValueError(
            "reno_equilibrium needs a loss mechanism: give a finite buffer_pkts or red"
        )

    def prob(q: float) -> float:
        p = 0.0
        if math.isfinite(B):
            p = min(max((q - (B - eps)) / eps, 0.0), 1.0)
        if red is not None:
            p = 1.0 - (1.0 - p) * (1.0 - float(red.probability(q)))
        return p

    def excess(q: float) -> float:
        p = prob(q)
        if p <= 0.0:
            return math.inf
        w = math.sqrt(2.0 / p)
        return float((1.0 - p) * np.sum(w / (d + q / C)) - C)

    # the excess falls from +inf (no loss) to -C (p = 1); find where p first becomes > 0
    hi = B if math.isfinite(B) else 2.0 * red.max_th_pkts  # type: ignore[union-attr]
    lo = max(min(B - eps, math.inf if red is None else red.min_th_pkts), 0.0)
    q_lo = lo + 1e-12 * max(1.0, lo)
    if excess(hi) > 0:
        raise ValueError("reno_equilibrium: no queue in [0, buffer] balances the link")
    # classic RED jumps to p = 1 at max_th: a root there is the Filippov equilibrium
    q = brentq(excess, q_lo, hi, xtol=1e-12, rtol=1e-13, maxiter=500)
    p = prob(q)
    w = math.sqrt(2.0 / p)
    rtt = d + q / C
    return RenoEquilibrium(
        rates_pps=w / rtt, window_pkts=w, queue_pkts=q, loss_probability=p, rtt_s=rtt
    )
