"""The control law's side of the round model: its first action, joins, loss reactions,
the guard against unbounded windows, and a round-clock class's law deciding its flows
alone (its compiled rule bound once to the class's views)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import ControlLaw, RoundAction, RoundSample, _runs_rule, loss_kind
from ..algorithms.mixed import MixedLaw
from ._rounds_kernel import rule
from ._rounds_physics import HoleTimeouts, OverflowInRuns, all_of, any_of

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]


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
    burst: NDArray[np.bool_] | None = None,
    own: bool = False,
    timer: NDArray[np.bool_] | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The loss reactions of the flows ``hit``: a timeout when a flow lost more than ``frac``
    of its window or ``timer`` (per flow) says so, else a fast retransmit (the ``LOSS_BURST*``
    kinds for the flows ``burst``); the reaction replaces the round's action (``own``: in place)."""
    flows = np.flatnonzero(hit)
    # every flow hit: no gathers, and the reaction's windows are the action (a law whose
    # loss reaction is its compiled rule gives a new array and only reads ``cwnd``)
    every = flows.size == hit.size and _runs_rule(type(law), "on_loss", "_loss_rule")
    w_hit = w1 if every else w1[flows]
    timeout = (lost if every else lost[flows]) > frac * w_hit
    timeout |= False if timer is None else (timer if every else timer[flows])
    b = burst[flows] if burst is not None else None
    groups = []
    for to, bu in itertools.product((True, False), (False,) if b is None else (False, True)):
        mask = timeout == to if b is None else (timeout == to) & (b == bu)
        if all_of(mask):  # (one kind: every flow hit)
            groups.append((loss_kind(to, bu), flows, w_hit))
            break
        idx = flows[mask]
        if idx.size:
            groups.append((loss_kind(to, bu), idx, w1[idx]))
    if every and len(groups) == 1:  # every flow's action replaced
        kind, idx, w = groups[0]
        new = np.asarray(law.on_loss(state, idx, kind, w), dtype=np.float64)
        return new, np.zeros(new.size), new.copy()
    if not own:
        cwnd0, incr, cap = cwnd0.copy(), incr.copy(), cap.copy()
    for kind, idx, w in groups:
        new = np.asarray(law.on_loss(state, idx, kind, w), dtype=np.float64)
        cwnd0[idx] = new
        incr[idx] = 0.0
        cap[idx] = new
    return cwnd0, incr, cap


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


class LawStart(NamedTuple):
    """The law's state and first action (``init_*``: copies given to a flow that joins)."""

    state: dict[str, FloatArray]
    fresh: dict[str, FloatArray]
    cwnd0: FloatArray
    incr: FloatArray
    cap: FloatArray
    init_cwnd: FloatArray
    init_incr: FloatArray
    init_cap: FloatArray


def start_law(law: ControlLaw, n: int, staggered: bool) -> LawStart:
    """Initialise ``law`` for ``n`` flows and check its first action (``fresh``: a copy of
    the initial state for flows that join later, when ``staggered``)."""
    state = law.init_state(n)
    if "phase" not in state:
        raise TypeError(f"{type(law).__name__}.init_state must return a 'phase' array")
    fresh = {k: v.copy() for k, v in state.items()} if staggered else {}
    cwnd0 = np.array(law.initial_action(state).cwnd, dtype=np.float64)
    # a flow's first round ends with the ACK of its first packet: no ACK of its own
    # returns before, so it sends its first window without growth whatever the first
    # action's increment (a packet sender's, docs/round-model.md "What a round is");
    # the law's first growth is the one it decides at the end of that round
    incr = np.zeros(cwnd0.shape)
    cap = cwnd0.copy()
    bad0 = ~(np.isfinite(cwnd0) & (cwnd0 > 0))
    if np.any(bad0):
        raise ValueError(
            f"{type(law).__name__}.initial_action gave a window <= 0 or not finite: "
            f"{cwnd0[bad0][0]!r}"
        )
    return LawStart(state, fresh, cwnd0, incr, cap, cwnd0.copy(), incr.copy(), cap.copy())


