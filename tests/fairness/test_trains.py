"""tcpfluid.fairness.trains without a run: delivered packets of hand-made rate traces, and a
trace of the wrong shape refused naming its arguments.

The train fraction measured on packet runs is in validation/test_fairness_train.py.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from tcpfluid.fairness import delivered_pkts, period_throughputs


def test_delivered_packets_by_hand() -> None:
    # sample j covers (t_{j-1}, t_j], t_{-1} = 0: intervals of 1, 1 and 2 s
    d = delivered_pkts([1.0, 2.0, 4.0], [[2.0, 2.0, 2.0], [1.0, 3.0, 0.5]])
    # flow 0: 2, 2 + 2, 4 + 2*2; flow 1: 1, 1 + 3, 4 + 0.5*2
    np.testing.assert_allclose(d, [[2.0, 4.0, 8.0], [1.0, 4.0, 5.0]])
    # one flow as a 1-D trace
    np.testing.assert_allclose(delivered_pkts([0.5, 1.0], [4.0, 2.0]), [2.0, 3.0])


def test_delivered_packets_feed_period_throughputs() -> None:
    # over 1-2 s flow 0 delivers 2 packets and flow 1 delivers 3 (the rates of that sample)
    d = delivered_pkts([1.0, 2.0, 4.0], [[2.0, 2.0, 2.0], [1.0, 3.0, 0.5]])
    [(idx, thr)] = period_throughputs([1.0, 2.0, 4.0], d, [0.0, 0.0], [4.0, 4.0], [1.0, 2.0])
    assert idx.tolist() == [0, 1]
    np.testing.assert_allclose(thr, [2.0, 3.0])


@pytest.mark.parametrize(
    ("t_s", "rates"),
    [([1.0, 2.0], [1.0, 2.0, 3.0]), ([1.0, 2.0], [[1.0], [2.0]]), ([[1.0, 2.0]], [1.0, 2.0])],
)
def test_a_trace_of_another_shape_is_refused(t_s: object, rates: object) -> None:
    with pytest.raises(ValueError, match=r"t_s must be 1-D and rates_pps .* got shapes"):
        delivered_pkts(t_s, rates)


@pytest.mark.parametrize(
    ("t_s", "rates", "match"),
    [
        ([1.0, 2.0, float("nan")], [[2.0, 2.0, 2.0]], "t_s must be finite, got nan"),
        ([1.0, 2.0, 3.0], [[2.0, float("nan"), 2.0]], "rates_pps must be finite, got nan"),
        ([1.0, 2.0, 3.0], [[2.0, -2.0, 2.0]], "rates_pps must be >= 0, got -2.0"),
        # a decreasing time would subtract packets: 2 + 2 x (2 - 3) = 0
        (
            [3.0, 2.0, 1.0],
            [[2.0, 2.0, 2.0]],
            r"t_s must be non-decreasing, got t_s\[1\] = 2.0 "
            r"after t_s\[0\] = 3.0",
        ),
        ([-1.0, 2.0], [1.0, 1.0], "t_s must be >= 0, got -1.0"),
    ],
)
def test_a_trace_it_would_misread_is_refused(t_s: object, rates: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        delivered_pkts(t_s, rates)


def test_the_docstring_examples_run() -> None:
    from tcpfluid.fairness import trains

    result = doctest.testmod(trains)
    assert result.attempted >= 1 and result.failed == 0
