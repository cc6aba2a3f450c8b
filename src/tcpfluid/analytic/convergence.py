"""Rounds to a new equilibrium (the Quick Vegas paper, §4.2, eqs. 11–12) and the TCP-Ho
conspicuous round (the TCP-Ho paper, §4, eqs. 2–6; its printing errors: docs/errata.md).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_choice, check_positive, check_range, check_real
from ._domain import check_below_path
from .slow_start import _finite_result, critical_window, leaves_slow_start, resolve_rtt_model

__all__ = [
    "conspicuous_round",
    "conspicuous_round_printed",
    "rounds_to_equilibrium",
    "tcp_ho_cubic",
    "tcp_ho_cubic_root",
]


def rounds_to_equilibrium(
    algorithm: str,
    window: ArrayLike,
    n: ArrayLike,
    *,
    beta: float = 4.0,
    delta: float = 0.0,
) -> NDArray[np.float64]:
    """Rounds for a flow at equilibrium window W to reach nW (the Quick Vegas paper, §4.2).

    Real-valued, shape of ``broadcast(W, n)``. ``"vegas"``/``"enhanced-vegas"`` one packet
    per round, ``(n − 1) W``; ``"quick-vegas"`` eq. (12), the positive root of eq. (11),
    with the backlog ``delta`` (0 <= Δ < β, packets) held constant. ``window`` W > 0 and
    ``n`` >= 1, packets and a ratio. Eq. (12) ignores the "at most double" cap and assumes
    succ is never reset (docs/analytic.md, "Model assumptions")."""
    check_choice("algorithm", algorithm, ("vegas", "enhanced-vegas", "quick-vegas"))
    w = as_float_array("window", window, positive=True)
    nn = as_float_array("n", n, minimum=1.0)
    b = check_positive("beta", beta)
    dl = check_real("delta", delta)
    if dl < 0 or dl >= b:
        raise ValueError(f"delta must be in [0, beta) = [0, {b}), got {delta!r}")
    if algorithm in ("vegas", "enhanced-vegas"):
        return _finite_result("rounds_to_equilibrium", lambda: (nn - 1.0) * w, window=window, n=n)
    return _finite_result(
        "rounds_to_equilibrium",
        lambda: (-1.0 + np.sqrt(1.0 + 8.0 * w * ((nn - 1.0) / (b - dl)))) / 2.0,
        window=window,
        n=n,
        beta=beta,
    )


def tcp_ho_cubic(k: ArrayLike, bdp: ArrayLike) -> NDArray[np.float64]:
    """Left side of eq. (5) of the TCP-Ho paper: ``k³ − 10k² + (40 − 8μd)k + 16μd − 64``."""
    kk = as_float_array("k", k)
    b = as_float_array("bdp", bdp, positive=True)
    return _finite_result(
        "tcp_ho_cubic",
        lambda: kk**3 - 10.0 * kk**2 + (40.0 - 8.0 * b) * kk + (16.0 * b - 64.0),
        k=k,
        bdp=bdp,
    )


def tcp_ho_cubic_root(bdp: ArrayLike) -> NDArray[np.float64]:
    """Largest real root of eq. (5) of the TCP-Ho paper, rounds (not rounded to an integer).

    The depressed cubic ``t³ + p t + q`` of ``k = t + 10/3`` by the trigonometric form where
    it has three real roots, else by Cardano's formula (docs/errata.md, E6)."""
    b = np.atleast_1d(as_float_array("bdp", bdp, positive=True))
    if np.any(b > 1e100):
        # p³ below overflows long before: the root grows like sqrt(8 μd)
        raise ValueError(
            f"tcp_ho_cubic_root: bdp must be <= 1e100 packets, got {float(np.max(b)):g}"
        )
    p = 20.0 / 3.0 - 8.0 * b
    q = -128.0 / 27.0 - 32.0 * b / 3.0
    t = np.empty_like(b)
    three = q * q / 4.0 + p**3 / 27.0 <= 0.0
    pp, qq = p[three], q[three]
    arg = np.clip(3.0 * qq / (2.0 * pp) * np.sqrt(-3.0 / pp), -1.0, 1.0)
    t[three] = 2.0 * np.sqrt(-pp / 3.0) * np.cos(np.arccos(arg) / 3.0)
    pp, qq = p[~three], q[~three]
    disc = np.sqrt(qq * qq / 4.0 + pp**3 / 27.0)
    t[~three] = np.cbrt(-qq / 2.0 + disc) + np.cbrt(-qq / 2.0 - disc)
    return np.asarray((t + 10.0 / 3.0).reshape(np.shape(bdp)), dtype=np.float64)


