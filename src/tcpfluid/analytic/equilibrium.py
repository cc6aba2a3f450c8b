"""Equilibria and fairness in closed form: Jain's index, Vegas's equilibrium window and
band, asymmetric paths, the Boutremans–Le Boudec steady state and its train variant (each
function cites its source; docs/analytic.md, "What each function answers").
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._json import FieldsDict
from .._validation import as_float_array, check_positive, check_range
from ._domain import check_alpha_beta
from .slow_start import _finite_result

__all__ = [
    "BLBEquilibrium",
    "TrainEquilibrium",
    "blb_equilibrium",
    "blb_train_equilibrium",
    "jain_index",
    "reno_max_window_asymmetric",
    "reverse_path_throughput",
    "vegas_equilibrium_window",
    "vegas_window_band",
]


def jain_index(x: ArrayLike, *, axis: int = -1) -> NDArray[np.float64] | float:
    """Jain's fairness index ``(Σx)² / (n Σx²)`` (the Quick Vegas paper, eq. 13).

    Of the throughputs ``x`` (>= 0, not all zero) along ``axis``: in ``[1/n, 1]``."""
    return _jain(as_float_array("x", x, nonnegative=True), x, axis, "x")


def _jain(
    a: NDArray[np.float64], x: ArrayLike, axis: int, name: str
) -> NDArray[np.float64] | float:
    """Jain's index of ``a`` (the checked array of ``x``, the caller's parameter ``name``)."""
    if isinstance(axis, bool) or not isinstance(axis, int | np.integer):
        raise TypeError(f"axis must be an int, got {axis!r}")
    if a.ndim and not -a.ndim <= axis < a.ndim:
        raise ValueError(
            f"axis must be in [{-a.ndim}, {a.ndim - 1}] for {name} of {a.ndim} dimension(s), "
            f"got {axis}"
        )
    if a.ndim == 0 or a.shape[axis] == 0:
        raise ValueError(f"{name} must hold at least one throughput along axis {axis}, got {x!r}")
    # scaled by the largest throughput along the axis (the index is scale-free): Σx² of
    # 1e308s overflowed to inf (index NaN) and of 1e-200s underflowed to 0
    top = a.max(axis=axis, keepdims=True)
    if np.any(top == 0):
        raise ValueError(
            f"{name} must not be all zeros: Jain's index is undefined without throughput"
        )
    u = a / top
    s = u.sum(axis=axis)
    s2 = (u * u).sum(axis=axis)
    out = s * s / (a.shape[axis] * s2)
    return float(out) if np.ndim(out) == 0 else np.asarray(out)


def vegas_equilibrium_window(bdp: ArrayLike, backlog: ArrayLike) -> NDArray[np.float64]:
    """Vegas's window when it keeps ``backlog`` packets queued: ``w + N``.

    The asymmetric-networks paper, eq. 4; N >= 0; ``bdp`` w = μ·BaseRTT > 0 packets (μr·BaseRTT on a
    reverse-bottleneck path)."""
    w = as_float_array("bdp", bdp, positive=True)
    n = as_float_array("backlog", backlog, nonnegative=True)
    return _finite_result("vegas_equilibrium_window", lambda: w + n, bdp=bdp, backlog=backlog)


def vegas_window_band(
    bdp: ArrayLike, *, alpha: float = 2.0, beta: float = 4.0
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The band ``[w + α, w + β]`` in which Vegas's window settles.

    The asymmetric-networks paper, §IV.B; returns ``(low, high)``.
    """
    a, b = check_alpha_beta(alpha, beta)
    return vegas_equilibrium_window(bdp, a), vegas_equilibrium_window(bdp, b)


def reverse_path_throughput(mu_forward: ArrayLike, mu_reverse: ArrayLike) -> NDArray[np.float64]:
    """Vegas's throughput on a path with an ACK-path bottleneck: ``min(μf, μr)`` pkt/s.

    The asymmetric-networks paper, §IV.C (Fig. 4).
    """
    f = as_float_array("mu_forward", mu_forward, positive=True)
    r = as_float_array("mu_reverse", mu_reverse, positive=True)
    return np.asarray(np.minimum(f, r), dtype=np.float64)


