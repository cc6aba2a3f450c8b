"""Slow start in closed form: critical windows and the window of each round.

Model (document 000 §4.1, after Vanichpun and Feng): a single flow fills an empty path whose
bottleneck rate is μ and base RTT d. In a round where the window grows through per-ACK
increments, the ACKs of the previous round arrive every 1/μ seconds and the extra packets
pile up in the sender queue. If the window of the round is W and a fraction ``f`` of it is
extra packets (Vegas doubling: f = 1/2; Quick Vegas, one extra per two ACKs: f = 1/3), the
last packet of the round waits fW/μ, the average packet fW/(2μ). Vegas leaves slow start
when Δ = W (1 − d/D) > γ (eq. 1), with D the RTT of the round: the last packet's
(``rtt="last"``) or the average over the round (``rtt="average"``, the implementations'
smoothed RTT). Solving ``W (D − d)/D = γ`` for W gives

    W* = (γ + sqrt(γ² + 4 γ μd / f')) / 2,     f' = f (last) or f/2 (average),

i.e. the coefficient of γμd under the root is 8 (Vegas, last), 16 (Vegas, average: eq. 6),
12 (Quick Vegas, last: eq. 9) and 24 (Quick Vegas, average: eq. 10).
:mod:`tcpfluid.analytic.derive` re-derives each of them in SymPy.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_choice, check_int, check_positive

__all__ = [
    "SLOW_START_ALGORITHMS",
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


def _slow_start_kind(algorithm: str) -> str:
    check_choice("algorithm", algorithm, SLOW_START_ALGORITHMS)
    return _SLOW_START_OF[algorithm]


def root_coefficient(algorithm: str, rtt: RttKind = "average") -> float:
    """The coefficient c in ``W* = (γ + sqrt(γ² + c γ μd)) / 2`` (8, 16, 12 or 24)."""
    kind = _slow_start_kind(algorithm)
    check_choice("rtt", rtt, ("average", "last"))
    f = _EXTRA_FRACTION[kind]
    return 4.0 / (f if rtt == "last" else f / 2.0)


def critical_window(
    algorithm: str, bdp: ArrayLike, *, gamma: float = 1.0, rtt: RttKind = "average"
) -> NDArray[np.float64]:
    """Window at which a flow leaves slow start (the critical window), packets.

    Parameters
    ----------
    algorithm
        ``"vegas"`` or ``"quick-vegas"`` (``"enhanced-vegas"``, ``"forward-vegas"`` and
        ``"itcp-vegas"`` use Vegas's slow start and give Vegas's value).
    bdp
        μd, the bandwidth-delay product in packets (scalar or array, > 0).
    gamma
        Vegas's slow-start threshold γ, packets (> 0; 1 in the documents).
    rtt
        ``"average"``: D is the mean RTT of the round (the implementations' smoothed RTT;
        eq. 6 for Vegas, eq. 10 for Quick Vegas, document 000). ``"last"``: D is the RTT
        of the round's last packet (eq. 9 for Quick Vegas; for Vegas the form
        ``(γ + sqrt(γ² + 8γμd))/2`` quoted in document 004 §4.1).

    Returns
    -------
    numpy.ndarray
        W*, same shape as ``bdp``: the fluid window at which Δ first exceeds γ.

    Examples
    --------
    >>> float(critical_window("vegas", 625.0))        # eq. 6, the 50 Mb/s x 100 ms path
    50.5024...
    """
    c = root_coefficient(algorithm, rtt)
    g = check_positive("gamma", gamma)
    x = as_float_array("bdp", bdp, positive=True)
    return np.asarray((g + np.sqrt(g * g + c * g * x)) / 2.0, dtype=np.float64)


def slow_start_windows(
    algorithm: str,
    rounds: int,
    *,
    whole_acks: bool = False,
    indexing: Literal["quick-vegas", "tcp-ho"] = "quick-vegas",
) -> NDArray[np.float64]:
    """Window of each round of slow start while Δ stays below γ, packets.

    Parameters
    ----------
    algorithm
        ``"vegas"`` (doubling every other round), ``"quick-vegas"`` (one extra packet per
        two ACKs, every round) or ``"tcp-ho"`` (quick shift with PMaT < CMiT throughout,
        document 004 Table 4: ``W_i = (i² − 2i + 9)/4`` for odd i, ``(i² − 2i + 8)/4`` for
        even i).
    rounds
        Number of rounds (>= 1); the result has one window per round, round 0 first.
    whole_acks
        Quick Vegas only: ``False`` gives the fluid ×1.5 per round of Table 1 of
        document 000 (2, 3, 4.5, 6.75, ...); ``True`` counts whole ACKs as a sender does,
        one extra packet per two whole ACKs (2, 3, 4, 6, 9, 13, ...). Vegas's and TCP-Ho's
        tables are already whole numbers.
    indexing
        Vegas only: ``"quick-vegas"`` numbers rounds as Table 1 of document 000 (2, 2, 4,
        4, 8, ...); ``"tcp-ho"`` as Table 3 of document 004, which counts one more initial
        round (2, 2, 2, 4, 4, 8, ...).
    """
    check_choice("algorithm", algorithm, ("vegas", "quick-vegas", "tcp-ho"))
    n = check_int("rounds", rounds, minimum=1)
    check_choice("indexing", indexing, ("quick-vegas", "tcp-ho"))
    if not isinstance(whole_acks, bool):
        raise TypeError(f"whole_acks must be True or False, got {whole_acks!r}")
    i = np.arange(n, dtype=np.float64)
    if algorithm == "vegas":
        j = i if indexing == "quick-vegas" else np.maximum(i - 1.0, 0.0)
        return np.asarray(2.0 ** (np.floor(j / 2.0) + 1.0))
    if algorithm == "tcp-ho":
        odd = (np.arange(n) % 2) == 1
        return np.where(odd, (i * i - 2 * i + 9) / 4.0, (i * i - 2 * i + 8) / 4.0)
    if not whole_acks:
        return np.asarray(2.0 * 1.5**i)
    out = np.empty(n)
    w = 2
    for k in range(n):
        out[k] = w
        w += w // 2
    return out


@dataclass(frozen=True)
class SlowStartExit:
    """Where a flow leaves slow start (see :func:`slow_start_exit`).

    Attributes
    ----------
    round
        Index of the round at whose end Δ > γ is detected (Table 1 numbering).
    window_pkts
        The window of that round (a value of the slow-start table).
    critical_window_pkts
        The fluid critical window W* (:func:`critical_window`).
    exit_window_pkts
        The window after the 1/8 cut, at which congestion avoidance starts.
    time_s
        End of that round, ``(round + 1) d`` (queueing in slow start is negligible
        against d, since W* is of order sqrt(μd)).
    """

    round: int
    window_pkts: float
    critical_window_pkts: float
    exit_window_pkts: float
    time_s: float

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict."""
        return asdict(self)


