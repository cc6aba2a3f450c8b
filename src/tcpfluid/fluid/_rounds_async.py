"""The round model with per-flow base RTTs: asynchronous rounds sharing one bottleneck.

The synchronous round model (:mod:`tcpfluid.fluid.rounds`) steps every flow of a scenario
at the same round boundaries, which holds only when the flows have one base RTT. Here each
**round-clock class** (the flows of one base RTT ``d_c``) has its own round clock; the
classes' rounds interleave in time and share the bottleneck queue (docs/round-model-
unequal-rtt.md).

Events are processed in time order: the next event is the earliest round start among the
classes still running (a class's round starts when its previous round ends). At the start
of a round of class ``c`` (time ``t``):

* **Available rate** ``μa = μ − c(t)`` (CBR at ``t``), joins and leaves of the class's
  flows, its window ``W0`` and the per-ACK growth ``Z = min(incr × acks, cap − cwnd)``,
  exactly as the synchronous model does.
* **Shared standing backlog.** A window-limited flow keeps ``w_j`` packets in flight:
  ``w_j = x_j (d_j + q/μa)`` with ``x_j`` its rate; while the queue is not empty the
  rates fill the link, ``Σ x_j = μa``. So the standing backlog of windows ``W_k`` (class
  ``k``, base RTT ``d_k``) is the root ``q ≥ 0`` of

  .. math:: \\sum_k W_k / (μa d_k + q) = 1

  (``q = 0`` when ``Σ W_k/(μa d_k) ≤ 1``). The other classes count with the window of
  the round they are in (their ``W1``); class ``c`` with ``W0`` at the start of its
  round (the round's first packet) and ``W1 = W0 + Z`` at its end. With one class this
  is ``q = max(0, W − μa d)``, the synchronous model's backlog.
* **Burst, RTTs, duration.** The class's growth queues on top of the standing backlog as in
  the synchronous model (:func:`~tcpfluid.fluid._rounds_physics.forward_queues`, the RTT
  model, the ACK train); its packets' RTTs are ``d_c`` plus the queueing delay, the
  round lasts ``d_c + q(W1)/μa``; the law reads them with the feedback lag
  (:func:`~tcpfluid.fluid._rounds_physics.lagged`, per class).
* **Losses.** Drop-tail: the backlog beyond the flows' share of the buffer at the round's
  peak is lost, by every flow in flight in proportion to its window (one class: the
  synchronous rule; the hybrid's rule, in proportion to its arrivals). The flows of the
  class take theirs at the end of the round; the other classes' flows at the end of their
  own next round, and until then what they lost is not in flight (it leaves their
  windows in the shared backlog). A flow's losses taken at the end of the round after
  its loss reaction belong to the same loss episode and start no new loss event
  (``_rounds_law.RECOVERY_ROUNDS``): without that rule the long-RTT flows, charged a
  share of the short-RTT classes' overflows at every one of their rounds, halve every
  round. RED
  (:mod:`tcpfluid.queueing`): the averaged queue ``avg`` follows the queue per arrival
  (``μ`` arrivals per second, weight ``w_q``), the class's packets of the round are
  dropped with probability ``p(avg)``; a flow's expected drops accumulate and each whole
  packet is a loss event at the end of its round (deterministic, no random numbers).
* **The law** of each flow (the same :class:`~tcpfluid.algorithms.base.ControlLaw` object
  every engine steps) decides at the end of its class's round; other flows keep their
  state and action.

Totals count each round's packets pro rata of its part before ``duration_s``; the cross
traffic carried is its schedule over ``[0, duration_s]``.

With every flow in one class the events are the synchronous model's rounds and every
operation is the synchronous model's (tests/fluid/test_rounds_async.py checks the traces
are identical).

Without cross traffic, joins or leaves, a class's round is computed on Python floats where
its arrays would hold one value: the whole round of a class of one flow (the law deciding
through its one-flow path on floats when the round has no loss event), the shared queue
and RTTs of a class of several consecutive flows (whose law decides on views of their
state). The operations and their order are the arrays', so the results are the same bit
for bit (tests/fluid/test_rounds_async_speed.py compares them with the array path).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array, check_choice
from ..algorithms._common import backlog
from ..algorithms.base import ControlLaw, RoundSample
from ..path import Path
from ..queueing import RedParameters, red_drop_probability
from . import _rounds_law
from ._rounds_async_trace import AsyncRecorder, AsyncRoundTrace
from ._rounds_checks import FEEDBACK_ROUNDS, RttModel, _check_run, _rtt_model
from ._rounds_inputs import CrossTraffic, PathBatch
from ._rounds_law import (
    DROP_SHARE,
    DROP_SHARES,
    OverflowShare,
    WholeLosses,
    _check_bounded,
    decide,
    growth_shares,
    join_flows,
    start_law,
)
from ._rounds_loop_parts import forward_round
from ._rounds_physics import TRAIN_RUNS, Rtts, lagged, round_rtts
from ._rounds_results import RECORDABLE

__all__ = ["rtt_classes", "shared_backlog", "simulate_rounds_async"]

FloatArray = NDArray[np.float64]
#: the RTTs of :data:`~._rounds_physics.Rtts` for a class of one flow, as floats
_Floats = tuple[float, float, float, float, float]

#: a class of one flow decides through :meth:`_AsyncLoop._decide_one` (the law's one-flow
#: path); ``False``: through the class's whole arrays (the reference it must equal)
ONE_FLOW_CLASS = True
#: a class of several consecutive flows decides on views of their state and a sample of
#: the class's flows only (:meth:`_AsyncLoop._decide_one`); ``False``: through the
#: whole arrays (the reference it must equal)
CLASS_VIEWS = True
#: without cross traffic, joins or leaves (and ``drop_share`` not ``"growth"``) a class
#: that decides on views steps its rounds on Python floats: all of a one-flow class's
#: (:meth:`_AsyncLoop._round_one`), the queue and RTTs of a class of several flows
#: (:meth:`_AsyncLoop._round_class`); ``False``: on arrays (the reference it must equal)
FLOAT_ROUNDS = True
#: ``True``: a round skips work whose result it already has (the shared backlog of a
#: window the round did not grow; the all-zero shares of a round without overflow);
#: ``False``: every round does that work (the reference it must equal)
SKIP_UNCHANGED = True


def rtt_classes(base_rtt_s: FloatArray) -> list[NDArray[np.intp]]:
    """The flows grouped by base RTT (equal to rounding, ``math.isclose``), in order of
    their first flow: each group shares one round clock."""
    groups: list[list[int]] = []
    for j, d in enumerate(base_rtt_s.tolist()):
        for g in groups:
            if math.isclose(d, float(base_rtt_s[g[0]])):
                g.append(j)
                break
        else:
            groups.append([j])
    return [np.array(g, dtype=np.intp) for g in groups]


def shared_backlog(windows: Sequence[float], pipes: Sequence[float]) -> float:
    """The standing backlog ``q`` (packets) of window-limited flows sharing a FIFO queue.

    Class ``k`` holds ``windows[k]`` packets in flight over a pipe of ``pipes[k] = μa d_k``
    packets; ``q`` solves ``Σ W_k / (pipes_k + q) = 1`` (``0`` when the windows fit the
    pipes), by Newton's method from ``max(0, ΣW − max pipe)`` (a point left of the root of
    this convex decreasing function, so the iterates increase to it). Plain floats: the
    round model calls it with a handful of classes at every event.

    Examples
    --------
    >>> shared_backlog([30.0], [20.0])  # one class: W - mu d
    10.0
    >>> round(shared_backlog([10.0, 20.0], [10.0, 30.0]), 9)
    10.0
    """
    # one pass over the classes that send, with plain sums in their order (no generators:
    # the thesis's two-class runs call this at every round)
    live: list[tuple[float, float]] = []
    fill, total, top = 0.0, 0.0, -math.inf
    for w, m in zip(windows, pipes, strict=True):
        if w > 0.0:
            live.append((w, m))
            fill += w / m
            total += w
            if m > top:
                top = m
    if not live or fill <= 1.0:
        return 0.0
    q = max(0.0, total - top)
    for _ in range(200):
        f, df = -1.0, 0.0
        for w, m in live:
            r = w / (m + q)
            f += r
            df += r / (m + q)
        step = f / df
        q += step
        if step <= 1e-13 * (1.0 + q):
            break
    return q


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
    train_runs: bool = TRAIN_RUNS,
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
    timeout_loss_fraction, feedback_rounds, ack_train, progress, drop_share, train_runs
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
    if not isinstance(law, ControlLaw):
        raise TypeError(f"law must be a ControlLaw (see tcpfluid.algorithms.get_law), got {law!r}")
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
    if not isinstance(ack_train, bool):
        raise TypeError(f"ack_train must be True or False, got {ack_train!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    model = _rtt_model(rtt_model, None)
    check_choice("drop_share", drop_share, DROP_SHARES)
    batch = PathBatch(path.mu, float(d.min()), buffer_pkts=path.buffer_pkts)
    run = _check_run(
        batch, d.size, None, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    loop = _AsyncLoop(
        law, path, d, model, ack_train, feedback_rounds, red, run, drop_share, bool(train_runs)
    )
    return loop.run(progress)


class _AsyncLoop:
    """The event loop of :func:`simulate_rounds_async` (checked arguments)."""

    def __init__(
        self,
        law: ControlLaw,
        path: Path,
        d: FloatArray,
        model: str,
        ack_train: bool,
        lag: int,
        red: RedParameters | None,
        run: Any,
        drop_share: str = DROP_SHARE,
        train_runs: bool = False,
    ) -> None:
        F = d.size
        self.law, self.path, self.d, self.model, self.lag, self.red, self.cfg = (
            law, path, d, model, lag, red, run,
        )  # fmt: skip
        self.F = F
        self.mu = np.array([path.mu])
        self.buffer = np.array([path.buffer_pkts])
        self.finite_buf = math.isfinite(path.buffer_pkts)
        self.ix = rtt_classes(d)
        self.K = len(self.ix)
        self.dc = [np.array([d[ix[0]]]) for ix in self.ix]
        # a class of consecutive flows is addressed by a slice (views, no copies)
        self.sel: list[Any] = [
            slice(int(ix[0]), int(ix[-1]) + 1) if ix[-1] - ix[0] + 1 == ix.size else ix
            for ix in self.ix
        ]
        #: per class: its flow when it has one (else -1)
        self.single = [int(ix[0]) if ix.size == 1 else -1 for ix in self.ix]
        #: per class: it decides on views of its flows' state (:meth:`_decide_one`)
        self.views = [
            self.K > 1
            and isinstance(sel, slice)
            and (ONE_FLOW_CLASS if ix.size == 1 else CLASS_VIEWS)
            and _uniform_law(law, ix.size)
            for ix, sel in zip(self.ix, self.sel, strict=True)
        ]
        self.dc_f = [float(dc[0]) for dc in self.dc]
        self.half_d = [0.5 * dc for dc in self.dc]
        self.staggered = bool(np.any(run.start_f > 0.0) or np.any(np.isfinite(run.stop_f)))
        self.ls = start_law(law, F, self.staggered)
        self.cwnd0, self.incr, self.cap = self.ls.cwnd0, self.ls.incr, self.ls.cap
        self.cross = bool(run.cross)
        # without cross traffic the available rate is μ at every round: each class's pipe
        # μa d, 1/μa and the flows' share of the buffer are the same at every round
        mu, buf = self.mu, self.buffer
        fixed = [(mu * dc, 1.0 / mu, buf * (mu / mu)) for dc in self.dc]
        self.fixed = None if self.cross else fixed
        self.spread_train = ack_train and self.cross
        # per flow: the window of the round in progress (0 before a flow's first round and
        # while it is inactive), the last RTTs its law read, totals
        self.w_cur = np.zeros(F)
        self.w_class = [0.0] * self.K  # each class's windows in flight (sum of w_cur)
        self.active = np.ones(F, dtype=bool)
        self.started = np.zeros(F, dtype=bool) if self.staggered else np.ones(F, dtype=bool)
        self.base_rtt, self.fwd_base = np.full(F, np.inf), np.full(F, np.inf)
        self.last = [d.copy(), d.copy(), d.copy(), 0.5 * d, 0.5 * d]
        self.delivered, self.losses = np.zeros(F), np.zeros(F, dtype=np.int64)
        self.red_debt = np.zeros(F)
        # per flow: its share of overflows at other classes' rounds, taken at the end of
        # its own next round (packets lost, no longer in flight)
        self.pending = np.zeros(F)
        self.share = OverflowShare(1) if drop_share == "in-turn" else None
        # drop_share="growth": each flow's per-ACK growth in its last round, and its losses
        # waiting for a whole packet before a loss event
        self.growth = np.zeros(F) if drop_share == "growth" else None
        self.whole = WholeLosses(F) if drop_share == "growth" else None
        # per flow: the rounds left of its loss episode (_rounds_law.RECOVERY_ROUNDS)
        self.recovering = np.zeros(F, dtype=np.int64)
        self.red_avg, self.red_t, self.red_q = 0.0, 0.0, 0.0
        # per class: the start of its round in progress, the ACK-train rate, the RTT history
        self.t = [np.zeros(1) for _ in self.ix]
        self.t_f = [0.0] * self.K  # the same as floats
        self.ack_rate = [np.full(1, np.inf) for _ in self.ix]
        # per class: the runs of its ACK train (the window while the train is compressed)
        self.runs = [np.zeros(1) for _ in self.ix] if self.spread_train and train_runs else None
        # (of floats for a class stepped on floats, :meth:`_round_one`)
        self.history: list[deque[Any]] = [deque() for _ in self.ix]
        # per class, with cross traffic: the backlog its last round left, and its rate
        self.carried = [np.zeros(1) for _ in self.ix]
        self.mu_prev = [self.mu for _ in self.ix]
        self.count = [0] * self.K
        self.recorder = AsyncRecorder(self.ix, F, run.rec)
        # per class: the step of its rounds, on Python floats where it can (_round_one for
        # one flow, _round_class for several), and what they use
        floats = FLOAT_ROUNDS and self.fixed is not None and not self.staggered
        floats = floats and self.growth is None
        self.step: list[Callable[[int], FloatArray]] = [
            self._round
            if not (floats and views)
            else self._round_one
            if ix.size == 1
            else self._round_class
            for ix, views in zip(self.ix, self.views, strict=True)
        ]
        self.flow = [int(ix[0]) for ix in self.ix]  # (its flow, for a class of one)
        self.mu_f = float(self.mu[0])
        self.fixed_f = [tuple(float(x[0]) for x in fx) for fx in fixed]
        self.half_f = [float(h[0]) for h in self.half_d]
        one_flow_path = getattr(law, "_one_flow_path", None)
        #: the law's decision for one flow on Python floats (``None``: it has none)
        self.law_floats = one_flow_path() if one_flow_path is not None else None

    # ----------------------------------------------------------------------- the loop
    def run(self, progress: Callable[[float], None] | None) -> AsyncRoundTrace:
        t_end = self.cfg.t_end
        next_report, k = time.monotonic(), 0
        while True:
            starts = self.t_f
            c = starts.index(min(starts))
            if starts[c] >= t_end:
                break
            w1 = self.step[c](c)
            k += 1
            if (k & 31) == 31:
                _check_bounded(w1, k)
                if progress is not None and (now := time.monotonic()) >= next_report:
                    next_report = now + 0.1
                    progress(min(1.0, max(0.0, min(starts) / t_end)))
        if progress is not None:
            progress(1.0)
        return self._trace()

    def _mu_a(self, t: float) -> FloatArray:
        run = self.cfg
        if not self.cross:
            return self.mu
        on = (t >= run.c_start) & (t < run.c_stop)
        return np.asarray(self.mu - (run.c_rates * on).sum(axis=0), dtype=np.float64)

    def _round(self, c: int) -> FloatArray:
        """One round of class ``c``: physics at its start, the law's decision at its end."""
        ix, d, t, n = self.sel[c], self.dc[c], self.t[c], self.ix[c].size
        t0 = self.t_f[c]
        if self.fixed is None:
            mu_a = self._mu_a(t0)
            mud, inv_mu, b_tcp = mu_a * d, 1.0 / mu_a, self.buffer * (mu_a / self.mu)
        else:
            mu_a = self.mu
            mud, inv_mu, b_tcp = self.fixed[c]
        if self.spread_train:
            np.minimum(self.ack_rate[c], mu_a, out=self.ack_rate[c])
        # ---------------- flows joining or leaving (this class's)
        if self.staggered:
            joining = np.zeros(self.F, dtype=bool)
            joining[ix] = ~self.started[ix] & (t0 >= self.cfg.start_f[ix])
            if joining.any():
                join_flows(
                    self.ls, joining, self.cwnd0, self.incr, self.cap, self.base_rtt,
                    self.fwd_base,
                )  # fmt: skip
                self.started |= joining
            self.active[ix] = self.started[ix] & (t0 < self.cfg.stop_f[ix])
            act = self.active[ix]
            w0 = np.where(act, self.cwnd0[ix], 0.0)
        else:
            act = self.active[ix]
            w0 = self.cwnd0[ix]
        w0_s = _sum(w0, n)
        # ---------------- growth of the round through per-ACK increments
        acks = w0
        z = np.minimum(self.incr[ix] * acks, self.cap[ix] - w0)
        np.maximum(z, 0.0, out=z)
        if self.staggered:
            z[~act] = 0.0
        w1 = w0 + z
        if self.growth is not None:
            self.growth[ix] = z
        z_s = _sum(z, n)
        w1_s = w0_s + z_s if n > 1 else w1
        z_s_f = float(z_s[0])
        # ---------------- the shared queue (other classes at the window of their round)
        others = self._others(c, mu_a)
        if others is None:
            qf0, pipe = np.maximum(w0_s - mud, 0.0), mud
        else:
            q0 = shared_backlog(*_with(others, w0_s, mud))
            qf0 = np.array([q0])
            # the pipe that leaves the shared standing backlog of W1 beyond W1 (the same
            # backlog when the round did not grow the class's window: the same inputs)
            same = SKIP_UNCHANGED and z_s_f == 0.0
            q1 = q0 if same else shared_backlog(*_with(others, w1_s, mud))
            pipe = w1_s - np.array([q1])
        runs = None
        if self.runs is not None:
            runs = self.runs[c] = np.where(self.ack_rate[c] < mu_a, self.runs[c], w0_s)
        fw = forward_round(
            qf0, z_s, w0_s, w1_s, pipe, mu_a, self.mu, self.ack_rate[c], self.model,
            self.spread_train, self.cross, self.carried[c], self.mu_prev[c],
            b_tcp if self.finite_buf else None, clumps=runs,
        )  # fmt: skip
        qf, qf_seen, lost_s = fw.qf, fw.seen, fw.lost
        self.ack_rate[c], self.carried[c], self.mu_prev[c] = fw.ack_rate, fw.carried, fw.mu_prev
        w_all = w1_s if others is None else w1_s + sum(others[0])
        duration, rtts = round_rtts(qf, None, d, self.half_d[c], inv_mu, mu_a, None)
        if self.lag:
            rtts = lagged(self.history[c], rtts, self.lag)
        lost = self._losses(
            ix, None if lost_s is None else float(lost_s[0]), w1,
            float(np.asarray(w_all).ravel()[0]), t0, float(qf[1][0]), float(mu_a[0]),
        )  # fmt: skip
        # ---------------- what the laws measure, totals, record, decision
        views = self.views[c]
        sample, base_c, mean_c = (self._sample_class if views else self._sample)(
            ix, act, rtts, w1, acks
        )
        got = w1 if lost is None else w1 - lost[ix]
        t_next = t + duration
        counting = t0 < self.cfg.t_end
        if counting:
            share = min(1.0, (self.cfg.t_end - t0) / float(duration[0]))
            self.delivered[ix] += got * share
        self.w_cur[ix] = w1
        self.w_class[c] = float(w1_s.sum()) if n > 1 else float(w1.sum())
        if self.count[c] % self.cfg.every == 0:
            peak = qf_seen[2] if self.model != "fluid" else qf_seen[3]
            self.recorder.add(
                c, float(t_next[0]), w1, self.ls.state["phase"][ix].copy(),
                backlog(w1, base_c, mean_c),
                float(rtts[1][0]), float((peak * (self.mu * inv_mu))[0]),
                got / duration,
            )  # fmt: skip
        self.count[c] += 1
        self._decide(ix, sample, lost, counting, views)
        self.t[c] = t_next
        self.t_f[c] = float(t_next[0])
        return w1

    def _round_one(self, c: int) -> FloatArray:
        """:meth:`_round` for a class of one flow (:attr:`step`: no cross traffic, no
        joins or leaves, ``drop_share`` not ``"growth"``) on Python floats. Every value is
        the one :meth:`_round` computes: the same IEEE operations in the same order on the
        one element of its arrays (NumPy's ``maximum`` and ``minimum`` as :func:`_np_max`
        and :func:`_np_min`; a sum of one element as ``0.0 + x``), without NumPy's fixed
        cost per operation; only the law's decision after a loss takes the arrays."""
        f, ix = self.flow[c], self.sel[c]
        t0 = self.t_f[c]
        inv_mu = self.fixed_f[c][1]
        # ---------------- growth of the round through per-ACK increments (acks = w0)
        w0 = float(self.cwnd0[f])
        z = _np_max(_np_min(float(self.incr[f]) * w0, float(self.cap[f]) - w0), 0.0)
        w1 = w0 + z
        lost_s, w_all, q_mean, peak, duration, rtts = self._queue_floats(c, w0, z, w1)
        lost = self._losses_one(f, lost_s, w1, w_all, t0, q_mean)
        # ---------------- what the law measures (_sample_class), totals, record
        for arr, v in zip(self.last, rtts, strict=True):
            arr[f] = v
        r_min, r_mean, r_max, fwd_min, fwd_mean = rtts
        base = _np_min(float(self.base_rtt[f]), r_min)
        self.base_rtt[f] = base
        base_for_law = base if math.isfinite(base) else r_min
        fwd_base = _np_min(float(self.fwd_base[f]), fwd_min)
        self.fwd_base[f] = fwd_base
        fwd_base_for_law = fwd_base if math.isfinite(fwd_base) else fwd_min
        got = w1 if lost is None else w1 - float(lost[f])
        t_next = t0 + duration
        counting = t0 < self.cfg.t_end
        if counting:
            share = min(1.0, (self.cfg.t_end - t0) / duration)
            self.delivered[f] += got * share
        self.w_cur[f] = w1
        self.w_class[c] = 0.0 + w1
        w1_a = np.array([w1])
        if self.count[c] % self.cfg.every == 0:
            # (an RTT of 0, which a positive base RTT rules out, through NumPy's inf/nan)
            delta = (
                np.array([backlog(w1, base_for_law, r_mean)])
                if r_mean != 0.0
                else backlog(w1_a, np.array([base_for_law]), np.array([r_mean]))
            )
            self.recorder.add(
                c, t_next, w1_a, self.ls.state["phase"][ix].copy(), delta, r_mean,
                peak * (self.mu_f * inv_mu), np.array([got / duration]),
            )  # fmt: skip
        self.count[c] += 1
        # ---------------- the law's decision
        fl = self.law_floats
        quiet = lost is None or (
            _rounds_law.loss_events is _LOSS_EVENTS and not float(lost[f]) > 1e-9
        )
        out = None
        if fl is not None and quiet:
            # decide() without a loss event: the law's round decision on floats
            state = self.ls.state
            view = {k: v[ix] for k, v in state.items()}
            sub = dict(view)
            out = fl(sub, w1, base_for_law, r_mean)
            for key, arr in sub.items():
                if arr is not view[key]:  # the law replaced the array instead of updating it
                    state[key][ix] = arr
        if out is not None:
            if self.active[f] and self.recovering[f] > 0:
                self.recovering[f] -= 1
            self.cwnd0[f], self.incr[f], self.cap[f] = out
        else:
            one = RoundSample(
                cwnd=w1_a.copy(),
                base_rtt=np.array([base_for_law]),
                rtt_mean=np.array([r_mean]),
                rtt_min=np.array([r_min]),
                rtt_max=np.array([r_max]),
                acks=np.array([w0]),
                fwd_delay_mean=np.array([fwd_mean]),
                fwd_delay_base=np.array([fwd_base_for_law]),
            )
            self._decide_one(ix, one, lost, counting)
        self.t_f[c] = t_next
        return w1_a

    def _queue_floats(
        self, c: int, w0_s: float, z_s: float, w1_s: float
    ) -> tuple[float | None, float, float, float, float, _Floats]:
        """The shared queue of a round of class ``c`` on floats (:attr:`step`), the
        class's windows ``w0_s`` at its start, ``w1_s = w0_s + z_s`` at its end: what
        :meth:`_round` computes through :func:`~._rounds_loop_parts.forward_round` without
        cross traffic, :func:`~._rounds_physics.round_rtts` and
        :func:`~._rounds_physics.lagged`, the same operations in the same order.

        Returns the overflow beyond the buffer (``None``: infinite buffer), the windows in
        flight of every class, the mean and the recorded peak backlog, the round's duration
        and the RTTs the law reads."""
        model = self.model
        d, half_d = self.dc_f[c], self.half_f[c]
        mud, inv_mu, b_tcp = self.fixed_f[c]
        others = self._others(c, self.mu)
        if others is None:
            qf0, pipe, w_all = _np_max(w0_s - mud, 0.0), mud, w1_s
        else:
            ws, pipes = others
            qf0 = shared_backlog([w0_s, *ws], [mud, *pipes])
            same = SKIP_UNCHANGED and z_s == 0.0
            pipe = w1_s - (qf0 if same else shared_backlog([w1_s, *ws], [mud, *pipes]))
            w_all = w1_s + sum(ws)
        qf1 = _np_max(w1_s - pipe, 0.0)
        if model == "fluid":
            q_min = q_mean = q_max = qf1
        else:
            q_min, q_max = qf0, qf0 + z_s
            q_mean = q_max if model == "last" else qf0 + 0.5 * z_s
        lost_s = None
        if self.finite_buf:
            lost_s = _np_max(_np_max(q_max, qf1) - b_tcp, 0.0)
            q_min, q_mean = _np_min(q_min, b_tcp), _np_min(q_mean, b_tcp)
            q_max, qf1 = _np_min(q_max, b_tcp), _np_min(qf1, b_tcp)
        duration = d + qf1 * inv_mu
        r_min = d + q_min * inv_mu
        r_mean = d + q_mean * inv_mu
        rtts = (r_min, r_mean, d + q_max * inv_mu, r_min - half_d, r_mean - half_d)
        if self.lag:
            rtts = _lagged_floats(self.history[c], rtts, self.lag)
        peak = q_max if model != "fluid" else qf1
        return lost_s, w_all, q_mean, peak, duration, rtts

    def _round_class(self, c: int) -> FloatArray:
        """:meth:`_round` for a class of several consecutive flows (:attr:`step`): the
        flows' windows on arrays, the class's queue and RTTs on floats
        (:meth:`_queue_floats`); the same values."""
        ix, n = self.sel[c], self.ix[c].size
        t0 = self.t_f[c]
        act = self.active[ix]
        # ---------------- growth of the round through per-ACK increments
        w0 = acks = self.cwnd0[ix]
        z = np.minimum(self.incr[ix] * acks, self.cap[ix] - w0)
        np.maximum(z, 0.0, out=z)
        w1 = w0 + z
        w0_s, z_s = float(_sum(w0, n)[0]), float(_sum(z, n)[0])
        w1_s = w0_s + z_s
        lost_s, w_all, q_mean, peak, duration, rtts = self._queue_floats(c, w0_s, z_s, w1_s)
        lost = self._losses(ix, lost_s, w1, w_all, t0, q_mean, self.mu_f)
        # ---------------- what the laws measure, totals, record, decision
        sample, base_c, mean_c = self._sample_class(ix, act, rtts, w1, acks)
        got = w1 if lost is None else w1 - lost[ix]
        t_next = t0 + duration
        counting = t0 < self.cfg.t_end
        if counting:
            share = min(1.0, (self.cfg.t_end - t0) / duration)
            self.delivered[ix] += got * share
        self.w_cur[ix] = w1
        self.w_class[c] = 0.0 + w1_s  # (NumPy's sum of one element)
        if self.count[c] % self.cfg.every == 0:
            self.recorder.add(
                c, t_next, w1, self.ls.state["phase"][ix].copy(), backlog(w1, base_c, mean_c),
                rtts[1], peak * (self.mu_f * self.fixed_f[c][1]), got / duration,
            )  # fmt: skip
        self.count[c] += 1
        self._decide(ix, sample, lost, counting, True)
        self.t_f[c] = t_next
        return w1

    def _losses_one(
        self, f: int, lost_s: float | None, w1: float, w_all: float, t0: float, q_mean: float
    ) -> FloatArray | None:
        """:meth:`_losses` for a class of one flow ``f`` on floats (:meth:`_round_one`)."""
        lost: FloatArray | None = None
        self._share_overflow(f, lost_s, w1, w_all)
        pending = float(self.pending[f])
        if pending > 0.0:
            lost = np.zeros(self.F)
            lost[f] = pending
            self.pending[f] = 0.0
        if self.red is not None:
            p = self._red_probability(self.red, t0, q_mean, self.mu_f)
            if p > 0.0:
                debt = float(self.red_debt[f]) + p * w1
                whole = float(math.floor(debt)) if math.isfinite(debt) else float(np.floor(debt))
                self.red_debt[f] = debt - whole
                if lost is None:
                    lost = np.zeros(self.F)
                lost[f] += whole
        return lost

    def _others(self, c: int, mu_a: FloatArray) -> tuple[list[float], list[float]] | None:
        """The other classes' windows in flight and pipes ``μa d_k`` (``None``: none sends)."""
        if self.K == 1:
            return None
        # in flight: the windows of their rounds less what an overflow already dropped
        pending, sel, w_class, single = self.pending, self.sel, self.w_class, self.single
        dc = self.dc_f
        mua = float(mu_a[0])
        ws: list[float] = []
        pipes: list[float] = []
        for k in range(self.K):
            if k == c:
                continue
            f = single[k]
            # a one-flow class: NumPy's sum of one element, 0.0 + x, without its call
            wk = w_class[k] - (0.0 + float(pending[f]) if f >= 0 else float(pending[sel[k]].sum()))
            if wk > 0.0:
                ws.append(wk)
                pipes.append(mua * dc[k])
        return (ws, pipes) if ws else None

    def _losses(
        self,
        ix: Any,
        lost_s: float | None,
        w1: FloatArray,
        total: float,
        t0: float,
        q_mean: float,
        mu_a: float,
    ) -> FloatArray | None:
        """Per-flow losses of the round (full length F, zero outside the class): the
        class's share of a buffer overflow and of the overflows at other classes' rounds
        since its last round, and RED's whole dropped packets.

        A drop-tail overflow at the peak of this round falls on every flow in flight in
        proportion to its window (the hybrid's rule: in proportion to its arrivals), not
        only on this class: the other classes' flows take their share at the end of their
        own next round. ``lost_s``: the class's overflow (``None``: infinite buffer);
        ``total``: the windows in flight of every class (the shares' denominator);
        ``q_mean``: the round's mean backlog at available rate ``mu_a`` (RED)."""
        lost: FloatArray | None = None
        self._share_overflow(ix, lost_s, w1, total)
        if (self.pending[ix] > 0.0).any():
            lost = np.zeros(self.F)
            lost[ix] = self.pending[ix]
            self.pending[ix] = 0.0
        if self.red is not None:
            p = self._red_probability(self.red, t0, q_mean, mu_a)
            if p > 0.0:
                self.red_debt[ix] += p * w1
                whole = np.floor(self.red_debt[ix])
                self.red_debt[ix] -= whole
                if lost is None:
                    lost = np.zeros(self.F)
                lost[ix] += whole
        return lost

    def _share_overflow(self, ix: Any, lost_s: float | None, w1: Any, total: float) -> None:
        """Add every flow's share of the overflow ``lost_s`` at the peak of class flows
        ``ix``'s round (``None``: infinite buffer) to its pending losses: in proportion to
        the windows in flight (``total`` their sum; the class's own at ``w1``), through the
        drop-share rule where one is set."""
        lost_f = 0.0 if lost_s is None else lost_s
        # no overflow: the proportional shares are all zero (adding them changes nothing)
        skip = SKIP_UNCHANGED and lost_f == 0.0 and self.share is None
        if lost_s is None or skip:
            return
        w = np.where(self.active, self.w_cur - self.pending, 0.0)
        np.maximum(w, 0.0, out=w)
        w[ix] = w1
        if self.growth is not None:
            g = np.where(self.active, self.growth, 0.0)
            self.pending += growth_shares(lost_f, g, w)
        elif total > 0.0:
            mine = (w / total) * lost_f
            self.pending += mine if self.share is None else self.share(mine, w)

    def _red_probability(self, red: RedParameters, t0: float, q_mean: float, mu_a: float) -> float:
        """RED's drop probability for a round starting at ``t0`` (the averaged queue
        updated to ``t0``); ``q_mean`` (the round's mean backlog at rate ``mu_a``) is the
        queue held until the next event."""
        # the averaged queue follows the queue held since the last event, mu arrivals/s
        arrivals = self.mu_f * max(t0 - self.red_t, 0.0)
        keep = (1.0 - red.w_q) ** arrivals
        self.red_avg = self.red_q + (self.red_avg - self.red_q) * keep
        self.red_t = t0
        # float arithmetic in the same order as the arrays' (IEEE double, as NumPy's)
        self.red_q = q_mean * (self.mu_f / mu_a)
        below = self.red_avg < red.min_th_pkts
        return 0.0 if below else float(red_drop_probability(self.red_avg, red))

    def _sample(
        self,
        ix: Any,
        act: NDArray[np.bool_],
        rtts: Rtts,
        w1: FloatArray,
        acks: FloatArray,
    ) -> tuple[RoundSample, FloatArray, FloatArray]:
        """The sample of every flow: the class's round for its flows; the other flows get
        their last values (their decisions are discarded). Also the base RTT and the mean
        RTT the class's flows read."""
        for arr, v in zip(self.last, rtts, strict=True):
            arr[ix] = v
        rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = self.last
        cand = np.where(act, rtt_min[ix], np.inf) if self.staggered else rtt_min[ix]
        self.base_rtt[ix] = np.minimum(self.base_rtt[ix], cand)
        base_for_law = np.where(np.isfinite(self.base_rtt), self.base_rtt, rtt_min)
        fcand = np.where(act, fwd_min[ix], np.inf) if self.staggered else fwd_min[ix]
        self.fwd_base[ix] = np.minimum(self.fwd_base[ix], fcand)
        cwnd = self.cwnd0.copy()
        cwnd[ix] = np.where(act, w1, self.cwnd0[ix]) if self.staggered else w1
        acks_n = self.cwnd0.copy()
        acks_n[ix] = acks
        sample = RoundSample(
            cwnd=cwnd,
            base_rtt=base_for_law,
            rtt_mean=rtt_mean.copy(),
            rtt_min=rtt_min.copy(),
            rtt_max=rtt_max.copy(),
            acks=acks_n,
        )
        sample.fwd_delay_base = np.where(np.isfinite(self.fwd_base), self.fwd_base, fwd_min)
        sample.fwd_delay_mean = fwd_mean.copy()
        return sample, base_for_law[ix], sample.rtt_mean[ix]

    def _sample_class(
        self,
        ix: Any,
        act: NDArray[np.bool_],
        rtts: Rtts | _Floats,
        w1: FloatArray,
        acks: FloatArray,
    ) -> tuple[RoundSample, FloatArray, FloatArray]:
        """:meth:`_sample` for the class's flows only (a class that decides on views of its
        flows' state, :meth:`_decide_one`): the same values, element for element.
        ``rtts``: the class's (arrays of one element, or floats: :meth:`_round_class`)."""
        values: Sequence[Any] = rtts
        for arr, v in zip(self.last, values, strict=True):
            arr[ix] = v
        rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = (a[ix] for a in self.last)
        cand = np.where(act, rtt_min, np.inf) if self.staggered else rtt_min
        self.base_rtt[ix] = np.minimum(self.base_rtt[ix], cand)
        base = self.base_rtt[ix]
        base_for_law = np.where(np.isfinite(base), base, rtt_min)
        fcand = np.where(act, fwd_min, np.inf) if self.staggered else fwd_min
        self.fwd_base[ix] = np.minimum(self.fwd_base[ix], fcand)
        fwd_base = self.fwd_base[ix]
        sample = RoundSample(
            cwnd=np.where(act, w1, self.cwnd0[ix]) if self.staggered else w1.copy(),
            base_rtt=base_for_law,
            rtt_mean=rtt_mean.copy(),
            rtt_min=rtt_min.copy(),
            rtt_max=rtt_max.copy(),
            acks=acks.copy(),
            fwd_delay_mean=fwd_mean.copy(),
            fwd_delay_base=np.where(np.isfinite(fwd_base), fwd_base, fwd_min),
        )
        return sample, base_for_law, sample.rtt_mean

    def _decide(
        self,
        ix: Any,
        sample: RoundSample,
        lost: FloatArray | None,
        counting: bool,
        views: bool = False,
    ) -> None:
        """The law decides for the class's flows; the other flows keep state and action.
        ``views``: the class decides on views (:meth:`_decide_one`; ``sample`` is the
        class's flows' only)."""
        if self.whole is not None and lost is not None:
            on = np.zeros(self.F, dtype=bool)
            on[ix] = self.active[ix]
            alone = np.full(self.F, int(np.count_nonzero(self.active)) == 1)
            lost = self.whole(lost, on, alone)
        if views:
            self._decide_one(ix, sample, lost, counting)
            return
        whole = self.K == 1
        state = self.ls.state
        keep = None if whole else {k: v.copy() for k, v in state.items()}
        mask = np.zeros(self.F, dtype=bool)
        mask[ix] = self.active[ix]
        cwnd0, incr, cap = decide(
            self.law, state, sample, lost, mask, sample.cwnd, self.cfg.frac, counting,
            self.losses, None, self.recovering,
        )  # fmt: skip
        if whole:
            self.cwnd0, self.incr, self.cap = cwnd0, incr, cap
            return
        assert keep is not None
        other = np.ones(self.F, dtype=bool)
        other[ix] = False
        for key, arr in state.items():
            arr[other] = keep[key][other]
        self.cwnd0[ix], self.incr[ix], self.cap[ix] = cwnd0[ix], incr[ix], cap[ix]

    def _decide_one(
        self,
        ix: slice,
        one: RoundSample,
        lost: FloatArray | None,
        counting: bool,
    ) -> None:
        """:meth:`_decide` for a class of consecutive flows (``one``: their sample,
        :meth:`_sample_class`): the law decides those flows alone, on views of their state
        (so a law's one-flow path, on Python floats, applies to a class of one flow). A law
        decides each flow from that flow's own state and sample (with the same parameters
        for every flow: :func:`_uniform_law`), so this is the same decision; the other
        flows' state and action are untouched, as there."""
        state = self.ls.state
        view = {k: v[ix] for k, v in state.items()}
        sub = dict(view)
        cwnd0, incr, cap = decide(
            self.law, sub, one, None if lost is None else lost[ix], self.active[ix].copy(),
            one.cwnd, self.cfg.frac, counting, self.losses[ix], None, self.recovering[ix],
        )  # fmt: skip
        for key, arr in sub.items():
            if arr is not view[key]:  # the law replaced the array instead of updating it
                state[key][ix] = arr
        self.cwnd0[ix], self.incr[ix], self.cap[ix] = cwnd0, incr, cap

    def _trace(self) -> AsyncRoundTrace:
        run, F = self.cfg, self.F
        t_end = run.t_end
        carried = float(self.delivered.sum())
        for cr in run.cross:
            on = max(0.0, min(cr.stop_s, t_end) - max(cr.start_s, 0.0))
            carried += float(np.asarray(cr.rate_pps, dtype=np.float64).ravel()[0]) * on
        series = self.recorder.series()
        return AsyncRoundTrace(
            **series,
            paths=PathBatch(self.path.mu, float(self.d[0]), buffer_pkts=self.path.buffer_pkts),
            algorithm=getattr(self.law, "name", type(self.law).__name__),
            law_params=self.law.params(),
            rtt_model=self.model,
            change_times_s=run.change_times,
            duration_s=t_end,
            elapsed_s=np.array([t_end]),
            delivered_pkts=self.delivered.reshape(1, F),
            carried_pkts=np.array([carried]),
            losses=self.losses.reshape(1, F),
            flow_start_s=run.start_f,
            flow_stop_s=run.stop_f,
            base_rtt_s=self.d.copy(),
            # the exit names the window whose RTTs the decision read (each flow's own rows)
            exit_lag_rows=self.lag if run.every == 1 else 0,
            all_rounds_recorded=run.every == 1,
        )


