"""The hybrid model's boundary where one flow's round ended, decided on Python floats.

With few flows almost every round boundary ends one flow's round; ``hybrid._boundary_one``
decides it on Python floats and lets the law decide that flow alone (its one-flow path).
That must not change a single result: the reference is the same run with every boundary
through the array path (``hybrid.ONE_FLOW_PATH = False``, the model's behaviour before the
one-flow path).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import hybrid
from tcpfluid.fluid.hybrid import HybridResult, simulate_hybrid, simulate_scenario_hybrid
from tcpfluid.scenarios import build_scenario


def _assert_same(a: Any, b: Any, where: str = "result") -> None:
    """Every field of two results (dataclasses, arrays, tuples, numbers) bit for bit."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            _assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert a == b, where


def _both(run: Callable[[], HybridResult], monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"one": 0}
    one = hybrid._boundary_one

    def counting(*args: Any) -> None:
        calls["one"] += 1
        one(*args)

    monkeypatch.setattr(hybrid, "_boundary_one", counting)
    fast = run()
    assert calls["one"] > 20  # the one-flow path decided boundaries
    monkeypatch.setattr(hybrid, "ONE_FLOW_PATH", False)
    calls["one"] = 0
    reference = run()
    assert calls["one"] == 0
    _assert_same(fast, reference)


@pytest.mark.parametrize(
    "case",
    [
        # two flows of one law (its state arrays shared), RED drops: the thesis's runs
        ("thesis-two-flow", "enhanced-vegas", {"queue": "red", "x2": "10ms", "duration": "20s"}),
        ("thesis-two-flow", "vegas", {"queue": "red", "x2": "50ms", "duration": "20s"}),
        # one flow and CBR cross traffic: the halving and doubling of the available bandwidth
        ("qv-basic", "tcp-ho", {"duration": "30s"}),
        ("qv-basic", "quick-vegas", {"duration": "30s"}),
        ("qv-basic", "fast", {"duration": "30s"}),
        # drop-tail losses
        ("qv-basic", "reno", {"duration": "20s", "buffer": 60}),
        # an ACK-path bottleneck that drops ACKs (burst losses, forward delays)
        ("asymmetric", "reno", {"k": 5, "reverse_buffer": 2, "duration": "20s"}),
        ("asymmetric", "forward-vegas", {"k": 5, "duration": "20s"}),
    ],
    ids=lambda c: f"{c[0]}-{c[1]}",
)
def test_one_flow_boundaries_change_no_result(
    case: tuple[str, str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    name, law, kw = case
    sc = build_scenario(name, **kw).with_algorithm(law)
    _both(lambda: simulate_scenario_hybrid(sc), monkeypatch)


def test_one_flow_boundaries_with_laws_per_flow_and_joining_flows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # two flows share one Vegas object (one state array of two), a third runs Reno alone;
    # flows join and leave, the buffer overflows
    vegas, reno = get_law("vegas"), get_law("reno")
    _both(
        lambda: simulate_hybrid(
            [vegas, reno, vegas],
            mu_pps=1000.0,
            base_rtt_s=[0.04, 0.06, 0.1],
            duration_s=30.0,
            buffer_pkts=40.0,
            flow_start_s=[0.0, 3.0, 7.0],
            flow_stop_s=[np.inf, 25.0, np.inf],
        ),
        monkeypatch,
    )
