"""Bounded memory: a ceiling on the slots of the rings and traces of bounded length."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from _simkit import FixedWindow, two_link

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import engine, simulate_packets


def test_ceiling_stops_a_run_that_would_hold_too_many_packets() -> None:
    # a fixed window of 3000 packets on an infinite buffer: about 3000 packets queue on F,
    # which needs rings of 4096 slots, past a ceiling of 2048
    sc = two_link(duration=0.5)
    with pytest.raises(ValueError, match=r"max_packets=2,048 slots.*Link 'F' held.*finite"):
        simulate_packets(sc, laws={"f": FixedWindow(3000)}, max_packets=2048)
    # with room for it the same run completes and conserves packets
    res = simulate_packets(sc, laws={"f": FixedWindow(3000)}, max_packets=1 << 16)
    assert res.conserved and res.link("F").max_queue_pkts > 2048


def test_ceiling_names_the_link_the_packets_are_at() -> None:
    """Reno on the iTCP-Vegas paper's 622 Mb/s path with its unlimited buffers: the window
    grows until the rings pass 200,000 slots. The link named holds the packets that reached
    it and did not leave it by then, counted here from a run cut at that time by two other
    counters: the bytes that left the link before it (S1-R1, the only way in) less the bytes
    that left it. (Its ring holds more: packets the host link handed on ahead of their
    arrival.)"""
    sc = build_scenario("itcp-long-delay").with_algorithm("reno")
    with pytest.raises(ValueError) as got:
        simulate_packets(sc, max_packets=200_000)
    message = str(got.value)
    held_by = r"Link '([\w-]+)' held the most packets, ([\d,]+) "
    found = re.search(r" at t=([\d.]+) s .*" + held_by, message)
    assert found is not None, message
    t, name, held = float(found.group(1)), found.group(2), int(found.group(3).replace(",", ""))
    assert name == "R1-R2"
    cut = build_scenario("itcp-long-delay", duration=f"{t!r}s").with_algorithm("reno")
    res = simulate_packets(cut, sample_interval_s=cut.duration_s)
    entered = res.link("S1-R1").bytes_out / cut.packet_size_bytes
    left = res.link("R1-R2").bytes_out / cut.packet_size_bytes
    assert held == entered - left > 0


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
