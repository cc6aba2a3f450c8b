"""Slow start in closed form (the Quick Vegas paper, §4.1, after Vanichpun and Feng): the
critical window ``W* = (γ + sqrt(γ² + c γ μd)) / 2`` with c = 8 (Vegas, last RTT), 16
(Vegas, average: eq. 6), 12 (Quick Vegas, last: eq. 9), 24 (Quick Vegas, average: eq. 10),
and the window of each slow-start round. The model: docs/analytic.md, "Model assumptions";
:mod:`tcpfluid.analytic.derive` re-derives each form.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._json import FieldsDict
from .._validation import (
    as_float_array,
    check_bool,
    check_choice,
    check_int,
    check_memory,
    check_positive,
)
from ._domain import check_below_path

__all__ = [
    "SLOW_START_ALGORITHMS",
    "SLOW_START_RULES",
    "SlowStartExit",
    "critical_window",
    "slow_start_exit",
    "slow_start_windows",
]

#: algorithms with a closed-form slow start, and the slow start each one uses
_SLOW_START_OF = {
    "vegas": "vegas",
    "enhanced-vegas": "vegas",
    "forward-vegas": "vegas",
    "itcp-vegas": "vegas",
    "quick-vegas": "quick-vegas",
}
SLOW_START_ALGORITHMS = tuple(_SLOW_START_OF)

#: extra packets of a growth round as a fraction of its window (module docstring)
_EXTRA_FRACTION = {"vegas": 0.5, "quick-vegas": 1.0 / 3.0}

RttKind = Literal["average", "last"]
_RTT_MODELS = ("average", "last")

#: whose slow start: the documents' model, or the packet sender's (docs/analytic.md, "The
#: sender's rule")
Rule = Literal["documents", "sender"]
SLOW_START_RULES = ("documents", "sender")
#: the sender's rule: the window of the round whose end decides, over the window whose RTTs
#: that decision reads (Quick Vegas grows x1.5 in that round; Vegas's deciding round does
#: not grow, so its rule is the documents')
_DECIDING_GROWTH = {"vegas": 1.0, "quick-vegas": 1.5}


def _finite_result(what: str, compute: Callable[[], Any], **inputs: Any) -> NDArray[np.float64]:
    """``compute()`` as a float array, or ``ValueError`` naming the inputs if it overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.asarray(compute(), dtype=np.float64)
    if not np.all(np.isfinite(out)):
        shown = ", ".join(f"{k}={v!r}" for k, v in inputs.items())
        raise ValueError(
            f"{what}: the result overflows a float for {shown}; the inputs must be far "
            "below the float range (about 1e308)"
        )
    return out


def resolve_rtt_model(
    rtt_model: str | None, rtt: str | None, choices: Sequence[str] = _RTT_MODELS
) -> str:
    """The RTT model from ``rtt_model`` or its accepted alias ``rtt``, one of ``choices``
    (default ``"average"``; both with different values: ``ValueError``)."""
    if rtt_model is not None and rtt is not None and rtt_model != rtt:
        raise ValueError(
            f"give rtt_model or its alias rtt, not both: rtt_model={rtt_model!r}, rtt={rtt!r}"
        )
    if rtt_model is not None:
        return check_choice("rtt_model", rtt_model, choices)
    if rtt is not None:
        return check_choice("rtt", rtt, choices)
    return "average"


def max_slow_start_rounds(
    algorithm: str, *, whole_acks: bool = False, rule: Rule = "documents"
) -> int:
    """Largest ``rounds`` for which :func:`slow_start_windows` stays a finite float
    (``sys.maxsize`` for TCP-Ho's quadratic table)."""
    check_choice("algorithm", algorithm, ("vegas", "quick-vegas", "tcp-ho"))
    check_choice("rule", rule, SLOW_START_RULES)
    if algorithm == "tcp-ho":
        return sys.maxsize
    if algorithm == "vegas":
        # 2^(floor(i/2)+1) <= max  <=>  floor(i/2) + 1 <= 1023 (2^1024 overflows)
        # (the "tcp-ho" indexing shifts one round later: one more round is finite)
        return 2 * 1023
    if rule == "sender" or whole_acks:
        return _sender_max_rounds(rule != "sender")
    # 2·1.5^i <= max for i <= floor(log(max/2)/log 1.5); rounds = that + 1
    return int(np.floor(np.log(float(np.finfo(np.float64).max) / 2.0) / np.log(1.5))) + 1


