"""Named, parameterised scenarios: one description consumed by every engine.

A :class:`Scenario` is plain data: links, flows, constant-bit-rate (CBR) sources and a
duration. The packet simulator (:mod:`tcpfluid.sim`) reads the links and the flows' link
lists directly; the round model (:mod:`tcpfluid.fluid`) reads :meth:`Scenario.fluid_view`,
which reduces the topology to one bottleneck :class:`~tcpfluid.path.Path`, the flows'
start/stop times and the schedule of bandwidth taken by cross traffic.

Rates of links and CBR sources are kept in **bits per second** (a property of the wire,
independent of the packet size); the fluid view converts them to packets per second with
the scenario's packet size (data links) or ACK size (ACK links).

Data model
----------
* :class:`Link` - one **direction** of a wire: rate, one-way propagation delay, buffer
  (packets; ``inf`` = never drops) and discipline (``"drop-tail"`` or ``"red"``). A
  full-duplex wire is two links (``"R1-R2"`` and ``"R2-R1"``).
* :class:`FlowSpec` - a TCP connection: the names of the links its data packets cross
  (``forward``) and those its ACKs cross (``reverse``), start/stop times, algorithm name
  (a :func:`tcpfluid.algorithms.get_law` name) and law parameters.
* :class:`CbrSource` - constant-bit-rate cross traffic: rate, start/stop times, links.
* :class:`Scenario` - all of the above plus ``duration_s``, packet and ACK sizes, and the
  parameter values the builder was called with (``params``).

Adding a scenario
-----------------
Write a builder ``def _my_case(p: dict[str, Any]) -> Scenario`` that reads its parameters
from ``p`` (already merged with its defaults; values may be strings with units or numbers)
and register it with one entry in :data:`SCENARIOS`::

    SCENARIOS["my-case"] = ScenarioSpec(
        builder=_my_case,
        defaults={"bandwidth": "10Mbps", "rtt": "50ms", "duration": "60s", ...},
        description="one line for `tcpfluid simulate --help`",
    )

Every key of ``defaults`` can then be overridden with ``build_scenario("my-case", key=v)``
or ``tcpfluid simulate my-case --set key=v``; unknown keys are rejected with the list of
valid ones. Keys that are parameters of the control law (``alpha``, ``beta``, ``gamma``, ...)
should default to ``None`` (the law's own default) and be passed through
:func:`law_params`.

Examples
--------
>>> sc = build_scenario("qv-basic")
>>> view = sc.fluid_view()
>>> round(view.path.bdp, 1), [(c.start_s, c.stop_s) for c in view.cross_traffic]
(626.1, [(80.0, 160.0)])
>>> build_scenario("qv-basic", cbr="none").fluid_view().cross_traffic
()
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from . import units
from ._validation import check_choice, check_int, check_nonnegative, check_positive, check_range
from .path import Path

__all__ = [
    "SCENARIOS",
    "CbrSource",
    "CrossTrafficChange",
    "FlowSpec",
    "FluidView",
    "Link",
    "Scenario",
    "ScenarioSpec",
    "build_scenario",
    "law_params",
    "scenario_names",
]

DISCIPLINES = ("drop-tail", "red")
LAW_PARAMETER_KEYS = ("alpha", "beta", "gamma", "delta")


def _time(name: str, value: Any) -> float:
    """Seconds from a number or string; 0 and ``inf`` accepted."""
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity", "never"):
        return math.inf
    if isinstance(value, int | float) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    return units.time_or_zero(value, name=name)


def _set_interval(owner: Any, kind: str) -> None:
    """Convert ``owner.start_s``/``owner.stop_s`` to seconds in place; ``stop_s > start_s``."""
    start = _time(f"{owner.name}.start", owner.start_s)
    stop = _time(f"{owner.name}.stop", owner.stop_s)
    if stop <= start:
        raise ValueError(
            f"{kind} {owner.name!r}: stop_s must be > start_s, got start_s={start!r}, "
            f"stop_s={stop!r}"
        )
    object.__setattr__(owner, "start_s", start)
    object.__setattr__(owner, "stop_s", stop)


def _int(name: str, value: Any, *, minimum: int) -> int:
    """An integer from a number or a string such as ``"3"``."""
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}") from None
    return check_int(name, value, minimum=minimum)


def _buffer(name: str, value: Any, packet_size_bytes: float) -> float:
    if value is None:
        return math.inf
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity", "none"):
        return math.inf
    if isinstance(value, int | float) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    b = units.packets(value, packet_size_bytes=packet_size_bytes, name=name)
    if b < 1.0:
        raise ValueError(f"{name} must be at least 1 packet (or 'inf'), got {value!r}")
    return b


@dataclass(frozen=True)
class Link:
    """One direction of a wire.

    Attributes
    ----------
    name
        Unique name within the scenario (``"R1-R2"``).
    rate_bps
        Transmission rate, bits/s.
    delay_s
        One-way propagation delay, s (``>= 0``).
    buffer_pkts
        Buffer of the queue feeding the link, packets (``inf``: no loss). A string in bits
        or bytes (``"64 kB"``) is converted with 1000-byte packets: a link does not know
        its scenario's packet size (the scenario builders convert with it), so give
        packets when the packets are of another size.
    discipline
        ``"drop-tail"`` or ``"red"``.
    red
        RED parameters (``min_th``, ``max_th``, ``max_p``, ``w_q``) when the
        discipline is ``"red"``; empty otherwise.
    """

    name: str
    rate_bps: float
    delay_s: float
    buffer_pkts: float = math.inf
    discipline: str = "drop-tail"
    red: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"link name must be a non-empty string, got {self.name!r}")
        object.__setattr__(
            self, "rate_bps", units.bits_per_second(self.rate_bps, name=f"{self.name}.rate")
        )
        object.__setattr__(
            self, "delay_s", units.time_or_zero(self.delay_s, name=f"{self.name}.delay")
        )
        object.__setattr__(
            self, "buffer_pkts", _buffer(f"{self.name}.buffer", self.buffer_pkts, 1000.0)
        )
        check_choice(f"{self.name}.discipline", self.discipline, DISCIPLINES)
        object.__setattr__(self, "red", dict(self.red))

    def red_parameters(self) -> dict[str, Any]:
        """The RED parameters every engine uses, checked, with the defaults filled in.

        Returns ``{"min_th", "max_th", "max_p", "w_q", "gentle"}`` (thresholds in packets;
        ``max_p`` defaults to 0.1, ``w_q`` to 0.002, ``gentle`` to ``False``), or ``{}``
        for a drop-tail link.

        Raises
        ------
        ValueError
            Naming the link: an unknown key, a missing ``min_th``/``max_th``, ``max_th <=
            min_th``, ``max_p`` or ``w_q`` outside ``(0, 1]``.
        TypeError
            A value that is not a number (``gentle``: not a bool).
        """
        if self.discipline != "red":
            return {}
        red = dict(self.red)
        known = {"min_th", "max_th", "max_p", "w_q", "gentle"}
        unknown = sorted(set(red) - known)
        if unknown:
            raise ValueError(
                f"link {self.name!r}: unknown RED parameter(s) {unknown}; accepted: {sorted(known)}"
            )
        if "min_th" not in red or "max_th" not in red:
            raise ValueError(
                f"link {self.name!r}: RED needs min_th and max_th (packets), got {red!r}"
            )
        mn = check_positive(f"{self.name}.red.min_th", red["min_th"])
        mx = check_positive(f"{self.name}.red.max_th", red["max_th"])
        if mx <= mn:
            raise ValueError(
                f"link {self.name!r}: RED max_th must be > min_th, got min_th={mn}, max_th={mx}"
            )
        gentle = red.get("gentle", False)
        if not isinstance(gentle, bool):
            raise TypeError(f"{self.name}.red.gentle must be True or False, got {gentle!r}")
        return {
            "min_th": mn,
            "max_th": mx,
            "max_p": check_range(
                f"{self.name}.red.max_p", red.get("max_p", 0.1), 0.0, 1.0, lo_open=True
            ),
            "w_q": check_range(
                f"{self.name}.red.w_q", red.get("w_q", 0.002), 0.0, 1.0, lo_open=True
            ),
            "gentle": bool(gentle),
        }

    def to_dict(self) -> dict[str, Any]:
        """Plain-number description."""
        return {
            "name": self.name,
            "rate_bps": self.rate_bps,
            "delay_s": self.delay_s,
            "buffer_pkts": None if math.isinf(self.buffer_pkts) else self.buffer_pkts,
            "discipline": self.discipline,
            "red": dict(self.red),
        }


@dataclass(frozen=True)
class FlowSpec:
    """A TCP connection of a scenario.

    Attributes
    ----------
    name
        Unique name (``"S1-D1"``).
    forward, reverse
        Names of the links crossed by data packets and by ACKs, in order.
    start_s, stop_s
        When the source starts and stops sending (``stop_s = inf``: until the end).
    algorithm
        Registry name of the control law (``"vegas"``...); ``None`` until an engine is
        told which law to run (``tcpfluid simulate --algorithm``).
    params
        Law parameters passed to :func:`tcpfluid.algorithms.get_law`.
    """

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

    def to_dict(self) -> dict[str, Any]:
        """Plain description."""
        return {
            "name": self.name,
            "forward": list(self.forward),
            "reverse": list(self.reverse),
            "start_s": self.start_s,
            "stop_s": None if math.isinf(self.stop_s) else self.stop_s,
            "algorithm": self.algorithm,
            "params": dict(self.params),
        }


@dataclass(frozen=True)
class CbrSource:
    """Constant-bit-rate cross traffic (the UDP/CBR flow of document 000 §5.1).

    Attributes
    ----------
    name
        Unique name.
    rate_bps
        Sending rate, bits/s.
    start_s, stop_s
        Active interval ``[start_s, stop_s)``.
    links
        Names of the links it crosses.
    """

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

    def to_dict(self) -> dict[str, Any]:
        """Plain description."""
        return {
            "name": self.name,
            "rate_bps": self.rate_bps,
            "start_s": self.start_s,
            "stop_s": None if math.isinf(self.stop_s) else self.stop_s,
            "links": list(self.links),
        }


@dataclass(frozen=True)
class CrossTrafficChange:
    """Cross traffic seen by the fluid model: ``rate_pps`` taken from the bottleneck.

    ``rate_pps`` is in data packets per second of the scenario's packet size, active over
    ``[start_s, stop_s)``.
    """

    rate_pps: float
    start_s: float
    stop_s: float = math.inf


@dataclass(frozen=True)
class FluidView:
    """What the round model needs: one bottleneck path, flows, cross-traffic schedule.

    Attributes
    ----------
    path
        The bottleneck of the flows' common forward path (μ the smallest forward rate, d from
        all propagation delays and transmission times of data and ACKs, the bottleneck's
        buffer; an ACK-path bottleneck when a reverse link carries fewer ACKs/s than μ).
    flows
        The scenario's flows (all on the same links).
    cross_traffic
        CBR sources crossing the bottleneck, as rates in packets/s.
    duration_s
        Simulated time.
    """

    path: Path
    flows: tuple[FlowSpec, ...]
    cross_traffic: tuple[CrossTrafficChange, ...]
    duration_s: float


@dataclass(frozen=True)
class Scenario:
    """A complete experiment description (see the module docstring)."""

    name: str
    links: tuple[Link, ...]
    flows: tuple[FlowSpec, ...]
    cbr: tuple[CbrSource, ...] = ()
    duration_s: float = 100.0
    packet_size_bytes: float = 1000.0
    ack_size_bytes: float = 40.0
    params: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "links", tuple(self.links))
        object.__setattr__(self, "flows", tuple(self.flows))
        object.__setattr__(self, "cbr", tuple(self.cbr))
        object.__setattr__(self, "duration_s", units.seconds(self.duration_s, name="duration"))
        object.__setattr__(
            self, "packet_size_bytes", units.bytes_(self.packet_size_bytes, name="packet_size")
        )
        object.__setattr__(
            self, "ack_size_bytes", units.bytes_(self.ack_size_bytes, name="ack_size")
        )
        object.__setattr__(self, "params", dict(self.params))
        names = [lk.name for lk in self.links]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"scenario {self.name!r}: duplicate link names {sorted(dup)}")
        if not self.flows:
            raise ValueError(f"scenario {self.name!r} has no flows")
        known = set(names)
        for fl in self.flows:
            for ln in (*fl.forward, *fl.reverse):
                if ln not in known:
                    raise ValueError(
                        f"flow {fl.name!r} uses unknown link {ln!r}; links: {sorted(known)}"
                    )
        for c in self.cbr:
            for ln in c.links:
                if ln not in known:
                    raise ValueError(
                        f"CBR {c.name!r} uses unknown link {ln!r}; links: {sorted(known)}"
                    )

    # ---------------------------------------------------------------- helpers
    def link(self, name: str) -> Link:
        """The link called ``name``."""
        for lk in self.links:
            if lk.name == name:
                return lk
        raise ValueError(f"no link {name!r} in scenario {self.name!r}")

    def base_rtt_s(self, flow: FlowSpec) -> float:
        """The base RTT d of ``flow``, s, from its own links (document 000 eq. 5).

        ``d = τ + Σ_fwd s/X_i + Σ_rev a/X_i``: the propagation delays of its forward and
        reverse links plus the transmission time of a data packet (``s`` bits) on each
        forward link and of an ACK (``a`` bits) on each reverse link. The one computation
        of d every engine's reduction of the scenario uses.
        """
        pkt_bits = 8.0 * self.packet_size_bytes
        ack_bits = 8.0 * self.ack_size_bytes
        fwd = [self.link(n) for n in flow.forward]
        rev = [self.link(n) for n in flow.reverse]
        tau = sum(lk.delay_s for lk in fwd) + sum(lk.delay_s for lk in rev)
        return (
            tau
            + sum(pkt_bits / lk.rate_bps for lk in fwd)
            + sum(ack_bits / lk.rate_bps for lk in rev)
        )

    def with_algorithm(self, algorithm: str, **params: Any) -> Scenario:
        """The same scenario with every flow running ``algorithm``.

        ``params`` are merged over the parameters the builder gave each flow.
        """
        flows = tuple(
            replace(f, algorithm=algorithm, params={**dict(f.params), **params}) for f in self.flows
        )
        return replace(self, flows=flows)

    def fluid_view(self) -> FluidView:
        """Reduce the topology to the one-bottleneck picture of document 000 §4.

        Raises
        ------
        ValueError
            If the flows do not share one bottleneck link with the same base RTT (the round
            model needs flows of equal RTT: access links may differ but must be alike), or
            a CBR source does not cross the bottleneck.
        """
        pkt_bits = 8.0 * self.packet_size_bytes
        ack_bits = 8.0 * self.ack_size_bytes

        def reduce(fl: FlowSpec) -> tuple[float, Link, list[Link]]:
            fwd = [self.link(n) for n in fl.forward]
            rev = [self.link(n) for n in fl.reverse]
            return self.base_rtt_s(fl), _bottleneck(fwd, shared), rev

        # links every flow crosses: among equally slow links the shared one is the bottleneck
        shared = set(self.flows[0].forward).intersection(*(f.forward for f in self.flows[1:]))
        shared_rev = set(self.flows[0].reverse).intersection(*(f.reverse for f in self.flows[1:]))
        first = self.flows[0]
        d, bott, rev = reduce(first)
        rbott0 = _bottleneck(rev, shared_rev).name if rev else None
        for fl in self.flows[1:]:
            d_i, bott_i, rev_i = reduce(fl)
            rbott_i = _bottleneck(rev_i, shared_rev).name if rev_i else None
            if bott_i.name != bott.name or rbott_i != rbott0 or not math.isclose(d_i, d):
                raise ValueError(
                    f"the round model needs flows with one bottleneck and equal base RTT; "
                    f"{first.name!r} (bottleneck {bott.name!r}, d={d:g} s) and {fl.name!r} "
                    f"(bottleneck {bott_i.name!r}, d={d_i:g} s) differ (use --engine packet)"
                )
        mu = bott.rate_bps / pkt_bits
        reverse_bw: float | None = None
        reverse_buf: float | None = None
        if rev:
            rbott = _bottleneck(rev, shared_rev)
            mu_r = rbott.rate_bps / ack_bits
            if mu_r < mu:  # an ACK-path bottleneck (document 003)
                reverse_bw = mu_r
                reverse_buf = None if math.isinf(rbott.buffer_pkts) else rbott.buffer_pkts
        path = Path(
            mu,
            d,
            packet_size=self.packet_size_bytes,
            ack_size=self.ack_size_bytes,
            buffer=None if math.isinf(bott.buffer_pkts) else bott.buffer_pkts,
            reverse_bandwidth=reverse_bw,
            reverse_buffer=reverse_buf,
        )
        cross = []
        for c in self.cbr:
            if bott.name not in c.links:
                raise ValueError(
                    f"CBR {c.name!r} does not cross the bottleneck {bott.name!r}; the round "
                    "model only represents cross traffic at the bottleneck"
                )
            cross.append(CrossTrafficChange(c.rate_bps / pkt_bits, c.start_s, c.stop_s))
        return FluidView(
            path=path, flows=self.flows, cross_traffic=tuple(cross), duration_s=self.duration_s
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain description (JSON-ready)."""
        return {
            "name": self.name,
            "description": self.description,
            "duration_s": self.duration_s,
            "packet_size_bytes": self.packet_size_bytes,
            "ack_size_bytes": self.ack_size_bytes,
            "links": [lk.to_dict() for lk in self.links],
            "flows": [f.to_dict() for f in self.flows],
            "cbr": [c.to_dict() for c in self.cbr],
            "params": {k: _plain(v) for k, v in self.params.items()},
        }


