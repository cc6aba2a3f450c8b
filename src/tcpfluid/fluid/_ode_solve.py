"""The classical model (:mod:`tcpfluid.fluid.ode`): its right-hand side (:class:`_Model`:
state layout, the algebraic quantities, the laws' own rate forms,
:class:`~tcpfluid.algorithms.base.OdeForm`), its integration (:func:`simulate_ode`) and
its summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import MEMORY_BUDGET_BYTES, check_int
from ..algorithms._common import backlog
from ..algorithms.base import OdeForm
from ..algorithms.registry import law_class
from ..metrics import FlowRecord, bandwidth_changes, law_settle_band
from ..path import Path
from ._ode_types import (
    ODE_LAWS,
    OdeFlow,
    OdeResult,
    OdeSummary,
    RedQueue,
    _cross_traffic,
    _form,
    _time,
    _unit,
    check_solver,
    window_metrics,
)  # fmt: skip

FloatArray = NDArray[np.float64]

_MIN_WINDOW_PKTS = 1.0
#: width of the Lipschitz ramps at the window floor and cap, packets
_SOFT_WINDOW_PKTS = 0.25
#: queue below which the link serves less than C (an empty-queue boundary layer), packets
_SOFT_QUEUE_PKTS = 0.05


class _BudgetExceeded(Exception):
    pass


class _Model:
    """Vectorised right-hand side; column-wise over states for solve_ivp's ``vectorized``."""

    def __init__(
        self,
        flows: tuple[OdeFlow, ...],
        path: Path,
        red: RedQueue | None,
        switch_width_pkts: float,
        droptail_width_pkts: float,
        max_rhs_evals: int,
    ) -> None:
        n = len(flows)
        self.n, self.flows = n, flows
        col = lambda v: np.asarray(v, dtype=np.float64).reshape(n, 1)  # noqa: E731
        self.d = col([f.rtt_s for f in flows])
        self.alpha = col([f.alpha_pkts for f in flows])
        self.beta = col([f.beta_pkts for f in flows])
        self.gamma = col([f.fast_gamma for f in flows])
        self.wmax = col([f.max_window_pkts for f in flows])
        self.err = col([f.base_rtt_error_s for f in flows])
        forms = [_form(f.law) for f in flows]
        fwd = [fm.forward_delay for fm in forms]
        self.forward = np.array(fwd).reshape(n, 1) if any(fwd) else None
        self.cut = col([fm.loss_cut for fm in forms])
        # the laws' own rate forms, each with the mask of its flows (only the forms present
        # are evaluated: a sweep calls the right-hand side millions of times)
        self.forms: list[tuple[OdeForm, NDArray[np.bool_]]] = []
        for fm in dict.fromkeys(forms):
            self.forms.append((fm, np.array([g is fm for g in forms]).reshape(n, 1)))
        self.C, self.B, self.red = path.mu, path.buffer_pkts, red
        self.Cr = math.inf if path.reverse_mu is None else path.reverse_mu
        self.eps, self.eps_b = switch_width_pkts, droptail_width_pkts
        self.red_rate = 0.0 if red is None else self.C * math.log1p(-red.weight)
        self.active = np.ones((n, 1), dtype=bool)
        self.cross_pps, self.budget, self.nfev = 0.0, max_rhs_evals, 0
        # state layout: per flow window, BaseRTT error, delivered, lost; the queue, its RED
        # average, the ACK queue, the queue's integral, the cross traffic carried and the
        # link's unused service, packets (carried = C·t - I)
        self.i_w, self.i_x, self.i_D, self.i_L = (slice(k * n, (k + 1) * n) for k in range(4))
        self.i_q, self.i_qa, self.i_qr, self.i_Q, self.i_X, self.i_I = range(4 * n, 4 * n + 6)
        self.size = 4 * n + 6

    def sparsity(self) -> Any:
        """Jacobian sparsity pattern (for BDF/Radau's finite differences and sparse LU)."""
        from scipy.sparse import lil_matrix

        n = self.n  # rows: windows 0..n-1, BaseRTTs n.., delivered 2n.., lost 3n..
        S = lil_matrix((self.size, self.size), dtype=np.int8)
        shared = [self.i_q, self.i_qa, self.i_qr]
        every = [*range(n), *shared]  # every window, and the queues
        for j in range(n):
            for c in (j, n + j, *shared):
                S[j, c] = S[n + j, c] = 1  # own Δ, RTT, loss; BaseRTT: queueing delay
            for c in every:
                S[2 * n + j, c] = 1  # delivery share depends on every rate
            for c in (j, *shared):
                S[3 * n + j, c] = 1
        for r in (self.i_q, self.i_qr, self.i_X, self.i_I):
            for c in every:
                S[r, c] = 1
        S[self.i_qa, self.i_qa] = 1
        S[self.i_qa, self.i_q] = 1
        S[self.i_Q, self.i_q] = 1
        return S.tocsc()

    # -- algebraic quantities --------------------------------------------------
    def algebra(self, y: FloatArray) -> dict[str, FloatArray]:
        w = np.minimum(y[self.i_w], self.wmax)  # the cap binds exactly, whatever the step
        x = y[self.i_x]
        q = np.minimum(np.maximum(y[self.i_q], 0.0), self.B)
        qa = y[self.i_qa]
        qr = np.maximum(y[self.i_qr], 0.0) if math.isfinite(self.Cr) else np.zeros_like(q)
        qdelay = q / self.C + (qr / self.Cr if math.isfinite(self.Cr) else 0.0)
        rtt = self.d + qdelay  # (n, k)
        rate = np.where(self.active, w / rtt, 0.0)
        delta = backlog(w, self.d + x, rtt)
        if self.forward is not None:  # forward-path Vegas: Δ_f from the forward queue only
            qf = q / self.C
            delta = np.where(self.forward, w * qf / rtt, delta)
        total = rate.sum(axis=0) + self.cross_pps
        if math.isfinite(self.B):
            p = _unit((q - (self.B - self.eps_b)) / self.eps_b)
        else:
            p = np.zeros_like(q)
        if self.red is not None:
            p = 1.0 - (1.0 - p) * (1.0 - self.red.probability(qa))
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
        dx = -(50.0 / self.d) * np.maximum(a["x"] - a["qdelay"] - self.err, 0.0)
        dx = np.where(self.active, dx, 0.0)
        dqa = self.red_rate * (a["qa"] - q) if self.red is not None else np.zeros_like(q)
        out = np.empty_like(y2)
        out[self.i_w], out[self.i_x], out[self.i_D], out[self.i_L] = dw, dx, delivered, loss_rate
        out[self.i_q], out[self.i_qa], out[self.i_qr], out[self.i_Q] = dq, dqa, dqr, q
        out[self.i_X] = (1.0 - p) * self.cross_pps * share
        # unused service: exactly 0 while the link has a backlog (served = C), so what the
        # link carried, C·t - I, never exceeds C·t by the integration's error
        out[self.i_I] = self.C - served
        return out.reshape(y.shape)


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
    """Integrate the fluid model of ``flows`` sharing the bottleneck of ``path``
    (docs/ode-model.md).

    Parameters
    ----------
    flows
        The flows (:class:`OdeFlow`): law, propagation RTT, parameters, active period.
    path
        The bottleneck: rate ``path.mu`` (packets/s), ``path.buffer_pkts`` (``inf``: no
        loss), optional ACK-path rate ``path.reverse_mu`` (ACKs/s).
    t_end_s
        Horizon, s.
    n_points
        Evenly spaced output samples over ``[0, t_end_s]``.
    red
        :class:`RedQueue` for a RED gateway (MGT model); ``None``: drop-tail.
    switch_width_pkts
        Width ε of the ramp replacing Vegas's ±1 sign; a delay-based flow needs α = 0 or
        α >= ε.
    droptail_width_pkts
        Drop-tail's drop probability rises from 0 at ``buffer − width`` to 1 at ``buffer``.
    measure_from_s
        Start of :attr:`OdeResult.summary`'s averaging window (default: half the horizon).
    method, rtol, atol, max_step_s
        Passed to solve_ivp (default ``"BDF"``; docs/ode-model.md, "Solver choice").
    max_rhs_evals
        Budget of right-hand-side evaluations; past it the run ends with ``status = -1``.
    cross_traffic
        Unresponsive constant-rate sources crossing the bottleneck: ``(rate_pps, start_s,
        stop_s)`` tuples or objects with those attributes.

    Returns
    -------
    OdeResult
        Trajectories, ``status``/``message`` and a :class:`OdeSummary`.

    Raises
    ------
    ValueError, TypeError
        On invalid input, before any integration.
    """
    flows = (flows,) if isinstance(flows, OdeFlow) else tuple(flows)
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
    if not isinstance(path, Path):
        raise TypeError(f"path must be a tcpfluid.Path, got {path!r} ({type(path).__name__})")
    t_end = _time("t_end_s", t_end_s)
    if t_end <= 0:
        raise ValueError(f"t_end_s must be > 0 s, got {t_end_s!r}")
    n_points = check_int("n_points", n_points, minimum=2)
    _check_memory(len(flows), n_points, t_end)
    if red is not None and not isinstance(red, RedQueue):
        raise TypeError(f"red must be a RedQueue or None, got {red!r}")
    eps, eps_b, rtol, atol, max_step, budget = check_solver(
        switch_width_pkts, droptail_width_pkts, method, rtol, atol, max_step_s, max_rhs_evals
    )
    _check_switch_width(flows, eps)
    if math.isfinite(path.buffer_pkts) and eps_b > path.buffer_pkts:
        raise ValueError(
            f"droptail_width_pkts must be <= the buffer ({path.buffer_pkts:g} pkts), "
            f"got {droptail_width_pkts!r}"
        )
    m_from = t_end / 2.0 if measure_from_s is None else _time("measure_from_s", measure_from_s)
    if m_from >= t_end:
        raise ValueError(f"measure_from_s must be < t_end_s={t_end!r}, got {measure_from_s!r}")
    cross = _cross_traffic(cross_traffic)
    starts = [f.start_s for f in flows]  # a flow must start before t_end, one be measured
    if min(starts) >= t_end:
        raise ValueError(
            f"no flow starts before t_end_s={t_end!r}; earliest start_s is {min(starts)!r}"
        )
    if not any(f.start_s < t_end and f.stop_s > m_from for f in flows):
        raise ValueError(
            f"no flow is active in the measurement window [{m_from!r}, {t_end!r}] s; "
            "choose measure_from_s (and the flows' start_s/stop_s) so that one is"
        )
    model = _Model(flows, path, red, eps, eps_b, budget)
    solver = {"method": method, "rtol": rtol, "atol": atol, "max_step": max_step}
    t, Y, active, status, message = _integrate(
        model, cross, np.linspace(0.0, t_end, n_points), solver
    )
    kw = _result_fields(model, t, Y, active)
    summary = None
    if status == 0:
        changes = bandwidth_changes([(c[1], c[2]) for c in cross], t_end)
        summary = _summarise(model, Y, kw, (m_from, t_end), changes)
    return OdeResult(**kw, status=status, message=message, summary=summary)


