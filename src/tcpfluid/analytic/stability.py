"""Local stability of the round map: will N delay-based flows settle or oscillate?

A law of gain K seen L rounds later: ``e_{k+1} = e_k − K e_{k+1−L}``, stable iff
``K < 2 sin(π / (2(2L − 1)))``. Derivation, each law's gain and the packet checks:
docs/analytic.md, "Stability of the round map".
"""

from __future__ import annotations

import cmath
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._json import FieldsDict
from .._validation import (
    check_choice,
    check_int,
    check_memory,
    check_nonnegative,
    check_positive,
    check_real,
)
from ._domain import check_alpha_beta

__all__ = [
    "STABILITY_ALGORITHMS",
    "EmptyQueueCycle",
    "StabilityVerdict",
    "characteristic_polynomial",
    "companion_matrix",
    "critical_gain",
    "decrease_undershoot",
    "empty_queue_cycle",
    "plot_stability",
    "round_map_stability",
    "spectral_radius",
]

STABILITY_ALGORITHMS = ("vegas", "enhanced-vegas", "quick-vegas", "fast")
_QV_HOW = {
    "every-round": "a decision every round (the printed pseudo-code): ",
    "every-other-round": "a measurement round after every decision: ",
    "after-increase": "a measurement round after every eq.-(3) increase: ",
    "near-band": "a measurement round after an eq.-(3) increase near the band (Δ >= α/4, "
    "which holds near the equilibrium): ",
    "near-band-after-overshoot": "a measurement round after an eq.-(3) increase near the "
    "band or after an overshoot (near the equilibrium: after every increase): ",
}
_QV_SAMPLINGS = tuple(_QV_HOW)


def _check_lag(lag_rounds: Any) -> int:
    return check_int("lag_rounds", lag_rounds, minimum=1)


def characteristic_polynomial(gain: float, lag_rounds: int) -> NDArray[np.float64]:
    """Coefficients (highest power first) of ``z^L − z^(L−1) + K``.

    Parameters
    ----------
    gain
        K, the law's window change per packet of backlog error per round (>= 0).
    lag_rounds
        L >= 1, rounds between a decision and the first Δ that sees it.
    """
    k = check_nonnegative("gain", gain)
    lag = _check_lag(lag_rounds)
    check_memory("characteristic_polynomial", 8.0 * (lag + 1), f"lag_rounds={lag:,}")
    coeffs = np.zeros(lag + 1)
    coeffs[0] = 1.0
    coeffs[1] = -1.0
    coeffs[-1] += k
    return coeffs


def companion_matrix(gain: float, lag_rounds: int) -> NDArray[np.float64]:
    """The L × L matrix stepping ``(e_k, e_{k−1}, ..., e_{k−L+1})`` one round.

    ``e_{k+1} = e_k − K e_{k+1−L}``: first row ``[1, 0, ..., 0, −K]`` (for L = 1 the
    1 × 1 matrix ``[1 − K]``), then the shift.
    """
    k = check_nonnegative("gain", gain)
    lag = _check_lag(lag_rounds)
    check_memory("companion_matrix", 8.0 * lag * lag, f"lag_rounds={lag:,}")
    m = np.zeros((lag, lag))
    m[0, 0] = 1.0
    m[0, lag - 1] -= k
    for r in range(1, lag):
        m[r, r - 1] = 1.0
    return m


