"""Summary of a packet-level run, with the same public keys as the round model's.

Definitions are those of :mod:`tcpfluid.metrics`, applied to each flow's round trace
(one sample per round boundary):

* slow-start exit: the time of the boundary where the law left slow start, and the window
  it had set at the boundary before (the window whose measurement made it leave; before
  any cut);
* settled window and time to equilibrium: :func:`tcpfluid.metrics.settling` of the window
  in effect after each boundary, from the flow's start to the first bandwidth change;
* convergence after each change: the same from the change to the next one;
* bandwidth changes: the start and stop times of the CBR sources inside the run;
* utilization: bytes carried by the bottleneck (:func:`tcpfluid.scenarios.bottleneck`;
  all traffic) over its capacity × the run's duration;
* throughput: each flow's in-order delivered packets over its active time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from .. import metrics
from ..algorithms.base import SLOW_START
from ..metrics import _finite_or_none
from ..scenarios import bottleneck

if TYPE_CHECKING:  # pragma: no cover
    from ._results import PacketResult

__all__ = ["PacketSummary", "summarise"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PacketSummary:
    """Summary metrics of a :class:`~tcpfluid.sim.PacketResult` (arrays over flows).

    Attributes
    ----------
    ss_exit_time_s, ss_exit_window_pkts, ss_exited
        Slow-start exit of each flow (NaN / ``False`` when it never left).
    settled_window_pkts, time_to_equilibrium_s, reached_equilibrium
        Window settled at before the first bandwidth change (the mean of the segment's
        tail, :func:`tcpfluid.metrics.settling`, kept even when the window did not settle),
        and the time from the flow's start to reach it (NaN / ``False`` when it did not
        settle; :meth:`flow` then gives ``None`` for both).
    change_times_s
        Bandwidth changes (CBR starts and stops) inside the run, s.
    convergence_times_s, converged
        Shape ``(F, K)``: time from each change until the window settles again.
    utilization
        Bottleneck utilization over the run (all traffic).
    bottleneck
        Name of the link used for ``utilization``.
    throughput_pps
        Each flow's in-order delivery rate over its active time, packets/s.
    jain_index
        Jain's index of ``throughput_pps`` (the Quick Vegas paper eq 13).
    losses, retransmissions, timeouts
        Per flow: loss events handed to the law, retransmitted packets, timeouts.
    packets_per_s, events_per_s
        Simulated data packets and events per wall-clock second of the run.
    conserved
        Whether every packet was accounted for (sent = delivered + dropped + in flight).
    """

    ss_exit_time_s: FloatArray
    ss_exit_window_pkts: FloatArray
    ss_exited: NDArray[np.bool_]
    settled_window_pkts: FloatArray
    time_to_equilibrium_s: FloatArray
    reached_equilibrium: NDArray[np.bool_]
    change_times_s: tuple[float, ...]
    convergence_times_s: FloatArray
    converged: NDArray[np.bool_]
    utilization: float
    bottleneck: str
    throughput_pps: FloatArray
    jain_index: float
    losses: NDArray[np.int64]
    retransmissions: NDArray[np.int64]
    timeouts: NDArray[np.int64]
    packets_per_s: float
    events_per_s: float
    conserved: bool

    def flow(self, flow: int = 0) -> dict[str, Any]:
        """The public summary keys, window metrics of flow ``flow``.

        Keys shared with the round model: ``ss_exit_window``, ``ss_exit_time_s``,
        ``settled_window``, ``time_to_equilibrium_s``, ``convergence_times_s``,
        ``change_times_s``, ``utilization``, ``throughput_pps`` (per flow), ``jain_index``,
        ``losses`` (per flow); plus ``retransmissions``, ``timeouts``, ``packets_per_s``,
        ``events_per_s`` and ``conserved``. ``None`` means "did not happen".
        """
        return {
            "ss_exit_window": _finite_or_none(self.ss_exit_window_pkts[flow]),
            "ss_exit_time_s": _finite_or_none(self.ss_exit_time_s[flow]),
            "settled_window": (
                _finite_or_none(self.settled_window_pkts[flow])
                if bool(self.reached_equilibrium[flow])
                else None
            ),
            "time_to_equilibrium_s": _finite_or_none(self.time_to_equilibrium_s[flow]),
            "convergence_times_s": [_finite_or_none(x) for x in self.convergence_times_s[flow]],
            "change_times_s": list(self.change_times_s),
            "utilization": _finite_or_none(self.utilization),
            "throughput_pps": [_finite_or_none(x) for x in self.throughput_pps],
            "jain_index": _finite_or_none(self.jain_index),
            "losses": [int(x) for x in self.losses],
            "retransmissions": [int(x) for x in self.retransmissions],
            "timeouts": [int(x) for x in self.timeouts],
            "packets_per_s": _finite_or_none(self.packets_per_s),
            "events_per_s": _finite_or_none(self.events_per_s),
            "conserved": bool(self.conserved),
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`flow` of the first flow (the throughputs list every flow)."""
        return self.flow(0)


