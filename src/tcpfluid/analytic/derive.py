"""SymPy re-derivations of every closed form in :mod:`tcpfluid.analytic`.

Each function builds the documents' model, solves it with SymPy and returns the
expression; the tests compare them with the shipped NumPy functions over a grid.

Symbols: ``gamma`` γ, ``B`` the bandwidth-delay product μd (packets), ``mu`` μ, ``d`` the
base RTT, ``W`` a window, ``n`` the ratio of windows, ``beta`` β, ``Delta`` a constant Δ,
``i``/``k`` round counts, ``N`` a backlog, ``alpha`` α_j, ``x`` x_j, ``delta`` δ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import sympy as sp

__all__ = [
    "B",
    "blb_rate_expr",
    "critical_gain_expr",
    "critical_window_expr",
    "lambdify",
    "quick_vegas_slow_start_expr",
    "round_map_polynomial",
    "rounds_expr",
    "symmetric_mode_gain_expr",
    "tcp_ho_bottleneck_round_expr",
    "tcp_ho_condition",
    "tcp_ho_cubic_expr",
    "tcp_ho_depressed_cubic",
    "tcp_ho_table_windows",
    "vegas_equilibrium_expr",
    "vegas_slow_start_round_expr",
]

gamma, mu, d, W, n, beta, Delta = sp.symbols("gamma mu d W n beta Delta", positive=True)
B = sp.Symbol("B", positive=True)  # μd
i, k, N = sp.symbols("i k N", positive=True)
alpha, x, delta, dj, cwnd = sp.symbols("alpha x delta d_j cwnd", positive=True)

#: extra packets of a growth round as a fraction of its window: Vegas sends two packets
#: per ACK when doubling (W/2 of W are extra); Quick Vegas one extra per two ACKs (W/3).
_FRACTION = {"vegas": sp.Rational(1, 2), "quick-vegas": sp.Rational(1, 3)}


def critical_window_expr(
    algorithm: str,
    rtt: Literal["average", "last"] = "average",
    rule: Literal["documents", "sender"] = "documents",
) -> sp.Expr:
    """W* from ``Δ = W (1 − d/D) = γ`` with the round's RTT D (the Quick Vegas paper, §4.1).

    The extra packets f·W of a growth round queue in the sender while ACKs arrive every
    1/μ: the last packet waits f·W/μ, the packets on average half of that. Returns W* as a
    function of ``gamma`` and ``B`` (= μd). ``rule="sender"``: the decision reads D of the
    growth round of window W and multiplies ``1 − d/D`` by the window of the deciding round,
    W/(1 − f) for Quick Vegas (its next growth round), W for Vegas (whose deciding round
    does not grow).
    """
    f = _FRACTION[algorithm]
    D = d + (f * W / mu if rtt == "last" else f * W / (2 * mu))
    deciding = W / (1 - f) if rule == "sender" and algorithm == "quick-vegas" else W
    condition = sp.Eq(deciding * (D - d) / D, gamma)
    roots = sp.solve(condition, W)
    (root,) = [r for r in roots if r.subs({gamma: 1, mu: 100, d: 1}).is_positive]
    return sp.simplify(root.subs(mu, B / d))


def quick_vegas_slow_start_expr() -> sp.Expr:
    """Window of round i in Quick Vegas slow start: W_{i+1} = W_i + W_i/2, W_0 = 2."""
    w = sp.Function("w")
    return sp.simplify(sp.rsolve(w(i + 1) - w(i) - w(i) / 2, w(i), {w(0): 2}))


def vegas_slow_start_round_expr() -> sp.Expr:
    """First even round l at which Vegas's window ``2^(l/2)`` (the TCP-Ho paper, Table 3) equals W*.

    Solving ``2^(l/2) = W*`` with the smoothed-RTT W* gives
    ``l = 2 log2((1 + sqrt(1 + 16μd))/2) = 2 log2(1 + sqrt(1 + 16μd)) − 2``; the paper
    prints ``− 1`` (erratum E4).
    """
    l_sym = sp.Symbol("l", positive=True)
    w_star = critical_window_expr("vegas", "average").subs(gamma, 1)
    (sol,) = sp.solve(sp.Eq(2 ** (l_sym / 2), w_star), l_sym)
    return sp.simplify(sol)


def rounds_expr(algorithm: str) -> sp.Expr:
    """Rounds i from W to nW (the Quick Vegas paper, §4.2).

    Vegas: ``W + i = nW``. Quick Vegas: ``W + Σ_{j=1..i} (β − Δ) j = nW`` (eq. 11), solved
    for its positive root (eq. 12 when Δ = 0).
    """
    j = sp.Symbol("j", integer=True, positive=True)
    if algorithm in ("vegas", "enhanced-vegas"):
        (sol,) = sp.solve(sp.Eq(W + i, n * W), i)
        return sp.simplify(sol)
    total = sp.summation((beta - Delta) * j, (j, 1, i))
    roots = sp.solve(sp.Eq(W + total, n * W), i)
    (root,) = [r for r in roots if r.subs({W: 10, n: 3, beta: 4, Delta: 0}).is_positive]
    return sp.simplify(root)


def tcp_ho_table_windows() -> tuple[sp.Expr, sp.Expr, sp.Expr, sp.Expr]:
    """The TCP-Ho paper's Table 4 from its growth rule: ``W_{i+1} = W_i + z_i``, W_2 = 2.

    While PMaT < CMiT holds, the increase grows by one every other round and is applied in
    two consecutive rounds: z_i = floor(i/2). Summing gives, for even and odd i,
    ``W_i = (i² − 2i + 8)/4`` and ``(i² − 2i + 9)/4``. Returns
    ``(W_even, W_odd, z_even, z_odd)`` as functions of ``i``.
    """
    m, t = sp.symbols("m t", integer=True, positive=True)
    # z_j = floor(j/2); W_i = W_2 + sum_{j=2}^{i-1} z_j. For even i = 2m the rounds
    # j = 2t and 2t + 1 (t = 1..m-1) both add t.
    w_even = 2 + sp.summation(2 * t, (t, 1, m - 1))
    w_odd = w_even + m  # W_{2m+1} = W_{2m} + z_{2m} = W_{2m} + m
    w_even_i = sp.expand(w_even.subs(m, i / 2))
    w_odd_i = sp.expand(w_odd.subs(m, (i - 1) / 2))
    return w_even_i, w_odd_i, i / 2, (i - 1) / 2


def _tcp_ho_even_windows() -> tuple[sp.Expr, sp.Expr]:
    """Table 4's windows W_k and W_{k−2} of an even round k."""
    w_even = tcp_ho_table_windows()[0]
    return w_even.subs(i, k), w_even.subs(i, k - 2)


