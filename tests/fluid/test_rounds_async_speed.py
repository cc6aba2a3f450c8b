"""The asynchronous round model's fast paths change no result.

Two paths save most of a round's time in the report's runs of flows with different base
RTTs: a class of one flow (the thesis's two-flow runs) steps its rounds on Python floats
(``_AsyncLoop._round_one``), and a class of several consecutive flows (the many-flows
section's RTT classes of 20) decides on views of its flows' state with a sample of its
flows only, its queue and RTTs on floats (``_AsyncLoop._round_class``). The reference for
each is the same run through the arrays
(``_rounds_async.FLOAT_ROUNDS = False``, ``_rounds_async.CLASS_VIEWS = False``); every
field of the result must be the same bit for bit.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from _hashkit import assert_same

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import _rounds_async
from tcpfluid.fluid._rounds_async import simulate_rounds_async
from tcpfluid.fluid.rounds import simulate_scenario_rounds
from tcpfluid.path import Path
from tcpfluid.scenarios import build_scenario


def _counting(monkeypatch: pytest.MonkeyPatch, name: str) -> dict[str, int]:
    """Count the calls of ``_AsyncLoop.<name>``."""
    calls = {"n": 0}
    method = getattr(_rounds_async._AsyncLoop, name)

    def counted(self: Any, *args: Any) -> Any:
        calls["n"] += 1
        return method(self, *args)

    monkeypatch.setattr(_rounds_async._AsyncLoop, name, counted)
    return calls


@pytest.mark.parametrize(
    ("law", "params", "overrides", "options"),
    [
        # RED on two one-flow classes (the thesis's runs: Enhanced Vegas, Vegas 1/3)
        ("enhanced-vegas", {"delta": 1.0}, {"queue": "red", "x2": "10ms"}, {}),
        ("vegas", {"alpha": 1.0, "beta": 3.0}, {"queue": "red", "x2": "110ms"}, {}),
        ("tcp-ho", {}, {"queue": "red", "x2": "30ms"}, {}),
        # RED's whole dropped packets: loss events through the arrays
        ("reno", {}, {"queue": "red", "x2": "30ms"}, {}),
        # a law without a decision on floats: every decision through the arrays
        ("itcp-vegas", {}, {"queue": "red", "x2": "30ms"}, {}),
        # drop-tail overflows shared between the classes, loss episodes
        ("reno", {}, {"x2": "30ms"}, {}),
        ("fast", {}, {"x2": "30ms"}, {}),
        ("quick-vegas", {}, {"x2": "30ms"}, {}),
        ("reno", {}, {"x2": "30ms"}, {"drop_share": "in-turn"}),
        # the other RTT models and no feedback lag
        ("vegas", {}, {"queue": "red", "x2": "50ms"}, {"rtt_model": "fluid"}),
        ("vegas", {}, {"queue": "red", "x2": "50ms"}, {"rtt_model": "last"}),
        ("fast", {}, {"x2": "30ms"}, {"feedback_rounds": 0, "record_every": 3}),
        # an infinite buffer (no overflow)
        ("vegas", {}, {"x2": "30ms", "buffer": "inf"}, {}),
    ],
    ids=[
        "evegas-red", "vegas13-red", "tcp-ho-red", "reno-red", "itcp-red", "reno", "fast",
        "quick-vegas", "reno-in-turn", "vegas-fluid", "vegas-last", "fast-lag0", "vegas-inf",
    ],
)  # fmt: skip
def test_one_flow_classes_on_floats_change_no_result(
    law: str,
    params: dict[str, Any],
    overrides: dict[str, Any],
    options: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sc = build_scenario("thesis-two-flow", duration="30s", **overrides).with_algorithm(
        law, **params
    )
    calls = _counting(monkeypatch, "_round_one")
    fast = simulate_scenario_rounds(sc, **options)
    assert calls["n"] > 100  # the float path was taken
    monkeypatch.setattr(_rounds_async, "FLOAT_ROUNDS", False)
    calls["n"] = 0
    reference = simulate_scenario_rounds(sc, **options)
    assert calls["n"] == 0
    if law in ("reno", "fast"):
        assert float(np.asarray(fast.losses).sum()) > 0  # the losses' path was taken too
    assert_same(fast, reference)


@pytest.mark.parametrize("law", ["reno", "fast", "quick-vegas"])
def test_classes_of_many_flows_decide_on_views_without_changing_a_result(
    law: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # three RTT classes of 20 flows (the many-flows section's qv-different-rtt)
    sc = build_scenario("qv-different-rtt", duration="40s").with_algorithm(law)
    calls = _counting(monkeypatch, "_decide_one")
    on_floats = _counting(monkeypatch, "_round_class")
    fast = simulate_scenario_rounds(sc)
    assert calls["n"] > 100 and on_floats["n"] == calls["n"]
    # the views with the class's queue on arrays, then the whole arrays
    monkeypatch.setattr(_rounds_async, "FLOAT_ROUNDS", False)
    calls["n"] = on_floats["n"] = 0
    views = simulate_scenario_rounds(sc)
    assert calls["n"] > 100 and on_floats["n"] == 0
    monkeypatch.setattr(_rounds_async, "CLASS_VIEWS", False)
    calls["n"] = 0
    reference = simulate_scenario_rounds(sc)
    assert calls["n"] == 0
    assert_same(fast, reference)
    assert_same(views, reference)


def test_per_flow_law_parameters_take_the_arrays_and_equal_the_scalar_run() -> None:
    # the same parameter given per flow ([1, 1]) belongs to every flow: the classes decide
    # through the whole arrays, and must give the run with the scalar (fast paths) exactly
    path = Path("16Mbps", "50ms", buffer=150)
    runs = [
        simulate_rounds_async(
            get_law("vegas", alpha=alpha, beta=beta), path, [0.04, 0.08], duration_s=20.0
        )
        for alpha, beta in ((1.0, 3.0), ([1.0, 1.0], [3.0, 3.0]))
    ]
    scalar, per_flow = (dataclasses.replace(r, law_params={}) for r in runs)
    assert runs[1].law_params["alpha"] == [1.0, 1.0]
    assert_same(scalar, per_flow)


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, 5e-324]


@pytest.mark.parametrize("a", _SPECIAL)
@pytest.mark.parametrize("b", _SPECIAL)
def test_float_maximum_and_minimum_are_numpys_on_one_element(a: float, b: float) -> None:
    # NumPy's rule for signed zeros and NaN, read from NumPy itself (arrays of one element
    # and an array with a scalar, as the array path computes them)
    for mine, ufunc in ((_rounds_async._np_max, np.maximum), (_rounds_async._np_min, np.minimum)):
        got = np.array([mine(a, b)])
        for ref in (ufunc(np.array([a]), np.array([b])), ufunc(np.array([a]), b)):
            assert got.tobytes() == ref.tobytes(), (ufunc.__name__, a, b)