def _bottleneck(links: Sequence[Link], shared: set[str]) -> Link:
    """The slowest link; among equally slow ones, the first shared by every flow."""
    slowest = min(lk.rate_bps for lk in links)
    ties = [lk for lk in links if lk.rate_bps == slowest]
    for lk in ties:
        if lk.name in shared:
            return lk
    return ties[0]


def _plain(v: Any) -> Any:
    if isinstance(v, float) and math.isinf(v):
        return None
    return v


# --------------------------------------------------------------------- registry
@dataclass(frozen=True)
class ScenarioSpec:
    """A registered scenario: its builder, default parameters and a one-line description."""

    builder: Callable[[dict[str, Any]], Scenario]
    defaults: Mapping[str, Any]
    description: str


def law_params(p: Mapping[str, Any]) -> dict[str, Any]:
    """The control-law parameters among builder parameters ``p`` (those not ``None``).

    String values (from ``--set``) are converted to floats.
    """
    out: dict[str, Any] = {}
    for key in LAW_PARAMETER_KEYS:
        v = p.get(key)
        if v is None:
            continue
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise ValueError(f"{key} must be a number, got {v!r}") from None
        out[key] = v
    return out


def _host_pair(
    i: int,
    src_router: str,
    dst_router: str,
    acc_bw: float,
    src_delay: float,
    dst_delay: float,
    p: Mapping[str, Any],
) -> tuple[list[Link], FlowSpec]:
    """Flow ``S{i}-D{i}`` across ``src_router``-``dst_router``: its four access links and spec.

    The source's access wire has one-way delay ``src_delay``, the destination's
    ``dst_delay``; the flow takes the law and parameters of ``p``.
    """
    s, d, a, b = f"S{i}", f"D{i}", src_router, dst_router
    links = [
        Link(f"{s}-{a}", acc_bw, src_delay),
        Link(f"{a}-{s}", acc_bw, src_delay),
        Link(f"{b}-{d}", acc_bw, dst_delay),
        Link(f"{d}-{b}", acc_bw, dst_delay),
    ]
    flow = FlowSpec(
        name=f"{s}-{d}",
        forward=(f"{s}-{a}", f"{a}-{b}", f"{b}-{d}"),
        reverse=(f"{d}-{b}", f"{b}-{a}", f"{a}-{s}"),
        algorithm=p.get("algorithm"),
        params=law_params(p),
    )
    return links, flow


