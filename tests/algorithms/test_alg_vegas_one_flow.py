"""Vegas's one-flow decision (Python floats) against its array path, case by case.

The packet simulator decides one flow at a time and Vegas then takes a path on Python
floats; the round model and batched decisions take the array path. Both must give the
same action and the same new state, bit for bit, including the boundary cases Δ = α,
Δ = β, Δ = γ and cwnd = ssthresh.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms._common import backlog
from tcpfluid.algorithms.base import CONGESTION_AVOIDANCE, SLOW_START, RoundSample
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


def _sample(w: np.ndarray, base: np.ndarray, rtt: np.ndarray) -> RoundSample:
    return RoundSample(
        cwnd=w, base_rtt=base, rtt_mean=rtt, rtt_min=base, rtt_max=rtt, acks=w,
        fwd_delay_mean=rtt - base, fwd_delay_base=base,
    )  # fmt: skip


class _Spy(Vegas):
    """Vegas recording the Δ each decision is taken on."""

    def __init__(self) -> None:
        super().__init__()
        self.deltas: list[float] = []

    def _decide_one(self, state: dict[str, np.ndarray], cwnd: float, delta: float) -> Any:
        self.deltas.append(delta)
        return super()._decide_one(state, cwnd, delta)

    def _decide(self, state: dict[str, np.ndarray], cwnd: np.ndarray, delta: np.ndarray) -> Any:
        if cwnd.shape != (1,):
            self.deltas.extend(float(d) for d in delta)
        return super()._decide(state, cwnd, delta)


def test_one_flow_round_equals_the_array_path_and_its_backlog() -> None:
    # Δ of eq (1) computed on floats for one flow must be backlog() on arrays bit for bit
    # (random windows and RTTs, so that rounding differences would show), and on_round's
    # action and state those of two flows decided together on the same values
    rng = np.random.default_rng(7)
    n = 2000
    w = rng.uniform(2.0, 700.0, n)
    base = rng.uniform(1e-4, 0.2, n)
    rtt = base * rng.uniform(1.0, 3.0, n)
    rtt[::97] = base[::97]  # Δ = 0 exactly
    rtt[5::101] = np.inf
    rtt[7::103] = 0.0  # no RTT measured: the array path (inf or nan Δ) for both
    phase = rng.choice(PHASES, n)
    grow = rng.choice(GROW, n)
    ssth = rng.choice(SSTHRESH, n)
    one_law, two_law = _Spy(), _Spy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n):
            s1 = _state(phase[i], grow[i], ssth[i], 1)
            s2 = _state(phase[i], grow[i], ssth[i], 2)
            a1 = one_law.on_round(s1, _sample(w[i : i + 1], base[i : i + 1], rtt[i : i + 1]))
            x = np.full(2, w[i]), np.full(2, base[i]), np.full(2, rtt[i])
            a2 = two_law.on_round(s2, _sample(*x))
            want = backlog(w[i : i + 1], base[i : i + 1], rtt[i : i + 1])[0]
            got = one_law.deltas[-1]
            assert got == want or (np.isnan(got) and np.isnan(want)), (i, got, want)
            for field in ("cwnd", "incr", "cap"):
                g, v = getattr(a1, field), getattr(a2, field)
                assert g.shape == (1,)
                assert g[0] == v[0] or (np.isnan(g[0]) and np.isnan(v[0])), (field, i, g, v)
            for key in s1:
                assert s1[key][0] == s2[key][0], (key, i)
    assert len(one_law.deltas) == n and len(two_law.deltas) == 2 * n
