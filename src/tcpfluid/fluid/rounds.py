"""The round-based fluid model, batched over scenarios (document 000 §4, document 004 §4).

One step is one **round**: the sender transmits its window, the round ends when the ACK of
the first packet of the round returns (document 000 §4). A control law
(:class:`~tcpfluid.algorithms.base.ControlLaw`) decides at every round boundary; this module
computes what the law measures: the queue, the RTT of the round's packets, the ACKs.

Model (per scenario, all flows of a scenario share the bottleneck and have the same base
RTT; ``W`` below is the sum of the flows' windows). Flows of unequal base RTT, and a RED
bottleneck, run on the asynchronous round model (:mod:`._rounds_async`,
docs/round-model-unequal-rtt.md): one round clock per base RTT, the same physics per
round, one shared queue; :func:`simulate_scenario_rounds` chooses it.

* **Available rate** ``μa = μ − c(t)``: the bottleneck rate μ minus the constant-bit-rate
  cross traffic active at the start of the round (document 000 §5.1). The FIFO queue holds
  both; in packets of the link it is ``(μ/μa)`` times the flows' own backlog.
* **Standing (fluid) backlog** of a window W: ``q(W) = max(0, W − μa d)`` packets, the
  window beyond the pipe (document 003 eqs 1–4: ``RTT = d + q/μa``).
* **Intra-round burst** (document 000 §4.1, document 004 §4.1): the window grows during the
  round by ``z = min(incr × acks, cap − cwnd)`` through per-ACK increments; the ACKs of
  the previous round arrive every ``1/μa`` seconds and each one releases the extra packets,
  so the backlog grows linearly from ``q(W0)`` (the first packet of the round) to
  ``q(W0) + Z`` (the last one), ``Z`` the sum of the flows' growth. The last packet waits
  ``Z/μa`` more than the first, the average one ``Z/(2μa)``. ``rtt`` chooses the RTT
  the law sees as its mean RTT:

  - ``"average"`` (default, the implementations' smoothed RTT): ``d + (q(W0) + Z/2)/μa``;
    with Vegas doubling (Z = W/2) it reproduces eq. (6) of document 000, with Quick Vegas
    (Z = W/3) eq. (10);
  - ``"last"``: ``d + (q(W0) + Z)/μa``; eqs (6) with 8 instead of 16 and (9);
  - ``"fluid"``: no burst term, ``d + q(W0 + Z)/μa``.

  The round's minimum RTT (TCP-Ho's Minimal RTT) is ``d + q(W0)/μa`` and its maximum
  ``d + (q(W0) + Z)/μa`` (``"fluid"``: both equal the mean).
* **Round duration** (time advance): ``d + q(W1)/μa`` with ``W1 = W0 + Z`` the window at the
  end of the round, so the flows deliver ``W1`` packets per round at most at rate μa.
* **Finite buffer** ``B`` (packets of the link): the flows may hold ``B μa/μ`` of it;
  packets beyond that at the peak of the round are lost. Every active flow of the scenario
  loses its share (proportional to its window; synchronised drop-tail losses) and its law's
  :meth:`~tcpfluid.algorithms.base.ControlLaw.on_loss` is called after ``on_round``
  (kind :data:`~tcpfluid.algorithms.base.LOSS_TIMEOUT` when a flow loses more than
  ``timeout_loss_fraction`` of its window in the round, else
  :data:`~tcpfluid.algorithms.base.LOSS_FAST`). A flow's losses in the round after its
  loss reaction belong to the same loss episode and start no new loss event (a packet
  sender learns of a drop a round later and cuts once per episode:
  ``_rounds_law.RECOVERY_ROUNDS``). The idle time of a retransmission timeout is not
  modelled.
* **ACK-path bottleneck** (document 003): with ``μr < μa`` ACKs per second on the reverse
  link and a reverse buffer of ``Br`` ACKs, the ACK backlog is
  ``qr = clip(W − μr d, 0, Br)`` and the RTT ``d + qr/μr``: Vegas settles at rate μr.
  When ``W > μr d + Br`` the reverse buffer overflows and drops ACKs; the surviving ACKs
  are cumulative (each covers several packets), so the data rate ``W/(d + Br/μr)`` may
  exceed μr up to μa, beyond which the forward queue ``W − μa (d + Br/μr)`` builds. The
  sender receives ``min(1, μr T/W)`` ACKs per packet. The one-way forward delay
  (RFC 1323 timestamps, for forward-path Vegas) is ``d/2`` plus the forward queueing
  delay. Burst packets of a round are added to the ACK queue (up to ``Br``) when the
  reverse link is the bottleneck.
* **Flows** may start and stop at given times (``flow_start_s``/``flow_stop_s``); a flow
  starts with the law's fresh state and measures its BaseRTT from its own first round
  (so a latecomer counts the standing queue as propagation delay, as a real Vegas does).

Everything is array code over ``n = S × F`` flows (S scenarios of F flows, flow index
fastest); the law's array parameters must have length ``S × F`` (or be scalars).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_int
from ..algorithms.base import ControlLaw
from ..algorithms.mixed import MixedLaw
from ..algorithms.registry import get_law
from ..path import Path
from ..scenarios import Scenario
from ._rounds_checks import FEEDBACK_ROUNDS, RttModel, _check_run, _rtt_model, check_options
from ._rounds_engine import RoundEngine
from ._rounds_inputs import CrossTraffic, PathBatch
from ._rounds_law import DROP_SHARE
from ._rounds_physics import queue_memory
from ._rounds_results import (
    RECORDABLE,
    RoundSummary,
    RoundTrace,
    _Recorder,
)

__all__ = [
    "RECORDABLE",
    "CrossTraffic",
    "PathBatch",
    "RoundSummary",
    "RoundTrace",
    "RttModel",
    "simulate_rounds",
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
    rtt_model
        The RTT model (the burst term of the RTT): ``"average"`` (default), ``"last"`` or
        ``"fluid"`` (module docstring).
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
        of the packets of round ``k - feedback_rounds`` (plus the round-ending ACK of round
        k's first packet, which enters the round's minimum and maximum). Packet senders
        read the ACKs of the previous round's packets, so the default is 1; 0 is the
        documents' model (eqs. 6, 9, 10, 12 and the conspicuous round assume it).
    ack_train
        Model the spacing of the ACK train (default ``True``): the per-ACK growth of a
        round queues only beyond the spare capacity of an ACK train slower than the
        available rate. ``False`` queues the whole growth of every round, an artefact that
        inflates Δ after a bandwidth increase (docs/round-model.md).
    rtt
        Alias of ``rtt_model`` (the older name).
    progress
        Called with the fraction done in [0, 1] (simulated time over ``duration_s``, or
        rounds over ``rounds``) at most about ten times a second of wall time.
    whole_packets
        ``True``: a round's ACKs are those of the previous round's whole packets,
        ⌊w_{k−1}⌋, so the windows are fractional, as a packet sender's (15, 15.93, ...;
        docs/round-model.md; refused with an ACK-path bottleneck). Default ``False``: one
        ACK per packet of the round's window, the documents' fluid reading.
    train_runs
        With ``ack_train``, after the available rate rises: the ACK train is made of runs
        of packets served back to back, and each run's per-ACK growth queues inside it
        (:func:`~tcpfluid.fluid._rounds_physics.train_clump_queue`; docs/round-model.md,
        "Runs of the ACK train"; default ``True``, chosen by agreement with the packet
        simulator on Quick Vegas's rows). ``False``: the train is spread evenly.
    drop_share
        How a round's drop-tail overflow is shared among the flows
        (:data:`~tcpfluid.fluid._rounds_law.DROP_SHARES`): ``"proportional"`` (default)
        in proportion to the windows, so one overflow gives every flow a loss event;
        ``"in-turn"`` its whole packets one per flow in turn
        (:class:`~tcpfluid.fluid._rounds_law.OverflowShare`; it puts Reno's many-flows
        index on the packet simulator's, validation/test_fairness_many_flows.py);
        ``"growth"`` first on each flow's per-ACK growth of the round, a loss event once
        a flow's losses reach a whole packet
        (:class:`~tcpfluid.fluid._rounds_law.WholeLosses`). One flow loses a packet in
        every round that overflows under every rule, as in the packet simulator; over
        the report's sections the rules move no row (docs/round-model.md, "Finite buffer").

    Returns
    -------
    RoundTrace

    Raises
    ------
    ValueError, TypeError
        Bad arguments, before any work starts.
    """
    check_options(law, ack_train, train_runs, whole_packets, progress, drop_share)
    batch = paths if isinstance(paths, PathBatch) else PathBatch.from_paths(paths)
    F = check_int("n_flows", n_flows, minimum=1)
    model = _rtt_model(rtt_model, rtt)
    _check_whole_packets(whole_packets, batch)
    run = _check_run(
        batch, F, rounds, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    eng = RoundEngine(
        law, batch, [np.arange(F)], batch.d_s[:, None], run, model=model, ack_train=ack_train,
        lag=feedback_rounds, whole_packets=bool(whole_packets), train_runs=bool(train_runs),
        drop_share=drop_share, red=None,
        memory_of=queue_memory,  # this module's name: tests switch the memory off here
    )  # fmt: skip
    recorder = _Recorder((run.n_steps + run.every - 1) // run.every, batch.n_scenarios, F, run.rec)
    eng.loop(recorder, progress)
    return RoundTrace(**recorder.series(), paths=batch, **eng.results(model))


def _check_whole_packets(whole_packets: bool, batch: PathBatch) -> None:
    """``whole_packets=True`` is refused on paths with an ACK-path bottleneck."""
    if whole_packets and bool(np.any(np.isfinite(batch.reverse_mu_pps))):
        raise ValueError(
            "whole_packets=True is not modelled with an ACK-path bottleneck (the round's "
            "ACKs then come from the ACK-path queue); use whole_packets=False"
        )


#: the options :func:`simulate_scenario_rounds` passes on to :func:`simulate_rounds` (the
#: scenario gives the paths, flows, duration and cross traffic)
SCENARIO_OPTIONS = (
    "rtt_model", "record", "record_every", "feedback_rounds", "ack_train", "rtt", "progress",
    "whole_packets", "train_runs", "drop_share",
)  # fmt: skip


def simulate_scenario_rounds(scenario: Scenario, **options: Any) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view` (one
    bottleneck, CBR sources as cross traffic). This is the ``rounds`` engine of
    ``tcpfluid simulate``. Flows may run different algorithms or parameters: they are
    stepped as one :class:`~tcpfluid.algorithms.mixed.MixedLaw` (:func:`scenario_law`).
    Flows of unequal base RTT, or a RED bottleneck, run with one round clock per base RTT
    (:func:`tcpfluid.fluid._rounds_async.simulate_rounds_async`) and return its
    :class:`~tcpfluid.fluid._rounds_async_trace.AsyncRoundTrace` (``whole_packets=True``
    is not modelled there and is refused).

    Parameters
    ----------
    scenario
        The scenario.
    **options
        The options of :func:`simulate_rounds` named in :data:`SCENARIO_OPTIONS`
        (``rtt_model``, ``record``, ``record_every``, ``feedback_rounds``, ``ack_train``,
        ``rtt`` (an alias of ``rtt_model``), ``progress``, ``whole_packets``,
        ``train_runs``, ``drop_share``), with its defaults.

    Raises
    ------
    TypeError
        An option not in :data:`SCENARIO_OPTIONS` (named).
    ValueError
        If a flow has no algorithm, or the
        scenario has a feature the round model cannot model (flows that do not share the
        bottleneck, cross traffic off the bottleneck, an ACK-path bottleneck together with
        RED or unequal base RTTs): the round model refuses it instead of running
        something else.
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
    from ._rounds_async import simulate_rounds_async

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
