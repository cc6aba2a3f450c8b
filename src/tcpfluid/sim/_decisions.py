"""The control laws' side of a packet run: which law steps which flow, and the decisions.

The compiled loop stops at round boundaries and losses and leaves the flows concerned in
``pend``; :meth:`Decisions.decide` takes those decisions: each pending flow's round decision
through its law's ``on_round`` (each flow has its own state, also when flows share one law
object), then each loss through ``on_loss``, and writes the new window, per-ACK increment
and cap where the loop reads them.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import is_not
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import ControlLaw, RoundAction, RoundSample
from ..scenarios import Scenario
from ..scenarios._columns import no_algorithm
from . import _core as C

__all__ = ["Decisions", "law_for", "ns2_vegas_cut"]

FloatArray = NDArray[np.float64]

_F_CWND, _F_INCR, _F_CAP, _F_PHASE, _F_SSTH = C.F_CWND, C.F_INCR, C.F_CAP, C.F_PHASE, C.F_SSTH
_I_PENDING, _G_PEND_I, _G_NPEND = C.I_PENDING, C.G_PEND_I, C.G_NPEND
_P_ROUND, _P_LOSS, _P_ROUND_READY = C.P_ROUND, C.P_LOSS, C.P_ROUND_READY
_I_KIND, _F_NEWCWND, _F_LAST_T, _P_LOSS_READY = C.I_KIND, C.F_NEWCWND, C.F_LAST_T, C.P_LOSS_READY
_I_RECOVERY, _REC_NS2_VEGAS, _K_TIMEOUT = C.I_RECOVERY, C.REC_NS2_VEGAS, C.K_TIMEOUT
_perf_counter = time.perf_counter
#: the index of a flow in its own state (``on_loss``)
_FIRST = np.zeros(1, dtype=np.intp)
_FIRST.flags.writeable = False


#: the columns of ``ff`` a law's sample and action are views of
_SAMPLE = {
    "cwnd": C.F_S_CWND, "base_rtt": C.F_S_BASE, "rtt_mean": C.F_S_MEAN, "rtt_min": C.F_S_MIN,
    "rtt_max": C.F_S_MAX, "acks": C.F_S_ACKS, "fwd_delay_mean": C.F_S_FWD,
    "fwd_delay_base": C.F_S_FWD_BASE,
}  # fmt: skip
_ACTION = {"cwnd": C.F_CWND, "incr": C.F_INCR, "cap": C.F_CAP}


def _views(ff: FloatArray, f: int, cols: Mapping[str, int]) -> dict[str, FloatArray]:
    """Views of flow ``f``'s row of ``ff`` (one value each) by name."""
    return {k: ff[f : f + 1, c] for k, c in cols.items()}


def _items(a: NDArray[Any]) -> Any:
    """``a`` (C-contiguous) as a memoryview, whose items read as Python floats or ints."""
    return memoryview(a)  # type: ignore[arg-type]


def _first(x: Any) -> float:
    """The first value of an action's field as a float (an array of one value: its item)."""
    if type(x) is np.ndarray and x.size == 1:
        return float(x.item())
    return float(np.asarray(x).reshape(-1)[0])


def _item_source(a: Any) -> Any:
    """A law's state array of one flow as what the decisions read its item from: a
    memoryview of a plain float64 array (its item a Python float), else the array."""
    if type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous:
        return _items(a)
    return a


def _takes_out(method: Any) -> bool:
    """Whether a law's ``on_round`` or ``on_loss`` accepts the keyword ``out``
    (:meth:`ControlLaw.on_round`)."""
    try:
        params = inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - not introspectable
        return False
    return "out" in params


