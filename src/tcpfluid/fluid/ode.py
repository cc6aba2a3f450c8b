"""Continuous-time fluid model of N window-based flows on one bottleneck.

The model follows the fluid arguments the documents lean on: Mo et al. and Boutremans–Le
Boudec for Vegas (thesis, document 001 ch. 2 §5), Low's duality view of Vegas, and the
Misra–Gong–Towsley (MGT) model of TCP Reno over RED. It is integrated with
:func:`scipy.integrate.solve_ivp`. See ``docs/ode-model.md`` for the derivation, how the
Vegas discontinuity is handled and the limits of the model.

State (``n`` flows):

``w_j``  congestion window, packets;
``x_j``  over-estimation of the propagation delay in the recorded BaseRTT, s
         (BaseRTT_j = d_j + x_j, thesis ch. 2 §5); a flow joining a busy link records the
         queueing delay it sees at its first RTT sample and only lowers it when the queue
         empties further (a running minimum);
``D_j``, ``L_j`` cumulative delivered and lost packets (exact averages);
``q``   bottleneck queue, packets, kept within ``[0, buffer]``;
``q̄``   RED's averaged queue (MGT eq.: dq̄/dt = C ln(1 − w_q)(q̄ − q));
``q_r`` queue of the ACK path bottleneck (document 003), ACKs;
``∫q``  integrated queue (for the mean queue length).

Right-hand sides (rate ``r_j = w_j / RTT_j`` with ``RTT_j = d_j + q/C + q_r/C_r``, loss
probability ``p`` from drop-tail or RED, Vegas's backlog ``Δ_j = w_j (1 − BaseRTT_j/RTT_j)``,
eq. 1 of document 000):

* Vegas / Enhanced Vegas (eq. 2 of document 000: ±1 per RTT):
  ``dw_j/dt = s(Δ_j)/RTT_j − κ_j w_j p r_j`` with ``s`` a ramped sign of stated width ε;
* FAST: ``dw_j/dt = min(γ (α_j − Δ_j), w_j) / RTT_j − w_j p r_j / 2``
  (per-RTT update ``w ← min(2w, (1−γ)w + γ(w BaseRTT/RTT + α))``);
* Reno (MGT, without the feedback delay): ``dw_j/dt = 1/RTT_j − w_j p r_j / 2``;
* queue: ``dq/dt = inflow − min(C, inflow + C q/q_s)`` with ``inflow = (1 − p)(Σ r_j +
  CBR)``: the link serves C while a queue exists and the arrivals while it is empty.

Every switch (Vegas's sign, the empty queue, drop-tail overflow, RED's cliff, the window
floor and cap) is a Lipschitz ramp of stated width: a jump in the right-hand side lets an
implicit solver's Newton iteration converge to a wrong trajectory silently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.integrate import solve_ivp

from .._validation import (
    check_choice,
    check_int,
    check_nonnegative,
    check_positive,
    check_range,
)
from ..algorithms._common import backlog
from ..algorithms.base import OdeForm, classical_ode_form
from ..algorithms.registry import ALGORITHMS, law_class
from ..analytic import jain_index
from ..metrics import _finite_or_none, bandwidth_changes, settling_by_segment
from ..path import Path
from ..queueing import RED_DEFAULTS, RedParameters, red_drop_probability
from ..scenarios import Scenario

__all__ = [
    "ODE_LAWS",
    "OdeFlow",
    "OdeProblem",
    "OdeResult",
    "OdeSummary",
    "RedQueue",
    "ode_problem",
    "simulate_ode",
    "simulate_scenario_ode",
]

FloatArray = NDArray[np.float64]

#: control laws with a classical ODE right-hand side: the laws whose class declares an
#: :class:`~tcpfluid.algorithms.base.OdeForm` (the rate and the loss cut live on the law)
ODE_LAWS: tuple[str, ...] = tuple(
    n for n in ALGORITHMS if classical_ode_form(law_class(n)) is not None
)


def _form(law: str) -> OdeForm:
    form = classical_ode_form(law_class(law))
    assert form is not None  # simulate_ode checked the flows' laws against ODE_LAWS
    return form


_METHODS = ("LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853")
_MIN_WINDOW_PKTS = 1.0
#: width of the Lipschitz ramps at the window floor and cap, packets
_SOFT_WINDOW_PKTS = 0.25
#: queue below which the link serves less than C (an empty-queue boundary layer), packets
_SOFT_QUEUE_PKTS = 0.05


def _unit(v: Any) -> Any:
    """Clip to [0, 1] (np.clip's dispatch costs more than the work on small arrays)."""
    return np.minimum(np.maximum(v, 0.0), 1.0)


def _time(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """Seconds from a number or a string such as ``"100ms"``."""
    if isinstance(value, str):
        from .. import units

        return units.seconds(value, name=name)
    if allow_inf and isinstance(value, int | float) and value == math.inf:
        return math.inf
    return check_nonnegative(name, value)


@dataclass(frozen=True)
class OdeFlow:
    """One flow of the ODE model.

    Parameters
    ----------
    law
        A registered algorithm name. The classical right-hand sides of
        :func:`simulate_ode` exist for ``"vegas"``, ``"enhanced-vegas"`` (α = β, Hasegawa's
        δ, thesis ch. 2 §4), ``"fast"`` and ``"reno"`` (:data:`ODE_LAWS`); every law runs
        on the hybrid model (:func:`simulate_scenario_ode`, :mod:`tcpfluid.fluid.hybrid`).
    rtt_s
        Propagation (base) round-trip time d_j, s (numbers or strings such as ``"184ms"``).
    alpha_pkts, beta_pkts
        Vegas thresholds α ≤ β in packets (eq. 2 of document 000); Enhanced Vegas needs
        α = β; FAST uses ``alpha_pkts`` as its target backlog and ignores β.
    fast_gamma
        FAST's smoothing factor γ in (0, 1].
    start_s, stop_s
        When the flow joins and leaves (``stop_s = inf``: never).
    initial_window_pkts
        Window at ``start_s``, packets.
    max_window_pkts
        Receiver/advertised window cap (``inf``: none); the thesis uses 30.
    law_params
        The law's registry parameters (:func:`tcpfluid.algorithms.get_law`), used when the
        flow runs on the hybrid model (:func:`simulate_scenario_ode`); the classical
        right-hand sides read ``alpha_pkts``, ``beta_pkts`` and ``fast_gamma``.
    base_rtt_error_s
        A persistent floor on the flow's RTT samples above the fluid RTT, s: the recorded
        BaseRTT tracks ``d_j + min(queueing delay) + base_rtt_error_s``. In a packet
        network a flow's packets keep waiting behind other flows' packets, so its minimum
        RTT over-estimates d_j by about one packet's service time (thesis Table 3.6:
        5.3 ms = one 1000-byte packet at 1.5 Mb/s); 0 is the pure fluid view.
    """

    law: str
    rtt_s: float
    alpha_pkts: float = 1.0
    beta_pkts: float = 3.0
    fast_gamma: float = 0.5
    start_s: float = 0.0
    stop_s: float = math.inf
    initial_window_pkts: float = 2.0
    max_window_pkts: float = math.inf
    base_rtt_error_s: float = 0.0
    law_params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        from ..algorithms.registry import ALGORITHMS

        check_choice("law", self.law, tuple(ALGORITHMS))
        if not isinstance(self.law_params, tuple):
            object.__setattr__(self, "law_params", tuple(sorted(dict(self.law_params).items())))
        d = _time("rtt_s", self.rtt_s)
        if d <= 0:
            raise ValueError(f"rtt_s must be > 0 s, got {self.rtt_s!r}")
        object.__setattr__(self, "rtt_s", d)
        a = check_positive("alpha_pkts", self.alpha_pkts)
        b = check_positive("beta_pkts", self.beta_pkts)
        if self.law == "enhanced-vegas" and a != b:
            raise ValueError(
                f"enhanced-vegas needs alpha_pkts == beta_pkts, got alpha_pkts={a!r}, "
                f"beta_pkts={b!r}"
            )
        if self.law == "vegas" and b < a:
            raise ValueError(f"beta_pkts must be >= alpha_pkts={a!r}, got {b!r}")
        object.__setattr__(self, "alpha_pkts", a)
        object.__setattr__(self, "beta_pkts", b)
        object.__setattr__(
            self, "fast_gamma", check_range("fast_gamma", self.fast_gamma, 0.0, 1.0, lo_open=True)
        )
        start = _time("start_s", self.start_s)
        stop = _time("stop_s", self.stop_s, allow_inf=True)
        if stop <= start:
            raise ValueError(f"stop_s must be > start_s={start!r}, got {self.stop_s!r}")
        object.__setattr__(self, "start_s", start)
        object.__setattr__(self, "stop_s", stop)
        w0 = check_range("initial_window_pkts", self.initial_window_pkts, 1.0, math.inf)
        object.__setattr__(self, "initial_window_pkts", w0)
        wmax = check_positive("max_window_pkts", self.max_window_pkts, allow_inf=True)
        if wmax < w0:
            raise ValueError(
                f"max_window_pkts must be >= initial_window_pkts={w0!r}, "
                f"got {self.max_window_pkts!r}"
            )
        object.__setattr__(self, "max_window_pkts", wmax)
        object.__setattr__(
            self, "base_rtt_error_s", check_nonnegative("base_rtt_error_s", self.base_rtt_error_s)
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-number description (``None`` for an infinite stop time or cap)."""
        return {
            "law": self.law,
            "rtt_s": self.rtt_s,
            "alpha_pkts": self.alpha_pkts,
            "beta_pkts": self.beta_pkts,
            "fast_gamma": self.fast_gamma,
            "start_s": self.start_s,
            "stop_s": None if math.isinf(self.stop_s) else self.stop_s,
            "initial_window_pkts": self.initial_window_pkts,
            "max_window_pkts": None if math.isinf(self.max_window_pkts) else self.max_window_pkts,
            "base_rtt_error_s": self.base_rtt_error_s,
        }


@dataclass(frozen=True)
class RedQueue:
    """RED gateway parameters (Floyd and Jacobson; thesis ch. 2 §6), MGT fluid form.

    Parameters
    ----------
    min_th_pkts, max_th_pkts
        Thresholds on the averaged queue, packets (the thesis uses 15 and 45).
    max_p
        Marking probability at ``max_th`` (``1/linterm_``; default
        :data:`tcpfluid.queueing.RED_DEFAULTS`, 0.1; the thesis uses 1/50).
    weight
        EWMA weight ``q_weight_`` per packet arrival (0.002 in ns and the thesis).

    The drop probability is :func:`tcpfluid.queueing.red_drop_probability` (one RED for
    every engine).
    gentle
        ``False``: every packet is dropped once the average exceeds ``max_th`` (classic RED,
        ns's default at the time of the thesis; the model makes the jump a ramp from
        ``max_p`` to 1 over one packet above ``max_th``); ``True``: the probability rises
        linearly from ``max_p`` to 1 between ``max_th`` and ``2 max_th``.
    """

    min_th_pkts: float = 15.0
    max_th_pkts: float = 45.0
    max_p: float = RED_DEFAULTS["max_p"]
    weight: float = RED_DEFAULTS["w_q"]
    gentle: bool = RED_DEFAULTS["gentle"]

    def __post_init__(self) -> None:
        lo = check_nonnegative("min_th_pkts", self.min_th_pkts)
        hi = check_positive("max_th_pkts", self.max_th_pkts)
        if hi <= lo:
            raise ValueError(f"max_th_pkts must be > min_th_pkts={lo!r}, got {self.max_th_pkts!r}")
        object.__setattr__(self, "min_th_pkts", lo)
        object.__setattr__(self, "max_th_pkts", hi)
        object.__setattr__(self, "max_p", check_range("max_p", self.max_p, 0.0, 1.0, lo_open=True))
        object.__setattr__(
            self, "weight", check_range("weight", self.weight, 0.0, 1.0, lo_open=True, hi_open=True)
        )
        if not isinstance(self.gentle, bool):
            raise TypeError(f"gentle must be a bool, got {self.gentle!r}")

    def probability(self, avg_queue_pkts: Any) -> FloatArray:
        """Drop probability at averaged queue ``avg_queue_pkts`` (array code)."""
        return red_drop_probability(avg_queue_pkts, self.parameters())

    def parameters(self) -> RedParameters:
        """The same gateway as :class:`tcpfluid.queueing.RedParameters`."""
        return RedParameters(
            self.min_th_pkts, self.max_th_pkts, max_p=self.max_p, w_q=self.weight,
            gentle=self.gentle,
        )  # fmt: skip

    @classmethod
    def from_parameters(cls, red: RedParameters) -> RedQueue:
        """The ODE's view of a link's RED parameters (:mod:`tcpfluid.queueing`)."""
        return cls(red.min_th_pkts, red.max_th_pkts, red.max_p, red.w_q, red.gentle)

    def to_dict(self) -> dict[str, Any]:
        """Plain-number description."""
        return {
            "min_th_pkts": self.min_th_pkts,
            "max_th_pkts": self.max_th_pkts,
            "max_p": self.max_p,
            "weight": self.weight,
            "gentle": self.gentle,
        }


@dataclass(frozen=True)
class OdeSummary:
    """Metrics of an ODE run (definitions of settling in :mod:`tcpfluid.metrics`).

    Averages are over the measurement window ``[measure_from_s, measure_to_s]``:
    throughputs are delivered packets per second of the flow's active time inside the
    window, computed from the integrated delivery state (not from sampled rates);
    utilization counts everything the bottleneck carried (flows and cross traffic).
    Window metrics (settled window, time to equilibrium from the flow's start to the first
    bandwidth change, convergence after each change) use
    :func:`tcpfluid.metrics.settling` on the sampled windows; ``None`` in ``to_dict``
    means "did not settle". The classical model has no slow start, so the slow-start keys
    of the round model's summary are ``None``; the hybrid model (``model="hybrid"``) has
    one and fills ``ss_exit_window_pkts``/``ss_exit_time_s`` (flow 0, the packet
    simulator's definition) and its window metrics from the flows' round traces.
    """

    measure_from_s: float
    measure_to_s: float
    throughput_pps: tuple[float, ...]
    jain_index: float
    utilization: float
    mean_queue_pkts: float
    final_queue_pkts: float
    final_windows_pkts: tuple[float, ...]
    base_rtt_overestimate_s: tuple[float, ...]
    lost_pkts: float
    loss_fraction: float
    losses_pkts: tuple[float, ...] = ()
    change_times_s: tuple[float, ...] = ()
    settled_window_pkts: tuple[float | None, ...] = ()
    time_to_equilibrium_s: tuple[float | None, ...] = ()
    convergence_times_s: tuple[float | None, ...] = ()
    ss_exit_window_pkts: float | None = None
    ss_exit_time_s: float | None = None
    model: str = "classical"

    def to_dict(self) -> dict[str, Any]:
        """Plain numbers and lists, JSON-ready.

        The keys of the round model's summary are included (window metrics of flow 0):
        ``ss_exit_window``, ``ss_exit_time_s`` (``None`` in the classical model: no slow
        start), ``ss_exit_round`` (``None``), ``settled_window``, ``time_to_equilibrium_s``,
        ``convergence_times_s``, ``change_times_s``, ``utilization``, ``throughput_pps``,
        ``jain_index``, ``losses``.
        """
        return {
            "ss_exit_window": self.ss_exit_window_pkts,
            "ss_exit_time_s": self.ss_exit_time_s,
            "ss_exit_round": None,
            "settled_window": self.settled_window_pkts[0] if self.settled_window_pkts else None,
            "time_to_equilibrium_s": (
                self.time_to_equilibrium_s[0] if self.time_to_equilibrium_s else None
            ),
            "convergence_times_s": list(self.convergence_times_s),
            "change_times_s": list(self.change_times_s),
            "losses": list(self.losses_pkts),
            "settled_windows_pkts": list(self.settled_window_pkts),
            "times_to_equilibrium_s": list(self.time_to_equilibrium_s),
            "measure_from_s": self.measure_from_s,
            "measure_to_s": self.measure_to_s,
            "throughput_pps": list(self.throughput_pps),
            "jain_index": self.jain_index,
            "utilization": self.utilization,
            "mean_queue_pkts": self.mean_queue_pkts,
            "final_queue_pkts": self.final_queue_pkts,
            "final_windows_pkts": list(self.final_windows_pkts),
            "base_rtt_overestimate_s": list(self.base_rtt_overestimate_s),
            "lost_pkts": self.lost_pkts,
            "loss_fraction": self.loss_fraction,
        }


@dataclass(frozen=True)
class OdeResult:
    """Trajectories of an ODE run; per-flow arrays are ``(n_flows, n_points)`` as in solve_ivp.

    Attributes
    ----------
    t
        Sample times, s, shape ``(n_points,)``.
    windows_pkts, rates_pps, rtt_s, base_rtt_s, delta_pkts
        Window, sending rate ``w/RTT``, RTT, recorded BaseRTT and Vegas's backlog estimate
        Δ = w (1 − BaseRTT/RTT) (eq. 1 of document 000), per flow. Inactive flows (before
        ``start_s`` or after ``stop_s``) show 0 and ``active`` is ``False`` there.
    delivered_pkts, lost_pkts
        Cumulative delivered and dropped packets per flow.
    queue_pkts, avg_queue_pkts, reverse_queue_pkts, loss_probability
        Bottleneck queue, RED's averaged queue (equal to 0 under drop-tail), ACK-path queue
        and the drop probability p, shape ``(n_points,)``.
    status, message
        0 and ``"ok"`` when the whole horizon was integrated; −1 and the reason otherwise
        (the arrays then stop at the last good point: check ``success``).
    nfev
        Right-hand-side evaluations used (0 for the hybrid model).
    loss_events
        Cumulative loss events per flow, ``(n_flows, n_points)``: the classical model cuts
        the window once per lost packet (MGT), so it equals ``lost_pkts``; the hybrid model
        counts the events its laws reacted to (several drops within an RTT are one event).
    hybrid
        The :class:`~tcpfluid.fluid.hybrid.HybridResult` when the hybrid model ran (its
        per-flow round traces), else ``None``.
    """

    t: FloatArray
    windows_pkts: FloatArray
    rates_pps: FloatArray
    rtt_s: FloatArray
    base_rtt_s: FloatArray
    delta_pkts: FloatArray
    delivered_pkts: FloatArray
    lost_pkts: FloatArray
    active: NDArray[np.bool_]
    queue_pkts: FloatArray
    avg_queue_pkts: FloatArray
    reverse_queue_pkts: FloatArray
    loss_probability: FloatArray
    status: int
    message: str
    nfev: int
    capacity_pps: float
    flows: tuple[OdeFlow, ...]
    summary: OdeSummary | None = field(default=None)
    hybrid: Any = field(default=None, repr=False, compare=False)
    loss_events: FloatArray | None = field(default=None, repr=False, compare=False)

    @property
    def success(self) -> bool:
        """True when the horizon was integrated without failure."""
        return self.status == 0

    @property
    def n_flows(self) -> int:
        """Number of flows."""
        return len(self.flows)

    def raise_for_status(self) -> OdeResult:
        """Raise :class:`RuntimeError` with ``message`` if the run failed; else return self."""
        if self.status != 0:
            raise RuntimeError(f"ODE integration failed (status {self.status}): {self.message}")
        return self

    def to_frame(self) -> Any:
        """Long-format :class:`pandas.DataFrame`: one row per (time, flow)."""
        import pandas as pd

        n, k = self.windows_pkts.shape
        return pd.DataFrame(
            {
                "t_s": np.tile(self.t, n),
                "flow": np.repeat(np.arange(n), k),
                "window_pkts": self.windows_pkts.ravel(),
                "rate_pps": self.rates_pps.ravel(),
                "rtt_s": self.rtt_s.ravel(),
                "base_rtt_s": self.base_rtt_s.ravel(),
                "delta_pkts": self.delta_pkts.ravel(),
                "delivered_pkts": self.delivered_pkts.ravel(),
                "lost_pkts": self.lost_pkts.ravel(),
                "active": self.active.ravel(),
                "queue_pkts": np.tile(self.queue_pkts, n),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """Status, flows and summary as plain numbers (JSON-ready; no trajectories)."""
        return {
            "engine": "ode",
            "status": self.status,
            "message": self.message,
            "nfev": self.nfev,
            "capacity_pps": self.capacity_pps,
            "t_end_s": float(self.t[-1]) if self.t.size else 0.0,
            "flows": [f.to_dict() for f in self.flows],
            "summary": None if self.summary is None else self.summary.to_dict(),
        }

    def plot(self, ax: Any = None) -> list[Any]:
        """Plot the windows (and the queue, dashed) against time; returns the artists."""
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        artists: list[Any] = []
        for j in range(self.n_flows):
            w = np.where(self.active[j], self.windows_pkts[j], np.nan)
            artists += ax.plot(self.t, w, label=f"flow {j} ({self.flows[j].law}) window")
        artists += ax.plot(self.t, self.queue_pkts, "k--", label="queue")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.legend(loc="best")
        return artists


class _BudgetExceeded(Exception):
    pass


class _Model:
    """Vectorised right-hand side; column-wise over states for solve_ivp's ``vectorized``."""

    def __init__(
        self,
        flows: Sequence[OdeFlow],
        capacity_pps: float,
        buffer_pkts: float,
        reverse_pps: float,
        red: RedQueue | None,
        switch_width_pkts: float,
        droptail_width_pkts: float,
        max_rhs_evals: int,
    ) -> None:
        n = len(flows)
        self.n = n
        col = lambda v: np.asarray(v, dtype=np.float64).reshape(n, 1)  # noqa: E731
        self.d = col([f.rtt_s for f in flows])
        self.alpha = col([f.alpha_pkts for f in flows])
        self.beta = col([f.beta_pkts for f in flows])
        self.gamma = col([f.fast_gamma for f in flows])
        self.wmax = col([f.max_window_pkts for f in flows])
        self.err = col([f.base_rtt_error_s for f in flows])
        forms = [_form(f.law) for f in flows]
        self.cut = col([fm.loss_cut for fm in forms])
        # the laws' own rate forms, each with the mask of its flows (only the forms present
        # are evaluated: a sweep calls the right-hand side millions of times)
        self.forms: list[tuple[OdeForm, NDArray[np.bool_]]] = []
        for fm in dict.fromkeys(forms):
            mask = np.array([g is fm for g in forms]).reshape(n, 1)
            self.forms.append((fm, mask))
        self.C = capacity_pps
        self.B = buffer_pkts
        self.Cr = reverse_pps
        self.red = red
        self.eps = switch_width_pkts
        self.eps_b = droptail_width_pkts
        self.red_rate = 0.0 if red is None else capacity_pps * math.log1p(-red.weight)
        self.active = np.ones((n, 1), dtype=bool)
        self.cross_pps = 0.0
        self.budget = max_rhs_evals
        self.nfev = 0
        # state layout
        self.i_w = slice(0, n)
        self.i_x = slice(n, 2 * n)
        self.i_D = slice(2 * n, 3 * n)
        self.i_L = slice(3 * n, 4 * n)
        self.i_q = 4 * n
        self.i_qa = 4 * n + 1
        self.i_qr = 4 * n + 2
        self.i_Q = 4 * n + 3
        self.i_X = 4 * n + 4  # cross traffic carried
        self.size = 4 * n + 5

    def sparsity(self) -> Any:
        """Jacobian sparsity pattern (for BDF/Radau's finite differences and sparse LU)."""
        from scipy.sparse import lil_matrix

        n = self.n
        S = lil_matrix((self.size, self.size), dtype=np.int8)
        shared = [self.i_q, self.i_qa, self.i_qr]
        w_cols = list(range(self.i_w.start, self.i_w.stop))
        for j in range(n):
            w, x, D, L = (
                self.i_w.start + j,
                self.i_x.start + j,
                self.i_D.start + j,
                self.i_L.start + j,
            )
            for c in (w, x, *shared):
                S[w, c] = 1  # own window: own Δ, RTT, loss
            for c in (w, x, *shared):
                S[x, c] = 1  # BaseRTT tracking: queueing delay
            for c in (*w_cols, *shared):
                S[D, c] = 1  # delivery share depends on every rate
            for c in (w, *shared):
                S[L, c] = 1
        for r in (self.i_q, self.i_qr, self.i_X):
            for c in (*w_cols, *shared):
                S[r, c] = 1
        S[self.i_qa, self.i_qa] = 1
        S[self.i_qa, self.i_q] = 1
        S[self.i_Q, self.i_q] = 1
        return S.tocsc()

    # -- algebraic quantities --------------------------------------------------
    def algebra(self, y: FloatArray) -> dict[str, FloatArray]:
        n = self.n
        w = np.minimum(y[self.i_w], self.wmax)  # the cap binds exactly, whatever the step
        x = y[self.i_x]
        q = np.minimum(np.maximum(y[self.i_q], 0.0), self.B)
        qa = y[self.i_qa]
        qr = np.maximum(y[self.i_qr], 0.0) if math.isfinite(self.Cr) else np.zeros_like(q)
        qdelay = q / self.C + (qr / self.Cr if math.isfinite(self.Cr) else 0.0)
        rtt = self.d + qdelay  # (n, k)
        act = self.active
        rate = np.where(act, w / rtt, 0.0)
        base = self.d + x
        delta = backlog(w, base, rtt)
        total = rate.sum(axis=0) + self.cross_pps
        if math.isfinite(self.B):
            p = _unit((q - (self.B - self.eps_b)) / self.eps_b)
        else:
            p = np.zeros_like(q)
        if self.red is not None:
            p = 1.0 - (1.0 - p) * (1.0 - self.red.probability(qa))
        del n
        return {
            "w": w, "x": x, "q": q, "qa": qa, "qr": qr, "qdelay": qdelay, "rtt": rtt,
            "rate": rate, "delta": delta, "total": total, "p": p,
        }  # fmt: skip

    def __call__(self, t: float, y: FloatArray) -> FloatArray:
        y2 = y.reshape(self.size, -1)
        self.nfev += y2.shape[1]
        if self.nfev > self.budget:
            raise _BudgetExceeded
        a = self.algebra(y2)
        w, rtt, rate, delta, p, q = a["w"], a["rtt"], a["rate"], a["delta"], a["p"], a["q"]
        loss_rate = p * rate  # loss events per second per flow
        # Vegas / Enhanced Vegas: +1, 0, -1 per RTT, ramped over eps packets
        eps = self.eps
        s = _unit((self.alpha - delta) / eps) - _unit((delta - self.beta) / eps)
        fm, mask = self.forms[0]
        dw = fm.rate(s, delta, w, rtt, self.alpha, self.gamma)
        for fm, mask in self.forms[1:]:
            dw = np.where(mask, fm.rate(s, delta, w, rtt, self.alpha, self.gamma), dw)
        dw = dw - self.cut * w * loss_rate
        # floor and cap as Lipschitz ramps (an implicit solver's Newton iteration is fooled
        # by jumps in the right-hand side: see docs/ode-model.md)
        floor = _unit((w - _MIN_WINDOW_PKTS) / _SOFT_WINDOW_PKTS)
        cap = _unit((self.wmax + _SOFT_WINDOW_PKTS - y2[self.i_w]) / _SOFT_WINDOW_PKTS)
        dw = np.where(dw < 0.0, dw * floor, dw * cap)
        dw = np.where(self.active, dw, 0.0)
        # queue: the link serves min(C, inflow + C q / q_soft): C whenever a queue exists,
        # the arrivals when it is empty; continuous, and q stays >= 0 without clipping
        inflow = (1.0 - p) * a["total"]
        served = np.minimum(self.C, inflow + self.C * q / _SOFT_QUEUE_PKTS)
        dq = inflow - served
        share = np.where(inflow > 0.0, served / np.where(inflow > 0.0, inflow, 1.0), 0.0)
        delivered = (1.0 - p) * rate * share
        # ACK path: the same server law for the ACK queue
        if math.isfinite(self.Cr):
            qr = a["qr"]
            dqr = served - np.minimum(self.Cr, served + self.Cr * qr / _SOFT_QUEUE_PKTS)
        else:
            dqr = np.zeros_like(dq)
        # recorded BaseRTT: follows the minimum of the queueing delay seen since joining,
        # relaxing down with time constant d_j / 50 and never up
        x = a["x"]
        dx = -(50.0 / self.d) * np.maximum(x - a["qdelay"] - self.err, 0.0)
        dx = np.where(self.active, dx, 0.0)
        dqa = self.red_rate * (a["qa"] - q) if self.red is not None else np.zeros_like(q)
        out = np.empty_like(y2)
        out[self.i_w] = dw
        out[self.i_x] = dx
        out[self.i_D] = delivered
        out[self.i_L] = loss_rate
        out[self.i_q] = dq
        out[self.i_qa] = dqa
        out[self.i_qr] = dqr
        out[self.i_Q] = q
        out[self.i_X] = (1.0 - p) * self.cross_pps * share
        return out.reshape(y.shape)


def _cross_traffic(items: Sequence[Any]) -> list[tuple[float, float, float]]:
    out = []
    if isinstance(items, str | bytes):
        raise TypeError(f"cross_traffic must be a sequence of sources, got {items!r}")
    for i, item in enumerate(items):
        if hasattr(item, "rate_pps"):
            rate, start, stop = item.rate_pps, item.start_s, item.stop_s
        else:
            try:
                rate, start, stop = item
            except (TypeError, ValueError):
                raise TypeError(
                    f"cross_traffic[{i}] must be (rate_pps, start_s, stop_s) or have those "
                    f"attributes, got {item!r}"
                ) from None
        r = check_positive(f"cross_traffic[{i}].rate_pps", rate)
        a = _time(f"cross_traffic[{i}].start_s", start)
        b = _time(f"cross_traffic[{i}].stop_s", stop, allow_inf=True)
        if b <= a:
            raise ValueError(f"cross_traffic[{i}].stop_s must be > start_s={a!r}, got {stop!r}")
        out.append((r, a, b))
    return out


def _path_parts(path: Any) -> tuple[float, float, float]:
    if isinstance(path, Path):
        rev = math.inf if path.reverse_mu is None else path.reverse_mu
        return path.mu, path.buffer_pkts, rev
    raise TypeError(f"path must be a tcpfluid.Path, got {path!r} ({type(path).__name__})")


def simulate_ode(
    flows: Sequence[OdeFlow],
    path: Path,
    *,
    t_end_s: Any,
    n_points: int = 1001,
    red: RedQueue | None = None,
    switch_width_pkts: float = 0.1,
    droptail_width_pkts: float = 1.0,
    measure_from_s: Any = None,
    method: str = "BDF",
    rtol: float = 1e-6,
    atol: float = 1e-8,
    max_step_s: Any = math.inf,
    max_rhs_evals: int = 500_000,
    cross_traffic: Sequence[Any] = (),
) -> OdeResult:
    """Integrate the fluid model of ``flows`` sharing the bottleneck of ``path``.

    Parameters
    ----------
    flows
        The flows (:class:`OdeFlow`), each with its own law, propagation RTT, parameters
        and active period.
    path
        The bottleneck: its rate μ (``path.mu``, packets/s), buffer (``path.buffer_pkts``;
        ``inf`` means no loss) and optional ACK-path rate (``path.reverse_mu``, ACKs/s,
        document 003). ``path.d`` is not used: each flow carries its own ``rtt_s``.
    t_end_s
        Horizon, s.
    n_points
        Number of evenly spaced output samples over ``[0, t_end_s]``.
    red
        :class:`RedQueue` for a RED gateway (MGT model); ``None`` for drop-tail.
    switch_width_pkts
        Width ε of the ramp replacing Vegas's ±1 sign (``s = +1`` for Δ ≤ α − ε, 0 on
        [α, β], −1 for Δ ≥ β + ε, linear in between). The equilibrium set Δ ∈ [α, β] does
        not depend on ε (``docs/ode-model.md``); a smaller ε is stiffer.
    droptail_width_pkts
        Drop-tail is modelled as a drop probability rising linearly from 0 at
        ``buffer − width`` to 1 at ``buffer`` (a continuous stand-in for overflow).
    measure_from_s
        Start of the averaging window of :attr:`OdeResult.summary` (default: half the
        horizon).
    method
        solve_ivp method. The default ``"BDF"`` (implicit, with the right-hand side
        vectorised for its finite-difference Jacobian) copes with the stiff parts: the
        switching ramp, the queue's boundaries, the BaseRTT tracking. ``"LSODA"`` is often
        faster on smooth runs but can stall where the queue empties (it then ends with
        ``status = -1``, see ``max_rhs_evals``).
    rtol, atol, max_step_s
        Passed to solve_ivp.
    max_rhs_evals
        Budget of right-hand-side evaluations; exceeding it (a step-size collapse) ends the
        run with ``status = -1`` and a message saying so.
    cross_traffic
        Unresponsive constant-rate sources crossing the bottleneck (the CBR of document 000
        §5.1): ``(rate_pps, start_s, stop_s)`` tuples or objects with those attributes
        (:class:`tcpfluid.scenarios.CrossTrafficChange`). They queue and lose packets like
        the flows but do not react.

    Returns
    -------
    OdeResult
        Trajectories, ``status``/``message`` and a :class:`OdeSummary`.

    Raises
    ------
    ValueError, TypeError
        On invalid input, before any integration.
    """
    if isinstance(flows, OdeFlow):
        flows = [flows]
    flows = tuple(flows)
    if len(flows) == 0:
        raise ValueError("flows must hold at least one OdeFlow, got an empty sequence")
    for i, f in enumerate(flows):
        if not isinstance(f, OdeFlow):
            raise TypeError(f"flows[{i}] must be an OdeFlow, got {f!r} ({type(f).__name__})")
        if f.law not in ODE_LAWS:
            raise ValueError(
                f"flows[{i}] runs {f.law!r}, which has no classical ODE right-hand side "
                f"({', '.join(ODE_LAWS)} have one); run it on the hybrid model "
                "(tcpfluid.fluid.simulate_hybrid, or simulate_scenario_ode)"
            )
    capacity, buffer_pkts, reverse = _path_parts(path)
    t_end = _time("t_end_s", t_end_s)
    if t_end <= 0:
        raise ValueError(f"t_end_s must be > 0 s, got {t_end_s!r}")
    n_points = check_int("n_points", n_points, minimum=2)
    if red is not None and not isinstance(red, RedQueue):
        raise TypeError(f"red must be a RedQueue or None, got {red!r}")
    eps = check_positive("switch_width_pkts", switch_width_pkts)
    for i, f in enumerate(flows):
        if f.law in ("vegas", "enhanced-vegas", "fast") and f.alpha_pkts < eps:
            raise ValueError(
                f"flows[{i}].alpha_pkts={f.alpha_pkts!r} is below switch_width_pkts={eps!r}: "
                "the ramped sign of the right-hand side cannot resolve a threshold narrower "
                "than its width; give alpha_pkts >= switch_width_pkts or a smaller "
                "switch_width_pkts"
            )
    eps_b = check_positive("droptail_width_pkts", droptail_width_pkts)
    if math.isfinite(buffer_pkts) and eps_b > buffer_pkts:
        raise ValueError(
            f"droptail_width_pkts must be <= the buffer ({buffer_pkts:g} pkts), "
            f"got {droptail_width_pkts!r}"
        )
    m_from = t_end / 2.0 if measure_from_s is None else _time("measure_from_s", measure_from_s)
    if m_from >= t_end:
        raise ValueError(f"measure_from_s must be < t_end_s={t_end!r}, got {measure_from_s!r}")
    check_choice("method", method, _METHODS)
    rtol = check_range("rtol", rtol, 1e-12, 0.1)
    atol = check_range("atol", atol, 0.0, 1e-3, lo_open=True)  # packets: above 1e-3 the
    # solver may skip whole packets of a window or queue and still report success
    max_step = _time("max_step_s", max_step_s, allow_inf=True)
    if max_step <= 0:
        raise ValueError(f"max_step_s must be > 0 s, got {max_step_s!r}")
    budget = check_int("max_rhs_evals", max_rhs_evals, minimum=1)
    cross = _cross_traffic(cross_traffic)
    starts = [f.start_s for f in flows]
    if min(starts) >= t_end:
        raise ValueError(
            f"no flow starts before t_end_s={t_end!r}; earliest start_s is {min(starts)!r}"
        )

    if not any(f.start_s < t_end and f.stop_s > m_from for f in flows):
        raise ValueError(
            f"no flow is active in the measurement window [{m_from!r}, {t_end!r}] s; "
            "choose measure_from_s (and the flows' start_s/stop_s) so that one is"
        )
    model = _Model(flows, capacity, buffer_pkts, reverse, red, eps, eps_b, budget)
    n = model.n
    t_grid = np.linspace(0.0, t_end, n_points)
    cuts = sorted(
        {0.0, t_end}
        | {f.start_s for f in flows if f.start_s < t_end}
        | {f.stop_s for f in flows if f.stop_s < t_end}
        | {c[1] for c in cross if c[1] < t_end}
        | {c[2] for c in cross if c[2] < t_end}
    )
    y = np.zeros(model.size)
    ts: list[FloatArray] = []
    ys: list[FloatArray] = []
    acts: list[NDArray[np.bool_]] = []
    status, message = 0, "ok"
    act = np.zeros(n, dtype=bool)
    # implicit methods: a sparse Jacobian (sparse LU) pays off beyond a few flows
    sparsity = model.sparsity() if (method in ("BDF", "Radau") and n >= 8) else None
    for k in range(len(cuts) - 1):
        t0, t1 = cuts[k], cuts[k + 1]
        # joins and leaves at t0
        a = model.algebra(y.reshape(-1, 1))
        for j, f in enumerate(flows):
            if f.start_s == t0:
                act[j] = True
                y[model.i_w.start + j] = f.initial_window_pkts
                y[model.i_x.start + j] = float(a["qdelay"][0]) + f.base_rtt_error_s
            if f.stop_s == t0:
                act[j] = False
        model.active = act.reshape(n, 1).copy()
        model.cross_pps = sum(c[0] for c in cross if c[1] <= t0 < c[2])
        last = k == len(cuts) - 2
        sel = (t_grid >= t0) & ((t_grid <= t1) if last else (t_grid < t1))
        t_eval = t_grid[sel]
        if not act.any():
            ts.append(t_eval)
            ys.append(np.repeat(y.reshape(-1, 1), t_eval.size, axis=1))
            acts.append(np.zeros((n, t_eval.size), dtype=bool))
            continue
        try:
            sol = solve_ivp(
                model,
                (t0, t1),
                y,
                method=method,
                t_eval=np.append(t_eval, t1) if (t_eval.size == 0 or t_eval[-1] < t1) else t_eval,
                vectorized=method in ("BDF", "Radau"),
                **({"jac_sparsity": sparsity} if sparsity is not None else {}),
                rtol=rtol,
                atol=atol,
                max_step=max_step,
            )
        except _BudgetExceeded:
            status = -1
            message = (
                f"step-size collapse: more than max_rhs_evals={budget} right-hand-side "
                f"evaluations before t={t1:g} s (segment started at {t0:g} s); the problem "
                "is too stiff for this method/tolerance (try method='BDF' or a wider "
                "switch_width_pkts)"
            )
            break
        if sol.status != 0 or not np.all(np.isfinite(sol.y)):
            status = -1
            message = f"solve_ivp failed in [{t0:g}, {t1:g}] s: {sol.message}"
            good = np.all(np.isfinite(sol.y), axis=0)
            keep = np.cumprod(good).astype(bool)
            ts.append(sol.t[keep])
            ys.append(sol.y[:, keep])
            acts.append(np.repeat(act.reshape(n, 1), int(keep.sum()), axis=1))
            break
        nkeep = t_eval.size
        ts.append(sol.t[:nkeep])
        ys.append(sol.y[:, :nkeep])
        acts.append(np.repeat(act.reshape(n, 1), nkeep, axis=1))
        y = sol.y[:, -1].copy()

    t = np.concatenate(ts) if ts else np.zeros(0)
    Y = np.concatenate(ys, axis=1) if ys else np.zeros((model.size, 0))
    active = np.concatenate(acts, axis=1) if acts else np.zeros((n, 0), dtype=bool)
    model.active = np.ones((n, 1), dtype=bool)
    a = model.algebra(Y)

    def _flow(arr: FloatArray) -> FloatArray:
        return np.asarray(np.where(active, arr, 0.0), dtype=np.float64)

    result_kw: dict[str, Any] = {
        "t": t,
        "windows_pkts": _flow(a["w"]),
        "rates_pps": _flow(a["rate"]),
        "rtt_s": _flow(a["rtt"]),
        "base_rtt_s": _flow(model.d + np.maximum(Y[model.i_x], 0.0)),
        "delta_pkts": _flow(a["delta"]),
        "delivered_pkts": Y[model.i_D],
        "lost_pkts": Y[model.i_L],
        "loss_events": Y[model.i_L],
        "active": active,
        "queue_pkts": a["q"],
        "avg_queue_pkts": Y[model.i_qa] if red is not None else np.zeros(t.size),
        "reverse_queue_pkts": a["qr"],
        "loss_probability": a["p"],
        "status": status,
        "message": message,
        "nfev": model.nfev,
        "capacity_pps": capacity,
        "flows": flows,
    }
    summary = None
    if status == 0:
        changes = bandwidth_changes([(c[1], c[2]) for c in cross], t_end)
        summary = _summarise(flows, t, Y, model, m_from, t_end, capacity, result_kw, changes)
    return OdeResult(**result_kw, summary=summary)


def _summarise(
    flows: tuple[OdeFlow, ...],
    t: FloatArray,
    Y: FloatArray,
    model: _Model,
    m_from: float,
    t_end: float,
    capacity: float,
    kw: dict[str, Any],
    changes: tuple[float, ...],
) -> OdeSummary:

    win = kw["windows_pkts"]
    settled_w: list[float | None] = []
    t_eq: list[float | None] = []
    conv: list[float | None] = []
    for j, f in enumerate(flows):
        seg = settling_by_segment(
            t, win[j], start_s=f.start_s, end_s=min(t_end, f.stop_s), change_times_s=changes
        )
        st = seg.equilibrium
        settled_w.append(_finite_or_none(st.value) if bool(st.settled) else None)
        t_eq.append(_finite_or_none(st.time_s) if bool(st.settled) else None)
        if j == 0:  # convergence times: flow 0's, as the other engines' JSON keys
            conv = [_finite_or_none(r.time_s) if bool(r.settled) else None for r in seg.convergence]

    def at(row: FloatArray, when: float) -> FloatArray:
        return np.array([np.interp(when, t, r) for r in np.atleast_2d(row)])

    D0, D1 = at(Y[model.i_D], m_from), Y[model.i_D][:, -1]
    L0, L1 = at(Y[model.i_L], m_from), Y[model.i_L][:, -1]
    Q0, Q1 = float(at(Y[model.i_Q], m_from)[0]), float(Y[model.i_Q, -1])
    span = t_end - m_from
    on = np.array(
        [max(0.0, min(f.stop_s, t_end) - max(f.start_s, m_from)) for f in flows], dtype=float
    )
    thr = np.where(on > 0, (D1 - D0) / np.where(on > 0, on, 1.0), 0.0)
    present = on > 0
    jain = float(jain_index(thr[present])) if present.any() else float("nan")
    delivered = float(np.sum(D1 - D0))
    carried = delivered + float(Y[model.i_X, -1] - at(Y[model.i_X], m_from)[0])
    lost = float(np.sum(L1 - L0))
    return OdeSummary(
        measure_from_s=m_from,
        measure_to_s=t_end,
        throughput_pps=tuple(float(v) for v in thr),
        jain_index=jain,
        utilization=carried / (capacity * span),
        mean_queue_pkts=(Q1 - Q0) / span,
        final_queue_pkts=float(kw["queue_pkts"][-1]),
        final_windows_pkts=tuple(float(v) for v in kw["windows_pkts"][:, -1]),
        base_rtt_overestimate_s=tuple(float(max(v, 0.0)) for v in Y[model.i_x][:, -1]),
        lost_pkts=lost,
        loss_fraction=lost / (lost + delivered) if lost + delivered > 0 else 0.0,
        losses_pkts=tuple(float(v) for v in L1 - L0),
        change_times_s=changes,
        settled_window_pkts=tuple(settled_w),
        time_to_equilibrium_s=tuple(t_eq),
        convergence_times_s=tuple(conv),
    )


# ----------------------------------------------------------------------------- scenarios
@dataclass(frozen=True)
class OdeProblem:
    """A :class:`tcpfluid.scenarios.Scenario` reduced to what the ODE model integrates.

    Attributes
    ----------
    flows
        One :class:`OdeFlow` per scenario flow, with its own propagation RTT (document 000
        eq. 5 over its own links: propagation delays plus the transmission time of a data
        packet on each forward link and of an ACK on each reverse link).
    path
        The shared bottleneck: the slowest forward link crossed by every flow (rate,
        buffer), with an ACK-path bottleneck when a reverse link shared by every flow
        carries fewer ACKs per second than the bottleneck carries packets.
    red
        :class:`RedQueue` when the bottleneck's discipline is ``"red"``.
    cross_traffic
        CBR sources crossing the bottleneck as ``(rate_pps, start_s, stop_s)``.
    duration_s
        The scenario's duration.
    """

    flows: tuple[OdeFlow, ...]
    path: Path
    red: RedQueue | None
    cross_traffic: tuple[tuple[float, float, float], ...]
    duration_s: float


def _ode_law_params(algorithm: str, params: dict[str, Any]) -> dict[str, float]:
    """Map registry parameters (``tcpfluid.algorithms``) to :class:`OdeFlow` fields."""
    from ..algorithms import get_law

    p = dict(params)
    if algorithm == "enhanced-vegas" and "delta" not in p and ("alpha" in p or "beta" in p):
        a, b = p.pop("alpha", None), p.pop("beta", None)
        if a is not None and b is not None and float(a) != float(b):
            raise ValueError(
                f"enhanced-vegas needs alpha == beta (its δ), got alpha={a!r}, beta={b!r}"
            )
        p["delta"] = a if a is not None else b
    law = get_law(algorithm, **p)  # validates names and values, supplies the defaults
    lp = law.params()
    if algorithm == "vegas":
        return {"alpha_pkts": float(lp["alpha"]), "beta_pkts": float(lp["beta"])}
    if algorithm == "enhanced-vegas":
        return {"alpha_pkts": float(lp["delta"]), "beta_pkts": float(lp["delta"])}
    if algorithm == "fast":
        return {"alpha_pkts": float(lp["alpha"]), "fast_gamma": float(lp["gamma"])}
    return {}


def ode_problem(scenario: Any) -> OdeProblem:
    """Reduce a scenario (:mod:`tcpfluid.scenarios`) to an :class:`OdeProblem`.

    The reduction is :func:`tcpfluid.scenarios.reduction.fluid_view` (one bottleneck rule,
    per-flow base RTTs by eq. 5, RED through :mod:`tcpfluid.queueing`, CBR crossing the
    bottleneck), the one every fluid engine uses.

    Raises
    ------
    ValueError
        If a flow has no algorithm, or the scenario has a feature the ODE engine cannot
        model (:func:`tcpfluid.scenarios.check_engine`).
    """
    from ..scenarios.reduction import fluid_view

    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    view = fluid_view(scenario, engine="ode")
    flows = []
    for fl, d, start, stop in zip(
        view.flows, view.base_rtt_s, view.start_s, view.stop_s, strict=True
    ):
        if fl.algorithm is None:
            raise ValueError(f"flow {fl.name!r} has no algorithm; give one (--algorithm NAME)")
        params = dict(fl.params)
        classical = _ode_law_params(fl.algorithm, params) if fl.algorithm in ODE_LAWS else {}
        flows.append(
            OdeFlow(
                fl.algorithm,
                d,
                start_s=start,
                stop_s=stop,
                law_params=tuple(sorted(params.items())),
                **classical,
            )
        )
    return OdeProblem(
        flows=tuple(flows),
        path=view.path,
        red=None if view.red is None else RedQueue.from_parameters(view.red),
        cross_traffic=tuple((c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic),
        duration_s=float(view.duration_s),
    )


#: options of :func:`simulate_ode` that only the classical right-hand sides have
_CLASSICAL_OPTIONS = (
    "switch_width_pkts", "droptail_width_pkts", "method", "rtol", "atol", "max_step_s",
    "max_rhs_evals",
)  # fmt: skip
#: the models :func:`simulate_scenario_ode` can run
ODE_MODELS = ("auto", "hybrid", "classical")


def simulate_scenario_ode(
    scenario: Any, *, model: str = "auto", progress: Any = None, **options: Any
) -> OdeResult:
    """Run the continuous-time fluid model on a scenario.

    Two models share this entry (both :class:`OdeResult`):

    * ``"hybrid"``: :mod:`tcpfluid.fluid.hybrid`, the queue and windows in continuous time
      and each flow's :class:`~tcpfluid.algorithms.base.ControlLaw` (every algorithm, the
      same objects as the other engines) deciding at its own round boundaries;
    * ``"classical"``: :func:`simulate_ode`'s right-hand sides (Vegas, Enhanced Vegas, FAST,
      Reno; :data:`ODE_LAWS`), which also model an ACK-path bottleneck.

    ``model="auto"`` (default) runs the hybrid model, except on a scenario with an ACK-path
    bottleneck or when a classical-only option (``method``, ``rtol``, ``atol``,
    ``switch_width_pkts``, ``droptail_width_pkts``, ``max_step_s``, ``max_rhs_evals``) is
    given; then the classical one. ``options``: ``n_points`` (output samples),
    ``measure_from_s`` (start of the averaging window; default 0: the whole run, as the
    round engine reports), and the classical-only options. This is the ``ode`` engine of
    ``tcpfluid simulate`` and of sweeps.

    Raises
    ------
    ValueError
        A feature no model here can represent, or a law without a classical form on a
        scenario only the classical model can run.
    RuntimeError
        If the classical integration fails (``OdeResult.raise_for_status``).
    """
    check_choice("model", model, ODE_MODELS)
    options.setdefault("measure_from_s", 0.0)
    for bad in ("t_end_s", "red", "cross_traffic"):
        if bad in options:
            raise TypeError(
                f"simulate_scenario_ode() takes {bad!r} from the scenario, not as an option"
            )
    prob = ode_problem(scenario)
    classical_opts = [k for k in _CLASSICAL_OPTIONS if k in options]
    if model == "auto":
        need = math.isfinite(_path_parts(prob.path)[2]) or bool(classical_opts)
        model = "classical" if need else "hybrid"
    if model == "hybrid":
        if classical_opts:
            raise TypeError(
                f"option {classical_opts[0]!r} applies to the classical model only "
                "(model='classical')"
            )
        return _hybrid_as_ode(scenario, prob, progress=progress, **options)
    return simulate_ode(
        prob.flows,
        prob.path,
        t_end_s=prob.duration_s,
        red=prob.red,
        cross_traffic=prob.cross_traffic,
        **options,
    ).raise_for_status()


def _hybrid_as_ode(
    scenario: Any,
    prob: OdeProblem,
    *,
    n_points: int = 1001,
    measure_from_s: Any = 0.0,
    progress: Any = None,
) -> OdeResult:
    """Run the hybrid model and present it as an :class:`OdeResult`."""
    from .hybrid import simulate_scenario_hybrid

    n_points = check_int("n_points", n_points, minimum=2)
    t_end = prob.duration_s
    m_from = _time("measure_from_s", measure_from_s)
    if m_from >= t_end:
        raise ValueError(f"measure_from_s must be < the duration {t_end!r} s, got {m_from!r}")
    h = simulate_scenario_hybrid(scenario, record_every_s=t_end / (n_points - 1), progress=progress)
    hs = h.summary
    t = h.time_s
    start = np.array([f.start_s for f in prob.flows])[:, None]
    stop = np.array([f.stop_s for f in prob.flows])[:, None]
    active = (t[None, :] >= start) & (t[None, :] < stop)
    w = np.where(active, h.window_pkts, 0.0)
    rtt = np.where(h.rtt_s > 0, h.rtt_s, np.array([f.rtt_s for f in prob.flows])[:, None])
    base = np.where(h.base_rtt_s > 0, h.base_rtt_s, rtt)
    red = prob.red
    p = red.probability(h.avg_queue_pkts) if red is not None else np.zeros(t.size)

    def at(rows: FloatArray, when: float) -> FloatArray:
        return np.array([np.interp(when, t, r, left=0.0) for r in rows])

    D0, D1 = at(h.delivered_pkts, m_from), h.delivered_pkts[:, -1]
    L0, L1 = at(h.lost_pkts, m_from), h.lost_pkts[:, -1]
    span = t_end - m_from
    on = np.array([max(0.0, min(f.stop_s, t_end) - max(f.start_s, m_from)) for f in prob.flows])
    thr = np.where(on > 0, (D1 - D0) / np.where(on > 0, on, 1.0), 0.0)
    present = on > 0
    delivered = float(np.sum(D1 - D0))
    lost = float(np.sum(L1 - L0))
    m = t >= m_from
    util = (
        hs.utilization
        if m_from == 0.0
        else (delivered + _cross_carried(prob.cross_traffic, m_from, t_end))
        / (h.capacity_pps * span)
    )
    settled = [
        _finite_or_none(v) if ok else None
        for v, ok in zip(hs.settled_window_pkts, hs.reached_equilibrium, strict=True)
    ]
    summary = OdeSummary(
        measure_from_s=m_from,
        measure_to_s=t_end,
        throughput_pps=tuple(float(v) for v in thr),
        jain_index=float(jain_index(thr[present])) if present.any() else float("nan"),
        utilization=float(util),
        mean_queue_pkts=float(np.mean(h.queue_pkts[m])) if m.any() else 0.0,
        final_queue_pkts=float(h.queue_pkts[-1]),
        final_windows_pkts=tuple(float(v) for v in w[:, -1]),
        base_rtt_overestimate_s=tuple(
            float(max(b - f.rtt_s, 0.0)) for b, f in zip(base[:, -1], prob.flows, strict=True)
        ),
        lost_pkts=lost,
        loss_fraction=lost / (lost + delivered) if lost + delivered > 0 else 0.0,
        losses_pkts=tuple(float(v) for v in L1 - L0),
        change_times_s=h.change_times_s,
        settled_window_pkts=tuple(settled),
        time_to_equilibrium_s=tuple(
            _finite_or_none(v) if ok else None
            for v, ok in zip(hs.time_to_equilibrium_s, hs.reached_equilibrium, strict=True)
        ),
        convergence_times_s=tuple(hs.flow(0)["convergence_times_s"]),
        ss_exit_window_pkts=_finite_or_none(hs.ss_exit_window_pkts[0]),
        ss_exit_time_s=_finite_or_none(hs.ss_exit_time_s[0]),
        model="hybrid",
    )
    return OdeResult(
        t=t,
        windows_pkts=w,
        rates_pps=np.where(active, w / rtt, 0.0),
        rtt_s=np.where(active, rtt, 0.0),
        base_rtt_s=np.where(active, base, 0.0),
        delta_pkts=np.where(active, backlog(w, base, rtt), 0.0),
        delivered_pkts=h.delivered_pkts,
        lost_pkts=h.lost_pkts,
        active=active,
        queue_pkts=h.queue_pkts,
        avg_queue_pkts=h.avg_queue_pkts,
        reverse_queue_pkts=np.zeros(t.size),
        loss_probability=p,
        status=0,
        message="ok (hybrid model)",
        nfev=0,
        capacity_pps=h.capacity_pps,
        flows=prob.flows,
        summary=summary,
        hybrid=h,
        loss_events=np.array(
            [np.searchsorted(np.sort(f.loss_t_s), t, side="right") for f in h.flows],
            dtype=np.float64,
        ).reshape(len(h.flows), t.size),
    )


def _cross_carried(cross: Sequence[tuple[float, float, float]], a: float, b: float) -> float:
    """Packets the CBR sources send over ``[a, b]`` (the bottleneck carries them all)."""
    return float(sum(r * max(0.0, min(b, hi) - max(a, lo)) for r, lo, hi in cross))
