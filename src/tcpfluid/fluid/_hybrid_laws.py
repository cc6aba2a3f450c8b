"""The hybrid model's flows: their laws grouped by law object, the laws' compiled rules as
calls the compiled loop makes itself, and the decisions of laws written in Python
(docs/ode-model.md, "Where the laws decide").

An adapter, ``(buf, meta, m, p)``, rebuilds a compiled rule's arguments (the law's state,
the sample and action rows, copies of its other arrays, all in ``buf``) from their
descriptions in ``meta`` from entry ``m``, for the flow at position ``p`` among its law's
flows. A law written in Python is called from Python (:class:`_Boundary`).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .. import _numba_cache
from ..algorithms._jit import JIT_OPTIONS, helpers
from ..algorithms.base import ControlLaw, RoundSample, _runs_rule, loss_kind
from ..algorithms.mixed import MixedLaw
from ..metrics._settling import law_band
from . import _hybrid_kernel as K

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

#: adapters a run may call (round rules, and loss rules apart): a fixed size, so that the
#: loop's compiled type is one for every mix of laws; a law whose rule finds no free slot
#: is called from Python
SLOTS = 8
#: the loss kinds' ``(timeout, burst)`` in the order of a group's ``K.GT_LMETA`` entries:
#: the loop's index is ``timeout + 2 * burst`` (``K.KIND_TIMEOUT``, ``K.KIND_BURST``)
_KINDS = tuple((t, b) for b in (False, True) for t in (False, True))
#: the algorithms' codes of those kinds, by the same index
LOSS_KINDS = tuple(loss_kind(t, b) for t, b in _KINDS)


#: the adapters' signature: ``(buf, meta, m, p)``
_SIG: Any = None
#: each kernel's adapters, made once per process
_ADAPTERS: dict[tuple[int, bool], Any] = {}
_NOTHING: Any = None
#: Numba options of the adapters: the loop calls them through their C entry point only
_JIT: dict[str, Any] = {**JIT_OPTIONS, "no_cpython_wrapper": True}


def _one(buf, meta, i, p, n):  # type: ignore[no-untyped-def]
    """Argument ``i``'s array in ``buf``; its element ``p`` when it has one per flow."""
    v = buf[meta[i] : meta[i] + meta[i + 1]]
    return v[p : p + 1] if meta[i + 1] == n else v


def _two(buf, meta, i, p, n):  # type: ignore[no-untyped-def]
    """Argument ``i``'s rows in ``buf``; column ``p`` when it has one per flow."""
    rows, cols = meta[i + 1], meta[i + 2]
    a = buf[meta[i] : meta[i] + rows * cols].reshape((rows, cols))
    return a[:, p : p + 1] if cols == n else a


def _index(meta, i, p):  # type: ignore[no-untyped-def]
    """Flow position ``p`` as an array of one index (written into ``meta``)."""
    meta[i] = p
    return meta[i : i + 1]


def _adapter(kernel: Any, per_flow: bool) -> Any:
    """The compiled adapter of ``kernel`` (module docstring): a round rule (``per_flow``:
    each per-flow array cut to the flow's element) or a loss rule (whole arrays, the
    flow's position as its index array)."""
    key = (id(kernel), per_flow)
    if key in _ADAPTERS:
        return _ADAPTERS[key]
    from numba import njit

    _compiled_helpers()
    parts = []
    for i, c in enumerate(kernel.args):
        at = f"m + {1 + 3 * i}"
        if c in "wrRW":  # an array (its flow's part for a round rule), or rows of them
            fn = "_one" if c in "wr" else "_two"
            parts.append(f"{fn}(buf, meta, {at}, {'p, n' if per_flow else '-1, -1'})")
        elif c == "b":
            parts.append(f"meta[{at}] != 0")
        elif c == "i":
            parts.append(f"meta[{at}]")
        else:  # "I": the flow's index
            parts.append(f"_index(meta, {at}, p)")
    name = (
        f"{'round' if per_flow else 'loss'}_{kernel.py_func.__module__}_{kernel.py_func.__name__}"
    )
    name = name.replace(".", "_")
    src = f"def {name}(buf, meta, m, p):\n    n = meta[m]\n    RULE({', '.join(parts)})\n"
    names = {**_HELPERS, "RULE": kernel.get()}
    # compiled as if written in this file: Numba caches it beside this module's kernels,
    # keyed by its code; the rule's sources are declared (a changed rule recompiles it)
    exec(compile(src, __file__, "exec"), names)
    fn = names[name]
    fn.__module__ = __name__
    _numba_cache.embeds(fn, kernel.py_func, *kernel.uses)
    out = _ADAPTERS[key] = njit(_SIG, **_JIT)(fn)
    return out


