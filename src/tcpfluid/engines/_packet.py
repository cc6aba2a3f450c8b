"""The packet simulator as an engine: :class:`Packet`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .._validation import check_int, check_nonnegative, check_positive
from ..metrics import FlowRecord, summarise
from ..sim import simulate_packets
from ._base import Engine, bottleneck_name, plain, round_log, slow_start
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
    delayed_ack, delack_timeout_s, min_rto_s, initial_rto_s, max_rto_s, fine_retransmit,
    send_overhead_s, max_packets, laws
        The simulator's options of the same names (``None``: its defaults).
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

    seed: int = _PACKET["seed"]
    delayed_ack: bool = _PACKET["delayed_ack"]
    delack_timeout_s: float | None = _PACKET["delack_timeout_s"]
    min_rto_s: float | None = _PACKET["min_rto_s"]
    initial_rto_s: float | None = _PACKET["initial_rto_s"]
    max_rto_s: float | None = _PACKET["max_rto_s"]
    fine_retransmit: bool | None = _PACKET["fine_retransmit"]
    send_overhead_s: float = _PACKET["send_overhead_s"]
    max_packets: int = _PACKET["max_packets"]
    laws: Mapping[str, Any] | None = field(default=None, compare=False)

    @classmethod
    def renamed_options(cls, scenario: Scenario | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "sample_interval": "record_interval_s",
            "sample_interval_s": "record_interval_s",
        }
        out.update(
            {old: f"{old}_s" for old in ("delack_timeout", "min_rto", "initial_rto", "max_rto")}
        )
        return out

    def __post_init__(self) -> None:
        super().__post_init__()
        check_int("seed", self.seed, minimum=0)
        if not isinstance(self.delayed_ack, bool | np.bool_):
            raise TypeError(f"delayed_ack must be True or False, got {self.delayed_ack!r}")
        for name in ("delack_timeout_s", "min_rto_s", "initial_rto_s", "max_rto_s"):
            if getattr(self, name) is not None:
                check_positive(name, getattr(self, name))
        check_nonnegative("send_overhead_s", self.send_overhead_s)
        check_int("max_packets", self.max_packets, minimum=1)

    def run(
        self,
        scenario: Scenario,
        *,
        progress: Callable[[float], None] | None = None,
        label: str | None = None,
    ) -> Result:
        res = simulate_packets(
            scenario,
            seed=self.seed,
            sample_interval_s=self.record_interval_s,
            laws=self.laws,
            delayed_ack=self.delayed_ack,
            delack_timeout_s=self.delack_timeout_s,
            min_rto_s=self.min_rto_s,
            initial_rto_s=self.initial_rto_s,
            max_rto_s=self.max_rto_s,
            fine_retransmit=self.fine_retransmit,
            send_overhead_s=self.send_overhead_s,
            progress=progress,
            max_packets=self.max_packets,
        )
        return _result(scenario, res, self, label or self.name)


def _result(sc: Scenario, res: Any, opts: Packet, label: str) -> Result:
    from ..results import Result

    logs = tuple(
        round_log(fl.round_t_s, fl.round_cwnd_pkts, fl.round_next_cwnd_pkts, fl.round_phase)
        for fl in res.flows
    )
    recs = [
        FlowRecord(
            name=fl.name,
            start_s=fl.start_s,
            stop_s=fl.stop_s,
            t_s=log.time_s,
            window_pkts=log.window_pkts,
            in_slow_start=log.phase == slow_start(),
            settle_window_pkts=log.next_window_pkts,
            delivered_pkts=float(fl.delivered_pkts),
            loss_events=int(fl.loss_t_s.size),
            # boundary k ends round k + 1; the law leaves slow start at the end of the round
            # that sent the exit window and keeps it one more round, which ends the exit
            # round (the convention of tcpfluid.metrics.summarise)
            exit_delay_samples=1,
        )
        for fl, log in zip(res.flows, logs, strict=True)
    ]
    name = bottleneck_name(sc)
    lk = res.link(name)
    pkt_bytes = sc.packet_size_bytes
    extras = {
        "retransmissions": [int(fl.retransmissions) for fl in res.flows],
        "timeouts": [int(fl.timeouts) for fl in res.flows],
        "packets_per_s": plain(res.packets_per_s),
        "events_per_s": plain(res.events_per_s),
        "conserved": bool(res.conserved),
    }
    summary = summarise(
        label,
        sc,
        recs,
        end_s=sc.duration_s,
        carried_pkts=float(lk.bytes_out) / pkt_bytes,
        capacity_pps=float(lk.rate_bps) / (8.0 * pkt_bytes),
        bottleneck=name,
        extras=extras,
    )
    t = np.asarray(res.t_s, dtype=np.float64)
    F = len(recs)
    w = np.array([fl.cwnd_pkts for fl in res.flows], dtype=np.float64).reshape(F, t.size)
    thr = np.array([fl.goodput_pps for fl in res.flows], dtype=np.float64).reshape(w.shape)
    q = np.asarray(lk.queue_pkts, dtype=np.float64)
    series: dict[str, Any] = {}
    if opts.records("utilization"):
        series["utilization"] = np.asarray(lk.utilization, dtype=np.float64)
    return Result(
        label,
        sc,
        summary.flow_names,
        t,
        w,
        q if opts.records("queue_pkts") else np.full_like(t, np.nan),
        thr if opts.records("throughput_pps") else np.full_like(w, np.nan),
        summary,
        res,
        status=0 if res.conserved else -1,
        message="ok"
        if res.conserved
        else "packets not conserved (sent != delivered + dropped + in flight)",
        rounds=logs,
        base_rtt_s=np.array([fl.base_rtt_s for fl in res.flows], dtype=np.float64),
        series=series,
        stats={
            "wall_time_s": float(res.wall_time_s),
            "data_packets": int(res.data_packets),
            "events": int(res.events),
        },
    )
