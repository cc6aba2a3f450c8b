"""Inputs and results of the continuous-time models: :class:`OdeFlow`, :class:`RedQueue`,
:class:`OdeSummary`, :class:`OdeResult` (the problem side of :mod:`tcpfluid.fluid.ode`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._json import fields_dict
from .._validation import check_choice, check_int, check_nonnegative, check_positive, check_range
from ..algorithms.base import OdeForm, classical_ode_form
from ..algorithms.registry import ALGORITHMS, law_class
from ..metrics._arrays import _finite_or_none
from ..queueing import RED_DEFAULTS, RedParameters
from .hybrid import plot_windows

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


_METHODS = ("LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853")


def check_solver(
    switch_width_pkts: Any, droptail_width_pkts: Any, method: Any, rtol: Any, atol: Any,
    max_step_s: Any, max_rhs_evals: Any,
) -> tuple[float, float, float, float, float, int]:  # fmt: skip
    """The integration's options checked (ValueError/TypeError naming the option, its
    value and the accepted range); returns them as numbers, in this order (``max_step_s``
    in seconds: a number or a string such as ``"10ms"``). One rule for `simulate_ode` and
    the ``Ode`` engine's options."""
    eps = check_positive("switch_width_pkts", switch_width_pkts)
    eps_b = check_positive("droptail_width_pkts", droptail_width_pkts)
    check_choice("method", method, _METHODS)
    rtol = check_range("rtol", rtol, 1e-12, 0.1)
    # packets: above 1e-3 the solver may skip whole packets of a window or queue and still
    # report success
    atol = check_range("atol", atol, 0.0, 1e-3, lo_open=True)
    step = _time("max_step_s", max_step_s) if isinstance(max_step_s, str) else max_step_s
    max_step = check_positive("max_step_s", step, allow_inf=True)
    budget = check_int("max_rhs_evals", max_rhs_evals, minimum=1)
    return eps, eps_b, rtol, atol, max_step, budget


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
        Vegas thresholds α ≤ β in packets (eq. 2 of the Quick Vegas paper); Enhanced Vegas needs
        α = β; FAST uses ``alpha_pkts`` as its target backlog and ignores β. The relations
        are the law's own (:meth:`~tcpfluid.algorithms.ControlLaw.check_relations`).
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
        flow runs on the hybrid model; the classical right-hand sides read ``alpha_pkts``,
        ``beta_pkts`` and ``fast_gamma``.
    base_rtt_error_s
        A persistent floor on the flow's RTT samples above the fluid RTT, s (about one
        packet's service time in a packet network, thesis Table 3.6; 0: the pure fluid
        view): the recorded BaseRTT tracks ``d_j + min(queueing delay) + base_rtt_error_s``.
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
        check_choice("law", self.law, tuple(ALGORITHMS))
        params = self.law_params
        if not isinstance(params, tuple):
            params = tuple(sorted(dict(params).items()))
        d = _time("rtt_s", self.rtt_s)
        if d <= 0:
            raise ValueError(f"rtt_s must be > 0 s, got {self.rtt_s!r}")
        a = check_nonnegative("alpha_pkts", self.alpha_pkts)  # alpha = 0: a band [0, beta]
        b = check_nonnegative("beta_pkts", self.beta_pkts)  # beta = 0: alpha = 0 too
        gamma = check_range("fast_gamma", self.fast_gamma, 0.0, 1.0, lo_open=True)
        start = _time("start_s", self.start_s)
        stop = _time("stop_s", self.stop_s, allow_inf=True)
        if stop <= start:
            raise ValueError(f"stop_s must be > start_s={start!r}, got {self.stop_s!r}")
        w0 = check_range("initial_window_pkts", self.initial_window_pkts, 1.0, math.inf)
        wmax = check_positive("max_window_pkts", self.max_window_pkts, allow_inf=True)
        if wmax < w0:
            raise ValueError(
                f"max_window_pkts must be >= initial_window_pkts={w0!r}, "
                f"got {self.max_window_pkts!r}"
            )
        err = check_nonnegative("base_rtt_error_s", self.base_rtt_error_s)
        checked = dict(
            rtt_s=d, alpha_pkts=a, beta_pkts=b, fast_gamma=gamma, start_s=start, stop_s=stop,
            initial_window_pkts=w0, max_window_pkts=wmax, base_rtt_error_s=err, law_params=params,
        )  # fmt: skip
        cls = law_class(self.law)
        form = classical_ode_form(cls)
        if form is not None:  # the relations the law declares among the fields its form sets
            cls.check_relations({k: checked[f] for k, f in form.places}, names=dict(form.places))
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """Plain-number description (``None`` for an infinite stop time or cap)."""
        names = [f.name for f in fields(self) if f.name != "law_params"]
        return fields_dict(self, names, none_inf=("stop_s", "max_window_pkts"))