#: the loss-event rule at import (an experiment may replace it: the float path then
#: decides every lossy round through :func:`~._rounds_law.decide`)
_LOSS_EVENTS = _rounds_law.loss_events


def _np_max(a: float, b: float) -> float:
    """``np.maximum`` of two floats as NumPy computes it on arrays of one element: NaN if
    either is; of two equal values (``0.0`` and ``-0.0``) the second."""
    return a if a > b or a != a else b


def _np_min(a: float, b: float) -> float:
    """``np.minimum`` of two floats as NumPy computes it on arrays of one element."""
    return a if a < b or a != a else b


def _lagged_floats(history: deque[Any], now: _Floats, lag: int) -> _Floats:
    """:func:`~._rounds_physics.lagged` on the floats of a class of one flow."""
    history.append(now)
    cur_min, cur_fmin = now[0], now[3]
    past = history.popleft() if len(history) > lag else history[0]
    rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = past
    return (
        _np_min(rtt_min, cur_min),
        rtt_mean,
        _np_max(rtt_max, cur_min),
        _np_min(fwd_min, cur_fmin),
        fwd_mean,
    )


def _uniform_law(law: ControlLaw, n: int) -> bool:
    """Whether ``law`` can decide ``n`` of its flows alone: its parameters are the same for
    every flow (no per-flow arrays, which belong to all the flows)."""
    if any(isinstance(v, list | tuple | np.ndarray) for v in law.params().values()):
        return False
    try:
        law.init_state(n)
    except (ValueError, TypeError):
        return False
    return True


def _sum(x: FloatArray, n: int) -> FloatArray:
    """The sum of a class's per-flow array, shape ``(1,)`` (the synchronous model's
    per-scenario sum with S = 1)."""
    return x.reshape(1, n).sum(axis=1) if n > 1 else x


def _with(others: tuple[list[float], list[float]], w_s: FloatArray, mud: FloatArray) -> Any:
    """The windows and pipes of every class, this class's first."""
    w, m = others
    return [float(w_s[0]), *w], [float(mud[0]), *m]
