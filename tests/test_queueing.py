"""RED's laws (Floyd and Jacobson 1993, §4; gentle RED as in ns-2): the one compiled drop
probability and averaged queue every engine calls, and the one class of RED parameters.
Every expected value is worked by hand in the comment beside it."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid._queueing_kernel import red_average, red_probability
from tcpfluid.fluid import RedQueue
from tcpfluid.queueing import RedParameters, red_drop_probability, red_parameters


@pytest.mark.parametrize(
    ("avg", "gentle", "ramp", "expected"),
    [
        (10.0, False, 0.0, 0.0),  # below min_th = 15
        (30.0, False, 0.0, 0.01),  # 0.02 (30 - 15) / (45 - 15)
        (45.0, False, 0.0, 1.0),  # classic RED's jump at max_th (the packet gateway)
        (45.5, False, 1.0, 0.51),  # the fluid models' one-packet ramp: 0.02 + 0.98 * 0.5
        (47.0, False, 1.0, 1.0),  # the ramp ends one packet above max_th
        (67.5, True, 0.0, 0.51),  # gentle: 0.02 + 0.98 (67.5 - 45) / 45
        (67.5, True, 1.0, 0.51),  # (gentle RED has no jump to smooth)
        (90.0, True, 0.0, 1.0),  # gentle reaches 1 at 2 max_th
        (200.0, True, 0.0, 1.0),
    ],
)
def test_red_probability_by_hand(avg: float, gentle: bool, ramp: float, expected: float) -> None:
    assert red_probability(avg, 15.0, 45.0, 0.02, gentle, ramp) == pytest.approx(expected)


def test_array_form_is_the_compiled_law_elementwise() -> None:
    red = RedParameters(15.0, 45.0, max_p=0.02)
    q = np.array([[10.0, 30.0], [45.5, 50.0]])
    p = red_drop_probability(q, red)
    assert p.shape == q.shape
    # hand: 0, 0.01, 0.02 + 0.98 * 0.5, 1
    np.testing.assert_allclose(p, [[0.0, 0.01], [0.51, 1.0]])
    assert red_drop_probability(30.0, red).shape == ()


def test_red_average_is_the_per_arrival_update_repeated() -> None:
    # Floyd and Jacobson: avg <- (1 - w) avg + w q per arrival; three arrivals at q = 10
    # from avg = 4 with w = 0.5: 7, 8.5, 9.25
    assert red_average(4.0, 10.0, 0.5, 3.0) == pytest.approx(9.25)
    # an idle period of two packet times (q = 0) halves twice: 4 -> 1
    assert red_average(4.0, 0.0, 0.5, 2.0) == pytest.approx(1.0)


def test_red_queue_is_red_parameters() -> None:
    red = RedQueue(min_th_pkts=5, max_th_pkts=15, max_p=0.1, weight=0.01, gentle=True)
    assert isinstance(red, RedParameters)
    assert (red.w_q, red.weight) == (0.01, 0.01)
    assert red.parameters() == red_parameters(
        {"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.01, "gentle": True}
    )
    assert RedQueue.from_parameters(red.parameters()) == red
    # hand (gentle): 0.1 + 0.9 (22.5 - 15) / 15 = 0.55
    assert float(red.probability(22.5)) == pytest.approx(0.55)
    assert RedQueue().to_dict() == {
        "min_th_pkts": 15.0,
        "max_th_pkts": 45.0,
        "max_p": 0.1,
        "weight": 0.002,
        "gentle": False,
    }
