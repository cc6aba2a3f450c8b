"""What a packet-level run returns, and how the compiled loop's arrays become it.

:class:`FlowTrace` (round records, fixed-interval samples and losses of one flow),
:class:`LinkTrace` (queue, drops, utilization of one link) and :class:`PacketResult` (the
outcome of :func:`tcpfluid.sim.simulate_packets`); :func:`collect` cuts the round records
and the fixed-interval samples into them, and :func:`conservation` checks that every packet
is accounted for (sent = delivered + dropped + still in a link).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from .._json import fields_dict
from .._result_columns import LazySeq
from ..algorithms._common import backlog
from ..metrics import _finite_or_none, bandwidth_changes
from ..metrics._settling import law_band
from ..metrics.summary import traced_summary
from ..results import EngineSummary
from ..scenarios import Scenario, bottleneck
from . import _core as C
from ._setup import LINK_RING

if TYPE_CHECKING:  # pandas (about 0.25 s to import) only when a frame is asked for
    import pandas as pd

    from .engine import _Sim

FloatArray = NDArray[np.float64]

#: FlowTrace's counters, by their column of the compiled loop's per-flow integers
_COUNTERS = {
    "sent_pkts": C.I_SENT, "delivered_pkts": C.I_GOOD, "retransmissions": C.I_RETX,
    "fast_retransmits": C.I_FASTRETX, "timeouts": C.I_TIMEOUTS, "acks_sent": C.I_ACKS_SENT,
}  # fmt: skip


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

    Fixed-interval samples (at the result's ``t_s``: 0, every interval, and the end of the
    run): ``cwnd_pkts``, ``goodput_pps`` (packets delivered in order in the interval ending
    at the sample, per second: a packet counts when the receiver's next expected packet
    passes it, so a retransmission that fills a hole counts the packets held behind it at
    once, and an interval can read above the bottleneck's rate; it adds up to
    ``delivered_pkts``), ``srtt_s``.

    Losses: ``loss_t_s``, ``loss_kind`` (1 duplicate ACKs/fine-grained check, 2 a
    retransmission lost again, 3 timeout), ``loss_cwnd_before_pkts``,
    ``loss_cwnd_after_pkts``.

    ``last_delivery_s``: when the receiver last delivered a packet in order, s (NaN: never).
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
    last_delivery_s: float = math.nan

    def to_dict(self) -> dict[str, Any]:
        """Counters and the round trace as plain lists (JSON-ready)."""
        keys = ("name", "algorithm", *_COUNTERS, "base_rtt_s")
        return {**fields_dict(self, keys, none_inf=("base_rtt_s",)), "rounds": self.round_t_s.size}

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
    interval ending at each sample that the link spent transmitting, at most 1: a
    transmission that spans a sample time counts in both intervals in proportion, a first
    link's send overhead counts as transmitting; the first is 0), ``red_avg_pkts`` (RED's
    average queue; 0 for drop-tail). Totals: ``arrivals``, ``drops_total``, ``data_drops``,
    ``max_queue_pkts``, ``bytes_out`` (bytes that left the link, all traffic).
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
        keys = ("name", "arrivals", "drops=drops_total", "data_drops", "max_queue_pkts")
        return fields_dict(self, keys)

    def to_frame(self, t_s: FloatArray) -> pd.DataFrame:
        """The fixed-interval samples as a :class:`pandas.DataFrame` (``t_s``: the
        result's sample times)."""
        import pandas as pd

        cols = ("queue_pkts", "drops", "utilization", "red_avg_pkts")
        return pd.DataFrame({"t_s": t_s, **{c: getattr(self, c) for c in cols}})


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
    links: Sequence[LinkTrace]
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
        return _named(self.flows, name, "flow")

    def link(self, name: str) -> LinkTrace:
        """The trace of the link called ``name``."""
        k = self.links.find(name) if isinstance(self.links, LinkTraces) else -1
        return self.links[k] if k >= 0 else _named(self.links, name, "link")

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
        pairs = ((self.flows, ("cwnd_pkts", "goodput_pps")), (self.links, ("queue_pkts", "drops")))
        for items, keys in pairs:
            cols.update({f"{x.name}/{k}": getattr(x, k) for x in items for k in keys})
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
            **fields_dict(self, _RUN_KEYS),
        }


_RUN_KEYS = ("events", "wall_time_s", "packets_per_s", "events_per_s", "law_calls", "law_time_s",
             "seed")  # fmt: skip


_T = TypeVar("_T", FlowTrace, LinkTrace)


def _named(items: Sequence[_T], name: str, what: str) -> _T:
    for item in items:
        if item.name == name:
            return item
    raise ValueError(f"no {what} {name!r}; {what}s: {[x.name for x in items]}")


