"""The one reduction of a scenario for the fluid engines (one bottleneck shared by their
flows, the Quick Vegas paper §4: :func:`fluid_view`, which never refuses a scenario), and
what each engine can model (:data:`ENGINE_CAPABILITIES`, :func:`check_engine`)."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..path import Path
from ..queueing import RedParameters, red_parameters
from ._columns import on_route
from .model import CbrSource, FlowSpec, Link, Scenario

__all__ = [
    "ENGINE_CAPABILITIES",
    "Capabilities",
    "CrossTrafficChange",
    "FluidView",
    "bottleneck",
    "check_engine",
    "fluid_view",
]


@dataclass(frozen=True)
class CrossTrafficChange:
    """Cross traffic seen by the fluid models: ``rate_pps`` (data packets/s) taken from the
    bottleneck over ``[start_s, stop_s)``."""

    rate_pps: float
    start_s: float
    stop_s: float = math.inf


@dataclass(frozen=True)
class FluidView:
    """A scenario reduced to one bottleneck: everything the fluid engines need.

    ``path``: μ (packets/s), d (the first flow's base RTT, s), the bottleneck's buffer and
    the ACK-path bottleneck (``reverse_bottleneck``, ``None`` when faster than μ); per flow
    ``base_rtt_s``, ``start_s``, ``stop_s`` (s); the bottleneck's ``discipline`` and ``red``
    parameters; ``cross_traffic``: the CBR sources crossing it, placed when their packets
    reach it on the first flow's clock; ``off_bottleneck_cbr``: the names of the others;
    ``shared``: every flow crosses the bottleneck(s) with no slower link of its own.
    """

    scenario: Scenario
    path: Path
    flows: Sequence[FlowSpec]
    base_rtt_s: tuple[float, ...]
    start_s: tuple[float, ...]
    stop_s: tuple[float, ...]
    bottleneck: str
    reverse_bottleneck: str | None
    discipline: str
    red: RedParameters | None
    cross_traffic: tuple[CrossTrafficChange, ...]
    off_bottleneck_cbr: tuple[str, ...]
    shared: bool
    duration_s: float
    notes: tuple[str, ...] = ()
    #: per flow: the time its first packet takes from the sender to the bottleneck, and its
    #: packets' spacing there (the packet time of its slowest link before it), s
    lead_s: tuple[float, ...] = ()
    spacing_s: tuple[float, ...] = ()
    #: why ``shared`` is false, as the object of "cannot model ..." (``""`` when shared)
    unshared: str = ""

    @functools.cached_property
    def equal_rtt(self) -> bool:
        """Whether every flow has the first flow's base RTT (to rounding: ``math.isclose``)."""
        return bool(_close_to_first(self.base_rtt_s).all())


def same_clock(rtts: NDArray[np.float64], d: Any) -> NDArray[np.bool_]:
    """Which base RTTs ``rtts`` share the round clock of base RTT ``d`` (equal to a relative
    1e-9; ``d`` a number, or an array broadcast against ``rtts``): the one rule for "one
    base RTT" of the fluid view and the fluid engines."""
    # inf - inf only with an infinite RTT: errstate then, as it costs more than the
    # comparison on a sweep's many small scenarios
    finite = np.isfinite(d).all() and np.isfinite(rtts).all()
    with contextlib.nullcontext() if finite else np.errstate(invalid="ignore"):
        return (rtts == d) | (np.abs(rtts - d) <= 1e-9 * np.maximum(np.abs(rtts), np.abs(d)))


def _close_to_first(values: Sequence[float]) -> NDArray[np.bool_]:
    """Per value, whether it shares the first value's round clock (:func:`same_clock`)."""
    d = np.asarray(values, dtype=np.float64)
    return same_clock(d, float(d[0]))


def _bottleneck_index(scenario: Scenario, *, reverse: bool = False) -> int | None:
    ft, lt = scenario.flow_table, scenario.link_table
    ptr, idx = (ft.rev_ptr, ft.rev_idx) if reverse else (ft.fwd_ptr, ft.fwd_idx)
    route = idx[ptr[0] : ptr[1]]
    if route.size == 0:
        return None
    users = np.bincount(idx, minlength=len(lt))
    order = {int(k): i for i, k in enumerate(route.tolist())}
    rate = lt.rate_bps
    return min(order, key=lambda k: (rate[k] / users[k], rate[k], -users[k], order[k]))


def bottleneck(scenario: Scenario, *, reverse: bool = False) -> Link | None:
    """The bottleneck link of ``scenario``: the link of the first flow's forward path
    (``reverse=True``: ACK path; ``None`` if it has none) with the least rate per flow
    crossing it; among equal ones the slowest, then the one crossed by the most flows, then
    the first on the path. (Tsang's thesis's many-flow network: the 10 Mb/s link the N
    flows share, not a flow's 10 x 10/N Mb/s access link.)

    Examples
    --------
    >>> from tcpfluid.scenarios import build_scenario
    >>> bottleneck(build_scenario("qv-basic", flows=3)).name
    'R1-R2'
    """
    k = _bottleneck_index(scenario, reverse=reverse)
    return None if k is None else scenario.link_table.link(k)


def _unshared(scenario: Scenario, bott: int, rbott: int | None) -> str:
    """Why the flows do not all share ``bott`` (and ``rbott``) alone, as the object of
    "cannot model ..." (``""``: every flow crosses them and no slower link of its own)."""
    ft, lt = scenario.flow_table, scenario.link_table
    name = lt.names[bott]
    crosses = on_route(ft.fwd_ptr, ft.fwd_idx, bott)
    if not crosses.all():
        flow = ft.names[int(np.argmin(crosses))]
        return f"flows that do not all cross the bottleneck {name!r} ({flow!r} does not)"
    slowest = np.minimum.reduceat(lt.rate_bps[ft.fwd_idx], ft.fwd_ptr[:-1])
    if (slowest < lt.rate_bps[bott]).any():
        i = int(np.argmin(slowest))
        own = ft.fwd_idx[ft.fwd_ptr[i] : ft.fwd_ptr[i + 1]]
        k = int(own[np.argmin(lt.rate_bps[own])])
        return (
            f"flows with a link of their own slower than the bottleneck {name!r} "
            f"({lt.rate_bps[bott] / 1e6:g} Mb/s): {ft.names[i]!r} crosses {lt.names[k]!r} at "
            f"{lt.rate_bps[k] / 1e6:g} Mb/s"
        )
    if rbott is not None and not on_route(ft.rev_ptr, ft.rev_idx, rbott).all():
        return f"flows whose ACKs do not all cross the ACK-path bottleneck {lt.names[rbott]!r}"
    return ""


def _leads(
    scenario: Scenario, ptr: NDArray[np.intp], idx: NDArray[np.intp], b: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The routes' times to link ``b`` and their packets' spacing there, s (0 for a route
    not crossing it): over the links before ``b`` on each route, the sum of each link's
    delay and transmission time in route order, and the longest transmission time. The
    routes are given as the flow table's columns (``ptr``: each route's start in ``idx``,
    the link indices), one pass for all of them."""
    lt = scenario.link_table
    bits = 8.0 * scenario.packet_size_bytes
    n = ptr.size - 1
    lengths = np.diff(ptr)
    route_of = np.repeat(np.arange(n), lengths)
    pos = np.arange(idx.size) - np.repeat(ptr[:-1], lengths)  # each link's place on its route
    first = np.full(n, idx.size)  # where ``b`` first stands on each route (none: past it)
    at_b = idx == b
    np.minimum.at(first, route_of[at_b], pos[at_b])
    before = pos < first[route_of]
    tx = bits / lt.rate_bps[idx]
    # (summed in route order, one route after another)
    lead = np.asarray(
        np.bincount(route_of, weights=np.where(before, lt.delay_s[idx] + tx, 0.0), minlength=n),
        dtype=np.float64,
    )
    spacing = np.zeros(n)
    np.maximum.at(spacing, route_of[before], tx[before])
    missing = first == idx.size
    lead[missing] = 0.0
    spacing[missing] = 0.0
    return lead, spacing


def _at_bottleneck(scenario: Scenario, c: CbrSource, b: int, lead_s: float) -> CrossTrafficChange:
    """CBR source ``c`` as the fluid engines see it: in packets/s, switched when its packets
    reach link ``b``, on a clock on which a flow's packets reach it ``lead_s`` after sending."""
    lt = scenario.link_table
    route = np.array([lt.find(n) for n in c.links], dtype=np.intp)
    shift = float(_leads(scenario, np.array([0, route.size]), route, b)[0][0]) - lead_s
    return CrossTrafficChange(
        c.rate_bps / (8.0 * scenario.packet_size_bytes),
        max(c.start_s + shift, 0.0),
        c.stop_s + shift,
    )


def peak_cross_rate(rates: Any, starts_s: Any, stops_s: Any, end_s: float) -> Any:
    """The most cross traffic on at once in a run of ``end_s`` seconds: the largest sum of
    the ``rates`` of the sources on at some source's start before ``end_s`` (sources over
    ``[start, stop)``; ``rates`` of shape (sources,) or (sources, scenarios): a float or
    one per scenario)."""
    r = np.asarray(rates, dtype=np.float64)
    a = np.asarray(starts_s, dtype=np.float64)
    b = np.asarray(stops_s, dtype=np.float64)
    out = np.zeros(r.shape[1:])
    for t in np.unique(a[a < end_s]):
        out = np.maximum(out, r[(a <= t) & (b > t)].sum(axis=0))
    return out


def fluid_view(scenario: Scenario, engine: str | None = None) -> FluidView:
    """Reduce ``scenario`` to one bottleneck (:class:`FluidView`), checked for ``engine``
    when given (:func:`check_engine`: ValueError); TypeError for a non-scenario."""
    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    pkt_bits = 8.0 * scenario.packet_size_bytes
    ack_bits = 8.0 * scenario.ack_size_bytes
    lt, ft = scenario.link_table, scenario.flow_table
    b = _bottleneck_index(scenario)
    assert b is not None  # a flow has at least one forward link
    bott = lt.link(b)
    mu = bott.rate_bps / pkt_bits
    r = _bottleneck_index(scenario, reverse=True)
    rb = None if r is None else lt.link(r)
    rbott = rb if rb is not None and rb.rate_bps / ack_bits < mu else None
    d = tuple(scenario.base_rtts_s().tolist())
    path = Path(
        mu,
        d[0],
        packet_size=scenario.packet_size_bytes,
        ack_size=scenario.ack_size_bytes,
        buffer=bott.buffer_pkts,
        reverse_bandwidth=None if rbott is None else rbott.rate_bps / ack_bits,
        reverse_buffer=None if rbott is None else rbott.buffer_pkts,
    )
    on = [c for c in scenario.cbr if bott.name in c.links]
    # the fluid engines queue a flow's packets when it sends them: a CBR change is placed
    # when it reaches the bottleneck, on the first flow's clock (the path's)
    leads_s, spacings_s = _leads(scenario, ft.fwd_ptr, ft.fwd_idx, b)
    lead = float(leads_s[0])  # (the bottleneck is on the first flow's route)
    unshared = _unshared(scenario, b, None if rbott is None else r)
    view = FluidView(
        scenario=scenario,
        path=path,
        flows=scenario.flows,
        base_rtt_s=d,
        start_s=tuple(ft.start_s.tolist()),
        stop_s=tuple(ft.stop_s.tolist()),
        bottleneck=bott.name,
        reverse_bottleneck=None if rbott is None else rbott.name,
        discipline=bott.discipline,
        red=(red_parameters(bott.red, link=bott.name) if bott.discipline == "red" else None),
        # (a source whose last packet reaches the bottleneck before the first flow's clock
        # starts meets no flow's packets there: left out)
        cross_traffic=tuple(
            x for x in (_at_bottleneck(scenario, c, b, lead) for c in on) if x.stop_s > 0.0
        ),
        off_bottleneck_cbr=tuple(c.name for c in scenario.cbr if bott.name not in c.links),
        shared=not unshared,
        unshared=unshared,
        duration_s=scenario.duration_s,
        notes=scenario.notes,
        lead_s=tuple(leads_s.tolist()),
        spacing_s=tuple(spacings_s.tolist()),
    )
    if engine is not None:
        check_engine(view, engine)
    return view


@dataclass(frozen=True)
class Capabilities:
    """What an engine can model (:data:`ENGINE_CAPABILITIES`)."""

    red: bool
    unequal_rtt: bool
    several_bottlenecks: bool
    off_bottleneck_cbr: bool
    #: an ACK-path bottleneck together with RED or flows of unequal base RTT
    ack_path_with_red_or_unequal_rtt: bool = True
    #: CBR taking the whole bottleneck (the fluid queues then grow without bound)
    saturating_cbr: bool = False


_FLUID = Capabilities(
    red=True, unequal_rtt=True, several_bottlenecks=False, off_bottleneck_cbr=False
)
#: engine name -> what it can model (each engine object's ``capabilities``,
#: :mod:`tcpfluid.engines`); :func:`check_engine` refuses the rest
ENGINE_CAPABILITIES: dict[str, Capabilities] = {
    "rounds": replace(_FLUID, ack_path_with_red_or_unequal_rtt=False),
    "ode": _FLUID,
    "hybrid": _FLUID,
    "packet": Capabilities(
        red=True,
        unequal_rtt=True,
        several_bottlenecks=True,
        off_bottleneck_cbr=True,
        saturating_cbr=True,
    ),
}


def check_engine(view: FluidView, engine: str) -> None:
    """ValueError for an unknown ``engine`` or a scenario it cannot model, naming the feature
    and the engines that can (:data:`ENGINE_CAPABILITIES`)."""
    from ..engines import _check_engine  # (the engines import the scenarios)

    cap = ENGINE_CAPABILITIES[_check_engine(engine, ENGINE_CAPABILITIES)]

    def refuse(feature: str, what: str) -> None:
        if not getattr(cap, feature):
            able = ", ".join(e for e, c in ENGINE_CAPABILITIES.items() if getattr(c, feature))
            raise ValueError(f"the {engine} engine cannot model {what}; engines that can: {able}")

    rb = view.reverse_bottleneck
    if view.red is not None:
        refuse("red", f"a RED queue (link {view.bottleneck!r})")
    if not view.shared:
        refuse("several_bottlenecks", view.unshared)
    if not view.equal_rtt:
        i, d = int(np.argmin(_close_to_first(view.base_rtt_s))), view.base_rtt_s
        what = f"{view.flows[0].name!r}: {d[0]:g} s, {view.flows[i].name!r}: {d[i]:g} s"
        refuse("unequal_rtt", f"flows of unequal base RTT ({what})")
    if rb is not None and (view.red is not None or not view.equal_rtt):
        what = "a RED queue" if view.red is not None else "flows of unequal base RTT"
        what = f"an ACK-path bottleneck ({rb!r}) together with {what}"
        refuse("ack_path_with_red_or_unequal_rtt", what)
    if view.off_bottleneck_cbr:
        cbr = ", ".join(view.off_bottleneck_cbr)
        what = f"CBR sources that do not cross the bottleneck {view.bottleneck!r} ({cbr})"
        refuse("off_bottleneck_cbr", what)
    x = view.cross_traffic
    top = float(
        peak_cross_rate(
            [c.rate_pps for c in x], [c.start_s for c in x], [c.stop_s for c in x],
            view.duration_s,
        )
    )  # fmt: skip
    if top >= view.path.mu:
        what = (
            f"CBR taking the whole bottleneck {view.bottleneck!r}: up to {top:g} of its "
            f"{view.path.mu:g} packets/s (the [[cbr]] rates must sum to less than its rate)"
        )
        refuse("saturating_cbr", what)