def _even_ceil(x: NDArray[np.float64]) -> NDArray[np.float64]:
    c = np.ceil(x - 1e-9)
    return c + np.mod(c, 2.0)


def tcp_ho_reach_round(bdp: ArrayLike) -> NDArray[np.float64]:
    """The first round whose window in the TCP-Ho paper's Table 4 reaches μd: the first even ``i >=
    1 + sqrt(4μd − 7)`` or odd ``i >= 1 + sqrt(4μd − 8)``.

    Rounds from 1, as floats, of the shape of ``bdp`` (μd > 0, packets).
    """
    b = as_float_array("bdp", bdp, positive=True)

    def reach() -> NDArray[np.float64]:
        even = _even_ceil(1.0 + np.sqrt(np.maximum(4.0 * b - 7.0, 0.0)))
        c = np.ceil(1.0 + np.sqrt(np.maximum(4.0 * b - 8.0, 0.0)) - 1e-9)
        odd = c + 1.0 - np.mod(c, 2.0)
        return np.asarray(np.where(b <= 2.0, 1.0, np.minimum(even, odd)))

    return _finite_result("tcp_ho_reach_round", reach, bdp=bdp)


def _vegas_round(bdp: NDArray[np.float64], l_round: Any, w_l: Any) -> NDArray[np.float64]:
    """Eq. (2) of the TCP-Ho paper: slow start ends in round l at the window W_l, then
    ``ceil(μd − 7 W_l / 8)`` rounds at +1."""
    return np.asarray(l_round + np.maximum(np.ceil(bdp - 7.0 * w_l / 8.0 - 1e-9), 0.0))