def spectral_radius(gain: float, lag_rounds: int) -> float:
    """Largest modulus of the eigenvalues of :func:`companion_matrix` (< 1: converges).

    Every root of ``z^L − z^(L−1) + K`` has ``|z|^(L−1) |z − 1| = K``, so the largest is
    the one nearest z = 1: the real root in ``[(L−1)/L, 1)`` if any, else Newton's method
    on ``(L−1) w + log(e^w − 1) = log K + iπ(2m + 1)``, ``w = log z`` (no L × L matrix).
    """
    k = check_nonnegative("gain", gain)
    lag = _check_lag(lag_rounds)
    if lag == 1:
        return abs(1.0 - k)
    if k == 0.0:
        return 1.0  # z = 1 and z = 0 (L − 1 times)
    # in logarithms, z = e^w: n w + log(e^w − 1) = log K + iπ(2m + 1), with e^w − 1 from
    # expm1 (z lies within ~1/n of 1 for long lags: z − 1 itself would lose the digits)
    n = float(lag - 1)
    best = -math.inf  # the largest Re w found
    log_k = math.log(k)
    for m in range(_NEAR_ONE_ROOTS):
        target = complex(log_k, (2 * m + 1) * math.pi)
        w = complex(0.0, ((2 * m + 1) * math.pi - 0.5 * math.pi) / n)
        for _ in range(200):
            if not abs(w.real) < 700.0:  # Newton left the range of e^w: no root this way
                break
            em1 = _expm1(w)
            slope = n + (em1 + 1.0) / em1 if em1 != 0 else 0.0
            if em1 == 0 or abs(slope) < 1e-12 * n:
                w += complex(1e-3 / n, 1e-3 / n)  # off the pole or the critical point
                continue
            step = (n * w + cmath.log(em1) - target) / slope
            w -= step
            if abs(step) <= 1e-15 * max(abs(w), 1.0 / n):
                break
        em1 = _expm1(w) if abs(w.real) < 700.0 else 0
        if em1 != 0 and abs(n * w + cmath.log(em1) - target) < 1e-9 and w.imag >= 0.0:
            best = max(best, w.real)

    # real roots z = e^(−s) in (0, 1): n(−s) + log(1 − e^(−s)) = log K has two roots or
    # none; the larger z is in s ∈ (0, log(1 + 1/n)], where the left side peaks
    def real_side(t: float) -> float:
        return -n * t + math.log(-math.expm1(-t))

    peak = math.log1p(1.0 / n)
    if real_side(peak) >= log_k:
        lo, hi = 0.0, peak  # real_side(hi) >= log K > real_side(lo → 0) = −inf
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid in (lo, hi):
                break
            if real_side(mid) >= log_k:
                hi = mid
            else:
                lo = mid
        best = max(best, -hi)
    return math.exp(best)


def _expm1(w: complex) -> complex:
    """``e^w − 1`` without cancellation for small ``w``."""
    a, b = w.real, w.imag
    return complex(
        math.expm1(a) * math.cos(b) - 2.0 * math.sin(0.5 * b) ** 2, math.exp(a) * math.sin(b)
    )


#: complex roots near z = 1 examined by :func:`spectral_radius` (the largest is among the
#: first; checked against the eigenvalues of :func:`companion_matrix` in the tests)
_NEAR_ONE_ROOTS = 6


def critical_gain(lag_rounds: int) -> float:
    """The gain at which the round map stops converging: ``2 sin(π / (2(2L − 1)))``.

    Derivation: :func:`tcpfluid.analytic.derive.critical_gain_expr`.
    """
    lag = _check_lag(lag_rounds)
    return 2.0 * math.sin(math.pi / (2.0 * (2.0 * lag - 1.0)))


@dataclass(frozen=True)
class StabilityVerdict(FieldsDict):
    """What :func:`round_map_stability` predicts for one setting.

    Attributes
    ----------
    algorithm, n_flows, lag_rounds, sampling
        The setting (``sampling`` only for Quick Vegas, else None).
    decision_lag
        The lag counted in decisions (Quick Vegas with a measurement round: ``ceil(L/2)``
        for ``"every-other-round"``, 1 for ``"after-increase"``; else L).
    gain
        The largest linear gain of the law near its target (Quick Vegas: eq. 3 with the
        succ its decisions reach, or eq. 4's 1/2; FAST: γ; 0 for a relay law).
    critical_gain
        :func:`critical_gain` at ``decision_lag``.
    spectral_radius
        Of the symmetric mode's companion matrix (``None`` for relay laws).
    differential_gain
        The gain of the modes where flows move against each other, ``K NΔ*/(μd + NΔ*)``.
    converges
        True if the map settles (relay: the dead band holds the lag's steps).
    reason
        One sentence: which branch of the law decides and why.
    """

    algorithm: str
    n_flows: int
    lag_rounds: int
    sampling: str | None
    decision_lag: int
    gain: float
    critical_gain: float
    spectral_radius: float | None
    differential_gain: float
    converges: bool
    reason: str