#: how a round's drop-tail overflow is shared among the flows (option ``drop_share``;
#: docs/round-model.md, "Finite buffer"): in proportion to the windows, whole packets one
#: per flow in turn (:class:`OverflowShare`), first on each flow's per-ACK growth
#: (:func:`~._rounds_physics.growth_shares`, :class:`WholeLosses`)
DROP_SHARES = ("proportional", "in-turn", "growth")
#: the round model's default ``drop_share``
DROP_SHARE = "proportional"


class OverflowShare:
    """``drop_share="in-turn"``: an overflow falls one whole packet per flow, in turn from the
    flow after the last one hit, a part of a packet carried (``at_least_one``: at least one
    whole packet per overflow); each of ``groups`` groups keeps its own turn and carry."""

    def __init__(self, groups: int, at_least_one: bool = True) -> None:
        self.at_least_one = at_least_one
        self.next = [0] * groups
        self.carry = [0.0] * groups

    def __call__(self, lost: FloatArray, w: FloatArray, group: int = 0) -> FloatArray:
        """The losses of one group's flows (``lost``: their proportional shares, ``w`` their
        windows): whole packets in turn, at most each flow's window."""
        now = float(np.sum(lost))
        total = self.carry[group] + now
        out = np.zeros(lost.size)
        el = np.flatnonzero(w >= 1.0)
        whole = math.floor(total + 1e-9)
        if now > 1e-9 and self.at_least_one:
            # a queue that overflows drops at least the packet that did not fit
            whole = max(whole, 1)
        if whole <= 0 or el.size == 0:
            self.carry[group] = total
            return out
        self.carry[group] = max(total - whole, 0.0)
        m = el.size
        each, extra = divmod(whole, m)
        out[el] = float(each)
        start = int(np.searchsorted(el, self.next[group])) % m
        turn = el[(start + np.arange(extra)) % m]
        out[turn] += 1.0
        self.next[group] = int(el[(start + extra) % m])
        return np.minimum(out, w)


class BurstLosses:
    """``drop_share="proportional"`` with ``burst_whole_losses``: an overflow that only the
    round's growth burst makes (the standing backlog at the round's end below the buffer,
    so the queue drains after the train) loses its whole packets, at least one, from as
    many flows, those owed the most of their proportional shares (carried from overflow to
    overflow; ties to the later flows, the last arrivals); a standing queue's overflow
    reaches every flow with a share, as the packets' does until the flows react
    (docs/round-model.md, "Finite buffer"). Each of ``groups`` groups of ``n`` flows keeps
    its own shares owed."""

    def __init__(self, groups: int, n: int) -> None:
        self.owed = np.zeros((groups, n))
        self.later = -np.arange(n)  # (the sort key that puts the later flows first)

    def __call__(
        self, lost: FloatArray, w: FloatArray, group: int = 0, standing: bool = False
    ) -> FloatArray:
        """The losses of one group's flows (``lost``: their proportional shares, ``w`` their
        windows; ``standing``: the standing backlog fills the buffer)."""
        return self.deal(lost[None, :], np.array([group]), np.array([standing]))[0]

    def deal(self, lost: FloatArray, groups: Any, standing: Any) -> FloatArray:
        """:meth:`__call__` for the groups ``groups`` at once (``lost``: one row of shares
        per group; ``standing``: one flag per group)."""
        owed = self.owed[groups]
        on = lost > 1e-9
        total = lost.sum(axis=1)
        whole = np.maximum(np.ceil(total - 1e-9), 1.0)
        keep = standing | (on.sum(axis=1) <= whole)
        out = lost.copy()
        owed[keep] = np.where(on[keep], 0.0, owed[keep])
        burst = ~keep
        if burst.any():
            ob, lb, onb = owed[burst] + lost[burst], lost[burst], on[burst]
            # each row's flows by the share owed (the most first), ties to the later flows;
            # the flows without a share last
            later = np.broadcast_to(self.later, ob.shape)
            order = np.lexsort((later, np.where(onb, -ob, np.inf)), axis=-1)
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.arange(ob.shape[1])[None, :], axis=-1)
            hit = rank < whole[burst][:, None]
            ob -= hit
            part = np.where(hit, lb, 0.0).sum(axis=1)
            out[burst] = np.where(hit, lb * (total[burst] / part)[:, None], 0.0)
            owed[burst] = ob
        self.owed[groups] = owed
        return out


