"""Tolerance: how far a compared value may be from its reference, and why."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Tolerance:
    """How far a value may be from the reference, and why.

    A value v passes against the reference r when ``|v − r| <= abs_tol`` or
    ``|v − r| <= rel * |r|`` or (``factor`` given) ``max(v/r, r/v) <= factor``.

    Attributes
    ----------
    rel
        Relative tolerance (0.1 = 10 %).
    abs_tol
        Absolute tolerance, in the quantity's unit.
    factor
        Ratio tolerance (e.g. 2 for "within one doubling"); ``None``: not used.
    reason
        Why this tolerance (printed with every comparison that uses it).

    Examples
    --------
    >>> t = Tolerance(rel=0.2, reason="slow-start bursts")
    >>> t.passes(110.0, 100.0), t.passes(125.0, 100.0), t.describe()
    (True, False, '±20 %')
    """

    rel: float = 0.0
    abs_tol: float = 0.0
    factor: float | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        for name in ("rel", "abs_tol"):
            v = getattr(self, name)
            if isinstance(v, bool) or not (
                isinstance(v, int | float) and math.isfinite(v) and v >= 0
            ):
                raise ValueError(f"Tolerance.{name} must be a finite number >= 0, got {v!r}")
        if self.factor is not None and (
            isinstance(self.factor, bool)
            or not (isinstance(self.factor, int | float) and self.factor >= 1)
        ):
            raise ValueError(f"Tolerance.factor must be >= 1 or None, got {self.factor!r}")
        if not isinstance(self.reason, str):
            raise TypeError(f"Tolerance.reason must be a string, got {self.reason!r}")

    def passes(self, value: float, reference: float) -> bool:
        """Whether ``value`` is within this tolerance of ``reference``."""
        diff = abs(value - reference)
        if diff <= self.abs_tol or diff <= self.rel * abs(reference):
            return True
        if self.factor is not None and value > 0 and reference > 0:
            return max(value / reference, reference / value) <= self.factor
        return False

    def describe(self) -> str:
        """Short text: ``±10 %``, ``±1``, ``×2``; ``exact`` when all are zero."""
        parts = []
        if self.rel:
            parts.append(f"±{self.rel * 100:g} %")
        if self.abs_tol:
            parts.append(f"±{self.abs_tol:g}")
        if self.factor is not None:
            parts.append(f"×{self.factor:g}")
        return " or ".join(parts) if parts else "exact"

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return asdict(self)
