"""Quick Vegas's one-flow decision (Python floats) against its array path, case by case.

The packet simulator decides one flow at a time and Quick Vegas then takes a path on
Python floats; the round model and batched decisions take the array path. Both must give
the same action and the same new state, bit for bit, for every sampling reading, including
the boundary cases Δ = α/4, α, m, β, 2β, γ and cwnd = ssthresh. Δ is exact in floating
point: the window is a power of two and BaseRTT/RTT = 1 − Δ/W with RTT = 1 s.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE, SLOW_START, RoundSample
from tcpfluid.algorithms.quick_vegas import SAMPLINGS, QuickVegas

PHASES = (SLOW_START, CONGESTION_AVOIDANCE)
SUCC = (0.0, 1.0, 3.0)
FLAGS = (0.0, 1.0)
LAST = (-1.0, 0.0, 1.0)
SSTHRESH = (np.inf, 16.0)
CWND = (8.0, 32.0)
#: around γ = 1, α/4 = 0.5, α = 2, m = 3, β = 4, 2β = 8 of the defaults
DELTA = (0.0, 0.5, 0.75, 1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 6.0, 8.0)


def _state(law: QuickVegas, n: int, values: dict[str, float]) -> dict[str, np.ndarray]:
    state = law.init_state(n)
    for key, value in values.items():
        state[key][:] = value
    return state


def _sample(n: int, w: float, d: float) -> RoundSample:
    full = np.full(n, 1.0)
    base = full * (1.0 - d / w)
    return RoundSample(
        cwnd=np.full(n, w), base_rtt=base, rtt_mean=full, rtt_min=base, rtt_max=full,
        acks=np.full(n, w),
    )  # fmt: skip


@pytest.mark.parametrize("sampling", SAMPLINGS)
def test_one_flow_path_equals_the_array_path(sampling: str) -> None:
    law = QuickVegas(sampling=sampling)  # type: ignore[arg-type]
    taken = 0

    def spy(state: dict[str, np.ndarray], cwnd: float, delta: float) -> object:
        nonlocal taken
        taken += 1
        return QuickVegas._decide_one(law, state, cwnd, delta)

    law._decide_one = spy  # type: ignore[method-assign]
    cases = 0
    for phase, succ, hold, wary, last, ssth, w, d in itertools.product(
        PHASES, SUCC, FLAGS, FLAGS, LAST, SSTHRESH, CWND, DELTA
    ):
        values = {
            "phase": phase, "succ": succ, "hold": hold, "wary": wary, "last_inc": last,
            "ssthresh": ssth,
        }  # fmt: skip
        one, two = _state(law, 1, values), _state(law, 2, values)
        a1 = law.on_round(one, _sample(1, w, d))
        a2 = law.on_round(two, _sample(2, w, d))  # two flows: the array path
        for field in ("cwnd", "incr", "cap"):
            got, want = getattr(a1, field), getattr(a2, field)
            assert got.shape == (1,), (field, got)
            assert got[:1].tobytes() == want[:1].tobytes(), (field, values, w, d, got, want)
        for key in one:
            assert one[key][:1].tobytes() == two[key][:1].tobytes(), (key, values, w, d)
        cases += 1
    # every case took the float path on one flow (and only there)
    assert taken == cases == 2 * 3 * 2 * 2 * 3 * 2 * 2 * len(DELTA)


def test_one_flow_path_leaves_a_zero_rtt_to_the_array_path() -> None:
    law = QuickVegas()
    state = law.init_state(1)
    state["phase"][:] = CONGESTION_AVOIDANCE
    zero = np.zeros(1)
    sample = RoundSample(
        cwnd=np.full(1, 8.0), base_rtt=zero, rtt_mean=zero, rtt_min=zero, rtt_max=zero,
        acks=np.full(1, 8.0),
    )  # fmt: skip
    with np.errstate(invalid="ignore", divide="ignore"):
        act = law.on_round(state, sample)
    # Δ = 8 × (1 − 0/0) is NaN on the array path: no comparison holds, nothing changes
    assert act.cwnd[0] == 8.0 and act.incr[0] == 0.0
