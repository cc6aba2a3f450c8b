"""The hybrid model's flows: their laws grouped by law object, and the round trace.

:class:`_Laws` hands each law the flows whose round ended (:mod:`tcpfluid.fluid.hybrid`
steps the queue and windows; each law decides at its flows' own round boundaries) and
their loss reactions; :class:`_RoundLog` keeps every flow's rounds in the order they
ended.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import ControlLaw, RoundAction, RoundSample
from . import _hybrid_kernel as K

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
        #: one law for every flow, in flow order: its state arrays are the flows' own, so
        #: a boundary indexes the sample's rows with a slice (views, no gather)
        self.whole = len(self.groups) == 1 and bool(np.array_equal(self.groups[0][1], np.arange(n)))
        self.names = [""] * n
        #: each flow's group and its position in the group's state arrays (the groups'
        #: flows in increasing order, so the positions of flows in order are in order)
        self.group_of = np.zeros(n, dtype=np.intp)
        self.pos_of = np.zeros(n, dtype=np.intp)
        for g, (lw, ix) in enumerate(self.groups):
            self.group_of[ix] = g
            self.pos_of[ix] = np.arange(ix.size)
            for j in ix.tolist():
                self.names[j] = getattr(lw, "name", type(lw).__name__)
        #: whether each group's law takes ``out=`` in ``on_round`` (its signature says so)
        self.takes_out = [
            "out" in inspect.signature(lw.on_round).parameters for lw, _ in self.groups
        ]
        act = [lw.initial_action(st) for (lw, _), st in zip(self.groups, self.states, strict=True)]
        self.init_cwnd = np.empty(n)
        self.init_incr = np.empty(n)
        self.init_cap = np.empty(n)
        for (_, ix), a in zip(self.groups, act, strict=True):
            self.init_cwnd[ix] = a.cwnd
            self.init_incr[ix] = a.incr
            self.init_cap[ix] = a.cap

    def phase(self, n: int) -> FloatArray:
        if self.whole:  # the one law's phase array is already in flow order
            return np.asarray(self.states[0]["phase"], dtype=np.float64)
        out = np.empty(n)
        for (_, ix), st in zip(self.groups, self.states, strict=True):
            out[ix] = st["phase"]
        return out

    def restart(self, mask: NDArray[np.bool_]) -> None:
        """Fresh state for the flows in ``mask``."""
        for (_, ix), st, fr in zip(self.groups, self.states, self.fresh, strict=True):
            m = mask[ix]
            if np.any(m):
                for k, v in st.items():
                    v[m] = fr[k][m]

    def decide(self, which: NDArray[np.intp], s: FloatArray, out: FloatArray) -> None:
        """Call each law for the flows ``which`` (in increasing order) whose round ended,
        with their round samples: column ``i`` of the rows ``S_*`` of ``s``
        (:func:`~tcpfluid.fluid._hybrid_kernel.boundary_sample`) is flow ``which[i]``'s;
        its action goes to column ``i`` of ``out``'s rows (cwnd, incr, cap). Other flows'
        state is untouched.

        A law decides each flow from that flow's own state and sample, so it is handed the
        ending flows alone: a run of consecutive positions in its state arrays as views (a
        slice; the whole arrays when every flow ends), other sets gathered and written
        back. One law for every flow reads the samples and writes its actions as views
        (``out=`` when its ``on_round`` takes it)."""
        m = which.size
        for g, ((lw, flows), st) in enumerate(zip(self.groups, self.states, strict=True)):
            if self.whole:
                pos = which
                cols: slice | NDArray[np.intp] = slice(0, m)
            else:
                cols = np.flatnonzero(self.group_of[which] == g)
                pos = self.pos_of[which[cols]]
            n = pos.size
            if n == 0:
                continue
            first, last = int(pos[0]), int(pos[-1])
            sel: slice | NDArray[np.intp] = pos
            if last - first + 1 == n:  # consecutive positions: views, not copies
                sel = slice(first, last + 1)
            sub = st if n == flows.size else {k: v[sel] for k, v in st.items()}
            views = dict(sub) if sub is not st else None
            x = s[:, cols]
            sample = RoundSample(
                cwnd=x[K.S_CWND], base_rtt=x[K.S_BASE], rtt_mean=x[K.S_MEAN],
                rtt_min=x[K.S_MIN], rtt_max=x[K.S_MAX], acks=x[K.S_ACKS],
                fwd_delay_mean=x[K.S_FWD_MEAN], fwd_delay_base=x[K.S_FWD_BASE],
            )  # fmt: skip
            o = None
            if isinstance(cols, slice) and self.takes_out[g]:
                o = RoundAction(out[0, cols], out[1, cols], out[2, cols])
                a = lw.on_round(sub, sample, out=o)  # type: ignore[call-arg]
            else:
                a = lw.on_round(sub, sample)
            if a is not o:
                out[0, cols] = a.cwnd
                out[1, cols] = a.incr
                out[2, cols] = a.cap
            if views is not None:
                for k, v in sub.items():
                    # a gathered copy, or an array the law put in place of its view
                    if not isinstance(sel, slice) or v is not views[k]:
                        st[k][sel] = v

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


class _RoundLog:
    """Every flow's round trace ``(t, window, next window, phase)``, in the order the
    rounds ended: a growing array the kernel fills
    (:func:`~tcpfluid.fluid._hybrid_kernel.boundary_end`); :meth:`per_flow` splits it by
    flow, each flow's rows in order."""

    def __init__(self, capacity: int = 1024) -> None:
        self.flow = np.empty(capacity, dtype=np.intp)
        self.rows = np.empty((capacity, 4))
        self.n = 0

    def reserve(self, more: int) -> None:
        """Room for ``more`` rows (the array doubles when full)."""
        if self.n + more > self.flow.size:
            cap = max(2 * self.flow.size, self.n + more)
            flow, rows = np.empty(cap, dtype=np.intp), np.empty((cap, 4))
            flow[: self.n] = self.flow[: self.n]
            rows[: self.n] = self.rows[: self.n]
            self.flow, self.rows = flow, rows

    def per_flow(self, n: int) -> list[FloatArray]:
        """Each of the ``n`` flows' rows, shape ``(rounds, 4)``, in the order they ended."""
        flows = self.flow[: self.n]
        rows = self.rows[: self.n][np.argsort(flows, kind="stable")]
        ends = np.cumsum(np.bincount(flows, minlength=n)).tolist()
        return [rows[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]