class RedQueue(RedParameters):
    """A RED gateway (Floyd and Jacobson; thesis ch. 2 §6) for the fluid models: a
    :class:`tcpfluid.queueing.RedParameters` built, and checked, with the names and
    defaults below; its drop probability is :func:`tcpfluid.queueing.red_drop_probability`.

    Parameters
    ----------
    min_th_pkts, max_th_pkts
        Thresholds on the averaged queue, packets (the thesis uses 15 and 45).
    max_p
        Marking probability at ``max_th`` (default :data:`tcpfluid.queueing.RED_DEFAULTS`).
    weight
        EWMA weight per packet arrival, in ``(0, 1)`` (:attr:`w_q`).
    gentle
        ``False``: every packet is dropped once the average exceeds ``max_th`` (a ramp from
        ``max_p`` to 1 over one packet in the classical model); ``True``: the probability
        rises linearly from ``max_p`` to 1 between ``max_th`` and ``2 max_th``.
    """

    def __init__(
        self,
        min_th_pkts: float = 15.0,
        max_th_pkts: float = 45.0,
        max_p: float = RED_DEFAULTS["max_p"],
        weight: float = RED_DEFAULTS["w_q"],
        gentle: bool = RED_DEFAULTS["gentle"],
    ) -> None:
        lo = check_nonnegative("min_th_pkts", min_th_pkts)
        hi = check_positive("max_th_pkts", max_th_pkts)
        if hi <= lo:
            raise ValueError(f"max_th_pkts must be > min_th_pkts={lo!r}, got {max_th_pkts!r}")
        if not isinstance(gentle, bool):
            raise TypeError(f"gentle must be a bool, got {gentle!r}")
        super().__init__(
            lo,
            hi,
            max_p=check_range("max_p", max_p, 0.0, 1.0, lo_open=True),
            w_q=check_range("weight", weight, 0.0, 1.0, lo_open=True, hi_open=True),
            gentle=gentle,
        )

    @property
    def weight(self) -> float:
        """The averaging weight per arrival (:attr:`w_q`)."""
        return self.w_q

    def __repr__(self) -> str:
        return f"RedQueue({', '.join(f'{k}={v!r}' for k, v in self.to_dict().items())})"

    def parameters(self) -> RedParameters:
        """The same gateway as a plain :class:`tcpfluid.queueing.RedParameters`."""
        return RedParameters(
            self.min_th_pkts, self.max_th_pkts, max_p=self.max_p, w_q=self.w_q,
            gentle=self.gentle,
        )  # fmt: skip

    @classmethod
    def from_parameters(cls, red: RedParameters) -> RedQueue:
        """The fluid models' view of a link's RED parameters (:mod:`tcpfluid.queueing`),
        checked by this constructor."""
        if isinstance(red, cls):
            return red
        return cls(red.min_th_pkts, red.max_th_pkts, red.max_p, red.w_q, red.gentle)

    def to_dict(self) -> dict[str, Any]:
        """Plain-number description (the constructor's names)."""
        return fields_dict(self, ("min_th_pkts", "max_th_pkts", "max_p", "weight", "gentle"))


