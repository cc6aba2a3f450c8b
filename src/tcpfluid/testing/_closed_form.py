"""The closed-form layer: the closed forms' values per flow where they apply."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._layers import ALL_FLOWS, CLOSED_FORM, PREDICTED, _change_times, _Layer

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import FlowSpec, Scenario
    from ..scenarios.reduction import FluidView


def _law_thresholds(algorithm: str, params: Mapping[str, Any]) -> dict[str, float]:
    """α, β, γ of the flow's law with the law's own defaults (Enhanced Vegas: α = β = δ)."""
    from ..algorithms import get_law
    from ..algorithms.registry import expand_aliases

    p = expand_aliases(algorithm, get_law(algorithm, **dict(params)).params())
    out: dict[str, float] = {}
    for key in ("alpha", "beta", "gamma"):
        v = p.get(key)
        if isinstance(v, list):
            raise ValueError(f"one value of {key} per flow (the closed forms take one)")
        if v is not None:
            out[key] = float(v)
    return out


def _closed_form_layer(scenario: Scenario) -> _Layer:
    """The closed forms where they apply, per flow (the Quick Vegas paper (Chan, Lin, Ho
    2008) §4 and the TCP-Ho paper (Ho, Chan, Chen 2007) §4).

    A flow has closed-form values when its algorithm has a closed form
    (:data:`tcpfluid.analytic.PREDICT_ALGORITHMS`), the flows share one bottleneck with one
    base RTT and no ACK-path bottleneck, and it starts together with its group (flows with
    the same start time and law) on a path no other flow is using. n flows starting together
    behave as one flow on a path of μ/n (each sees the queue they build together), so the
    single-flow forms apply with μ replaced by (μ − cross traffic)/n. Convergence after a
    bandwidth change: eq. (11)/(12) of the Quick Vegas paper for an increase (Vegas, Enhanced Vegas,
    Quick Vegas); decreases have no closed form. Times are rounds × d.
    """
    from ..analytic import PREDICT_ALGORITHMS

    names = tuple(f.name for f in scenario.flows)
    lay = _Layer(CLOSED_FORM, names, _change_times(scenario))
    lay.put(("utilization", ALL_FLOWS, -1), None, "an average over the run", structural=True)
    try:
        view = scenario.fluid_view()
        # the closed forms model one drop-tail path with one base RTT (the round model
        # runs RED and unequal base RTTs, they do not)
        if view.red is not None or not view.equal_rtt:
            what = "a RED queue" if view.red is not None else "flows of unequal base RTT"
            raise ValueError(f"the rounds engine cannot model {what}")
    except ValueError as exc:
        short = str(exc).split("; engines that can")[0]
        why = "outside the closed forms' model: " + short.replace(
            "the rounds engine cannot model ", ""
        )
        for name in names:
            _none_for(lay, name, why)
        lay.put(("jain_index", ALL_FLOWS, -1), None, why, structural=True)
        return lay
    flows = scenario.flows
    groups = {(f.start_s, f.algorithm, json.dumps(dict(f.params), sort_keys=True)) for f in flows}
    if len(groups) == 1 and flows[0].algorithm in PREDICT_ALGORITHMS:
        lay.put(
            ("jain_index", ALL_FLOWS, -1), 1.0, info="equal flows started together: equal shares"
        )
    else:
        lay.put(("jain_index", ALL_FLOWS, -1), None, "flows not started together", structural=True)
    for f in flows:
        inputs = _flow_inputs(f, flows, view)
        if isinstance(inputs, str):
            _none_for(lay, f.name, inputs)
            continue
        n, th, mu_a = inputs
        _put_flow_forms(lay, scenario, f, view, n, th, mu_a)
        _put_convergence(lay, f, flows, view, n, th)
    return lay


def _none_for(lay: _Layer, name: str, why: str) -> None:
    """Mark every value of flow ``name`` as one the closed forms cannot give, because ``why``."""
    for q in PREDICTED:
        if q == "convergence_times_s":
            for k in range(len(lay.change_times_s)):
                lay.put((q, name, k), None, why, structural=True)
        else:
            lay.put((q, name, -1), None, why, structural=True)
    lay.put(("throughput_pps", name, -1), None, "an average over the run", structural=True)


def _available(view: FluidView, t: float) -> float:
    """The bottleneck's rate left by the cross traffic at time ``t`` (packets/s)."""
    return view.path.mu - sum(c.rate_pps for c in view.cross_traffic if c.start_s <= t < c.stop_s)


def _flow_inputs(
    f: FlowSpec, flows: Sequence[FlowSpec], view: FluidView
) -> tuple[int, dict[str, float], float] | str:
    """The closed forms' inputs for flow ``f`` (its group size n, the law's thresholds and
    the rate available at its start), or why no closed form applies to it."""
    from ..analytic import PREDICT_ALGORITHMS

    path = view.path
    alg = f.algorithm or ""
    if alg not in PREDICT_ALGORITHMS:
        return f"{alg!r} has none (closed forms: {', '.join(PREDICT_ALGORITHMS)})"
    if path.reverse_mu is not None:
        return "ACK-path bottleneck: the closed forms assume none"
    running = [g for g in flows if g.start_s < f.start_s < g.stop_s]
    if running:
        return f"joins {len(running)} flow(s) already running"
    group = [g for g in flows if g.start_s == f.start_s]
    if any(g.algorithm != f.algorithm or dict(g.params) != dict(f.params) for g in group):
        return "starts with flows of another law or parameters"
    n = len(group)
    try:
        th = _law_thresholds(alg, f.params)
    except ValueError as exc:
        return str(exc)
    mu_a = _available(view, f.start_s)
    if mu_a <= 0:
        return "no bandwidth available at its start"
    a, b = th.get("alpha", 2.0), th.get("beta", 4.0)
    backlog = n * (b if alg != "quick-vegas" else (a + b) / 2.0)
    if backlog > path.buffer_pkts:
        return f"buffer {path.buffer_pkts:g} pkts below the flows' backlog {backlog:g}"
    return n, th, mu_a