def _scenario(
    name: str,
    p: Mapping[str, Any],
    links: Sequence[Link],
    flows: Sequence[FlowSpec],
    cbr: Sequence[CbrSource] = (),
) -> Scenario:
    """A registered scenario from its parts (duration and sizes read from ``p``)."""
    return Scenario(
        name=name,
        links=tuple(links),
        flows=tuple(flows),
        cbr=tuple(cbr),
        duration_s=units.seconds(p["duration"], name="duration"),
        packet_size_bytes=units.bytes_(p["packet_size"], name="packet_size"),
        ack_size_bytes=units.bytes_(p["ack_size"], name="ack_size"),
        params=dict(p),
        description=SCENARIOS[name].description,
    )


def _access_topology(
    p: Mapping[str, Any],
    *,
    n_flows: int,
    scenario: str,
    description: str,
    cbr: Sequence[tuple[Any, float, float]] = (),
) -> Scenario:
    """Dumbbell of document 000 Fig. 6 / 004 Fig. 4: access links, one R1-R2 wire.

    Sources S_i - R1 - R2 - D_i; each access wire has ``access_bandwidth`` and
    ``access_delay``; R1-R2 has ``bandwidth`` and a one-way delay chosen so that the
    round-trip propagation delay is ``rtt``. CBR sources use their own access wires.
    """
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    acc_d = units.time_or_zero(p["access_delay"], name="access_delay")
    rtt = units.seconds(p["rtt"], name="rtt")
    core_d = rtt / 2.0 - 2.0 * acc_d
    if core_d < 0.0:
        raise ValueError(
            f"rtt={p['rtt']!r} is shorter than the access links' round trip "
            f"(4 x access_delay = {4.0 * acc_d:g} s); give rtt >= {4.0 * acc_d:g} s"
        )
    buf = _buffer("buffer", p["buffer"], pkt)
    links: list[Link] = [
        Link("R1-R2", bw, core_d, buf),
        Link("R2-R1", bw, core_d, buf),
    ]
    flows: list[FlowSpec] = []
    for i in range(1, n_flows + 1):
        pair, flow = _host_pair(i, "R1", "R2", acc_bw, acc_d, acc_d, p)
        links += pair
        flows.append(flow)
    sources: list[CbrSource] = []
    for j, (rate, start, stop) in enumerate(cbr, start=n_flows + 1):
        links += [Link(f"S{j}-R1", acc_bw, acc_d), Link(f"R2-D{j}", acc_bw, acc_d)]
        rate_bps = units.bits_per_second(rate, name="cbr")
        sources.append(
            CbrSource(f"CBR{j}", rate_bps, start, stop, (f"S{j}-R1", "R1-R2", f"R2-D{j}"))
        )
    sc = _scenario(scenario, p, links, flows, sources)
    return replace(sc, description=description)


