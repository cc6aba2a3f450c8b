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


def characteristic_polynomial(gain: float, lag_rounds: int) -> NDArray[np.float64]:
    """Coefficients (highest power first) of ``z^L − z^(L−1) + K``: ``gain`` K >= 0 (window
    change per packet of backlog error per round), ``lag_rounds`` L >= 1 (rounds between a
    decision and the first Δ that sees it)."""
    k = check_nonnegative("gain", gain)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
    check_memory("characteristic_polynomial", 8.0 * (lag + 1), f"lag_rounds={lag:,}")
    coeffs = np.zeros(lag + 1)
    coeffs[:2] = 1.0, -1.0
    coeffs[-1] += k
    return coeffs


def companion_matrix(gain: float, lag_rounds: int) -> NDArray[np.float64]:
    """The L × L matrix stepping ``(e_k, ..., e_{k−L+1})`` one round: first row ``[1, 0, ...,
    0, −K]`` (L = 1: ``[1 − K]``), then the shift."""
    k = check_nonnegative("gain", gain)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
    check_memory("companion_matrix", 8.0 * lag * lag, f"lag_rounds={lag:,}")
    m = np.eye(lag, k=-1)  # the shift
    m[0, 0] = 1.0
    m[0, lag - 1] -= k
    return m


def spectral_radius(gain: float, lag_rounds: int) -> float:
    """Largest modulus of the eigenvalues of :func:`companion_matrix` (< 1: converges).

    Without the matrix: the real root in ``[(L−1)/L, 1)`` if any, else Newton's method on
    ``(L−1) w + log(e^w − 1) = log K + iπ(2m + 1)``, ``w = log z``, for the roots near 1."""
    k = check_nonnegative("gain", gain)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
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
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
    return 2.0 * math.sin(math.pi / (2.0 * (2.0 * lag - 1.0)))


@dataclass(frozen=True)
class StabilityVerdict(FieldsDict):
    """What :func:`round_map_stability` predicts for one setting.

    Fields: the setting (``sampling``
    Quick Vegas's only), the lag counted in decisions, the law's largest linear gain near
    its target (0 for a relay), :func:`critical_gain` at that lag, the symmetric mode's
    spectral radius (``None`` for a relay), the differential modes' gain ``K NΔ*/(μd +
    NΔ*)``, whether the map settles, and why in one sentence."""

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

    Derivation: docs/analytic.md, "Stability of the round map".

    Parameters
    ----------
    algorithm
        One of :data:`STABILITY_ALGORITHMS`.
    n_flows
        N >= 1 (moves only the differential modes' gain).
    lag_rounds
        Rounds between a decision and the first Δ that sees it: 1 in the round model, 2 at
        packet level.
    bdp_pkts
        μd, packets (> 0).
    alpha, beta
        Vegas's thresholds, packets (0 <= α <= β).
    gamma
        FAST's γ in (0, 1] (ignored by the other laws).
    sampling
        Quick Vegas only: a :class:`tcpfluid.algorithms.QuickVegas` reading.
    """
    check_choice("algorithm", algorithm, STABILITY_ALGORITHMS)
    n = check_int("n_flows", n_flows, minimum=1)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
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
        dlag, target = lag, 100.0
        reason = (
            f"w moves γ = {gain:g} of the way to its target per round; "
            f"boundary {critical_gain(lag):.3f} at a lag of {lag} round(s)"
        )
    else:  # Quick Vegas: eq. (3)'s gain is succ, the decisions taken before an increase is seen
        # "near-band" measures after an eq.-(3) increase taken with Δ >= α/4, which holds
        # near the equilibrium this analysis linearises around: there it is "after-increase"
        every = {"every-round": lag, "every-other-round": max(1, math.ceil(lag / 2))}
        dlag = every.get(sampling, max(1, lag - 1))
        # eq. (3) near Δ = β: the first increase has succ = 1 and lands on β one round
        # later; each decision taken before it is seen raises succ by one
        gain, target, kc = float(dlag), 0.5 * (a + b), critical_gain(dlag)
        reason = (
            _QV_HOW[sampling]
            + f"eq. (3) adds (β − Δ)·succ with succ = {dlag} by the time its first increase "
            f"is seen ({dlag} decision(s) later): gain {gain:g} against the boundary "
            f"{kc:.3f}; eq. (4)'s gain 1/2 is " + ("inside" if 0.5 < kc else "outside") + " it"
        )
    if algorithm in ("fast", "quick-vegas"):
        # the differential modes' gain: K scaled by N·target / (μd + N·target)
        rho = spectral_radius(gain, dlag)
        diff, ok = gain * n * target / (bdp + n * target), rho < 1.0
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


def plot_stability(ax: Any = None, *, max_lag: int = 3) -> list[Any]:
    """Spectral radius of the round map against the gain, one curve per lag, and the laws.

    Lags up to ``max_lag``, on ``ax`` (a new figure if None); returns the artists."""
    top = check_int("max_lag", max_lag, minimum=1)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.0, 4.0))
    gains = np.linspace(0.0, 2.5, 251)
    artists: list[Any] = []
    for lag in range(1, top + 1):
        rho = [spectral_radius(float(g), lag) for g in gains]
        (line,) = ax.plot(gains, rho, label=f"lag {lag} round{'s' if lag > 1 else ''}")
        artists += [line, ax.axvline(critical_gain(lag), color=line.get_color(), ls=":", lw=0.8)]
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
        artists += ax.plot(
            [g],
            [spectral_radius(g, lag)],
            marker,
            color="black",
            markerfacecolor="none" if hollow else "black",
            markersize=10 if hollow else 6,
            label=label,
        )
    ax.set_xlabel("gain K (packets of window per packet of backlog error, per round)")
    ax.set_ylabel("spectral radius of the round map")
    ax.set_title("Converges below 1, oscillates above")
    ax.legend(fontsize="small")
    return artists


# ---- large swings beyond the linearisation: the undershoot of a decrease law after a step
# and the cycle of flows that have drained the queue
def decrease_undershoot(gain: float, lag_rounds: int, rounds: int = 400) -> float:
    """Deepest undershoot of ``e_{k+1} = e_k − K e_{k+1−L}`` from a step error of 1.

    ``−min_k e_k`` (0 if none), the error held at 1 for L rounds: a decrease law's response to an
    excess built before its first decrease is seen (Quick Vegas eq. (4), K = 1/2: 1/4 at L = 2, 3/4
    at L = 3)."""
    k = check_real("gain", gain)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
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

    Fields: the setting, the eq.-(3) increases taken from the empty queue before the first is seen,
    the backlog they build per flow ``β (1 + ... + unseen)``, eq. (4)'s undershoot below its
    target ``m = (α + β)/2`` (packets per flow), whether it reaches the empty queue again,
    the peak queue ``N × excess`` and why."""

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

    (docs/analytic.md, "Large swings: a cycle through the empty queue"; arguments as
    :func:`round_map_stability`)."""
    n = check_int("n_flows", n_flows, minimum=1)
    lag = check_int("lag_rounds", lag_rounds, minimum=1)
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