def ns2_vegas_cut(cwnd: float, kind: int) -> float:
    """The window ns-2's ``Agent/TCP/Vegas`` cuts to at a retransmission on duplicate ACKs
    (``VegasTcpAgent::recv``, ``tcp/tcp-vegas.cc`` revision 1.37, lines 364 and 379-388):
    of the whole window ``win = int(cwnd)``, 2 packets if ``win <= 3``, else ``win >> 1``
    for a packet sent more than once (``kind`` :data:`~tcpfluid.algorithms.base.LOSS_RETX`),
    else ``win - (win >> 2)`` (3/4, rounded up). Vegas's rule (the Quick Vegas paper,
    §3.1) in the agent's integers: a ``fast_recovery="ns2-vegas"`` sender cuts to it."""
    win = math.floor(cwnd)
    if win <= 3:
        return 2.0
    if kind == C.K_RETX:
        return float(win >> 1)
    return float(win - (win >> 2))


def law_for(
    flow: Any,
    laws: Mapping[str, ControlLaw] | None,
    made: dict[tuple[str, str], ControlLaw],
    scenario: str,
) -> ControlLaw:
    """The law of ``flow`` of ``scenario`` (its name, for messages): ``laws[flow.name]``, or
    one made from the flow's algorithm and parameters (shared, through ``made``, by the
    flows that have the same ones: one law object steps them all at once)."""
    if laws is not None and flow.name in laws:
        law = laws[flow.name]
        if not isinstance(law, ControlLaw):
            raise TypeError(f"laws[{flow.name!r}] must be a ControlLaw, got {type(law).__name__}")
        return law
    if flow.algorithm is None:
        raise no_algorithm(scenario, flow.name, "pass laws={flow name: law}")
    from ..algorithms.registry import get_law

    key = (str(flow.algorithm), repr(sorted(dict(flow.params).items())))
    if key not in made:
        made[key] = get_law(flow.algorithm, **dict(flow.params))
    return made[key]


