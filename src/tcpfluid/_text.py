"""Plain-text tables for the command line and assertion messages (standard library only)."""

from __future__ import annotations


def columns(head: list[str], body: list[list[str]]) -> str:
    """Left-aligned text columns two spaces apart, a rule of dashes under the header."""
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