def reno_max_window_asymmetric(
    mu_forward: ArrayLike,
    rtt_s: ArrayLike,
    k: ArrayLike,
    reverse_buffer_pkts: ArrayLike,
    forward_buffer_pkts: ArrayLike,
) -> NDArray[np.float64]:
    """Upper end of Reno's window range on an asymmetric path, packets.

    ``μf·RTT + k·B_r + B_f`` (the asymmetric-networks paper, §IV.C): μf packets/s, RTT s, k = μf/μr
    (all > 0), B_r ACKs and B_f packets (>= 0)."""
    mu = as_float_array("mu_forward", mu_forward, positive=True)
    rtt = as_float_array("rtt_s", rtt_s, positive=True)
    kk = as_float_array("k", k, positive=True)
    br = as_float_array("reverse_buffer_pkts", reverse_buffer_pkts, nonnegative=True)
    bf = as_float_array("forward_buffer_pkts", forward_buffer_pkts, nonnegative=True)
    given = {"mu_forward": mu_forward, "rtt_s": rtt_s, "k": k}
    given |= {
        "reverse_buffer_pkts": reverse_buffer_pkts,
        "forward_buffer_pkts": forward_buffer_pkts,
    }
    return _finite_result("reno_max_window_asymmetric", lambda: mu * rtt + kk * br + bf, **given)


@dataclass(frozen=True)
class BLBEquilibrium(FieldsDict):
    """Boutremans–Le Boudec steady state of N Vegas flows on one FIFO bottleneck.

    Fields: the common queueing delay δ (s), each flow's rate ``α_j/(δ − x_j)`` (packets/s) and
    window ``α_j (d_j + δ)/(δ − x_j)`` (NaN without d_j), the backlog ``c·δ`` (packets), Jain's
    index."""

    queueing_delay_s: float
    rates_pps: NDArray[np.float64]
    windows_pkts: NDArray[np.float64]
    queue_pkts: float
    jain_index: float


def blb_equilibrium(
    alpha: ArrayLike,
    overestimate_s: ArrayLike,
    capacity_pps: float,
    *,
    prop_delay_s: ArrayLike | None = None,
) -> BLBEquilibrium:
    """Solve the Boutremans–Le Boudec steady state for the common queueing delay.

    Tsang's thesis, chapter 2 §5: δ solves ``Σ_j α_j/(δ − x_j) = c``.

    Parameters
    ----------
    alpha
        α_j, the backlog each flow keeps (packets, > 0), one per flow.
    overestimate_s
        x_j, each flow's BaseRTT over-estimate of its propagation delay, s (>= 0).
    capacity_pps
        c, the bottleneck rate, packets/s.
    prop_delay_s
        d_j, the propagation delays (s, > 0), only for the windows.
    """
    a, x, c = _blb_inputs(alpha, overestimate_s, capacity_pps)
    lo = float(x.max())
    with np.errstate(over="ignore"):  # a sum past the floats is refused below
        total = float(a.sum())

    def excess(delta: float) -> float:
        with np.errstate(over="ignore", divide="ignore"):  # +inf just above max x: a sign
            return float(np.sum(a / (delta - x))) - c

    # at δ = max x + 2Σα/c every term is at most α_j c/(2Σα), so f <= -c/2 < 0 there
    # (not at max x + Σα/c: with equal x_j that is the root itself); just above max x, f > 0
    span = total / c
    hi = lo + 2.0 * span
    lo_b = lo + span * 1e-12
    # a subnormal span has too few significant bits for the root to converge
    if not (math.isfinite(hi) and lo_b > lo and span >= sys.float_info.min):
        raise ValueError(
            f"sum(alpha)/capacity_pps = {total!r}/{c!r} s is outside the range of floats "
            "(the queueing delay it sets cannot be represented); give alpha and capacity_pps "
            "whose ratio is between about 2.2e-308 and 9e307 s"
        )
    for _ in range(64):  # f > 0 just above max x; 64 tenths reach below any spacing of floats
        if excess(lo_b) > 0.0:
            break
        lo_b = lo + (lo_b - lo) / 10.0
    else:  # pragma: no cover - the bracket is sound for finite Σα/c above
        raise ValueError(f"blb_equilibrium: no root above max(overestimate_s) = {lo!r}")
    from scipy.optimize import brentq  # imported here: `import tcpfluid` stays SciPy-free

    # the tolerance follows the scale of the root (an absolute 1e-27 s swallowed a Σα/c of
    # 1e-300 s: the rates came out half the link)
    tol = max(1e-15 * span, 5e-324)
    delta, found = brentq(
        excess, lo_b, hi, xtol=tol, rtol=1e-14, maxiter=500, full_output=True, disp=False
    )
    if not found.converged:
        raise ValueError(
            f"blb_equilibrium: no queueing delay found for sum(alpha)/capacity_pps = "
            f"{total!r}/{c!r} s above max(overestimate_s) = {lo!r} s: alpha, overestimate_s "
            "and capacity_pps are too far apart in scale for floats; rescale them"
        )
    rates = a / (delta - x)
    filled = float(np.sum(rates))
    if not (math.isfinite(filled) and abs(filled - c) <= 1e-6 * c):
        raise ValueError(
            f"blb_equilibrium: the rates found fill {filled!r} of capacity_pps={c!r}: alpha, "
            "overestimate_s and capacity_pps are too far apart in scale for floats; rescale "
            "them (e.g. time in other units)"
        )
    if prop_delay_s is None:
        windows = np.full(a.shape, np.nan)
    else:
        d = np.broadcast_to(
            np.atleast_1d(as_float_array("prop_delay_s", prop_delay_s, positive=True)), a.shape
        )
        windows = a * (d + delta) / (delta - x)
    return BLBEquilibrium(
        queueing_delay_s=float(delta),
        rates_pps=np.asarray(rates, dtype=np.float64),
        windows_pkts=np.asarray(windows, dtype=np.float64),
        queue_pkts=float(c * delta),
        jain_index=float(jain_index(rates)),
    )