def _qv_basic(p: dict[str, Any]) -> Scenario:
    """Document 000 §5.1 (and 004 §5.1.2): one flow, 25 Mb/s CBR from 80 s to 160 s."""
    n = _int("flows", p["flows"], minimum=1)
    return _access_topology(
        p,
        n_flows=n,
        scenario="qv-basic",
        description=SCENARIOS["qv-basic"].description,
        cbr=_cbr_schedule(p),
    )


def _cbr_schedule(p: Mapping[str, Any]) -> list[tuple[Any, float, float]]:
    """The ``cbr``/``cbr_start``/``cbr_stop`` parameters as one (rate, start, stop) entry.

    ``cbr`` is a bit rate (``"25Mbps"``), a share of the bottleneck (``"50%"``: the
    documents' "halve the available bandwidth", document 000 §5.2 and 004 §5.1.2) or
    ``"none"``.
    """
    spec = p["cbr"]
    if isinstance(spec, str) and spec.strip().lower() in ("none", "off", "0"):
        return []
    start = _time("cbr_start", p["cbr_start"])
    stop = _time("cbr_stop", p["cbr_stop"])
    check_nonnegative("cbr_start", start)
    if isinstance(spec, str) and spec.strip().endswith("%"):
        try:
            share = float(spec.strip()[:-1])
        except ValueError:
            raise ValueError(f"cbr: cannot parse the share {spec!r}; use e.g. '50%'") from None
        if not 0.0 < share < 100.0:
            raise ValueError(f"cbr share must be in (0%, 100%), got {spec!r}")
        bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
        return [(bw * share / 100.0, start, stop)]
    return [(spec, start, stop)]


