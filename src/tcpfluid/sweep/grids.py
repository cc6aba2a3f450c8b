"""Grids of sweep points: the lazy product of named parameter lists."""

from __future__ import annotations

import functools
import itertools
import json
import math
import operator
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

__all__ = ["Grid", "Point", "grid"]

Point = dict[str, Any]

_BLOCK = 4096  # points made at once
_BLOCKS_KEPT = 8  # blocks kept (a sweep's chunk of 16,384 points fits)


class Grid(Sequence[Point]):
    """The product of named parameter lists (:func:`grid`): a read-only sequence of points
    made on access, the last axis varying fastest (treat the points as read-only)."""

    __slots__ = ("_axes", "_block", "_len", "_names", "_strides", "_values")

    def __init__(self, axes: Mapping[str, Sequence[Any]]) -> None:
        self._axes = {k: tuple(v) for k, v in axes.items()}
        self._names, self._values = tuple(self._axes), tuple(self._axes.values())
        # block number -> its points, the most recently used kept (a sweep reads a point
        # several times)
        self._block = functools.lru_cache(maxsize=_BLOCKS_KEPT)(self._make)
        sizes = [len(v) for v in self._values]
        self._strides = tuple(math.prod(sizes[k + 1 :]) for k in range(len(sizes)))
        self._len = math.prod(sizes)

    @property
    def axes(self) -> dict[str, tuple[Any, ...]]:
        """The axes: ``{name: values}``."""
        return dict(self._axes)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Point: ...

    @overload
    def __getitem__(self, index: slice) -> list[Point]: ...

    def __getitem__(self, index: int | slice) -> Point | list[Point]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if isinstance(index, bool):
            raise TypeError(f"grid index must be an integer, got {index!r}")
        try:
            i = operator.index(index)
        except TypeError:
            raise TypeError(f"grid index must be an integer, got {index!r}") from None
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError(f"grid index {index} out of range for {self._len} points")
        block, offset = divmod(i, _BLOCK)
        return self._block(block)[offset]

    def _make(self, block: int) -> list[Point]:
        """The points of block ``block`` (vectorised: one index array per axis)."""
        index = np.arange(block * _BLOCK, min((block + 1) * _BLOCK, self._len))
        columns = [self._column(k, index) for k in range(len(self._names))]
        return [dict(zip(self._names, c, strict=True)) for c in zip(*columns, strict=True)]

    def _column(self, k: int, index: NDArray[np.int64]) -> list[Any]:
        """The values of axis ``k`` at the points ``index``."""
        vals = self._values[k]
        arr = np.fromiter(vals, dtype=object, count=len(vals))  # a value may be a list
        out: list[Any] = arr[(index // self._strides[k]) % len(vals)].tolist()
        return out

    def __getstate__(self) -> dict[str, Any]:
        return {"axes": self._axes}

    def __setstate__(self, state: dict[str, Any]) -> None:
        Grid.__init__(self, state["axes"])

    def __iter__(self) -> Iterator[Point]:
        for combo in itertools.product(*self._values):
            yield dict(zip(self._names, combo, strict=True))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Grid):
            return self._axes == other._axes
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == self._len and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={list(v)!r}" for k, v in self._axes.items())
        return f"grid({inner})  # {self._len} points"

    def with_axis(self, name: str, value: Any) -> Grid:
        """This grid with a fixed value ``name=value`` appended (if ``name`` is not an axis)."""
        if name in self._axes:
            return self
        return Grid({**self._axes, name: (value,)})


def _distinct_key(x: Any) -> Any:
    """A hashable stand-in for ``x`` that equal values share (lists, dicts: their JSON)."""
    try:
        hash(x)
    except TypeError:
        return ("unhashable", json.dumps(x, sort_keys=True, default=repr))
    return x


def grid(**axes: Any) -> Grid:
    """The product of named parameter lists ``name=[v1, v2, ...]`` (a scalar: one value), the
    last varying fastest, as a lazy :class:`Grid`; ValueError for no axis, an empty axis or
    a repeated value.

    Examples
    --------
    >>> grid(algorithm=["vegas", "quick-vegas"], rtt=["50ms", "100ms"], cbr="none")[1]
    {'algorithm': 'vegas', 'rtt': '100ms', 'cbr': 'none'}
    """
    if not axes:
        raise ValueError("grid needs at least one axis, got none")
    values: dict[str, tuple[Any, ...]] = {}
    for name, v in axes.items():
        vals = tuple(v) if isinstance(v, list | tuple) else (v,)
        if not vals:
            raise ValueError(f"grid axis {name!r} is empty; give it at least one value")
        seen: set[Any] = set()
        for x in vals:
            key = _distinct_key(x)
            if key in seen:
                raise ValueError(f"grid axis {name!r} repeats the value {x!r}; list it once")
            seen.add(key)
        values[name] = vals
    return Grid(values)
