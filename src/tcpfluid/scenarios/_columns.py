"""A scenario's links and flows as columns (arrays), read back as
:class:`~tcpfluid.scenarios.Link` and :class:`~tcpfluid.scenarios.FlowSpec` objects when read."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._result_columns import LazySeq

if TYPE_CHECKING:  # pragma: no cover
    from .model import FlowSpec, Link

from ._names import Names

FloatArray = NDArray[np.float64]
T = TypeVar("T")
IntArray = NDArray[np.int64]

#: a law of a scenario's law table: the algorithm's name (``None``: not chosen yet) and
#: its parameters
LawKey = tuple[str | None, Mapping[str, Any]]


def csr(rows: Sequence[Sequence[int]]) -> tuple[IntArray, IntArray]:
    """Compressed-row form ``(ptr, idx)`` of lists of link indices."""
    ptr = np.zeros(len(rows) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(r) for r in rows])
    idx = np.fromiter((k for r in rows for k in r), dtype=np.int64, count=int(ptr[-1]))
    return ptr, idx


def route_sums(ptr: IntArray, idx: IntArray, values: FloatArray) -> FloatArray:
    """Per route, the sum of ``values`` over its links, added left to right from 0 (as
    Python's ``sum`` over the route's list: the same rounding)."""
    n = ptr.size - 1
    lengths = np.diff(ptr)
    longest = int(lengths.max(initial=0))
    out = np.zeros(n)
    for k in range(longest):
        has = lengths > k
        if has.all():
            out = out + values[idx[ptr[:-1] + k]]
        else:
            add = np.zeros(n)
            add[has] = values[idx[ptr[:-1][has] + k]]
            out = out + add
    return out


def on_route(ptr: IntArray, idx: IntArray, link: int) -> NDArray[np.bool_]:
    """Whether each route crosses link ``link``."""
    out = np.zeros(ptr.size - 1, dtype=bool)
    rows = np.repeat(np.arange(ptr.size - 1, dtype=np.int64), np.diff(ptr))  # each entry's route
    out[rows[idx == link]] = True
    return out


def take_routes(ptr: IntArray, idx: IntArray, rows: NDArray[np.intp]) -> tuple[IntArray, IntArray]:
    """The routes ``rows`` (in that order) in compressed-row form."""
    lengths = np.diff(ptr)[rows]
    new_ptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    starts = np.repeat(ptr[:-1][rows] - new_ptr[:-1], lengths)
    return new_ptr, idx[np.arange(int(new_ptr[-1]), dtype=np.int64) + starts]


def _checked(cls: type[T], **values: Any) -> T:
    """A frozen ``cls`` holding ``values`` as they are (already checked)."""
    obj = object.__new__(cls)
    for name, v in values.items():  # one by one: the instances share their keys' table
        object.__setattr__(obj, name, v)
    return obj


class LinkTable:
    """The links as columns: ``names``, ``rate_bps``, ``delay_s``, ``buffer_pkts``, and
    ``special``: index -> ``(discipline, red parameters)`` of the links not plain drop-tail."""

    __slots__ = ("_cache", "buffer_pkts", "delay_s", "names", "rate_bps", "special")

    def __init__(
        self,
        names: Names,
        rate_bps: FloatArray,
        delay_s: FloatArray,
        buffer_pkts: FloatArray,
        special: Mapping[int, tuple[str, Mapping[str, float]]] | None = None,
    ) -> None:
        self.names = names
        self.rate_bps = np.asarray(rate_bps, dtype=np.float64)
        self.delay_s = np.asarray(delay_s, dtype=np.float64)
        self.buffer_pkts = np.asarray(buffer_pkts, dtype=np.float64)
        self.special = dict(special or {})
        self._cache: dict[int, Link] = {}

    def __len__(self) -> int:
        return len(self.names)

    @classmethod
    def from_links(cls, links: Sequence[Link]) -> LinkTable:
        """The table of ``Link`` objects (checked by their own constructor)."""
        t = cls(
            Names([[lk.name for lk in links]]),
            np.array([lk.rate_bps for lk in links], dtype=np.float64),
            np.array([lk.delay_s for lk in links], dtype=np.float64),
            np.array([lk.buffer_pkts for lk in links], dtype=np.float64),
            {
                k: (lk.discipline, dict(lk.red))
                for k, lk in enumerate(links)
                if lk.discipline != "drop-tail" or lk.red
            },
        )
        t._cache.update(enumerate(links))
        return t

    def check(self) -> None:
        """Refuse a rate, delay or buffer out of range (one line naming the link and value)."""
        r, d, b = self.rate_bps, self.delay_s, self.buffer_pkts
        for col, ok, what, accepted in (
            (r, (r > 0) & (r < math.inf), "rate", "a rate > 0 (finite)"),
            (d, (d >= 0) & (d < math.inf), "delay", "a time >= 0 (finite)"),
            (b, b >= 1.0, "buffer", "a buffer >= 1 packet (or inf)"),
        ):
            if not ok.all():
                k = int(np.argmin(ok))
                raise ValueError(f"{self.names[k]}.{what} must be {accepted}, got {col[k]!r}")

    def link(self, k: int) -> Link:
        """Link ``k`` as a :class:`~tcpfluid.scenarios.Link` (made once)."""
        lk = self._cache.get(k)
        if lk is None:
            from .model import Link

            disc, red = self.special.get(k, ("drop-tail", {}))
            lk = self._cache[k] = _checked(
                Link,
                name=self.names[k],
                rate_bps=float(self.rate_bps[k]),
                delay_s=float(self.delay_s[k]),
                buffer_pkts=float(self.buffer_pkts[k]),
                discipline=disc,
                red=dict(red),
            )
        return lk

    def find(self, name: str) -> int:
        """The index of the link called ``name``, or -1."""
        return self.names.find(name)


@dataclass(eq=False, repr=False, slots=True)
class LinkSeq(LazySeq["Link"]):
    """The links of a scenario as :class:`~tcpfluid.scenarios.Link` objects."""

    _what = "link"
    table: LinkTable

    def __len__(self) -> int:
        return len(self.table)

    def _item(self, k: int) -> Link:
        return self.table.link(k)


def law_index(laws: Sequence[LawKey]) -> tuple[tuple[LawKey, ...], IntArray]:
    """The distinct laws of ``laws`` in order of first appearance, and each entry's index
    into them (two laws with the same name and parameters are one)."""
    seen: dict[tuple[Any, ...], int] = {}
    out: list[LawKey] = []
    which = np.empty(len(laws), dtype=np.int64)
    for k, (alg, params) in enumerate(laws):
        items = tuple(sorted(params.items()))
        try:
            hash(items)
        except TypeError:  # an unhashable parameter value: compared by its text
            items = tuple((name, repr(v)) for name, v in items)
        key = (alg, items)
        j = seen.get(key)
        if j is None:
            j = seen[key] = len(out)
            out.append((alg, dict(params)))
        which[k] = j
    return tuple(out), which


def canonical_laws(law: IntArray, laws: Sequence[LawKey]) -> tuple[IntArray, tuple[LawKey, ...]]:
    """``laws[law[i]]`` per flow as distinct laws in order of their first flow, and each
    flow's index into them."""
    distinct, which = law_index(laws)
    if len(distinct) == 1:
        return np.zeros(law.shape, dtype=np.int64), distinct
    law = which[law]
    used, first, inverse = np.unique(law, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[inverse.reshape(-1)], tuple(distinct[int(used[k])] for k in order)


def check_algorithms(
    scenario: str, law: IntArray, laws: Sequence[LawKey], names: Sequence[str], hint: str = ""
) -> None:
    """A ``ValueError`` naming the first flow without an algorithm (``law``: each flow's
    index into ``laws``, which are in the order of their first flow) and how to give one;
    ``hint``: another way beside (:func:`no_algorithm`)."""
    for k, (algorithm, _) in enumerate(laws):
        if algorithm is None:
            raise no_algorithm(scenario, names[int(np.argmax(law == k))], hint)


def no_algorithm(scenario: str, flow: str, hint: str = "") -> ValueError:
    """The one error of a flow without an algorithm, naming the scenario, the flow and how
    to give one (``hint``: another way, where the caller has one)."""
    how = "choose one with Scenario.with_algorithm(name) (tcpfluid simulate --algorithm NAME)"
    return ValueError(
        f"scenario {scenario!r}: flow {flow!r} has no algorithm; {how}"
        + (f" or {hint}" if hint else "")
    )


class FlowTable:
    """The flows as columns: ``names``; routes in compressed-row form (flow ``i`` crosses
    ``fwd_idx[fwd_ptr[i]:fwd_ptr[i + 1]]``, ACKs ``rev_*``); ``start_s``, ``stop_s``; ``law``:
    per flow an index into ``laws``, the distinct ``(algorithm, parameters)``."""

    __slots__ = (
        "_cache", "fwd_idx", "fwd_ptr", "law", "laws", "names", "rev_idx", "rev_ptr", "start_s",
        "stop_s",
    )  # fmt: skip

    def __init__(
        self,
        names: Names,
        fwd: tuple[IntArray, IntArray],
        rev: tuple[IntArray, IntArray],
        start_s: FloatArray,
        stop_s: FloatArray,
        law: IntArray,
        laws: Sequence[LawKey],
    ) -> None:
        self.names = names
        self.fwd_ptr, self.fwd_idx = (np.asarray(a, dtype=np.int64) for a in fwd)
        self.rev_ptr, self.rev_idx = (np.asarray(a, dtype=np.int64) for a in rev)
        self.start_s = np.asarray(start_s, dtype=np.float64)
        self.stop_s = np.asarray(stop_s, dtype=np.float64)
        self.law, self.laws = canonical_laws(np.asarray(law, dtype=np.int64), laws)
        self._cache: dict[int, FlowSpec] = {}

    def __len__(self) -> int:
        return len(self.names)

    def check_algorithms(self, scenario: str, hint: str = "") -> None:
        """A ``ValueError`` naming the first flow without an algorithm (the laws are in the
        order of their first flow) and how to give one; ``hint``: another way beside."""
        check_algorithms(scenario, self.law, self.laws, self.names, hint)

    @classmethod
    def from_flows(cls, flows: Sequence[FlowSpec], find: Callable[[str], int]) -> FlowTable:
        """The table of ``FlowSpec`` objects, their link names looked up with ``find``
        (-1 for an unknown name; the caller names it)."""
        laws, which = law_index([(f.algorithm, f.params) for f in flows])
        fwd = csr([[find(n) for n in f.forward] for f in flows])
        rev = csr([[find(n) for n in f.reverse] for f in flows])
        t = cls(
            Names([[f.name for f in flows]]),
            fwd,
            rev,
            np.array([f.start_s for f in flows], dtype=np.float64),
            np.array([f.stop_s for f in flows], dtype=np.float64),
            which,
            laws,
        )
        t._cache.update(enumerate(flows))
        return t

    def algorithms(self) -> list[str | None]:
        """Each distinct law's algorithm, in the order of :attr:`laws`."""
        return [a for a, _ in self.laws]

    def flow(self, i: int, links: LinkTable) -> FlowSpec:
        """Flow ``i`` as a :class:`~tcpfluid.scenarios.FlowSpec` (made once)."""
        fl = self._cache.get(i)
        if fl is None:
            from .model import FlowSpec

            alg, params = self.laws[int(self.law[i])]
            names, fwd, rev = links.names, self.fwd_ptr, self.rev_ptr
            fl = self._cache[i] = _checked(
                FlowSpec,
                name=self.names[i],
                forward=tuple(names[int(k)] for k in self.fwd_idx[fwd[i] : fwd[i + 1]]),
                reverse=tuple(names[int(k)] for k in self.rev_idx[rev[i] : rev[i + 1]]),
                start_s=float(self.start_s[i]),
                stop_s=float(self.stop_s[i]),
                algorithm=alg,
                params=dict(params),
            )
        return fl

    def with_times(self, start_s: FloatArray, stop_s: FloatArray) -> FlowTable:
        """The same flows with new start and stop times (checked: ``stop > start >= 0``)."""
        start = np.asarray(start_s, dtype=np.float64)
        stop = np.asarray(stop_s, dtype=np.float64)
        check_intervals(self.names, start, stop, "flow")
        return self._with(start, stop, self.law, self.laws)

    def with_laws(self, law: IntArray, laws: Sequence[LawKey]) -> FlowTable:
        """The same flows running ``laws[law[i]]`` (duplicate laws are merged)."""
        return self._with(self.start_s, self.stop_s, law, laws)

    def _with(self, start: Any, stop: Any, law: Any, laws: Sequence[LawKey]) -> FlowTable:
        fwd, rev = (self.fwd_ptr, self.fwd_idx), (self.rev_ptr, self.rev_idx)
        return FlowTable(self.names, fwd, rev, start, stop, law, laws)

    def take(self, rows: NDArray[np.intp]) -> FlowTable:
        """The flows ``rows``, in that order."""
        rows = np.asarray(rows, dtype=np.int64)
        used, law = np.unique(self.law[rows], return_inverse=True)
        return FlowTable(
            self.names.take(rows),
            take_routes(self.fwd_ptr, self.fwd_idx, rows),
            take_routes(self.rev_ptr, self.rev_idx, rows),
            self.start_s[rows],
            self.stop_s[rows],
            law.reshape(-1),
            [self.laws[int(k)] for k in used],
        )


@dataclass(eq=False, repr=False, slots=True)
class FlowSeq(LazySeq["FlowSpec"]):
    """The flows of a scenario as :class:`~tcpfluid.scenarios.FlowSpec` objects."""

    _what = "flow"
    table: FlowTable
    links: LinkTable

    def __len__(self) -> int:
        return len(self.table)

    def _item(self, k: int) -> FlowSpec:
        return self.table.flow(k, self.links)


def check_intervals(names: Sequence[str], start: FloatArray, stop: FloatArray, kind: str) -> None:
    """The one-line error of the first flow whose interval is not ``0 <= start < stop``."""
    bad = ~((start >= 0.0) & (start < math.inf) & (stop > start))
    if bad.any():
        k = int(np.argmax(bad))
        s, e = float(start[k]), float(stop[k])
        if not (s >= 0.0 and s < math.inf):
            raise ValueError(f"{names[k]}.start must be a time >= 0 (finite), got {s!r}")
        raise ValueError(
            f"{kind} {names[k]!r}: stop_s must be > start_s, got start_s={s!r}, stop_s={e!r}"
        )
