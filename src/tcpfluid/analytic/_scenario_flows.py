"""A scenario's flows through the closed forms, as ``tcpfluid predict SCENARIO`` reads them:
each flow of a group started together shares the rate available at its start
(:func:`flow_prediction`), and its slow-start exit, settled window and time to equilibrium
are the prediction's (:func:`flow_values`). The sweeps' closed-form rows and the checks'
closed-form layer (:mod:`tcpfluid.testing`) both read them here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import FlowSpec, Scenario
    from ..scenarios.reduction import FluidView
    from .predict import Prediction


def change_times(scenario: Scenario) -> tuple[float, ...]:
    """The run's changes as every engine's summary counts them (CBR starts and stops, flows
    joining and leaving, inside the run: :func:`tcpfluid.metrics.run_changes`)."""
    from ..metrics import run_changes

    times, _ = run_changes(
        [(c.start_s, c.stop_s) for c in scenario.cbr],
        [(f.start_s, f.stop_s) for f in scenario.flows],
        scenario.duration_s,
        start_spread_s=scenario.start_spread_s,
    )
    return times


def law_thresholds(algorithm: str, params: Mapping[str, Any]) -> dict[str, float]:
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


def available_pps(view: FluidView, t: float) -> float:
    """The bottleneck's rate left by the cross traffic at time ``t`` (packets/s)."""
    return view.path.mu - sum(c.rate_pps for c in view.cross_traffic if c.start_s <= t < c.stop_s)


def _flow_inputs(
    f: FlowSpec, flows: Sequence[FlowSpec], view: FluidView
) -> tuple[int, dict[str, float], float] | str:
    """The closed forms' inputs for flow ``f`` (its group size n, the law's thresholds and
    the rate available at its start), or why no closed form applies to it."""
    from . import PREDICT_ALGORITHMS

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
        th = law_thresholds(alg, f.params)
    except ValueError as exc:
        return str(exc)
    mu_a = available_pps(view, f.start_s)
    if mu_a <= 0:
        return "no bandwidth available at its start"
    a, b = th.get("alpha", 2.0), th.get("beta", 4.0)
    backlog = n * (b if alg != "quick-vegas" else (a + b) / 2.0)
    if backlog > path.buffer_pkts:
        return f"buffer {path.buffer_pkts:g} pkts below the flows' backlog {backlog:g}"
    return n, th, mu_a


def flow_prediction(
    f: FlowSpec, flows: Sequence[FlowSpec], view: FluidView, *, round_map: bool = False
) -> tuple[Prediction, int, dict[str, float]] | str:
    """Flow ``f``'s closed forms, those of ``tcpfluid predict SCENARIO``: the flows of its
    group (n started with it) share the rate available at its start (``view``: the
    scenario's with one drop-tail bottleneck and one base RTT), each slow-starting as the
    packet sender does (``rule="sender"``, docs/analytic.md). Returns the
    :class:`~tcpfluid.analytic.Prediction` with n and the law's thresholds, or why no closed
    form applies. ``round_map``: the settling of Quick Vegas and TCP-Ho from the round map
    (:func:`~tcpfluid.analytic.predict`; ``False``: none, the round model is a layer of its
    own)."""
    from ..path import Path
    from .predict import predict

    inputs = _flow_inputs(f, flows, view)
    if isinstance(inputs, str):
        return inputs
    n, th, mu_a = inputs
    try:
        pr = predict(
            f.algorithm or "",
            # each of the group's n flows: its share of the rate and of the buffer (the
            # closed forms refuse a buffer below the queue of their slow start)
            Path(mu_a / n, view.path.d, buffer=view.path.buffer_pkts / n),
            round_map=round_map,
            rule="sender",  # a scenario's flows are the packet sender's (docs/analytic.md)
            **th,  # type: ignore[arg-type]
        )
    except ValueError as exc:  # the flow's path is outside the closed forms' domain
        share = f" (each of the {n} flows starting together: 1/{n} of the rate and buffer)"
        return f"outside the closed forms' domain{share if n > 1 else ''}: {exc}"
    return pr, n, th


def flow_values(
    scenario: Scenario, f: FlowSpec, pr: Prediction
) -> dict[str, tuple[float | None, str, bool]]:
    """FlowSpec ``f``'s slow-start exit, settled window and time to equilibrium from its
    prediction ``pr`` (:func:`flow_prediction`), as ``tcpfluid predict SCENARIO`` gives
    them (the exit time from the run's start, a settling only before the first change):
    quantity -> (value, why it is ``None``, whether the closed forms cannot give it)."""
    from ..metrics._settling import settle_hold_s
    from .predict import _NO_SLOW_START, _NO_WINDOW

    changes = change_times(scenario)
    later = [t for t in changes if t > f.start_s]
    run_end = min(f.stop_s, scenario.duration_s)
    first_change = min([*later, run_end])
    at = "the first change" if later and first_change == later[0] else "the end of the flow's run"
    t_ss = None if pr.ss_exit_time_s is None else f.start_s + pr.ss_exit_time_s
    w_ss, no_ss, fixed = pr.ss_exit_window_pkts, _NO_SLOW_START, True
    if t_ss is not None and t_ss > run_end:  # as the engines: an exit after the run is none
        no_ss = (
            f"predicted at {t_ss:.4g} s, after the end of the flow's run at {run_end:g} s: "
            "the flow is still in slow start at its end"
        )
        w_ss, t_ss, fixed = None, None, False
    # the closed forms' window only (TCP-Ho's is the round map's, a layer of its own here)
    closed = pr.equilibrium_window_route == "closed form"
    w_eq = pr.equilibrium_window_pkts if closed else None
    out = {
        "ss_exit_window": (w_ss, no_ss, fixed),
        "ss_exit_time_s": (t_ss, no_ss, fixed),
        "settled_window": (w_eq, _NO_WINDOW if w_eq is None else "", w_eq is None),
    }
    t_eq = pr.time_to_equilibrium_s
    if t_eq is None:
        # the closed forms count the round the window first reaches its target; that is
        # not the settling time every engine reports (tcpfluid.metrics.settling)
        why = (
            f"no closed form of the settling time ({pr.note.split(':')[0]}); the closed "
            f"forms' first reach of the target: {pr.time_to_target_s:.4g} s"
        )
        out["time_to_equilibrium_s"] = (None, why, True)
    elif f.start_s + t_eq <= first_change - settle_hold_s(first_change - f.start_s):
        out["time_to_equilibrium_s"] = (t_eq, "", False)
    else:
        why = unheld(t_eq, first_change - f.start_s, at, first_change)
        out["time_to_equilibrium_s"] = (None, why, False)
    return out


def unheld(t_s: float, span_s: float, at: str, end_s: float) -> str:
    """Why a closed form's settling time ``t_s`` (from its segment's start, s) is not
    reported in a segment ``span_s`` long that ends at ``end_s`` (``at``: what ends it)."""
    from ..metrics._settling import settle_hold_s

    return (
        f"predicted {t_s:.4g} s after its start, less than {settle_hold_s(span_s):.3g} s "
        f"(two tail lengths, tcpfluid.metrics.settling) before {at} at {end_s:g} s: the "
        "settling rule needs the window in its band that long"
    )
