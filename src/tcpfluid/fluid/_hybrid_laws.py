"""The hybrid model's flows: their laws grouped by law object, and what the compiled loop
keeps of its round boundaries.

:class:`_Laws` groups the flows by law object (each law decides at its flows' own round
boundaries); :class:`_Boundary` holds the arrays the compiled loop
(:func:`~tcpfluid.fluid._hybrid_kernel.advance`) decides the boundaries with, the laws' calls
(:mod:`._hybrid_calls`) and the round and loss logs, and takes the decisions of laws
written in Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._engine_summary import law_band
from ..algorithms.base import ControlLaw, RoundSample, loss_kind
from . import _hybrid_kernel as K
from ._hybrid_calls import Calls, calls

FloatArray = NDArray[np.float64]


class _Laws:
    """The flows' laws: one law for all flows, or one law object per flow."""

    def __init__(self, law: ControlLaw | Sequence[ControlLaw], n: int) -> None:
        if isinstance(law, ControlLaw):
            self.groups = [(law, np.arange(n))]
        else:
            laws = list(law)
            if len(laws) != n:
                raise ValueError(
                    f"law must be one ControlLaw or one per flow ({n}), got {len(laws)}"
                )
            by_id: dict[int, tuple[ControlLaw, list[int]]] = {}
            for j, lw in enumerate(laws):
                if not isinstance(lw, ControlLaw):
                    raise TypeError(f"law[{j}] must be a ControlLaw, got {lw!r}")
                by_id.setdefault(id(lw), (lw, []))[1].append(j)
            self.groups = [(lw, np.array(ix)) for lw, ix in by_id.values()]
        self.states = [lw.init_state(ix.size) for lw, ix in self.groups]
        for (lw, _), st in zip(self.groups, self.states, strict=True):
            if "phase" not in st:
                raise TypeError(f"{type(lw).__name__}.init_state must return a 'phase' array")
        self.fresh = [{k: v.copy() for k, v in st.items()} for st in self.states]
        self.names = [""] * n
        #: each flow's settling band: its law's own limit-cycle amplitude
        self.bands = [0.0] * n
        #: each flow's group and its position in the group's state arrays (the groups'
        #: flows in increasing order, so the positions of flows in order are in order)
        self.group_of = np.zeros(n, dtype=np.intp)
        self.pos_of = np.zeros(n, dtype=np.intp)
        for g, (lw, ix) in enumerate(self.groups):
            self.group_of[ix] = g
            self.pos_of[ix] = np.arange(ix.size)
            for j in ix.tolist():
                self.names[j] = getattr(lw, "name", type(lw).__name__)
                self.bands[j] = law_band(lw)
        act = [lw.initial_action(st) for (lw, _), st in zip(self.groups, self.states, strict=True)]
        self.init_cwnd = np.empty(n)
        self.init_incr = np.empty(n)
        self.init_cap = np.empty(n)
        #: each flow's law phase when it starts
        self.init_phase = np.empty(n)
        for (_, ix), a, fr in zip(self.groups, act, self.fresh, strict=True):
            self.init_cwnd[ix] = a.cwnd
            self.init_incr[ix] = a.incr
            self.init_cap[ix] = a.cap
            self.init_phase[ix] = fr["phase"]

    def restart(self, mask: NDArray[np.bool_]) -> None:
        """Fresh state for the flows in ``mask``."""
        for (_, ix), st, fr in zip(self.groups, self.states, self.fresh, strict=True):
            m = mask[ix]
            if np.any(m):
                for k, v in st.items():
                    v[m] = fr[k][m]

    def decide(self, which: NDArray[np.intp], s: FloatArray, out: FloatArray) -> FloatArray:
        """Call each law for the flows ``which`` whose round ended, with their round
        samples (column ``i`` of the rows ``S_*`` of ``s`` is flow ``which[i]``'s); their
        actions go to the columns of ``out`` (rows cwnd, incr, cap); returns their
        phases after the decisions. Each law decides each flow from that flow's own
        state and sample, so it is handed its flows' state gathered and written back."""
        phase = np.empty(which.size)
        for g, ((lw, _), st) in enumerate(zip(self.groups, self.states, strict=True)):
            cols = np.flatnonzero(self.group_of[which] == g)
            if cols.size == 0:
                continue
            pos = self.pos_of[which[cols]]
            sub = {k: v[pos] for k, v in st.items()}
            x = s[:, cols]
            sample = RoundSample(
                cwnd=x[K.S_CWND], base_rtt=x[K.S_BASE], rtt_mean=x[K.S_MEAN],
                rtt_min=x[K.S_MIN], rtt_max=x[K.S_MAX], acks=x[K.S_ACKS],
                fwd_delay_mean=x[K.S_FWD_MEAN], fwd_delay_base=x[K.S_FWD_BASE],
            )  # fmt: skip
            a = lw.on_round(sub, sample)
            out[0, cols] = a.cwnd
            out[1, cols] = a.incr
            out[2, cols] = a.cap
            for k, v in sub.items():
                st[k][pos] = v
            phase[cols] = st["phase"][pos]
        return phase

    def lose(self, flows: NDArray[np.intp], kinds: list[int], w: FloatArray) -> FloatArray:
        """The loss reactions of the flows ``flows`` (loss kind ``kinds[i]``, window
        ``w[i]`` before it); returns their new windows. Each law reacts for each flow from
        that flow's own state, so the flows of one law and one kind are handed to it
        together."""
        new = np.empty(flows.size)
        groups = self.group_of[flows]
        by: dict[tuple[int, int], list[int]] = {}
        for i, key in enumerate(zip(groups.tolist(), kinds, strict=True)):
            by.setdefault(key, []).append(i)
        for (g, kind), rows in by.items():
            sel = np.array(rows, dtype=np.intp)
            pos = self.pos_of[flows[sel]]
            out = self.groups[g][0].on_loss(self.states[g], pos, kind, w[sel])
            new[sel] = np.asarray(out, dtype=np.float64).ravel()
        return new


