"""What a packet-level run returns: per-flow and per-link traces and the run's result.

:class:`FlowTrace` (round records, fixed-interval samples and losses of one flow),
:class:`LinkTrace` (queue, drops, utilization of one link) and :class:`PacketResult` (the
outcome of :func:`tcpfluid.sim.simulate_packets`). :mod:`tcpfluid.sim._collect` builds them
from the compiled loop's arrays.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..scenarios import Scenario
from .summary import PacketSummary, summarise

if TYPE_CHECKING:  # pandas (about 0.25 s to import) only when a frame is asked for
    import pandas as pd

__all__ = ["FlowTrace", "LinkTrace", "PacketResult"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class FlowTrace:
    """What one flow did (all arrays are numpy float64 arrays).

    Round-boundary records (one per round, when the ACK of the round's first packet
    arrives; the Quick Vegas paper §4, the TCP-Ho paper §4):

    ``round_t_s``
        time of the boundary, s;
    ``round_cwnd_pkts``
        window at the end of the round (what the law saw), packets;
    ``round_next_cwnd_pkts``
        window the law set for the next round, packets;
    ``round_rtt_mean_s``, ``round_rtt_min_s``, ``round_rtt_max_s``
        RTT samples of the round (one per ACK that acknowledged new data), s;
    ``round_base_rtt_s``
        BaseRTT, the minimum RTT ever measured, s;
    ``round_delta_pkts``
        Δ = cwnd (1 − BaseRTT/RTT) (the Quick Vegas paper, eq 1), packets;
    ``round_phase``
        the law's phase after the decision (0 slow start, 1 congestion avoidance);
    ``round_ssthresh_pkts``
        the law's ``ssthresh`` state if it has one (``inf`` otherwise).

    Fixed-interval samples (at the result's ``t_s``): ``cwnd_pkts``, ``goodput_pps``
    (in-order delivered packets per second over the preceding interval), ``srtt_s``.

    Losses: ``loss_t_s``, ``loss_kind`` (1 duplicate ACKs/fine-grained check, 2 a
    retransmission lost again, 3 timeout), ``loss_cwnd_before_pkts``,
    ``loss_cwnd_after_pkts``.
    """

    name: str
    algorithm: str
    start_s: float
    stop_s: float
    round_t_s: FloatArray
    round_cwnd_pkts: FloatArray
    round_next_cwnd_pkts: FloatArray
    round_rtt_mean_s: FloatArray
    round_rtt_min_s: FloatArray
    round_rtt_max_s: FloatArray
    round_base_rtt_s: FloatArray
    round_delta_pkts: FloatArray
    round_phase: FloatArray
    round_ssthresh_pkts: FloatArray
    cwnd_pkts: FloatArray
    goodput_pps: FloatArray
    srtt_s: FloatArray
    loss_t_s: FloatArray
    loss_kind: FloatArray
    loss_cwnd_before_pkts: FloatArray
    loss_cwnd_after_pkts: FloatArray
    sent_pkts: int
    delivered_pkts: int
    retransmissions: int
    fast_retransmits: int
    timeouts: int
    acks_sent: int
    base_rtt_s: float

    def to_dict(self) -> dict[str, Any]:
        """Counters and the round trace as plain lists (JSON-ready)."""
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "sent_pkts": self.sent_pkts,
            "delivered_pkts": self.delivered_pkts,
            "retransmissions": self.retransmissions,
            "fast_retransmits": self.fast_retransmits,
            "timeouts": self.timeouts,
            "acks_sent": self.acks_sent,
            "base_rtt_s": None if math.isinf(self.base_rtt_s) else self.base_rtt_s,
            "rounds": int(self.round_t_s.size),
        }

    def to_frame(self) -> pd.DataFrame:
        """The round records as a :class:`pandas.DataFrame`, one row per round boundary."""
        import pandas as pd

        rounds = [f.name for f in fields(self) if f.name.startswith("round_")]
        return pd.DataFrame({n.removeprefix("round_"): getattr(self, n) for n in rounds})


@dataclass(frozen=True, eq=False)
class LinkTrace:
    """What one link did.

    ``queue_pkts`` (packets queued or in transmission at each sample time),
    ``drops`` (cumulative drops at each sample time), ``utilization`` (fraction of the
    link's capacity used over the interval ending at each sample; the first is 0),
    ``red_avg_pkts`` (RED's average queue; 0 for drop-tail). Totals: ``arrivals``,
    ``drops_total``, ``data_drops``, ``max_queue_pkts``, ``bytes_out`` (bytes that left the
    link, all traffic).
    """

    name: str
    rate_bps: float
    queue_pkts: FloatArray
    drops: FloatArray
    utilization: FloatArray
    red_avg_pkts: FloatArray
    arrivals: int
    drops_total: int
    data_drops: int
    max_queue_pkts: int
    bytes_out: float

    def to_dict(self) -> dict[str, Any]:
        """Totals (JSON-ready)."""
        return {
            "name": self.name,
            "arrivals": self.arrivals,
            "drops": self.drops_total,
            "data_drops": self.data_drops,
            "max_queue_pkts": self.max_queue_pkts,
        }

    def to_frame(self, t_s: FloatArray) -> pd.DataFrame:
        """The fixed-interval samples as a :class:`pandas.DataFrame` (``t_s``: the
        result's sample times)."""
        import pandas as pd

        return pd.DataFrame(
            {
                "t_s": t_s,
                "queue_pkts": self.queue_pkts,
                "drops": self.drops,
                "utilization": self.utilization,
                "red_avg_pkts": self.red_avg_pkts,
            }
        )


@dataclass(frozen=True, eq=False)
class PacketResult:
    """The outcome of :func:`simulate_packets`.

    Attributes
    ----------
    scenario
        The scenario that was run.
    t_s
        Times of the fixed-interval samples, s.
    flows, links
        Per-flow and per-link traces, in the scenario's order.
    conservation
        For ``data``, ``ack`` and ``cbr`` packets: ``sent``, ``delivered``, ``dropped``,
        ``in_flight`` (still in a link at the end), and ``conserved``: whether
        sent = delivered + dropped + in flight holds for all three (checked by the engine).
    events
        Events processed by the compiled loop.
    wall_time_s
        Wall-clock time of the run (compilation excluded when cached), s.
    seed
        The seed of the random numbers (RED).
    law_calls, law_time_s
        Calls into the control laws (``on_round`` and ``on_loss``) and the wall-clock time
        spent in Python handling them (included in ``wall_time_s``).
    settle_band_pkts
        Per flow, the settling band of its summary: its law's own limit-cycle amplitude
        (the law object's ``cycle_amplitude_pkts``, :func:`tcpfluid.metrics.settling`), packets.
    """

    scenario: Scenario
    t_s: FloatArray
    flows: tuple[FlowTrace, ...]
    links: tuple[LinkTrace, ...]
    conservation: Mapping[str, Any]
    events: int
    wall_time_s: float
    seed: int
    law_calls: int = 0
    law_time_s: float = 0.0
    settle_band_pkts: tuple[float, ...] = ()

    @cached_property
    def summary(self) -> PacketSummary:
        """Slow-start exit, settling, convergence, utilization, throughput, Jain's index
        (:mod:`tcpfluid.sim.summary`; same public keys as the round model)."""
        return summarise(self)

    @property
    def conserved(self) -> bool:
        """True when every packet is accounted for (sent = delivered + dropped + in flight)."""
        return bool(self.conservation["conserved"])

    @property
    def data_packets(self) -> int:
        """Data packets transmitted by all senders (with retransmissions)."""
        return int(self.conservation["data"]["sent"])

    @property
    def packets_per_s(self) -> float:
        """Simulated data packets per wall-clock second."""
        return self.data_packets / self.wall_time_s if self.wall_time_s > 0 else math.inf

    @property
    def events_per_s(self) -> float:
        """Events per wall-clock second."""
        return self.events / self.wall_time_s if self.wall_time_s > 0 else math.inf

    def flow(self, name: str) -> FlowTrace:
        """The trace of the flow called ``name``."""
        for fl in self.flows:
            if fl.name == name:
                return fl
        raise ValueError(f"no flow {name!r}; flows: {[f.name for f in self.flows]}")

    def link(self, name: str) -> LinkTrace:
        """The trace of the link called ``name``."""
        for lk in self.links:
            if lk.name == name:
                return lk
        raise ValueError(f"no link {name!r}; links: {[lk.name for lk in self.links]}")

    def plot(self, ax: Any = None, *, link: str | None = None) -> list[Any]:
        """Plot every flow's window at its round boundaries and, dashed, the queue of
        ``link`` (default: the summary's bottleneck) against time.

        Returns the artists; the library never calls ``plt.show()``.
        """
        name = self.summary.bottleneck if link is None else link
        lk = self.link(name)
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        artists: list[Any] = []
        for fl in self.flows:
            label = f"{fl.name} ({fl.algorithm}) window"
            artists += ax.plot(fl.round_t_s, fl.round_next_cwnd_pkts, label=label)
        artists += ax.plot(self.t_s, lk.queue_pkts, "k--", label=f"queue ({name})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.legend(loc="best")
        return artists

    def to_frame(self) -> pd.DataFrame:
        """Fixed-interval samples of every flow and link in one wide
        :class:`pandas.DataFrame`: ``t_s``, ``<flow>/cwnd_pkts``, ``<flow>/goodput_pps``,
        ``<link>/queue_pkts``, ``<link>/drops``."""
        cols: dict[str, FloatArray] = {"t_s": self.t_s}
        for fl in self.flows:
            cols[f"{fl.name}/cwnd_pkts"] = fl.cwnd_pkts
            cols[f"{fl.name}/goodput_pps"] = fl.goodput_pps
        for lk in self.links:
            cols[f"{lk.name}/queue_pkts"] = lk.queue_pkts
            cols[f"{lk.name}/drops"] = lk.drops
        import pandas as pd

        return pd.DataFrame(cols)

    def to_dict(self) -> dict[str, Any]:
        """Counters, conservation and run statistics (JSON-ready)."""
        return {
            "scenario": self.scenario.name,
            "flows": [f.to_dict() for f in self.flows],
            "links": [lk.to_dict() for lk in self.links],
            "conservation": {
                k: (dict(v) if isinstance(v, Mapping) else v) for k, v in self.conservation.items()
            },
            "events": self.events,
            "wall_time_s": self.wall_time_s,
            "packets_per_s": self.packets_per_s,
            "events_per_s": self.events_per_s,
            "law_calls": self.law_calls,
            "law_time_s": self.law_time_s,
            "seed": self.seed,
        }
