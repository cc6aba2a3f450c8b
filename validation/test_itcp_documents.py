"""iTCP-Vegas in both engines against the iTCP-Vegas paper, §4.2 (Table 1, Fig. 6's text, Table 2).

The law's amounts are our interpretation (``tcpfluid.algorithms.itcp_vegas``): ``p_step``
is fitted to these five runs and ``threshold_gain`` to the RTT rise of Fig. 6's text, so
these tests check that the interpretation, run by two independent engines, stays at the
document's printed numbers. Durations are the paper's (100 s, 200 s): the averages are over
them. To keep the file to a few seconds the packet engine runs Table 1 and the two ends of
Table 2 (RTT 240 and 840 ms); the round model runs every row.

"Reaching the bandwidth limitation" is read as the window reaching the path's
bandwidth-delay product μd (the link is full from then on: the fluid model of the Quick Vegas
paper's §4).
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.fluid import simulate_scenario_rounds
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

PKT_BITS = 8 * 1000  # the scenario's 1000-byte packets
# Table 2 of the iTCP-Vegas paper: RTT (ms) -> (average throughput in 200 s, Mb/s; time to reach
# the bandwidth limitation, s)
TABLE2 = {240: (144.17, 22.13), 440: (127.48, 57.29), 640: (106.07, 102.52), 840: (80.35, 156.35)}


def _table2_scenario(rtt_ms: int):
    return build_scenario(
        "itcp-long-delay",
        algorithm="itcp-vegas",
        bandwidth="155Mbps",
        rtt=f"{rtt_ms}ms",
        duration="200s",
    )


def _rounds_view(sc):
    tr = simulate_scenario_rounds(sc)
    return {
        "t": tr.time_s[:, 0],
        "w": tr.window_pkts[:, 0, 0],
        "rtt": tr.rtt_s[:, 0],
        "mbps": float(np.ravel(tr.summary.throughput_pps)[0]) * PKT_BITS / 1e6,
        "ss_exit_s": float(np.ravel(tr.summary.ss_exit_time_s)[0]),
        "bdp": sc.fluid_view().path.bdp,
    }


def _packet_view(sc):
    res = simulate_packets(sc)
    ft = res.flow("S1-D1")
    return {
        "t": np.asarray(ft.round_t_s),
        "w": np.asarray(ft.round_cwnd_pkts),
        "rtt": np.asarray(ft.round_rtt_mean_s),
        "mbps": float(res.summary.throughput_pps[0]) * PKT_BITS / 1e6,
        "ss_exit_s": float(res.summary.ss_exit_time_s[0]),
        "bdp": sc.fluid_view().path.bdp,
    }


def _reach_s(v) -> float:
    full = v["w"] >= v["bdp"]
    assert full.any(), "the window never reached the bandwidth-delay product"
    return float(v["t"][np.argmax(full)])


@pytest.fixture(scope="module", params=["rounds", "packet"])
def table1(request):
    sc = build_scenario("itcp-long-delay", algorithm="itcp-vegas")
    return _rounds_view(sc) if request.param == "rounds" else _packet_view(sc)


def test_table1_path_by_hand():
    # 622 Mb/s / 8000 bit = 77 750 packets/s; RTT 2 × (10 + 110 + 10) ms = 260 ms plus the
    # transmission of a 1000-byte packet (3 links: 1 Gb/s, 622 Mb/s, 1 Gb/s) and a 40-byte
    # ACK on the way back (eq 5 of the Quick Vegas paper)
    sc = build_scenario("itcp-long-delay")
    d = 0.26 + 8000 / 1e9 * 2 + 8000 / 622e6 + 320 / 1e9 * 2 + 320 / 622e6
    path = sc.fluid_view().path
    assert path.mu == pytest.approx(77750.0)
    assert path.bdp == pytest.approx(77750.0 * d, rel=1e-12)


def test_table1_slow_start_ends_near_4s(table1):
    # §4.2: "switch the phase from slow-start phase to congestion avoidance phase as
    # t = 4 seconds". Tolerance 0.8 s, three rounds of 0.26 s: Vegas's slow start doubles
    # every other round (two rounds of granularity), and the exit time is the end of the
    # round in which the exit window's own RTTs are read, one round after it was sent
    # (the round numbering of docs/analytic.md; the document gives no such detail).
    assert table1["ss_exit_s"] == pytest.approx(4.0, abs=0.8)


def test_table1_average_throughput(table1):
    # Table 1: iTCP-Vegas averages 412.32 Mb/s over 100 s. Tolerance 5 %: p_step is a
    # compromise fitted over this run and Table 2's four (module docstring of the law).
    assert table1["mbps"] == pytest.approx(412.32, rel=0.05)


def test_table1_link_fills_near_54s_then_rtt_270ms(table1):
    # Fig. 6's text: RTT 260 ms during the ramp; "in 54th second the RTT value is
    # increased around 10 ms abruptly and then kept in 270 ms".
    t, rtt = table1["t"], table1["rtt"]
    reach = _reach_s(table1)
    assert reach == pytest.approx(54.0, rel=0.10)  # the fitted ramp: 50.7-51.0 s
    ramp = (t > 10.0) & (t < reach - 5.0)
    assert np.all(np.abs(rtt[ramp] - 0.260) < 0.002)  # "RTT of 260 ms"
    after = t > reach + 15.0
    # "around 10 ms": ± 3 ms; "kept": flat to within 0.5 ms (5 % of the rise) to the end
    # of the run, i.e. the thresholds do not creep up with noisy rounds
    assert np.all(np.abs(rtt[after] - 0.270) < 0.003)
    assert np.ptp(rtt[after]) < 0.0005


@pytest.mark.parametrize("rtt_ms", sorted(TABLE2))
def test_table2_round_model(rtt_ms):
    avg, reach = TABLE2[rtt_ms]
    v = _rounds_view(_table2_scenario(rtt_ms))
    # tolerances: 5 % on averages, 10 % on times (the paper's ramps gather more early
    # than our quadratic one: fitting both leaves residuals of this size)
    assert v["mbps"] == pytest.approx(avg, rel=0.05)
    assert _reach_s(v) == pytest.approx(reach, rel=0.10)


@pytest.mark.parametrize("rtt_ms", [240, 840])
def test_table2_packet_engine(rtt_ms):
    avg, reach = TABLE2[rtt_ms]
    v = _packet_view(_table2_scenario(rtt_ms))
    # as the round model, with 6 % on averages: at 840 ms the packet run is 5 % low
    # (76.3 vs 80.35 Mb/s) where the round model is 3.6 % low
    assert v["mbps"] == pytest.approx(avg, rel=0.06)
    assert _reach_s(v) == pytest.approx(reach, rel=0.10)


def test_table2_half_bandwidth_within_80s_below_500ms():
    # §4.2: "the iTCP-Vegas reaches the half bandwidth in 80 seconds when the RTT is less
    # 500 ms" (RTT 240 and 440 ms); half the bandwidth = window μd/2
    for rtt_ms in (240, 440):
        v = _rounds_view(_table2_scenario(rtt_ms))
        half = v["w"] >= v["bdp"] / 2
        assert half.any() and v["t"][np.argmax(half)] < 80.0


def test_table2_ordering_and_vegas_baseline():
    # Table 2: the longer the RTT, the lower the average and the later the limit.
    views = [_rounds_view(_table2_scenario(r)) for r in sorted(TABLE2)]
    mbps = [v["mbps"] for v in views]
    reach = [_reach_s(v) for v in views]
    assert mbps == sorted(mbps, reverse=True) and reach == sorted(reach)
    # Table 1: TCP Vegas averages 15.33 Mb/s on the 622 Mb/s path. Tolerance 25 %: Vegas's
    # average is set by its slow-start exit window (one doubling apart is a factor 2), and
    # ours exits at 512 packets; 15.33 Mb/s is a mean window of 15.33e6 × 0.26 / 8000 = 498.
    sc = build_scenario("itcp-long-delay", algorithm="vegas")
    vegas = _rounds_view(sc)["mbps"]
    assert vegas == pytest.approx(15.33, rel=0.25)