@functools.cache
def _sender_max_rounds(whole_acks: bool = False) -> int:
    """How many of the windows of :func:`_sender_windows` are finite floats."""
    return int(_sender_windows(float(np.finfo(np.float64).max), whole_acks=whole_acks).size)


def _sender_windows(
    top: float, rounds: int | None = None, whole_acks: bool = False
) -> NDArray[np.float64]:
    """Quick Vegas's slow-start windows as the packet sender grows them, half a packet per
    ACK of the window's whole packets (2, 3, 4.5, 6.5, 9.5, 14, ...), or with
    ``whole_acks`` one packet per two whole ACKs (2, 3, 4, 6, 9, ...): ``rounds`` of them,
    or every one up to ``top``."""
    out: list[float] = []
    w: float = 2 if whole_acks else 2.0  # whole_acks: exact integers
    while (rounds is None and w <= top) or (rounds is not None and len(out) < rounds):
        out.append(w)
        w += w // 2 if whole_acks else float(np.floor(w)) / 2.0
    return np.asarray(out, dtype=np.float64)


def _slow_start_kind(algorithm: str) -> str:
    check_choice("algorithm", algorithm, SLOW_START_ALGORITHMS)
    return _SLOW_START_OF[algorithm]


def root_coefficient(algorithm: str, rtt_model: RttKind = "average") -> float:
    """The coefficient c in ``W* = (γ + sqrt(γ² + c γ μd)) / 2`` (8, 16, 12 or 24)."""
    kind = _slow_start_kind(algorithm)
    check_choice("rtt_model", rtt_model, _RTT_MODELS)
    f = _EXTRA_FRACTION[kind]
    return 4.0 / (f if rtt_model == "last" else f / 2.0)


def critical_window(
    algorithm: str,
    bdp: ArrayLike,
    *,
    gamma: float = 1.0,
    rtt_model: RttKind | None = None,
    rtt: RttKind | None = None,
    rule: Rule = "documents",
) -> NDArray[np.float64]:
    """Window at which a flow leaves slow start (the critical window), packets.

    W*, where Δ first exceeds γ, of the shape of ``bdp``.

    Parameters
    ----------
    algorithm
        One of :data:`SLOW_START_ALGORITHMS` (all but ``"quick-vegas"`` give Vegas's value).
    bdp
        μd, packets (> 0).
    gamma
        Vegas's slow-start threshold γ, packets (> 0).
    rtt_model
        ``"average"`` (default): the round's mean RTT (eq. 6 for Vegas, eq. 10 for Quick
        Vegas); ``"last"``: the RTT of its last packet (eq. 9; for Vegas the TCP-Ho paper's
        §4.1 form). ``rtt`` is an accepted alias.
    rule
        ``"documents"`` (default): Δ of a growth round from its own RTTs; ``"sender"``: the
        packet sender's (and ns-2's) decision, which reads the RTTs of the window W of one
        growth round and multiplies them by the window of the next round (1.5 W for Quick
        Vegas, so W* is eq. 10 with γ replaced by 2γ/3; Vegas's deciding round does not
        grow, so its W* is the documents'). Only with the average RTT.

    Examples
    --------
    >>> float(critical_window("vegas", 625.0))        # eq. 6, the 50 Mb/s x 100 ms path
    50.5024...
    """
    model = resolve_rtt_model(rtt_model, rtt)
    c = root_coefficient(algorithm, model)  # type: ignore[arg-type]
    g = check_positive("gamma", gamma) / _check_rule(rule, model, algorithm)
    x = as_float_array("bdp", bdp, positive=True)
    # (γ + sqrt(γ² + cγx))/2 written as γ(1 + sqrt(1 + cx/γ))/2: no γ² (finite for any
    # finite γ), and the same value in exact arithmetic
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        w = np.asarray(0.5 * g * (1.0 + np.sqrt(1.0 + (c / g) * x)), dtype=np.float64)
        # a γ so small that c/γ overflows: (γ + sqrt(γ) sqrt(γ + cx))/2, the same value
        w = np.where(np.isfinite(w), w, 0.5 * (g + np.sqrt(g) * np.sqrt(g + c * x)))
    if not np.all(np.isfinite(w)):
        raise ValueError(
            f"critical_window: W* overflows a float for gamma={gamma!r} and bdp up to "
            f"{float(np.max(x)):.6g} packets; both must be far below 1e300"
        )
    return w


