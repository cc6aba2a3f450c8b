"""The hybrid model's round boundaries: Python floats for one flow, compiled bookkeeping
for several.

With few flows almost every round boundary ends one flow's round; ``hybrid._boundary_one``
decides it on Python floats and lets the law decide that flow alone (its one-flow path).
Where several rounds end at once, the sample and the bookkeeping are compiled
(``_hybrid_kernel.boundary_sample``, ``boundary_act``, ``boundary_reset``). Neither may
change a single result: the reference is the same run with every boundary in NumPy array
operations (``hybrid.ONE_FLOW_PATH = False``, ``hybrid.COMPILED_BOUNDARY = False``, the
model's behaviour before both).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _hashkit import assert_same

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import _hybrid_kernel, hybrid
from tcpfluid.fluid.hybrid import HybridResult, simulate_hybrid, simulate_scenario_hybrid
from tcpfluid.scenarios import build_scenario


def _both(
    run: Callable[[], HybridResult],
    monkeypatch: pytest.MonkeyPatch,
    *,
    one: int = 20,
    several: int = 0,
) -> None:
    """``run`` with the fast paths (each taken at least ``one`` / ``several`` times) and
    with the array path: the same result bit for bit."""
    calls = {"one": 0, "several": 0}
    one_flow, sample = hybrid._boundary_one, _hybrid_kernel.boundary_sample

    def counting_one(*args: Any) -> None:
        calls["one"] += 1
        one_flow(*args)

    def counting_sample(*args: Any) -> None:
        calls["several"] += 1
        sample(*args)

    monkeypatch.setattr(hybrid, "_boundary_one", counting_one)
    monkeypatch.setattr(_hybrid_kernel, "boundary_sample", counting_sample)
    fast = run()
    assert calls["one"] >= one and calls["several"] >= several
    monkeypatch.setattr(hybrid, "ONE_FLOW_PATH", False)
    monkeypatch.setattr(hybrid, "COMPILED_BOUNDARY", False)
    calls.update(one=0, several=0)
    reference = run()
    assert calls == {"one": 0, "several": 0}
    assert_same(fast, reference)


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


def test_several_rounds_ending_together_change_no_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # twelve flows of one law in three RTT groups, joining in groups: the rounds of a
    # group end in the same step; a finite buffer overflows (losses learnt together)
    vegas = get_law("vegas")
    _both(
        lambda: simulate_hybrid(
            vegas,
            mu_pps=2000.0,
            base_rtt_s=[0.05] * 4 + [0.08] * 4 + [0.12] * 4,
            duration_s=30.0,
            buffer_pkts=50.0,
            flow_start_s=[0.0] * 4 + [5.0] * 4 + [10.0] * 4,
        ),
        monkeypatch,
        one=0,
        several=100,
    )


def test_several_rounds_ending_together_behind_an_ack_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # forward delays measured by timestamps (the ACK-path queue), ACK drops
    fpv = get_law("forward-vegas")
    _both(
        lambda: simulate_hybrid(
            fpv,
            mu_pps=1000.0,
            base_rtt_s=[0.06] * 3,
            duration_s=20.0,
            buffer_pkts=30.0,
            reverse_mu_pps=400.0,
            reverse_buffer_pkts=5.0,
        ),
        monkeypatch,
        one=0,
        several=50,
    )