def tcp_ho_condition(queue: Literal["bottleneck", "paper", "table"] = "paper") -> sp.Expr:
    """Eq. (4) of the TCP-Ho paper with eq. (3): ``W_{k−2} D − W_k d >= 0``, times 8μ, expanded.

    ``queue="paper"``: the last packet sees ``(k − 4)/2`` packets (eq. 3 as printed);
    ``"table"``: ``z_{k−1} = (k − 2)/2`` (Table 4); ``"bottleneck"``: the larger of
    ``z_{k−1}`` and the standing queue ``W_k − μd`` (erratum E8). k is even. The returned
    expression is ``>= 0`` exactly when the flow has reached the available bandwidth.
    """
    w_k, w_k2 = _tcp_ho_even_windows()
    backlogs = {"paper": (k - 4) / 2, "table": (k - 2) / 2}
    D = d + backlogs.get(queue, sp.Max((k - 2) / 2, w_k - mu * d)) / mu
    # W_k / D <= W_{k-2} / d  <=>  W_{k-2} D - W_k d >= 0   (D, d > 0)
    expr = (w_k2 * D - w_k * d) * 8 * mu
    return sp.expand(sp.simplify(expr).subs(mu, B / d))


def tcp_ho_bottleneck_round_expr(feedback_rounds: int = 0) -> sp.Expr:
    """Conspicuous round when the standing queue dominates (erratum E8).

    With ``D = d + (W_k − μd)/μ = W_k/μ`` eq. (4) ``W_k/D <= W_{k−2}/d`` becomes
    ``W_{k−2} >= μd``; solving ``W_{k−2} = μd`` with Table 4's even-round window gives
    ``k = 3 + sqrt(4μd − 7)``. ``feedback_rounds=1``: the sender decides in round k on the
    RTTs of round k − 1 (an ACK-clocked sender's samples of the packets a round earlier),
    so the condition is that of round k − 1, ``W_{k−3} >= μd`` with Table 4's odd-round
    window: ``k = 4 + sqrt(4μd − 8)``.
    """
    if isinstance(feedback_rounds, bool) or feedback_rounds not in (0, 1):
        raise ValueError(f"feedback_rounds must be 0 or 1; got {feedback_rounds!r}")
    if feedback_rounds == 1:
        w_odd = tcp_ho_table_windows()[1].subs(i, k - 3)
        roots = sp.solve(sp.Eq(w_odd, B), k)
        (root,) = [r for r in roots if r.subs({B: 100}) > 4]
        return sp.simplify(root)
    w_k, w_k2 = _tcp_ho_even_windows()
    standing = sp.simplify(w_k2 * (w_k / mu) - w_k * d)  # W_{k-2} D - W_k d with D = W_k/mu
    factor = sp.factor(standing)
    # factor = W_k (W_{k-2} - mu d)/mu: the sign is that of W_{k-2} - mu d
    roots = sp.solve(sp.Eq(w_k2, B), k)
    probe = {B: 100}
    (root,) = [r for r in roots if r.subs(probe).is_positive and r.subs(probe) > 3]
    if sp.simplify(factor - w_k * (w_k2 - mu * d) / mu) != 0:  # pragma: no cover
        raise RuntimeError(f"unexpected factorisation {factor}")
    return sp.simplify(root)


def tcp_ho_cubic_expr() -> sp.Expr:
    """Eq. (5) of the TCP-Ho paper re-derived: ``k³ − 10k² + (40 − 8μd)k + 16μd − 64``."""
    return tcp_ho_condition("paper")