@dataclass(frozen=True)
class OdeSummary:
    """Metrics of an ODE run, averaged over ``[measure_from_s, measure_to_s]``.

    Throughputs are delivered packets per second of the flow's active time inside the
    window, from the integrated delivery state (NaN for a flow not active in it);
    utilization counts everything the bottleneck carried. Window metrics, throughputs and
    Jain's index are :func:`tcpfluid.metrics.summarise`'s, judged at the run's changes;
    ``None`` means "did not settle". The classical model has no slow start (its slow-start
    keys are ``None``); the hybrid model fills them for flow 0 from its round traces.
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
        """Plain numbers and lists, JSON-ready, with the round model's summary keys
        (window metrics of flow 0; ``ss_exit_round`` ``None``)."""
        w, t_eq = self.settled_window_pkts, self.time_to_equilibrium_s
        return {
            **fields_dict(self, ("ss_exit_window=ss_exit_window_pkts", "ss_exit_time_s")),
            "ss_exit_round": None,
            "settled_window": w[0] if w else None,
            "time_to_equilibrium_s": t_eq[0] if t_eq else None,
            **fields_dict(self, _WINDOW_KEYS),
            "throughput_pps": [_finite_or_none(x) for x in self.throughput_pps],
            **fields_dict(self, ("jain_index", "utilization", *OWN_KEYS[2:])),
        }


#: the keys of :meth:`OdeSummary.to_dict` the engines keep beside the shared summary's
OWN_KEYS = ("measure_from_s", "measure_to_s", "mean_queue_pkts", "final_queue_pkts",
            "final_windows_pkts", "base_rtt_overestimate_s", "lost_pkts",
            "loss_fraction")  # fmt: skip
_WINDOW_KEYS = ("convergence_times_s", "change_times_s", "losses=losses_pkts",
                "settled_windows_pkts=settled_window_pkts",
                "times_to_equilibrium_s=time_to_equilibrium_s", *OWN_KEYS[:2])  # fmt: skip


def window_metrics(v: Mapping[str, Any]) -> dict[str, Any]:
    """The window metrics of :class:`OdeSummary` from an engine summary's fields ``v``
    (:func:`tcpfluid.metrics.summary.engine_summary`): every flow's settled window and
    time to equilibrium, flow 0's slow-start exit and convergence times (``None``: did not
    happen)."""
    ok = v["reached_equilibrium"]

    def settled(name: str) -> tuple[float | None, ...]:
        return tuple(_finite_or_none(x) if r else None for x, r in zip(v[name], ok, strict=True))

    return {
        "settled_window_pkts": settled("settled_window_pkts"),
        "time_to_equilibrium_s": settled("time_to_equilibrium_s"),
        "convergence_times_s": tuple(_finite_or_none(x) for x in v["convergence_times_s"][0]),
        "ss_exit_window_pkts": _finite_or_none(v["ss_exit_window_pkts"][0]),
        "ss_exit_time_s": _finite_or_none(v["ss_exit_time_s"][0]),
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
        Δ = w (1 − BaseRTT/RTT) (eq. 1 of the Quick Vegas paper), per flow. Inactive flows (before
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
        per_flow = ("rtt_s", "base_rtt_s", "delta_pkts", "delivered_pkts", "lost_pkts", "active")
        cols = {"window_pkts": self.windows_pkts, "rate_pps": self.rates_pps}
        cols.update((name, getattr(self, name)) for name in per_flow)
        return pd.DataFrame(
            {
                "t_s": np.tile(self.t, n),
                "flow": np.repeat(np.arange(n), k),
                **{name: v.ravel() for name, v in cols.items()},
                "queue_pkts": np.tile(self.queue_pkts, n),
            }
        )

    def to_dict(self) -> dict[str, Any]:
        """Status, flows and summary as plain numbers (JSON-ready; no trajectories)."""
        return {
            "engine": "ode",
            **fields_dict(self, ("status", "message", "nfev", "capacity_pps")),
            "t_end_s": float(self.t[-1]) if self.t.size else 0.0,
            "flows": [f.to_dict() for f in self.flows],
            "summary": None if self.summary is None else self.summary.to_dict(),
        }

    def plot(self, ax: Any = None) -> list[Any]:
        """Plot the windows (and the queue, dashed) against time; returns the artists."""
        w = np.where(self.active, self.windows_pkts, np.nan)
        return plot_windows(ax, self.t, w, [f.law for f in self.flows], self.queue_pkts)