def _check_rule(rule: str, rtt_model: str, algorithm: str, whole_acks: bool = False) -> float:
    """Check ``rule`` against the options it excludes; the deciding round's growth factor
    (1 for the documents' rule)."""
    check_choice("rule", rule, SLOW_START_RULES)
    if rule == "documents":
        return 1.0
    if rtt_model != "average":
        raise ValueError(
            f"rule='sender' reads the round's average RTT, as the packet sender does; got "
            f"rtt_model={rtt_model!r} (accepted with it: 'average')"
        )
    if whole_acks:
        raise ValueError(
            "rule='sender' grows Quick Vegas's windows as the packet sender does (half a "
            "packet per ACK of a whole packet); whole_acks=True is the documents' other "
            "reading and applies with rule='documents' only"
        )
    return _DECIDING_GROWTH[_slow_start_kind(algorithm)]


def slow_start_windows(
    algorithm: str,
    rounds: int,
    *,
    whole_acks: bool = False,
    indexing: Literal["quick-vegas", "tcp-ho"] = "quick-vegas",
    rule: Rule = "documents",
) -> NDArray[np.float64]:
    """Window of each round of slow start while Δ stays below γ, packets.

    ``rounds`` (>= 1) windows, round 0 first: ``"vegas"`` doubling every other round,
    ``"quick-vegas"`` ×1.5 a round (Table 1 of the Quick Vegas paper; ``whole_acks``: one extra
    packet per two whole ACKs, 2, 3, 4, 6, 9, ...; ``rule="sender"``: half a packet per ACK
    of the window's whole packets, 2, 3, 4.5, 6.5, 9.5, 14, ..., as the packet sender grows
    them), ``"tcp-ho"`` Table 4 of the TCP-Ho paper. ``indexing`` (Vegas): ``"quick-vegas"``
    numbers rounds as Table 1, ``"tcp-ho"`` as the TCP-Ho paper's Table 3 (one more initial
    round)."""
    check_choice("algorithm", algorithm, ("vegas", "quick-vegas", "tcp-ho"))
    n = check_int("rounds", rounds, minimum=1)
    check_choice("indexing", indexing, ("quick-vegas", "tcp-ho"))
    whole_acks = check_bool("whole_acks", whole_acks)
    if algorithm != "tcp-ho":  # TCP-Ho's rule: checked by max_slow_start_rounds
        _check_rule(rule, "average", algorithm, whole_acks)
    top = max_slow_start_rounds(algorithm, whole_acks=whole_acks, rule=rule)
    if n > top:
        raise ValueError(
            f"rounds must be <= {top} for {algorithm!r}"
            f"{' with whole_acks=True' if whole_acks else ''}: the window of round {top} "
            f"already exceeds the largest float (about 1.8e308 packets); got {rounds!r}"
        )
    if algorithm == "tcp-ho":
        # no float limit within memory: the table and one array of round indices, checked
        # before either is allocated
        check_memory("slow_start_windows", 16.0 * n, f"rounds={n:,} for 'tcp-ho'")
        i = np.arange(n, dtype=np.float64)
        out = i * i
        i *= 2.0
        out -= i  # i² − 2i
        del i
        out[0::2] += 8.0
        out[1::2] += 9.0
        out /= 4.0
        return out
    i = np.arange(n, dtype=np.float64)
    if algorithm == "vegas":
        j = i if indexing == "quick-vegas" else np.maximum(i - 1.0, 0.0)
        return np.asarray(2.0 ** (np.floor(j / 2.0) + 1.0))
    if rule == "sender" or whole_acks:
        return _sender_windows(np.inf, n, whole_acks)
    return np.asarray(2.0 * 1.5**i)


def leaves_slow_start(window: ArrayLike, w_star: ArrayLike) -> NDArray[np.bool_]:
    """Whether a growth round's ``window`` ends slow start against the critical window
    ``w_star``: Vegas leaves slow start when Δ "is greater than γ" (the Quick Vegas paper,
    §2 and §3.1), and Δ = γ at W*, so a window of exactly W* grows on: ``window > w_star``."""
    return np.asarray(np.asarray(window) > np.asarray(w_star))


