"""The per-flow decision wrapper of the packet simulator and laws that replace state arrays.

A law may update its state arrays in place or put new arrays in the state dict. The flows
of one law object are decided one at a time, each on its own state: an array the law
replaces must reach that flow's next decision, and no other flow's. The reference is the
same law with one object per flow.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _simkit import assert_same_run, joining_groups

from tcpfluid.algorithms.base import RoundAction, RoundSample, State
from tcpfluid.algorithms.reno import Reno
from tcpfluid.algorithms.vegas import Vegas
from tcpfluid.sim import simulate_packets


def _replacing(base: type) -> type:
    """``base`` deciding on new copies of its state arrays (put in the state dict), with a
    round count in its state that takes one packet off every fifth round's window: a run
    depends on every state update reaching the next decision."""

    class Replacing(base):
        def init_state(self, n: int) -> State:
            state = super().init_state(n)
            state["rounds"] = np.zeros(n)
            return state

        def on_round(self, state: State, sample: RoundSample) -> RoundAction:
            for key in list(state):
                state[key] = state[key].copy()
            action = super().on_round(state, sample)
            rounds = state["rounds"]
            rounds += 1.0
            cwnd = np.maximum(action.cwnd - (rounds % 5.0 == 0.0), 2.0)
            return RoundAction(cwnd=cwnd, incr=action.incr, cap=action.cap)

        def on_loss(self, state: State, index: Any, kind: int, cwnd: Any) -> Any:
            for key in list(state):
                state[key] = state[key].copy()
            return super().on_loss(state, index, kind, cwnd)

    return Replacing


@pytest.mark.parametrize(("algorithm", "base"), [("vegas", Vegas), ("reno", Reno)])
def test_a_law_that_replaces_its_state_arrays_decides_shared_as_alone(
    algorithm: str, base: type
) -> None:
    sc = joining_groups(algorithm)
    law = _replacing(base)
    alone = simulate_packets(sc, laws={f.name: law() for f in sc.flows})
    shared_law = law()  # one object for every flow, each with its own state
    shared = simulate_packets(sc, laws={f.name: shared_law for f in sc.flows})
    assert_same_run(alone, shared)
    assert sum(f.loss_t_s.size for f in alone.flows) > 0  # on_loss replaced arrays too


class _IgnoresOut(Vegas):
    """Takes ``out`` but returns a new action (the simulator must not read stale rows)."""

    def on_round(
        self, state: State, sample: RoundSample, out: RoundAction | None = None
    ) -> RoundAction:
        return super().on_round(state, sample)


def test_a_law_that_takes_out_but_returns_a_new_action_is_read_from_it() -> None:
    sc = joining_groups("vegas")
    plain = simulate_packets(sc)
    ignoring = simulate_packets(sc, laws={f.name: _IgnoresOut() for f in sc.flows})
    assert_same_run(plain, ignoring)


class _CopiesState(Vegas):
    """Vegas deciding on new copies of its state arrays, put in the state dict before each
    decision (same decisions as Vegas: only where the arrays live changes)."""

    def on_round(
        self, state: State, sample: RoundSample, out: RoundAction | None = None
    ) -> RoundAction:
        for key in list(state):
            state[key] = state[key].copy()
        return super().on_round(state, sample, out)


class _CopiesStateOnLoss(Reno):
    """Reno whose loss reaction puts new copies of its state arrays in the state dict; its
    round decision is Reno's compiled rule, which must then read the new arrays."""

    def on_loss(self, state: State, index: Any, kind: int, cwnd: Any, out: Any = None) -> Any:
        for key in list(state):
            state[key] = state[key].copy()
        return super().on_loss(state, index, kind, cwnd, out)


@pytest.mark.parametrize(
    ("algorithm", "law"), [("vegas", _CopiesState), ("reno", _CopiesStateOnLoss)]
)
def test_a_law_that_puts_new_state_arrays_decides_as_the_law_in_place(
    algorithm: str, law: type
) -> None:
    # the phase and ssthresh in the round records, and the next decisions, come from the
    # arrays the state holds now, not from those it held when the run started
    sc = joining_groups(algorithm)
    plain = simulate_packets(sc)
    copying = simulate_packets(sc, laws={f.name: law() for f in sc.flows})
    assert_same_run(plain, copying)
    phases = np.concatenate([f.round_phase for f in plain.flows])
    assert (phases == 0.0).any() and (phases == 1.0).any()  # the phase did change
    if algorithm == "reno":
        assert sum(f.loss_t_s.size for f in plain.flows) > 0


def test_a_decision_method_replaced_on_the_class_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    # a law's compiled rule is bound only while the class's on_round/on_loss is the one its
    # class statement defined: one replaced afterwards (a wrapper, a fault injected to test
    # the report) is what every engine calls
    from tcpfluid.algorithms.tcp_ho import TcpHo

    calls = {"on_round": 0, "on_loss": 0}
    for name in calls:
        orig = getattr(Reno if name == "on_loss" else TcpHo, name)

        def counted(self: Any, *args: Any, _orig: Any = orig, _name: str = name, **kw: Any) -> Any:
            calls[_name] += 1
            return _orig(self, *args, **kw)

        monkeypatch.setattr(Reno if name == "on_loss" else TcpHo, name, counted)
    ho = simulate_packets(joining_groups("tcp-ho"))
    reno = simulate_packets(joining_groups("reno"))
    assert calls["on_round"] == ho.law_calls - sum(f.loss_t_s.size for f in ho.flows) > 0
    assert calls["on_loss"] == sum(f.loss_t_s.size for f in reno.flows) > 0


def test_whether_a_law_takes_out_is_looked_up_once_per_law_object(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Flows sharing a law object share the lookup of its on_round's signature (one per
    object, not per flow), and decide as flows with a law object each."""
    from tcpfluid.sim import _decisions

    looked: list[str] = []
    real = _decisions._takes_out

    def counted(method: Any) -> bool:
        looked.append(method.__name__)
        return real(method)

    sc = joining_groups("vegas")
    alone = simulate_packets(sc, laws={f.name: Vegas() for f in sc.flows})
    monkeypatch.setattr(_decisions, "_takes_out", counted)
    two = [Vegas(), Vegas()]
    shared = simulate_packets(sc, laws={f.name: two[i % 2] for i, f in enumerate(sc.flows)})
    assert looked.count("on_round") == 2 and len(sc.flows) == 12
    assert_same_run(alone, shared)
