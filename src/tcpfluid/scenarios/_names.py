"""Names of a scenario's links and flows: explicit lists, or numbered families
(``"S{i}-R1"`` for ``i = 1..n``) spelled out only when read
(:mod:`tcpfluid.scenarios._columns`)."""

from __future__ import annotations

import bisect
import itertools
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from .._validation import item_index


class Family:
    """Numbered names for ``i = first .. first + count - 1``: one per template and ``i``
    (``i`` major). A template is a tuple of literal pieces joined by ``str(i)``:
    ``("S", "-D", "")`` spells ``"S7-D7"``."""

    __slots__ = ("count", "first", "templates")

    def __init__(self, first: int, count: int, templates: Sequence[Sequence[str]]) -> None:
        self.first, self.count = int(first), int(count)
        self.templates = tuple(tuple(t) for t in templates)

    def __len__(self) -> int:
        return self.count * len(self.templates)

    def at(self, k: int) -> str:
        i, j = divmod(k, len(self.templates))
        return str(self.first + i).join(self.templates[j])

    def all(self) -> list[str]:
        text = self.text("\n") if self.count else None
        if text is not None:
            return text.split("\n")
        nums = [str(i) for i in range(self.first, self.first + self.count)]
        return [x.join(t) for x in nums for t in self.templates]

    def text(self, sep: str, *, quoted: bool = False) -> str | None:
        """Every name, in order, separated by ``sep`` (``quoted``: each as its JSON string,
        pieces escaped as :func:`json.dumps` escapes them), spelled as ASCII bytes; ``None``
        when names or ``sep`` are not ASCII, a name holds ``sep`` or ``i`` is negative."""
        pieces = [[json.dumps(p)[1:-1] if quoted else p for p in t] for t in self.templates]
        flat = "".join(p for t in pieces for p in t)
        if self.first < 0 or not (flat + sep).isascii() or (sep and sep in flat):
            return None
        gap, mark = sep.encode(), b'"' if quoted else b""
        out = []
        lo, hi = self.first, self.first + self.count
        while lo < hi:  # the numbers of d digits: rows of constant bytes and digits
            d = len(str(lo))
            top = min(hi, 10**d)
            digits = _digits(lo, top, d)
            row: list[Any] = []
            for t in pieces:
                row.append(mark + t[0].encode())
                for p in t[1:]:
                    row += [digits, p.encode()]
                row.append(mark + gap)
            width = sum(d if isinstance(x, np.ndarray) else len(x) for x in row)
            block = np.empty((top - lo, width), dtype=np.uint8)
            at = 0
            for x in row:
                x = x if isinstance(x, np.ndarray) else np.frombuffer(x, np.uint8)
                block[:, at : at + x.shape[-1]] = x
                at += x.shape[-1]
            out.append(block.data)
            lo = top
        text = b"".join(out)
        return str(memoryview(text)[: len(text) - len(gap)], "ascii")

    def find(self, name: str) -> int:
        """The position of ``name`` in the family, or -1."""
        for j, t in enumerate(self.templates):
            if not name.startswith(t[0]):
                continue
            rest = name[len(t[0]) :]
            digits = len(rest) - len(rest.lstrip("0123456789"))
            x = rest[:digits]
            if x and x[0] != "0" and x.join(t) == name:
                i = int(x) - self.first
                if 0 <= i < self.count:
                    return i * len(self.templates) + j
        return -1


def _digits(lo: int, top: int, d: int) -> NDArray[np.uint8]:
    """The ASCII digits of ``lo .. top - 1`` (``d`` digits each), shape ``(top - lo, d)``:
    the digit of ``10**k`` is ``i // 10**k % 10``, one value per run of ``10**k``
    consecutive ``i``."""
    out = np.empty((top - lo, d), dtype=np.uint8)
    for k in range(d):
        p = 10**k
        q = np.arange(lo // p, (top - 1) // p + 1, dtype=np.int64)
        counts = np.full(q.size, p, dtype=np.int64)
        counts[0] -= lo - q[0] * p
        counts[-1] -= (q[-1] + 1) * p - top
        out[:, d - 1 - k] = np.repeat((q % 10 + 48).astype(np.uint8), counts)
    return out


class Names(Sequence[str]):
    """A sequence of names made of blocks: explicit names and :class:`Family` blocks.

    The names of a family are spelled out only when read; :meth:`index` finds a name
    without spelling the others out.
    """

    __slots__ = ("_all", "_blocks", "_lookup", "_starts")

    def __init__(self, blocks: Sequence[Sequence[str] | Family]) -> None:
        self._blocks: tuple[Sequence[str] | Family, ...] = tuple(
            b if isinstance(b, Family) else tuple(b) for b in blocks if len(b)
        )
        self._starts = [0, *itertools.accumulate(len(b) for b in self._blocks)]
        self._all: list[str] | None = None
        self._lookup: dict[str, int] | None = None

    def __len__(self) -> int:
        return self._starts[-1]

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> list[str]: ...
    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return self.all()[i]
        k = item_index(i, len(self), "name")
        if self._all is not None:
            return self._all[k]
        b = bisect.bisect_right(self._starts, k) - 1
        block = self._blocks[b]
        off = k - self._starts[b]
        return block.at(off) if isinstance(block, Family) else block[off]

    def __iter__(self) -> Iterator[str]:
        return iter(self.all())

    def all(self) -> list[str]:
        """Every name, in order (spelled out once, then kept)."""
        if self._all is None:
            blocks = (b.all() if isinstance(b, Family) else b for b in self._blocks)
            self._all = list(itertools.chain.from_iterable(blocks))
        return self._all

    def index(self, name: Any, start: int = 0, stop: int | None = None) -> int:
        """The position of ``name`` (``ValueError`` if absent)."""
        k = self.find(name)
        if k < 0 or k < start or (stop is not None and k >= stop):
            raise ValueError(f"{name!r} is not a name here")
        return k

    def find(self, name: str) -> int:
        """The position of ``name`` (its first occurrence), or -1."""
        if not isinstance(name, str):
            return -1
        if all(not isinstance(b, Family) for b in self._blocks):
            if self._lookup is None:  # the first occurrence of each name: set last
                names = self.all()
                self._lookup = dict(
                    zip(reversed(names), range(len(names) - 1, -1, -1), strict=True)
                )
            return self._lookup.get(name, -1)
        for b, s in zip(self._blocks, self._starts, strict=False):
            k = b.find(name) if isinstance(b, Family) else (b.index(name) if name in b else -1)
            if k >= 0:
                return s + k
        return -1

    def duplicates(self) -> list[str]:
        """Names given more than once (families never repeat a name of their own)."""
        if len(self._blocks) == 1 and isinstance(self._blocks[0], Family):
            return []
        explicit = Counter(n for b in self._blocks if not isinstance(b, Family) for n in b)
        dup = {nm for nm, count in explicit.items() if count > 1}
        families = [b for b in self._blocks if isinstance(b, Family)]
        # an explicit name that a family also spells
        dup |= {nm for nm in explicit if any(b.find(nm) >= 0 for b in families)}
        seen = set(explicit)
        if len(families) > 1:  # rare: spell them out
            for nm in (n for b in families for n in b.all()):
                if nm in seen:
                    dup.add(nm)
                seen.add(nm)
        return sorted(dup)

    def take(self, idx: NDArray[np.intp]) -> Names:
        """The names at positions ``idx``, in that order."""
        names = self.all()
        return Names([[names[k] for k in idx.tolist()]])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Names | tuple | list):
            return len(self) == len(other) and self.all() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Names({len(self)} names)"
