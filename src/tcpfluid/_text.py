"""Plain-text tables for the command line and assertion messages (standard library only)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def columns(head: Sequence[str], body: Sequence[Sequence[str]]) -> str:
    """Left-aligned text columns two spaces apart, a rule of dashes under the header."""
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cell(x: Any, digits: int = 4) -> str:
    """A value for a table cell: ``-`` for ``None``, a float to ``digits`` significant
    digits, a list or tuple in brackets; an integer of 16 digits or more (beyond what a
    float count resolves) as a float."""
    if x is None:
        return "-"
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**15:
        return f"{float(x):.{digits}g}"
    if isinstance(x, tuple | list):
        return "[" + ", ".join(cell(v, digits) for v in x) + "]"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def number(x: float) -> str:
    """A number with 3-4 significant digits for a table cell: thousands separated above
    1000, one decimal above 100, two above 1, three above 0.01, else 3 significant."""
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    if a >= 0.01:
        return f"{x:.3f}"
    return f"{x:.3g}"