@dataclass(frozen=True, eq=False)
class PacketSummary(EngineSummary):
    """Summary metrics of a :class:`~tcpfluid.sim.PacketResult` (arrays over flows).

    The fields every engine's summary has are those of
    :class:`~tcpfluid.results.EngineSummary`: here the slow-start exit and the
    windows come from each flow's round trace, ``utilization`` counts the bytes the
    bottleneck carried (all traffic), ``losses`` the loss events handed to the law.

    Attributes
    ----------
    bottleneck
        Name of the link used for ``utilization``.
    retransmissions, timeouts
        Per flow: retransmitted packets, timeouts.
    packets_per_s, events_per_s
        Simulated data packets and events per wall-clock second of the run.
    conserved
        Whether every packet was accounted for (sent = delivered + dropped + in flight).
    """

    bottleneck: str
    retransmissions: NDArray[np.int64]
    timeouts: NDArray[np.int64]
    packets_per_s: float
    events_per_s: float
    conserved: bool

    def _own_keys(self) -> dict[str, Any]:
        return own_keys(self.retransmissions, self.timeouts, self)


def own_keys(retransmissions: Any, timeouts: Any, res: Any) -> dict[str, Any]:
    """The packet engine's own summary keys: per flow the ``retransmissions`` and
    ``timeouts``, and the run's (``res``'s) speed and conservation."""
    return {
        "retransmissions": [int(x) for x in retransmissions],
        "timeouts": [int(x) for x in timeouts],
        "packets_per_s": _finite_or_none(res.packets_per_s),
        "events_per_s": _finite_or_none(res.events_per_s),
        "conserved": bool(res.conserved),
    }


def summarise(res: PacketResult) -> PacketSummary:
    """Compute the :class:`PacketSummary` of a run: the definitions of
    :func:`tcpfluid.metrics.summarise` applied to each flow's round trace (one sample per
    round boundary); utilization counts the bytes the bottleneck carried, all traffic."""
    sc = res.scenario
    t_end = sc.duration_s
    cbr = bandwidth_changes([(c.start_s, c.stop_s) for c in sc.cbr], t_end)
    bott = bottleneck(sc)  # the one rule of every engine (tcpfluid.scenarios.bottleneck)
    assert bott is not None
    capacity_bytes = bott.rate_bps / 8.0 * t_end  # 0 when the product underflows
    util = res.link(bott.name).bytes_out / capacity_bytes if capacity_bytes > 0 else math.nan
    return traced_summary(
        PacketSummary, res.flows, res.settle_band_pkts, cbr, t_end,
        start_spread_s=sc.start_spread_s,
        utilization=float(util),
        bottleneck=bott.name,
        retransmissions=np.array([fl.retransmissions for fl in res.flows], dtype=np.int64),
        timeouts=np.array([fl.timeouts for fl in res.flows], dtype=np.int64),
        packets_per_s=res.packets_per_s,
        events_per_s=res.events_per_s,
        conserved=res.conserved,
    )  # fmt: skip


# ------------------------------------------------------------------ collecting
#: the compiled loop's round-record columns (its first nine), by FlowTrace field
_ROUND_COLUMNS = (
    "round_t_s", "round_cwnd_pkts", "round_next_cwnd_pkts", "round_rtt_mean_s",
    "round_rtt_min_s", "round_rtt_max_s", "round_base_rtt_s", "round_phase",
    "round_ssthresh_pkts",
)  # fmt: skip
#: the columns of a flow's loss records, by FlowTrace field
_LOSS_COLUMNS = ("loss_t_s", "loss_kind", "loss_cwnd_before_pkts", "loss_cwnd_after_pkts")


def conservation(sim: _Sim) -> dict[str, Any]:
    """For ``data``, ``ack`` and ``cbr`` packets: sent, delivered, dropped, in flight (still
    held by a link) and whether they add up; ``conserved``: whether they do for all three."""
    held = [o + np.arange(h, t) % c for o, c, h, t in sim.li[:, LINK_RING].tolist()]
    held_kinds = sim.ri[np.concatenate(held), C.RI_TAG] & C.KIND_MASK
    out: dict[str, Any] = {}
    for label, kind, counters in (
        ("data", C.KIND_DATA, [C.N_DATA_SENT, C.N_DATA_RCVD, C.N_DATA_DROP]),
        ("ack", C.KIND_ACK, [C.N_ACK_SENT, C.N_ACK_RCVD, C.N_ACK_DROP]),
        ("cbr", C.KIND_CBR, [C.N_CBR_SENT, C.N_CBR_RCVD, C.N_CBR_DROP]),
    ):
        n = dict(zip(("sent", "delivered", "dropped"), sim.gi[counters].tolist(), strict=True))
        n["in_flight"] = int(np.count_nonzero(held_kinds == kind))
        n["conserved"] = n["sent"] == n["delivered"] + n["dropped"] + n["in_flight"]
        out[label] = n
    out["conserved"] = all(e["conserved"] for e in out.values())
    return out