def _check_switch_width(flows: tuple[OdeFlow, ...], eps: float) -> None:
    """The ramped sign of width ``eps`` must resolve every delay-based flow's α: α = 0
    (no increase while any backlog exists, exact since Δ >= 0) or α >= ``eps``. The
    refusal names the law's own parameter (``alpha``; Enhanced Vegas's ``delta``)."""
    for i, f in enumerate(flows):
        a = f.alpha_pkts
        # the parameter the law declares for α: its own, or the alias that sets it
        names = [p.name for p in law_class(f.law).parameters if "alpha" in (p.name, *p.sets)]
        user = names[0] if names else None
        if user is not None and 0.0 < a < eps:
            raise ValueError(
                f"flows[{i}] ({f.law}): {user}={a!r} (alpha_pkts of the classical model) is "
                f"below switch_width_pkts={eps!r}: the classical model's ramped sign cannot "
                f"resolve a threshold narrower than its width; it runs {user} = 0 or "
                f"{user} >= switch_width_pkts: give a smaller switch_width_pkts, or run the "
                "hybrid model (model='hybrid'), which takes every value the law accepts"
            )


def _integrate(
    model: _Model, cross: Sequence[tuple[float, ...]], t_grid: FloatArray, solver: dict[str, Any]
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], int, str]:
    """Integrate segment by segment between joins, leaves and cross-traffic changes, at the
    samples ``t_grid`` (``solver``: solve_ivp's method and tolerances); returns the samples,
    the states, the flows' activity, and the status and message."""
    from scipy.integrate import solve_ivp  # SciPy's integrators: about 0.5 s to import

    n, flows, t_end = model.n, model.flows, float(t_grid[-1])
    changes = [v for f in flows for v in (f.start_s, f.stop_s)] + [v for c in cross for v in c[1:]]
    cuts = sorted({0.0, t_end} | {v for v in changes if v < t_end})
    y = np.zeros(model.size)
    ts: list[FloatArray] = []
    ys: list[FloatArray] = []
    acts: list[NDArray[np.bool_]] = []

    def record(t: FloatArray, states: FloatArray, on: NDArray[np.bool_]) -> None:
        ts.append(t)
        ys.append(states)
        acts.append(np.repeat(on.reshape(n, 1), t.size, axis=1))

    status, message = 0, "ok"
    act = np.zeros(n, dtype=bool)
    # implicit methods: a sparse Jacobian (sparse LU) pays off beyond a few flows
    implicit = solver["method"] in ("BDF", "Radau")
    sparsity = model.sparsity() if (implicit and n >= 8) else None
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
        try:
            # an overflow in a trial step the solver then rejects (its error norm) is its
            # own business, not the caller's warning: a solution that overflowed is
            # refused below (status -1)
            with np.errstate(over="ignore"):
                sol = solve_ivp(
                    model,
                    (t0, t1),
                    y,
                    t_eval=(
                        np.append(t_eval, t1) if (t_eval.size == 0 or t_eval[-1] < t1) else t_eval
                    ),
                    vectorized=implicit,
                    **({"jac_sparsity": sparsity} if sparsity is not None else {}),
                    **solver,
                )
        except _BudgetExceeded:
            status = -1
            message = (
                f"step-size collapse: more than max_rhs_evals={model.budget} right-hand-side "
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
            record(sol.t[keep], sol.y[:, keep], act)
            break
        record(sol.t[: t_eval.size], sol.y[:, : t_eval.size], act)
        y = sol.y[:, -1].copy()

    t = np.concatenate(ts) if ts else np.zeros(0)
    Y = np.concatenate(ys, axis=1) if ys else np.zeros((model.size, 0))
    active = np.concatenate(acts, axis=1) if acts else np.zeros((n, 0), dtype=bool)
    return t, Y, active, status, message


#: float arrays of flows x samples a classical run holds at its peak, and per sample, with
#: the engine's result beside them (tracemalloc through ``tcpfluid.simulate``, 2 and 12
#: flows: about 17 and 17)
ARRAYS_PER_FLOW_SAMPLE, ARRAYS_PER_SAMPLE = 20, 24


def _check_memory(flows: int, n_points: int, t_end: float) -> None:
    """Refuse ``n_points`` samples of ``flows`` flows over ``t_end`` s whose arrays would
    pass the budget (:data:`tcpfluid._validation.MEMORY_BUDGET_BYTES`), before anything
    is allocated."""
    per_sample = 8 * (ARRAYS_PER_FLOW_SAMPLE * flows + ARRAYS_PER_SAMPLE)
    if n_points * per_sample > MEMORY_BUDGET_BYTES:
        most = MEMORY_BUDGET_BYTES // per_sample
        raise ValueError(
            f"n_points={n_points:,} samples of {flows} flow(s) would need about "
            f"{n_points * per_sample / 2**30:.1f} GiB (budget "
            f"{MEMORY_BUDGET_BYTES / 2**30:.0f} GiB): give n_points <= {most:,} (the 'ode' "
            f"engine: record_interval_s >= {2 * t_end / (most - 1):.3g} s for {t_end:g} s)"
        )


def _result_fields(
    model: _Model, t: FloatArray, Y: FloatArray, active: NDArray[np.bool_]
) -> dict[str, Any]:
    """The :class:`OdeResult` fields computed from the integrated states."""
    model.active = np.ones((model.n, 1), dtype=bool)
    a = model.algebra(Y)

    def _flow(arr: FloatArray) -> FloatArray:
        return np.asarray(np.where(active, arr, 0.0), dtype=np.float64)

    return {
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
        "avg_queue_pkts": Y[model.i_qa] if model.red is not None else np.zeros(t.size),
        "reverse_queue_pkts": a["qr"],
        "loss_probability": a["p"],
        "nfev": model.nfev,
        "capacity_pps": model.C,
        "flows": model.flows,
    }


def _summarise(
    model: _Model, Y: FloatArray, kw: dict[str, Any], span_s: tuple[float, float], changes: Any
) -> OdeSummary:
    """The native summary of a classical run measured over ``span_s``: the integrals' totals
    and the one summary computation's columns (:func:`tcpfluid.metrics.summarise`) on the
    samples ``kw["t"]``, judged at the run's changes (the cross traffic's ``changes``, the
    joins and leaves)."""
    from ..metrics.summary import FlowRecords, engine_summary

    flows, t, (m_from, t_end) = model.flows, kw["t"], span_s
    start = np.array([f.start_s for f in flows], dtype=np.float64)
    stop = np.array([f.stop_s for f in flows], dtype=np.float64)
    recs = classical_records(
        [str(j) for j in range(len(flows))], start, stop, t, kw["windows_pkts"], Y[model.i_D],
        Y[model.i_L], m_from,
    )  # fmt: skip
    bands = np.array([law_settle_band(f.law) for f in flows])  # each law's own limit cycle
    own = engine_summary(None, FlowRecords.of(recs, t_end), changes, t_end, bands,
                         measured_s=(m_from, t_end))  # fmt: skip
    thr = own["throughput_pps"]

    def at(row: FloatArray, when: float) -> FloatArray:
        return np.array([np.interp(when, t, r) for r in np.atleast_2d(row)])

    Q0, Q1 = float(at(Y[model.i_Q], m_from)[0]), float(Y[model.i_Q, -1])
    span = t_end - m_from
    # the carried packets are the capacity over the span less the unused service (the
    # sum of the flows' and the cross traffic's integrals carries the solver's error,
    # which put the utilization a few 1e-11 above 1 on a link that was never idle)
    idle = float(Y[model.i_I, -1] - at(Y[model.i_I], m_from)[0])
    _, losses = loss_totals(
        at(Y[model.i_D], m_from), Y[model.i_D][:, -1], at(Y[model.i_L], m_from), Y[model.i_L][:, -1]
    )
    return OdeSummary(
        measure_from_s=m_from,
        measure_to_s=t_end,
        throughput_pps=tuple(float(v) for v in thr),
        jain_index=own["jain_index"],
        utilization=1.0 - idle / (model.C * span),
        mean_queue_pkts=(Q1 - Q0) / span,
        final_queue_pkts=float(kw["queue_pkts"][-1]),
        final_windows_pkts=tuple(float(v) for v in kw["windows_pkts"][:, -1]),
        base_rtt_overestimate_s=tuple(float(max(v, 0.0)) for v in Y[model.i_x][:, -1]),
        change_times_s=own["change_times_s"],
        **losses,
        **window_metrics(own),
    )


def loss_totals(D0: Any, D1: Any, L0: Any, L1: Any) -> tuple[float, dict[str, Any]]:
    """The packets delivered between the cumulative counts ``D0`` and ``D1`` (per flow),
    and the summary's loss fields from the lost ones ``L0``, ``L1``."""
    delivered, lost = float(np.sum(D1 - D0)), float(np.sum(L1 - L0))
    return delivered, {
        "lost_pkts": lost,
        "loss_fraction": lost / (lost + delivered) if lost + delivered > 0 else 0.0,
        "losses_pkts": tuple(float(v) for v in L1 - L0),
    }


def classical_records(
    names: Sequence[str],
    start: FloatArray,
    stop: FloatArray,
    t: FloatArray,
    windows: FloatArray,
    delivered: FloatArray,
    lost: FloatArray,
    m_from: float,
) -> list[FlowRecord]:
    """The :class:`~tcpfluid.metrics.FlowRecord` of each flow of a classical run sampled at
    ``t`` (``windows``, cumulative ``delivered`` packets and ``lost`` loss events, ``(F,
    len(t))``; totals from ``m_from``, s): the native summary's and
    :func:`tcpfluid.simulate`'s."""

    def since(a: FloatArray) -> float:
        return float(a[-1]) - (float(np.interp(m_from, t, a)) if m_from > 0.0 else 0.0)

    def last(a: FloatArray) -> float:  # the first sample by which it had delivered them all
        done = a >= a[-1] - 1e-9
        return float(t[np.argmax(done)]) if a.size and a[-1] > 0.0 else math.nan

    return [
        FlowRecord(name, float(start[i]), float(stop[i]), t, windows[i], None, windows[i],
                   since(delivered[i]), since(lost[i]), last_delivery_s=last(delivered[i]))
        for i, name in enumerate(names)
    ]  # fmt: skip
