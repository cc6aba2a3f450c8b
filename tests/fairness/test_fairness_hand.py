"""tcpfluid.fairness without a run: period throughputs of hand-made delivery curves, and
the studies' arguments refused (naming the argument) before any engine runs.

The studies' runs against the packet simulator and the documents are in
validation/test_fairness.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid.fairness import (
    ho_different_rtt_study,
    ho_friendliness_study,
    period_throughputs,
    qv_different_rtt_study,
    qv_many_flows_study,
    thesis_two_flow_study,
)

#: the sample times of the refused-input cases below (30 s every 0.1 s)
t_ = np.linspace(0.0, 30.0, 301)


def test_period_throughputs_hand_curves() -> None:
    t = np.linspace(0.0, 30.0, 301)
    # flow 0 delivers 10 pkt/s throughout; flow 1 joins at 10 s with 30 pkt/s
    d0 = 10.0 * t
    d1 = np.where(t < 10.0, 0.0, 30.0 * (t - 10.0))
    periods = period_throughputs(t, np.vstack([d0, d1]), [0.0, 10.0], [30.0, 30.0], [0, 10, 30])
    idx0, thr0 = periods[0]
    idx1, thr1 = periods[1]
    assert idx0.tolist() == [0] and thr0 == pytest.approx([10.0])
    assert idx1.tolist() == [0, 1] and thr1 == pytest.approx([10.0, 30.0])
    with pytest.raises(ValueError, match="edges_s"):
        period_throughputs(t, np.vstack([d0]), [0.0], [30.0], [10, 5])


@pytest.mark.parametrize(
    ("args", "match"),
    [
        # a period past the trace's end would be read at the last sample (np.interp holds
        # the end value): 20 pkt/s over [0, 30] s is no rate over [0, 100] s; the trace
        # resolves 0.1 s (its sample interval), so 30.1 s is its last readable time
        (
            {"edges_s": [0, 50, 100]},
            r"edges_s must lie in \[0, 30.1\] s: from the run's start to the trace's last "
            r"sample t_s\[-1\] = 30 s plus one sample interval, got 0 to 100 s",
        ),
        ({"edges_s": [0, 30.2]}, r"edges_s must lie in \[0, 30.1\] s"),
        ({"edges_s": [-10, -5]}, r"edges_s must lie in \[0, 30.1\] s: .* got -10 to -5 s"),
        ({"edges_s": [0, float("nan"), 30]}, "edges_s must be finite, got nan"),
        # one start and stop per flow: fewer would leave flows out
        (
            {"start_s": [0.0]},
            r"start_s must give one time \(not NaN\) per flow of "
            r"delivered_pkts \(2\), got \[0.0\]",
        ),
        ({"stop_s": [30.0, 30.0, 30.0]}, r"stop_s must give one time .* \(2\)"),
        ({"stop_s": [30.0, float("nan")]}, "stop_s must give one time"),
        ({"t_s": np.linspace(30.0, 0.0, 301)}, r"t_s must be non-decreasing, got t_s\[1\] = "),
        ({"t_s": np.linspace(0.0, 30.0, 300)}, r"delivered_pkts must have shape \(n flows, 300\)"),
        (
            {"delivered_pkts": np.zeros(301)},
            r"delivered_pkts must have shape .* got shape \(301,\)",
        ),
        # a stop before its start or a count that falls would give negative rates
        (
            {"start_s": [0.0, 20.0], "stop_s": [30.0, 10.0]},
            r"stop_s must not be before start_s: flow 1 starts at 20 s and stops at 10 s",
        ),
        (
            {"delivered_pkts": np.vstack([20.0 * t_, 10.0 * (30.0 - t_)])},
            r"delivered_pkts must be cumulative \(non-decreasing in time\): flow 1 falls from "
            r"300 to 299 packets between t_s = 0 and 0.1 s",
        ),
    ],
)
def test_period_throughputs_refuses_what_it_would_misread(args: dict[str, Any], match: str) -> None:
    t = np.linspace(0.0, 30.0, 301)
    given = {
        "t_s": t,
        "delivered_pkts": np.vstack([20.0 * t, 10.0 * t]),
        "start_s": [0.0, 0.0],
        "stop_s": [30.0, np.inf],  # a flow that never leaves
        "edges_s": [0.0, 10.0, 30.0],
    }
    # by hand: 20 and 10 packets per second in every period
    for idx, thr in period_throughputs(**given):
        assert idx.tolist() == [0, 1] and thr == pytest.approx([20.0, 10.0])
    # one sample interval past the end reads the last sample: the flow that never leaves
    # (the other stops at 30 s) delivered 300 packets in the 30.1 s
    [(idx, thr)] = period_throughputs(**{**given, "edges_s": [0.0, 30.1]})
    assert idx.tolist() == [1] and thr == pytest.approx([10.0 * 30.0 / 30.1])
    with pytest.raises(ValueError, match=match):
        period_throughputs(**{**given, **args})


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"settings": ("vegas-9",)}, ValueError, "settings"),
        ({"queue": "codel"}, ValueError, "queue"),
        ({"packet_engine": "sim"}, TypeError, "packet_engine"),
        ({"measure_from_s": 70.0}, ValueError, "measure_from_s"),
        ({"x2_ms": (-5,)}, ValueError, "x2_ms"),
    ],
)
def test_thesis_study_validation(kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    with pytest.raises(exc, match=match):
        thesis_two_flow_study(**kwargs)


@pytest.mark.parametrize(
    ("study", "kwargs", "exc", "match"),
    [
        # a misspelled law used to come back as a NaN row noted "no ODE right-hand side"
        ("ho-rtt", {"algorithms": ("vegs",)}, ValueError, "algorithms must be one of.*'vegs'"),
        ("ho-rtt", {"algorithms": "vegas"}, TypeError, "got the string 'vegas'"),
        ("ho-rtt", {"algorithms": ()}, ValueError, "at least one algorithm"),
        ("ho-rtt", {"measure_from_s": 30.0}, ValueError, r"measure_from_s must be in \[0, "),
        ("ho-rtt", {"duration_s": -1.0}, ValueError, "duration_s"),
        ("ho-mix", {"pairs": (("reno", "vegs"),)}, ValueError, "pairs must be one of.*'vegs'"),
        ("ho-mix", {"pairs": (("reno",),)}, ValueError, "pairs: each entry must be a pair"),
        ("ho-mix", {"mixes": ((5,),)}, ValueError, "mixes: each entry must be a pair"),
        ("ho-mix", {"mixes": ((0, 0),)}, ValueError, "at least one flow"),
        ("ho-mix", {"mixes": ((5, 5), (-1, 3))}, ValueError, "mixes"),
        ("ho-mix", {"measure_from_s": 20.0}, ValueError, r"duration_s=10.0"),
        ("qv-many", {"algorithms": ("quick_vegas",)}, ValueError, "'quick_vegas'"),
        ("qv-rtt", {"algorithms": ("vegas", "cubic")}, ValueError, "'cubic'"),
        ("thesis", {"x2_ms": ()}, ValueError, "x2_ms must list at least one"),
        ("thesis", {"settings": ()}, ValueError, "settings must list at least one"),
        # a string is no list: its characters are not read one by one, nor is a number
        ("thesis", {"x2_ms": "110"}, TypeError, "x2_ms must be a sequence .* the string '110'"),
        ("thesis", {"x2_ms": 110}, TypeError, "x2_ms must be a sequence .* got 110"),
        ("thesis", {"settings": "vegas-2"}, TypeError, "settings must be a sequence .*'vegas-2'"),
        ("ho-rtt", {"rtts_s": "0.05"}, TypeError, "rtts_s must be a sequence .* string '0.05'"),
        ("ho-mix", {"pairs": "reno"}, TypeError, "pairs must be a sequence .* string 'reno'"),
        ("ho-mix", {"mixes": "10"}, TypeError, "mixes must be a sequence .* string '10'"),
        # the ODE's samples: an integer >= 2 (the run's first and last)
        ("qv-many", {"n_points": 1}, ValueError, "n_points must be >= 2, got 1"),
        ("qv-many", {"n_points": 0}, ValueError, "n_points must be >= 2, got 0"),
        ("qv-many", {"n_points": 2.5}, TypeError, "n_points must be an integer, got 2.5"),
        ("qv-many", {"n_points": True}, TypeError, "n_points must be an integer, got True"),
        ("qv-rtt", {"n_points": 1}, ValueError, "n_points must be >= 2, got 1"),
        ("qv-rtt", {"n_points": 2.5}, TypeError, "n_points must be an integer, got 2.5"),
        # and a sample on every period edge (0, 100, ..., 500 s; 0, 75, ..., 300 s)
        ("qv-many", {"n_points": 2}, ValueError, r"n_points - 1 a multiple of 5, got n_points=2"),
        ("qv-rtt", {"n_points": 1000}, ValueError, r"n_points - 1 a multiple of 4, .*e.g. 1001"),
        # 4 flows in the paper's three groups: groups of 1, 1 and 2
        (
            "qv-many",
            {"flows": 4},
            ValueError,
            r"flows must be a multiple of the number of "
            r"groups \(3\), got flows=4 \(groups of 1, 1, 2 flows\)",
        ),
    ],
)
def test_study_arguments_are_checked_before_any_run(
    study: str, kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    def engine(_sc: object) -> None:  # must never be reached
        raise AssertionError("the packet engine ran before the arguments were checked")

    calls = {
        "ho-rtt": lambda: ho_different_rtt_study(
            **{"rtts_s": [0.05, 0.1], "duration_s": 20.0, "measure_from_s": 10.0, **kwargs}
        ),
        "ho-mix": lambda: ho_friendliness_study(
            **{"duration_s": 10.0, "measure_from_s": 5.0, "packet_engine": engine, **kwargs}
        ),
        "qv-many": lambda: qv_many_flows_study(**{"flows": 3, "packet_engine": engine, **kwargs}),
        "qv-rtt": lambda: qv_different_rtt_study(packet_engine=engine, **kwargs),
        "thesis": lambda: thesis_two_flow_study(packet_engine=engine, **kwargs),
    }
    with pytest.raises(exc, match=match):
        calls[study]()