def _flow_traces(sim: _Sim, n: int, safe_dt: FloatArray) -> list[FlowTrace]:
    """One trace per flow from the round records and the first ``n`` samples."""
    sc = sim.scenario
    dec = sim.decisions
    flows = []
    # every per-flow array is a row of one array computed for all flows at once
    rec = sim.rec[: int(sim.gi[C.G_NREC])]
    order = np.argsort(rec[:, 9].astype(np.intp), kind="stable")
    cols = np.ascontiguousarray(rec[order, :9].T)
    # Δ as the law read it: an ns-2 Vegas agent's own (F_S_DELTA), else eq (1)'s
    agent = rec[order, 10]
    delta = np.where(np.isnan(agent), backlog(cols[1], cols[6], cols[3]), agent)
    bounds = np.searchsorted(rec[order, 9], np.arange(len(sc.flows) + 1))
    sf = np.ascontiguousarray(sim.s_flow[:n].transpose(1, 2, 0))  # flow, column, time
    gp_all = np.diff(sf[:, 1], axis=1, prepend=sf[:, 1, :1]) / safe_dt
    fi, ff = sim.fi, sim.ff
    for f, fl in enumerate(sc.flows):
        a, b = int(bounds[f]), int(bounds[f + 1])
        loss = np.asarray(dec.losses[f], dtype=np.float64).reshape(-1, 4).T.copy()
        own: dict[str, Any] = {name: cols[i, a:b] for i, name in enumerate(_ROUND_COLUMNS)}
        own.update(zip(_LOSS_COLUMNS, loss, strict=True))
        own.update({name: int(fi[f, i]) for name, i in _COUNTERS.items()})
        flows.append(
            FlowTrace(
                name=fl.name,
                algorithm=dec.laws[f].name,
                start_s=fl.start_s,
                stop_s=fl.stop_s,
                round_delta_pkts=delta[a:b],
                cwnd_pkts=sf[f, 0],
                goodput_pps=gp_all[f],
                srtt_s=sf[f, 3],
                base_rtt_s=float(ff[f, C.F_BASE]),
                last_delivery_s=float(ff[f, C.F_LAST_GOOD]) if fi[f, C.I_GOOD] else math.nan,
                **own,
            )
        )
    return flows


class LinkTraces(LazySeq[LinkTrace]):
    """Every link's :class:`LinkTrace`, each made when read from the run's samples (stored
    time first: sample, link, column) and counters: a run with many links reads only the
    ones asked for. ``find(name)``: the index of the link called ``name`` (-1: none)."""

    __slots__ = ("_counters", "_counters_f", "_names", "_rate_bps", "_safe_dt", "_samples")
    _what = "link trace"

    def __init__(self, sim: _Sim, n: int, safe_dt: FloatArray) -> None:
        lt = sim.scenario.link_table
        self._names, self._rate_bps = lt.names, lt.rate_bps
        self._samples = sim.s_link[:n]  # (the run's own array: not written after the run)
        self._safe_dt = safe_dt
        li = sim.li
        self._counters = np.stack(
            [
                li[:, C.J_TAIL] + li[:, C.J_DROPS],
                li[:, C.J_DROPS],
                li[:, C.J_DROPS_DATA],
                li[:, C.J_MAXQ],
            ],
            axis=1,
        ).tolist()
        self._counters_f = sim.lf[:, C.L_BYTES_OUT].tolist()

    def __len__(self) -> int:
        return len(self._names)

    def find(self, name: str) -> int:
        return self._names.find(name)

    def queues(self) -> FloatArray:
        """Every link's queue at each sample, one row per link (links x samples)."""
        return np.ascontiguousarray(self._samples[:, :, 0].T)

    def _item(self, i: int) -> LinkTrace:
        col = np.ascontiguousarray(self._samples[:, i, :].T)  # (column, time) of link i
        arrivals, drops, data_drops, max_q = self._counters[i]
        return LinkTrace(
            name=self._names[i],
            rate_bps=float(self._rate_bps[i]),
            queue_pkts=col[0],
            drops=col[1],
            # the time spent transmitting in each interval (``_core._sample``) over its length
            utilization=np.diff(col[2], prepend=col[2][:1]) / self._safe_dt,
            red_avg_pkts=col[3],
            arrivals=int(arrivals),
            drops_total=int(drops),
            data_drops=int(data_drops),
            max_queue_pkts=int(max_q),
            bytes_out=float(self._counters_f[i]),
        )


def collect(sim: _Sim, wall: float, seed: int) -> PacketResult:
    """The result of the finished run ``sim`` (``wall``: its wall-clock time, s)."""
    n = int(sim.gi[C.G_NSAMP])
    t = sim.s_t[:n].copy()
    dt = np.diff(t, prepend=t[:1]) if n else t
    safe_dt = np.where(dt > 0, dt, np.inf)
    return PacketResult(
        scenario=sim.scenario,
        t_s=t,
        flows=tuple(_flow_traces(sim, n, safe_dt)),
        links=LinkTraces(sim, n, safe_dt),
        conservation=conservation(sim),
        events=int(sim.gi[C.G_EVENTS]),
        wall_time_s=wall,
        seed=seed,
        law_calls=sim.decisions.law_calls,
        law_time_s=sim.decisions.law_time_s,
        settle_band_pkts=tuple(law_band(law) for law in sim.decisions.laws),
    )