#: the registered scenarios, by name
SCENARIOS: dict[str, ScenarioSpec] = {
    "qv-basic": ScenarioSpec(
        builder=_qv_basic,
        defaults={
            "bandwidth": "50Mbps",
            "rtt": "100ms",
            "access_bandwidth": "1Gbps",
            "access_delay": "1ms",
            "buffer": "inf",
            "duration": "240s",
            "cbr": "50%",
            "cbr_start": "80s",
            "cbr_stop": "160s",
            "flows": 1,
            "packet_size": "1000B",
            "ack_size": "40B",
            "algorithm": None,
            "alpha": None,
            "beta": None,
            "gamma": None,
            "delta": None,
        },
        description=(
            "Quick Vegas paper §5.1: 50 Mb/s x 100 ms dumbbell (1 Gb/s 1 ms access links, "
            "48 ms core), 1000-byte packets, CBR of half the bottleneck (25 Mb/s) from 80 s to "
            "160 s (cbr=none: no CBR; cbr=10Mbps or cbr=30% for another rate)"
        ),
    ),
}


def scenario_names() -> tuple[str, ...]:
    """Names of the registered scenarios."""
    return tuple(SCENARIOS)


def build_scenario(name: str, /, **overrides: Any) -> Scenario:
    """Build the scenario registered as ``name`` with some parameters overridden.

    Parameters
    ----------
    name
        One of :func:`scenario_names`.
    **overrides
        Parameter values (numbers or strings with units, as ``--set key=value`` gives).

    Raises
    ------
    ValueError
        Unknown scenario (listing the valid names), unknown parameter (listing the valid
        ones), or a parameter value out of range.
    """
    if not isinstance(name, str) or name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; valid scenarios: {', '.join(SCENARIOS)}")
    spec = SCENARIOS[name]
    unknown = sorted(k for k in overrides if k not in spec.defaults)
    if unknown:
        raise ValueError(
            f"unknown parameter {unknown[0]!r} for scenario {name!r}; valid parameters: "
            f"{', '.join(spec.defaults)}"
        )
    merged = {**dict(spec.defaults), **overrides}
    return spec.builder(merged)


