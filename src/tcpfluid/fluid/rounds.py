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

import math
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import check_choice, check_int
from ..algorithms.base import ControlLaw
from ..algorithms.registry import get_law
from ..path import Path
from ..scenarios import Scenario
from ._rounds_checks import FEEDBACK_ROUNDS, RttModel, _check_run, _rtt_model, _Run
from ._rounds_inputs import CrossTraffic, PathBatch
from ._rounds_law import (
    DROP_SHARE,
    DROP_SHARES,
    OverflowShare,
    WholeLosses,
    _check_bounded,
    decide,
    join_flows,
    start_law,
)
from ._rounds_loop_parts import (
    _accumulators,
    _checkpoint,
    _law_sample,
    _per_flow,
    _per_scenario,
    _reverse_start,
    _totals,
    ack_path_drops,
    forward_round,
)
from ._rounds_physics import (
    TRAIN_RUNS,
    Rtts,
    buffer_overflow,
    lagged,
    queue_memory,
    reverse_queues,
    round_rtts,
)
from ._rounds_results import RECORDABLE, RoundSummary, RoundTrace, _Recorder

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


def _window_acks(w0: FloatArray, w_prev: FloatArray) -> FloatArray:
    """A round's ACKs, fluid reading: one per packet of the round's window ``w0``."""
    return w0