def _put_flow_forms(
    lay: _Layer,
    scenario: Scenario,
    f: FlowSpec,
    view: FluidView,
    n: int,
    th: dict[str, float],
    mu_a: float,
) -> None:
    """FlowSpec ``f``'s slow-start exit, settled window and time to equilibrium (n flows of its
    group sharing the available rate ``mu_a``)."""
    from ..analytic import predict
    from ..path import Path

    changes = lay.change_times_s
    pr = predict(
        f.algorithm or "",
        Path(mu_a / n, view.path.d),
        round_map=False,  # the round model is a layer of its own: closed forms only here
        **th,  # type: ignore[arg-type]
    )
    later = [t for t in changes if t > f.start_s]
    first_change = min([*later, f.stop_s, scenario.duration_s])
    bound = (
        f"after the first change at {first_change:g} s"
        if later and first_change == later[0]
        else f"after the end of the flow's run at {first_change:g} s"
    )
    no_ss = "TCP-Ho has no slow start"
    lay.put(("ss_exit_window", f.name, -1), pr.ss_exit_window_pkts, no_ss, structural=True)
    t_ss = None if pr.ss_exit_time_s is None else f.start_s + pr.ss_exit_time_s
    lay.put(("ss_exit_time_s", f.name, -1), t_ss, no_ss, structural=True)
    w_eq = pr.equilibrium_window_pkts
    no_w = "TCP-Ho's analysis gives a round, not a window" if w_eq is None else ""
    lay.put(("settled_window", f.name, -1), w_eq, no_w, structural=w_eq is None)
    if pr.time_to_equilibrium_s is None:
        # the closed forms count the round the window first reaches its target; that is
        # not the settling time every engine reports (tcpfluid.metrics.settling)
        lay.put(
            ("time_to_equilibrium_s", f.name, -1),
            None,
            f"no closed form of the settling time ({pr.note.split(':')[0]}); the closed "
            f"forms' first reach of the target: {pr.time_to_target_s:.4g} s",
            structural=True,
        )
    elif f.start_s + pr.time_to_equilibrium_s < first_change:
        lay.put(("time_to_equilibrium_s", f.name, -1), pr.time_to_equilibrium_s)
    else:
        lay.put(
            ("time_to_equilibrium_s", f.name, -1),
            None,
            f"predicted {pr.time_to_equilibrium_s:.4g} s after its start, {bound}",
        )
    lay.put(("throughput_pps", f.name, -1), None, "an average over the run", structural=True)


def _put_convergence(
    lay: _Layer,
    f: FlowSpec,
    flows: Sequence[FlowSpec],
    view: FluidView,
    n: int,
    th: dict[str, float],
) -> None:
    """FlowSpec ``f``'s convergence time after each bandwidth change, as a settling time
    (:func:`tcpfluid.metrics.settling`): Vegas and Enhanced Vegas grow one packet per
    round after an increase of the available rate (eq. (11) of the Quick Vegas paper), so
    they settle within max(1, 2 %) of the new window that many rounds before reaching it;
    rounds × d. Quick Vegas overshoots (eq. (12) counts the first reach only): no closed
    form."""
    from ..analytic import rounds_to_equilibrium

    alg = f.algorithm or ""
    d = view.path.d
    a, b = th.get("alpha", 2.0), th.get("beta", 4.0)
    target = (a + b) / 2.0 if alg == "quick-vegas" else a
    for k, t in enumerate(lay.change_times_s):
        key = ("convergence_times_s", f.name, k)
        if not f.start_s < t < f.stop_s:
            lay.put(key, None, "flow not active at the change", structural=True)
            continue
        active = [g for g in flows if g.start_s <= t < g.stop_s]
        if len(active) != n or any(g.start_s != f.start_s for g in active):
            lay.put(key, None, "flows join or leave at or before the change", structural=True)
            continue
        before, after = _available(view, t - 1e-9), _available(view, t)
        if alg in ("tcp-ho", "quick-vegas") or after <= before:
            why = {
                "tcp-ho": "TCP-Ho's analysis covers a flow's start only",
                "quick-vegas": "no closed form of the settling time (Quick Vegas overshoots; "
                "eq. (12) counts the first reach of the new target)",
            }.get(alg, "a decrease of the available bandwidth (closed forms: increases only)")
            lay.put(key, None, why, structural=True)
            continue
        w_old = before * d / n + target
        w_new = after * d / n + target
        rounds = float(rounds_to_equilibrium(alg, w_old, w_new / w_old, beta=b))
        tol = max(1.0, 0.02 * w_new)  # the settling band of tcpfluid.metrics.settling
        lay.put(key, max(math.ceil(rounds - tol - 1e-9), 0) * d, "")