def round_map_stability(
    algorithm: str,
    *,
    n_flows: int = 1,
    lag_rounds: int = 2,
    bdp_pkts: float = 1250.0,
    alpha: float = 2.0,
    beta: float = 4.0,
    gamma: float = 0.5,
    sampling: str = "every-round",
) -> StabilityVerdict:
    """Predict whether N identical flows of ``algorithm`` settle or oscillate.

    Parameters
    ----------
    algorithm
        One of :data:`STABILITY_ALGORITHMS`.
    n_flows
        N >= 1 (moves only the differential modes' gain; see the module docstring).
    lag_rounds
        Rounds between a window decision and the first Δ that sees it: 1 in the round
        model, 2 at packet level (and in ns-2).
    bdp_pkts
        μd, packets (> 0); with N and the target backlog it sets the differential gain.
    alpha, beta
        Vegas's thresholds, packets (0 <= α <= β; Enhanced Vegas α = β = δ).
    gamma
        FAST's γ in (0, 1] (ignored by the other laws).
    sampling
        Quick Vegas only: ``"every-round"`` (a decision every round, the printed
        pseudo-code read literally), ``"every-other-round"``, ``"after-increase"`` or
        ``"near-band"`` (a measurement round after each decision, each eq.-3 increase, or
        each eq.-3 increase near the band — the same as ``"after-increase"`` near the
        equilibrium; see :class:`tcpfluid.algorithms.QuickVegas`).

    Returns
    -------
    StabilityVerdict
    """
    check_choice("algorithm", algorithm, STABILITY_ALGORITHMS)
    n = check_int("n_flows", n_flows, minimum=1)
    lag = _check_lag(lag_rounds)
    bdp = check_positive("bdp_pkts", bdp_pkts)
    a, b = check_alpha_beta(alpha, beta)
    check_choice("sampling", sampling, _QV_SAMPLINGS)
    if algorithm in ("vegas", "enhanced-vegas"):
        # ±1 packet per round holds if the dead band β − α covers the steps taken before a
        # move is seen
        width = b - a
        dlag, gain, rho, diff, ok = lag, 0.0, None, 0.0, width >= lag
        reason = f"±1 packet per round with a dead band of {width:g} packets: " + (
            f"it holds the {lag} step(s) taken before a move is seen"
            if ok
            else f"narrower than the {lag} step(s) taken before a move is seen, "
            "so the window cycles by about one packet per flow"
        )
    elif algorithm == "fast":  # w moves γ of the way to its target per round (gain γ)
        gain = check_real("gamma", gamma)
        if not 0.0 < gain <= 1.0:
            raise ValueError(f"gamma must be in (0, 1] for fast, got {gamma!r}")
        dlag, rho = lag, spectral_radius(gain, lag)
        diff, ok = _differential_gain(gain, n, bdp, 100.0), rho < 1.0
        reason = (
            f"w moves γ = {gain:g} of the way to its target per round; "
            f"boundary {critical_gain(lag):.3f} at a lag of {lag} round(s)"
        )
    else:  # Quick Vegas: eq. (3)'s gain is succ, the decisions taken before an increase is seen
        # "near-band" measures after an eq.-(3) increase taken with Δ >= α/4, which holds
        # near the equilibrium this analysis linearises around: there it is "after-increase"
        if sampling == "every-round":
            dlag = lag
        elif sampling == "every-other-round":
            dlag = max(1, math.ceil(lag / 2))
        else:
            dlag = max(1, lag - 1)
        # eq. (3) near Δ = β: the first increase has succ = 1 and lands on β one round
        # later; each decision taken before it is seen raises succ by one
        gain = float(dlag)
        kc = critical_gain(dlag)
        rho = spectral_radius(gain, dlag)
        diff, ok = _differential_gain(gain, n, bdp, 0.5 * (a + b)), rho < 1.0
        reason = (
            _QV_HOW[sampling]
            + f"eq. (3) adds (β − Δ)·succ with succ = {dlag} by the time its first increase "
            f"is seen ({dlag} decision(s) later): gain {gain:g} against the boundary "
            f"{kc:.3f}; eq. (4)'s gain 1/2 is " + ("inside" if 0.5 < kc else "outside") + " it"
        )
    return StabilityVerdict(
        algorithm=algorithm,
        n_flows=n,
        lag_rounds=lag,
        sampling=sampling if algorithm == "quick-vegas" else None,
        decision_lag=dlag,
        gain=gain,
        critical_gain=critical_gain(dlag),
        spectral_radius=rho,
        differential_gain=diff,
        converges=ok,
        reason=reason,
    )


def _differential_gain(k: float, n: int, bdp: float, target: float) -> float:
    """The gain of the differential modes: k scaled by N·target / (μd + N·target)."""
    return k * n * target / (bdp + n * target)