def slow_start_exit(
    algorithm: str,
    bdp: float,
    rtt_s: float,
    *,
    gamma: float = 1.0,
    rtt: RttKind = "average",
    whole_acks: bool = False,
) -> SlowStartExit:
    """The first growth round whose window reaches the critical window.

    Vegas checks Δ in the round that doubled its window; Quick Vegas grows every round.
    The flow leaves slow start at the end of the first growth round whose window W
    satisfies ``W >= W*`` and cuts its window by 1/8 (document 000 §3.1).

    Parameters
    ----------
    algorithm, gamma, rtt
        As :func:`critical_window`.
    bdp
        μd, packets (scalar).
    rtt_s
        The base RTT d, seconds (only the time of the exit depends on it).
    whole_acks
        As :func:`slow_start_windows`.
    """
    kind = _slow_start_kind(algorithm)
    b = check_positive("bdp", bdp)
    d = check_positive("rtt_s", rtt_s)
    w_star = float(critical_window(kind, b, gamma=gamma, rtt=rtt))
    # enough rounds: windows grow at least x1.5 every two rounds
    n = int(4 * np.ceil(np.log(max(w_star, 2.0)) / np.log(1.5))) + 8
    windows = slow_start_windows(kind, n, whole_acks=whole_acks)
    growth = np.ones(n, dtype=bool)
    if kind == "vegas":
        growth = (np.arange(n) % 2 == 0) & (np.arange(n) >= 2)
    else:
        growth[0] = False
    candidates = np.nonzero(growth & (windows >= w_star))[0]
    r = int(candidates[0])
    w = float(windows[r])
    return SlowStartExit(
        round=r,
        window_pkts=w,
        critical_window_pkts=w_star,
        exit_window_pkts=w * 7.0 / 8.0,
        time_s=(r + 1) * d,
    )