_HELPERS: dict[str, Any] = {}


def _compiled_helpers() -> None:
    global _SIG, _NOTHING
    if _SIG is not None:
        return
    from numba import njit, types

    _SIG = types.void(
        types.Array(types.float64, 1, "C"), types.Array(types.int64, 1, "C"), types.int64,
        types.int64,
    )  # fmt: skip
    _HELPERS.update(helpers((_one, _two, _index)))
    _NOTHING = njit(_SIG, **_JIT)(_nothing)


def _nothing(buf, meta, m, p):  # type: ignore[no-untyped-def]
    """An unused slot."""
    return


def calls(laws: Any) -> tuple[Any, ...]:
    """The loop's calls of ``laws`` (:class:`_Laws`), ``(rounds, losses, buf, meta, gt)``
    (module docstring): each group whose law runs its compiled rules gets its state moved
    into ``buf`` (its state dict then holds views of it) and its calls described in
    ``meta``; the others are called from Python (``gt[:, GT_PY]``)."""
    _compiled_helpers()
    gt = np.zeros((len(laws.groups), K.N_GT), dtype=np.int64)
    plans = [_plan(lw, st, ix.size) for (lw, ix), st in zip(laws.groups, laws.states, strict=True)]
    buf = np.zeros(max(sum(p[0] for p in plans if p is not None), 1))
    meta: list[int] = []
    slots: dict[str, list[Any]] = {"round": [], "loss": []}
    off = 0
    for g, plan in enumerate(plans):
        if plan is None or not _fits(plan, slots):
            gt[g, K.GT_PY] = 1
            continue
        off = _lay(plan, buf, off, laws.states[g], gt[g], meta, slots)
    fns = []
    for kind in ("round", "loss"):
        have = [_adapter(k, kind == "round") for k in slots[kind]]
        fns.append(tuple(_Address(f) for f in have + [_NOTHING] * (SLOTS - len(have))))
    return fns[0], fns[1], buf, np.array(meta or [0], dtype=np.int64), gt


class _Address:
    """A compiled function of the slots' signature as the loop receives it: its Numba type
    and the address of its compiled entry, both taken once (Numba would look the address
    up anew at every call of the loop from Python, about 1 ms for the two tuples), for
    Numba's first-class function protocol (``_numba_type_``, ``__wrapper_address__``)."""

    __slots__ = ("_address", "_function", "_numba_type_")

    def __init__(self, function: Any) -> None:
        from numba import types
        from numba.experimental.function_type import _get_wrapper_address

        self._function = function  # kept alive with its code
        self._numba_type_ = types.FunctionType(_SIG)
        self._address = _get_wrapper_address(function, _SIG)

    def __wrapper_address__(self) -> int:
        return int(self._address)


def _fits(plan: Any, slots: dict[str, list[Any]]) -> bool:
    """Whether the plan's kernels have slots (taken when they do)."""
    need = {"round": {plan[1][0]}, "loss": {c[0] for c in plan[2]}}
    new = {k: [x for x in v if x not in slots[k]] for k, v in need.items()}
    if any(len(slots[k]) + len(new[k]) > SLOTS for k in new):
        return False
    for k, v in new.items():
        slots[k].extend(v)
    return True


def _plan(law: Any, state: dict[str, Any], n: int) -> Any:
    """``(size, round call, loss calls)`` of a law whose rules the loop can call (each
    call ``(kernel, args)`` with the law's own arguments), else ``None``."""
    if not (
        _runs_rule(type(law), "on_round", "_round_rule")
        and _runs_rule(type(law), "on_loss", "_loss_rule")
    ):
        return None
    keys = [k for k, v in state.items() if _vector(v, n)]
    if "phase" not in keys:
        return None
    rows = list(np.zeros((K.N_SAMPLE, n)))  # in the order of the rows ``K.S_*``
    kernel, m, args = law._round_rule(state, RoundSample(*rows))
    if m != n:
        return None
    act = list(np.zeros((3, n)))
    rnd = (kernel, (*args, *act))
    losses = []
    for timeout, burst in _KINDS:
        lk, arrays, options = law._loss_rule(state, loss_kind(timeout, burst))
        base = loss_kind(timeout, False)  # the kind the rule reacts as
        losses.append((lk, (*arrays, "I", base, *options, np.zeros(1), np.zeros(1))))
    own = {id(a) for a in (*(state[k] for k in keys), *rows, *act)}
    size = (len(keys) + K.N_SAMPLE + 3) * n + 2
    for (kern, a), loss in zip((rnd, *losses), (False, *[True] * len(losses)), strict=True):
        if len(a) != len(kern.args):
            return None
        for i, (code, x) in enumerate(zip(kern.args, a, strict=True)):
            if loss and i >= len(a) - 2:
                continue  # the loss call's windows
            if code in "wW" and id(x) not in own:
                return None  # a written array that is not the law's state
            if code in "rR" and id(x) not in own:
                size += np.asarray(x).size
    return size, rnd, losses, keys, rows, act


