"""Vegas's one-flow decision (Python floats) against its array path, case by case.

The packet simulator decides one flow at a time and Vegas then takes a path on Python
floats; the round model and batched decisions take the array path. Both must give the
same action and the same new state, bit for bit, including the boundary cases Δ = α,
Δ = β, Δ = γ and cwnd = ssthresh.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE, SLOW_START
from tcpfluid.algorithms.enhanced_vegas import EnhancedVegas
from tcpfluid.algorithms.vegas import Vegas

PHASES = (SLOW_START, CONGESTION_AVOIDANCE)
GROW = (0.0, 1.0)
SSTHRESH = (np.inf, 8.0, 40.0)
CWND = (2.0, 7.5, 8.0, 40.0, 629.25)
DELTA = (0.0, 0.5, 1.0, 1.0000001, 2.0, 3.0, 4.0, 4.5, 60.0)


def _state(phase: float, grow: float, ssthresh: float, n: int) -> dict[str, np.ndarray]:
    return {
        "phase": np.full(n, phase),
        "ss_grow": np.full(n, grow),
        "ssthresh": np.full(n, ssthresh),
    }


@pytest.mark.parametrize("law", [Vegas(), Vegas(alpha=1.0, beta=3.0, gamma=2.0), EnhancedVegas()])
def test_one_flow_path_equals_the_array_path(law: Vegas) -> None:
    cases = 0
    for phase, grow, ssth, w, d in itertools.product(PHASES, GROW, SSTHRESH, CWND, DELTA):
        one = _state(phase, grow, ssth, 1)
        two = _state(phase, grow, ssth, 2)  # two flows: the array path
        a1 = law._decide(one, np.array([w]), np.array([d]))
        a2 = law._decide(two, np.array([w, w]), np.array([d, d]))
        for field in ("cwnd", "incr", "cap"):
            got, want = getattr(a1, field), getattr(a2, field)
            assert got.shape == (1,), (field, got)
            assert got[0] == want[0] or (np.isnan(got[0]) and np.isnan(want[0])), (
                field, phase, grow, ssth, w, d, got, want
            )  # fmt: skip
        for key in one:
            assert one[key][0] == two[key][0], (key, phase, grow, ssth, w, d)
        cases += 1
    assert cases == len(PHASES) * len(GROW) * len(SSTHRESH) * len(CWND) * len(DELTA)
