"""The round-based fluid model, batched over scenarios (document 000 §4, document 004 §4).

One step is one **round**: the sender transmits its window, the round ends when the ACK of
the first packet of the round returns (document 000 §4). A control law
(:class:`~tcpfluid.algorithms.base.ControlLaw`) decides at every round boundary; the model
computes what the law measures: the queue, the RTT of the round's packets, the ACKs. The
model (available rate, standing backlog, the intra-round burst and the RTT models, round
duration, finite buffer and loss episodes, ACK-path bottleneck, joining flows) is
docs/round-model.md. Flows of unequal base RTT, and a RED bottleneck, run with one round
clock per base RTT sharing the queue (:func:`simulate_rounds_async`,
docs/round-model-unequal-rtt.md); :func:`simulate_scenario_rounds` chooses. Both are the
one round engine (:class:`~tcpfluid.fluid._rounds_engine.RoundEngine`).

Everything is array code over ``n = S × F`` flows (S scenarios of F flows, flow index
fastest); the law's array parameters must have length ``S × F`` (or be scalars).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_int
from ..algorithms.base import ControlLaw
from ..algorithms.mixed import MixedLaw
from ..algorithms.registry import get_law
from ..path import Path
from ..queueing import RedParameters
from ..scenarios import Scenario
from ..scenarios.reduction import same_clock
from ._rounds_engine import RoundEngine
from ._rounds_inputs import (
    FEEDBACK_ROUNDS,
    RECORDABLE,
    CrossTraffic,
    PathBatch,
    RttModel,
    _check_run,
    _rtt_model,
    _Run,
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
    loss_event_rule: str = "share",
    queue_memory: bool = True,
    late_detection: bool = False,
    first_loss_timeout: bool = False,
    joiner_first_loss_pkts: float = math.inf,
    joiner_base_rtt_s: float | None = None,
    overflow_in_runs: bool = False,
) -> RoundTrace:
    """Step ``law`` round by round on one path or a batch of paths.

    Parameters
    ----------
    law
        The control law (its array parameters, if any, have length ``S × n_flows``).
    paths
        A :class:`~tcpfluid.path.Path`, a sequence of them, or a :class:`PathBatch` (S
        scenarios).
    rounds, duration_s
        Exactly one: run this many rounds, or until every scenario's clock reaches
        ``duration_s`` seconds (scenarios whose clock passes it keep stepping until the
        last one does, but their totals and summaries stop at ``duration_s``).
    n_flows
        F, flows per scenario sharing the bottleneck (equal base RTT).
    flow_start_s, flow_stop_s
        Per-flow start and stop times, shape ``(F,)`` (defaults: 0 and never).
    rtt_model, rtt
        The RTT model (the burst term of the RTT): ``"average"`` (default), ``"last"`` or
        ``"fluid"`` (docs/round-model.md); ``rtt`` is its older name.
    cross_traffic
        CBR sources at the bottleneck; at every instant their total must stay below μ.
    record
        Which optional per-round fields to keep (subset of :data:`RECORDABLE`); time,
        window and phase are always kept. Fewer fields save memory in large sweeps.
    record_every
        Keep every m-th round (1: all).
    timeout_loss_fraction
        A flow losing more than this fraction of its window in one round suffers a
        retransmission timeout; otherwise a fast retransmit (``(0, 1]``).
    feedback_rounds
        Feedback lag, rounds (0 to 8): the RTTs a law reads at the end of round k are those
        of the packets of round ``k - feedback_rounds`` (default 1, a packet sender's; 0:
        the documents' model; docs/round-model.md, "Feedback lag").
    ack_train
        Model the spacing of the ACK train (default ``True``): the per-ACK growth of a
        round queues only beyond the spare capacity of an ACK train slower than the
        available rate; ``False`` queues it all (docs/round-model.md, "ACK train").
    progress
        Called with the fraction done in [0, 1] (simulated time over ``duration_s``, or
        rounds over ``rounds``) at most about ten times a second of wall time.
    whole_packets
        ``True``: a round's ACKs are those of the previous round's whole packets,
        ⌊w_{k−1}⌋, as a packet sender's (refused with an ACK-path bottleneck). Default
        ``False``: one ACK per packet of the round's window, the documents' reading.
    train_runs
        With ``ack_train``, after the available rate rises, the ACK train is made of runs
        of packets served back to back, each run's growth queuing inside it (default
        ``True``; docs/round-model.md, "Runs of the ACK train"). ``False``: spread evenly.
    drop_share
        How a round's drop-tail overflow is shared among the flows
        (:data:`~tcpfluid.fluid._rounds_law.DROP_SHARES`; docs/round-model.md, "Finite
        buffer"): ``"proportional"`` (default) in proportion to the windows; ``"in-turn"``
        its whole packets one per flow in turn; ``"growth"`` first on each flow's per-ACK
        growth, a loss event once a flow's losses reach a whole packet.
    recovery_rounds, drop_at_least_one, loss_event_rule, queue_memory, late_detection,
    first_loss_timeout, joiner_first_loss_pkts, joiner_base_rtt_s, overflow_in_runs
        Mechanism switches for experiments, the defaults the model (docs/round-model.md,
        "Mechanism switches").

    Returns
    -------
    RoundTrace

    Raises
    ------
    ValueError, TypeError
        Bad arguments, before any work starts.
    """
    check_law(law)
    opts = _engine_options(locals())
    progress = opts.pop("progress")
    batch = paths if isinstance(paths, PathBatch) else PathBatch.from_paths(paths)
    F = check_int("n_flows", n_flows, minimum=1)
    model = _rtt_model(rtt_model, rtt)
    if opts["whole_packets"] and bool(np.any(np.isfinite(batch.reverse_mu_pps))):
        raise ValueError(
            "whole_packets=True is not modelled with an ACK-path bottleneck (the round's "
            "ACKs then come from the ACK-path queue); use whole_packets=False"
        )
    run = _check_run(
        batch, F, rounds, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    recorder = _Recorder((run.n_steps + run.every - 1) // run.every, batch.n_scenarios, F, run.rec)
    fields = _run(
        law, batch, [np.arange(F)], batch.d_s[:, None], run, recorder, progress, model=model,
        lag=feedback_rounds, red=None, **opts,
    )  # fmt: skip
    return RoundTrace(paths=batch, **fields)


#: the keywords of :func:`simulate_rounds` and :func:`simulate_rounds_async` passed on to
#: the round engine, checked by their rules (:data:`~._rounds_inputs.OPTION_RULES`) in this
#: order
ENGINE_OPTIONS = (
    "ack_train", "train_runs", "whole_packets", "progress", "drop_share", "recovery_rounds",
    "drop_at_least_one", "loss_event_rule", "queue_memory", "late_detection",
    "first_loss_timeout", "joiner_first_loss_pkts", "joiner_base_rtt_s", "overflow_in_runs",
)  # fmt: skip


def _engine_options(given: dict[str, Any]) -> dict[str, Any]:
    """The options of :data:`ENGINE_OPTIONS` among the keywords ``given``, checked."""
    return check_options(**{k: given[k] for k in ENGINE_OPTIONS if k in given})


def _run(
    law: ControlLaw, batch: PathBatch, classes: list[NDArray[np.intp]], d: FloatArray, run: _Run,
    recorder: Any, progress: Callable[[float], None] | None, **options: Any,
) -> dict[str, Any]:  # fmt: skip
    """Run the round engine on checked arguments: the trace's fields but its paths."""
    eng = RoundEngine(law, batch, classes, d, run, **options)
    eng.loop(recorder, progress)
    return {**recorder.series(), **eng.results(options["model"])}


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
    flow_start_s: ArrayLike | None = None,
    flow_stop_s: ArrayLike | None = None,
    rtt_model: RttModel | None = None,
    cross_traffic: Sequence[CrossTraffic] = (),
    red: RedParameters | None = None,
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    timeout_loss_fraction: float = 0.5,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    progress: Callable[[float], None] | None = None,
    drop_share: str = DROP_SHARE,
    train_runs: bool = True,
    recovery_rounds: int = RECOVERY_ROUNDS,
    drop_at_least_one: bool = True,
    loss_event_rule: str = "share",
    queue_memory: bool = True,
    late_detection: bool = False,
    first_loss_timeout: bool = False,
    joiner_first_loss_pkts: float = math.inf,
    joiner_base_rtt_s: float | None = None,
    overflow_in_runs: bool = False,
) -> AsyncRoundTrace:
    """Step ``law`` for flows with their own base RTTs sharing ``path``'s bottleneck.

    Parameters
    ----------
    law
        The control law of every flow (array parameters: length F).
    path
        The bottleneck: rate μ (packets/s), buffer (packets); its ``d`` is not used (each
        flow's base RTT is in ``base_rtt_s``). An ACK-path bottleneck is refused.
    base_rtt_s
        Each flow's base RTT, s, shape ``(F,)`` (F flows).
    duration_s
        Simulated time, s.
    red
        RED parameters of the bottleneck (``None``: drop-tail).
    flow_start_s, flow_stop_s, rtt_model, cross_traffic, record, record_every,
    timeout_loss_fraction, feedback_rounds, ack_train, progress, drop_share, train_runs,
    recovery_rounds, drop_at_least_one, loss_event_rule, queue_memory, late_detection,
    first_loss_timeout, joiner_first_loss_pkts, joiner_base_rtt_s, overflow_in_runs
        As in :func:`tcpfluid.fluid.rounds.simulate_rounds` (``drop_share``: one turn
        over the flows of every class; ``"growth"``: each flow's growth in its last
        round; ``train_runs``: the runs of each class's ACK train).

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
    opts = _engine_options(locals())
    progress = opts.pop("progress")
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
    model = _rtt_model(rtt_model, None)
    batch = PathBatch(path.mu, float(d.min()), buffer_pkts=path.buffer_pkts)
    run = _check_run(
        batch, d.size, None, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    classes = rtt_classes(d)
    fields = _run(
        law, batch, classes, np.array([[d[ix[0]] for ix in classes]]), run,
        AsyncRecorder(classes, d.size, run.rec), progress, model=model, lag=feedback_rounds,
        whole_packets=False, red=red, **opts,
    )  # fmt: skip
    paths = PathBatch(path.mu, float(d[0]), buffer_pkts=path.buffer_pkts)
    return AsyncRoundTrace(paths=paths, **fields, base_rtt_s=d.copy())


#: the options :func:`simulate_scenario_rounds` passes on to :func:`simulate_rounds` (the
#: scenario gives the paths, flows, duration and cross traffic)
SCENARIO_OPTIONS = (
    "rtt_model", "record", "record_every", "feedback_rounds", "ack_train", "rtt", "progress",
    "whole_packets", "train_runs", "drop_share", "recovery_rounds", "drop_at_least_one",
    "loss_event_rule", "queue_memory", "late_detection", "first_loss_timeout",
    "joiner_first_loss_pkts", "joiner_base_rtt_s", "overflow_in_runs",
)  # fmt: skip


def simulate_scenario_rounds(scenario: Scenario, **options: Any) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view` (one
    bottleneck, CBR sources as cross traffic). This is the ``rounds`` engine of
    ``tcpfluid simulate``. Flows may run different algorithms or parameters: they are
    stepped as one :class:`~tcpfluid.algorithms.mixed.MixedLaw` (:func:`scenario_law`).
    Flows of unequal base RTT, or a RED bottleneck, run with one round clock per base RTT
    (:func:`simulate_rounds_async`) and return its
    :class:`~tcpfluid.fluid._rounds_results.AsyncRoundTrace` (``whole_packets=True``
    is not modelled there and is refused).

    Parameters
    ----------
    scenario
        The scenario.
    **options
        The options of :func:`simulate_rounds` named in :data:`SCENARIO_OPTIONS`, with
        its defaults.

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
    rtt_model = _rtt_model(options.pop("rtt_model", None), options.pop("rtt", None))
    common: dict[str, Any] = {
        "duration_s": view.duration_s,
        "flow_start_s": np.asarray(view.start_s, dtype=np.float64),
        "flow_stop_s": np.asarray(view.stop_s, dtype=np.float64),
        "rtt_model": rtt_model,
        "cross_traffic": [
            CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic
        ],
    }
    if view.equal_rtt and view.red is None:
        return simulate_rounds(law, view.path, n_flows=len(view.flows), **common, **options)
    # flows with their own round clocks (and RED)
    if options.pop("whole_packets", False):
        raise ValueError(
            f"scenario {scenario.name!r}: whole_packets=True is modelled by the synchronous "
            "round model only (one base RTT, drop-tail); this scenario runs on the "
            "asynchronous round model; use whole_packets=False"
        )
    return simulate_rounds_async(law, view.path, view.base_rtt_s, red=view.red, **common, **options)


def scenario_law(name: str, flows: Sequence[Any]) -> ControlLaw:
    """The one law object that steps a scenario's flows: the flows' common law, or a
    :class:`~tcpfluid.algorithms.mixed.MixedLaw` of one law per distinct (algorithm,
    parameters), each on its flows (in order of first appearance).

    Raises
    ------
    ValueError
        If a flow has no algorithm (named, with how to give one).
    """
    from ..scenarios._columns import FlowSeq, canonical_laws

    if isinstance(flows, FlowSeq):  # the scenario's columns: one entry per distinct law
        which, keys = flows.table.law, flows.table.laws
    else:
        which, keys = canonical_laws(
            np.arange(len(flows), dtype=np.int64), [(f.algorithm, f.params) for f in flows]
        )
    for k, (alg, _) in enumerate(keys):
        if alg is None:  # laws are in the order of their first flow: this is the first
            fl = flows[int(np.argmax(which == k))]
            raise ValueError(
                f"scenario {name!r}: flow {fl.name!r} has no algorithm; choose one with "
                "Scenario.with_algorithm(name) (tcpfluid simulate --algorithm NAME)"
            )
    laws = [get_law(str(alg), **params) for alg, params in keys]
    if len(laws) == 1:
        return laws[0]
    groups = [np.flatnonzero(which == k).tolist() for k in range(len(laws))]
    return MixedLaw(laws, groups)
