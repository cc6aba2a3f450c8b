"""The hybrid fluid model: continuous queue and windows, each law deciding at its own rounds.

After Bohacek, Hespanha, Lee and Obraczka (SIGMETRICS 2003): the queue and the windows
evolve in finely stepped continuous time (:mod:`tcpfluid.fluid._hybrid_kernel`), and
each flow's :class:`~tcpfluid.algorithms.base.ControlLaw` decides at its own round
boundaries and reacts to losses when a packet sender would learn of them
(docs/ode-model.md, "The hybrid model")."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._json import fields_dict
from ..algorithms._common import backlog
from ..algorithms.base import ControlLaw
from ..metrics.summary import traced_summary
from ..queueing import RedParameters
from ..results import EngineSummary
from . import _hybrid_kernel as K
from ._first_packets import busy_join_floor, first_packet_waits, join_waits
from ._hybrid_inputs import (
    DROP_SHARES,
    OPTION_RULES,
    RTT_SAMPLES,
    STEPS_PER_RTT,
    KernelState,
    Progress,
    Run,
    StartLockout,
    check_options,
    check_reverse,
    check_run,
    kernel_state,
    per_flow,
    small_pages,
)
from ._hybrid_laws import _Boundary, _by_flow, _Laws
from ._hybrid_laws import quiet as _quiet
from ._rounds_physics import (  # DUPACK_THRESHOLD: still importable from here
    DUPACK_THRESHOLD,  # noqa: F401
    INITIAL_RTO_S,
    MAX_RTO_S,
    no_room,
    placed_flows,
    sender_dupacks,
)

__all__ = [
    "DROP_SHARES",
    "RTT_SAMPLES",
    "STEPS_PER_RTT",
    "HybridFlowTrace",
    "HybridResult",
    "simulate_hybrid",
    "simulate_scenario_hybrid",
]

FloatArray = NDArray[np.float64]


def simulate_hybrid(
    law: ControlLaw | Sequence[ControlLaw],
    *,
    mu_pps: float,
    base_rtt_s: ArrayLike,
    duration_s: float,
    buffer_pkts: float = math.inf,
    red: RedParameters | None = None,
    reverse_mu_pps: float = math.inf,
    reverse_buffer_pkts: float = math.inf,
    packets_per_ack: float = 1.0,
    cross_traffic: Sequence[tuple[float, float, float]] = (),
    flow_start_s: ArrayLike | None = None,
    flow_stop_s: ArrayLike | None = None,
    flow_lead_s: ArrayLike | None = None,
    flow_spacing_s: ArrayLike | None = None,
    dt_s: float | None = None,
    record_every_s: float | None = None,
    timeout_loss_fraction: float | None = None,
    rtt_sample: str = "arrival",
    drop_share: str = "growth",
    whole_packets: bool = False,
    boundary_ack_next_round: bool = True,
    hold_drops: bool = True,
    red_losses: str = "dithered",
    min_rto_s: float = 0.2,
    progress: Callable[[float], None] | None = None,
    measure_from_s: float = 0.0,
) -> HybridResult:
    """Run the hybrid fluid model on one bottleneck (docs/ode-model.md, "The hybrid
    model": each option's mechanism and measured effect).

    Parameters
    ----------
    law
        One :class:`~tcpfluid.algorithms.base.ControlLaw` for every flow (scalar
        parameters), one per flow, or a :class:`~tcpfluid.algorithms.mixed.MixedLaw`.
    mu_pps
        Bottleneck rate μ, packets/s.
    base_rtt_s
        Base RTT d_j of each flow, s; its length is the number of flows F.
    duration_s
        Simulated time, s.
    buffer_pkts
        Drop-tail buffer, packets (>= 1; ``inf``: no loss); with ``red`` the RED queue's
        physical limit.
    red
        RED parameters (:func:`tcpfluid.queueing.red_parameters`), or ``None``: drop-tail.
    reverse_mu_pps, reverse_buffer_pkts
        An ACK-path bottleneck's rate, ACKs/s (``inf``: none), and buffer, ACKs (>= 1).
    packets_per_ack
        Data packets acknowledged by one ACK (>= 1; 2: delayed ACKs without their timer).
    cross_traffic
        ``(rate_pps, start_s, stop_s)`` constant-bit-rate sources at the bottleneck.
    flow_start_s, flow_stop_s
        Per-flow active interval, s (defaults: 0 and never).
    flow_lead_s, flow_spacing_s
        Per flow: the time its first packet takes from the sender to the bottleneck, and
        its packets' spacing there (its access link's packet time), s (default 0: queued
        when sent); where the first packets of flows starting together on several round
        clocks queue (docs/round-model.md, "First packets").
    dt_s, record_every_s
        Time step, s (default: the smallest base RTT / :data:`STEPS_PER_RTT`), and the
        recorded series' interval, s (default: the smallest base RTT / 4).
    timeout_loss_fraction
        ``None`` (default): timeout or fast retransmit as a packet sender decides; a number
        in ``(0, 1]``: a timeout when a loss event takes more than this fraction of the
        window.
    rtt_sample
        ``"arrival"`` (default): an RTT sample carries the time the fluid waited in the
        FIFO; ``"departure"``: the queue when it leaves.
    drop_share
        How a drop-tail overflow is shared: ``"growth"`` (default), ``"proportional"`` or
        ``"in-turn"`` (docs/ode-model.md, "How an overflow is shared").
    whole_packets, boundary_ack_next_round, hold_drops
        Whole packets in flight and rounds at whole packets (default ``False``); the
        boundary step's later ACKs grown with the next increment (default ``True``); a
        drop keeps its place in the window until the sender learns of it (default
        ``True``).
    red_losses
        Behind RED, when a flow learns of the fractions of packets RED drops of its
        arrivals: ``"dithered"`` (default) once they reach a threshold drawn for the flow
        in (0, 1], a shortfall below one packet carried as a debt; ``"whole"`` once they
        reach a whole packet (docs/ode-model.md, "RED's fractions of packets, dithered").
    min_rto_s
        Floor of the retransmission timer, s (RFC 6298).
    progress
        Called with the fraction of simulated time done, at most ~10 times a second.
    measure_from_s
        Start of a measured time, s, in ``[0, duration_s)`` (:class:`HybridEnd`).
    """
    given = locals()
    opts = {**given, **check_options(**{k: given[k] for k in OPTION_RULES})}
    run = check_run(
        mu_pps, base_rtt_s, duration_s, buffer_pkts, cross_traffic, flow_start_s, flow_stop_s,
        dt_s, record_every_s, timeout_loss_fraction,
    )  # fmt: skip
    st, laws, box, lock, ahead = _initial_state(run, opts)
    _run_steps(st, box, laws, run, progress, lock, ahead)
    return _collect(laws, st, box, run, red)


def _initial_state(
    run: Run, opts: dict[str, Any]
) -> tuple[KernelState, _Laws, _Boundary, StartLockout, FloatArray]:
    """The state at time 0 of a checked run (``opts``: the keywords of
    :func:`simulate_hybrid`, its options checked): the kernel's state with the flows' places
    and first packets' RTTs, the laws, the round boundary's state, the lock-out at a
    simultaneous start and each joiner's wait behind the joiners ahead of it
    (:func:`~._first_packets.join_waits`, s)."""
    F = run.d.size
    lead = per_flow("flow_lead_s", opts["flow_lead_s"], F, 0.0)
    spacing = per_flow("flow_spacing_s", opts["flow_spacing_s"], F, 0.0)
    if not (np.all(lead >= 0.0) and np.all(spacing >= 0.0)):
        raise ValueError(
            f"flow_lead_s and flow_spacing_s must be >= 0 s for every flow, got {(lead, spacing)}"
        )
    rev_arr, hf = check_reverse(opts, run.dt, run.n_steps)
    laws = _Laws(opts["law"], F)
    # the loss rule (:func:`~._hybrid_kernel._loss_timer`): the retransmission timer's
    # ``timeout_loss_fraction`` (NaN: the packet sender's rule), floor, initial value and
    # ceiling, and each flow's duplicate ACKs that start a retransmission; then the
    # bottleneck's rate, packets/s (the rounds' places, :func:`~._hybrid_kernel._sample_one`;
    # the repairs' RTT, :func:`~._hybrid_kernel.repair_rtt`) and its buffer, packets
    dupacks = sender_dupacks(laws.fine)
    timing = np.array([run.frac, opts["min_rto_s"], INITIAL_RTO_S, MAX_RTO_S, run.mu, run.buf])
    mark = opts["measure_from_s"]
    if not mark < run.t_end:
        raise ValueError(f"measure_from_s must be < duration_s={run.t_end!r} s, got {mark!r}")
    with small_pages():  # written once in order: huge pages bring them nothing
        st = kernel_state(run, rev_arr, hf, opts)
    st.g[K.G_MARK] = mark
    # before the places: a locked-out flow has none
    lock = StartLockout(st.ff, run.buf, laws.init_cwnd, spacing)
    if rev_arr[0] != 1.0:
        # the flows with places in the slow-start burst and the burst's cycles
        # (docs/ode-model.md, "Places in the slow-start burst")
        placed, cycles = placed_flows(st.ff[:, K.F_START], st.ff[:, K.F_D], laws.init_cwnd, spacing)
        st.ff[placed, K.F_PLACED] = 1.0
        st.ff[placed, K.F_CYCLES] = cycles
        # flows starting first together: their first packets' RTTs, each behind the
        # others' first windows (docs/round-model.md, "First packets")
        start, d = st.ff[:, K.F_START], st.ff[:, K.F_D]
        first = start == start.min()
        if first.sum() >= 2:
            t0 = float(start.min())
            mu_a = run.mu - sum(c[0] for c in run.cross if c[1] <= t0 < c[2])
            waits = first_packet_waits(
                (start + lead)[first], laws.init_cwnd[first], spacing[first], 1.0 / mu_a
            )
            st.ff[first, K.F_FIRST_RTT] = d[first] + waits
    ahead = join_waits(st.ff[:, K.F_START], lead, laws.init_cwnd, spacing, 1.0 / run.mu)
    return st, laws, _Boundary(laws, timing, dupacks, bool(rev_arr[0] == 1.0)), lock, ahead


def _run_steps(
    st: KernelState,
    box: _Boundary,
    laws: _Laws,
    run: Run,
    progress: Progress,
    lock: StartLockout,
    ahead: FloatArray,
) -> None:
    """Step the kernel to the run's end, answering its calls (joins, growth, decisions in
    Python, progress); ``ahead``: each joiner's wait behind the joiners ahead of it, s."""
    mu, t_end, buf, dt, n_steps = run.mu, run.t_end, run.buf, run.dt, run.n_steps
    ff, g = st.ff, st.g
    pause = max(1, n_steps // 100) if progress is not None else n_steps + 1
    box.ig[K.I_PAUSE] = pause
    next_report = time.monotonic()
    k = 0
    with _quiet():
        while True:
            k, code = K.advance(k, n_steps, t_end, dt, mu, buf, *st, box.laws)
            if code == K.DONE:
                break
            if code == K.JOIN:
                joining = (ff[:, K.F_STARTED] == 0.0) & (k * dt >= ff[:, K.F_START])
                lock.retransmit(ff, joining, bool(no_room(g[K.G_Q], buf)))
                busy_join_floor(ff, joining, k * dt, float(g[K.G_Q]) / mu, ahead)
                laws.restart(joining)
                ff[joining, K.F_W] = laws.init_cwnd[joining]
                ff[joining, K.F_INCR] = laws.init_incr[joining]
                ff[joining, K.F_CAP] = laws.init_cap[joining]
                ff[joining, K.F_ROUND_SEQ] = ff[joining, K.F_SENT]
                ff[joining, K.F_STARTED] = 1.0
                ff[joining, K.F_FMIN] = np.inf
                box.base[joining] = np.inf
                for j in np.flatnonzero(joining).tolist():
                    K.place_round(ff, j, laws.init_phase[j])  # its round 0
                g[K.G_REDO] = 1.0  # every flow's sending is computed again
            elif code == K.GROW:
                box.grow(run.d.size)
            elif code == K.DECIDE:
                box.python_decisions(laws, ff, st.touched, g, k * dt)
            elif code == K.PAUSE:
                box.ig[K.I_PAUSE] = k + pause
                if progress is not None and (now := time.monotonic()) >= next_report:
                    next_report = now + 0.1
                    progress(min(1.0, k * dt / t_end))
    if progress is not None:
        progress(1.0)


def _collect(
    laws: _Laws, st: KernelState, box: _Boundary, run: Run, red: RedParameters | None
) -> HybridResult:
    """The :class:`HybridResult` of a finished run."""
    ff, g, rec_f, rec_g = st.ff, st.g, st.rec_f, st.rec_g
    F = ff.shape[0]
    loss_times = _by_flow(box.loss_flow[: box.ig[K.I_NLOSS]], box.loss_t, F)
    logs = _by_flow(box.log_flow[: box.ig[K.I_NLOG]], box.log_rows, F)
    traces = []
    for j, rt in enumerate(logs):  # (each flow's log: time, windows, phase, mean, base RTT)
        t, cwnd, nxt, phase, mean, base = rt.T[:6]
        traces.append(
            HybridFlowTrace(
                t, cwnd, nxt, phase, mean, base, backlog(cwnd, base, mean), float(run.start[j]),
                float(ff[j, K.F_STOP]), float(ff[j, K.F_ACKED]), loss_times[j][:, 0].copy(),
                loss_times[j][:, 1].copy(),
                float(ff[j, K.F_LAST_ACKED]) if ff[j, K.F_ACKED] > 0.0 else math.nan,
            )
        )  # fmt: skip
    if g[K.G_MARKED] == 0.5:  # the run ended in the mark's step
        K.mark_counts(ff, g)
    n = int(g[K.G_K_REC])
    return HybridResult(
        time_s=rec_g[K.R_T, :n],
        window_pkts=rec_f[K.R_W, :n].T,
        throughput_pps=rec_f[K.R_THR, :n].T,
        rtt_s=rec_f[K.R_RTT, :n].T,
        queue_pkts=rec_g[K.R_Q, :n],
        flows=tuple(traces),
        algorithms=tuple(laws.names),
        settle_band_pkts=tuple(laws.bands),
        capacity_pps=run.mu,
        duration_s=run.t_end,
        dt_s=run.dt,
        change_times_s=run.changes,
        # the link serves μ whenever it has a backlog: what it carried is its capacity
        # over the run less the service it left unused (the running sum of the carried
        # packets drifts by rounding, a few 1e-12 of the total over a long run)
        carried_pkts=run.mu * run.t_end - float(g[K.G_IDLE]),
        delivered_pkts=rec_f[K.R_ACKED, :n].T,
        lost_pkts=rec_f[K.R_LOST, :n].T,
        base_rtt_s=rec_f[K.R_BASE, :n].T,
        avg_queue_pkts=rec_g[K.R_AVG, :n],
        red=red,
        reverse_queue_pkts=rec_g[K.R_QR, :n],
        queue_area_pkt_s=rec_g[K.R_QAREA, :n],
        end=HybridEnd(
            queue_pkts=float(g[K.G_Q]),
            queue_area_pkt_s=float(g[K.G_QAREA]),
            windows_pkts=ff[:, K.F_W].copy(),
            rtt_s=ff[:, K.F_LAST_RTT].copy(),
            base_rtt_s=ff[:, K.F_BASE].copy(),
            delivered_pkts=ff[:, K.F_ACKED].copy(),
            lost_pkts=ff[:, K.F_LOST_TOTAL].copy(),
            measure_from_s=float(g[K.G_MARK]),
            delivered_from_pkts=ff[:, K.F_ACKED_MARK].copy(),
            lost_from_pkts=ff[:, K.F_LOST_MARK].copy(),
            queue_area_from_pkt_s=float(g[K.G_QAREA_MARK]),
        ),
    )


def simulate_scenario_hybrid(scenario: Any, **options: Any) -> HybridResult:
    """Run a :class:`~tcpfluid.scenarios.Scenario` on the hybrid model (its fluid view; each
    flow its own law); ``options``: those of :func:`simulate_hybrid`.

    Raises
    ------
    ValueError
        A flow without an algorithm, or cross traffic that does not cross the bottleneck.
    """
    from ..scenarios import Scenario
    from ..scenarios.reduction import fluid_view

    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    if unknown := sorted(set(options) - set(SCENARIO_OPTIONS)):
        raise TypeError(
            f"simulate_scenario_hybrid() got the unknown option {unknown[0]!r}; options: "
            f"{', '.join(SCENARIO_OPTIONS)}"
        )
    return _simulate_view(scenario, fluid_view(scenario, engine="hybrid"), **options)


#: the options :func:`simulate_scenario_hybrid` passes on to :func:`simulate_hybrid` (the
#: scenario gives the law, path, flows, duration and cross traffic)
SCENARIO_OPTIONS = (
    "packets_per_ack", "dt_s", "record_every_s", "timeout_loss_fraction", "rtt_sample",
    "drop_share", "whole_packets", "boundary_ack_next_round", "hold_drops", "red_losses",
    "min_rto_s", "progress", "measure_from_s",
)  # fmt: skip


def _simulate_view(scenario: Any, view: Any, **options: Any) -> HybridResult:
    """:func:`simulate_scenario_hybrid` of ``scenario`` reduced to its fluid view ``view``."""
    from ..algorithms.registry import get_law

    if view.off_bottleneck_cbr:
        raise ValueError(
            "the hybrid engine cannot model cross traffic that does not cross the bottleneck "
            f"({', '.join(view.off_bottleneck_cbr)}); engines that can: packet"
        )
    table = view.flows.table  # the flows' columns: each flow's law is an index
    table.check_algorithms(scenario.name)
    law_of = table.law.tolist()
    used = {(table.laws[k][0], tuple(sorted(table.laws[k][1].items()))) for k in set(law_of)}
    return simulate_hybrid(
        get_law(table.laws[law_of[0]][0], **dict(table.laws[law_of[0]][1]))
        if len(used) == 1
        else [get_law(table.laws[k][0], **dict(table.laws[k][1])) for k in law_of],
        mu_pps=view.path.mu,
        base_rtt_s=view.base_rtt_s,
        duration_s=view.duration_s,
        buffer_pkts=view.path.buffer_pkts,
        red=view.red,
        reverse_mu_pps=math.inf if view.path.reverse_mu is None else view.path.reverse_mu,
        reverse_buffer_pkts=(
            math.inf if view.path.reverse_buffer_pkts is None else view.path.reverse_buffer_pkts
        ),
        cross_traffic=[(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic],
        flow_start_s=view.start_s,
        flow_stop_s=view.stop_s,
        flow_lead_s=view.lead_s,
        flow_spacing_s=view.spacing_s,
        **options,
    )


@dataclass(frozen=True)
class HybridFlowTrace:
    """One flow's round trace (the packet simulator's fields and meanings).

    Attributes
    ----------
    round_t_s
        Round boundaries, s.
    round_cwnd_pkts, round_next_cwnd_pkts
        The window the law saw at each boundary, and the one it (or a loss reaction) set.
    round_phase
        The law's phase chosen at the boundary.
    round_rtt_mean_s, round_base_rtt_s
        The round's mean RTT and the BaseRTT at the boundary, s.
    round_delta_pkts
        Δ = cwnd (1 − BaseRTT/RTT) (the Quick Vegas paper, eq 1).
    start_s, stop_s
        The flow's active interval, s.
    delivered_pkts
        Packets ACKed by the end of the run.
    loss_t_s, loss_cwnd_before_pkts
        Times of the loss events the law reacted to, s, and the window each reaction cut,
        packets.
    last_delivery_s
        The end of the last step in which it had packets ACKed, s (NaN: none).
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
    loss_cwnd_before_pkts: FloatArray
    last_delivery_s: float = math.nan


@dataclass(frozen=True)
class HybridEnd:
    """The state at the end of a hybrid run (the summaries' totals).

    Attributes
    ----------
    queue_pkts, queue_area_pkt_s
        The queue after the last step, packets, and its integral over the run, packet-s.
    windows_pkts, rtt_s, base_rtt_s
        Per flow ``(F,)``: window, last RTT sample and last BaseRTT (0: none).
    delivered_pkts, lost_pkts
        Per flow: packets ACKed and dropped over the run.
    measure_from_s
        The start of the measured time, s.
    delivered_from_pkts, lost_from_pkts, queue_area_from_pkt_s
        The same counts and integral over the steps that end by ``measure_from_s``.
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
        Sample times, s, ``(T,)``.
    window_pkts, throughput_pps, rtt_s
        Per flow ``(F, T)``: window, delivery rate over the sample interval, last RTT sample
        (0 before the first ACK).
    queue_pkts
        Bottleneck queue (flows and cross traffic), packets, ``(T,)``.
    flows, algorithms
        Each flow's :class:`HybridFlowTrace` and law name.
    capacity_pps, duration_s, dt_s
        Bottleneck rate, simulated time, time step.
    change_times_s
        Times at which the cross traffic changes, s.
    carried_pkts
        Packets the bottleneck carried.
    delivered_pkts, lost_pkts, base_rtt_s
        Per flow ``(F, T)``: cumulative packets ACKed and dropped, the BaseRTT its law last
        saw.
    avg_queue_pkts, reverse_queue_pkts, queue_area_pkt_s
        RED's averaged queue, the ACK-path queue (ACKs) and the queue's integral from the
        start, packet-s, ``(T,)``.
    red
        The RED parameters (``None``: drop-tail).
    end
        The :class:`HybridEnd` state.
    settle_band_pkts
        Per flow, its law's limit-cycle amplitude, packets.
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

    @property
    def utilization(self) -> float:
        """Bottleneck utilization over the run (carried = μ·T − idle)."""
        T = self.capacity_pps * self.duration_s
        return 1.0 - (T - self.carried_pkts) / T

    @cached_property
    def summary(self) -> HybridSummary:
        """Summary metrics (packet simulator's definitions; computed once)."""
        return traced_summary(
            HybridSummary, self.flows, self.settle_band_pkts, self.change_times_s,
            self.duration_s, utilization=self.utilization,
        )  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        """Engine, algorithms and the summary, JSON-ready (no trajectories)."""
        keys = ("algorithms", "capacity_pps", "duration_s", "dt_s")
        return {"engine": "hybrid", **fields_dict(self, keys), "summary": self.summary.to_dict()}

    def plot(self, ax: Any = None) -> list[Any]:
        """Plot the windows (and the queue, dashed) against time; returns the artists."""
        return plot_windows(ax, self.time_s, self.window_pkts, self.algorithms, self.queue_pkts)


@dataclass(frozen=True, eq=False)
class HybridSummary(EngineSummary):
    """Per-flow summary with the round model's public keys (the packet simulator's
    definitions on the flows' round traces)."""

    _round_key = True


def plot_windows(
    ax: Any, t: Any, windows: Any, laws: Any, queue: Any, queue_label: str = "queue"
) -> list[Any]:
    """Each flow's window (and the queue, dashed) against time on ``ax`` (a new figure's when
    ``None``); returns the artists."""
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
    artists: list[Any] = []
    for j, law in enumerate(laws):
        artists += ax.plot(t, windows[j], label=f"flow {j} ({law}) window")
    if queue is not None:
        artists += ax.plot(t, queue, "k--", label=queue_label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.legend(loc="best")
    return artists
