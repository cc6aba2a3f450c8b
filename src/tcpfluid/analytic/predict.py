"""One-call closed-form prediction for a flow on a path (behind ``tcpfluid predict``).

Definitions and their grounds: docs/analytic.md, "Definitions used by predict".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from .._json import fields_dict
from .._validation import check_bool, check_choice, check_positive
from ..metrics._settling import base_band_pkts, base_band_text
from ..path import Path
from ._domain import check_alpha_beta, check_in_band, check_modelled_path, equilibrium_band
from .convergence import conspicuous_round
from .slow_start import SLOW_START_RULES, resolve_rtt_model, slow_start_exit

__all__ = ["PREDICT_ALGORITHMS", "SETTLING_ROUTES", "Prediction", "predict"]

PREDICT_ALGORITHMS = ("vegas", "enhanced-vegas", "quick-vegas", "tcp-ho")
#: how :attr:`Prediction.time_to_equilibrium_s` was computed
SETTLING_ROUTES = ("closed form", "round model")
#: the round map stops looking for settling after this many rounds of the path
MAX_SETTLING_ROUNDS = 50_000
#: the round map's first run lasts this many times the closed forms' first reach
_FIRST_RUN_FACTOR = {"quick-vegas": 10.0, "tcp-ho": 2.5}
#: why TCP-Ho's prediction has no slow start and no settled window (its analysis, the TCP-Ho
#: paper §4, gives the conspicuous round only)
_NO_SLOW_START = "TCP-Ho has no slow start"
_NO_WINDOW = "TCP-Ho's analysis gives a round, not a window"
_TCP_HO_NONE = {
    **dict.fromkeys(
        ("critical_window_pkts", "ss_exit_round", "ss_exit_window_pkts", "ss_exit_time_s",
         "ca_start_window_pkts"),
        _NO_SLOW_START,
    ),
    **dict.fromkeys(("equilibrium_window_pkts", "equilibrium_band_pkts"), _NO_WINDOW),
}  # fmt: skip


@dataclass(frozen=True)
class Prediction:
    """Closed-form prediction for one algorithm on one path.

    The definitions: docs/analytic.md, "Definitions used by predict". ``None``: not given for the
    algorithm (TCP-Ho's analysis gives a round, not a slow start or a window: its settled window
    is the round map's, as its settling, where the round map runs and settles) or, for the
    settling, not reached within :data:`MAX_SETTLING_ROUNDS` rounds of the round map.

    Attributes
    ----------
    bdp_pkts, rtt_s, mu_pps
        The path: μd (packets), d (s), μ (packets/s).
    gamma_pkts, alpha_pkts, beta_pkts
        The thresholds the prediction used (Enhanced Vegas: α = β = δ; ``None`` for TCP-Ho,
        whose analysis reads none).
    critical_window_pkts, ss_exit_round, ss_exit_window_pkts, ss_exit_time_s
        W*, the exit round, the window before the 1/8 cut, ``exit_round · d`` (s).
    ca_start_window_pkts, equilibrium_window_pkts, equilibrium_band_pkts
        The window after the cut, the settled window, ``(μd + α, μd + β)`` (packets).
    rounds_to_equilibrium, time_to_equilibrium_s
        The round after which the window stays settled (as ``tcpfluid simulate``), and s.
    rounds_to_target, time_to_target_s
        The round the window first reaches the target (``μd + α``, Quick Vegas ``μd +
        (α+β)/2``, TCP-Ho's conspicuous round read a round late as an ACK-clocked sender
        decides, ``conspicuous_round(..., feedback_rounds=1)``) from the start, and its time
        (s; a round lasts d, or W/μ while its window keeps a standing queue).
    time_to_equilibrium_route, note
        ``"closed form"`` or ``"round model"`` (:data:`SETTLING_ROUTES`), and why.
    equilibrium_window_route
        Where :attr:`equilibrium_window_pkts` comes from, as ``time_to_equilibrium_route``
        (TCP-Ho: ``"round model"``).
    """

    algorithm: str
    bdp_pkts: float
    rtt_s: float
    mu_pps: float
    gamma_pkts: float | None = None
    alpha_pkts: float | None = None
    beta_pkts: float | None = None
    critical_window_pkts: float | None = None
    ss_exit_round: int | None = None
    ss_exit_window_pkts: float | None = None
    ss_exit_time_s: float | None = None
    ca_start_window_pkts: float | None = None
    equilibrium_window_pkts: float | None = None
    equilibrium_band_pkts: tuple[float, float] | None = None
    rounds_to_equilibrium: int | None = None
    time_to_equilibrium_s: float | None = None
    rounds_to_target: int = 0
    time_to_target_s: float = 0.0
    time_to_equilibrium_route: str = "closed form"
    note: str = ""
    equilibrium_window_route: str = "closed form"

    @property
    def ss_exit_window(self) -> float | None:
        """:attr:`ss_exit_window_pkts` under the name ``tcpfluid simulate`` uses."""
        return self.ss_exit_window_pkts

    @property
    def settled_window(self) -> float | None:
        """:attr:`equilibrium_window_pkts` under the name ``tcpfluid simulate`` uses."""
        return self.equilibrium_window_pkts

    def to_dict(self) -> dict[str, Any]:
        """Fields as a JSON-ready dict (the ``tcpfluid predict --json`` keys), with the
        spellings of ``tcpfluid simulate --json`` beside them (``ss_exit_window``,
        ``settled_window``, ``settled_window_pkts``) and ``why_null``: for each field that
        is ``None``, why."""
        out = fields_dict(self)
        why = {k: _why_none(self, k) for k, v in out.items() if v is None}
        out["ss_exit_window"] = self.ss_exit_window_pkts
        out["settled_window"] = out["settled_window_pkts"] = self.equilibrium_window_pkts
        out["why_null"] = why
        return out


def _why_none(pr: Prediction, field: str) -> str:
    """Why field ``field`` of ``pr`` is ``None``: no closed form gives it, or (the settling)
    the round map gave none (:attr:`Prediction.note`)."""
    if field in ("rounds_to_equilibrium", "time_to_equilibrium_s"):
        return pr.note or "no closed form gives the settling on this path"
    if field in ("gamma_pkts", "alpha_pkts", "beta_pkts") and pr.algorithm == "tcp-ho":
        return f"{field.split('_')[0]} is not a parameter of TCP-Ho"
    why = _TCP_HO_NONE.get(field) if pr.algorithm == "tcp-ho" else None
    return f"no closed form: {why or f'none gives {field} on this path'}"


def predict(
    algorithm: str,
    path: Path,
    *,
    gamma: float | None = None,
    alpha: float | None = None,
    beta: float | None = None,
    rtt_model: Literal["average", "last"] | None = None,
    whole_acks: bool = False,
    rtt: Literal["average", "last"] | None = None,
    round_map: bool = True,
    rule: Literal["documents", "sender"] = "documents",
    delta: float | None = None,
) -> Prediction:
    """Closed-form slow-start exit and time to equilibrium of one flow on ``path``.

    Parameters
    ----------
    algorithm
        One of :data:`PREDICT_ALGORITHMS`.
    path
        The path (μ and d; the closed forms assume no loss and no ACK-path congestion).
    gamma, alpha, beta, delta
        The law's thresholds, packets (γ > 0, 0 <= α <= β); ``None``: the law's own default
        (:attr:`~tcpfluid.algorithms.ControlLaw.parameters`: γ = 1, and α = 2, β = 4 for
        Vegas and Quick Vegas). Enhanced Vegas has one threshold δ > 0 (default 3), α = β =
        δ: give ``delta`` (or ``alpha`` and ``beta`` equal); ``delta`` is refused for the
        other laws. TCP-Ho's analysis reads none of them.
    rtt_model, rtt
        Which RTT the slow-start check uses (:func:`critical_window`; ``rtt`` an alias).
    whole_acks
        Quick Vegas: count whole ACKs in slow start (:func:`slow_start_windows`).
    rule
        Whose slow start: the documents' model (default) or the packet sender's
        (:func:`slow_start_exit`; the settling times do not depend on it).
    round_map
        Whether the settling time of Quick Vegas and TCP-Ho comes from the round map
        (``False``: ``None``, with a note).

    Raises
    ------
    ValueError
        Also where the closed forms do not apply (docs/analytic.md, "Domain of the closed
        forms").
    """
    check_choice("algorithm", algorithm, PREDICT_ALGORITHMS)
    if not isinstance(path, Path):
        raise TypeError(f"path must be a tcpfluid.Path, got {type(path).__name__}")
    _refuse_unread(algorithm, {"gamma": gamma, "alpha": alpha, "beta": beta}, whole_acks)
    g, a, b = _thresholds(algorithm, gamma, alpha, beta, delta)
    if algorithm == "quick-vegas" and b <= 0:
        raise ValueError(f"quick-vegas needs beta > 0 (eq. 3 adds beta - Delta), got {beta!r}")
    # checked here for every algorithm: TCP-Ho's branch never reaches slow_start_exit
    model = resolve_rtt_model(rtt_model, rtt)
    check_bool("round_map", round_map)
    check_choice("rule", rule, SLOW_START_RULES)
    bdp, d = path.bdp, path.d
    check_modelled_path(path, what="predict")
    if algorithm == "tcp-ho":
        # the ramp's last round as an ACK-clocked sender ends it: it decides on the RTTs
        # of the round before (the packet simulator and the round model agree round for
        # round; the paper's own analysis, feedback_rounds=0, is two rounds early at about
        # half of all μd)
        fields: dict[str, Any] = {}  # TCP-Ho's analysis has no slow start or window
        total = int(conspicuous_round("tcp-ho", bdp, feedback_rounds=1))
        # round i (1..total) carries Table 4's window (i² − 2i + 8, + 1 if i is odd)/4
        reach_s = _rising_time_s((2.0, -0.5, 0.25), 1, total + 1, bdp, d, odd=0.25)
        settle, settle_s = None, None
    else:
        fields, total, reach_s, (settle, settle_s) = _vegas_family(
            algorithm, path, g, a, b, model, whole_acks, rule
        )
    if not math.isfinite(reach_s):
        raise ValueError(
            f"predict: the time to equilibrium overflows a float for bdp={bdp!r} packets "
            f"and d={d!r} s; the path must be far below the float range"
        )
    route, note = "closed form", ""
    if algorithm in ("quick-vegas", "tcp-ho"):
        route = "round model"
        settle, settle_s, note = _by_round_map(
            algorithm, path, {"alpha": a, "beta": b, "gamma": g}, model, reach_s, fields,
            round_map,
        )  # fmt: skip
    reads = algorithm != "tcp-ho"  # TCP-Ho's analysis reads no threshold
    return Prediction(
        algorithm=algorithm,
        gamma_pkts=g if reads else None,
        alpha_pkts=a if reads else None,
        beta_pkts=b if reads else None,
        bdp_pkts=bdp,
        rtt_s=d,
        mu_pps=path.mu,
        rounds_to_equilibrium=settle,
        time_to_equilibrium_s=settle_s,
        rounds_to_target=total,
        time_to_target_s=reach_s,
        time_to_equilibrium_route=route,
        equilibrium_window_route="round model" if algorithm == "tcp-ho" else "closed form",
        note=note,
        **fields,
    )


def _vegas_family(
    algorithm: str,
    path: Path,
    g: float,
    a: float,
    b: float,
    model: str,
    whole_acks: bool,
    rule: str,
) -> tuple[dict[str, Any], int, float, tuple[int, float]]:
    """:func:`predict`'s closed forms for a law with a slow start (γ, α, β its thresholds):
    the slow start and settled window (fields of :class:`Prediction`), the round and time
    of the first reach of the target, and the settling round and time of one packet per
    round toward the settled window (Vegas and Enhanced Vegas; Quick Vegas's comes from
    the round map)."""
    bdp, d = path.bdp, path.d
    ex = slow_start_exit(
        algorithm,
        bdp,
        d,
        gamma=g,
        rtt_model=model,  # type: ignore[arg-type]
        whole_acks=whole_acks,
        rule=rule,  # type: ignore[arg-type]
    )
    band = equilibrium_band(bdp, a, b, what="predict")
    check_modelled_path(path, what="predict", queue_pkts=max(b, ex.window_pkts / 2.0))
    start = ex.exit_window_pkts
    settled, ca_rounds, ca_s = _approach(algorithm, start, bdp, a, b, d)
    check_in_band(settled, band, what="predict")
    fields = {
        "critical_window_pkts": ex.critical_window_pkts,
        "ss_exit_round": ex.exit_round,
        "ss_exit_window_pkts": ex.window_pkts,
        "ss_exit_time_s": ex.exit_time_s,
        "ca_start_window_pkts": start,
        "equilibrium_window_pkts": settled,
        "equilibrium_band_pkts": band,
    }
    # one packet per round toward the settled window: settled within the base band
    # (tcpfluid.metrics.settling) that many rounds before reaching it
    n = max(math.ceil(abs(settled - start) - base_band_pkts(settled) - 1e-9), 0)
    step = math.copysign(1.0, settled - start)
    settling = (ex.exit_round + n, ex.exit_time_s + _rounds_time_s(start, step, n, bdp, d))
    return fields, ex.exit_round + ca_rounds, ex.exit_time_s + ca_s, settling


def _by_round_map(
    algorithm: str,
    path: Path,
    law: dict[str, float],
    model: str,
    reach_s: float,
    fields: dict[str, Any],
    round_map: bool,
) -> tuple[int | None, float | None, str]:
    """Quick Vegas's and TCP-Ho's settling round and time from the round map (``None``
    without it) and :func:`predict`'s note; TCP-Ho's settled window into ``fields``."""
    why = "not computed (round_map=False)"
    settle, settle_s = None, None
    if round_map:
        rm = _round_map_settling(
            algorithm,
            path,
            law if algorithm == "quick-vegas" else {},
            model,
            reach_s,
            fields.get("equilibrium_window_pkts"),
        )
        settle, settle_s, why = rm.rounds, rm.time_s, rm.why
        # their approach overshoots the pipe: the queue it builds is the round map's
        check_modelled_path(path, what="predict", queue_pkts=rm.queue_pkts)
        if algorithm == "tcp-ho":  # no closed form gives its window: the round map's
            fields["equilibrium_window_pkts"] = rm.window_pkts
    elif algorithm == "tcp-ho" and math.isfinite(path.buffer_pkts):
        raise ValueError(
            f"predict: buffer={path.buffer_pkts:g} packets can only be checked against "
            "the queue TCP-Ho's ramp builds with the round map: give round_map=True or "
            "buffer=None"
        )
    note = (
        "Quick Vegas overshoots its target and approaches its band in steps: no closed "
        "form gives settling; "
        if algorithm == "quick-vegas"
        else "TCP-Ho's analysis gives the conspicuous round, not a settled window or a "
        "settling time: the round map gives both; "
    ) + why
    return settle, settle_s, note


def _refuse_unread(algorithm: str, thresholds: dict[str, Any], whole_acks: bool) -> None:
    """Refuse, not ignore, what ``algorithm``'s prediction does not read: TCP-Ho's analysis
    no threshold, a law other than Quick Vegas ``whole_acks``."""
    check_bool("whole_acks", whole_acks)
    for key, value in (thresholds if algorithm == "tcp-ho" else {}).items():
        if value is not None:
            raise ValueError(
                f"{key}={value!r} does not apply to {algorithm}: TCP-Ho's analysis reads no "
                "threshold"
            )
    if whole_acks and algorithm != "quick-vegas":
        raise ValueError(
            f"whole_acks=True does not apply to {algorithm}: whole_acks counts Quick Vegas's "
            "slow-start ACKs"
        )


def _thresholds(
    algorithm: str,
    gamma: float | None,
    alpha: float | None,
    beta: float | None,
    delta: float | None,
) -> tuple[float, float, float]:
    """γ, α, β of ``algorithm`` for :func:`predict`: each given, else the law's declared
    default; Enhanced Vegas's δ (``delta``, or ``alpha`` and ``beta`` given equal) is both
    α and β."""
    from ..algorithms.registry import law_class

    own = {p.name: p.default for p in law_class(algorithm).parameters}
    vegas = {p.name: p.default for p in law_class("vegas").parameters}
    g = check_positive("gamma", own.get("gamma", vegas["gamma"]) if gamma is None else gamma)
    if algorithm != "enhanced-vegas":
        if delta is not None:
            raise ValueError(
                f"delta={delta!r} is Enhanced Vegas's one threshold, not a parameter of {algorithm}"
            )
        a = own.get("alpha", vegas["alpha"]) if alpha is None else alpha
        b = own.get("beta", vegas["beta"]) if beta is None else beta
        return (g, *check_alpha_beta(a, b))
    given = {k: v for k, v in (("alpha", alpha), ("beta", beta)) if v is not None}
    if delta is None and len(given) == 2 and alpha == beta:
        delta = alpha  # the thresholds given equal: δ
    elif given and (delta is None or any(v != delta for v in given.values())):
        shown = ", ".join(f"{k}={v!r}" for k, v in given.items())
        raise ValueError(
            f"enhanced-vegas has one threshold, delta (alpha = beta = delta); got {shown}"
            + ("" if delta is None else f" beside delta={delta!r}")
            + ": give delta alone"
        )
    d = check_positive("delta", own["delta"] if delta is None else delta)
    return g, d, d


def _approach(
    algorithm: str, start: float, bdp: float, a: float, b: float, d: float
) -> tuple[float, int, float]:
    """The window a Vegas-family flow settles at from its congestion-avoidance start
    ``start``, the rounds it takes to get there and their length in seconds (α, β: its
    thresholds; d the base RTT): from above the band's target by the law's own rule with
    Δ = W − μd, each round lasting W/μ while the window keeps a standing queue
    (docs/analytic.md, "Domain of the closed forms")."""
    if algorithm == "quick-vegas":
        w, rounds, seconds, m = start, 0, 0.0, 0.5 * (a + b)
        if start <= bdp + m:  # from below, Δ = 0 as eq. 12 holds it
            return bdp + m, *_quick_vegas_rise(start, bdp + m, a, b, bdp, d)
        while w - bdp > m + 1e-9:
            seconds += _rounds_time_s(w, 0.0, 1, bdp, d)
            delta = w - bdp
            w -= 0.5 * (delta - m) if delta > b else 1.0
            rounds += 1
        return w, rounds, seconds
    if start > bdp + b:
        k = max(math.ceil(start - bdp - b - 1e-9), 0)
        return start - k, k, _rounds_time_s(start, -1.0, k, bdp, d)
    target = bdp + a
    k = max(math.ceil(target - start - 1e-9), 0)
    return max(target, start), k, _rounds_time_s(start, 1.0, k, bdp, d)


def _quick_vegas_rise(
    start: float, target: float, a: float, b: float, bdp: float, d: float
) -> tuple[int, float]:
    """Rounds and seconds for Quick Vegas to first reach ``target`` from ``start`` below it
    with Δ = 0 (eq. 12's assumption; α, β its thresholds, d the base RTT): eq. (3) adds
    β·i in the i-th round (eq. 11, succ never reset), at most doubling the window (the
    pseudo-code's cap, erratum E3: it binds while the window is below β·i); with α = 0, Δ = 0
    is never below α and the window grows one packet a round (the band's lower half)."""
    if a <= 0.0:
        k = max(math.ceil(target - start - 1e-9), 0)
        return k, _rounds_time_s(start, 1.0, k, bdp, d)
    w, i, seconds = start, 0, 0.0
    while w < target - 1e-9 and b * (i + 1) > w:  # capped: the window doubles
        seconds += _rounds_time_s(w, 0.0, 1, bdp, d)
        w, i = 2.0 * w, i + 1
    if w >= target - 1e-9:
        return i, seconds
    # uncapped from here on (β(i + 1) <= w stays so): after j more rounds the window is
    # w + β(i·j + j(j + 1)/2); eq. 12 where i = 0
    q = 2.0 * i + 1.0
    root = (-q + math.sqrt(q * q + 8.0 * (target - w) / b)) / 2.0
    if not math.isfinite(root):
        raise ValueError(
            f"predict: Quick Vegas's rounds to its target overflow a float for beta={b!r} "
            f"and a target of {target!r} packets"
        )
    k = math.ceil(root - 1e-9)
    return i + k, seconds + _rising_time_s((w, b * i + b / 2.0, b / 2.0), 0, k, bdp, d)


def _rising_time_s(
    coef: tuple[float, float, float], lo: int, hi: int, bdp: float, d: float, odd: float = 0.0
) -> float:
    """Seconds of the rounds j = ``lo``..``hi`` − 1 carrying the non-decreasing windows
    ``c0 + c1·j + c2·j²`` (+ ``odd`` where j is odd), packets: d a round while the window is
    at most μd, W/μ = d·W/μd above. Exact rational sums (no loop over the rounds: the first
    round above μd by bisection, the sums of j and j² in closed form)."""
    if hi <= lo:
        return 0.0
    c0, c1, c2, od, big = (Fraction(x) for x in (*coef, odd, bdp))

    def window(j: int) -> Fraction:
        return c0 + c1 * j + c2 * j * j + (od if j % 2 else 0)

    first, last = lo, hi  # the first round above μd, in [lo, hi]
    while first < last:
        mid = (first + last) // 2
        first, last = (first, mid) if window(mid) > big else (mid + 1, last)

    def s1(x: int) -> int:  # 0 + 1 + ... + x
        return x * (x + 1) // 2

    def s2(x: int) -> int:  # 0 + 1 + ... + x²
        return x * (x + 1) * (2 * x + 1) // 6

    n = hi - first
    above = c0 * n + c1 * (s1(hi - 1) - s1(first - 1)) + c2 * (s2(hi - 1) - s2(first - 1))
    above += od * (hi // 2 - first // 2)  # the odd j in [first, hi)
    try:
        return float(Fraction(d) * ((first - lo) + above / big))
    except OverflowError:
        return math.inf


def _rounds_time_s(first: float, step: float, n: int, bdp: float, d: float) -> float:
    """Seconds of ``n`` rounds carrying the windows ``first + step·j`` (j < n, packets; step
    −1, 0 or +1): :func:`_rising_time_s` over the same windows in rising order."""
    low = first + min(step, 0.0) * (n - 1)  # a falling run's last window
    return _rising_time_s((low, abs(step), 0.0), 0, n, bdp, d)


@dataclass(frozen=True)
class _RoundMap:
    """What :func:`_round_map_settling` found: the settling round and time (``None``: not
    settled), why (a note), the last run's largest queue and the settled window (packets;
    ``None``: no run, or not settled)."""

    rounds: int | None
    time_s: float | None
    why: str
    queue_pkts: float | None
    window_pkts: float | None = None


def _round_map_settling(
    algorithm: str,
    path: Path,
    law: dict[str, float],
    rtt_model: str,
    reach_s: float,
    target_pkts: float | None = None,
) -> _RoundMap:
    """Settling round and time of one flow on ``path`` from the round engine on a one-link
    scenario with an unlimited buffer, the run doubled until it settles in its first half
    (up to :data:`MAX_SETTLING_ROUNDS` rounds); ``None`` twice if it does not, a note (with
    when the run's window first reached ``target_pkts``, beside the closed forms' first
    reach ``reach_s``), and the largest queue of the last run (packets; ``None``: no run)."""
    from ..engines import simulate

    # the path without its buffer and ACK path: the lossless round map the closed forms
    # count on (a finite buffer is checked against its peak queue by the caller)
    lossless = Path(
        path.mu, path.d, packet_size=path.packet_size_bytes, ack_size=path.ack_size_bytes
    )
    try:
        one_flow = lossless.scenario(algorithm, path.d, params=law, name="predict")
    except ValueError as e:  # a d shorter than a packet and an ACK: no such path
        return _RoundMap(None, None, f"not computed: {e}", None)
    # the first run's length is a guess (the doubling makes the answer independent of it)
    duration = max(_FIRST_RUN_FACTOR.get(algorithm, 10.0) * reach_s, 100.0 * path.d)
    previous: tuple[float, float] | None = None  # the last quarter's swing and mean
    queue: float | None = None  # the last run's largest queue
    while True:
        if duration / path.d > MAX_SETTLING_ROUNDS:  # bounded work: checked before each run
            return _RoundMap(
                None,
                None,
                f"not computed: the round map would need more than {MAX_SETTLING_ROUNDS} "
                f"rounds of d = {path.d:.4g} s ({duration:.4g} s) on this path",
                queue,
            )
        res = simulate(replace(one_flow, duration_s=duration), "rounds", rtt_model=rtt_model)
        queue = float(np.nanmax(res.queue_pkts))
        t_settle = res.summary.flows[0].time_to_equilibrium_s
        if t_settle is not None and t_settle <= 0.5 * duration:
            rounds = int(np.searchsorted(res.time_s, t_settle + 1e-12, side="right"))
            why = "settling from the round map (the round engine)"
            if target_pkts is not None:
                w = res.window_pkts[0]
                hit = np.flatnonzero(w >= target_pkts - 1e-9)
                if hit.size:  # Quick Vegas's closed forms assume succ is never reset
                    why += (
                        f"; its window first reaches the target {target_pkts:.4g} packets at "
                        f"{res.time_s[hit[0]]:.4g} s, where the closed forms (eqs. 11-12, "
                        f"succ never reset) count {reach_s:.4g} s"
                    )
            window = res.summary.flows[0].settled_window_pkts
            return _RoundMap(rounds, float(t_settle), why, queue, window)
        if 2.0 * duration / path.d > MAX_SETTLING_ROUNDS:
            return _RoundMap(
                None,
                None,
                f"the round map does not settle within {MAX_SETTLING_ROUNDS} rounds "
                f"({duration:.4g} s): the window keeps moving by more than {base_band_text()}",
                queue,
            )
        # a window that swings over the last quarter of the run by more than the settling
        # band around the same mean, as widely as over the last quarter of a run half as
        # long, is in a cycle that does not decay (not a slow approach, whose mean moves):
        # it does not settle however long the run
        late = res.window_pkts[0][res.time_s > 0.75 * duration]
        late = late[np.isfinite(late)]
        if late.size:
            lo, hi, mean = float(late.min()), float(late.max()), float(late.mean())
            band = base_band_pkts(mean)
            if (
                previous is not None
                and hi - lo > 2.0 * band
                and hi - lo >= 0.9 * previous[0]
                and abs(mean - previous[1]) <= band
            ):
                return _RoundMap(
                    None,
                    None,
                    f"the round map's window keeps swinging between {lo:.4g} and {hi:.4g} "
                    f"packets (measured to {duration:.4g} s) by more than the settling band "
                    f"{base_band_text()}, without decaying: it does not settle",
                    queue,
                )
            previous = (hi - lo, mean)
        duration *= 2.0
