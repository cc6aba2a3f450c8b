"""The hybrid model's measured time (``measure_from_s``) starts at the mark itself, not at
the start of the step it falls in, and ends with the run, not with its last whole step."""

from __future__ import annotations

import pytest

from tcpfluid import simulate
from tcpfluid.scenarios import build_scenario


@pytest.mark.parametrize("window_s", [10.0, 1e-2, 1e-3, 1e-4])
def test_a_busy_link_carries_its_capacity_over_any_measured_window(window_s):
    # one Quick Vegas flow on 10 Mb/s keeps a standing queue to the end of the run, so the
    # link serves μ all the time: over any measured window the packets delivered are μ
    # times its length (the last window is below the model's 0.39 ms step). Before, the
    # counts were taken at the mark's step start and the last partial step's ACKs counted
    # whole: 1.02 over 10 ms, 1.18 over 1 ms.
    sc = build_scenario("qv-basic", bandwidth="10Mbps").with_algorithm("quick-vegas")
    res = simulate(sc, "hybrid", measure_from_s=sc.duration_s - window_s)
    assert res.queue_pkts[-1] > 1.0  # the standing queue: the link is busy at the end
    mu = 10e6 / (8.0 * sc.packet_size_bytes)  # 1250 packets/s
    assert res.summary.utilization == pytest.approx(1.0, abs=1e-6)
    assert res.summary.flows[0].throughput_pps == pytest.approx(mu, rel=1e-6)