def _vector(v: Any, n: int) -> bool:
    return isinstance(v, np.ndarray) and v.dtype == np.float64 and v.shape == (n,)


def _lay(
    plan: Any, buf: FloatArray, off: int, state: dict[str, Any], row: IntArray,
    meta: list[int], slots: dict[str, list[Any]],
) -> int:  # fmt: skip
    """Move a group's state into ``buf`` from ``off`` (its dict then holds views), lay out
    its sample, action and loss rows and the copies of its rules' other arrays, and write
    its calls into ``meta`` and its row of the group table; returns the next offset."""
    _, rnd, losses, keys, rows, act = plan
    n = rows[0].shape[0]
    where: dict[int, int] = {}

    def put(a: FloatArray) -> int:
        nonlocal off
        at = off
        buf[at : at + a.size] = a.ravel()
        off += a.size
        return at

    for k in keys:
        at = put(state[k])
        where[id(state[k])] = at
        state[k] = buf[at : at + n]
        if k == "phase":
            row[K.GT_PHASE] = at
    row[K.GT_SAMPLE] = off
    for a in rows:
        where[id(a)] = put(a)
    row[K.GT_ACT] = off
    for a in act:
        where[id(a)] = put(a)
    row[K.GT_LW] = put(np.zeros(2))
    row[K.GT_N] = n

    def describe(kernel: Any, args: tuple[Any, ...], loss: bool) -> int:
        m = len(meta)
        meta.append(n)
        for i, (code, x) in enumerate(zip(kernel.args, args, strict=True)):
            if loss and i == len(args) - 2:  # the window before the loss
                meta.extend((int(row[K.GT_LW]), 1, 0))
            elif loss and i == len(args) - 1:  # the new window
                meta.extend((int(row[K.GT_LW]) + 1, 1, 0))
            elif code in "wrRW":
                a = np.asarray(x, dtype=np.float64)
                at = where.get(id(x))
                if at is None:
                    at = where[id(x)] = put(a)
                meta.extend((at, a.shape[0], a.shape[1] if a.ndim == 2 else 0))
            elif code in "bi":
                meta.extend((int(x), 0, 0))
            else:
                meta.extend((0, 0, 0))
        return m

    row[K.GT_ROUND] = slots["round"].index(rnd[0])
    row[K.GT_RMETA] = describe(rnd[0], rnd[1], False)
    row[K.GT_LOSS] = slots["loss"].index(losses[0][0])
    for i, (lk, args) in enumerate(losses):
        if lk is not losses[0][0]:
            raise TypeError("a law's loss rule must be one kernel for every loss kind")
        row[K.GT_LMETA + i] = describe(lk, args, True)
    return off


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence Numba's notice that first-class functions are experimental (the loop is
    typed with them at each call from Python)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type feature")
        yield


class _Laws:
    """The flows' laws: one law for all flows, or one law object per flow."""

    def __init__(self, law: ControlLaw | Sequence[ControlLaw], n: int) -> None:
        if isinstance(law, MixedLaw):  # its laws, each for its group of flows
            if law.n_flows != n:
                raise ValueError(f"law is a MixedLaw for {law.n_flows} flows, the run has {n}")
            self.groups = list(zip(law.laws, law.groups, strict=True))
        elif isinstance(law, ControlLaw):
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
        #: each flow's sender: Vegas's fine-grained retransmission check (its law's
        #: :attr:`~tcpfluid.algorithms.base.ControlLaw.sender`, as the packet simulator's)
        self.fine = np.ones(n, dtype=bool)
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
                self.fine[j] = getattr(lw, "sender", ControlLaw.sender).fine_retransmit
        #: each flow's first action and its law's phase when it starts
        self.init_cwnd, self.init_incr, self.init_cap, self.init_phase = init = np.empty((4, n))
        for (lw, ix), st, fr in zip(self.groups, self.states, self.fresh, strict=True):
            a = lw.initial_action(st)
            for row, value in zip(init, (a.cwnd, a.incr, a.cap, fr["phase"]), strict=True):
                row[ix] = value

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
            a = lw.on_round(sub, RoundSample(*s[:, cols]))  # (the rows ``K.S_*`` in order)
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
        by: dict[tuple[int, int], list[int]] = {}
        for i, key in enumerate(zip(self.group_of[flows].tolist(), kinds, strict=True)):
            by.setdefault(key, []).append(i)
        for (g, kind), rows in by.items():
            sel = np.array(rows, dtype=np.intp)
            pos = self.pos_of[flows[sel]]
            out = self.groups[g][0].on_loss(self.states[g], pos, kind, w[sel])
            new[sel] = np.asarray(out, dtype=np.float64).ravel()
        return new


