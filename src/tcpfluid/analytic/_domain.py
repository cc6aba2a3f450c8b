"""The domain of the closed forms (one flow, no loss, an ACK path that never limits the
sender), checked at the door (docs/analytic.md, "Model assumptions")."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_real
from ..algorithms._common import MIN_WINDOW
from ..path import Path

__all__ = [
    "check_alpha_beta",
    "check_below_path",
    "check_in_band",
    "check_modelled_path",
    "equilibrium_band",
]


def check_alpha_beta(alpha: float, beta: float) -> tuple[float, float]:
    """Vegas's thresholds α, β as floats, refused unless ``0 <= alpha <= beta``."""
    a, b = check_real("alpha", alpha), check_real("beta", beta)
    if a < 0 or b < a:
        raise ValueError(f"need 0 <= alpha <= beta, got alpha={alpha!r}, beta={beta!r}")
    return a, b


def check_below_path(w_star: ArrayLike, bdp: ArrayLike, gamma: Any, *, what: str) -> None:
    """Refuse (ValueError naming ``gamma``) a critical window W* above μd: the slow-start forms
    take Δ as the slow-start burst alone, which holds while every window before the exit is
    below μd (no standing bottleneck queue), i.e. W* <= μd; ``what`` names the caller."""
    w, b = np.broadcast_arrays(np.asarray(w_star, dtype=float), np.asarray(bdp, dtype=float))
    over = np.flatnonzero(w > b)
    if over.size:
        i = over[0]
        raise ValueError(
            f"{what}: with gamma={gamma!r} and bdp={float(b.flat[i])!r} the critical window "
            f"W* = {w.flat[i]:.6g} packets exceeds μd = {b.flat[i]:.6g}: the window would fill "
            "the path before the slow-start burst alone makes Δ reach γ, and the closed form "
            "(the Quick Vegas paper, §4.1, no bottleneck queue in slow start) does not apply; "
            "use a smaller gamma, a larger path, or a simulation engine"
        )


def equilibrium_band(bdp: float, alpha: float, beta: float, *, what: str) -> tuple[float, float]:
    """Vegas's equilibrium band ``(μd + α, μd + β)`` (the asymmetric-networks paper, eq. 4);
    ValueError if ``μd + β`` is below the laws' minimum window (2 packets)."""
    lo, hi = bdp + alpha, bdp + beta
    if not hi >= MIN_WINDOW:
        raise ValueError(
            f"{what}: the equilibrium band [bdp + alpha, bdp + beta] = [{lo:.4g}, {hi:.4g}] "
            f"packets lies below the laws' minimum window of {MIN_WINDOW:g} packets "
            f"(bdp={bdp:.4g}, alpha={alpha:g}, beta={beta:g}): the window would stop at "
            f"{MIN_WINDOW:g} with a standing queue above beta; give bdp + beta >= "
            f"{MIN_WINDOW:g} or use a simulation engine"
        )
    return lo, hi


def check_in_band(window: float, band: tuple[float, float], *, what: str) -> float:
    """``window`` if it is a positive window inside ``band``; else a ValueError (the law's
    steps jump over a band narrower than a step: it cycles instead of settling)."""
    lo, hi = band
    if not (window > 0.0 and lo - 1e-9 <= window <= hi + 1e-9):
        raise ValueError(
            f"{what}: the law's steps from above end at a window of {window:.4g} packets, "
            f"outside its band [{lo:.4g}, {hi:.4g}] (narrower than a step of the law): the "
            "window cycles around the band instead of settling, which the closed form does "
            "not model; widen the band (beta - alpha) or use a simulation engine"
        )
    return window


def check_modelled_path(path: Path, *, what: str, queue_pkts: float | None = None) -> None:
    """Refuse (ValueError) a ``path`` whose ACK path limits the sender (``reverse_bandwidth``
    below μ), or whose buffer is smaller than ``queue_pkts``, the largest queue the closed
    form's own trajectory builds (packets; ``None``: not checked); ``what`` names the
    caller in the message."""
    if path.reverse_mu is not None and path.reverse_mu < path.mu:
        raise ValueError(
            f"{what}: reverse_bandwidth={path.reverse_mu:g} ACKs/s is below the bottleneck "
            f"rate μ={path.mu:g} packets/s: the ACK path limits the sender, which the closed "
            "forms do not model (they assume an ACK path that never limits); use a simulation "
            "engine (the asymmetric scenario) or a path without reverse_bandwidth"
        )
    if queue_pkts is not None and math.isfinite(path.buffer_pkts) and path.buffer_pkts < queue_pkts:
        raise ValueError(
            f"{what}: buffer={path.buffer_pkts:g} packets is smaller than the {queue_pkts:.4g}-"
            "packet queue the predicted trajectory builds (slow-start burst, overshoot or "
            "equilibrium backlog): packets would be lost, which the closed forms do not model; "
            f"give buffer >= {math.ceil(queue_pkts)} packets (or None) or use a simulation engine"
        )