def tcp_ho_depressed_cubic() -> tuple[sp.Expr, sp.Expr]:
    """(p, q) of eq. (5) after ``k = t + 10/3``: ``t³ + p t + q``."""
    t = sp.Symbol("t")
    poly = sp.Poly(sp.expand(tcp_ho_cubic_expr().subs(k, t + sp.Rational(10, 3))), t)
    coeffs = poly.all_coeffs()
    if len(coeffs) != 4 or coeffs[0] != 1 or coeffs[1] != 0:  # pragma: no cover
        raise RuntimeError(f"eq. (5) did not reduce to a depressed cubic: {coeffs}")
    return sp.simplify(coeffs[2]), sp.simplify(coeffs[3])


def vegas_equilibrium_expr() -> sp.Expr:
    """Vegas's window when it keeps N packets queued: solve Δ = N with RTT = d + q/μ.

    At equilibrium the flow's rate W/RTT equals μ and Δ = W (1 − d/RTT) = N (the
    asymmetric-networks paper, eqs. 1–4); the solution is ``W = μd + N``, returned in terms of
    ``B`` and ``N``.
    """
    q = sp.Symbol("q", positive=True)
    rtt = d + q / mu
    (s,) = sp.solve([sp.Eq(W / rtt, mu), sp.Eq(W * (1 - d / rtt), N)], [W, q], dict=True)
    return sp.simplify(s[W].subs(mu, B / d))


def blb_rate_expr() -> sp.Expr:
    """Boutremans–Le Boudec: rate of a flow with backlog α, over-estimate x, queueing δ.

    ``cwnd − (BaseRTT/RTT) cwnd = α`` with BaseRTT = d_j + x and RTT = d_j + δ (Tsang's
    thesis, ch. 2 §5), solved for cwnd; the rate is cwnd/RTT = ``α/(δ − x)``.
    """
    (c_sol,) = sp.solve(sp.Eq(cwnd - (dj + x) / (dj + delta) * cwnd, alpha), cwnd)
    return sp.simplify(c_sol / (dj + delta))


def symmetric_mode_gain_expr() -> sp.Expr:
    """``∂Δ_j/∂w`` when every one of N flows moves its window by the same amount.

    Flow j measures ``Δ_j = w_j (1 − d/D)`` with ``D = d + (Σ w − μd)/μ`` (the Quick Vegas paper,
    eq. 1 with a standing queue). With all N windows equal to w, ``Δ = w (1 − d/D(Nw))``;
    differentiated at the equilibrium ``N w = μD`` this is ``q/(μD) + d/D`` = 1: each flow's
    Δ moves one for one with its own window, whatever N (returned simplified: ``1``).
    """
    ww, nn, qq = sp.symbols("w n_flows q", positive=True)
    rtt = d + (nn * ww - mu * d) / mu
    delta_j = ww * (1 - d / rtt)
    # the slope at the equilibrium n w = μ (d + q/μ)
    return sp.simplify(sp.diff(delta_j, ww).subs(ww, (mu * d + qq) / nn))


def round_map_polynomial(lag: int) -> sp.Expr:
    """``z^L − z^(L−1) + K``: the characteristic polynomial of ``e_{k+1} = e_k − K e_{k+1−L}``.

    Obtained from the recurrence by substituting ``e_k = z^k`` and multiplying by
    ``z^(L−1−k)``; returned in the symbols ``z`` and ``K``.
    """
    z, kk = sp.symbols("z K")
    kidx = sp.Symbol("k", integer=True)
    rec = z ** (kidx + 1) - z**kidx + kk * z ** (kidx + 1 - lag)
    return sp.expand(sp.powsimp(sp.expand(rec / z ** (kidx + 1 - lag))))


def critical_gain_expr() -> sp.Expr:
    """The gain at which a root of ``z^L − z^(L−1) + K`` reaches the unit circle.

    On the circle ``z = e^{iθ}``: ``z^(L−1)(z − 1) = −K``. Moduli: ``K = |e^{iθ} − 1| =
    2 sin(θ/2)``; arguments: ``(L − 1)θ + (π/2 + θ/2) = π``, so ``θ = π/(2L − 1)`` and
    ``K_c = 2 sin(π/(2(2L − 1)))``. Returned in the symbol ``L``; the tests check for
    L = 1..6 that ``z = e^{iπ/(2L−1)}`` is a root of :func:`round_map_polynomial` at K_c.
    """
    lag = sp.Symbol("L", positive=True)
    theta = sp.Symbol("theta", positive=True)
    # argument condition solved for θ
    (th,) = sp.solve(sp.Eq((lag - 1) * theta + sp.pi / 2 + theta / 2, sp.pi), theta)
    return sp.simplify(2 * sp.sin(th / 2))


def lambdify(expr: sp.Expr, *symbols: sp.Symbol) -> Callable[..., Any]:
    """NumPy function of ``expr`` in the given symbols (for comparison tests)."""
    return sp.lambdify(symbols, expr, modules="numpy")
