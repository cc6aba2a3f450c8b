"""The asynchronous round model's decision for a class of one flow, through the law's
one-flow path.

With flows of different base RTTs each RTT class is often one flow (the thesis's two-flow
runs); ``_AsyncLoop._decide_one`` lets the law decide that flow alone, on views of its
state. That must not change a single result: the reference is the same run with every
class deciding through its whole arrays (``_rounds_async.ONE_FLOW_CLASS = False``, the
model's behaviour before the one-flow path).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid.fluid import _rounds_async
from tcpfluid.fluid.rounds import simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    for key, x in vars(a).items():
        y = getattr(b, key)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, key
            assert x.tobytes() == y.tobytes(), key
        else:
            assert repr(x) == repr(y), key


@pytest.mark.parametrize(
    "case",
    [
        # RED drops on two one-flow classes (the thesis's runs)
        ("enhanced-vegas", {"queue": "red", "x2": "10ms", "duration": "30s"}, {"delta": 1.0}),
        ("vegas", {"queue": "red", "x2": "50ms", "duration": "30s"}, {}),
        ("tcp-ho", {"queue": "red", "x2": "30ms", "duration": "30s"}, {}),
        # drop-tail overflows shared between the classes, loss episodes
        ("reno", {"x2": "30ms", "duration": "30s"}, {}),
        ("fast", {"x2": "30ms", "duration": "30s"}, {}),
        ("quick-vegas", {"x2": "30ms", "duration": "30s"}, {}),
    ],
    ids=lambda c: c[0],
)
def test_one_flow_classes_change_no_result(
    case: tuple[str, dict[str, Any], dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    law, kw, params = case
    sc = build_scenario("thesis-two-flow", **kw).with_algorithm(law, **params)
    # the rounds on arrays (a class of one flow otherwise steps on floats and decides
    # through _decide_one only after a loss: tests/fluid/test_rounds_async_speed.py)
    monkeypatch.setattr(_rounds_async, "FLOAT_ROUNDS", False)
    calls = {"one": 0}
    one = _rounds_async._AsyncLoop._decide_one

    def counting(self: Any, *args: Any) -> None:
        calls["one"] += 1
        one(self, *args)

    monkeypatch.setattr(_rounds_async._AsyncLoop, "_decide_one", counting)
    fast = simulate_scenario_rounds(sc)
    assert calls["one"] > 100
    monkeypatch.setattr(_rounds_async, "ONE_FLOW_CLASS", False)
    calls["one"] = 0
    reference = simulate_scenario_rounds(sc)
    assert calls["one"] == 0
    _same(fast, reference)