class Decisions:
    """The laws of a run's flows and their decisions (private).

    Each flow has its own state (its law's ``init_state(1)``), sample and action: flows
    that share one law object are decided by it one at a time, each on its own arrays.
    ``ff``, ``fi``, ``gf``, ``gi`` are the compiled loop's flow and global arrays (shared,
    never reallocated); the initial action of every law is written into ``ff`` here.
    """

    def __init__(
        self,
        scenario: Scenario,
        laws: Sequence[ControlLaw],
        ff: FloatArray,
        fi: NDArray[np.int64],
        gf: FloatArray,
        gi: NDArray[np.int64],
    ) -> None:
        self.scenario = scenario
        self.laws = list(laws)
        self.ff, self.fi, self.gf, self.gi = ff, fi, gf, gi
        nf = len(scenario.flows)
        self.states: list[dict[str, FloatArray]] = [law.init_state(1) for law in self.laws]
        for f, (law, state) in enumerate(zip(self.laws, self.states, strict=True)):
            act = law.initial_action(state)
            w, incr, cap = _first(act.cwnd), _first(act.incr), _first(act.cap)
            if not (0.0 < w < math.inf and -math.inf < incr < math.inf and cap == cap):
                raise self._invalid(f, w, incr, cap)
            ff[f, C.F_CWND], ff[f, C.F_INCR], ff[f, C.F_CAP] = w, incr, cap
        ff[:, C.F_SSTH] = math.inf
        # each flow's sample as views into ``ff``, made once; and its action as views of
        # its row where the compiled loop reads it, for a law whose on_round writes into
        # ``out`` (ControlLaw.on_round)
        self.samples = [RoundSample(**_views(ff, f, _SAMPLE)) for f in range(nf)]
        for g in np.flatnonzero(ff[:nf, C.F_V_DELTA] > 0.0).tolist():
            # an ns-2 Vegas agent hands its law the Δ it measured (tcp-vegas.cc)
            self.samples[g].backlog = ff[g : g + 1, C.F_S_DELTA]
        self.actions = [RoundAction(**_views(ff, f, _ACTION)) for f in range(nf)]
        # rows of ``ff``, ``fi``, and ``gi``, ``pend`` as memoryviews: an item through one is
        # a Python float or int at half the cost of NumPy's indexing (never reallocated)
        self.rows = [_items(ff[f]) for f in range(nf)]
        self.int_rows = [_items(fi[f]) for f in range(nf)]
        self._gi = _items(gi)
        # whether each law object's on_round takes ``out``, looked up once per object
        unique = {id(law): law for law in self.laws}
        self._takes = {k: _takes_out(law.on_round) for k, law in unique.items()}
        #: per flow: the window handed to its law's on_loss, and the view of its row's new
        #: window, where a law that takes ``out`` writes it
        self.loss_cwnd = [np.zeros(1) for _ in range(nf)]
        self.loss_out = [ff[f : f + 1, C.F_NEWCWND] for f in range(nf)]
        #: per flow, its round decision's parts (:meth:`_bind`, :meth:`_one_round`)
        self._round: list[tuple[Any, ...]] = [()] * nf
        #: per flow: its rows, the window handed to on_loss and, by loss kind, the decision
        #: (:meth:`_loss_call`, made at the flow's first loss of that kind)
        self._loss_of: list[tuple[Any, ...]] = [()] * nf
        #: per flow: its state's arrays when it was bound (a law's own method may replace
        #: them: the flow is then bound again)
        self._bound_to: list[list[Any]] = [[] for _ in range(nf)]
        for f in range(nf):
            self._bind(f)
        #: per flow: (time, kind, window before, window after) of each loss handed to the law
        self.losses: list[list[tuple[float, ...]]] = [[] for _ in range(nf)]
        self.law_calls = 0
        self.law_time_s = 0.0
        #: the flows with a decision pending (written by the compiled loop)
        self.pend = np.zeros(max(nf, 1), dtype=np.int64)
        self._pend = _items(self.pend)

    def _invalid(self, f: int, w: Any, incr: Any, cap: Any) -> RuntimeError:
        """The error of flow ``f``'s law returning the action (``w``, ``incr``, ``cap``)."""
        return RuntimeError(
            f"control law {self.laws[f]!r} of flow {self.scenario.flows[f].name!r} returned "
            f"an invalid action (cwnd={w}, incr={incr}, cap={cap}) at t={self.gf[C.G_NOW]:g} s"
        )

    def _bind(self, f: int) -> None:
        """Make flow ``f``'s round and loss decisions on its state's arrays as they are:
        its rows of ``ff`` and ``fi``; the decision as a call without arguments; whether it
        is the law's compiled rule bound to the flow's arrays (ControlLaw._bind_round), which
        writes the action where the loop reads it; the action ``out`` on_round may return;
        the law's phase and ssthresh (``None``: none) state."""
        law, state, sample, action = self.laws[f], self.states[f], self.samples[f], self.actions[f]
        takes = self._takes[id(law)]
        bound = law._bind_round(state, sample, action)
        if bound is not None:
            call: Callable[[], Any] = bound
        elif takes:
            on_round: Any = law.on_round  # its signature has ``out`` (checked)
            call = partial(on_round, state, sample, out=action)
        else:
            call = partial(law.on_round, state, sample)
        ss = state.get("ssthresh")
        self._round[f] = (
            self.rows[f],
            self.int_rows[f],
            call,
            bound is not None,
            action if takes else None,
            _item_source(state["phase"]),
            None if ss is None else _item_source(ss),
        )
        self._loss_of[f] = (self.rows[f], self.int_rows[f], _items(self.loss_cwnd[f]), {})
        self._bound_to[f] = list(state.values())

    def _rebind_if_replaced(self, f: int) -> None:
        """After a call into a law's own (not compiled-rule) ``on_round`` or ``on_loss``:
        bind flow ``f`` again if the law put new arrays in its state."""
        state, was = self.states[f], self._bound_to[f]
        # the same arrays in the same order (``was`` keeps them alive: no id is reused)
        if len(state) != len(was) or any(map(is_not, state.values(), was)):
            self._bind(f)

    def _one_round(self, f: int) -> None:
        """The round decision of flow ``f``: its law's rule (or ``on_round``) on the flow's
        state and sample (views of its row of ``ff``, made once), the action written into
        its row (bound rule, ``out=``) or copied there."""
        row, irow, call, bound, out, phase, ssthresh = self._round[f]
        if bound:  # the action is written where the loop reads it
            call()
            w, incr, cap = row[_F_CWND], row[_F_INCR], row[_F_CAP]
        else:
            action = call()
            if action is out:
                w, incr, cap = row[_F_CWND], row[_F_INCR], row[_F_CAP]
            else:  # a new action (a law without ``out``, or one that did not use it)
                w, incr, cap = _first(action.cwnd), _first(action.incr), _first(action.cap)
            self._rebind_if_replaced(f)
            phase, ssthresh = self._round[f][5:]
        self.law_calls += 1
        # a positive finite window, a finite increment, a cap that is not NaN (comparisons
        # only: cheaper than math.isfinite on this path, taken at every round decision)
        if not (0.0 < w < math.inf and -math.inf < incr < math.inf and cap == cap):
            raise self._invalid(f, w, incr, cap)
        # the action, with the law's phase and ssthresh from its state (arrays of one
        # value), where the compiled loop reads them
        row[_F_CWND] = w
        row[_F_INCR] = incr
        row[_F_CAP] = cap
        row[_F_PHASE] = phase[0]
        row[_F_SSTH] = math.inf if ssthresh is None else ssthresh[0]
        irow[_I_PENDING] = _P_ROUND_READY

    def _loss_call(self, f: int, kind: int) -> tuple[Callable[[], Any], bool]:
        """Flow ``f``'s loss decision of ``kind`` as a call without arguments, and whether
        it writes the new window into the flow's row: the law's compiled loss rule bound
        to the flow's arrays (ControlLaw._bind_loss), else its ``on_loss`` on them (with
        ``out`` if it takes it)."""
        law, state = self.laws[f], self.states[f]
        cwnd, out = self.loss_cwnd[f], self.loss_out[f]
        bound = law._bind_loss(state, cwnd, out, kind)
        if bound is not None:
            return bound, True
        if _takes_out(law.on_loss):
            on_loss: Any = law.on_loss  # its signature has ``out`` (checked)
            return partial(on_loss, state, _FIRST, kind, cwnd, out=out), False
        return partial(law.on_loss, state, _FIRST, kind, cwnd), False

    def _loss(self, f: int) -> None:
        """Flow ``f``'s loss decision: the law's loss rule (or ``on_loss``) on arrays of
        one flow, its new window checked and written where the compiled loop reads it."""
        row, irow, w_in, calls = self._loss_of[f]
        kind = irow[_I_KIND]
        before = row[_F_CWND]
        w_in[0] = before
        entry = calls.get(kind)
        if entry is None:
            entry = calls[kind] = self._loss_call(f, kind)
        call, bound = entry
        new = call()
        w = row[_F_NEWCWND] if bound or new is self.loss_out[f] else _first(new)
        if not bound:
            self._rebind_if_replaced(f)
        self.law_calls += 1
        if not math.isfinite(w) or w <= 0.0:
            raise RuntimeError(
                f"control law {self.laws[f]!r} returned window {w} after a loss of kind {kind}"
            )
        if irow[_I_RECOVERY] == _REC_NS2_VEGAS and kind != _K_TIMEOUT:
            # ns-2's Vegas agent: the law has been told (its phase and ssthresh), the window
            # is the agent's
            w = ns2_vegas_cut(before, kind)
        row[_F_NEWCWND] = w
        self.losses[f].append((row[_F_LAST_T], float(kind), before, w))
        irow[_I_PENDING] = _P_LOSS_READY

    def decide(self) -> None:
        """Take the decisions the compiled loop left pending (rounds, then losses)."""
        gi = self._gi
        i0, n = gi[_G_PEND_I], gi[_G_NPEND]
        if n == i0:
            return
        t0 = _perf_counter()
        if n - i0 == 1:
            f = self._pend[i0]
            p = self.int_rows[f][_I_PENDING]
            if p == _P_ROUND:
                self._one_round(f)
            elif p == _P_LOSS:
                self._loss(f)
        else:
            pend, int_rows = self._pend, self.int_rows
            todo = [(f, int_rows[f][_I_PENDING]) for f in pend[i0:n]]
            for f, p in todo:
                if p == _P_ROUND:
                    self._one_round(f)
            for f, p in todo:
                if p == _P_LOSS:
                    self._loss(f)
        self.law_time_s += _perf_counter() - t0