def conspicuous_round(
    algorithm: str,
    bdp: ArrayLike,
    *,
    gamma: float | None = None,
    rtt_model: Literal["average", "last"] | None = None,
    queue: Literal["bottleneck", "paper", "table"] | None = None,
    rtt: Literal["average", "last"] | None = None,
    initial_window: float | None = None,
    feedback_rounds: int = 0,
) -> NDArray[np.float64]:
    """The round at which a new flow first reaches the available bandwidth (the TCP-Ho paper, §4).

    Whole numbers as floats, shape of ``bdp`` (μd > 0, packets); × d for seconds
    (docs/errata.md).

    Parameters
    ----------
    algorithm
        ``"vegas"``: eq. (2) with the corrected slow-start round (E4), ``l + ceil(μd −
        7W_l/8)``, l the first even round with ``W_l = w0 · 2^(l/2 − 1) > W*`` (Δ > γ:
        a window of exactly W* grows on, as in :func:`slow_start_exit`).
        ``"tcp-ho"``: the smallest even k satisfying eq. (4) with the RTT of ``queue``.
    gamma, rtt_model, rtt, initial_window
        Vegas only (refused for TCP-Ho): as :func:`critical_window` (γ default 1; ``rtt``
        an alias of ``rtt_model``), and the first window w0 >= 1 packets (default 2, the
        TCP-Ho paper's Table 3; ns-2: 1, erratum N11). W* must not exceed μd (the domain of
        :func:`slow_start_exit`: ValueError naming ``gamma``).
    queue
        TCP-Ho only (refused for Vegas), the backlog the round's last packet waits behind:
        ``"bottleneck"`` (default)
        the larger of z_{k−1} and ``W_k − μd``, ``k >= 3 + sqrt(4μd − 7)`` (E8);
        ``"paper"`` eq. (3) as printed, the cubic eq. (5); ``"table"`` Table 4's
        ``z_{k−1} = (k − 2)/2``, ``k >= 3 + sqrt(8μd − 7)`` (E5).
    feedback_rounds
        TCP-Ho with ``queue="bottleneck"`` only: 0 (the paper's analysis: the round's own
        RTTs) or 1 (the RTTs of the round before, as an ACK-clocked sender reads them and
        as the round model's default and the packet simulator behave): the first even k
        with ``W_{k−3} >= μd``, ``k >= 4 + sqrt(4μd − 8)``; two rounds later than 0 at
        about half of all μd, the same at the rest (625 among them).
    """
    check_choice("algorithm", algorithm, ("vegas", "tcp-ho"))
    # refuse, not ignore, an option the law's closed form does not read
    other = {"gamma": gamma, "rtt_model": rtt_model, "rtt": rtt, "initial_window": initial_window}
    unread = {"queue": queue} if algorithm == "vegas" else other
    why = "queue is TCP-Ho's" if algorithm == "vegas" else "TCP-Ho's ramp reads no slow start"
    for key, value in unread.items():
        if value is not None:
            raise ValueError(f"{key}={value!r} does not apply to {algorithm}: {why}")
    queue = "bottleneck" if queue is None else queue
    check_choice("queue", queue, ("bottleneck", "paper", "table"))
    if isinstance(feedback_rounds, bool) or feedback_rounds not in (0, 1):
        raise ValueError(f"feedback_rounds must be 0 or 1; got {feedback_rounds!r}")
    if feedback_rounds and (algorithm, queue) != ("tcp-ho", "bottleneck"):
        raise ValueError(
            f"feedback_rounds={feedback_rounds!r} applies to TCP-Ho with queue='bottleneck' "
            f"only, got algorithm={algorithm!r}, queue={queue!r}"
        )
    g = 1.0 if gamma is None else check_positive("gamma", gamma)
    model = resolve_rtt_model(rtt_model, rtt)
    w0 = 2.0 if initial_window is None else initial_window
    w0 = check_range("initial_window", w0, 1.0, float("inf"), hi_open=True)
    b = as_float_array("bdp", bdp, positive=True)
    if algorithm == "vegas":
        w_star = critical_window("vegas", b, gamma=g, rtt_model=model)  # type: ignore[arg-type]
        check_below_path(w_star, b, g if gamma is None else gamma, what="conspicuous_round")

    def rounds() -> NDArray[np.float64]:
        if algorithm == "vegas":
            # eq. (2) with the exponent corrected (docs/errata.md, E4), from a first window
            # w0: W_l = w0 2^(l/2 − 1); m = l/2 − 1 the doublings to the first window
            # above W* (the first at or above it, one more where it equals W*)
            m = np.maximum(np.ceil(np.log2(w_star / w0) - 1e-12), 0.0)
            m = np.where(leaves_slow_start(w0 * 2.0**m, w_star), m, m + 1.0)
            return _vegas_round(b, 2.0 * (m + 1.0), w0 * 2.0**m)
        if queue == "paper":
            root = tcp_ho_cubic_root(b)
        else:
            root = 3.0 + np.sqrt(np.maximum(8.0 * b - 7.0, 0.0))  # "table"
        if queue == "bottleneck" and feedback_rounds:
            # a round late: W_{k-3} >= μd (derive.tcp_ho_bottleneck_round_expr(1))
            root = 4.0 + np.sqrt(np.maximum(4.0 * b - 8.0, 0.0))
        elif queue == "bottleneck":
            # the Table-4 (sender-queue) condition still applies while W_k - μd < z_{k-1};
            # the bottleneck condition W_{k-2} >= μd takes over beyond (derive.py)
            root = np.minimum(3.0 + np.sqrt(np.maximum(4.0 * b - 7.0, 0.0)), root)
        # Table 4's growth starts at round 2; k is at least 2
        return np.asarray(np.maximum(_even_ceil(root), 2.0))

    shown = {"bdp": bdp} if algorithm == "vegas" else {"bdp": bdp, "queue": queue}
    return _finite_result("conspicuous_round", rounds, **shown)


def conspicuous_round_printed(algorithm: str, bdp: ArrayLike) -> NDArray[np.float64]:
    """The document's printed forms, kept for comparison (docs/errata.md, E4 and E6).

    ``"tcp-ho"`` eq. (6),
    ``k = 4 (cbrt(Q + 3 sqrt(P)) + cbrt(Q − 3 sqrt(P)))``, ``Q = 18μd + 8``, ``P = 21 − 18μd +
    96 μ²d²``; ``"vegas"`` eq. (2) with ``l >= 2 log2(1 + sqrt(1 + 16μd)) − 1`` made even."""
    check_choice("algorithm", algorithm, ("vegas", "tcp-ho"))
    b = as_float_array("bdp", bdp, positive=True)

    def printed() -> NDArray[np.float64]:
        if algorithm == "tcp-ho":
            q = 18.0 * b + 8.0
            p = 21.0 - 18.0 * b + 96.0 * b * b
            s = 3.0 * np.sqrt(p)
            return np.asarray(4.0 * (np.cbrt(q + s) + np.cbrt(q - s)))
        l_round = _even_ceil(2.0 * np.log2(1.0 + np.sqrt(1.0 + 16.0 * b)) - 1.0)
        return _vegas_round(b, l_round, 2.0 ** (l_round / 2.0))

    return _finite_result("conspicuous_round_printed", printed, bdp=bdp)
