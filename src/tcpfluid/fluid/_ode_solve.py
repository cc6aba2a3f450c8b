"""Integration of the classical model (:func:`simulate_ode`) and its summary."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import (
    check_choice,
    check_int,
    check_positive,
    check_range,
)
from ..metrics import FlowRecord, _finite_or_none, bandwidth_changes, law_settle_band
from ..path import Path
from ._ode_rhs import _BudgetExceeded, _Model
from ._ode_types import ODE_LAWS, OdeFlow, OdeResult, OdeSummary, RedQueue, _time

FloatArray = NDArray[np.float64]

_METHODS = ("LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853")


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
        the asymmetric-networks paper). ``path.d`` is not used: each flow carries its own ``rtt_s``.
    t_end_s
        Horizon, s.
    n_points
        Number of evenly spaced output samples over ``[0, t_end_s]``.
    red
        :class:`RedQueue` for a RED gateway (MGT model); ``None`` for drop-tail.
    switch_width_pkts
        Width ε of the ramp replacing Vegas's ±1 sign (``s = +1`` for Δ ≤ α − ε, 0 on
        [α, β], −1 for Δ ≥ β + ε, linear in between). The equilibrium set Δ ∈ [α, β] does
        not depend on ε (``docs/ode-model.md``); a smaller ε is stiffer. A delay-based
        flow needs α = 0 (it never increases on a backlog: the band [0, β]) or α >= ε.
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
        Unresponsive constant-rate sources crossing the bottleneck (the CBR of the Quick Vegas paper
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
    flows = _check_flows(flows)
    capacity, buffer_pkts, reverse = _path_parts(path)
    t_end = _time("t_end_s", t_end_s)
    if t_end <= 0:
        raise ValueError(f"t_end_s must be > 0 s, got {t_end_s!r}")
    n_points = check_int("n_points", n_points, minimum=2)
    if red is not None and not isinstance(red, RedQueue):
        raise TypeError(f"red must be a RedQueue or None, got {red!r}")
    eps = check_positive("switch_width_pkts", switch_width_pkts)
    _check_switch_width(flows, eps)
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
    _check_activity(flows, t_end, m_from)
    model = _Model(flows, capacity, buffer_pkts, reverse, red, eps, eps_b, budget)
    t, Y, active, status, message = _integrate(
        model, flows, cross, t_end, n_points, method, rtol, atol, max_step, budget
    )
    result_kw = _result_fields(model, flows, t, Y, active, red, capacity)
    result_kw.update(status=status, message=message)
    summary = None
    if status == 0:
        changes = bandwidth_changes([(c[1], c[2]) for c in cross], t_end)
        summary = _summarise(flows, t, Y, model, m_from, t_end, capacity, result_kw, changes)
    return OdeResult(**result_kw, summary=summary)


def _check_flows(flows: OdeFlow | Sequence[OdeFlow]) -> tuple[OdeFlow, ...]:
    """The flows of :func:`simulate_ode` as a tuple: at least one, each an
    :class:`OdeFlow` whose law has a classical right-hand side."""
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
    return flows


def _check_switch_width(flows: tuple[OdeFlow, ...], eps: float) -> None:
    """The ramped sign of width ``eps`` must resolve every delay-based flow's α: α = 0
    (no increase while any backlog exists, exact since Δ >= 0) or α >= ``eps``. The
    refusal names the law's own parameter (``alpha``; Enhanced Vegas's ``delta``)."""
    for i, f in enumerate(flows):
        a = f.alpha_pkts
        if f.law in ("vegas", "enhanced-vegas", "fast") and 0.0 < a < eps:
            user = "delta" if f.law == "enhanced-vegas" else "alpha"
            raise ValueError(
                f"flows[{i}] ({f.law}): {user}={a!r} (alpha_pkts of the classical model) is "
                f"below switch_width_pkts={eps!r}: the classical model's ramped sign cannot "
                f"resolve a threshold narrower than its width; it runs {user} = 0 or "
                f"{user} >= switch_width_pkts: give a smaller switch_width_pkts, or run the "
                "hybrid model (model='hybrid'), which takes every value the law accepts"
            )


def _check_activity(flows: tuple[OdeFlow, ...], t_end: float, m_from: float) -> None:
    """A flow must start before ``t_end`` and one must be active while measuring."""
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


def _integrate(
    model: _Model,
    flows: tuple[OdeFlow, ...],
    cross: list[tuple[float, float, float]],
    t_end: float,
    n_points: int,
    method: str,
    rtol: float,
    atol: float,
    max_step: float,
    budget: int,
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_], int, str]:
    """Integrate segment by segment between joins, leaves and cross-traffic changes;
    returns the samples, the states, the flows' activity, and the status and message."""
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
            sol = _solve_ivp()(
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
    return t, Y, active, status, message


def _result_fields(
    model: _Model,
    flows: tuple[OdeFlow, ...],
    t: FloatArray,
    Y: FloatArray,
    active: NDArray[np.bool_],
    red: RedQueue | None,
    capacity: float,
) -> dict[str, Any]:
    """The :class:`OdeResult` fields computed from the integrated states."""
    n = model.n
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
        "nfev": model.nfev,
        "capacity_pps": capacity,
        "flows": flows,
    }
    return result_kw


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
    """The native summary of a classical run: the integrals' totals and the columns of the
    one summary computation (:func:`tcpfluid.metrics.summarise`) on the samples ``t``,
    judged at the run's changes (``changes``, the cross traffic's, and the flows' joins
    and leaves)."""
    from ..metrics.summary import FlowRecords, _columns_once, flow_changes, flow_rates, jain_rows

    start = np.array([f.start_s for f in flows], dtype=np.float64)
    stop = np.array([f.stop_s for f in flows], dtype=np.float64)
    recs = classical_records(
        [str(j) for j in range(len(flows))], start, stop, t, kw["windows_pkts"], Y[model.i_D],
        Y[model.i_L], m_from,
    )  # fmt: skip
    run_changes, _ = flow_changes([(c, c) for c in changes], start, stop, t_end)
    bands = np.array([law_settle_band(f.law) for f in flows])  # each law's own limit cycle
    cols = _columns_once(FlowRecords.of(recs, t_end), run_changes, t_end, bands, False)
    thr = flow_rates(np.array([r.delivered_pkts for r in recs]), start, stop, (m_from, t_end))

    def at(row: FloatArray, when: float) -> FloatArray:
        return np.array([np.interp(when, t, r) for r in np.atleast_2d(row)])

    D0, D1 = at(Y[model.i_D], m_from), Y[model.i_D][:, -1]
    L0, L1 = at(Y[model.i_L], m_from), Y[model.i_L][:, -1]
    Q0, Q1 = float(at(Y[model.i_Q], m_from)[0]), float(Y[model.i_Q, -1])
    span = t_end - m_from
    delivered = float(np.sum(D1 - D0))
    # the carried packets are the capacity over the span less the unused service (the
    # sum of the flows' and the cross traffic's integrals carries the solver's error,
    # which put the utilization a few 1e-11 above 1 on a link that was never idle)
    idle = float(Y[model.i_I, -1] - at(Y[model.i_I], m_from)[0])
    lost = float(np.sum(L1 - L0))
    return OdeSummary(
        measure_from_s=m_from,
        measure_to_s=t_end,
        throughput_pps=tuple(float(v) for v in thr),
        jain_index=float(jain_rows(thr)[0]),
        utilization=1.0 - idle / (capacity * span),
        mean_queue_pkts=(Q1 - Q0) / span,
        final_queue_pkts=float(kw["queue_pkts"][-1]),
        final_windows_pkts=tuple(float(v) for v in kw["windows_pkts"][:, -1]),
        base_rtt_overestimate_s=tuple(float(max(v, 0.0)) for v in Y[model.i_x][:, -1]),
        lost_pkts=lost,
        loss_fraction=lost / (lost + delivered) if lost + delivered > 0 else 0.0,
        losses_pkts=tuple(float(v) for v in L1 - L0),
        change_times_s=run_changes,
        settled_window_pkts=tuple(_finite_or_none(v) for v in cols["settled"]),
        time_to_equilibrium_s=tuple(_finite_or_none(v) for v in cols["t_eq"]),
        convergence_times_s=tuple(_finite_or_none(v) for v in cols["conv"][0]),
    )


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
    ``t`` (``windows``, and the cumulative ``delivered`` packets and ``lost`` loss events,
    ``(F, len(t))``): no slow start, settling judged on the samples, the totals counted
    from ``m_from`` (s) to the end (the one record of the native summary and of
    :func:`tcpfluid.simulate`'s)."""

    def since(a: FloatArray) -> float:
        return float(a[-1]) - (float(np.interp(m_from, t, a)) if m_from > 0.0 else 0.0)

    return [
        FlowRecord(name, float(start[i]), float(stop[i]), t, windows[i], None, windows[i],
                   since(delivered[i]), since(lost[i]))
        for i, name in enumerate(names)
    ]  # fmt: skip


def _solve_ivp() -> Any:
    """:func:`scipy.integrate.solve_ivp`, imported when the classical model runs (SciPy's
    integrators take about half a second to import; the hybrid model does not use them)."""
    from scipy.integrate import solve_ivp

    return solve_ivp