def plot_stability(ax: Any = None, *, max_lag: int = 3) -> list[Any]:
    """Spectral radius of the round map against the gain, one curve per lag, and the laws.

    Markers: Quick Vegas's eq. (3) every round (K = 2, L = 2) and near-band (K = 1,
    L = 1), eq. (4)'s gain and FAST's γ.

    Parameters
    ----------
    ax
        A matplotlib Axes (a new figure if None).
    max_lag
        Largest lag drawn (>= 1).

    Returns
    -------
    list
        The artists drawn (lines, markers, the ρ = 1 line, the annotations).
    """
    top = check_int("max_lag", max_lag, minimum=1)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.0, 4.0))
    gains = np.linspace(0.0, 2.5, 251)
    artists: list[Any] = []
    for lag in range(1, top + 1):
        rho = [spectral_radius(float(g), lag) for g in gains]
        (line,) = ax.plot(gains, rho, label=f"lag {lag} round{'s' if lag > 1 else ''}")
        artists.append(line)
        artists.append(ax.axvline(critical_gain(lag), color=line.get_color(), ls=":", lw=0.8))
    artists.append(ax.axhline(1.0, color="black", lw=0.8))
    marks = [
        ("Quick Vegas eq. (3), every round, packets", 2.0, 2),
        ("Quick Vegas eq. (3), near-band (default), packets", 1.0, 1),
        ("Quick Vegas eq. (3), round model", 1.0, 1),
        ("Quick Vegas eq. (4)", 0.5, 2),
        ("FAST γ = 0.5", 0.5, 1),
    ]
    for (label, g, lag), marker in zip(marks, "oDxs^", strict=True):
        hollow = marker == "D"  # drawn open: it shares its point with the round model's
        (pt,) = ax.plot(
            [g],
            [spectral_radius(g, lag)],
            marker,
            color="black",
            markerfacecolor="none" if hollow else "black",
            markersize=10 if hollow else 6,
            label=label,
        )
        artists.append(pt)
    ax.set_xlabel("gain K (packets of window per packet of backlog error, per round)")
    ax.set_ylabel("spectral radius of the round map")
    ax.set_title("Converges below 1, oscillates above")
    ax.legend(fontsize="small")
    return artists


# ---- large swings beyond the linearisation: the undershoot of a decrease law after a step
# and the cycle of flows that have drained the queue
def decrease_undershoot(gain: float, lag_rounds: int, rounds: int = 400) -> float:
    """Deepest undershoot of ``e_{k+1} = e_k − K e_{k+1−L}`` from a step error of 1.

    The response of a decrease law of gain K (Quick Vegas eq. (4): K = 1/2) to an excess
    built before the first decrease is seen: the error starts at 1 for L rounds and the
    return value is ``−min_k e_k`` (0 when it never goes below the target; 1/4 for K = 1/2,
    L = 2; 3/4 for L = 3).
    """
    k = check_real("gain", gain)
    lag = _check_lag(lag_rounds)
    total = check_int("rounds", rounds, minimum=1)
    if total > _MAX_UNDERSHOOT_ROUNDS:
        raise ValueError(
            f"rounds must be an integer in [1, {_MAX_UNDERSHOOT_ROUNDS:,}], got {total:,}"
        )
    if lag > _MAX_UNDERSHOOT_LAG or total * lag > _MAX_UNDERSHOOT_WORK:
        raise ValueError(
            f"decrease_undershoot: rounds × lag_rounds = {total:,} × {lag:,} is more than "
            f"{_MAX_UNDERSHOOT_WORK:.0e} steps (lag_rounds at most {_MAX_UNDERSHOOT_LAG:,}); "
            "give fewer rounds or a shorter lag"
        )
    # the response e_{t+1..t+B} to a state (e_t, ..., e_{t-L+1}) is T @ state: T (B × L) is
    # the recurrence run once on the L unit states, then each block is one product
    block = max(_UNDERSHOOT_BLOCK, lag)
    with np.errstate(over="ignore", invalid="ignore"):
        hist = np.zeros((block + lag, lag))
        hist[:lag] = np.eye(lag)[::-1]
        for i in range(lag, block + lag):
            hist[i] = hist[i - 1] - k * hist[i - lag]
        resp = hist[lag:]
        state = np.ones(lag)
        lowest, done = 1.0, 0
        while done < total:
            step = min(total - done, block)
            e = resp[:step] @ state
            done += step
            if not np.all(np.isfinite(e)):
                raise ValueError(
                    f"decrease_undershoot: the error grows past the largest float within "
                    f"rounds={total:,} (gain={k!r} at lag_rounds={lag} diverges: spectral "
                    "radius >= 1); give fewer rounds or a gain below critical_gain(lag_rounds)"
                )
            lowest = min(lowest, float(e.min()))
            if step < lag:
                break
            new = e[-lag:][::-1].copy()
            if not np.any(new) or np.array_equal(new, state):  # at rest: nothing new follows
                break
            state = new
    return max(0.0, -lowest)


