"""The network path a flow sees: bottleneck rate, base RTT, buffers, ACK path.

Symbols follow the Quick Vegas paper §4.1: μ is the bottleneck rate in packets per second,
d the un-congested (base) round-trip time in seconds (eq. 5: :meth:`Path.from_links`) and μd
the bandwidth-delay product in packets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import units

if TYPE_CHECKING:
    from .scenarios import Scenario

__all__ = ["Path"]


def _size(name: str, value: Any) -> float:
    """A packet or ACK size in bytes, at least one byte (as a scenario's)."""
    size = units.bytes_(value, name=name)
    if not size >= 1.0:
        raise ValueError(f"{name} must be at least 1 byte, got {value!r}")
    return size


@dataclass(frozen=True, init=False)
class Path:
    """A path with one bottleneck, optionally with a slow reverse (ACK) link.

    Parameters
    ----------
    bandwidth
        Bottleneck rate μ: packets/s as a number, or a string such as ``"50Mbps"``.
    rtt
        Base round-trip time d (propagation plus transmission, no queueing): seconds or a
        string such as ``"100ms"``. Use :meth:`from_links` to build d from eq. (5).
    packet_size, ack_size
        Data packet and ACK sizes (bytes or ``"1 kB"``); 1000 and 40 bytes by default, as
        in all the documents' simulations.
    buffer
        Bottleneck buffer in packets (``None`` or ``inf``: large enough that nothing is
        lost, the documents' analysis assumption). Strings such as ``"1500 pkts"`` work.
    reverse_bandwidth
        Rate of the ACK path bottleneck: ACKs per second as a number, or a bit rate
        string (``"32kbps"``) converted with ``ack_size``. ``None``: no ACK-path
        bottleneck.
    reverse_buffer
        Buffer of the reverse link in ACKs; only valid with ``reverse_bandwidth``.

    Attributes: ``mu`` (packets/s), ``d`` (s), ``bdp`` (μd, packets) and the sizes and
    buffers in their units. ``path.scenario("vegas", "60s", flows=2)`` is the path as a
    scenario of one link each way that every engine runs (:meth:`scenario`).
    """

    mu: float
    d: float
    packet_size_bytes: float = 1000.0
    ack_size_bytes: float = 40.0
    buffer_pkts: float = math.inf
    reverse_mu: float | None = None
    reverse_buffer_pkts: float | None = None
    tau: float | None = None
    link_rates: tuple[float, ...] = field(default=())

    def __init__(
        self,
        bandwidth: Any,
        rtt: Any,
        *,
        packet_size: Any = 1000,
        ack_size: Any = 40,
        buffer: Any = None,
        reverse_bandwidth: Any = None,
        reverse_buffer: Any = None,
    ) -> None:
        pkt = _size("packet_size", packet_size)
        ack = _size("ack_size", ack_size)
        mu = units.rate_pps(bandwidth, packet_size_bytes=pkt, name="bandwidth")
        d = units.seconds(rtt, name="rtt")
        if not math.isfinite(mu * d):
            raise ValueError(
                f"bandwidth x rtt, the bandwidth-delay product, overflows a float "
                f"({mu:.6g} packets/s x {d:.6g} s); give a smaller bandwidth or rtt"
            )
        buf = units.buffer_pkts(buffer, packet_size_bytes=pkt, name="buffer")
        self._set(mu=mu, d=d, packet_size_bytes=pkt, ack_size_bytes=ack, buffer_pkts=buf)
        self._set(reverse_mu=None, reverse_buffer_pkts=None, tau=None, link_rates=())
        if reverse_bandwidth is not None:
            rmu = units.rate_pps(reverse_bandwidth, packet_size_bytes=ack, name="reverse_bandwidth")
            rbuf = units.buffer_pkts(reverse_buffer, packet_size_bytes=ack, name="reverse_buffer")
            self._set(reverse_mu=rmu, reverse_buffer_pkts=rbuf)
        elif reverse_buffer is not None:
            raise ValueError(
                f"reverse_buffer={reverse_buffer!r} was given without reverse_bandwidth; "
                "give the ACK-path rate too (e.g. reverse_bandwidth='32kbps')"
            )

    def _set(self, **fields: Any) -> None:
        """Set frozen fields (the constructors')."""
        for k, v in fields.items():
            object.__setattr__(self, k, v)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_links(
        cls,
        rates: Sequence[Any],
        propagation_rtt: Any,
        *,
        packet_size: Any = 1000,
        ack_size: Any = 40,
        include_ack_size: bool = True,
        buffer: Any = None,
        reverse_bandwidth: Any = None,
        reverse_buffer: Any = None,
    ) -> Path:
        """Build d from eq. (5) of the Quick Vegas paper: ``d = τ + (1+a) Σ 1/X_i``.

        Parameters
        ----------
        rates
            Transmission rates X_i of the N links of the forward path (packets/s or
            strings such as ``"1Gbps"``); μ is the smallest.
        propagation_rtt
            τ, the total round-trip propagation delay.
        include_ack_size
            ``True`` keeps the factor ``1 + a`` of eq. (5); ``False`` uses the papers'
            approximation ``1 + a ≈ 1``.
        """
        if isinstance(rates, str) or len(rates) == 0:
            raise ValueError(f"rates must be a non-empty list of link rates, got {rates!r}")
        pkt = _size("packet_size", packet_size)
        ack = _size("ack_size", ack_size)
        xs = tuple(
            units.rate_pps(r, packet_size_bytes=pkt, name=f"rates[{i}]")
            for i, r in enumerate(rates)
        )
        tau = units.time_or_zero(propagation_rtt, name="propagation_rtt")
        a = ack / pkt if include_ack_size else 0.0
        d = tau + (1.0 + a) * sum(1.0 / x for x in xs)
        path = cls(
            min(xs),
            d,
            packet_size=pkt,
            ack_size=ack,
            buffer=buffer,
            reverse_bandwidth=reverse_bandwidth,
            reverse_buffer=reverse_buffer,
        )
        path._set(tau=tau, link_rates=xs)
        return path

    @classmethod
    def from_bdp(cls, bdp: Any, rtt: Any, **kwargs: Any) -> Path:
        """A path with bandwidth-delay product ``bdp`` (packets or ``"5000Kb"``) and RTT ``rtt``."""
        pkt = _size("packet_size", kwargs.get("packet_size", 1000))
        b = units.packets(bdp, packet_size_bytes=pkt, name="bdp")
        d = units.seconds(rtt, name="rtt")
        return cls(b / d, d, **kwargs)

    # ------------------------------------------------------------------ derived
    @property
    def bdp(self) -> float:
        """μd, the un-congested bandwidth-delay product in packets."""
        return self.mu * self.d

    @property
    def ack_ratio(self) -> float:
        """a, the ACK size relative to the data packet size."""
        return self.ack_size_bytes / self.packet_size_bytes

    @property
    def bandwidth_bps(self) -> float:
        """Bottleneck rate in bits per second."""
        return self.mu * 8.0 * self.packet_size_bytes

    @property
    def asymmetry(self) -> float:
        """k = μf/μr, the asymmetry factor (the asymmetric-network paper); 0 without an ACK
        bottleneck."""
        return 0.0 if self.reverse_mu is None else self.mu / self.reverse_mu

    @property
    def ack_path_limits(self) -> bool:
        """Is the ACK path the bottleneck (μr < μf: an ACK-path bottleneck that clocks the
        sender below the forward rate, the asymmetric-network paper's k > 1)?"""
        return self.asymmetry > 1.0

    @property
    def effective_rate(self) -> float:
        """min(μf, μr): the rate a window-based sender is ACK-clocked to (the
        asymmetric-network paper)."""
        return self.mu if self.reverse_mu is None else min(self.mu, self.reverse_mu)

    def with_bandwidth(self, bandwidth: Any) -> Path:
        """The same path with another bottleneck rate ``bandwidth`` (as the constructor
        takes it); the base RTT d, the sizes, the buffer and the ACK path are kept. A path
        from :meth:`from_links` keeps its d but not its per-link rates or τ."""
        return Path(
            bandwidth,
            self.d,
            packet_size=self.packet_size_bytes,
            ack_size=self.ack_size_bytes,
            buffer=None if math.isinf(self.buffer_pkts) else self.buffer_pkts,
            reverse_bandwidth=self.reverse_mu,
            reverse_buffer=self.reverse_buffer_pkts,
        )

    def scenario(
        self,
        algorithm: str | None,
        duration: Any,
        *,
        flows: int = 1,
        params: Mapping[str, Any] | None = None,
        name: str = "path",
    ) -> Scenario:
        """This path as a scenario every engine runs: ``flows`` flows (``algorithm`` with
        ``params``, from 0 s for ``duration``) on one forward link (μ, the path's buffer)
        and one reverse link (the ACK path's rate and buffer, or μ's bit rate), each with
        the one-way delay (d − s/X_f − a/X_r)/2, so that a flow's base RTT is d (the Quick
        Vegas paper eq. 5 on one link each way).

        Raises
        ------
        ValueError
            If d is shorter than sending one packet and one ACK (no delay makes that path),
            or ``flows`` is not a positive whole number.
        """
        from .scenarios import FlowSpec, Link, Scenario

        if isinstance(flows, bool) or not isinstance(flows, int) or flows < 1:
            raise ValueError(f"flows must be a whole number >= 1, got {flows!r}")
        rate = self.bandwidth_bps
        ack_rate = rate if self.reverse_mu is None else self.reverse_mu * 8.0 * self.ack_size_bytes
        wire_s = 8.0 * (self.packet_size_bytes / rate + self.ack_size_bytes / ack_rate)
        if not self.d >= wire_s:
            raise ValueError(
                f"rtt: d = {self.d:.6g} s is shorter than sending one packet and one ACK "
                f"({wire_s:.6g} s), so no path of links has it; give rtt >= {wire_s:.6g} s"
            )
        delay = 0.5 * (self.d - wire_s)
        rev_buf = self.reverse_buffer_pkts
        links = (
            Link("forward", rate, delay, self.buffer_pkts),
            Link("reverse", ack_rate, delay, math.inf if rev_buf is None else rev_buf),
        )
        specs = tuple(
            FlowSpec(f"flow-{i + 1}", ("forward",), ("reverse",), algorithm=algorithm,
                     params=params or {})
            for i in range(flows)
        )  # fmt: skip
        return Scenario(
            name,
            links,
            specs,
            duration_s=units.seconds(duration, name="duration"),
            packet_size_bytes=self.packet_size_bytes,
            ack_size_bytes=self.ack_size_bytes,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-number summary (internal units) for JSON output."""
        from ._json import fields_dict

        keys = ("mu_pps=mu", "d_s=d", "bdp_pkts=bdp", "packet_size_bytes", "ack_size_bytes",
                "buffer_pkts", "reverse_mu_pps=reverse_mu", "reverse_buffer_pkts",
                "tau_s=tau")  # fmt: skip
        return fields_dict(self, keys, none_inf=("buffer_pkts", "reverse_buffer_pkts"))

    def __repr__(self) -> str:
        parts = [f"mu={self.mu:g} pkt/s", f"d={self.d:g} s", f"bdp={self.bdp:g} pkts"]
        if not math.isinf(self.buffer_pkts):
            parts.append(f"buffer={self.buffer_pkts:g} pkts")
        if self.reverse_mu is not None:
            parts.append(f"reverse_mu={self.reverse_mu:g} ack/s")
        return f"Path({', '.join(parts)})"