@dataclass(frozen=True)
class TrainEquilibrium(FieldsDict):
    """Steady state of Vegas flows on one FIFO when one flow's packets arrive as a train.

    The train occupies a fraction f of that flow's round. Fields: f, the queueing delays while the
    train passes (the delay the train flow measures) and between trains (NaN when no other flow
    fills the gap), s, each flow's mean rate over the round (packets/s) and Jain's index."""

    train_fraction: float
    queueing_delay_train_s: float
    queueing_delay_gap_s: float
    rates_pps: NDArray[np.float64]
    jain_index: float


def _blb_inputs(
    alpha: ArrayLike, overestimate_s: ArrayLike, capacity_pps: float, *, two_flows: bool = False
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """The Boutremans–Le Boudec inputs checked: α_j (> 0, one per flow; at least two with
    ``two_flows``), x_j (>= 0, broadcast to the flows) and c (> 0)."""
    a = np.atleast_1d(as_float_array("alpha", alpha, positive=True))
    if two_flows and (a.ndim != 1 or a.size < 2):
        raise ValueError(f"alpha must list at least two flows' backlogs, got {alpha!r}")
    if a.ndim != 1:
        raise ValueError(f"alpha must be a 1-D list of per-flow values, got shape {a.shape}")
    x = np.broadcast_to(
        np.atleast_1d(as_float_array("overestimate_s", overestimate_s, nonnegative=True)), a.shape
    ).astype(np.float64)
    return a, x, check_positive("capacity_pps", capacity_pps)


def blb_train_equilibrium(
    alpha: ArrayLike,
    overestimate_s: ArrayLike,
    capacity_pps: float,
    *,
    train_fraction: float,
    train_flow: int = -1,
) -> TrainEquilibrium:
    """Boutremans–Le Boudec steady state when one flow's packets reach the bottleneck as a
    train that occupies a fraction f of its round.

    :func:`blb_equilibrium` (at least two flows) when flow ``train_flow`` (default the last)
    reaches the bottleneck as a train over a fraction ``train_fraction`` f in (0, 1] of its
    round: its α_k replaced by α_k/f (docs/analytic.md, "A flow whose packets arrive as a
    train")."""
    a, x, c = _blb_inputs(alpha, overestimate_s, capacity_pps, two_flows=True)
    f = check_range("train_fraction", train_fraction, 0, 1, lo_open=True)
    if isinstance(train_flow, bool) or not isinstance(train_flow, (int, np.integer)):
        raise TypeError(f"train_flow must be an int, got {train_flow!r}")
    if not -a.size <= train_flow < a.size:
        raise ValueError(f"train_flow must index one of the {a.size} flows, got {train_flow!r}")
    k = int(train_flow) % a.size
    a_t = a.copy()
    a_t[k] = a[k] / f
    d_t = blb_equilibrium(a_t, x, c).queueing_delay_s
    others = np.arange(a.size) != k
    d_g = blb_equilibrium(a[others], x[others], c).queueing_delay_s
    rates = np.empty(a.size)
    rates[k] = a[k] / (d_t - x[k])
    rates[others] = f * a[others] / (d_t - x[others]) + (1.0 - f) * a[others] / (d_g - x[others])
    return TrainEquilibrium(
        train_fraction=f,
        queueing_delay_train_s=float(d_t),
        queueing_delay_gap_s=float(d_g),
        rates_pps=np.asarray(rates, dtype=np.float64),
        jain_index=float(jain_index(rates)),
    )
