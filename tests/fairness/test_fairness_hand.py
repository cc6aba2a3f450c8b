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
    ],
)
def test_study_arguments_are_checked_before_any_run(
    study: str, kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    def engine(_sc: object) -> None:  # must never be reached
        raise AssertionError("the packet engine ran before the arguments were checked")

    calls = {
        "ho-rtt": lambda: ho_different_rtt_study(
            [0.05, 0.1], **{"duration_s": 20.0, "measure_from_s": 10.0, **kwargs}
        ),
        "ho-mix": lambda: ho_friendliness_study(
            **{"duration_s": 10.0, "measure_from_s": 5.0, "packet_engine": engine, **kwargs}
        ),
        "qv-many": lambda: qv_many_flows_study(flows=3, packet_engine=engine, **kwargs),
        "qv-rtt": lambda: qv_different_rtt_study(packet_engine=engine, **kwargs),
        "thesis": lambda: thesis_two_flow_study(packet_engine=engine, **kwargs),
    }
    with pytest.raises(exc, match=match):
        calls[study]()