class _Boundary:
    """What :func:`~tcpfluid.fluid._hybrid_kernel.advance` decides the round boundaries with
    (:attr:`args`, after the kernel's own arrays): the laws' calls, each flow's group and
    position in it, the loss rule's settings, scratch arrays, and the round log (``(t,
    window, next window, phase, mean RTT, BaseRTT)`` rows and their flows, in the order
    the rounds ended) and the loss log (flow, time), which grow when full
    (:meth:`grow`)."""

    def __init__(self, laws: _Laws, timing: FloatArray, dupacks: FloatArray, has_rev: bool) -> None:
        n = laws.group_of.size
        #: whether the path has an ACK-path bottleneck (the samples' forward delays)
        self.has_rev = has_rev
        self.calls: Calls = calls(laws)
        self.ig = np.zeros(K.N_IG, dtype=np.int64)
        #: each flow's BaseRTT (inf: none yet)
        self.base = np.full(n, np.inf)
        m = max(n, 1)
        self.s = np.empty((K.N_SAMPLE, m))
        self.log_flow = np.empty(2 * m + 1024, dtype=np.int64)
        self.log_rows = np.empty((self.log_flow.size, K.N_LOG))
        self.loss_flow = np.empty(m + 256, dtype=np.int64)
        self.loss_t = np.empty(self.loss_flow.size)
        c = self.calls
        self._fixed = (
            c.rounds, c.losses, c.buf, c.meta, c.gt, laws.group_of.astype(np.int64),
            laws.pos_of.astype(np.int64), timing, dupacks, self.base, self.s,
        )  # fmt: skip

    @property
    def laws(self) -> tuple[Any, ...]:
        """:func:`~tcpfluid.fluid._hybrid_kernel.advance`'s last argument."""
        return (*self._fixed, self.log_flow, self.log_rows, self.loss_flow, self.loss_t, self.ig)

    def grow(self, more: int) -> None:
        """Room for ``more`` rows more in each log (each at least doubles when full)."""
        n, nl = int(self.ig[K.I_NLOG]), int(self.ig[K.I_NLOSS])
        if n + more > self.log_flow.size:
            cap = max(2 * self.log_flow.size, n + more)
            self.log_flow = np.concatenate([self.log_flow[:n], np.empty(cap - n, np.int64)])
            self.log_rows = np.concatenate([self.log_rows[:n], np.empty((cap - n, K.N_LOG))])
        if nl + more > self.loss_flow.size:
            cap = max(2 * self.loss_flow.size, nl + more)
            self.loss_flow = np.concatenate([self.loss_flow[:nl], np.empty(cap - nl, np.int64)])
            self.loss_t = np.concatenate([self.loss_t[:nl], np.empty(cap - nl)])

    def python_decisions(
        self, laws: _Laws, ff: FloatArray, touched: NDArray[np.int64], g: FloatArray, t: float
    ) -> None:
        """The decisions of laws written in Python at ``t``, after the step the kernel
        returned at (:data:`~tcpfluid.fluid._hybrid_kernel.DECIDE`; ``touched`` lists
        their flows), with the kernel's helpers for one flow: the flows that learnt of
        their losses react (loss timers, their law's ``on_loss``, the new window), then
        those whose round ended get their sample, their law's action and a row of the
        round log, as the kernel does for a law with compiled rules
        (:func:`~tcpfluid.fluid._hybrid_kernel._decide`)."""
        timing, dupacks, base, s = self._fixed[7:11]
        ig, has_rev = self.ig, self.has_rev
        J = touched[2, : int(g[K.G_LEARNT])]
        if J.size:
            w = ff[J, K.F_W]
            kinds, silent, srtt = [], [], []
            for j in J.tolist():
                to, burst, sl, sr = K._loss_timer(
                    ff, j, timing[0], timing[1], dupacks[j], timing[2], timing[3]
                )
                kinds.append(loss_kind(to, burst))
                silent.append(sl)
                srtt.append(sr)
            new = laws.lose(J, kinds, w)
            for i, j in enumerate(J.tolist()):
                K._loss_apply_one(ff, j, t, float(new[i]), silent[i], srtt[i])
                self.loss_flow[ig[K.I_NLOSS]] = j
                self.loss_t[ig[K.I_NLOSS]] = t
                ig[K.I_NLOSS] += 1
        W = touched[1, : int(g[K.G_ENDED])]
        if W.size:
            for i, j in enumerate(W.tolist()):
                K._sample_one(ff, j, base, has_rev, s, i)
            act = np.empty((3, W.size))
            phase = laws.decide(W, s[:, : W.size], act)
            ff[W, K.F_W], ff[W, K.F_INCR], ff[W, K.F_CAP] = act
            for i, j in enumerate(W.tolist()):
                log = (self.log_flow, self.log_rows, int(ig[K.I_NLOG]))
                ig[K.I_NLOG] = K._end_one(ff, j, t, s, i, phase[i], *log)


def _by_flow(flows: NDArray[np.int64], rows: FloatArray, n: int) -> list[FloatArray]:
    """Each of the ``n`` flows' rows of ``rows`` (row ``i`` is flow ``flows[i]``'s), in
    their order."""
    rows = rows[: flows.size][np.argsort(flows, kind="stable")]
    ends = np.cumsum(np.bincount(flows, minlength=n)).tolist()
    return [rows[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
