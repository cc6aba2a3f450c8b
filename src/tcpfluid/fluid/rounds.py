"""The round-based fluid model, batched over scenarios (document 000 §4, document 004 §4).

One step is one **round**: the sender transmits its window, the round ends when the ACK of
the first packet of the round returns (document 000 §4). A control law
(:class:`~tcpfluid.algorithms.base.ControlLaw`) decides at every round boundary; this module
computes what the law measures: the queue, the RTT of the round's packets, the ACKs.

Model (per scenario, all flows of a scenario share the bottleneck and have the same base
RTT; ``W`` below is the sum of the flows' windows):

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
  :data:`~tcpfluid.algorithms.base.LOSS_FAST`). The idle time of a retransmission
  timeout is not modelled.
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
from typing import Any, Literal, NamedTuple, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import metrics
from .._validation import (
    as_float_array,
    check_choice,
    check_int,
    check_positive,
    check_range,
)
from ..algorithms._common import backlog
from ..algorithms.base import (
    LOSS_FAST,
    LOSS_TIMEOUT,
    ControlLaw,
    RoundAction,
    RoundSample,
)
from ..algorithms.registry import get_law
from ..path import Path
from ..scenarios import Scenario
from ._rounds_inputs import CrossTraffic, PathBatch, _flow_times, _max_concurrent
from ._rounds_physics import (
    Rtts,
    _standing_rev,
    buffer_overflow,
    forward_queues,
    lagged,
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
RttModel = Literal["average", "last", "fluid"]
#: the names of :data:`RttModel` (the one list; ``tcpfluid.engines.RTT_MODELS`` is it too)
_RTT_MODELS: tuple[str, ...] = get_args(RttModel)

#: default feedback lag of the round model, rounds: the RTT samples a law reads at the end
#: of round k are those of the packets of round k - 1 (docs/round-model.md)
FEEDBACK_ROUNDS = 1


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
    S = batch.n_scenarios
    F = check_int("n_flows", n_flows, minimum=1)
    n = S * F
    model = _rtt_model(rtt_model, rtt)
    if not isinstance(ack_train, bool):
        raise TypeError(f"ack_train must be True or False, got {ack_train!r}")
    run = _check_run(
        batch, F, rounds, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    n_steps, t_end, every, frac = run.n_steps, run.t_end, run.every, run.frac
    start_f, stop_f, cross, change_times = run.start_f, run.stop_f, run.cross, run.change_times
    c_rates, c_start, c_stop, rec = run.c_rates, run.c_start, run.c_stop, run.rec
    mu = batch.mu_pps
    d = batch.d_s

    # --------------------------------------------------------------- law state
    state = law.init_state(n)
    if "phase" not in state:
        raise TypeError(f"{type(law).__name__}.init_state must return a 'phase' array")
    staggered = bool(np.any(start_f > 0.0) or np.any(np.isfinite(stop_f)))
    fresh = {k: v.copy() for k, v in state.items()} if staggered else {}
    act0 = law.initial_action(state)
    cwnd0 = np.array(act0.cwnd, dtype=np.float64)
    incr = np.array(act0.incr, dtype=np.float64)
    cap = np.array(act0.cap, dtype=np.float64)
    bad0 = ~(np.isfinite(cwnd0) & (cwnd0 > 0))
    if np.any(bad0):
        raise ValueError(
            f"{type(law).__name__}.initial_action gave a window <= 0 or not finite: "
            f"{cwnd0[bad0][0]!r}"
        )
    init_cwnd = cwnd0.copy()
    init_incr = incr.copy()
    init_cap = cap.copy()

    reverse = bool(np.any(np.isfinite(batch.reverse_mu_pps)))
    finite_buf = bool(np.any(np.isfinite(batch.buffer_pkts)))
    mu_r = batch.reverse_mu_pps
    b_r = batch.reverse_buffer_pkts

    recorder = _Recorder((n_steps + every - 1) // every, S, F, rec)
    t = np.zeros(S)
    base_rtt = np.full(n, np.inf)
    fwd_base = np.full(n, np.inf)
    delivered = np.zeros(n)
    elapsed = np.zeros(S)
    losses = np.zeros(n, dtype=np.int64)
    active = np.ones(n, dtype=bool)
    started = np.zeros(n, dtype=bool) if staggered else np.ones(n, dtype=bool)
    start_n = np.tile(start_f, S)
    stop_n = np.tile(stop_f, S)
    mu_link = mu
    half_d = 0.5 * d
    cross_carried = np.zeros(S)
    # without cross traffic the available rate never changes: hoist mu d, 1/mu and the
    # flows' share of the buffer
    mu_a = mu
    mud = mu * d
    inv_mu = 1.0 / mu
    b_tcp = batch.buffer_pkts

    def reverse_bottleneck(mu_a: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
        """The ACK-path rate where it is below the available rate (inf elsewhere)."""
        mu_r_eff = np.where(mu_r < mu_a, mu_r, np.inf)
        return mu_r_eff, np.isfinite(mu_r_eff)

    if reverse:
        mu_r_eff, rev_bott = reverse_bottleneck(mu_a)

    def per_flow(x: Any) -> Any:
        """A per-scenario array (S,) repeated over each scenario's flows (S × F,)."""
        return np.repeat(x, F) if F > 1 else x

    def per_scenario(x: FloatArray) -> FloatArray:
        """The sum over each scenario's flows of a per-flow array (S × F,) -> (S,)."""
        return x.reshape(S, F).sum(axis=1) if F > 1 else x

    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    next_report = time.monotonic()
    lag = feedback_rounds
    # rate at which the ACKs of the previous round return (per scenario): the bottleneck
    # rate while the flows' packets travel in a train compressed by the queue; below it
    # once the available rate rises (docs/round-model.md, "ACK train")
    ack_rate = np.full(S, np.inf)
    # the train can only be slower than mu_a after mu_a rises: with cross traffic
    spread_train = ack_train and not reverse and bool(cross)
    history: deque[Rtts] = deque()
    k = 0
    for k in range(n_steps):
        # ---------------- available rate at the start of the round
        if cross:
            on = (t >= c_start) & (t < c_stop)
            mu_a = mu - (c_rates * on).sum(axis=0)
            mud = mu_a * d
            inv_mu = 1.0 / mu_a
            b_tcp = batch.buffer_pkts * (mu_a / mu_link)
            if reverse:
                mu_r_eff, rev_bott = reverse_bottleneck(mu_a)
            if spread_train:
                np.minimum(ack_rate, mu_a, out=ack_rate)
        # ---------------- flows joining or leaving
        if staggered:
            t_n = per_flow(t)
            joining = ~started & (t_n >= start_n)
            if np.any(joining):
                for key, arr in state.items():
                    arr[joining] = fresh[key][joining]
                cwnd0[joining] = init_cwnd[joining]
                incr[joining] = init_incr[joining]
                cap[joining] = init_cap[joining]
                base_rtt[joining] = np.inf
                fwd_base[joining] = np.inf
                started |= joining
            active = started & (t_n < stop_n)
            w0 = np.where(active, cwnd0, 0.0)
        else:
            w0 = cwnd0
        w0_s = per_scenario(w0)
        # ---------------- standing backlog at the start and ACKs of the round
        if reverse:
            qr0, qf0 = _standing_rev(w0_s, mu_a, mu_r_eff, b_r, d)
            t0 = d + qr0 / mu_r_eff + qf0 / mu_a
            with np.errstate(divide="ignore", invalid="ignore"):
                ack_ratio = np.minimum(1.0, np.where(w0_s > 0, mu_r_eff * t0 / w0_s, 1.0))
            acks = w0 * per_flow(ack_ratio)
        else:
            qf0 = np.maximum(w0_s - mud, 0.0)
            acks = w0
        # ---------------- growth of the round through per-ACK increments
        z = np.minimum(incr * acks, cap - w0)
        np.maximum(z, 0.0, out=z)
        if staggered:
            z[~active] = 0.0
        w1 = w0 + z
        z_s = per_scenario(z)
        w1_s = w0_s + z_s if F > 1 else w1
        # ---------------- queues and RTTs (tcpfluid.fluid._rounds_physics)
        if reverse:
            qr, qf = reverse_queues(qr0, qf0, z_s, w1_s, mu_a, mu_r_eff, b_r, d, rev_bott, model)
        else:
            qr = None
            qf, ack_rate = forward_queues(
                qf0, z_s, w0_s, w1_s, mud, mu_a, ack_rate, model, spread_train
            )
        lost_s, qf = buffer_overflow(qf, b_tcp) if finite_buf else (None, qf)
        duration, rtts = round_rtts(qf, qr, d, half_d, inv_mu, mu_a, mu_r_eff if reverse else None)
        # ---------------- feedback lag: the law sees the RTTs of an earlier round
        if lag:
            rtts = lagged(history, rtts, lag)
        rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = rtts
        # ---------------- per-flow views
        rtt_min_n = per_flow(rtt_min)
        rtt_mean_n = per_flow(rtt_mean)
        rtt_max_n = per_flow(rtt_max)
        if staggered:
            np.minimum(base_rtt, np.where(active, rtt_min_n, np.inf), out=base_rtt)
            base_for_law = np.where(np.isfinite(base_rtt), base_rtt, rtt_min_n)
        else:
            np.minimum(base_rtt, rtt_min_n, out=base_rtt)
            base_for_law = base_rtt
        sample = RoundSample(
            # a flow not (or no longer) sending reports the window it would send with
            cwnd=np.where(active, w1, cwnd0) if staggered else w1,
            base_rtt=base_for_law,
            rtt_mean=rtt_mean_n,
            rtt_min=rtt_min_n,
            rtt_max=rtt_max_n,
            acks=acks,
        )
        fmin = per_flow(fwd_min)
        if staggered:
            np.minimum(fwd_base, np.where(active, fmin, np.inf), out=fwd_base)
            sample.fwd_delay_base = np.where(np.isfinite(fwd_base), fwd_base, fmin)
        else:
            np.minimum(fwd_base, fmin, out=fwd_base)
            sample.fwd_delay_base = fwd_base
        sample.fwd_delay_mean = per_flow(fwd_mean)
        # ---------------- totals (only rounds starting before the end)
        if lost_s is not None:
            w1_s_n = per_flow(w1_s)
            share = np.divide(w1, w1_s_n, out=np.zeros(n), where=w1_s_n > 0)
            lost = share * per_flow(lost_s)
            got = w1 - lost
        else:
            lost = None
            got = w1
        cn: Any = True
        if t_end == math.inf:
            delivered += got
            if cross:
                cross_carried += (mu_link - mu_a) * duration
        else:
            counting = t < t_end
            cn = per_flow(counting)
            delivered += np.where(cn, got, 0.0)
            if cross:
                cross_carried += np.where(counting, (mu_link - mu_a) * duration, 0.0)
            elapsed += np.where(counting, duration, 0.0)
        t = t + duration
        # ---------------- record
        if k % every == 0:
            q_end = None
            if recorder.queue is not None:
                q_end = qf[2] if model != "fluid" else qf[3]  # peak of the round
                q_end = q_end * (mu_link * inv_mu) if cross else q_end  # link packets
            recorder.add(
                t,
                w1,
                state["phase"],
                delta=None if recorder.delta is None else backlog(w1, base_for_law, rtt_mean_n),
                rtt=rtt_mean,
                queue=q_end,
                thr=None if recorder.thr is None else got / per_flow(duration),
            )
        # ---------------- the law decides
        action: RoundAction = law.on_round(state, sample)
        cwnd0 = np.asarray(action.cwnd, dtype=np.float64)
        incr = np.asarray(action.incr, dtype=np.float64)
        cap = np.asarray(action.cap, dtype=np.float64)
        if lost is not None:
            hit = (lost > 1e-9) & active
            if np.any(hit):
                cwnd0, incr, cap = _react_to_losses(
                    law, state, hit, lost, w1, frac, cwnd0, incr, cap
                )
                # a scenario whose clock has passed duration_s keeps stepping while others
                # of the batch finish; its losses after the end do not count
                losses += hit & cn
        if (k & 31) == 31 or k == n_steps - 1:
            _check_bounded(w1, k)
            if progress is not None and (now := time.monotonic()) >= next_report:
                next_report = now + 0.1
                done = k / n_steps if t_end == math.inf else float(t.min()) / t_end
                progress(min(1.0, max(0.0, done)))
        if t_end != math.inf and bool(np.all(t >= t_end)):
            _check_bounded(w1, k)
            break
    if progress is not None:
        progress(1.0)
    if t_end == math.inf:
        elapsed = t
    carried = delivered.reshape(S, F).sum(axis=1) + cross_carried
    return RoundTrace(
        **recorder.series(),
        paths=batch,
        algorithm=getattr(law, "name", type(law).__name__),
        law_params=law.params(),
        rtt_model=model,
        change_times_s=change_times,
        duration_s=None if t_end == math.inf else t_end,
        elapsed_s=elapsed,
        delivered_pkts=delivered.reshape(S, F),
        carried_pkts=carried,
        losses=losses.reshape(S, F),
        flow_start_s=start_f,
        flow_stop_s=stop_f,
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
) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view` (one
    bottleneck, CBR sources as cross traffic); every flow must run the same algorithm
    with the same parameters (set with :meth:`~tcpfluid.scenarios.Scenario.with_algorithm`).
    This is the ``rounds`` engine of ``tcpfluid simulate``. The options are those of
    :func:`simulate_rounds` (``rtt`` is an alias of ``rtt_model``).

    Raises
    ------
    ValueError
        If a flow has no algorithm, flows differ in algorithm or parameters, the flows
        do not share one path with one base RTT, or the scenario has a feature the round
        model cannot model (a RED queue, cross traffic off the bottleneck): the round model
        refuses it instead of running something else.
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
    )


class _Run(NamedTuple):
    """The checked run arguments of :func:`simulate_rounds`."""

    n_steps: int
    t_end: float
    every: int
    frac: float
    rec: set[str]
    start_f: FloatArray
    stop_f: FloatArray
    cross: list[CrossTraffic]
    c_rates: FloatArray
    c_start: FloatArray
    c_stop: FloatArray
    change_times: tuple[float, ...]


def _check_run(
    batch: PathBatch,
    F: int,
    rounds: int | None,
    duration_s: float | None,
    record: Collection[str],
    record_every: int,
    feedback_rounds: int,
    timeout_loss_fraction: float,
    flow_start_s: ArrayLike | None,
    flow_stop_s: ArrayLike | None,
    cross_traffic: Sequence[CrossTraffic],
) -> _Run:
    """Check :func:`simulate_rounds`'s arguments (a ValueError/TypeError names the bad one)."""
    S = batch.n_scenarios
    if (rounds is None) == (duration_s is None):
        raise ValueError(
            f"give exactly one of rounds or duration_s, got rounds={rounds!r}, "
            f"duration_s={duration_s!r}"
        )
    if rounds is not None:
        n_steps = check_int("rounds", rounds, minimum=1)
        t_end = math.inf
    else:
        t_end = check_positive("duration_s", duration_s)
        # every round lasts at least d, so this bound is never reached early
        d_min = float(batch.d_s.min())
        if t_end < d_min:
            raise ValueError(
                f"duration_s={duration_s!r} is shorter than one round (the base RTT "
                f"d={d_min!r} s): no round ends within the run; give a duration of at "
                "least one base RTT"
            )
        ratio = t_end / d_min
        if not ratio <= 50_000_000:
            raise ValueError(
                f"duration_s={duration_s!r} needs up to {ratio:.3g} rounds of "
                f"d={d_min!r} s (at most 50,000,000); shorten the run or lengthen d"
            )
        n_steps = math.ceil(ratio) + 1
    every = check_int("record_every", record_every, minimum=1)
    check_int("feedback_rounds", feedback_rounds, minimum=0)
    if feedback_rounds > 8:
        raise ValueError(f"feedback_rounds must be between 0 and 8, got {feedback_rounds!r}")
    frac = check_range("timeout_loss_fraction", timeout_loss_fraction, 0.0, 1.0, lo_open=True)
    if isinstance(record, str):
        raise TypeError(
            f"record must be a collection of field names, got the string {record!r}; "
            f"write record=({record!r},)"
        )
    rec = set(record)
    bad = sorted(rec - set(RECORDABLE))
    if bad:
        raise ValueError(f"record: unknown field {bad[0]!r}; recordable: {', '.join(RECORDABLE)}")
    start_f = _flow_times("flow_start_s", flow_start_s, F, default=0.0)
    stop_f = _flow_times("flow_stop_s", flow_stop_s, F, default=math.inf)
    if np.any(stop_f <= start_f):
        raise ValueError(
            f"flow_stop_s must be > flow_start_s for every flow, got {stop_f} and {start_f}"
        )
    if isinstance(cross_traffic, CrossTraffic):
        raise TypeError("cross_traffic must be a sequence of CrossTraffic, got one CrossTraffic")
    cross = list(cross_traffic)
    for j, c in enumerate(cross):
        if not isinstance(c, CrossTraffic):
            raise TypeError(f"cross_traffic[{j}] must be a CrossTraffic, got {c!r}")
    mu = batch.mu_pps
    if cross:
        c_rates = np.stack(
            [np.broadcast_to(as_float_array("rate_pps", c.rate_pps), (S,)) for c in cross]
        )
        c_start = np.array([c.start_s for c in cross])[:, None]
        c_stop = np.array([c.stop_s for c in cross])[:, None]
        worst = _max_concurrent(c_rates, c_start[:, 0], c_stop[:, 0])
        if np.any(worst >= mu):
            s = int(np.flatnonzero(worst >= mu)[0])
            raise ValueError(
                f"cross_traffic takes up to {worst[s]:g} pkt/s of a {mu[s]:g} pkt/s bottleneck "
                f"(scenario {s}); it must stay below the bottleneck rate"
            )
    # bandwidth changes inside the run (a change at or after its end is not one)
    change_times = metrics.bandwidth_changes([(c.start_s, c.stop_s) for c in cross], t_end)

    if not cross:
        c_rates, c_start, c_stop = np.zeros((0, S)), np.zeros((0, 1)), np.zeros((0, 1))
    return _Run(
        n_steps, t_end, every, frac, rec, start_f, stop_f, cross, c_rates, c_start, c_stop,
        change_times,
    )  # fmt: skip


def _react_to_losses(
    law: ControlLaw,
    state: dict[str, FloatArray],
    hit: NDArray[np.bool_],
    lost: FloatArray,
    w1: FloatArray,
    frac: float,
    cwnd0: FloatArray,
    incr: FloatArray,
    cap: FloatArray,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The loss reactions of the flows ``hit`` (after the law's round decision): a timeout
    when a flow lost more than ``frac`` of its window, else a fast retransmit; the reaction
    replaces the round's action (nothing added per ACK in the next round)."""
    cwnd0, incr, cap = cwnd0.copy(), incr.copy(), cap.copy()
    timeout = hit & (lost > frac * w1)
    for kind, mask in ((LOSS_TIMEOUT, timeout), (LOSS_FAST, hit & ~timeout)):
        idx = np.flatnonzero(mask)
        if idx.size:
            new = np.asarray(law.on_loss(state, idx, kind, w1[idx]), dtype=np.float64)
            cwnd0[idx] = new
            incr[idx] = 0.0
            cap[idx] = new
    return cwnd0, incr, cap


def _rtt_model(rtt_model: str | None, rtt: str | None) -> str:
    """The RTT model from ``rtt_model`` or its alias ``rtt`` (not both)."""
    if rtt_model is not None and rtt is not None and rtt_model != rtt:
        raise ValueError(
            f"give the RTT model once: rtt_model={rtt_model!r} and its alias rtt={rtt!r}"
        )
    value = rtt_model if rtt_model is not None else rtt if rtt is not None else "average"
    check_choice("rtt_model" if rtt_model is not None else "rtt", value, _RTT_MODELS)
    return value


#: windows beyond this many packets mean a law grew without bound (no loss to stop it)
_MAX_WINDOW_PKTS = 1e12


def _check_bounded(w: FloatArray, k: int) -> None:
    """Raise instead of letting an unbounded window overflow into inf/NaN."""
    bad = ~(np.abs(w) < _MAX_WINDOW_PKTS)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        if np.isnan(w[i]):
            raise ValueError(
                f"the window of flow {i} is NaN by round {k}: the control law returned an "
                "invalid action (a NaN window, increment or cap)"
            )
        raise ValueError(
            f"the window of flow {i} reached {w[i]!r} packets by round {k}: the law grows "
            "without bound on this path (e.g. a loss-driven law such as Reno with an infinite "
            "buffer); give the path a finite buffer or run fewer rounds"
        )
