"""The packet simulator as an engine: :class:`Packet`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..fluid.ode import Inactive
from ..metrics.summary import traced_flow_record
from ..sim import simulate_packets
from ..sim._checks import check_options, trace_interval
from ..sim._results import own_keys
from ..sim.engine import MAX_SAMPLES, MAX_TRACE_VALUES
from ._base import Engine, bottleneck_name, summary_of, traced_log
from ._ode import _defaults

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result
    from ..scenarios import Scenario

_PACKET = _defaults(simulate_packets)


@dataclass(frozen=True, kw_only=True)
class Packet(Engine):
    """The packet simulator (:func:`tcpfluid.sim.simulate_packets`): FIFO links, ACK-clocked
    senders, the same law objects deciding at each sender's round boundaries.

    Attributes
    ----------
    seed
        Seed of the random generator (RED's drops, the send overheads), an integer
        >= 0. Same seed, same run.
    delayed_ack, delayed_ack_echo, delack_timeout_s, min_rto_s, initial_rto_s, max_rto_s,
    fine_retransmit, send_overhead_s, start_delay_s, timeout_recover, fast_recovery,
    red_wait, ns2_vegas_timing, ns2_vegas_base_reset, ns2_vegas_agent_delta,
    ns2_vegas_integer_delta, ns2_vegas_growth_check, max_packets, laws
        The simulator's options of the same names (``None``: its defaults);
        ``delayed_ack``, ``fast_recovery`` and ``start_delay_s`` are one value for every
        receiver or sender, or a tuple of one per flow (its length is checked against the
        scenario's flows when the run starts).
    record_interval_s, record
        The recording (:class:`Engine`; ``None``: 0.1 s, or coarser for long runs);
        ``record`` picks among ``queue_pkts``, ``throughput_pps``, ``utilization``.

    Examples
    --------
    >>> Packet(seed=-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be >= 0, got -1
    """

    name: ClassVar[str] = "packet"
    recordable: ClassVar[tuple[str, ...]] = ("queue_pkts", "throughput_pps", "utilization")
    stochastic: ClassVar[bool] = True
    granularity: ClassVar[str] = "packet"
    #: 5,000 and 20,000 Vegas flows on a 1 Gb/s link for 0.3 s: about 35 kB and 10 ms of
    #: work per flow and simulated second (on a loaded 2-core machine)
    max_flows: ClassVar[int | None] = 200_000
    flow_cost: ClassVar[tuple[float, float]] = (35e3, 10e-3)

    seed: int = _PACKET["seed"]
    delayed_ack: bool | tuple[bool, ...] = _PACKET["delayed_ack"]
    delayed_ack_echo: str = _PACKET["delayed_ack_echo"]
    delack_timeout_s: float | None = _PACKET["delack_timeout_s"]
    min_rto_s: float | None = _PACKET["min_rto_s"]
    initial_rto_s: float | None = _PACKET["initial_rto_s"]
    max_rto_s: float | None = _PACKET["max_rto_s"]
    fine_retransmit: bool | None = _PACKET["fine_retransmit"]
    send_overhead_s: float = _PACKET["send_overhead_s"]
    start_delay_s: float | tuple[float, ...] = _PACKET["start_delay_s"]
    timeout_recover: bool = _PACKET["timeout_recover"]
    fast_recovery: str | tuple[str, ...] = _PACKET["fast_recovery"]
    red_wait: bool = _PACKET["red_wait"]
    ns2_vegas_timing: bool = _PACKET["ns2_vegas_timing"]
    ns2_vegas_base_reset: bool = _PACKET["ns2_vegas_base_reset"]
    ns2_vegas_agent_delta: bool = _PACKET["ns2_vegas_agent_delta"]
    ns2_vegas_integer_delta: bool = _PACKET["ns2_vegas_integer_delta"]
    ns2_vegas_growth_check: bool = _PACKET["ns2_vegas_growth_check"]
    max_packets: int = _PACKET["max_packets"]
    laws: Mapping[str, Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        # the simulator's own checks; the times left at None stay None (its defaults)
        for name, value in check_options(self._options()).items():
            if getattr(self, name) is not None:
                object.__setattr__(self, name, value)

    def _native(
        self, scenario: Scenario, progress: Callable[[float], None] | None, label: str
    ) -> Any:
        # the trace interval of the run, refused under the name it was given by
        dt = trace_interval(
            scenario,
            self.record_interval_s,
            max_samples=MAX_SAMPLES,
            max_values=MAX_TRACE_VALUES,
            name="record_interval_s",
        )
        return simulate_packets(
            scenario, sample_interval_s=dt, progress=progress, **self._options()
        )

    def _result(self, sc: Scenario, res: Any, label: str) -> Result:
        logs = tuple(traced_log(fl) for fl in res.flows)
        recs = [
            traced_flow_record(fl.name, fl, float(fl.delivered_pkts), int(fl.loss_t_s.size))
            for fl in res.flows
        ]
        name = bottleneck_name(sc)
        lk = res.link(name)
        pkt_bytes = sc.packet_size_bytes
        extras = own_keys(
            [f.retransmissions for f in res.flows], [f.timeouts for f in res.flows], res
        )
        summary = summary_of(
            label,
            sc,
            recs,
            carried_pkts=float(lk.bytes_out) / pkt_bytes,
            capacity_pps=float(lk.rate_bps) / (8.0 * pkt_bytes),
            bottleneck=name,
            extras=extras,
        )
        t = np.asarray(res.t_s, dtype=np.float64)
        w = np.array([fl.cwnd_pkts for fl in res.flows], dtype=np.float64).reshape(len(recs), -1)
        # no window before a flow starts or once it has stopped (every engine's rule)
        Inactive(t, sc.flow_table.start_s, sc.flow_table.stop_s).zero(w)
        thr = np.array([fl.goodput_pps for fl in res.flows], dtype=np.float64).reshape(w.shape)
        series: dict[str, Any] = {}
        if self.records("utilization"):
            series["utilization"] = np.asarray(lk.utilization, dtype=np.float64)
        # every link's queue (NaN where the queue is not recorded), one row per link
        rows = (
            res.links.queues()
            if self.records("queue_pkts")
            else np.full((len(res.links), t.size), np.nan)
        )
        queues = dict(zip(sc.link_table.names, rows, strict=True))
        lost = "packets not conserved (sent != delivered + dropped + in flight)"
        return self._wrap(
            label,
            sc,
            summary,
            res,
            t,
            w,
            np.asarray(lk.queue_pkts, dtype=np.float64),
            thr,
            status=0 if res.conserved else -1,
            message="ok" if res.conserved else lost,
            rounds=logs,
            base_rtt_s=np.array([fl.base_rtt_s for fl in res.flows], dtype=np.float64),
            series=series,
            link_queues_pkts=queues,
            stats={
                "wall_time_s": float(res.wall_time_s),
                "data_packets": int(res.data_packets),
                "events": int(res.events),
            },
        )
