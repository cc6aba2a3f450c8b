"""Several control laws on disjoint groups of flows behind one :class:`ControlLaw` (8 Vegas
and 2 Reno flows on one bottleneck): each law decides for its own flows, on their slices of
the sample, through the ordinary interface. Every state array is full length ``n``; law
``i``'s key ``k`` is stored as ``"i:k"``, and ``"phase"`` is each flow's law's phase.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .base import ControlLaw, FloatArray, FlowIndex, RoundAction, RoundSample, State

__all__ = ["MixedLaw", "each_flow"]

_SAMPLE_FIELDS = tuple(f.name for f in fields(RoundSample))


class MixedLaw(ControlLaw):
    """Laws ``laws[i]`` (at least one) deciding for the flows ``groups[i]`` (indices among
    the ``n`` flows, disjoint, covering ``0 .. n-1``).

    >>> from tcpfluid.algorithms import get_law
    >>> law = MixedLaw([get_law("vegas"), get_law("reno")], [[0, 1, 2], [3]])
    >>> law.initial_action(law.init_state(4)).incr.tolist()  # Reno grows in round 0
    [0.0, 0.0, 0.0, 1.0]
    """

    name = "mixed"

    def __init__(self, laws: Sequence[ControlLaw], groups: Sequence[ArrayLike]) -> None:
        laws = list(laws)
        if not laws:
            raise ValueError("laws must hold at least one ControlLaw, got none")
        for i, law in enumerate(laws):
            if not isinstance(law, ControlLaw):
                raise TypeError(f"laws[{i}] must be a ControlLaw, got {law!r}")
        if isinstance(groups, str) or len(groups) != len(laws):
            raise ValueError(
                f"groups must give one index list per law ({len(laws)}), got {groups!r}"
            )
        idx = []
        for i, g in enumerate(groups):
            arr = np.asarray(g)
            if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"groups[{i}] must be a non-empty list of flow indices, got {g!r}")
            idx.append(arr.astype(np.intp))
        n = sum(a.size for a in idx)
        if not np.array_equal(np.sort(np.concatenate(idx)), np.arange(n)):
            raise ValueError(
                "groups must be disjoint and cover the flows 0 .. n-1 exactly, got "
                f"{[a.tolist() for a in idx]}"
            )
        self.laws: tuple[ControlLaw, ...] = tuple(laws)
        self.groups: tuple[NDArray[np.intp], ...] = tuple(idx)
        #: per flow: its law, and its position in that law's group
        self.which = np.empty(n, dtype=np.intp)
        self.pos = np.empty(n, dtype=np.intp)
        for i, g in enumerate(idx):
            self.which[g] = i
            self.pos[g] = np.arange(g.size)
        self.n_flows = n

    # ------------------------------------------------------------------ the state
    def _sub(self, state: State, i: int) -> State:
        """Law ``i``'s state for its group (copies of its flows' entries)."""
        g, prefix = self.groups[i], f"{i}:"
        return {k[len(prefix) :]: v[g] for k, v in state.items() if k.startswith(prefix)}

    def _put(self, state: State, i: int, sub: State) -> None:
        """Write law ``i``'s updated state back (and its phase into the shared one)."""
        g = self.groups[i]
        for k, v in sub.items():
            key = f"{i}:{k}"
            if key not in state:  # a key the law added: full length, like every other
                state[key] = np.zeros(self.n_flows, dtype=np.asarray(v).dtype)
            state[key][g] = v
        state["phase"][g] = sub["phase"]

    def init_state(self, n: int) -> State:
        if n != self.n_flows:
            raise ValueError(
                f"n must be the {self.n_flows} flows the groups cover, got {n}: a MixedLaw "
                "is built for one set of flows"
            )
        state: State = {"phase": np.zeros(n)}
        for i, (law, g) in enumerate(zip(self.laws, self.groups, strict=True)):
            sub = law.init_state(g.size)
            if "phase" not in sub:
                raise TypeError(f"{type(law).__name__}.init_state must return a 'phase' array")
            self._put(state, i, sub)
        return state

    def _gather(self, state: State, call: Any) -> RoundAction:
        n = self.n_flows
        cwnd, incr, cap = np.empty(n), np.empty(n), np.empty(n)
        for i, g in enumerate(self.groups):
            sub = self._sub(state, i)
            act = call(i, sub)
            self._put(state, i, sub)
            cwnd[g], incr[g], cap[g] = act.cwnd, act.incr, act.cap
        return RoundAction(cwnd=cwnd, incr=incr, cap=cap)

    def initial_action(self, state: State) -> RoundAction:
        return self._gather(state, lambda i, sub: self.laws[i].initial_action(sub))

    def on_round(self, state: State, sample: RoundSample) -> RoundAction:
        def one(i: int, sub: State) -> RoundAction:
            g = self.groups[i]
            part: dict[str, Any] = {
                f: (None if (v := getattr(sample, f)) is None else np.asarray(v)[g])
                for f in _SAMPLE_FIELDS
            }
            return self.laws[i].on_round(sub, RoundSample(**part))

        return self._gather(state, one)

    def on_loss(self, state: State, index: FlowIndex, kind: int, cwnd: FloatArray) -> FloatArray:
        index = np.asarray(index, dtype=np.intp)
        cwnd = np.asarray(cwnd, dtype=np.float64)
        out = np.empty(index.size)
        owner = self.which[index]
        for i in np.unique(owner).tolist():
            sel = owner == i
            sub = self._sub(state, i)
            out[sel] = self.laws[i].on_loss(sub, self.pos[index[sel]], kind, cwnd[sel])
            self._put(state, i, sub)
        return out

    def params(self) -> dict[str, Any]:
        """Each law's registry name and parameters, and its flows."""
        return {
            "laws": [
                {"algorithm": getattr(law, "name", type(law).__name__), **law.params()}
                for law in self.laws
            ],
            "groups": [g.tolist() for g in self.groups],
        }


def each_flow(law: ControlLaw, value: Callable[[ControlLaw], float]) -> FloatArray:
    """``value`` of the law deciding for each flow of ``law``: one entry per flow of a
    :class:`MixedLaw`, one entry for any other law (tile it over the flows with
    ``np.resize``).

    >>> from tcpfluid.algorithms import get_law
    >>> mix = MixedLaw([get_law("vegas"), get_law("reno")], [[0, 2], [1]])
    >>> each_flow(mix, lambda lw: lw.sender.fine_retransmit).tolist()
    [1.0, 0.0, 1.0]
    """
    if isinstance(law, MixedLaw):
        return np.array([float(value(lw)) for lw in law.laws])[law.which]
    return np.array([float(value(law))])