class _Boundary:
    """What :func:`~tcpfluid.fluid._hybrid_kernel.advance` decides the round boundaries with
    (:attr:`laws`): the laws' calls, each flow's group and position in it, the loss rule's
    settings, scratch arrays, and the round log (``(t, window, next window, phase, mean
    RTT, BaseRTT)`` rows and their flows) and the loss log (flow, time), which grow when
    full (:meth:`grow`)."""

    def __init__(self, laws: _Laws, timing: FloatArray, dupacks: FloatArray, has_rev: bool) -> None:
        n = laws.group_of.size
        #: whether the path has an ACK-path bottleneck (the samples' forward delays)
        self.has_rev = has_rev
        self.ig = np.zeros(K.N_IG, dtype=np.int64)
        #: each flow's BaseRTT (inf: none yet)
        self.base = np.full(n, np.inf)
        m = max(n, 1)
        self.s = np.empty((K.N_SAMPLE, m))
        self.log_flow = np.empty(2 * m + 1024, dtype=np.int64)
        self.log_rows = np.empty((self.log_flow.size, K.N_LOG))
        self.loss_flow = np.empty(m + 256, dtype=np.int64)
        #: each loss event's time and the window its reaction cut
        self.loss_t = np.empty((self.loss_flow.size, 2))
        self._fixed = (
            *calls(laws), laws.group_of.astype(np.int64), laws.pos_of.astype(np.int64),
            timing, dupacks, self.base, self.s,
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
            self.loss_t = np.concatenate([self.loss_t[:nl], np.empty((cap - nl, 2))])

    def python_decisions(
        self, laws: _Laws, ff: FloatArray, touched: NDArray[np.int64], g: FloatArray, t: float
    ) -> None:
        """The decisions of laws written in Python at ``t``, after the step the kernel
        returned at (:data:`~tcpfluid.fluid._hybrid_kernel.DECIDE`; ``touched`` lists
        their flows), with the kernel's helpers for one flow, as the kernel decides for a
        law with compiled rules (:func:`~tcpfluid.fluid._hybrid_kernel._decide`): first
        the loss reactions, then the rounds' ends."""
        timing, dupacks, base, s = self._fixed[7:11]
        ig, has_rev = self.ig, self.has_rev
        J = touched[2, : int(g[K.G_LEARNT])]
        if J.size:
            begun = [K.loss_begins(ff, j, dupacks[j]) for j in J.tolist()]
            w = np.array([b[0] for b in begun])
            burst = [int(b[1]) for b in begun]
            fast_first = np.array([b[2] for b in begun], dtype=bool)
            cut = w.copy()
            if fast_first.any():  # the fast retransmit's reaction first
                at = np.flatnonzero(fast_first)
                cut[at] = laws.lose(J[at], [LOSS_KINDS[burst[i]] for i in at.tolist()], w[at])
            then = [
                K.loss_continues(ff, j, t, float(cut[i]), fast_first[i], dupacks[j], timing,
                                 g[K.G_CROSS])
                for i, j in enumerate(J.tolist())
            ]  # fmt: skip
            new = cut.copy()
            again = np.flatnonzero([c[0] for c in then])
            if again.size:  # the timeout's reaction, at the window the fast retransmit left
                kinds = [LOSS_KINDS[int(then[i][1]) + burst[i]] for i in again.tolist()]
                new[again] = laws.lose(J[again], kinds, cut[again])
            for i, j in enumerate(J.tolist()):
                K._loss_apply_one(ff, j, t, float(new[i]), then[i][2], then[i][3])
                self.loss_flow[ig[K.I_NLOSS]] = j
                self.loss_t[ig[K.I_NLOSS]] = t, w[i]
                ig[K.I_NLOSS] += 1
        W = touched[1, : int(g[K.G_ENDED])]
        if W.size:
            for i, j in enumerate(W.tolist()):
                K._sample_one(ff, j, base, has_rev, s, i, timing[4])
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
