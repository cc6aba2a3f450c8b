"""The one round engine: round clocks shaped (scenarios × round-clock classes).

A round-clock class is a set of flows of one base RTT, starting and ending their rounds
together: :func:`~tcpfluid.fluid.rounds.simulate_rounds` runs S scenarios of one class,
:func:`~tcpfluid.fluid.rounds.simulate_rounds_async` one scenario of K classes (each step
the class whose clock is earliest), with the same physics, losses and decisions
(docs/round-model.md, docs/round-model-unequal-rtt.md)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import ControlLaw, RoundSample
from ..algorithms.mixed import each_flow
from . import _rounds_kernel as rk
from . import _rounds_physics
from ._first_packets import first_packets_floor, seed_first_packets
from ._rounds_inputs import PathBatch, _Run
from ._rounds_kernel import ClassKernel
from ._rounds_law import (
    BurstLosses,
    ClassLaw,
    OverflowShare,
    WholeLosses,
    _check_bounded,
    class_laws,
    class_sample,
    decide,
    decide_alone,
    start_law,
    switches,
)
from ._rounds_physics import (
    INITIAL_RTO_S,
    BurstPlaces,
    _reverse_start,
    account,
    account_one,
    ack_path_drops,
    across_flows,
    all_of,
    any_of,
    by_scenario,
    integrate,
    no_room,
    per_flow,
    per_scenario,
    placed_flows,
    reverse_queues,
    round_losses,
    start_lockout,
    timer_retransmissions,
)
from ._rounds_results import note_round

FloatArray = NDArray[np.float64]


class RoundEngine:
    """The round loop on checked arguments (``classes``: flow indices within a scenario;
    ``d``: their base RTTs ``(S, K)``; several classes need ``S = 1``; ``opts``: the options of
    :func:`~.rounds.simulate_rounds` checked, with the RTT ``model``, the feedback ``lag`` and
    ``red``)."""

    def __init__(
        self,
        law: ControlLaw,
        batch: PathBatch,
        classes: list[NDArray[np.intp]],
        d: FloatArray,
        run: _Run,
        opts: dict[str, Any],
    ) -> None:
        S, K = batch.n_scenarios, len(classes)
        F = sum(ix.size for ix in classes)
        assert K == 1 or S == 1, "several round-clock classes run one scenario at a time"
        self.law, self.batch, self.run = law, batch, run
        self.model, self.lag, self.red = opts["model"], opts["lag"], opts["red"]
        self.S, self.K, self.F, self.n = S, K, F, S * F
        self.whole_packets = opts["whole_packets"]
        self._init_classes(classes, d)
        self.mu, self.b_r = batch.mu_pps, batch.reverse_buffer_pkts
        self.reverse = bool(np.any(np.isfinite(batch.reverse_mu_pps)))
        self.finite_buf = bool(np.any(np.isfinite(batch.buffer_pkts)))
        self.cross = bool(run.cross)
        self.spread_train = opts["ack_train"] and not self.reverse and self.cross
        self.staggered = bool(np.any(run.start_f > 0.0) or np.any(np.isfinite(run.stop_f)))
        self.start_n, self.stop_n = np.tile(run.start_f, S), np.tile(run.stop_f, S)
        #: each flow's time to the bottleneck and its packets' spacing there
        self.lead_n, self.spacing_n = np.tile(run.lead_f, S), np.tile(run.spacing_f, S)
        n = self.n
        self.ls = start_law(law, n, self.staggered)
        self.cwnd0, self.incr, self.cap = self.ls.cwnd0, self.ls.incr, self.ls.cap
        #: (whole packets) the windows of each flow's last round
        self.w_prev = self.cwnd0.copy() if self.whole_packets else self.cwnd0
        #: per flow: a locked-out flow's timer (0: none); per scenario: the end of its last
        #: round whose queue left no room for a packet
        self.rto: FloatArray | None = self._init_lockout()
        self.t_full = np.full(S, -math.inf)
        self._init_flow_state(classes)
        self.recovering = np.zeros(n, dtype=np.int64)
        self.share: OverflowShare | BurstLosses | None = None
        drop_share = opts["drop_share"]
        if drop_share == "in-turn":
            self.share = OverflowShare(S, opts["drop_at_least_one"])
        elif drop_share == "proportional" and opts["burst_whole_losses"] and self.finite_buf:
            self.share = BurstLosses(S, F)
        self.share_each_round = isinstance(self.share, OverflowShare)
        self.burst = self.share if isinstance(self.share, BurstLosses) else None
        self.growth = np.zeros(n) if drop_share == "growth" else None
        self.whole = WholeLosses(n) if drop_share == "growth" else None
        self.sw = switches(S, run.start_f, round_losses, law, opts)
        self._init_kernels(law, opts["train_runs"])
        self.grow = rk.rule("growth")
        # totals: the bottleneck's output integrated between events
        self.t_ev, self.rate, self.rate_cross = 0.0, np.zeros(n), np.zeros(S)
        self.inflight, self.buf_s, self.none_s = np.zeros(n), np.zeros(S), np.zeros(0)
        self.delivered, self.cross_carried, self.elapsed = np.zeros(n), np.zeros(S), np.zeros(S)
        self.losses = np.zeros(n, dtype=np.int64)
        #: each flow's first loss event (time, window) and its last round with deliveries
        self.marks = np.full((3, n), np.nan)
        #: per class: its round's growth (one value per flow)
        self.growth_work = [np.empty(m * S) for m in self.size]
        #: (one class) the recorder's storage of its next row (:meth:`loop` sets it)
        self.out_row: Callable[[], tuple[FloatArray, FloatArray | None]] | None = None
        #: (several flows, a burst model) the placed flows' places and their class
        self.places: BurstPlaces | None = None
        self.placed_class = -1
        if F > 1 and not self.reverse and self.model != "fluid":
            self._init_places()

    def _flow_d(self) -> FloatArray:
        """Each flow's base RTT, s (S × F,)."""
        d = np.repeat(self.d[0], self.F) if self.K == 1 else self.d_flow
        assert d is not None
        return d

    def _init_lockout(self) -> FloatArray | None:
        """The flows whose whole first window the simultaneous start loses
        (:func:`~._rounds_physics.start_lockout`): each joins after the initial timer."""
        if not self.finite_buf or self.F < 2:
            return None
        S, F = self.S, self.F
        d = self._flow_d()
        locked = np.zeros(self.n, dtype=bool)
        for s in range(S):
            on = slice(s * F, (s + 1) * F)
            buf = float(self.batch.buffer_pkts[s])
            locked[on] = start_lockout(
                self.start_n[on], d[on], buf, self.cwnd0[on], self.spacing_n[on]
            )
        if not locked.any():
            return None
        self.start_n[locked] += INITIAL_RTO_S
        if not self.staggered:
            self.staggered = True
            self.ls.fresh.update({k: v.copy() for k, v in self.ls.state.items()})
        return np.where(locked, INITIAL_RTO_S, 0.0)

    def _retransmit(self, joining: Any) -> None:
        """The timer retransmissions of the locked-out flows in ``joining`` (updated): a try is
        lost where a round ending within the flow's base RTT before it, or later, was full."""
        assert self.rto is not None
        due = joining & (self.rto > 0.0)
        if not any_of(due):
            return
        full = per_flow(self.t_full, self.F) >= self.start_n - self._flow_d()
        through = timer_retransmissions(due, full, self.rto, self.start_n)
        joining &= ~due | through

    def _init_places(self) -> None:
        """The flows with places in the round's burst and the class whose rounds place them."""
        S, F = self.S, self.F
        d = self._flow_d()
        cols = (a.reshape(S, F) for a in (self.start_n, d, self.cwnd0, self.spacing_n))
        placed, cycles = placed_flows(*cols)
        placed = placed.reshape(-1)
        if not placed.any():
            return
        c = next(k for k, mine in enumerate(self.in_class) if mine[int(np.argmax(placed)) % F])
        self.places = BurstPlaces(
            placed[self.sel[c]], cycles, S, self.size[c], self.lag, self.model
        )
        self.placed_class = c

    def _init_classes(self, classes: list[NDArray[np.intp]], d: FloatArray) -> None:
        """How the classes address their flows (a slice when consecutive), and their base RTTs."""
        K, F = self.K, self.F
        # a class of consecutive flows is addressed by a slice (views); one class: all
        self.sel: list[Any] = [
            slice(int(ix[0]), int(ix[-1]) + 1) if ix[-1] - ix[0] + 1 == ix.size else ix
            for ix in classes
        ]
        if K == 1:
            self.sel = [slice(None)]
        self.size = [ix.size for ix in classes]
        #: per class: its flows among all (several classes)
        self.in_class = [np.isin(np.arange(F), ix) for ix in classes]
        self.out_class = [~mine for mine in self.in_class]
        self.none = np.zeros(F, dtype=bool)
        self.d = [np.ascontiguousarray(d[:, c]) for c in range(K)]
        #: each flow's base RTT (several classes, one scenario)
        self.d_flow: FloatArray | None = None
        if K > 1:
            self.d_flow = np.empty(F)
            for c, ix in enumerate(classes):
                self.d_flow[ix] = d[0, c]

    def _init_flow_state(self, classes: list[NDArray[np.intp]]) -> None:
        """The per-flow state every round reads and writes, and the per-class sums' layout."""
        K, F, n = self.K, self.F, self.n
        self.active = np.ones(n, dtype=bool)
        #: (staggered) per class: the clock before which none of its flows joins or leaves,
        #: whether every one is active; ``off``: some flow of the class stepping is not
        self.calm, self.all_on = [-math.inf] * K, [not self.staggered] * K
        self.off = False
        self.started = np.zeros(n, dtype=bool) if self.staggered else np.ones(n, dtype=bool)
        self.base_rtt, self.fwd_base = np.full(n, np.inf), np.full(n, np.inf)
        #: per flow: the RTT and forward delay its first packet saw (inf: not seeded), a busy
        #: joiner's wait behind others and whether its floor is due (_first_packets); per
        #: class: some flow joined without a base RTT yet, the rounds left of its floor
        self.first_rtt, self.first_fwd = np.full(n, np.inf), np.full(n, np.inf)
        self.join_ahead: FloatArray | None = None
        self.join_due, self.unseeded, self.floor_rounds = np.zeros(n, bool), [True] * K, [2] * K
        #: per flow: the window of its round in progress (0 when inactive), its share of
        #: overflows at other classes' rounds (taken at the end of its next round), RED's
        #: expected drops not yet a whole packet, the rounds left of its loss episode
        self.w_cur, self.pending, self.red_debt = np.zeros(n), np.zeros(n), np.zeros(n)
        self.charged = False  # (whether any flow's pending share may be > 0)
        #: (several classes) each class's windows and base RTT; its flows one class after
        #: another (``perm``, each class's first at ``starts``: :meth:`_class_sums`)
        self.w_class = np.zeros(K)
        self.d_class = np.array([float(dc[0]) for dc in self.d])
        self.perm = np.concatenate(classes) if K > 1 else np.arange(F)
        self.starts = np.cumsum([0, *self.size[:-1]]).astype(np.intp)

    def _init_kernels(self, law: ControlLaw, train_runs: bool) -> None:
        """RED's state, each class's clock and compiled kernel, and the laws deciding each class."""
        S, K = self.S, self.K
        #: RED's state and parameters (rows of :mod:`._rounds_kernel`)
        self.red_state = None
        #: (RED) per flow: the whole packets RED drops from the class's round in progress
        self.red_lost: FloatArray | None = None
        if (red := self.red) is not None:
            self.red_state = np.zeros(rk.RED_P + 1)
            self.red_state[rk.RED_WQ : rk.RED_P] = (
                red.w_q, red.min_th_pkts, red.max_th_pkts, red.max_p, bool(red.gentle),
            )  # fmt: skip
        # per class, per scenario: clock, the ACK train's runs; the class's bottleneck
        # over a round, compiled (:mod:`._rounds_kernel`: its values and state)
        self.t = [np.zeros(S) for _ in range(K)]
        self.t_f = [0.0] * K
        self.runs = [np.zeros(S) for _ in range(K)] if self.spread_train and train_runs else None
        self.kernels = [
            ClassKernel(
                S, c, K, self.d[c], self.d_class, self.mu, self.red_state, model=self.model,
                spread=self.spread_train, finite=self.finite_buf, reverse=self.reverse,
                cross=self.cross, lag=self.lag,
            )
            for c in range(K)
        ]  # fmt: skip
        #: per class: the law deciding its flows alone and its state's keys
        #: (:func:`~._rounds_law.class_laws`; ``None``: the whole law decides, :meth:`_decide`),
        #: its sample, views and bound rule (made on first use)
        self.alone = class_laws(law, self.sel) if K > 1 else [(law, {k: k for k in self.ls.state})]
        self.samples: list[Any] = [None] * K
        self.class_law: list[ClassLaw | None] = [None] * K
        self.no_delta = np.empty(0)
        #: (several classes, the whole law deciding) every flow's sample: the class's
        #: round for its flows, each other flow's own last round
        self.full: FloatArray | None = None
        if self.alone is None:
            dn, w = self.d_flow, self.cwnd0
            assert dn is not None
            self.full = np.array([w, dn, dn, dn, dn, w, 0.5 * dn, 0.5 * dn])
        self.count = [0] * K
        self.fixed: list[tuple[Any, ...] | None] = [None] * K

    # ------------------------------------------------------------------ the loop
    def loop(self, recorder: Any, progress: Callable[[float], None] | None) -> None:
        """Step rounds until every clock passes the run's end (or its number of rounds)."""
        run, t_end = self.run, self.run.t_end
        next_report, k = time.monotonic(), 0
        self.out_row = getattr(recorder, "out_row", None) if self.K == 1 else None
        w1 = self.cwnd0
        while True:
            c = 0 if self.K == 1 else self.t_f.index(min(self.t_f))
            if self.K > 1 and self.t_f[c] >= t_end:
                break
            w1 = self.step(c, k, recorder)
            k += 1
            if (k & 31) == 0 or k == run.n_steps:
                _check_bounded(w1, k - 1)
                if progress is not None and (now := time.monotonic()) >= next_report:
                    next_report = now + 0.1
                    now_t = min(float(x.min()) for x in self.t)
                    done = k / run.n_steps if t_end == math.inf else now_t / t_end
                    progress(min(1.0, max(0.0, done)))
            if self.K == 1 and (
                k == run.n_steps or (t_end != math.inf and all_of(self.t[0] >= t_end))
            ):
                _check_bounded(w1, k - 1)
                break
        if self.K > 1:  # the rounds in progress, up to the end (one class: added already)
            integrate(self, t_end)
        if progress is not None:
            progress(1.0)

    def results(self) -> dict[str, Any]:
        """The :class:`~._rounds_results.RoundTrace` fields of the run but series and paths."""
        run, S, F = self.run, self.S, self.F
        delivered = self.delivered.reshape(S, F)
        return {
            "algorithm": getattr(self.law, "name", type(self.law).__name__),
            "law_params": self.law.params(),
            "rtt_model": self.model,
            "change_times_s": run.change_times,
            "duration_s": None if run.t_end == math.inf else run.t_end,
            "elapsed_s": self.elapsed,
            "delivered_pkts": delivered,
            "carried_pkts": delivered.sum(axis=1) + self.cross_carried,
            "losses": self.losses.reshape(S, F),
            "flow_start_s": run.start_f,
            "flow_stop_s": run.stop_f,
            "settle_band_pkts": np.resize(
                each_flow(self.law, lambda lw: lw.cycle_amplitude_pkts), S * F
            ).reshape(S, F),
            "exit_lag_rows": self.lag if run.every == 1 else 0,
            "all_rounds_recorded": run.every == 1,
            "law_base_rtt_s": self.base_rtt.reshape(S, F).copy(),
            "locked_out": None if self.rto is None else (self.rto > 0.0).reshape(S, F),
            "first_loss_s": self.marks[0].reshape(S, F),
            "first_loss_window_pkts": self.marks[1].reshape(S, F),
            "last_delivery_s": self.marks[2].reshape(S, F),
        }

    def _rates(self, c: int, t0: FloatArray) -> tuple[Any, ...]:
        """What the available rate μa at the round's start sets (μa, μa d, 1/μa, the flows'
        buffer share, the ACK-path rate where below μa and where), written into the class's
        rows."""
        fixed = self.fixed[c]
        if fixed is not None:
            return fixed  # without cross traffic the available rate never changes
        run, mu, R = self.run, self.mu, self.kernels[c].R
        mu_a = mu
        if self.cross:
            mu_a = mu - (run.c_rates * ((t0 >= run.c_start) & (t0 < run.c_stop))).sum(axis=0)
        R[rk.MU_A], R[rk.INV_MU] = mu_a, 1.0 / mu_a
        R[rk.MUD], R[rk.B_TCP] = mu_a * self.d[c], self.batch.buffer_pkts * (mu_a / mu)
        out: tuple[Any, ...] = (R[rk.MU_A], R[rk.MUD], R[rk.INV_MU], R[rk.B_TCP], None, None)
        if self.reverse:
            mu_r = self.batch.reverse_mu_pps
            R[rk.MU_R] = np.where(mu_r < mu_a, mu_r, np.inf)
            out = (*out[:4], R[rk.MU_R], np.isfinite(R[rk.MU_R]))
        if not self.cross:
            self.fixed[c] = out
        return out

    def _windows(self, c: int, t0: FloatArray) -> tuple[Any, FloatArray]:
        """Joins and leaves of class ``c``'s flows at its round's start; their windows."""
        ix, m = self.sel[c], self.size[c]
        if not self.staggered:
            return self.active[ix], self.cwnd0[ix]
        if float(t0.max()) >= self.calm[c]:  # (before: no flow of the class joins or leaves)
            t_n = across_flows(t0, m)
            started, active = self.started[ix], self.active[ix]
            start, stop = self.start_n[ix], self.stop_n[ix]
            joining = np.zeros(self.n, dtype=bool)
            joining[ix] = ~started & (by_scenario(start, self.S, m) <= t_n).reshape(-1)
            if self.rto is not None:
                self._retransmit(joining)
                start = self.start_n[ix]
            if any_of(joining):
                # the law's fresh state and first action; their base RTTs forgotten
                self.unseeded[c], self.floor_rounds[c] = True, 2
                ls = self.ls
                for key, arr in ls.state.items():
                    arr[joining] = ls.fresh[key][joining]
                self.cwnd0[joining] = ls.init_cwnd[joining]
                self.incr[joining] = ls.init_incr[joining]
                self.cap[joining] = ls.init_cap[joining]
                self.base_rtt[joining] = self.fwd_base[joining] = np.inf
                self.started |= joining
                started = self.started[ix]
            self.active[ix] = started & (by_scenario(stop, self.S, m) > t_n).reshape(-1)
            active = self.active[ix]
            nxt = np.where(started, np.where(active, stop, np.inf), start)
            self.calm[c] = float(nxt.min())
            self.all_on[c] = all_of(active)
        self.off = not self.all_on[c]
        act = self.active[ix]
        return act, (np.where(act, self.cwnd0[ix], 0.0) if self.off else self.cwnd0[ix])

    def _red_drops(self, c: int, t0: float, w1: FloatArray, total: float) -> None:
        """RED's whole dropped packets of class ``c``'s round into ``red_lost`` (full length,
        ``None``: none; :func:`~._rounds_kernel.red_drops`)."""
        assert self.red_state is not None
        ix = self.sel[c]
        debt = self.red_debt[ix]  # (a view when the class's flows are a slice)
        whole = rk.red_drops(self.red_state, self.kernels[c].R, t0, debt, w1, total)
        if not isinstance(ix, slice):
            self.red_debt[ix] = debt
        self.red_lost = None
        if whole is not None:
            self.red_lost = np.zeros(self.n)
            self.red_lost[ix] = whole

    def _class_sums(self, x: FloatArray) -> FloatArray:
        """A per-flow array summed over each class's flows (several classes, one scenario)."""
        return np.add.reduceat(x[self.perm], self.starts)

    def step(self, c: int, k: int, recorder: Any) -> FloatArray:
        """One round of class ``c`` in every scenario: physics, losses, totals, record, the
        law's decision. Returns the class's windows."""
        ix, m, S, d = self.sel[c], self.size[c], self.S, self.d[c]
        t0 = self.t[c]
        mu_a, mud, inv_mu, _, mu_r_eff, rev_bott = self._rates(c, t0)
        act, w0 = self._windows(c, t0)
        recording = self.count[c] % self.run.every == 0
        # one class: the recorder's next row holds the round's windows (and throughputs)
        row = self.out_row() if recording and self.out_row is not None else None
        w0_s = per_scenario(w0, S, m)
        if self.reverse:
            qr0, qf0, acks = _reverse_start(w0, w0_s, mu_a, mu_r_eff, self.b_r, d, m)
        elif self.whole_packets:  # a packet sender's: the last round's whole packets' ACKs
            acks = np.floor(self.w_prev[ix] + 1e-9)
            self.w_prev[ix] = w0
        else:  # the fluid reading: one ACK per packet of the round's window
            acks = w0
        # ---------------- growth of the round through per-ACK increments
        z = self.growth_work[c]
        w1 = np.empty(z.size) if row is None else row[0]
        self.grow(self.incr[ix], acks, self.cap[ix], w0, act, self.off, z, w1)
        if self.growth is not None:
            self.growth[ix] = z
        z_s = per_scenario(z, S, m)
        w1_s = w0_s + z_s if m > 1 else w1
        # (several classes) a packet is lost once: what the flows lost at other classes'
        # overflows since their last round is not in flight in this round
        w1_in = w1
        if self.charged and any_of(self.pending[ix]):
            held = self.pending[ix]
            w1_in = np.maximum(w1 - held, 0.0)
            w0_s = per_scenario(np.maximum(w0 - held, 0.0), S, m)
            w1_s = per_scenario(w1_in, S, m)
        if self.red_state is not None:  # (RED drops as the packets arrive, before the queue)
            self._red_drops(c, float(t0[0]), w1_in, float(w1_s[0]))
        # ---------------- the bottleneck over the round (other classes at their windows)
        burst, ker = None, self.kernels[c]
        ws = self.w_class  # (several classes: each one's window in flight)
        if self.charged:
            ws = ws - self._class_sums(self.pending)
        if self.reverse:
            qr, qf = reverse_queues(
                qr0, qf0, z_s, w1_s, mu_a, mu_r_eff, self.b_r, d, rev_bott, self.model
            )
            ker.R[rk.QR : rk.QR + 4], ker.R[rk.Q_MIN : rk.Q_MIN + 4] = qr, qf
            ker(ws, t0, w0_s, z_s, w1_s, 2)
            burst = ack_path_drops(w0, acks, w1, w1_s, qr0, z_s, self.b_r, rev_bott, m) >= 1.0
        elif self.cross:
            ker(ws, t0, w0_s, z_s, w1_s, 1)
            self._cross_inputs(c, mu_a, w0_s, z_s, w1_s)
            ker(ws, t0, w0_s, z_s, w1_s, 2)
        else:
            ker(ws, t0, w0_s, z_s, w1_s, 3)
        others, q_end = ker.others(), float(ker.R[rk.Q_END, 0])
        qf, qf_seen, lost_s, duration, rtts = ker.qf, ker.seen, ker.lost, ker.duration, ker.rtts
        lost = self.sw.round_losses(self, c, lost_s, w1_in, z, w1_s, others, t0, qf[1], mu_a)
        if self.rto is not None:
            full = no_room(ker.R[rk.Q_MAX, :S], ker.R[rk.B_TCP, :S])
            np.copyto(self.t_full, t0 + duration[:S], where=full)
        # the packets of the round not lost (never fewer than none)
        got = w1 if lost is None else np.maximum(w1 - lost[ix], 0.0)
        # ---------------- totals, what the law measures, record, decision
        t_next = ker.clocks[(self.count[c] + 1) & 1]  # (t0 + duration)
        if self.K > 1:
            # in flight until the class's next round: the round's packets not lost
            self.w_cur[ix] = got
            self.w_class[c] = w1_s[0] if lost is None else float(got.sum())
            known = lost is None and not (self.charged and any_of(self.pending))
            account(self, c, t0, got, mu_a, q_end if known else None)
        else:
            account_one(self, t0, t_next, duration, got, lost is None, mu_a, mud, inv_mu, mu_r_eff)
        # (Δ recorded: computed with the sample)
        delta = self.no_delta
        if recording and "delta_pkts" in recorder.fields:
            delta = np.empty(w1.size)
        if self.unseeded[c] and not self.reverse:
            seed_first_packets(self, t0, self._flow_d(), inv_mu)
        self.unseeded[c] = False
        seen, seen_min = rtts, ker.rtt_min
        if c == self.placed_class:
            assert self.places is not None
            seen, seen_min = self.places(self.count[c], act, z, ker.R, rtts)
        sample = class_sample(self, c, w1, acks, delta, seen, seen_min)
        if self.floor_rounds[c]:  # (a class's first rounds: docs/round-model.md)
            first_packets_floor(self, ix, c)
        t_end = self.run.t_end
        counting: Any = True
        if self.K > 1:
            counting = float(t0[0]) < t_end
        elif t_end != math.inf:
            counting = per_flow(t0 < t_end, m)
        if recording:
            self._record(
                recorder, c, t_next, w1, ker.rtt_mean, qf_seen, inv_mu, got, duration,
                None if row is None else row[1], delta if delta.size else None,
            )  # fmt: skip
        self.count[c] += 1
        self._decide(c, sample, lost, counting, burst)
        note_round(self, ix, per_flow(t_next, m), w1, got, lost is not None)
        self.t[c] = t_next
        if self.K > 1:
            self.t_f[c] = float(t_next[0])
        return w1

    def _cross_inputs(
        self, c: int, mu_a: FloatArray, w0_s: FloatArray, z_s: FloatArray, w1_s: FloatArray
    ) -> None:
        """With cross traffic, part 2's inputs: the queue memory (unless ``queue_memory=False``)
        and, for an ACK train slower than μa made of runs, the runs' queue."""
        R, cfg = self.kernels[c].R, self.kernels[c].cfg
        cfg[rk.MEMORY] = self.sw.queue_memory
        if self.sw.queue_memory:
            R[rk.KEEP], R[rk.MEM_CARRIED], R[rk.DROPPED] = _rounds_physics.queue_memory(
                mu_a, self.mu, R[rk.CARRIED], R[rk.MU_PREV]
            )
        cfg[rk.CLUMPS] = False
        if self.runs is not None:
            slow = R[rk.ACK_RATE] < mu_a
            runs = self.runs[c] = np.where(slow, self.runs[c], w0_s)
            if self.model != "fluid" and any_of(slow):
                clumped = _rounds_physics.train_clump_queue(z_s, w1_s, R[rk.PIPE], runs)
                R[rk.CLUMPED] = np.where(slow, clumped, 0.0)
                cfg[rk.CLUMPS] = True

    def _record(
        self, recorder: Any, c: int, t: FloatArray, w1: FloatArray, rtt_mean: FloatArray,
        qf: Any, inv_mu: FloatArray, got: FloatArray, duration: FloatArray,
        thr_out: FloatArray | None, delta: FloatArray | None,
    ) -> None:  # fmt: skip
        """Record a round of class ``c`` ending at ``t``: windows, phases, Δ, the mean RTT, the
        queue at the round's peak (link packets) and each flow's throughput."""
        kept = recorder.fields
        queue = None
        if "queue_pkts" in kept:
            queue = qf[2] if self.model != "fluid" else qf[3]
            if self.cross:
                queue = queue * (self.mu * inv_mu)
        thr = None
        if "throughput_pps" in kept:
            if self.K == 1:  # (each scenario's duration over its flows)
                S, m = self.S, self.size[c]
                thr = np.divide(
                    by_scenario(got, S, m), across_flows(duration, m),
                    out=None if thr_out is None else by_scenario(thr_out, S, m),
                ).reshape(-1)  # fmt: skip
            else:
                thr = got / duration
        recorder.add_row(c, t, w1, self.ls.state["phase"][self.sel[c]], delta, rtt_mean, queue, thr)

    # ------------------------------------------------------------------ the law
    def _decide(
        self, c: int, sample: RoundSample, lost: FloatArray | None, counting: Any, burst: Any
    ) -> None:
        """The law decides for class ``c``'s flows; the other flows keep state and action."""
        state, run = self.ls.state, self.run
        ix = self.sel[c]
        if self.whole is not None and lost is not None:
            # drop_share="growth": a loss event once a flow's losses reach a whole packet
            on = np.zeros(self.n, dtype=bool)
            on[ix] = self.active[ix]
            n_on = self.active.reshape(self.S, self.F).sum(axis=1)
            lost = self.whole(lost, on, np.repeat(n_on == 1, self.F))
        if self.full is None:
            decide_alone(self, c, sample, lost, counting, burst)
            return
        mine = self.in_class[c]
        keep = {k: v.copy() for k, v in state.items()}
        counts = mine if counting else self.none
        # the sample's fields this engine measures, in order (``backlog``, a sender's own
        # Δ, is the packet simulator's: not kept here)
        for full_row, row in zip(self.full, vars(sample).values(), strict=False):
            full_row[ix] = row
        cwnd0, incr, cap = decide(
            self.law, state, RoundSample(*self.full), lost, mine & self.active, self.full[0],
            run.frac, counts, self.losses, None, self.recovering, None, self.sw.events,
            self.sw.recovery_rounds, self.sw.late, self.sw.first, self.sw.holes, self.red_lost,
        )  # fmt: skip
        other = self.out_class[c]
        for key, arr in state.items():
            if key in keep:
                np.copyto(arr, keep[key], where=other)
        self.cwnd0[ix], self.incr[ix], self.cap[ix] = cwnd0[ix], incr[ix], cap[ix]
