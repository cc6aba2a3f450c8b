"""The round-based fluid model, batched over scenarios (document 000 §4, document 004 §4).

One step is one **round**: the sender transmits its window, the round ends when the ACK of
its first packet returns; a :class:`~tcpfluid.algorithms.base.ControlLaw` decides at every
round boundary on what the model computes (queue, RTTs, ACKs; docs/round-model.md). Flows
of unequal base RTT and a RED bottleneck run with one round clock per base RTT
(:func:`simulate_rounds_async`, docs/round-model-unequal-rtt.md). Arrays are over
``n = S × F`` flows (S scenarios of F flows, flow index fastest)."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_int
from ..algorithms.base import ControlLaw
from ..algorithms.mixed import MixedLaw
from ..algorithms.registry import get_law
from ..analytic.slow_start import resolve_rtt_model
from ..path import Path
from ..queueing import RedParameters
from ..scenarios import Scenario
from ..scenarios.reduction import FluidView, same_clock
from ._rounds_engine import RoundEngine
from ._rounds_inputs import (
    _RTT_MODELS,
    FEEDBACK_ROUNDS,
    RECORDABLE,
    CrossTraffic,
    PathBatch,
    RttModel,
    _check_run,
    check_law,
    check_options,
)
from ._rounds_law import DROP_SHARE, RECOVERY_ROUNDS
from ._rounds_physics import shared_backlog
from ._rounds_results import AsyncRecorder, AsyncRoundTrace, RoundSummary, RoundTrace, _Recorder

__all__ = [
    "RECORDABLE",
    "CrossTraffic",
    "PathBatch",
    "RoundSummary",
    "RoundTrace",
    "RttModel",
    "rtt_classes",
    "shared_backlog",
    "simulate_rounds",
    "simulate_rounds_async",
    "simulate_scenario_rounds",
]

FloatArray = NDArray[np.float64]


# ------------------------------------------------------------------------------ engine
def simulate_rounds(
    law: ControlLaw,
    paths: Path | Sequence[Path] | PathBatch,
    *,
    rounds: int | None = None,
    duration_s: float | None = None,
    n_flows: int = 1,
    flow_start_s: ArrayLike | None = None,
    flow_stop_s: ArrayLike | None = None,
    flow_lead_s: ArrayLike | None = None,
    flow_spacing_s: ArrayLike | None = None,
    rtt_model: RttModel | None = None,
    cross_traffic: Sequence[CrossTraffic] = (),
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    timeout_loss_fraction: float = 0.5,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    rtt: RttModel | None = None,
    progress: Callable[[float], None] | None = None,
    whole_packets: bool = False,
    train_runs: bool = True,
    drop_share: str = DROP_SHARE,
    recovery_rounds: int = RECOVERY_ROUNDS,
    drop_at_least_one: bool = True,
    burst_whole_losses: bool = True,
    loss_event_rule: str = "share",
    queue_memory: bool = True,
    late_detection: bool = False,
    first_loss_timeout: bool = False,
    joiner_first_loss_pkts: float = math.inf,
    joiner_base_rtt_s: float | None = None,
    overflow_in_runs: bool = False,
    hole_timeouts: bool | str = "red",
) -> RoundTrace:
    """Step ``law`` round by round on one path or a batch of paths (docs/round-model.md).

    Parameters
    ----------
    law
        The control law (its array parameters, if any, have length ``S × n_flows``).
    paths
        A :class:`~tcpfluid.path.Path`, a sequence of them, or a :class:`PathBatch` (S
        scenarios).
    rounds, duration_s
        Exactly one: run this many rounds, or until every scenario's clock reaches
        ``duration_s`` seconds (totals and summaries stop there).
    n_flows
        F, flows per scenario sharing the bottleneck (equal base RTT).
    flow_start_s, flow_stop_s
        Per-flow start and stop times, s, shape ``(F,)`` (defaults: 0 and never).
    flow_lead_s, flow_spacing_s
        Per flow: the time its first packet takes from the sender to the bottleneck, and
        its packets' spacing there (its access link's packet time), s, shape ``(F,)``
        (default 0: every packet queued when sent); they set where the first packets of
        flows starting together queue ("First packets").
    rtt_model, rtt
        The RTT model: ``"average"`` (default), ``"last"`` or ``"fluid"``; ``rtt`` is its
        older name.
    cross_traffic
        CBR sources at the bottleneck, together below μ at every instant.
    record, record_every
        The optional per-round fields kept (subset of :data:`RECORDABLE`; time, window and
        phase always are), and every m-th round kept (1: all).
    timeout_loss_fraction
        A flow losing more than this fraction of its window in one round times out, else
        it fast-retransmits (``(0, 1]``).
    feedback_rounds
        Feedback lag, rounds (0 to 8; 0: the documents' model; "Feedback lag").
    ack_train, train_runs
        Model the ACK train's spacing ("ACK train") and its runs after the available rate
        rises ("Runs of the ACK train"); both default ``True``.
    progress
        Called with the fraction done in [0, 1] at most about ten times a second.
    whole_packets
        ``True``: a round's ACKs are those of the previous round's whole packets (refused
        with an ACK-path bottleneck); default ``False``: one per packet of the window.
    drop_share
        How a round's overflow is shared (:data:`~._rounds_law.DROP_SHARES`; "Finite
        buffer"): ``"proportional"`` (default), ``"in-turn"`` or ``"growth"``.
    burst_whole_losses
        With ``"proportional"``: an overflow that only the round's growth burst makes (the
        queue drains after the train) is lost as whole packets, each from one flow
        (default ``True``); ``False``: every flow with a share takes a loss event.
    recovery_rounds, drop_at_least_one, loss_event_rule, queue_memory, late_detection,
    first_loss_timeout, joiner_first_loss_pkts, joiner_base_rtt_s, overflow_in_runs,
    hole_timeouts
        Mechanism switches for experiments, the defaults the model ("Mechanism switches").

    Raises
    ------
    ValueError, TypeError
        Bad arguments, before any work starts.
    """
    check_law(law)
    given = locals()
    batch = paths if isinstance(paths, PathBatch) else PathBatch.from_paths(paths)
    F = check_int("n_flows", n_flows, minimum=1)
    fields = _run(law, batch, [np.arange(F)], batch.d_s[:, None], given, None, False)
    return RoundTrace(paths=batch, **fields)


#: the keywords of :func:`simulate_rounds` passed on to the round engine, checked by their
#: rules (:data:`~._rounds_inputs.OPTION_RULES`) in this order
ENGINE_OPTIONS = (
    "ack_train", "train_runs", "whole_packets", "progress", "drop_share", "recovery_rounds",
    "drop_at_least_one", "burst_whole_losses", "loss_event_rule", "queue_memory",
    "late_detection", "first_loss_timeout", "joiner_first_loss_pkts", "joiner_base_rtt_s",
    "overflow_in_runs", "hole_timeouts",
)  # fmt: skip
#: the keyword-only parameters of :func:`simulate_rounds` and their defaults
DEFAULTS = {
    k: p.default
    for k, p in inspect.signature(simulate_rounds).parameters.items()
    if p.kind is p.KEYWORD_ONLY
}


def _run(
    law: ControlLaw, batch: PathBatch, classes: list[NDArray[np.intp]], d: FloatArray,
    given: dict[str, Any], red: RedParameters | None, own_clocks: bool,
) -> dict[str, Any]:  # fmt: skip
    """Check the keywords ``given`` of :func:`simulate_rounds` and run the round engine on
    ``classes`` (base RTTs ``d``, shape ``(S, K)``; ``own_clocks``: recorded as
    :class:`AsyncRoundTrace`): the trace's fields but its paths."""
    opts = check_options(**{k: given[k] for k in ENGINE_OPTIONS})
    progress = opts.pop("progress")
    if opts["whole_packets"] and bool(np.any(np.isfinite(batch.reverse_mu_pps))):
        raise ValueError(
            "whole_packets=True is not modelled with an ACK-path bottleneck (the round's "
            "ACKs then come from the ACK-path queue); use whole_packets=False"
        )
    model = resolve_rtt_model(given["rtt_model"], given["rtt"], _RTT_MODELS)
    F = sum(ix.size for ix in classes)
    run = _check_run(batch, F, given)
    recorder: Any = (
        _Recorder((run.n_steps + run.every - 1) // run.every, batch.n_scenarios, F, run.rec)
        if not own_clocks
        else AsyncRecorder(classes, F, run.rec)
    )
    opts.update(model=model, lag=given["feedback_rounds"], red=red)
    eng = RoundEngine(law, batch, classes, d, run, opts)
    eng.loop(recorder, progress)
    return {**recorder.series(), **eng.results()}


def rtt_classes(base_rtt_s: FloatArray) -> list[NDArray[np.intp]]:
    """The flows grouped by base RTT (equal to rounding,
    :func:`~tcpfluid.scenarios.reduction.same_clock`), in order of their first flow: each
    group shares one round clock."""
    left, out = np.ones(base_rtt_s.size, dtype=bool), []
    while left.any():
        group = left & same_clock(base_rtt_s, base_rtt_s[int(np.argmax(left))])
        out.append(np.flatnonzero(group).astype(np.intp))
        left &= ~group
    return out


def simulate_rounds_async(
    law: ControlLaw,
    path: Path,
    base_rtt_s: ArrayLike,
    *,
    duration_s: float,
    red: RedParameters | None = None,
    **options: Any,
) -> AsyncRoundTrace:
    """Step ``law`` for flows with their own base RTTs sharing ``path``'s bottleneck
    (docs/round-model-unequal-rtt.md).

    Parameters
    ----------
    law
        The control law of every flow (array parameters: length F).
    path
        The bottleneck: rate μ (packets/s), buffer (packets); its ``d`` is not used. An
        ACK-path bottleneck is refused.
    base_rtt_s
        Each flow's base RTT, s, shape ``(F,)`` (F flows).
    duration_s
        Simulated time, s.
    red
        RED parameters of the bottleneck (``None``: drop-tail).
    **options
        The keywords of :func:`simulate_rounds` but ``rounds``, ``n_flows``, ``rtt`` and
        ``whole_packets``, with its defaults (``drop_share``: one turn over the flows of
        every class; ``"growth"``: each flow's growth in its last round; ``train_runs``:
        the runs of each class's ACK train).

    Returns
    -------
    AsyncRoundTrace
        One scenario (``S = 1``); rows at every flow's round ends.

    Raises
    ------
    ValueError, TypeError
        Bad arguments (named), or an ACK-path bottleneck on ``path``.
    """
    check_law(law)
    unknown = sorted(set(options) - set(DEFAULTS) | set(options) & _NOT_ASYNC)
    if unknown:
        raise TypeError(
            f"simulate_rounds_async() got an unexpected keyword argument {unknown[0]!r}"
        )
    given = {**DEFAULTS, **options, "duration_s": duration_s}
    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    d = as_float_array("base_rtt_s", base_rtt_s, positive=True).ravel()
    if d.size == 0:
        raise ValueError("base_rtt_s must give one base RTT per flow, got none")
    if path.ack_path_limits:
        raise ValueError(
            "the round model with per-flow base RTTs or RED cannot model an ACK-path "
            f"bottleneck ({path.reverse_mu:g} ACKs/s < {path.mu:g} packets/s); engines "
            "that can: packet"
        )
    if red is not None and not isinstance(red, RedParameters):
        raise TypeError(f"red must be None or a RedParameters, got {red!r}")
    batch = PathBatch(path.mu, float(d.min()), buffer_pkts=path.buffer_pkts)
    classes = rtt_classes(d)
    fields = _run(law, batch, classes, np.array([[d[ix[0]] for ix in classes]]), given, red, True)
    paths = PathBatch(path.mu, float(d[0]), buffer_pkts=path.buffer_pkts)
    return AsyncRoundTrace(paths=paths, **fields, base_rtt_s=d.copy())


#: the keywords of :func:`simulate_rounds` that :func:`simulate_rounds_async` does not take
_NOT_ASYNC = {"rounds", "n_flows", "rtt", "whole_packets"}
#: the options :func:`simulate_scenario_rounds` passes on to :func:`simulate_rounds` (the
#: scenario gives the paths, flows, duration and cross traffic)
SCENARIO_OPTIONS = (
    "rtt_model", "record", "record_every", "feedback_rounds", "ack_train", "rtt", "progress",
    "whole_packets", "train_runs", "drop_share", "recovery_rounds", "drop_at_least_one",
    "burst_whole_losses", "loss_event_rule", "queue_memory", "late_detection", "first_loss_timeout",
    "joiner_first_loss_pkts", "joiner_base_rtt_s", "overflow_in_runs", "hole_timeouts",
    "timeout_loss_fraction",
)  # fmt: skip


def simulate_scenario_rounds(scenario: Scenario, **options: Any) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model: the ``rounds``
    engine of ``tcpfluid simulate``.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view`; its flows
    are stepped as one law (:func:`scenario_law`). Flows of unequal base RTT, or a RED
    bottleneck, run on :func:`simulate_rounds_async` (``whole_packets=True`` refused).

    Parameters
    ----------
    scenario
        The scenario.
    **options
        The options of :func:`simulate_rounds` named in :data:`SCENARIO_OPTIONS`.

    Raises
    ------
    TypeError
        An option not in :data:`SCENARIO_OPTIONS` (named).
    ValueError
        If a flow has no algorithm, or the scenario has a feature the round model cannot
        model (flows that do not share the bottleneck, cross traffic off the bottleneck,
        an ACK-path bottleneck together with RED or unequal base RTTs).
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    unknown = sorted(set(options) - set(SCENARIO_OPTIONS))
    if unknown:
        raise TypeError(
            f"simulate_scenario_rounds got the unknown option {unknown[0]!r}; options: "
            f"{', '.join(SCENARIO_OPTIONS)}"
        )
    view = scenario.fluid_view()
    law = scenario_law(scenario.name, view.flows)
    common: dict[str, Any] = {
        **scenario_inputs(view),
        "rtt_model": resolve_rtt_model(
            options.pop("rtt_model", None), options.pop("rtt", None), _RTT_MODELS
        ),
    }
    if view.equal_rtt and view.red is None:
        return simulate_rounds(law, view.path, n_flows=len(view.flows), **common, **options)
    if options.pop("whole_packets", False):
        raise ValueError(
            f"scenario {scenario.name!r}: whole_packets=True is modelled by the synchronous "
            "round model only (one base RTT, drop-tail); this scenario runs on the "
            "asynchronous round model; use whole_packets=False"
        )
    return simulate_rounds_async(law, view.path, view.base_rtt_s, red=view.red, **common, **options)


def scenario_inputs(view: FluidView) -> dict[str, Any]:
    """The keywords of :func:`simulate_rounds` a scenario's fluid view sets: the run's
    length, each flow's start, stop, lead and spacing at the bottleneck, the cross traffic.
    The one reduction of a scenario to the round model's inputs (its path, flows and law
    aside): :func:`simulate_scenario_rounds` and a sweep's batched calls
    (:func:`stack_inputs`) both take it."""
    return {
        "duration_s": view.duration_s,
        "flow_start_s": np.asarray(view.start_s, dtype=np.float64),
        "flow_stop_s": np.asarray(view.stop_s, dtype=np.float64),
        "flow_lead_s": np.asarray(view.lead_s, dtype=np.float64),
        "flow_spacing_s": np.asarray(view.spacing_s, dtype=np.float64),
        "cross_traffic": [
            CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic
        ],
    }


def batch_key(inputs: Mapping[str, Any]) -> tuple[Any, ...]:
    """What scenarios run in one batched :func:`simulate_rounds` call share of their
    :func:`scenario_inputs` (hashable): everything but the cross traffic's rates, which a
    batch takes one per scenario."""
    out = []
    for k, v in sorted(inputs.items()):
        if k == "cross_traffic":
            v = tuple((c.start_s, c.stop_s) for c in v)
        elif isinstance(v, np.ndarray):
            v = tuple(v.tolist())
        out.append((k, v))
    return tuple(out)


def stack_inputs(inputs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The :func:`scenario_inputs` of several scenarios as those of one batched
    :func:`simulate_rounds` call over them, in order: each cross-traffic source's rate one
    per scenario, the rest shared.

    Raises
    ------
    ValueError
        No scenarios, or scenarios that differ in more than their cross traffic's rates
        (their :func:`batch_key`).
    """
    if not inputs:
        raise ValueError("stack_inputs needs the inputs of at least one scenario, got none")
    first, key = inputs[0], batch_key(inputs[0])
    for s, inp in enumerate(inputs):
        if batch_key(inp) != key:
            raise ValueError(
                f"scenario {s} cannot share a batched call with scenario 0: their inputs "
                "differ in more than the cross traffic's rates"
            )
    cross = [
        CrossTraffic(
            np.array([inp["cross_traffic"][j].rate_pps for inp in inputs], dtype=np.float64),
            c.start_s,
            c.stop_s,
        )
        for j, c in enumerate(first["cross_traffic"])
    ]
    return {**first, "cross_traffic": cross}


def scenario_law(name: str, flows: Any) -> ControlLaw:
    """The one law that steps a scenario's flows (its ``flows``, whose columns hold one entry
    per distinct law): their common law, or a :class:`~tcpfluid.algorithms.mixed.MixedLaw`
    of one law per distinct (algorithm, parameters) in order of first appearance.

    Raises
    ------
    ValueError
        If a flow has no algorithm (named, with how to give one).
    """
    which, keys = flows.table.law, flows.table.laws
    flows.table.check_algorithms(name)
    laws = [get_law(str(alg), **params) for alg, params in keys]
    if len(laws) == 1:
        return laws[0]
    return MixedLaw(laws, [np.flatnonzero(which == k).tolist() for k in range(len(laws))])
