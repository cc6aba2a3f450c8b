"""Bounded memory: a ceiling on the packets held and traces of bounded length."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.sim import engine, simulate_packets


def test_ceiling_stops_a_run_that_would_hold_too_many_packets() -> None:
    # a fixed window of 3000 packets on an infinite buffer: about 3000 packets queue on F,
    # which needs rings of 4096 slots, past a ceiling of 2048
    sc = two_link(duration=0.5)
    with pytest.raises(ValueError, match=r"max_packets=2,048.*link 'F' holds.*finite"):
        simulate_packets(sc, laws={"f": FixedWindow(3000)}, max_packets=2048)
    # with room for it the same run completes and conserves packets
    res = simulate_packets(sc, laws={"f": FixedWindow(3000)}, max_packets=1 << 16)
    assert res.conserved and res.link("F").max_queue_pkts > 2048


def test_ceiling_is_checked() -> None:
    sc = two_link(duration=0.05)
    # below the rings of the smallest run (one link, one flow: 16 + 64 packets)
    with pytest.raises(ValueError, match="max_packets must be >= 80, got 10"):
        simulate_packets(sc, laws={"f": FixedWindow(1)}, max_packets=10)
    with pytest.raises(TypeError, match="max_packets"):
        simulate_packets(sc, laws={"f": FixedWindow(1)}, max_packets=1e6)  # type: ignore[arg-type]


def test_default_trace_coarsens_for_long_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2 links + 1 flow = 13 values a sample; a budget of 1300 values keeps <= 100 samples
    monkeypatch.setattr(engine, "MAX_TRACE_VALUES", 1300)
    sc = two_link(duration=1000.0, start=999.9)  # 1000 s, the flow only at the end
    res = simulate_packets(sc, laws={"f": FixedWindow(1)})
    assert 2 <= res.t_s.size <= 100
    dt = float(np.diff(res.t_s)[0])
    # the default 0.1 s coarsened to a 1-2-5 step: 1000 s / 99 -> 20 s
    assert dt == pytest.approx(20.0)
    assert math.isclose(res.t_s[-1], 1000.0)
    # an explicit interval past the budget is refused, naming the smallest that fits
    with pytest.raises(ValueError, match=r"sample_interval_s >= 10\.1"):
        simulate_packets(sc, laws={"f": FixedWindow(1)}, sample_interval_s=1.0)


def test_short_runs_keep_the_default_interval() -> None:
    res = simulate_packets(two_link(duration=1.0), laws={"f": FixedWindow(1)})
    assert np.diff(res.t_s) == pytest.approx(np.full(10, 0.1))
