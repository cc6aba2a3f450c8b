"""``tcpfluid.simulate(..., settle_band=)``: the summary's settling band per call.

Quick Vegas on 5 Mb/s x 100 ms keeps moving its window by a packet or two each round: a
steady cycle of about ±1.8 packets around 67 in the round model and in the packets. The
law's own band (the default) reports it settled, with the cycle's centre and amplitude;
``settle_band=0`` accepts fixed points only and must say why the window did not settle.
The amplitude is checked against the recorded window itself (half its range over the
settled part of the run), not against a stored number.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import build_scenario


@pytest.fixture(scope="module")
def cycling() -> tcpfluid.Scenario:
    return build_scenario(
        "qv-basic", bandwidth="5Mbps", rtt="100ms", flows=1, duration="80s"
    ).with_algorithm("quick-vegas")


@pytest.mark.parametrize("engine", ["rounds", "packet"])
def test_the_laws_band_reports_the_cycle_a_zero_band_says_why_not(
    cycling: tcpfluid.Scenario, engine: str
) -> None:
    default = tcpfluid.simulate(cycling, engine)
    flows = default.summary.flows
    t, w = default.time_s, default.window_pkts[0]
    tail = (t > 40.0) & (t < 80.0)
    half_range = (w[tail].max() - w[tail].min()) / 2
    assert half_range > 1.0  # a cycle, not a fixed point
    assert flows.cycle_amplitude_pkts[0] == pytest.approx(half_range, rel=0.05)
    assert w[tail].min() <= flows.cycle_centre_pkts[0] <= w[tail].max()
    assert flows.not_settled_reason[0] is None

    # the same run judged with a fixed-point band: not settled, and the text says why
    strict = tcpfluid.simulate(cycling, engine, settle_band=0.0).summary.flows
    assert math.isnan(strict.time_to_equilibrium_s[0])
    reason = strict.not_settled_reason[0]
    assert reason is not None and "oscillates" in reason and "wider than the band" in reason

    # a band per law: the law named gets it, the others keep their own
    for band in (math.inf, {"quick-vegas": math.inf}, {"reno": 0.0}):
        same = tcpfluid.simulate(cycling, engine, settle_band=band).summary.flows
        np.testing.assert_array_equal(same.time_to_equilibrium_s, flows.time_to_equilibrium_s)
    strict_by_law = tcpfluid.simulate(cycling, engine, settle_band={"quick-vegas": 0.0})
    assert strict_by_law.summary.flows.not_settled_reason[0] == reason


def test_the_band_changes_only_the_summary(cycling: tcpfluid.Scenario) -> None:
    a = tcpfluid.simulate(cycling, "rounds")
    b = tcpfluid.simulate(cycling, "rounds", settle_band=0.0)
    np.testing.assert_array_equal(a.window_pkts, b.window_pkts)
    np.testing.assert_array_equal(a.queue_pkts, b.queue_pkts)
    assert a.summary.utilization == b.summary.utilization


@pytest.mark.parametrize(
    ("band", "error", "words"),
    [
        (-1.0, ValueError, "settle_band must be >= 0"),
        (float("nan"), ValueError, "settle_band must be >= 0"),
        ("2", TypeError, "settle_band must be a number"),
        (True, TypeError, "settle_band must be a number"),
        ({"cubic": 1.0}, ValueError, "not an algorithm"),
        ({"vegas": -2}, ValueError, r"settle_band\['vegas'\] must be >= 0"),
    ],
)
def test_a_bad_band_is_refused_before_the_run(
    cycling: tcpfluid.Scenario, band: object, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        tcpfluid.simulate(cycling, "rounds", settle_band=band)  # type: ignore[arg-type]