@dataclass(frozen=True)
class SlowStartExit(FieldsDict):
    """Where a flow leaves slow start (see :func:`slow_start_exit`).

    Fields: the Table-1 index of the
    round that sent the window reaching W* (``window_pkts``), W*, the window after the 1/8
    cut, the end of that round (s), the exit round ``round + 2`` (whose end the sender
    decides at; docs/analytic.md, "One round numbering") and its end (s). A round lasts d,
    or W/μ where its window W exceeds μd (``(round + 1) d`` and ``exit_round · d`` where
    every window is at most μd)."""

    round: int
    window_pkts: float
    critical_window_pkts: float
    exit_window_pkts: float
    time_s: float
    exit_round: int = 0
    exit_time_s: float = 0.0


def slow_start_exit(
    algorithm: str,
    bdp: float,
    rtt_s: float,
    *,
    gamma: float = 1.0,
    rtt_model: RttKind | None = None,
    whole_acks: bool = False,
    rtt: RttKind | None = None,
    rule: Rule = "documents",
) -> SlowStartExit:
    """The first growth round whose window reaches the critical window W*, after which the
    window is cut by 1/8 (the Quick Vegas paper, §3.1).

    ``bdp`` μd (packets), ``rtt_s`` d (s); the other
    arguments as :func:`critical_window` and :func:`slow_start_windows`. With
    ``rule="sender"`` Quick Vegas's window is the one whose RTTs the decision reads, one round
    before the deciding round: the exit round is one later (``round + 3``) and the 1/8 cut
    applies to the deciding round's window, the next of the table (docs/analytic.md, "The
    sender's rule"). Vegas's exit is the same under both rules."""
    kind = _slow_start_kind(algorithm)
    b = check_positive("bdp", bdp)
    d = check_positive("rtt_s", rtt_s)
    model = resolve_rtt_model(rtt_model, rtt)
    lagged = _check_rule(rule, model, kind, bool(whole_acks)) != 1.0
    w_star = float(critical_window(kind, b, gamma=gamma, rtt_model=model, rule=rule))  # type: ignore[arg-type]
    check_below_path(w_star, b, gamma, what="slow_start_exit")
    # enough rounds: windows grow at least x1.5 every two rounds
    n = int(4 * np.ceil(np.log(max(w_star, 2.0)) / np.log(1.5))) + 8
    n = min(n, max_slow_start_rounds(kind, whole_acks=bool(whole_acks), rule=rule))
    windows = slow_start_windows(kind, n, whole_acks=whole_acks, rule=rule)
    i = np.arange(n)
    growth = (i % 2 == 0) & (i >= 2) if kind == "vegas" else i >= 1
    candidates = np.nonzero(growth & leaves_slow_start(windows, w_star))[0]
    if candidates.size == 0:
        raise ValueError(
            f"slow_start_exit: bdp={bdp!r} is too large: the slow-start table reaches the "
            f"float range before the critical window W* = {w_star:.6g}"
        )
    r = int(candidates[0])
    decide = r + 3 if lagged else r + 2
    w = float(windows[r])
    # the deciding round's window, the next of the table (beyond it: past the float range)
    cut = (float(windows[r + 1]) if r + 1 < n else float("inf")) if lagged else w
    # a round lasts d, or W/μ where its window W keeps a standing queue W − μd; the
    # deciding round carries the window it cuts. The documents' rule: rounds 0..decide−2
    # carry the table's windows. The sender's rule reads the RTTs a round late: round i
    # carries the table's window i − 1 (round 0 the first window)
    if lagged:
        carried = np.append(windows[:1], windows[: decide - 1])
    else:
        carried = np.append(windows[: decide - 1], cut)
    lengths = _finite_result(
        "slow_start_exit", lambda: d * np.maximum(carried / b, 1.0), bdp=bdp, rtt_s=rtt_s
    )
    return SlowStartExit(
        round=r,
        window_pkts=w,
        critical_window_pkts=w_star,
        exit_window_pkts=cut * 7.0 / 8.0,
        time_s=float(lengths[: r + 1].sum()),
        exit_round=decide,
        exit_time_s=float(lengths.sum()),
    )