# --------------------------------------------------------------------- more documents' setups
# Builders added with the packet simulator (issue 4). Where a document's figure is missing
# from its text, the defaults marked "ours" are our choice and say so in the description.

_COMMON_DEFAULTS: dict[str, Any] = {
    "packet_size": "1000B",
    "ack_size": "40B",
    "algorithm": None,
    "alpha": None,
    "beta": None,
    "gamma": None,
    "delta": None,
}


def _qv_many_flows(p: dict[str, Any]) -> Scenario:
    """Document 000 §5.3.1: groups of flows joining a 1 Gb/s dumbbell, each active 300 s."""
    n = _int("flows", p["flows"], minimum=1)
    groups = _int("groups", p["groups"], minimum=1)
    if groups > n:
        raise ValueError(f"groups must be <= flows={n}, got groups={groups}")
    interval = _time("group_interval", p["group_interval"])
    active = _time("active", p["active"])
    if active <= 0:
        raise ValueError(f"active must be > 0, got {p['active']!r}")
    sc = _access_topology(
        p, n_flows=n, scenario="qv-many-flows", description=SCENARIOS["qv-many-flows"].description
    )
    flows = []
    for i, fl in enumerate(sc.flows):
        start = (i * groups // n) * interval
        flows.append(replace(fl, start_s=start, stop_s=start + active))
    return replace(sc, flows=tuple(flows))


def _qv_different_rtt(p: dict[str, Any]) -> Scenario:
    """Document 000 §5.3.2: three groups of flows with different RTTs share R3-R4."""
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    per = _int("flows_per_group", p["flows_per_group"], minimum=1)
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    core_d = units.time_or_zero(p["core_delay"], name="core_delay")
    buf = _buffer("buffer", p["buffer"], pkt)
    links: list[Link] = [Link("R3-R4", bw, core_d, buf), Link("R4-R3", bw, core_d, buf)]
    flows: list[FlowSpec] = []
    i = 0
    for key in ("rtt1", "rtt2", "rtt3"):
        rtt = units.seconds(p[key], name=key)
        acc_d = (rtt / 2.0 - core_d) / 2.0
        if acc_d < 0.0:
            raise ValueError(
                f"{key}={p[key]!r} is shorter than the core's round trip (2 x core_delay = "
                f"{2.0 * core_d:g} s)"
            )
        for _ in range(per):
            i += 1
            pair, flow = _host_pair(i, "R3", "R4", acc_bw, acc_d, acc_d, p)
            links += pair
            flows.append(flow)
    return _scenario("qv-different-rtt", p, links, flows)


def _ho_basic(p: dict[str, Any]) -> Scenario:
    """Document 004 §5.1.2: 50 Mb/s x 48 ms trunk, 1000-packet buffer, 25 Mb/s CBR."""
    n = _int("flows", p["flows"], minimum=1)
    return _access_topology(
        p,
        n_flows=n,
        scenario="ho-basic",
        description=SCENARIOS["ho-basic"].description,
        cbr=_cbr_schedule(p),
    )


def _thesis_two_flow(p: dict[str, Any]) -> Scenario:
    """Document 001 ch. 3 Fig. 3.1: S_i -x_i- R1 -1 ms, 1.5 Mb/s- R2 -1 ms- D_i."""
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    n = _int("flows", p["flows"], minimum=1)
    if n > 2:
        raise ValueError(f"flows must be 1 or 2 (the thesis's two connections), got {n}")
    bw = units.bits_per_second(p["bandwidth"], name="bandwidth")
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    core_d = units.time_or_zero(p["core_delay"], name="core_delay")
    dest_d = units.time_or_zero(p["dest_delay"], name="dest_delay")
    buf = _buffer("buffer", p["buffer"], pkt)
    queue = check_choice("queue", p["queue"], ("drop-tail", "red"))
    red: dict[str, float] = {}
    if queue == "red":
        red = {
            "min_th": float(p["red_min"]),
            "max_th": float(p["red_max"]),
            "max_p": float(p["red_max_p"]),
            "w_q": float(p["red_w_q"]),
        }
    links: list[Link] = [
        Link("R1-R2", bw, core_d, buf, discipline=queue, red=red),
        Link("R2-R1", bw, core_d, buf),
    ]
    flows: list[FlowSpec] = []
    for i in range(1, n + 1):
        x = units.time_or_zero(p[f"x{i}"], name=f"x{i}")
        pair, flow = _host_pair(i, "R1", "R2", acc_bw, x, dest_d, p)
        links += pair
        flows.append(flow)
    return _scenario("thesis-two-flow", p, links, flows)


def _asymmetric(p: dict[str, Any]) -> Scenario:
    """Document 003 Fig. 1: forward link μf, reverse (ACK) link μr = μf / k."""
    pkt = units.bytes_(p["packet_size"], name="packet_size")
    ack = units.bytes_(p["ack_size"], name="ack_size")
    k = float(p["k"])
    if not (math.isfinite(k) and k > 0):
        raise ValueError(f"k must be a number > 0 (mu_f / mu_r), got {p['k']!r}")
    fwd_bps = units.bits_per_second(p["bandwidth"], name="bandwidth")
    mu_f = fwd_bps / (8.0 * pkt)
    rev_bps = mu_f / k * 8.0 * ack  # mu_r = mu_f / k ACKs per second
    acc_bw = units.bits_per_second(p["access_bandwidth"], name="access_bandwidth")
    acc_d = units.time_or_zero(p["access_delay"], name="access_delay")
    tf = units.time_or_zero(p["forward_delay"], name="forward_delay")
    tr = units.time_or_zero(p["reverse_delay"], name="reverse_delay")
    bf = _buffer("forward_buffer", p["forward_buffer"], pkt)
    br = _buffer("reverse_buffer", p["reverse_buffer"], pkt)
    links = (
        Link("H1-R1", acc_bw, acc_d),
        Link("R1-R2", fwd_bps, tf, bf),
        Link("R2-H4", acc_bw, acc_d),
        Link("H4-R2", acc_bw, acc_d),
        Link("R2-R1", rev_bps, tr, br),
        Link("R1-H1", acc_bw, acc_d),
    )
    flows = (
        FlowSpec(
            name="H1-H4",
            forward=("H1-R1", "R1-R2", "R2-H4"),
            reverse=("H4-R2", "R2-R1", "R1-H1"),
            algorithm=p.get("algorithm"),
            params=law_params(p),
        ),
    )
    return Scenario(
        name="asymmetric",
        links=links,
        flows=flows,
        duration_s=units.seconds(p["duration"], name="duration"),
        packet_size_bytes=pkt,
        ack_size_bytes=ack,
        params=dict(p),
        description=SCENARIOS["asymmetric"].description,
    )


def _itcp_long_delay(p: dict[str, Any]) -> Scenario:
    """Document 002 §4: one flow over a long-haul X Mb/s backbone between two LANs.

    Checked against the text (§4.1–4.2, Tables 1–2): 622 Mb/s backbone with 110 ms link
    delay, host links "less than 10 ms" (10 ms gives the "large RTT of 260 ms" it quotes),
    100 s (Table 1). Table 2: 155 Mb/s, 200 s, and the values 240–840 ms are RTTs as its
    header says (the text calls them "link delay of backbone"; as one-way delays, RTTs
    520–1720 ms, our iTCP-Vegas ramps end at 73 s, 169 s and after 200 s, not at the
    table's 22–156 s). The LANs are "Gigabit
    Ethernet (IEEE 802.3u)" — 802.3u is 100 Mb/s Fast Ethernet, which could not carry the
    412 Mb/s of Table 1, so 1 Gb/s. Silent: buffer (infinite: no loss is reported) and
    packet size (1000 bytes, as the other documents).
    """
    n = _int("flows", p["flows"], minimum=1)
    return _access_topology(
        p,
        n_flows=n,
        scenario="itcp-long-delay",
        description=SCENARIOS["itcp-long-delay"].description,
    )


SCENARIOS.update(
    {
        "qv-many-flows": ScenarioSpec(
            builder=_qv_many_flows,
            defaults={
                "bandwidth": "1Gbps",
                "rtt": "100ms",
                "access_bandwidth": "1Gbps",
                "access_delay": "1ms",
                "buffer": 1500,
                "flows": 60,
                "groups": 3,
                "group_interval": "100s",
                "active": "300s",
                "duration": "500s",
                **_COMMON_DEFAULTS,
            },
            description=(
                "Quick Vegas paper §5.3.1: 60 flows on a 1 Gb/s x 100 ms dumbbell with "
                "1500-packet buffers, groups of 20 starting at 0, 100 and 200 s, each "
                "active 300 s"
            ),
        ),
        "qv-different-rtt": ScenarioSpec(
            builder=_qv_different_rtt,
            defaults={
                "bandwidth": "1Gbps",
                "access_bandwidth": "1Gbps",
                "core_delay": "5ms",
                "rtt1": "50ms",
                "rtt2": "100ms",
                "rtt3": "200ms",
                "flows_per_group": 20,
                "buffer": 1500,
                "duration": "200s",
                **_COMMON_DEFAULTS,
            },
            description=(
                "Quick Vegas paper §5.3.2: three groups of flows with different RTTs "
                "sharing the R3-R4 bottleneck, 1500-packet drop-tail buffers, 200 s. The "
                "paper's Fig. 15 (rates and delays) is not in its text: the RTTs, core "
                "delay and rates here are ours"
            ),
        ),
        "ho-basic": ScenarioSpec(
            builder=_ho_basic,
            defaults={
                "bandwidth": "50Mbps",
                "rtt": "100ms",
                "access_bandwidth": "1Gbps",
                "access_delay": "1ms",
                "buffer": 1000,
                "duration": "240s",
                "cbr": "50%",
                "cbr_start": "80s",
                "cbr_stop": "160s",
                "flows": 1,
                **_COMMON_DEFAULTS,
            },
            description=(
                "TCP-Ho paper §5.1.2: 50 Mb/s x 48 ms trunk (1 Gb/s 1 ms access links), "
                "1000-packet buffer, CBR of half the bottleneck from 80 s to 160 s; with flows=5, "
                "bandwidth=100Mbps, rtt=50ms, buffer=300 the fairness setup of §5.2.1"
            ),
        ),
        "thesis-two-flow": ScenarioSpec(
            builder=_thesis_two_flow,
            defaults={
                "x1": "1ms",
                "x2": "30ms",
                "flows": 2,
                "bandwidth": "1.5Mbps",
                "access_bandwidth": "10Mbps",
                "core_delay": "1ms",
                "dest_delay": "1ms",
                "buffer": 100,
                "queue": "drop-tail",
                "red_min": 15,
                "red_max": 45,
                "red_max_p": 0.02,
                "red_w_q": 0.002,
                "duration": "100s",
                **_COMMON_DEFAULTS,
            },
            description=(
                "Tsang's thesis ch. 3 Fig. 3.1: two sources sharing a 1.5 Mb/s link; access "
                "delays x1, x2 (x2=30ms gives the 64 ms flow, x2=90ms the 184 ms one), "
                "10 Mb/s access links, 100-packet buffer at R1, queue=drop-tail or red "
                "(thresholds 15/45, 1/linterm = 0.02, w_q = 0.002); flows=1 runs connection "
                "1 alone; duration is ours"
            ),
        ),
        "asymmetric": ScenarioSpec(
            builder=_asymmetric,
            defaults={
                "k": 3,
                "bandwidth": "1.6Mbps",
                "forward_delay": "50ms",
                "reverse_delay": "50ms",
                "forward_buffer": 15,
                "reverse_buffer": 10,
                "access_bandwidth": "10Mbps",
                "access_delay": "0ms",
                "duration": "200s",
                **_COMMON_DEFAULTS,
            },
            description=(
                "Asymmetric-network paper Fig. 1 / Tables I-III: forward link mu_f = 1.6 Mb/s "
                "(200 pkt/s), reverse link mu_r = mu_f / k ACKs/s, 50 ms each way, buffers 15 "
                "packets forward and 10 ACKs back (the paper ran Vegas with alpha=1, beta=3); "
                "host links and duration are ours"
            ),
        ),
        "itcp-long-delay": ScenarioSpec(
            builder=_itcp_long_delay,
            defaults={
                "bandwidth": "622Mbps",
                "rtt": "260ms",
                "access_bandwidth": "1Gbps",
                "access_delay": "10ms",
                "buffer": "inf",
                "flows": 1,
                "duration": "100s",
                **_COMMON_DEFAULTS,
            },
            description=(
                "iTCP-Vegas paper §4: one flow over a 622 Mb/s backbone with 110 ms link "
                "delay between Gigabit-Ethernet LANs (10 ms host links: RTT 260 ms), 100 s; "
                "bandwidth=155Mbps rtt=240ms...840ms duration=200s for its Table 2 (whose "
                "values are RTTs); buffer and packet size are ours (the paper is silent)"
            ),
        ),
    }
)
