"""The scenario data model: links, flows, constant-bit-rate sources, the scenario (rates in
bits/s; links and flows kept as columns, :mod:`tcpfluid.scenarios._columns`)."""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from .. import units
from .._validation import check_int, check_nonnegative
from ..queueing import DISCIPLINES, check_discipline, red_parameters
from ._columns import FloatArray, FlowSeq, FlowTable, IntArray, LinkSeq, LinkTable, csr, route_sums

if TYPE_CHECKING:  # pragma: no cover
    from .reduction import FluidView

__all__ = ["DISCIPLINES", "CbrSource", "FlowSpec", "Link", "Scenario"]


#: the smallest packet or ACK, bytes: below one byte a link's rate in packets leaves the
#: range the engines and closed forms are built for (1e-300 bytes: 6e306 packets/s at 50 Mb/s)
MIN_SIZE_BYTES = 1.0


def _set_interval(owner: Any, kind: str) -> None:
    """Convert ``owner.start_s``/``owner.stop_s`` to seconds in place; ``stop_s > start_s``."""
    start = units.time_or_inf(owner.start_s, name=f"{owner.name}.start")
    stop = units.time_or_inf(owner.stop_s, name=f"{owner.name}.stop")
    if stop <= start:
        raise ValueError(
            f"{kind} {owner.name!r}: stop_s must be > start_s, got start_s={start!r}, "
            f"stop_s={stop!r}"
        )
    object.__setattr__(owner, "start_s", start)
    object.__setattr__(owner, "stop_s", stop)


def _check_links(name: str, kind: str, links: Sequence[str], lt: LinkTable) -> None:
    for ln in links:
        if lt.find(ln) < 0:
            raise ValueError(f"{kind} {name!r} uses unknown link {ln!r}; links: {sorted(lt.names)}")


#: the most flows a builder makes from one count parameter (:data:`FLOW_COUNT_KEYS`), with
#: the bytes and seconds building takes per flow (docs/your-own-scenario.md)
MAX_FLOWS = 10_000_000
_BYTES_PER_FLOW = 300
_SECONDS_PER_FLOW = 0.5e-6
#: the count parameters bounded by :data:`MAX_FLOWS`
FLOW_COUNT_KEYS = ("flows", "flows_per_group")


def _int(name: str, value: Any, *, minimum: int, maximum: int | None = None) -> int:
    """An integer from a number or a string such as ``"3"``; a flow count
    (:data:`FLOW_COUNT_KEYS`) at most :data:`MAX_FLOWS` unless ``maximum`` says otherwise."""
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}") from None
    n = check_int(name, value, minimum=minimum)
    counts = name in FLOW_COUNT_KEYS
    maximum = MAX_FLOWS if maximum is None and counts else maximum
    if maximum is not None and n > maximum:
        extra = (
            f" (building them alone would take about {n * _BYTES_PER_FLOW / 1e9:.3g} GB "
            f"and {n * _SECONDS_PER_FLOW:.3g} s)"
            if counts
            else ""
        )
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum:,}], got {n:,}{extra}")
    return n


def _real(name: str, value: Any, accepted: str = "a number") -> float:
    """A finite number from a number or a string such as ``"15"`` (``--set``), or a
    ValueError naming ``name``, the value and ``accepted``."""
    try:
        x = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        x = math.nan
    if isinstance(value, bool) or not math.isfinite(x):
        raise ValueError(f"{name} must be {accepted}, got {value!r}")
    return x


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a scenario is built (docs/your-own-scenario.md)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _buffer(name: str, value: Any, packet_size_bytes: float) -> float:
    return units.buffer_pkts(value, packet_size_bytes=packet_size_bytes, name=name)


def _plain(v: Any) -> Any:
    """``v`` JSON-ready: a tuple as a list, a mapping as a dict, an infinite float ``None``."""
    if isinstance(v, float) and math.isinf(v):
        return None
    if isinstance(v, tuple):
        return list(v)
    return dict(v) if isinstance(v, Mapping) else v


