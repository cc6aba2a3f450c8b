"""A mean delivery rate over the end of a run, as the thesis sections compute it inside their
task functions: each flow's delivered packets from the start of the measurement (read
between two samples by linear interpolation) to the run's last sample, over that span.

The route is public: the ODE column's task of the thesis's two-Reno section
(:meth:`tcpfluid.report.Task.run`) against the same scenario run with
:func:`tcpfluid.simulate`, whose ``series["delivered_pkts"]`` the rate is worked from here
with :func:`numpy.interp`.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.report import SECTIONS, ReportConfig
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.mix import with_flow_params

#: the section's goodputs count from 10 s (the thesis's §4.3, "after the simulation has
#: started for 10 seconds")
FROM_S = 10.0


def test_the_mean_rate_counts_only_the_packets_delivered_after_the_start() -> None:
    (task,) = [
        t
        for t in SECTIONS["thesis-reno"].tasks(ReportConfig(quick=True))
        if t.kwargs.get("x2_ms") == 40 and t.kwargs.get("engine") == "ode"
    ]
    got = task.run()["goodput_bps"]
    # the thesis's §4.2.4: two Reno flows, x2 = 40 ms, RED 15/45, 60 s, every window
    # starting at ns-2's one packet
    sc = build_scenario("thesis-two-flow", x2="40ms", queue="red", duration="60s")
    sc = with_flow_params(sc.with_algorithm("reno"), None, {"initial_window": 1.0})
    res = tcpfluid.simulate(sc, "ode")
    t = np.asarray(res.time_s)
    delivered = np.asarray(res.series["delivered_pkts"])
    # the measurement starts between two samples, and the run's last sample is before 60 s:
    # both ends matter
    assert FROM_S not in t and t[-1] < 60.0
    bits = 8.0 * sc.packet_size_bytes
    want = [bits * (row[-1] - np.interp(FROM_S, t, row)) / (t[-1] - FROM_S) for row in delivered]
    assert got == pytest.approx(want, rel=1e-12)
    # the span matters: the mean from the run's start differs by far more than rounding
    whole = [bits * row[-1] / t[-1] for row in delivered]
    assert got[0] != pytest.approx(whole[0], rel=1e-3)
