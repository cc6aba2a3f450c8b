"""Queue disciplines of a link: drop-tail and RED, with ONE set of RED defaults.

RED (Floyd and Jacobson 1993; Tsang's thesis, ch. 2 §6) drops an arriving packet with a
probability that depends on an exponentially weighted average of the queue:

* ``min_th_pkts``, ``max_th_pkts``: thresholds on the averaged queue, packets (required:
  they depend on the buffer and the rate, and no default fits every link);
* ``max_p``: the drop probability reached at ``max_th`` (ns-2's ``1/linterm_``; default
  :data:`RED_DEFAULTS` ``["max_p"] = 0.1``, ns-2's ``linterm_ = 10``);
* ``w_q``: weight of the average per packet arrival (default 0.002, ns-2's ``q_weight_``);
* ``gentle``: ``False`` (default, classic RED): every packet is dropped once the average
  exceeds ``max_th``; ``True``: the probability rises from ``max_p`` to 1 between ``max_th``
  and ``2 max_th``.

Examples
--------
>>> red = red_parameters({"min_th": 15, "max_th": 45})
>>> red.max_p, red.w_q, red.gentle
(0.1, 0.002, False)
>>> float(red_drop_probability(30.0, red))
0.05
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import astuple, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._validation import check_choice, check_positive, check_range

__all__ = [
    "DISCIPLINES",
    "RED_DEFAULTS",
    "RED_KEYS",
    "RedParameters",
    "check_discipline",
    "red_drop_probability",
    "red_parameters",
]

#: the queue disciplines a link may have
DISCIPLINES: tuple[str, ...] = ("drop-tail", "red")
#: the RED parameters a link may set (thresholds in packets)
RED_KEYS: tuple[str, ...] = ("min_th", "max_th", "max_p", "w_q", "gentle")
#: the defaults of the optional RED parameters (ns-2's: ``linterm_ = 10``, ``q_weight_``)
RED_DEFAULTS: Mapping[str, Any] = {"max_p": 0.1, "w_q": 0.002, "gentle": False}


def check_discipline(name: str, value: Any) -> str:
    """``value`` if it is one of :data:`DISCIPLINES`, else a ``ValueError`` naming ``name``."""
    return check_choice(name, value, DISCIPLINES)


@dataclass(frozen=True)
class RedParameters:
    """Checked RED parameters (module docstring); build them with :func:`red_parameters`."""

    min_th_pkts: float
    max_th_pkts: float
    max_p: float = RED_DEFAULTS["max_p"]
    w_q: float = RED_DEFAULTS["w_q"]
    gentle: bool = RED_DEFAULTS["gentle"]

    def to_dict(self) -> dict[str, Any]:
        """The link-level keys (``min_th``, ``max_th``, ``max_p``, ``w_q``, ``gentle``)."""
        return dict(zip(RED_KEYS, astuple(self), strict=True))

    def probability(self, avg_queue_pkts: Any) -> NDArray[np.float64]:
        """:func:`red_drop_probability` at the averaged queue ``avg_queue_pkts``."""
        return red_drop_probability(avg_queue_pkts, self)


def red_parameters(red: Mapping[str, Any], *, link: str | None = None) -> RedParameters:
    """Check a link's RED mapping and fill in :data:`RED_DEFAULTS`.

    ``red``: :data:`RED_KEYS` (module docstring); ``link`` names the link in the messages.

    Raises a ValueError for an unknown key, a missing threshold, ``max_th <= min_th``,
    ``max_p`` or ``w_q`` outside ``(0, 1]``; a TypeError for a value of the wrong type.
    """
    where = "RED" if link is None else f"link {link!r}"
    name = "red" if link is None else f"{link}.red"
    unknown = sorted(set(red) - set(RED_KEYS))
    if unknown:
        raise ValueError(
            f"{where}: unknown RED parameter(s) {unknown}; accepted: {sorted(RED_KEYS)}"
        )
    if "min_th" not in red or "max_th" not in red:
        raise ValueError(f"{where}: RED needs min_th and max_th (packets), got {dict(red)!r}")
    mn = check_positive(f"{name}.min_th", red["min_th"])
    mx = check_positive(f"{name}.max_th", red["max_th"])
    if mx <= mn:
        raise ValueError(f"{where}: RED max_th must be > min_th, got min_th={mn}, max_th={mx}")
    r = {**RED_DEFAULTS, **red}
    if not isinstance(r["gentle"], bool):
        raise TypeError(f"{name}.gentle must be True or False, got {r['gentle']!r}")
    p, w = (check_range(f"{name}.{k}", r[k], 0.0, 1.0, lo_open=True) for k in ("max_p", "w_q"))
    return RedParameters(mn, mx, max_p=p, w_q=w, gentle=r["gentle"])


def red_drop_probability(avg_queue_pkts: Any, red: RedParameters) -> NDArray[np.float64]:
    """RED's drop probability at the averaged queue ``avg_queue_pkts`` (any shape): the
    compiled law every engine uses (:func:`tcpfluid._queueing_kernel.red_probability`),
    classic RED's jump at ``max_th`` written as a ramp one packet wide (the fluid models').

    Examples
    --------
    >>> red = RedParameters(15.0, 45.0, max_p=0.02)
    >>> [round(float(p), 4) for p in red_drop_probability([10.0, 30.0, 45.5, 50.0], red)]
    [0.0, 0.01, 0.51, 1.0]
    """
    from ._queueing_kernel import red_probabilities

    qa = np.asarray(avg_queue_pkts, dtype=np.float64)
    p = red_probabilities(
        qa.ravel(), red.min_th_pkts, red.max_th_pkts, red.max_p, bool(red.gentle), 1.0
    )
    return np.asarray(p.reshape(qa.shape), dtype=np.float64)