class WholeLosses:
    """``drop_share="growth"``'s loss events: once a flow's charged losses reach a whole
    packet, or it is alone in flight at an overflow (a part of a packet carried)."""

    def __init__(self, n: int) -> None:
        self.owed = np.zeros(n)

    def __call__(
        self, lost: FloatArray, active: NDArray[np.bool_], alone: NDArray[np.bool_]
    ) -> FloatArray:
        """The losses that start a loss event of the ``active`` flows (``alone``: alone)."""
        self.owed += np.where(active, lost, 0.0)
        ready = active & ((self.owed >= 1.0 - 1e-9) | (alone & (self.owed > 1e-9)))
        out = np.where(ready, self.owed, 0.0)
        self.owed[ready] = 0.0
        return out


#: the round model's default ``recovery_rounds``: rounds after a loss reaction whose
#: losses belong to the same loss episode (no new loss event; docs/round-model.md, "Finite
#: buffer")
RECOVERY_ROUNDS = 1
#: which flows a round's losses start a loss event in (option ``loss_event_rule``;
#: docs/round-model.md, "Mechanism switches"): :func:`loss_events`, :class:`WindowsInTurn`
LOSS_EVENT_RULES = ("share", "windows-in-turn")


def loss_events(lost: FloatArray, w1: FloatArray, active: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``loss_event_rule="share"``: every active flow with a share of the round's losses."""
    return (lost > 1e-9) & active


class WindowsInTurn:
    """``loss_event_rule="windows-in-turn"``: the round's lost packets fall on whole windows
    of one active flow after another, from the flow after the last one hit."""

    def __init__(self) -> None:
        self.turn = 0

    def __call__(
        self, lost: FloatArray, w1: FloatArray, active: NDArray[np.bool_]
    ) -> NDArray[np.bool_]:
        """The flows hit: while a whole lost packet is left, the next active flow's window."""
        hit = np.zeros(w1.size, dtype=bool)
        left = float(np.sum(lost))
        i = self.turn % w1.size
        for _ in range(w1.size):
            if left < 1.0:
                break
            if active[i] and w1[i] >= 1.0:
                hit[i] = True
                left -= float(w1[i])
            i = (i + 1) % w1.size
        self.turn = i
        return hit


class LateDetection:
    """``late_detection=True``: a flow reacts to a round's losses at the end of its next round
    (per-flow carry in :attr:`unseen`; a class decides on :meth:`view` of it)."""

    def __init__(self, unseen: FloatArray) -> None:
        self.unseen = unseen

    def view(self, ix: slice) -> LateDetection:
        """The carry of the flows ``ix`` (a view: written in place)."""
        return LateDetection(self.unseen[ix])

    def __call__(
        self, lost: FloatArray | None, active: NDArray[np.bool_], recovering: Any
    ) -> FloatArray | None:
        """The losses the ``active`` flows react to now (``None``: none): the carried ones with
        this round's; their fresh ones are carried (not for a flow still ``recovering``)."""
        now = np.zeros(self.unseen.size) if lost is None else np.asarray(lost, dtype=np.float64)
        due = active & (self.unseen > 0.0)
        fresh = active & ~due & (now > 1e-9)
        if recovering is not None:
            fresh &= recovering <= 0
        react = np.where(due, self.unseen + now, 0.0)
        self.unseen[:] = np.where(active, np.where(fresh, now, 0.0), self.unseen)
        return react if np.any(react > 0.0) else None


class FirstLoss:
    """``first_loss_timeout`` / ``joiner_first_loss_pkts``: each flow's first loss event
    (``fresh``, in place) is a timeout when ``timeout``, and leaves the window, next cap and
    ``ssthresh`` at most ``cap`` (per flow, ``inf``: none)."""

    def __init__(self, fresh: NDArray[np.bool_], timeout: bool, cap: FloatArray) -> None:
        self.fresh, self.timeout, self.cap = fresh, timeout, cap

    def view(self, ix: slice) -> FirstLoss:
        """The switch for the flows ``ix`` (views: written in place)."""
        return FirstLoss(self.fresh[ix], self.timeout, self.cap[ix])

    def react(
        self, react: Callable[..., tuple[FloatArray, FloatArray, FloatArray]],
        state: dict[str, FloatArray], hit: NDArray[np.bool_], lost: FloatArray,
        w1: FloatArray, *rest: Any,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:  # fmt: skip
        """``react(state, hit, lost, w1, *rest)`` with the first loss events of ``hit`` switched."""
        first = hit & self.fresh
        self.fresh[first] = False
        if self.timeout and any_of(first):
            lost = lost.copy()
            lost[first] = w1[first]
        cwnd0, incr, cap = react(state, hit, lost, w1, *rest)
        low = first & np.isfinite(self.cap)
        if any_of(low):
            cwnd0[low] = cap[low] = np.minimum(cwnd0[low], self.cap[low])
            if "ssthresh" in state:
                state["ssthresh"][low] = np.minimum(state["ssthresh"][low], self.cap[low])
        return cwnd0, incr, cap


@dataclass(frozen=True)
class Switches:
    """The round engine's mechanism switches (:func:`switches`; docs/round-model.md,
    "Mechanism switches"): a loss episode's rounds, queue memory, the loss-event rule,
    :class:`LateDetection`, :class:`FirstLoss`, ``pin`` (per flow: the BaseRTT it is given,
    NaN: its own; or ``None``; :func:`class_sample`) and the round's losses."""

    recovery_rounds: int
    queue_memory: bool
    events: Callable[..., NDArray[np.bool_]]
    late: LateDetection | None
    first: FirstLoss | None
    pin: FloatArray | None
    round_losses: Callable[..., Any]
    holes: HoleTimeouts | None


def switches(
    S: int, start_f: FloatArray, losses: Callable[..., Any], law: ControlLaw, opts: dict[str, Any]
) -> Switches:
    """The :class:`Switches` set by the checked options ``opts`` of
    :func:`~.rounds.simulate_rounds` for S scenarios of the flows starting at ``start_f`` (the
    joiners: ``start_f > 0``) of ``law``; the round losses ``losses``, or
    :class:`~._rounds_physics.OverflowInRuns`."""
    n = S * start_f.size
    if opts["overflow_in_runs"] and S > 1:
        raise ValueError(
            f"overflow_in_runs=True takes one scenario, got a batch of {S}; run them one at a time"
        )
    joiner = np.tile(start_f, S) > 0.0
    first = None
    timeout, cap_pkts, pin = (
        opts[k] for k in ("first_loss_timeout", "joiner_first_loss_pkts", "joiner_base_rtt_s")
    )
    if timeout or math.isfinite(cap_pkts):
        first = FirstLoss(np.ones(n, dtype=bool), timeout, np.where(joiner, cap_pkts, np.inf))
    return Switches(
        opts["recovery_rounds"],
        opts["queue_memory"],
        loss_events if opts["loss_event_rule"] == "share" else WindowsInTurn(),
        LateDetection(np.zeros(n)) if opts["late_detection"] else None,
        first,
        None if pin is None else np.where(joiner, pin, np.nan),
        OverflowInRuns(n) if opts["overflow_in_runs"] else losses,
        HoleTimeouts.of(law, n, opts["hole_timeouts"] == "red") if opts["hole_timeouts"] else None,
    )


def _pin_joiners(eng: RoundEngine, c: int, sample: RoundSample) -> RoundSample:
    """``joiner_base_rtt_s``: class ``c``'s flows joining after the run's start take that
    BaseRTT (the engine's and the sample's) every round once they have measured one."""
    assert eng.sw.pin is not None
    ix = np.arange(eng.n)[eng.sel[c]]
    pin = np.isfinite(eng.sw.pin[ix]) & np.isfinite(eng.base_rtt[ix])
    eng.base_rtt[ix[pin]] = sample.base_rtt[pin] = eng.sw.pin[ix[pin]]
    return sample


def decide(
    law: ControlLaw,
    state: dict[str, FloatArray],
    sample: RoundSample,
    lost: FloatArray | None,
    active: NDArray[np.bool_],
    w1: FloatArray,
    frac: float,
    counts: Any,
    losses: NDArray[np.int64],
    burst: NDArray[np.bool_] | None = None,
    recovering: NDArray[np.int64] | None = None,
    rule: Callable[[], RoundAction] | None = None,
    events: Callable[..., NDArray[np.bool_]] = loss_events,
    recovery_rounds: int = RECOVERY_ROUNDS,
    late: LateDetection | None = None,
    first: FirstLoss | None = None,
    holes: HoleTimeouts | None = None,
    red: FloatArray | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The law's decision at the end of the round (window, per-ACK increment, cap), replaced
    by the loss reaction for the flows that lost packets; their loss events counted in
    ``losses`` where ``counts``. ``recovering`` (in place): the rounds left of each flow's
    loss episode, in which losses start no new event; ``rule``: the law's bound decision,
    called instead of ``law.on_round``; ``events``, ``late``, ``first``, ``holes``: switches;
    ``red``: RED's early drops among ``lost`` (``None``: none)."""
    if late is not None:
        lost = late(lost, active, recovering)
    action: RoundAction = law.on_round(state, sample) if rule is None else rule()
    cwnd0 = np.asarray(action.cwnd, dtype=np.float64)
    incr = np.asarray(action.incr, dtype=np.float64)
    cap = np.asarray(action.cap, dtype=np.float64)
    hit = None if lost is None else events(lost, w1, active)
    if recovering is not None:
        if hit is not None:
            hit &= recovering <= 0  # still in the episode of the last cut
        if hit is not None or any_of(recovering):  # (a count is never negative)
            np.subtract(recovering, 1, out=recovering, where=active & (recovering > 0))
        if hit is not None:
            recovering[hit] = recovery_rounds
    if hit is not None and any_of(hit):
        assert lost is not None
        timer = None if holes is None else holes(lost, w1, sample, red)
        rest = (frac, cwnd0, incr, cap, burst, rule is not None, timer)
        if first is None:
            cwnd0, incr, cap = _react_to_losses(law, state, hit, lost, w1, *rest)
        else:
            cwnd0, incr, cap = first.react(
                partial(_react_to_losses, law), state, hit, lost, w1, *rest
            )
        # a scenario whose clock has passed duration_s keeps stepping while others
        # of the batch finish; its losses after the end do not count
        losses += hit & counts
    return cwnd0, incr, cap


def class_laws(law: ControlLaw, sel: list[Any]) -> list[tuple[ControlLaw, dict[str, str]]] | None:
    """Per round-clock class (``sel``: a slice or indices): the law that decides its flows
    alone and its state keys (own name -> the engine's), or ``None`` unless every class has
    one (consecutive flows of one law with one value of every parameter)."""
    out = []
    for ix in sel:
        if not isinstance(ix, slice) or ix.start is None:
            return None
        m = ix.stop - ix.start
        own, keys = law, None
        if isinstance(law, MixedLaw):
            which = law.which[ix]
            if (which != which[0]).any():
                return None
            i = int(which[0])
            own = law.laws[i]
            keys = {k: f"{i}:{k}" for k in own.init_state(law.groups[i].size)}
        if not _uniform(own, m):
            return None
        if keys is None:
            keys = {k: k for k in own.init_state(m)}
        out.append((own, keys))
    return out


def _uniform(law: ControlLaw, m: int) -> bool:
    """Whether ``law`` can decide ``m`` of its flows alone (no per-flow parameter)."""
    if isinstance(law, MixedLaw) or any(
        isinstance(v, list | tuple | np.ndarray) for v in law.params().values()
    ):
        return False
    try:
        law.init_state(m)
    except (ValueError, TypeError):
        return False
    return True


#: a class's views of the law's state and of the engine's active flows, loss counts and
#: loss episodes, its law's bound decision (or ``None``) and the windows that decision writes
ClassLaw = tuple[dict[str, FloatArray], Any, Any, Any, Any, FloatArray]


def _then(bound: Callable[[], None], action: RoundAction) -> Callable[[], RoundAction]:
    """A law's bound decision as a call returning the action it writes."""

    def rule() -> RoundAction:
        bound()
        return action

    return rule


def class_sample(
    eng: RoundEngine, c: int, w1: FloatArray, acks: FloatArray, delta: FloatArray,
    rtts: FloatArray, seen_min: FloatArray,
) -> RoundSample:  # fmt: skip
    """What class ``c``'s law measures over its round (the compiled sample rule on the RTTs
    ``rtts`` and ``seen_min``, the windows ``w1``, ``acks``; Δ into ``delta`` unless empty),
    in arrays made on first use."""
    made = eng.samples[c]
    ix = eng.sel[c]
    if made is None:
        arrays = np.empty((8, eng.size[c] * eng.S))
        rows = list(arrays)
        own_mins = eng.staggered or not isinstance(ix, slice)
        own_rtts = eng.size[c] > 1
        if not own_mins:
            rows[1], rows[7] = eng.base_rtt[ix], eng.fwd_base[ix]
        if not own_rtts:
            R = eng.kernels[c].rtts
            rows[2], rows[3], rows[4], rows[6] = R[1], R[0], R[2], R[4]
        own = (arrays, own_mins, own_rtts)
        bound = None
        if isinstance(ix, slice):  # (the class's views of the engine's arrays, bound once)
            views = (eng.base_rtt[ix], eng.fwd_base[ix], eng.active[ix], eng.cwnd0[ix])
            bound = partial(rule("sample"), *views, *own)
        made = eng.samples[c] = (own, RoundSample(*rows), bound)
    own, sample, bound = made
    if bound is not None:
        bound(rtts, seen_min, eng.off, w1, acks, delta)
        return sample if eng.sw.pin is None else _pin_joiners(eng, c, sample)
    base, fwd = eng.base_rtt[ix], eng.fwd_base[ix]
    rule("sample")(
        base, fwd, eng.active[ix], eng.cwnd0[ix], *own, rtts, seen_min, eng.off, w1, acks, delta
    )
    eng.base_rtt[ix], eng.fwd_base[ix] = base, fwd
    return sample if eng.sw.pin is None else _pin_joiners(eng, c, sample)


def class_law(eng: RoundEngine, c: int) -> ClassLaw:
    """Class ``c``'s views of the law's state and the engine's per-flow arrays and its law's
    compiled decision bound to them (``None``: ``on_round`` is called); made on first use."""
    made = eng.class_law[c]
    if made is None:
        ix = eng.sel[c]
        law, keys = eng.alone[c]  # type: ignore[index]
        state = eng.ls.state
        view = {k: state[full][ix] for k, full in keys.items()}
        samples = eng.samples[c]
        assert samples is not None
        # (the rule writes its action into the engine's windows, increments and caps)
        action = RoundAction(eng.cwnd0[ix], eng.incr[ix], eng.cap[ix])
        bound = law._bind_round(dict(view), samples[1], action)
        rule = None if bound is None else _then(bound, action)
        made = (view, eng.active[ix], eng.losses[ix], eng.recovering[ix], rule, action.cwnd)
        eng.class_law[c] = made
    return made


def decide_alone(
    eng: RoundEngine, c: int, sample: RoundSample, lost: FloatArray | None, counting: Any,
    burst: NDArray[np.bool_] | None,
) -> None:  # fmt: skip
    """The law's decision for class ``c``'s flows, on views of their state (with several
    classes: the whole law's decision on every flow, the others' discarded)."""
    ix = eng.sel[c]
    law, keys = eng.alone[c]  # type: ignore[index]
    state = eng.ls.state
    view, active, losses, recovering, rule, written = class_law(eng, c)
    sw = eng.sw
    # (a bound rule without a loss reads and writes its views only)
    sub = dict(view) if lost is not None or rule is None else view
    cwnd0, incr, cap = decide(
        law, sub, sample, None if lost is None else lost[ix], active, sample.cwnd,
        eng.run.frac, counting, losses, None if burst is None else burst[ix], recovering, rule,
        sw.events, sw.recovery_rounds, None if sw.late is None else sw.late.view(ix),
        None if sw.first is None else sw.first.view(ix), sw.holes and sw.holes.view(ix),
        None if eng.red_lost is None else eng.red_lost[ix],
    )  # fmt: skip
    # (the bound rule writes the views in place: only a loss reaction or a law's
    # ``on_round`` may replace an array or add a key)
    for k, arr in sub.items() if sub is not view else ():
        if arr is not view.get(k):  # the law replaced the array, or added a key
            if k not in keys:  # (full length, like every other)
                keys[k] = f"{keys['phase'][:-5]}{k}"
                state.setdefault(keys[k], np.zeros(eng.n, dtype=np.asarray(arr).dtype))
                view[k] = state[keys[k]][ix]
            state[keys[k]][ix] = arr
    if keys["phase"] != "phase":  # (a law of a MixedLaw: the shared phase too)
        state["phase"][ix] = sub["phase"]
    if cwnd0 is not written:  # (the loss reactions', or the law's own action)
        eng.cwnd0[ix], eng.incr[ix], eng.cap[ix] = cwnd0, incr, cap
