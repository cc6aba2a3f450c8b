"""JSON text as ``json.dumps(obj, indent=2, allow_nan=False)`` writes it, with long lists
written by the C encoder.

The standard library encodes with its C accelerator only without ``indent``; with it, every
element of every list goes through its pure-Python encoder (about 15 s for a summary of a
million flows). Here a list of plain values (numbers, strings, ``None``, booleans) is one
call of the C encoder whose item separator is the newline and indentation itself, so the
text is the same character for character (tests/test_json_text.py compares them).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["dumps"]

_SCALARS = (str, int, float, bool, type(None))


def dumps(obj: Any, *, indent: int = 2) -> str:
    """``json.dumps(obj, indent=indent, allow_nan=False)``, faster on long lists.

    Raises
    ------
    ValueError
        A NaN or infinite number (as ``allow_nan=False``).
    TypeError
        A value JSON cannot hold.
    """
    parts: list[str] = []
    _encode(obj, 0, indent, parts)
    return "".join(parts)


def _encode(obj: Any, level: int, indent: int, out: list[str]) -> None:
    if isinstance(obj, _SCALARS):
        out.append(json.dumps(obj, allow_nan=False))
    elif isinstance(obj, dict):
        if not obj:
            out.append("{}")
            return
        pad = "\n" + " " * (indent * (level + 1))
        out.append("{")
        first = True
        for k, v in obj.items():
            if not isinstance(k, str):  # a number or the like: the standard encoder's key
                k = next(iter(json.loads(json.dumps({k: 0}))))
            out.append(("" if first else ",") + pad + json.dumps(k) + ": ")
            first = False
            _encode(v, level + 1, indent, out)
        out.append("\n" + " " * (indent * level) + "}")
    elif isinstance(obj, list | tuple):
        if not obj:
            out.append("[]")
            return
        pad = "\n" + " " * (indent * (level + 1))
        if all(isinstance(x, _SCALARS) for x in obj):
            enc = json.JSONEncoder(allow_nan=False, separators=("," + pad, ": "))
            out.append(
                "[" + pad + enc.encode(list(obj))[1:-1] + "\n" + " " * (indent * level) + "]"
            )
            return
        if all(isinstance(x, list | tuple) and not x for x in obj):  # e.g. no change: []s
            out.append("[" + pad + ("," + pad).join(["[]"] * len(obj)))
            out.append("\n" + " " * (indent * level) + "]")
            return
        out.append("[")
        for i, v in enumerate(obj):
            out.append(("" if i == 0 else ",") + pad)
            _encode(v, level + 1, indent, out)
        out.append("\n" + " " * (indent * level) + "]")
    else:  # anything else: as the standard encoder writes it (or its TypeError)
        text = json.dumps(obj, indent=indent, allow_nan=False)
        out.append(text.replace("\n", "\n" + " " * (indent * level)))