def _flow_metrics(
    fl: Any, changes: tuple[float, ...], t_end: float
) -> tuple[float, float, bool, float, float, bool, list[float], list[bool]]:
    t = fl.round_t_s
    nan = math.nan
    if t.size == 0:
        k = len(changes)
        return nan, nan, False, nan, nan, False, [nan] * k, [False] * k
    # sample i: the window the law saw at boundary i (the window sent during the round
    # that boundary opens) and the phase it chose there; the exit is then stamped at the
    # boundary where the law decided to leave, with the window of the round before
    # (tcpfluid.metrics.slow_start_exit, same convention as the round model)
    ss = metrics.slow_start_exit(t, fl.round_cwnd_pkts, fl.round_phase == SLOW_START)
    seg = metrics.settling_by_segment(
        t,
        fl.round_next_cwnd_pkts,
        start_s=fl.start_s,
        end_s=min(t_end, fl.stop_s),
        change_times_s=changes,
    )
    first = seg.equilibrium
    conv = [float(r.time_s) for r in seg.convergence]
    ok = [bool(r.settled) for r in seg.convergence]
    return (
        float(ss.time_s),
        float(ss.value),
        bool(ss.found),
        float(first.value),
        float(first.time_s),
        bool(first.settled),
        conv,
        ok,
    )


def summarise(res: PacketResult) -> PacketSummary:
    """Compute the :class:`PacketSummary` of a run (definitions in the module docstring)."""
    sc = res.scenario
    t_end = sc.duration_s
    changes = metrics.bandwidth_changes([(c.start_s, c.stop_s) for c in sc.cbr], t_end)
    rows = [_flow_metrics(fl, changes, t_end) for fl in res.flows]
    F = len(rows)
    K = len(changes)
    bott = bottleneck(sc)  # the one rule of every engine (tcpfluid.scenarios.bottleneck)
    assert bott is not None
    lt = res.link(bott.name)
    capacity_bytes = bott.rate_bps / 8.0 * t_end  # 0 when the product underflows
    util = lt.bytes_out / capacity_bytes if capacity_bytes > 0 else math.nan
    thr = np.array(
        [fl.delivered_pkts / max(min(t_end, fl.stop_s) - fl.start_s, 1e-300) for fl in res.flows]
    )
    jain = float(metrics.jain_index(thr)) if np.any(thr > 0) else math.nan
    return PacketSummary(
        ss_exit_time_s=np.array([r[0] for r in rows]),
        ss_exit_window_pkts=np.array([r[1] for r in rows]),
        ss_exited=np.array([r[2] for r in rows]),
        settled_window_pkts=np.array([r[3] for r in rows]),
        time_to_equilibrium_s=np.array([r[4] for r in rows]),
        reached_equilibrium=np.array([r[5] for r in rows]),
        change_times_s=changes,
        convergence_times_s=np.array([r[6] for r in rows], dtype=np.float64).reshape(F, K),
        converged=np.array([r[7] for r in rows], dtype=bool).reshape(F, K),
        utilization=float(util),
        bottleneck=bott.name,
        throughput_pps=thr,
        jain_index=jain,
        losses=np.array([fl.loss_t_s.size for fl in res.flows], dtype=np.int64),
        retransmissions=np.array([fl.retransmissions for fl in res.flows], dtype=np.int64),
        timeouts=np.array([fl.timeouts for fl in res.flows], dtype=np.int64),
        packets_per_s=res.packets_per_s,
        events_per_s=res.events_per_s,
        conserved=res.conserved,
    )