class _Plain:
    def to_dict(self) -> dict[str, Any]:
        """Plain description: its fields in order (JSON-ready)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True)
class Link(_Plain):
    """One direction of a wire: ``name`` (unique), ``rate_bps`` (bits/s), ``delay_s``
    (one-way, s), ``buffer_pkts`` (packets, ``inf``: no loss; a size in bytes is converted
    with 1000-byte packets), ``discipline`` (``"drop-tail"`` or ``"red"``) and its ``red``
    parameters (``min_th``, ``max_th``, ``max_p``, ``w_q``)."""

    name: str
    rate_bps: float
    delay_s: float
    buffer_pkts: float = math.inf
    discipline: str = "drop-tail"
    red: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        name = self.name
        if not isinstance(name, str) or not name:
            raise ValueError(f"link name must be a non-empty string, got {name!r}")
        # plain floats already in range are taken as they are; others go through units
        rate, delay, buf = self.rate_bps, self.delay_s, self.buffer_pkts
        if not (type(rate) is float and 0.0 < rate < math.inf):
            object.__setattr__(self, "rate_bps", units.bits_per_second(rate, name=f"{name}.rate"))
        if not (type(delay) is float and 0.0 <= delay < math.inf):
            object.__setattr__(self, "delay_s", units.time_or_zero(delay, name=f"{name}.delay"))
        if not (type(buf) is float and buf >= 1.0):
            object.__setattr__(self, "buffer_pkts", _buffer(f"{name}.buffer", buf, 1000.0))
        if self.discipline != "drop-tail":
            check_discipline(f"{name}.discipline", self.discipline)
        object.__setattr__(self, "red", dict(self.red))

    def red_parameters(self) -> dict[str, Any]:
        """The RED parameters every engine uses, checked, defaults filled in
        (:func:`tcpfluid.queueing.red_parameters`); ``{}`` for a drop-tail link."""
        if self.discipline != "red":
            return {}
        return red_parameters(self.red, link=self.name).to_dict()


@dataclass(frozen=True)
class FlowSpec(_Plain):
    """A TCP connection: ``name``, the links its data (``forward``) and ACKs (``reverse``)
    cross, ``start_s``/``stop_s`` (s; ``inf``: until the end), ``algorithm`` (a law's
    registry name, ``None`` until chosen) and its ``params``."""

    name: str
    forward: tuple[str, ...]
    reverse: tuple[str, ...]
    start_s: float = 0.0
    stop_s: float = math.inf
    algorithm: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "forward", tuple(self.forward))
        object.__setattr__(self, "reverse", tuple(self.reverse))
        if not self.forward:
            raise ValueError(f"flow {self.name!r}: forward must list at least one link")
        _set_interval(self, "flow")
        object.__setattr__(self, "params", dict(self.params))


@dataclass(frozen=True)
class CbrSource(_Plain):
    """Constant-bit-rate cross traffic (the Quick Vegas paper §5.1): ``rate_bps`` (bits/s)
    over ``[start_s, stop_s)`` across ``links``."""

    name: str
    rate_bps: float
    start_s: float
    stop_s: float
    links: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "rate_bps", units.bits_per_second(self.rate_bps, name=f"{self.name}.rate")
        )
        _set_interval(self, "CBR")
        object.__setattr__(self, "links", tuple(self.links))
        if not self.links:
            raise ValueError(f"CBR {self.name!r}: links must list at least one link")


@dataclass(frozen=True)
class Scenario:
    """An experiment: links, flows, CBR sources, ``duration_s``, packet and ACK sizes
    (bytes), the builder's ``params`` and ``notes`` (e.g. flows left out of a short run).

    ``start_spread_s``: the width, s, of the seeded offsets the flows' starts and stops
    were moved by (the key ``start_spread``; 0: none); the run summaries count the starts
    (stops) of one spread as one change (:func:`tcpfluid.metrics.run_changes`)."""

    name: str
    links: Sequence[Link]
    flows: Sequence[FlowSpec]
    cbr: tuple[CbrSource, ...] = ()
    duration_s: float = 100.0
    packet_size_bytes: float = 1000.0
    ack_size_bytes: float = 40.0
    params: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""
    notes: tuple[str, ...] = ()
    start_spread_s: float = 0.0
    _base_rtt: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = field(
        init=False, repr=False, compare=False
    )
    _rtts: list[FloatArray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "notes", tuple(str(n) for n in self.notes))
        object.__setattr__(self, "cbr", tuple(self.cbr))
        object.__setattr__(self, "duration_s", units.seconds(self.duration_s, name="duration"))
        for key, name in (("packet_size_bytes", "packet_size"), ("ack_size_bytes", "ack_size")):
            size = units.bytes_(getattr(self, key), name=name)
            if not size >= MIN_SIZE_BYTES:
                raise ValueError(
                    f"{name} must be at least {MIN_SIZE_BYTES:g} byte, got {size!r} bytes"
                )
            object.__setattr__(self, key, size)
        object.__setattr__(self, "params", dict(self.params))
        object.__setattr__(
            self, "start_spread_s", check_nonnegative("start_spread_s", self.start_spread_s)
        )
        links = self.links
        lt = links.table if isinstance(links, LinkSeq) else LinkTable.from_links(tuple(links))
        dup = lt.names.duplicates()
        if dup:
            raise ValueError(f"scenario {self.name!r}: duplicate link names {dup}")
        object.__setattr__(self, "links", LinkSeq(lt))
        object.__setattr__(self, "_base_rtt", {})
        object.__setattr__(self, "_rtts", [])
        if not isinstance(self.flows, FlowSeq):
            object.__setattr__(self, "flows", tuple(self.flows))  # any iterable of flows
        if not len(self.flows):
            raise ValueError(f"scenario {self.name!r} has no flows")
        if isinstance(self.flows, FlowSeq) and self.flows.links is lt:
            ft = self.flows.table
        else:
            flows = tuple(self.flows)
            ft = FlowTable.from_flows(flows, lt.find)
            if min(ft.fwd_idx.min(initial=0), ft.rev_idx.min(initial=0)) < 0:
                for fl in flows:
                    _check_links(fl.name, "flow", (*fl.forward, *fl.reverse), lt)
        for idx in (ft.fwd_idx, ft.rev_idx):
            if idx.size and not (idx.min() >= 0 and idx.max() < len(lt)):
                raise ValueError(f"scenario {self.name!r}: a flow's route names no link")
        if not np.all(np.diff(ft.fwd_ptr) > 0):
            k = int(np.argmin(np.diff(ft.fwd_ptr) > 0))
            raise ValueError(f"flow {ft.names[k]!r}: forward must list at least one link")
        object.__setattr__(self, "flows", FlowSeq(ft, lt))
        for c in self.cbr:
            _check_links(c.name, "CBR", c.links, lt)

    @property
    def link_table(self) -> LinkTable:
        """The links as columns (:class:`~tcpfluid.scenarios._columns.LinkTable`)."""
        return cast(LinkSeq, self.links).table

    @property
    def flow_table(self) -> FlowTable:
        """The flows as columns (:class:`~tcpfluid.scenarios._columns.FlowTable`)."""
        return cast(FlowSeq, self.flows).table

    def with_flow_table(self, table: FlowTable, **changes: Any) -> Scenario:
        """The same scenario (links, sizes, CBR) with the flows of ``table``."""
        return replace(self, flows=FlowSeq(table, self.link_table), **changes)

    def link(self, name: str) -> Link:
        """The link called ``name``."""
        k = self.link_table.find(name)
        if k < 0:
            raise ValueError(f"no link {name!r} in scenario {self.name!r}")
        return self.link_table.link(k)

    def base_rtt_s(self, flow: FlowSpec) -> float:
        """The base RTT d of ``flow``, s: ``τ + Σ_fwd s/X_i + Σ_rev a/X_i`` over its own links
        (the Quick Vegas paper eq. 5)."""
        key = (flow.forward, flow.reverse)
        d = self._base_rtt.get(key)
        if d is None:  # one computation per route: many flows share a few routes
            fwd = [self.link_table.find(n) for n in flow.forward]
            rev = [self.link_table.find(n) for n in flow.reverse]
            for n, k in zip((*flow.forward, *flow.reverse), (*fwd, *rev), strict=True):
                if k < 0:
                    self.link(n)  # raises, naming it
            d = self._base_rtt[key] = float(self._route_rtts_s(csr([fwd]), csr([rev]))[0])
        return d

    def base_rtts_s(self) -> FloatArray:
        """Every flow's base RTT d, s (:meth:`base_rtt_s`), as an array (computed once)."""
        if not self._rtts:
            ft = self.flow_table
            self._rtts.append(
                self._route_rtts_s((ft.fwd_ptr, ft.fwd_idx), (ft.rev_ptr, ft.rev_idx))
            )
        return self._rtts[0]

    def _route_rtts_s(
        self, fwd: tuple[IntArray, IntArray], rev: tuple[IntArray, IntArray]
    ) -> FloatArray:
        lt = self.link_table
        tau = route_sums(*fwd, lt.delay_s) + route_sums(*rev, lt.delay_s)
        return (
            tau
            + route_sums(*fwd, 8.0 * self.packet_size_bytes / lt.rate_bps)
            + route_sums(*rev, 8.0 * self.ack_size_bytes / lt.rate_bps)
        )

    def with_algorithm(self, algorithm: str, **params: Any) -> Scenario:
        """The same scenario with every flow running ``algorithm`` (``params`` merged over
        each flow's)."""
        ft = self.flow_table
        laws = [(algorithm, {**dict(p), **params}) for _, p in ft.laws]
        out = self.with_flow_table(ft.with_laws(ft.law, laws))
        # the same links, routes and packet sizes: the base RTTs computed so far hold
        out._base_rtt.update(self._base_rtt)
        out._rtts.extend(self._rtts)
        return out

    def without_late_flows(self) -> Scenario:
        """The scenario without the flows that would start at or after its end, with a note
        saying which (``self`` when there are none); ValueError if no flow is left."""
        ft = self.flow_table
        inside = ft.start_s < self.duration_s
        if inside.all():
            return self
        late = np.flatnonzero(~inside)
        if not inside.any():
            raise ValueError(
                f"scenario {self.name!r}: every flow starts at or after the end of the run "
                f"(duration {self.duration_s:g} s, first start {ft.start_s[late[0]]:g} s); "
                "give a longer duration"
            )
        first, last = ft.names[int(late[0])], ft.names[int(late[-1])]
        names = first if late.size == 1 else f"{first} ... {last}"
        note = (
            f"{late.size} of {len(ft)} flows ({names}) would start at or after the "
            f"end of the run ({self.duration_s:g} s) and were left out"
        )
        return self.with_flow_table(ft.take(np.flatnonzero(inside)), notes=(*self.notes, note))

    def fluid_view(self, engine: str | None = "rounds") -> FluidView:
        """:func:`tcpfluid.scenarios.reduction.fluid_view` of this scenario, checked for
        ``engine`` (``None``: not checked); ValueError if ``engine`` cannot model it."""
        from .reduction import fluid_view

        return fluid_view(self, engine)

    def _plain_params(self) -> dict[str, Any]:
        """The ``"params"`` of :meth:`to_dict` (JSON-ready), without describing every flow."""
        return {k: _plain(v) for k, v in self.params.items()}

    def to_dict(self) -> dict[str, Any]:
        """Plain description (JSON-ready)."""
        from .._json import fields_dict

        keys = ("name", "description", "duration_s", "packet_size_bytes", "ack_size_bytes")
        return {
            **fields_dict(self, keys),
            **{k: [x.to_dict() for x in getattr(self, k)] for k in ("links", "flows", "cbr")},
            "params": self._plain_params(),
            "notes": list(self.notes),
        }