#: bounds of :func:`decrease_undershoot` (its work is rounds × lag_rounds)
_MAX_UNDERSHOOT_ROUNDS = 10**9
_UNDERSHOOT_BLOCK = 4096
_MAX_UNDERSHOOT_LAG = 4_096
_MAX_UNDERSHOOT_WORK = 2 * 10**9


@dataclass(frozen=True)
class EmptyQueueCycle(FieldsDict):
    """What :func:`empty_queue_cycle` predicts for N Quick Vegas flows after a large swing.

    Attributes
    ----------
    sampling, lag_rounds
        The setting.
    unseen_increases
        Eq.-(3) decisions every flow takes from the empty queue before the first is seen.
    excess_per_flow
        The backlog they build, packets per flow: ``β (1 + 2 + ... + unseen)``.
    undershoot_per_flow
        How far eq. (4) (gain 1/2 at the lag) then drives the backlog below its target,
        packets per flow (:func:`decrease_undershoot` × (excess − m)).
    target_per_flow
        Eq. (4)'s target ``m = (α + β)/2``, packets per flow.
    sustains
        True if the undershoot reaches the empty queue again (``undershoot >= m``): the
        swing repeats whatever N.
    peak_queue_pkts
        ``N × excess_per_flow``, the queue at the top of the cycle (built from empty).
    reason
        One sentence.
    """

    sampling: str
    lag_rounds: int
    unseen_increases: int
    excess_per_flow: float
    undershoot_per_flow: float
    target_per_flow: float
    sustains: bool
    peak_queue_pkts: float
    reason: str


def empty_queue_cycle(
    *,
    n_flows: int = 1,
    lag_rounds: int = 2,
    alpha: float = 2.0,
    beta: float = 4.0,
    sampling: str = "near-band",
) -> EmptyQueueCycle:
    """Will N Quick Vegas flows that have drained the queue to zero swing back and forth?

    Each flow builds ``β (1 + ... + u)`` packets over ``u`` unseen eq.-(3) increases; the
    cycle sustains when eq. (4)'s undershoot reaches ``m = (α + β)/2``. Derivation,
    assumptions and packet checks: docs/analytic.md, "Large swings: a cycle through the
    empty queue".

    Parameters
    ----------
    n_flows
        N >= 1 (scales the peak only).
    lag_rounds
        L >= 1: rounds between a decision and the Δ that first sees it (2 at packet level).
    alpha, beta
        Quick Vegas's thresholds, packets (0 <= α <= β).
    sampling
        A :class:`tcpfluid.algorithms.QuickVegas` reading.

    Returns
    -------
    EmptyQueueCycle
    """
    n = check_int("n_flows", n_flows, minimum=1)
    lag = _check_lag(lag_rounds)
    a, b = check_alpha_beta(alpha, beta)
    check_choice("sampling", sampling, _QV_SAMPLINGS)
    literal = sampling in ("every-round", "near-band")
    unseen = lag + 1 if literal else 1
    excess = b * unseen * (unseen + 1) / 2.0
    m = 0.5 * (a + b)
    under = decrease_undershoot(0.5, lag) * max(0.0, excess - m)
    sustains = under >= m
    how = (
        "decisions every round at Δ = 0 (far from the band)"
        if literal
        else "a measurement round after each increase"
    )
    return EmptyQueueCycle(
        sampling=sampling,
        lag_rounds=lag,
        unseen_increases=unseen,
        excess_per_flow=excess,
        undershoot_per_flow=under,
        target_per_flow=m,
        sustains=sustains,
        peak_queue_pkts=n * excess,
        reason=(
            f"{how}: {unseen} increase(s) before the first is seen build {excess:g} packets "
            f"per flow; eq. (4) undershoots by {under:g} "
            + (">=" if sustains else "<")
            + f" m = {m:g}: the queue "
            + ("empties again and the swing repeats" if sustains else "stays above zero")
        ),
    )