def _packet_acks(w0: FloatArray, w_prev: FloatArray) -> FloatArray:
    """A round's ACKs as a packet sender receives them: those of the previous round's
    whole packets, ⌊w_{k−1}⌋ (``w_prev``)."""
    return np.floor(w_prev + 1e-9)


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
    train_runs: bool = TRAIN_RUNS,
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
        available rate (after the available rate rises). ``False`` queues the whole growth
        Z of every round, an artefact that inflates Δ after a bandwidth increase
        (docs/round-model.md).
    rtt
        Alias of ``rtt_model`` (the older name).
    progress
        Called with the fraction done in [0, 1] (simulated time over ``duration_s``, or
        rounds over ``rounds``) at most about ten times a second of wall time.
    whole_packets
        A sender sends whole packets (the hybrid ODE model's option of the same name;
        default ``False``: one ACK per packet of the round's window, the documents' fluid
        reading, in which Vegas adds exactly one packet a round). ``True``: a round's ACKs
        are those of the previous round's whole packets, ⌊w_{k−1}⌋, so a per-ACK
        increment of 1/w adds ⌊w_{k−1}⌋/w_k < 1 packet a round and the windows are
        fractional, as a packet sender's (15, 15.93, 16.87, ...); the round's queue stays
        that of the fluid window (docs/round-model.md). Not modelled with an ACK-path
        bottleneck (refused).
    train_runs
        With ``ack_train``, after the available rate rises: the ACK train slower than the
        available rate is made of runs of packets served back to back (the window's
        packets, apart when the rate rose, are the first runs; they grow with the window
        and merge), and each run's per-ACK growth queues inside it, where its ACKs return
        at the available rate: the mean backlog
        :func:`~tcpfluid.fluid._rounds_physics.train_clump_queue` (docs/round-model.md,
        "Runs of the ACK train"; default ``True``, chosen by agreement with the packet
        simulator on Quick Vegas's rows). ``False``: the train is spread evenly over the
        round and the growth queues only beyond its spare capacity.
    drop_share
        How a round's drop-tail overflow is shared among the flows:
        ``"proportional"`` (default) every flow in flight loses in proportion to its
        window, so one overflow gives every flow a loss event and many flows of one base
        RTT halve together; ``"in-turn"`` its whole packets fall one per flow, flow after
        flow in turn from where the last overflow stopped (a part of a packet waits for
        the next overflow, but a round that overflows drops at least one whole packet),
        as packets of many flows interleaved at a full queue are dropped
        (:class:`~tcpfluid.fluid._rounds_law.OverflowShare`). ``"in-turn"`` puts
        Reno's many-flows index on the packet simulator's (the Quick Vegas paper's §5.3,
        tests/test_fairness_many_flows.py); one flow loses a packet in every round that
        overflows under both rules, as in the packet simulator. ``"growth"``: first on
        each flow's per-ACK growth of the round (the packets beyond its ACK clock meet
        the full queue: at a slow-start join, the joining flows'), the rest in
        proportion to the windows, and a loss event once a flow's losses reach a whole
        packet (:class:`~tcpfluid.fluid._rounds_law.WholeLosses`; one flow loses the
        same as with ``"proportional"``). Neither is the default: over the report's
        sections they move no row (docs/round-model.md, "Finite buffer").

    Returns
    -------
    RoundTrace

    Raises
    ------
    ValueError, TypeError
        Bad arguments, before any work starts.
    """
    if not isinstance(law, ControlLaw):
        raise TypeError(f"law must be a ControlLaw (see tcpfluid.algorithms.get_law), got {law!r}")
    batch = paths if isinstance(paths, PathBatch) else PathBatch.from_paths(paths)
    F = check_int("n_flows", n_flows, minimum=1)
    model = _rtt_model(rtt_model, rtt)
    if not isinstance(ack_train, bool):
        raise TypeError(f"ack_train must be True or False, got {ack_train!r}")
    if not isinstance(whole_packets, (bool, np.bool_)):
        raise TypeError(f"whole_packets must be True or False, got {whole_packets!r}")
    if not isinstance(train_runs, (bool, np.bool_)):
        raise TypeError(f"train_runs must be True or False, got {train_runs!r}")
    if whole_packets and bool(np.any(np.isfinite(batch.reverse_mu_pps))):
        raise ValueError(
            "whole_packets=True is not modelled with an ACK-path bottleneck (the round's "
            "ACKs then come from the ACK-path queue); use whole_packets=False"
        )
    run = _check_run(
        batch, F, rounds, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    acks_of = _packet_acks if whole_packets else _window_acks
    check_choice("drop_share", drop_share, DROP_SHARES)
    return _round_loop(
        law, batch, F, model, ack_train, feedback_rounds, run, progress, acks_of,
        bool(train_runs), drop_share,
    )  # fmt: skip


def _rates(
    mu_a: FloatArray,
    mu_link: FloatArray,
    d: FloatArray,
    buffer_pkts: FloatArray,
    mu_r: FloatArray,
    reverse: bool,
) -> tuple[Any, ...]:
    """What the available rate μa sets (per scenario): μa d, 1/μa, the flows' share of the
    buffer, and (``reverse``) the ACK-path rate where it is below μa (inf elsewhere) and
    where it is."""
    mud, inv_mu, b_tcp = mu_a * d, 1.0 / mu_a, buffer_pkts * (mu_a / mu_link)
    if not reverse:
        return mud, inv_mu, b_tcp, None, None
    mu_r_eff = np.where(mu_r < mu_a, mu_r, np.inf)
    return mud, inv_mu, b_tcp, mu_r_eff, np.isfinite(mu_r_eff)


def _round_loop(
    law: ControlLaw,
    batch: PathBatch,
    F: int,
    model: str,
    ack_train: bool,
    lag: int,
    run: _Run,
    progress: Callable[[float], None] | None,
    acks_of: Callable[[FloatArray, FloatArray], FloatArray] = _window_acks,
    train_runs: bool = False,
    drop_share: str = DROP_SHARE,
) -> RoundTrace:
    """The round loop of :func:`simulate_rounds` (checked arguments): per round, the
    available rate (CBR schedule), joins/leaves, the physics (:mod:`._rounds_physics`),
    losses, totals, the record (:class:`._Recorder`) and the law's decision."""
    S, n = batch.n_scenarios, batch.n_scenarios * F
    n_steps, t_end, every, frac = run.n_steps, run.t_end, run.every, run.frac
    start_f, stop_f, cross = run.start_f, run.stop_f, run.cross
    c_rates, c_start, c_stop = run.c_rates, run.c_start, run.c_stop
    mu, d, mu_r, b_r = batch.mu_pps, batch.d_s, batch.reverse_mu_pps, batch.reverse_buffer_pkts
    staggered = bool(np.any(start_f > 0.0) or np.any(np.isfinite(stop_f)))
    ls = start_law(law, n, staggered)
    state, cwnd0, incr, cap = ls.state, ls.cwnd0, ls.incr, ls.cap
    reverse = bool(np.any(np.isfinite(mu_r)))
    finite_buf = bool(np.any(np.isfinite(batch.buffer_pkts)))
    recorder = _Recorder((n_steps + every - 1) // every, S, F, run.rec)
    t, elapsed, cross_carried, base_rtt, fwd_base, delivered, losses, active, started = (
        _accumulators(S, n, staggered)
    )
    start_n, stop_n = np.tile(start_f, S), np.tile(stop_f, S)
    # without cross traffic the available rate never changes: hoist mu d, 1/mu, the flows'
    # share of the buffer and the ACK-path bottleneck
    mu_link, mu_a, half_d, next_report = mu, mu, 0.5 * d, time.monotonic()
    mud, inv_mu, b_tcp, mu_r_eff, rev_bott = _rates(mu, mu, d, batch.buffer_pkts, mu_r, reverse)
    # rate at which the ACKs of the previous round return (per scenario): the bottleneck
    # rate while the flows' packets travel in a train compressed by the queue; below it
    # once the available rate rises (docs/round-model.md, "ACK train")
    ack_rate = np.full(S, np.inf)
    # the train can only be slower than mu_a after mu_a rises: with cross traffic
    spread_train = ack_train and not reverse and bool(cross)
    # the train's runs (docs/round-model.md, "ACK train"): the window while the train is
    # compressed by the queue, kept from the round its rate falls below mu_a
    runs = np.zeros(S) if spread_train and train_runs else None
    # drop_share="in-turn": each scenario's turn over its flows
    in_turn = OverflowShare(S) if drop_share == "in-turn" else None
    # drop_share="growth": each flow's losses wait for a whole packet before a loss event
    whole = WholeLosses(n) if drop_share == "growth" else None
    # per flow: the rounds left of its loss episode (_rounds_law.RECOVERY_ROUNDS)
    recovering = np.zeros(n, dtype=np.int64)
    history: deque[Rtts] = deque()
    # with cross traffic the FIFO keeps part of its backlog from round to round
    # (docs/round-model.md, "Queue memory"): the last round's, and its available rate
    carried, mu_prev = np.zeros(S), mu
    w_prev = cwnd0
    for k in range(n_steps):
        # ---------------- available rate at the start of the round (CBR schedule)
        if cross:
            mu_a = mu - (c_rates * ((t >= c_start) & (t < c_stop))).sum(axis=0)
            mud, inv_mu, b_tcp, mu_r_eff, rev_bott = _rates(
                mu_a, mu, d, batch.buffer_pkts, mu_r, reverse
            )
            if spread_train:
                np.minimum(ack_rate, mu_a, out=ack_rate)
        # ---------------- flows joining or leaving
        if staggered:
            t_n = _per_flow(t, F)
            joining = ~started & (t_n >= start_n)
            if joining.any():
                join_flows(ls, joining, cwnd0, incr, cap, base_rtt, fwd_base)
                started |= joining
            active = started & (t_n < stop_n)
            w0 = np.where(active, cwnd0, 0.0)
        else:
            w0 = cwnd0
        w0_s = _per_scenario(w0, S, F)
        # ---------------- standing backlog at the start and ACKs of the round
        if reverse:
            qr0, qf0, acks = _reverse_start(w0, w0_s, mu_a, mu_r_eff, b_r, d, F)
        else:
            qf0 = np.maximum(w0_s - mud, 0.0)
            acks = acks_of(w0, w_prev)
        w_prev = w0
        # ---------------- growth of the round through per-ACK increments
        z = np.minimum(incr * acks, cap - w0)
        np.maximum(z, 0.0, out=z)
        if staggered:
            z[~active] = 0.0
        w1 = w0 + z
        z_s = _per_scenario(z, S, F)
        w1_s = w0_s + z_s if F > 1 else w1
        # ---------------- queues and RTTs (tcpfluid.fluid._rounds_physics)
        if reverse:
            qr, qf = reverse_queues(qr0, qf0, z_s, w1_s, mu_a, mu_r_eff, b_r, d, rev_bott, model)
            lost_s, qf = buffer_overflow(qf, b_tcp) if finite_buf else (None, qf)
            qf_seen = qf
            burst = ack_path_drops(w0, acks, w1, w1_s, qr0, z_s, b_r, rev_bott, F) >= 1.0
        else:
            qr, burst = None, None
            if runs is not None:
                runs = np.where(ack_rate < mu_a, runs, w0_s)
            qf, qf_seen, lost_s, ack_rate, carried, mu_prev = forward_round(
                qf0, z_s, w0_s, w1_s, mud, mu_a, mu, ack_rate, model, spread_train,
                bool(cross), carried, mu_prev, b_tcp if finite_buf else None,
                queue_memory,  # this module's name: tests switch the memory off here
                runs,
            )  # fmt: skip
        duration, rtts = round_rtts(qf, qr, d, half_d, inv_mu, mu_a, mu_r_eff if reverse else None)
        # ---------------- feedback lag: the law sees the RTTs of an earlier round
        if lag:
            rtts = lagged(history, rtts, lag)
        # ---------------- what the law measures (per flow)
        sample, base_for_law = _law_sample(
            rtts, F, staggered, active, w1, cwnd0, acks, base_rtt, fwd_base
        )
        # ---------------- totals (only rounds starting before the end)
        lost, got, cn = _totals(
            lost_s, w1, w1_s, duration, t, t_end, cross, mu_link, mu_a, F,
            delivered, cross_carried, elapsed, in_turn, z if whole is not None else None,
        )  # fmt: skip
        if whole is not None and lost is not None:
            on = active if staggered else np.ones(n, dtype=bool)
            n_on = on.reshape(-1, F).sum(axis=1)
            lost = whole(lost, on, np.repeat(n_on == 1, F))
        t = t + duration
        # ---------------- record
        if k % every == 0:
            recorder.add_round(
                t, w1, state["phase"], qf_seen, model, mu_link, inv_mu if cross else None,
                base_for_law, sample.rtt_mean, rtts[1], got, duration,
            )  # fmt: skip
        # ---------------- the law decides
        cwnd0, incr, cap = decide(
            law, state, sample, lost, active, w1, frac, cn, losses, burst, recovering
        )
        if (k & 31) == 31 or k == n_steps - 1:
            next_report = _checkpoint(w1, k, n_steps, t, t_end, progress, next_report)
        if t_end != math.inf and bool((t >= t_end).all()):
            _check_bounded(w1, k)
            break
    if progress is not None:
        progress(1.0)
    return _trace(
        law, batch, F, model, run, recorder, t if t_end == math.inf else elapsed,
        delivered, cross_carried, losses, lag,
    )  # fmt: skip


def _trace(
    law: ControlLaw,
    batch: PathBatch,
    F: int,
    model: str,
    run: _Run,
    recorder: _Recorder,
    elapsed: FloatArray,
    delivered: FloatArray,
    cross_carried: FloatArray,
    losses: NDArray[np.int64],
    lag: int = 0,
) -> RoundTrace:
    """The :class:`RoundTrace` of a finished loop (``lag``: the feedback lag, rounds)."""
    S = batch.n_scenarios
    return RoundTrace(
        **recorder.series(),
        paths=batch,
        algorithm=getattr(law, "name", type(law).__name__),
        law_params=law.params(),
        rtt_model=model,
        change_times_s=run.change_times,
        duration_s=None if run.t_end == math.inf else run.t_end,
        elapsed_s=elapsed,
        delivered_pkts=delivered.reshape(S, F),
        carried_pkts=delivered.reshape(S, F).sum(axis=1) + cross_carried,
        losses=losses.reshape(S, F),
        flow_start_s=run.start_f,
        flow_stop_s=run.stop_f,
        exit_lag_rows=lag if run.every == 1 else 0,
        all_rounds_recorded=run.every == 1,
    )


def simulate_scenario_rounds(
    scenario: Scenario,
    *,
    rtt_model: RttModel | None = None,
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    rtt: RttModel | None = None,
    progress: Callable[[float], None] | None = None,
    whole_packets: bool = False,
    train_runs: bool = TRAIN_RUNS,
    drop_share: str = DROP_SHARE,
) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view` (one
    bottleneck, CBR sources as cross traffic); every flow must run the same algorithm
    with the same parameters (set with :meth:`~tcpfluid.scenarios.Scenario.with_algorithm`).
    This is the ``rounds`` engine of ``tcpfluid simulate``. The options are those of
    :func:`simulate_rounds` (``rtt`` is an alias of ``rtt_model``). Flows of unequal base
    RTT, or a RED bottleneck, run on the asynchronous round model
    (:func:`tcpfluid.fluid._rounds_async.simulate_rounds_async`, one round clock per base
    RTT) and return its :class:`~tcpfluid.fluid._rounds_async_trace.AsyncRoundTrace`
    (``whole_packets=True`` is not modelled there and is refused).

    Raises
    ------
    ValueError
        If a flow has no algorithm, flows differ in algorithm or parameters, or the
        scenario has a feature the round model cannot model (flows that do not share the
        bottleneck, cross traffic off the bottleneck, an ACK-path bottleneck together with
        RED or unequal base RTTs): the round model refuses it instead of running
        something else.
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    view = scenario.fluid_view()
    first = view.flows[0]
    if first.algorithm is None:
        raise ValueError(
            f"scenario {scenario.name!r}: its flows have no algorithm; choose one with "
            "Scenario.with_algorithm(name) (tcpfluid simulate --algorithm NAME)"
        )
    for fl in view.flows[1:]:
        if fl.algorithm != first.algorithm or dict(fl.params) != dict(first.params):
            raise ValueError(
                "the round model runs one algorithm with one parameter set for all flows; "
                f"flow {fl.name!r} has {fl.algorithm!r} {dict(fl.params)} but {first.name!r} "
                f"has {first.algorithm!r} {dict(first.params)}"
            )
    law = get_law(first.algorithm, **dict(first.params))
    if not view.equal_rtt or view.red is not None:
        # flows with their own round clocks (and RED): the asynchronous round model
        from ._rounds_async import simulate_rounds_async

        if whole_packets:
            raise ValueError(
                f"scenario {scenario.name!r}: whole_packets=True is modelled by the synchronous "
                "round model only (one base RTT, drop-tail); this scenario runs on the "
                "asynchronous round model; use whole_packets=False"
            )

        return simulate_rounds_async(
            law,
            view.path,
            view.base_rtt_s,
            duration_s=view.duration_s,
            flow_start_s=[f.start_s for f in view.flows],
            flow_stop_s=[f.stop_s for f in view.flows],
            rtt_model=_rtt_model(rtt_model, rtt),  # type: ignore[arg-type]
            cross_traffic=[
                CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic
            ],
            red=view.red,
            record=record,
            record_every=record_every,
            feedback_rounds=feedback_rounds,
            ack_train=ack_train,
            progress=progress,
            drop_share=drop_share,
            train_runs=train_runs,
        )
    return simulate_rounds(
        law,
        view.path,
        duration_s=view.duration_s,
        n_flows=len(view.flows),
        flow_start_s=[f.start_s for f in view.flows],
        flow_stop_s=[f.stop_s for f in view.flows],
        rtt_model=_rtt_model(rtt_model, rtt),  # type: ignore[arg-type]
        cross_traffic=[CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic],
        record=record,
        record_every=record_every,
        feedback_rounds=feedback_rounds,
        ack_train=ack_train,
        progress=progress,
        whole_packets=whole_packets,
        train_runs=train_runs,
        drop_share=drop_share,
    )
