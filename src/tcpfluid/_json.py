"""JSON text as ``json.dumps(obj, indent=2, allow_nan=False)`` writes it, with long lists
written by the C encoder, and columns (:class:`Column`) written from their arrays.

The standard library's C encoder runs only without ``indent`` (with it, a summary of a
million flows takes about 15 s): here a list of plain values is one call of the C encoder
whose item separator is the newline and indentation itself, so the text is the same
character for character (tests/test_json_text.py). A :class:`Column`'s run of equal values
is encoded once and repeated. :func:`dump` writes in pieces once every value is checked.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import KW_ONLY, asdict, dataclass, fields
from typing import IO, Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["Column", "FieldsDict", "dump", "dumps", "fields_dict"]

_SCALARS = (str, int, float, bool, type(None))

#: characters written to a file at once (:func:`dump`)
_WRITE_CHARS = 1 << 24


def fields_dict(
    obj: Any, names: Iterable[str] | None = None, *, none_inf: Iterable[str] = ()
) -> dict[str, Any]:
    """The attributes ``names`` of ``obj`` (default: its dataclass fields, in order) as a
    JSON-ready dict: arrays and tuples as lists, an infinite value of ``none_inf`` as
    ``None`` (as ``None`` is); a name ``"key=attr"`` writes the attribute ``attr`` under ``key``."""
    out: dict[str, Any] = {}
    for name in (f.name for f in fields(obj)) if names is None else names:
        key, _, attr = name.partition("=")
        v = getattr(obj, attr or key)
        if isinstance(v, np.ndarray | tuple):
            v = v.tolist() if isinstance(v, np.ndarray) else list(v)
        out[key] = None if key in none_inf and v is not None and math.isinf(v) else v
    return out


class FieldsDict:
    """A dataclass's :meth:`to_dict`: its fields as :func:`dataclasses.asdict` gives them,
    arrays as lists (JSON-ready)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict (arrays as lists)."""
        fields = asdict(self)  # type: ignore[call-overload]
        return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in fields.items()}


@dataclass(eq=False, repr=False, slots=True)
class Column:
    """A list of plain values kept as an array until it is read (:meth:`tolist`) or
    written (:func:`dumps`): the text is the same either way.

    Parameters
    ----------
    values
        A numeric array, 1-D (a list of numbers) or 2-D (a list of lists), an object array
        of strings and ``None``, or a sequence of strings (a scenario's names).
    nullable
        Numbers only: NaN reads as ``None`` ("did not happen").
    none_inf
        With ``nullable``: so does ``inf`` (a flow that runs to the end).
    integer
        Numbers only: the values read as ``int`` (``None`` for NaN when ``nullable``).
    """

    values: NDArray[Any] | Sequence[str]
    _: KW_ONLY
    nullable: bool = False
    none_inf: bool = False
    integer: bool = False

    def __len__(self) -> int:
        return len(self.values)

    def _numeric(self) -> bool:
        return isinstance(self.values, np.ndarray) and self.values.dtype.kind in "biuf"

    def _plain(self, a: NDArray[Any]) -> list[Any]:
        """The plain values of the rows ``a`` (of :attr:`values`)."""
        if not self._numeric():
            return a.tolist()
        gone = None
        if self.nullable:
            gone = np.isnan(a) | (a == math.inf) if self.none_inf else np.isnan(a)
        if gone is None or not gone.any():
            return (a.astype(np.int64) if self.integer else a).tolist()
        if gone.all():
            return np.full(a.shape, None, dtype=object).tolist()
        out = (
            np.where(gone, 0, a).astype(np.int64).astype(object)
            if self.integer
            else a.astype(object)
        )
        out[gone] = None
        return out.tolist()

    def _runs(self) -> NDArray[np.intp] | None:
        """The first row of each run of equal rows, when runs make a quarter or less of
        the rows (``None``: mostly distinct, or not an array)."""
        a = self.values
        if not isinstance(a, np.ndarray) or a.shape[0] < 64:
            return None
        if a.dtype.kind == "f":  # bits: -0.0 is not 0.0
            a = a.view(np.int64 if a.dtype.itemsize == 8 else np.int32)
        same = a[1:] == a[:-1]
        if same.ndim > 1:
            same = same.all(axis=tuple(range(1, same.ndim)))
        first = np.flatnonzero(np.concatenate([[True], ~same]))
        return first if 4 * first.size <= a.shape[0] else None

    def tolist(self) -> list[Any]:
        """The plain values (nested lists for a 2-D array)."""
        if not isinstance(self.values, np.ndarray):
            return list(self.values)
        first = self._runs()
        if first is None:
            return self._plain(self.values)
        items = self._plain(self.values[first])
        counts = _counts(first, self.values.shape[0])
        out: list[Any] = []
        if len(items) <= 4096:  # few runs: lists of one item each, joined
            for x, c in zip(items, counts.tolist(), strict=True):
                out += [x] * c
        else:
            objs = np.empty(len(items), dtype=object)
            for k, x in enumerate(items):
                objs[k] = x
            out = np.repeat(objs, counts).tolist()
        if self.values.ndim > 1:  # a list of its own per row
            out = list(map(list.copy, out))
        return out

    def _pieces(self, level: int, indent: int) -> list[Any]:
        """The text of the list at nesting ``level``, in pieces (strings and
        :class:`_Repeat`)."""
        n = len(self.values)
        if n == 0:
            return ["[]"]
        pad = "\n" + " " * (indent * (level + 1))
        close = "\n" + " " * (indent * level) + "]"
        text = _names_text(self.values, "," + pad)
        if text is not None:
            return ["[" + pad, text, close]
        first = self._runs()
        a = self.values
        if first is None or not isinstance(a, np.ndarray):
            out: list[Any] = []
            _encode(self.tolist(), level, indent, out)
            return out
        rows = self._plain(a[first])
        if a.ndim == 1:  # scalars: one C call, one token per line
            tokens = _scalar_text(rows, "\n").split("\n")
        else:
            tokens = [dumps(r, indent=indent, level=level + 1) for r in rows]
        counts = _counts(first, n)
        return ["[" + pad, _Repeat(tokens, counts, "," + pad), close]


def _counts(first: NDArray[np.intp], n: int) -> NDArray[np.intp]:
    """The lengths of the runs that start at ``first`` in ``n`` rows."""
    return np.diff(np.append(first, n))


@dataclass(eq=False, repr=False, slots=True)
class _Repeat:
    """Text made of ``tokens[k]`` repeated ``counts[k]`` times, separated by ``sep``."""

    tokens: list[str]
    counts: NDArray[np.intp]
    sep: str

    def blocks(self) -> Iterator[str]:
        """The text in blocks of about :data:`_WRITE_CHARS` characters."""
        sep = self.sep
        size = max(len(t) for t in self.tokens) + len(sep)
        per = max(1, _WRITE_CHARS // size)  # repeats of one token per block
        for k, (tok, c) in enumerate(zip(self.tokens, self.counts.tolist(), strict=True)):
            unit = tok + sep
            last = k == len(self.tokens) - 1
            while c > 0:
                m = min(c, per)
                c -= m
                text = unit * m
                yield text[: -len(sep)] if last and c == 0 else text

    def text(self) -> str:
        """The whole text."""
        return "".join(self.blocks())


def _scalar_text(values: list[Any], sep: str) -> str:
    """The text of a list of plain values without its brackets, items separated by
    ``sep`` (the C encoder's)."""
    enc = json.JSONEncoder(allow_nan=False, separators=(sep, ": "))
    return enc.encode(values)[1:-1]


def _names_text(values: Any, sep: str) -> str | None:
    """The text of a scenario's names whose numbered families are spelled out as bytes
    (:class:`~tcpfluid.scenarios._names.Names`), items separated by ``sep``; ``None``
    for any other value."""
    from .scenarios._names import Family, Names

    if not isinstance(values, Names):
        return None
    blocks = values._blocks
    if not any(isinstance(b, Family) for b in blocks):
        return None
    parts = []
    for b in blocks:
        text = b.text(sep, quoted=True) if isinstance(b, Family) else None
        if text is None:
            text = _scalar_text(list(b.all() if isinstance(b, Family) else b), sep)
        parts.append(text)
    return sep.join(parts)


def dumps(obj: Any, *, indent: int = 2, level: int = 0) -> str:
    """``json.dumps(obj, indent=indent, allow_nan=False)``, faster on long lists, with its
    ValueError (NaN, infinity) and TypeError; a :class:`Column` is written as its list
    (``level``: the nesting level ``obj`` is written at)."""
    parts: list[Any] = []
    _encode(obj, level, indent, parts)
    return "".join(p if isinstance(p, str) else p.text() for p in parts)


def dump(obj: Any, fp: IO[str], *, indent: int = 2) -> None:
    """Write :func:`dumps` of ``obj`` to ``fp``, in pieces, once every value is checked
    (nothing is written if one cannot be)."""
    parts: list[Any] = []
    _encode(obj, 0, indent, parts)
    for p in parts:
        for text in [p] if isinstance(p, str) else p.blocks():
            for a in range(0, len(text), _WRITE_CHARS):
                fp.write(text[a : a + _WRITE_CHARS])


def _encode(obj: Any, level: int, indent: int, out: list[Any]) -> None:
    if isinstance(obj, _SCALARS):
        out.append(json.dumps(obj, allow_nan=False))
    elif isinstance(obj, Column):
        out += obj._pieces(level, indent)
    elif isinstance(obj, dict | list | tuple):
        dict_ = isinstance(obj, dict)
        if not obj:
            out.append("{}" if dict_ else "[]")
            return
        pad = "\n" + " " * (indent * (level + 1))
        if isinstance(obj, dict):
            out.append("{")
            for i, (k, v) in enumerate(obj.items()):
                if not isinstance(k, str):  # a number or the like: the standard encoder's key
                    k = next(iter(json.loads(json.dumps({k: 0}))))
                out.append(("," if i else "") + pad + json.dumps(k) + ": ")
                _encode(v, level + 1, indent, out)
        elif all(isinstance(x, _SCALARS) for x in obj):
            out.append("[" + pad + _scalar_text(list(obj), "," + pad))
        elif all(isinstance(x, list | tuple) and not x for x in obj):  # e.g. no change: []s
            out.append("[" + pad + ("," + pad).join(["[]"] * len(obj)))
        else:
            out.append("[")
            for i, v in enumerate(obj):
                out.append(("," if i else "") + pad)
                _encode(v, level + 1, indent, out)
        out.append("\n" + " " * (indent * level) + ("}" if dict_ else "]"))
    else:  # anything else: as the standard encoder writes it (or its TypeError)
        text = json.dumps(obj, indent=indent, allow_nan=False)
        out.append(text.replace("\n", "\n" + " " * (indent * level)))
