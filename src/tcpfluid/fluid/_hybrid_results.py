"""Results of the hybrid model: per-flow round traces, the sampled series and the summary
(the packet simulator's definitions, :mod:`tcpfluid.sim.summary`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..metrics.summary import round_trace_fields
from ..queueing import RedParameters
from ..results import EngineSummary

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class HybridFlowTrace:
    """One flow's round trace (the packet simulator's fields and meanings).

    Attributes
    ----------
    round_t_s
        Round boundaries, s.
    round_cwnd_pkts
        The window the law saw at each boundary (the window of the round that ended).
    round_next_cwnd_pkts
        The window the law (and a loss reaction) set at the boundary.
    round_phase
        The law's phase chosen at the boundary.
    round_rtt_mean_s, round_base_rtt_s
        The mean RTT of the round's samples and the BaseRTT at the boundary, full path.
    round_delta_pkts
        Δ = cwnd (1 − BaseRTT/RTT) of the window and these RTTs (the Quick Vegas paper,
        eq 1; as the packet simulator's ``round_delta_pkts``).
    start_s, stop_s
        The flow's active interval.
    delivered_pkts
        Packets delivered (ACKed) by the end of the run.
    loss_t_s
        Times of the loss events the law reacted to.
    """

    round_t_s: FloatArray
    round_cwnd_pkts: FloatArray
    round_next_cwnd_pkts: FloatArray
    round_phase: FloatArray
    round_rtt_mean_s: FloatArray
    round_base_rtt_s: FloatArray
    round_delta_pkts: FloatArray
    start_s: float
    stop_s: float
    delivered_pkts: float
    loss_t_s: FloatArray


@dataclass(frozen=True)
class HybridEnd:
    """The state at the end of a hybrid run, whatever was recorded (the summaries' totals).

    Attributes
    ----------
    queue_pkts
        The bottleneck queue after the last step, packets.
    queue_area_pkt_s
        The queue's time integral over the run, packet-seconds.
    windows_pkts, rtt_s, base_rtt_s
        Per flow: the window, the last RTT sample (0: none) and the BaseRTT its law last
        saw (0: none yet), ``(F,)``.
    delivered_pkts, lost_pkts
        Per flow: packets ACKed and dropped over the run, ``(F,)``.
    measure_from_s
        The start of the measured time (``simulate_hybrid``'s ``measure_from_s``).
    delivered_from_pkts, lost_from_pkts, queue_area_from_pkt_s
        The same counts (per flow) and the queue's integral over the steps that end by
        ``measure_from_s``.
    """

    queue_pkts: float
    queue_area_pkt_s: float
    windows_pkts: FloatArray
    rtt_s: FloatArray
    base_rtt_s: FloatArray
    delivered_pkts: FloatArray
    lost_pkts: FloatArray
    measure_from_s: float
    delivered_from_pkts: FloatArray
    lost_from_pkts: FloatArray
    queue_area_from_pkt_s: float


@dataclass(frozen=True)
class HybridResult:
    """Result of :func:`simulate_hybrid`.

    Attributes
    ----------
    time_s
        Sample times, s, shape ``(T,)``.
    window_pkts, throughput_pps, rtt_s
        Per flow, shape ``(F, T)``: window, delivery rate over the sample interval,
        last RTT sample (0 before the first ACK).
    queue_pkts
        Bottleneck queue (flows and cross traffic), packets, shape ``(T,)``.
    flows
        Each flow's :class:`HybridFlowTrace`.
    algorithms
        Each flow's law name.
    capacity_pps, duration_s, dt_s
        Bottleneck rate, simulated time, time step.
    change_times_s
        Times at which the cross traffic changes (inside the run).
    carried_pkts
        Packets the bottleneck carried (flows and cross traffic).
    delivered_pkts, lost_pkts
        Per flow, cumulative packets ACKed and dropped at each sample, ``(F, T)``.
    base_rtt_s
        Per flow, the BaseRTT its law last saw (0 before the flow's first round), ``(F, T)``.
    avg_queue_pkts
        RED's averaged queue (0 under drop-tail), ``(T,)``.
    red
        The RED parameters of the run (``None``: drop-tail).
    reverse_queue_pkts
        The ACK-path bottleneck's queue, ACKs, ``(T,)`` (zeros without one).
    queue_area_pkt_s
        The queue's time integral from the run's start to each sample, packet-seconds,
        ``(T,)``.
    end
        The :class:`HybridEnd` state at the end of the run.
    settle_band_pkts
        Per flow, the settling band of its summary: its law's own limit-cycle amplitude
        (the law object's ``cycle_amplitude_pkts``), packets.
    """

    time_s: FloatArray
    window_pkts: FloatArray
    throughput_pps: FloatArray
    rtt_s: FloatArray
    queue_pkts: FloatArray
    flows: tuple[HybridFlowTrace, ...]
    algorithms: tuple[str, ...]
    capacity_pps: float
    duration_s: float
    dt_s: float
    change_times_s: tuple[float, ...]
    carried_pkts: float
    delivered_pkts: FloatArray
    lost_pkts: FloatArray
    base_rtt_s: FloatArray
    avg_queue_pkts: FloatArray
    red: RedParameters | None
    reverse_queue_pkts: FloatArray | None = None
    queue_area_pkt_s: FloatArray | None = None
    end: HybridEnd | None = None
    settle_band_pkts: tuple[float, ...] = ()

    @property
    def n_flows(self) -> int:
        """F."""
        return len(self.flows)

    @cached_property
    def summary(self) -> HybridSummary:
        """Summary metrics (packet simulator's definitions; computed once)."""
        return _summarise(self)

    def to_dict(self) -> dict[str, Any]:
        """Engine, algorithms and the summary, JSON-ready (no trajectories)."""
        return {
            "engine": "hybrid",
            "algorithms": list(self.algorithms),
            "capacity_pps": self.capacity_pps,
            "duration_s": self.duration_s,
            "dt_s": self.dt_s,
            "summary": self.summary.to_dict(),
        }

    def plot(self, ax: Any = None) -> list[Any]:
        """Plot the windows (and the queue, dashed) against time; returns the artists."""
        return plot_windows(ax, self.time_s, self.window_pkts, self.algorithms, self.queue_pkts)


@dataclass(frozen=True, eq=False)
class HybridSummary(EngineSummary):
    """Per-flow summary (arrays over flows) with the round model's public keys: the fields
    of :class:`~tcpfluid.results.EngineSummary`, computed from the flows' round
    traces as the packet simulator computes them."""

    def flow(self, flow: int = 0) -> dict[str, Any]:
        """The public summary keys with the window metrics of flow ``flow``."""
        return self._keys((flow,), ss_exit_round=None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`flow` of the first flow (throughputs and losses per flow)."""
        return self.flow(0)


def _summarise(res: HybridResult) -> HybridSummary:
    return HybridSummary(
        **round_trace_fields(res.flows, res.settle_band_pkts, res.change_times_s, res.duration_s),
        # 1 - idle share: never above 1 by rounding (carried = μ·T - idle)
        utilization=1.0
        - (res.capacity_pps * res.duration_s - res.carried_pkts)
        / (res.capacity_pps * res.duration_s),
    )


def plot_windows(ax: Any, t: Any, windows: Any, laws: Any, queue: Any) -> list[Any]:
    """Each flow's window (and the queue, dashed) against time on ``ax`` (a new figure's
    when ``None``); returns the artists."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    artists: list[Any] = []
    for j, law in enumerate(laws):
        artists += ax.plot(t, windows[j], label=f"flow {j} ({law}) window")
    artists += ax.plot(t, queue, "k--", label="queue")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.legend(loc="best")
    return artists
