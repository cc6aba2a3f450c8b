"""A round-clock class whose law decides its flows alone (several classes): the law's
compiled rule bound once to the class's views of the law's state and to the class's
sample, arrays the round engine writes in place at every round of the class
(:class:`~tcpfluid.fluid._rounds_engine.RoundEngine`, its ``alone`` laws)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms.base import RoundAction, RoundSample
from ._rounds_kernel import RTTS, class_sample_rule
from ._rounds_law import decide

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]
#: a class's views of the law's state and of the engine's per-flow arrays, its sample,
#: its law's bound decision (or ``None``) and the windows that decision writes
ClassLaw = tuple[tuple[Any, ...], RoundSample, Any, FloatArray]


def _then(bound: Callable[[], None], action: RoundAction) -> Callable[[], RoundAction]:
    """A law's bound decision (``ControlLaw._bind_round``) as a call returning the action
    it writes."""

    def rule() -> RoundAction:
        bound()
        return action

    return rule


def class_law(eng: RoundEngine, c: int) -> ClassLaw:
    """Class ``c``'s views of the law's state and of the engine's per-flow arrays, its
    sample (arrays written by every round, :func:`class_sample`) and its law's decision
    on them: the law's compiled rule bound to them once (``ControlLaw._bind_round``),
    writing into the engine's windows, increments and caps of the class (the last item:
    that view of the windows), or ``None`` when the law decides otherwise (its
    ``on_round`` is called). Made on first use."""
    made = eng.class_law[c]
    if made is None:
        ix, m = eng.sel[c], eng.size[c]
        law, keys = eng.alone[c]  # type: ignore[index]
        state = eng.ls.state
        views = (
            {k: state[full][ix] for k, full in keys.items()},
            eng.active[ix], eng.losses[ix], eng.recovering[ix],
        )  # fmt: skip
        eng.sample_arrays[c] = arrays = np.empty((8, m))
        sample = RoundSample(*arrays)
        # (the rule writes its action into the engine's windows, increments and caps)
        action = RoundAction(eng.cwnd0[ix], eng.incr[ix], eng.cap[ix])
        bound = law._bind_round(dict(views[0]), sample, action)
        rule = None if bound is None else _then(bound, action)
        made = eng.class_law[c] = (views, sample, rule, action.cwnd)
    return made


def class_sample(
    eng: RoundEngine, c: int, w1: FloatArray, acks: FloatArray, delta: FloatArray | None
) -> tuple[RoundSample, FloatArray, FloatArray]:
    """The round engine's sample of class ``c``: the class's round, each value
    broadcast over its flows, written into the class's sample (:func:`class_law`); also
    the base RTT and mean RTT its flows read, and Δ of the windows ``w1`` into ``delta``
    when given."""
    sample = class_law(eng, c)[1]
    out = eng.sample_arrays[c]
    bound = eng.sample_rule[c]
    if bound is None:  # (the class's views of the engine's arrays, bound once)
        ix = eng.sel[c]
        bound = eng.sample_rule[c] = partial(
            class_sample_rule(), eng.base_rtt[ix], eng.fwd_base[ix], eng.active[ix],
            eng.cwnd0[ix], eng.kernels[c].R[RTTS : RTTS + 5], out,
        )  # fmt: skip
    bound(eng.off, w1, acks, eng.no_delta if delta is None else delta)
    return sample, sample.base_rtt, sample.rtt_mean


def decide_alone(
    eng: RoundEngine, c: int, sample: RoundSample, lost: FloatArray | None, counting: bool
) -> None:
    """The round engine's decision for class ``c``'s flows alone (``sample``: theirs):
    its law decides on views of their state. A law decides each flow from that flow's
    own state and sample, with the same parameters for every flow, so this is the
    decision of the whole law on every flow with the others' discarded."""
    ix = eng.sel[c]
    law, keys = eng.alone[c]  # type: ignore[index]
    state = eng.ls.state
    views, _, rule, written = class_law(eng, c)
    view, active, losses, recovering = views
    # (a bound rule without a loss reads and writes its views only)
    sub = dict(view) if lost is not None or rule is None else view
    cwnd0, incr, cap = decide(
        law, sub, sample, None if lost is None else lost[ix], active, sample.cwnd,
        eng.run.frac, counting, losses, None, recovering, rule,
    )  # fmt: skip
    # (the bound rule writes the views in place: only a loss reaction or a law's
    # ``on_round`` may replace an array or add a key)
    for k, arr in sub.items() if lost is not None or rule is None else ():
        if arr is not view.get(k):  # the law replaced the array, or added a key
            if k not in keys:  # (full length, like every other)
                keys[k] = f"{keys['phase'][:-5]}{k}"
                state.setdefault(keys[k], np.zeros(eng.n, dtype=np.asarray(arr).dtype))
            state[keys[k]][ix] = arr
    if keys["phase"] != "phase":  # (a law of a MixedLaw: the shared phase too)
        state["phase"][ix] = sub["phase"]
    if cwnd0 is not written:  # (the loss reactions', or the law's own action)
        eng.cwnd0[ix], eng.incr[ix], eng.cap[ix] = cwnd0, incr, cap
