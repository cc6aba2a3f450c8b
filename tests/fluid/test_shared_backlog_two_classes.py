"""The asynchronous round model's shared backlog of two classes (the thesis's two flows).

``shared_backlog`` solves ``Σ W_k / (μa d_k + q) = 1`` by Newton's method at every round of
every class, in one pass with plain sums (the thesis's two-class runs call it at every
round). A class that sends nothing is left out of the sum, so a third, silent class must
give the same float bit for bit; and the root must solve the equation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.fluid.rounds import shared_backlog


def _general(w: list[float], m: list[float]) -> float:
    return shared_backlog([*w, 0.0], [*m, 1.0])


def test_two_classes_equal_the_general_case_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    queued = 0
    for _ in range(5000):
        m = (rng.uniform(0.5, 400.0, 2) * rng.choice([1.0, 1e-3, 1e3], 2)).tolist()
        w = (rng.uniform(0.01, 2.0, 2) * np.asarray(m) * rng.uniform(0.2, 3.0)).tolist()
        got = shared_backlog(w, m)
        ref = _general(w, m)
        assert math.copysign(1.0, got) == math.copysign(1.0, ref)
        assert got.hex() == ref.hex(), (w, m)
        if got > 0.0:  # the root of Σ W_k / (m_k + q) = 1
            assert math.fsum(wk / (mk + got) for wk, mk in zip(w, m, strict=True)) == (
                pytest.approx(1.0, rel=1e-12)
            )
        queued += got > 0.0
    assert 1000 < queued < 5000  # both outcomes: windows that fit the pipes and a backlog


@pytest.mark.parametrize(
    ("w", "m"),
    [
        ([30.0, 25.0], [20.0, 28.0]),
        ([10.0, 20.0], [10.0, 30.0]),  # the docstring's example: 10 packets
        ([10.0, 20.0], [20.0, 40.0]),  # the windows just fill the pipes: no backlog
        ([1e-9, 5.0], [3.0, 2.0]),
        ([5.0, 5.0], [5.0, 5.0]),
    ],
)
def test_two_classes_at_chosen_points(w: list[float], m: list[float]) -> None:
    assert shared_backlog(w, m).hex() == _general(w, m).hex()


def test_a_class_that_sends_nothing_takes_the_general_case() -> None:
    # a zero window is left out of the sum: one class's backlog W - mu d
    assert shared_backlog([0.0, 30.0], [5.0, 20.0]) == 10.0
    assert shared_backlog([30.0, 0.0], [20.0, 5.0]) == 10.0
    assert shared_backlog([30.0, 1e-300], [20.0, 5.0]) > 0.0
