"""The fixed-interval traces: utilization is the time each link spent transmitting in each
interval (a transmission that spans a sample time counts in both intervals in proportion),
the last interval ends at the end of the run (shorter than the others when the run is not a
whole number of intervals), and an interval the run cannot hold is refused.

The expected utilization below is computed in the test from the CBR schedule and the link
rates: a FIFO link starts a packet at its arrival or when the one before it ends, and is
busy for ``size·8/rate`` seconds; the time that overlaps each sample interval is summed.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _simkit import FixedWindow

from tcpfluid.scenarios import CbrSource, FlowSpec, Link, Scenario, build_scenario
from tcpfluid.sim import simulate_packets

PKT = 1000  # bytes, the scenario's packet size (CBR packets too)


def _busy_per_interval(arrivals: list[float], rate_bps: float, t: np.ndarray) -> np.ndarray:
    """Per sample interval ``(t[k-1], t[k]]``: the time a FIFO link of ``rate_bps`` receiving
    1000-byte packets at ``arrivals`` spends transmitting (0 for the first sample)."""
    tx = PKT * 8 / rate_bps
    spans, end = [], -np.inf
    for a in arrivals:
        start = max(a, end)
        end = start + tx
        spans.append((start, end))
    busy = np.zeros(t.size)
    for k in range(1, t.size):
        lo, hi = t[k - 1], t[k]
        busy[k] = sum(max(0.0, min(e, hi) - max(s, lo)) for s, e in spans)
    return busy


def _cbr_chain(duration: float) -> Scenario:
    """A CBR source of 5 Mb/s (a 1000-byte packet every 1.6 ms from 1 ms to 41 ms: 25
    packets) over A (8 Mb/s, 10 ms; unlimited, it hands each packet on to B when it admits
    it) and B (4 Mb/s: a queue builds); a fixed-window flow on links of its own."""
    return Scenario(
        name="cbr-chain",
        links=(
            Link("A", 8e6, 0.010),
            Link("B", 4e6, 0.005),
            Link("F", 8e6, 0.010),
            Link("R", 8e6, 0.010),
        ),
        flows=(FlowSpec("f", ("F",), ("R",)),),
        cbr=(CbrSource("c", 5e6, 0.001, 0.041, ("A", "B")),),
        duration_s=duration,
    )


def test_utilization_is_the_busy_time_of_each_interval() -> None:
    # 4.5 ms samples against 1 ms (A) and 2 ms (B) transmissions that start 1.6 ms apart
    # on A: most of them span a sample time; 70 ms is 15 intervals and 2.5 ms
    res = simulate_packets(_cbr_chain(0.070), laws={"f": FixedWindow(1)}, sample_interval_s=0.0045)
    t = res.t_s
    assert t.tolist() == pytest.approx([*(k * 0.0045 for k in range(16)), 0.070], abs=1e-15)
    dt = np.diff(t, prepend=t[:1])
    sent = [0.001 + n * 8 * PKT / 5e6 for n in range(25)]
    at_b = [s + PKT * 8 / 8e6 + 0.010 for s in sent]  # A is idle at each arrival
    for name, arrivals, rate in (("A", sent, 8e6), ("B", at_b, 4e6)):
        busy = _busy_per_interval(arrivals, rate, t)
        lk = res.link(name)
        np.testing.assert_allclose(lk.utilization[1:], busy[1:] / dt[1:], rtol=0, atol=1e-9)
        assert lk.utilization[0] == 0.0
    # B is busy from 12 ms to 62 ms without a gap: every interval inside reads 1
    inside = (t >= 0.012 + 0.0045) & (t <= 0.062)
    assert inside.sum() >= 9
    np.testing.assert_allclose(res.link("B").utilization[inside], 1.0, rtol=0, atol=1e-9)


def test_utilization_never_passes_the_link_rate() -> None:
    # 100 kb/s: 12.5 packets/s, 1.25 packets a 0.1 s interval; whole packets booked at their
    # exit read 2 packets (1.6) in some intervals
    sc = build_scenario("qv-basic", bandwidth="100kbps", duration="20s", cbr="none")
    res = simulate_packets(sc.with_algorithm("reno"))
    for lk in res.links:
        assert lk.utilization.max() <= 1.0 + 1e-9, lk.name  # (rounding)
    assert res.link("R1-R2").utilization.max() == pytest.approx(1.0, abs=1e-9)
    res = simulate_packets(build_scenario("thesis-two-flow", duration="30s").with_algorithm("reno"))
    assert max(lk.utilization.max() for lk in res.links) <= 1.0 + 1e-9


def test_the_last_interval_ends_at_the_end_of_the_run() -> None:
    """7 s in 2 s intervals: samples at 0, 2, 4, 6 and 7 s. Over the run the goodput adds up
    to the packets delivered and the bottleneck's utilization to the bytes it transmitted:
    those that left it, and at most a propagation delay's worth and a packet more."""
    sc = build_scenario("qv-basic", duration="7s", cbr="none", buffer=30).with_algorithm("reno")
    res = simulate_packets(sc, sample_interval_s=2.0)
    assert res.t_s.tolist() == [0.0, 2.0, 4.0, 6.0, 7.0]
    dt = np.diff(res.t_s, prepend=0.0)
    for fl in res.flows:
        assert float(np.sum(fl.goodput_pps * dt)) == pytest.approx(fl.delivered_pkts, abs=1e-9)
    lk, spec = res.link("R1-R2"), sc.link("R1-R2")
    carried = float(np.sum(lk.utilization * dt)) * spec.rate_bps / 8
    on_wire = spec.rate_bps / 8 * spec.delay_s + PKT
    assert lk.bytes_out * (1 - 1e-9) <= carried <= lk.bytes_out + on_wire


def test_a_whole_number_of_intervals_ends_at_the_end_of_the_run() -> None:
    # 0.3 s is three 0.1 s intervals, though 3 * 0.1 is 0.30000000000000004 in floating
    # point: the third interval ends at the end of the run, not after it
    res = simulate_packets(_cbr_chain(0.3), laws={"f": FixedWindow(1)}, sample_interval_s=0.1)
    assert res.t_s.tolist() == [0.0, 0.1, 0.2, 0.3]


def test_a_run_shorter_than_the_default_interval_has_one_interval() -> None:
    # 50 ms against the default 0.1 s: one interval, from 0 to the end of the run
    res = simulate_packets(_cbr_chain(0.05), laws={"f": FixedWindow(1)})
    assert res.t_s.tolist() == [0.0, 0.05]
    assert res.link("A").utilization[1] > 0.0


def test_an_interval_the_run_cannot_hold_is_refused() -> None:
    sc = _cbr_chain(7.0)
    law = {"f": FixedWindow(1)}
    with pytest.raises(ValueError, match=r"^sample_interval_s=1e\+300 is longer than the run "):
        simulate_packets(sc, laws=law, sample_interval_s=1e300)
    with pytest.raises(ValueError) as got:
        simulate_packets(sc, laws=law, sample_interval_s=5e-300)
    message = str(got.value)
    assert message.startswith("sample_interval_s=5e-300 gives 1.4e+300 samples over 7.0 s")
    assert not re.search(r"\d{16}", message)  # no number of hundreds of digits
    # the whole run as one interval is the longest
    assert simulate_packets(sc, laws=law, sample_interval_s=7.0).t_s.tolist() == [0.0, 7.0]
