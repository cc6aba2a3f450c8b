"""The base RTT of flows that start together on an idle bottleneck (docs/round-model.md,
"First packets"), on the TCP-Ho paper's Table 7 network (scenario ho-friendliness: 20
connections on 10 Mb/s x 1 ms, 1 Gb/s access links, 120-packet drop-tail buffer).

Twenty initial windows of two packets are 40 packets on a pipe of 8.6: the bottleneck's
queue never falls below 31 packets again (20 flows at the 2-packet floor), so each flow's
base RTT is whatever its first packet measured. The packet simulator's first packets reach
the bottleneck one per flow, in the flows' order, 8 µs apart on the access links, so flow
k's first packet queues behind k others: its base RTT is the least RTT of the path plus k
packet times (6.85 ms + k x 0.8 ms). The round model gives the same. Reading instead the
round's standing backlog of all 40 packets for every flow (32 ms) puts the Vegas flows'
[α, β] resting point at larger windows: at Reno x5 with Vegas x15 the round model's spread,
Reno and Vegas means are then 0.54, 965, 345 kb/s against the packet simulator's 0.70,
1106, 298 (all three outside the report's tolerances).
"""

from __future__ import annotations

import numpy as np

from tcpfluid.engines import simulate
from tcpfluid.report import TOLERANCES
from tcpfluid.report._sec_tcp_ho_tables import ho_table_run
from tcpfluid.scenarios import build_scenario

#: one 1000-byte packet's transmission time on the 10 Mb/s bottleneck, s
PACKET_TIME_S = 1000 * 8 / 10e6


#: the mix whose rows the base RTTs decide: Reno x5 with Vegas x15
MIX = "reno:5,vegas:15"


def test_the_packet_simulators_first_packets_queue_one_per_flow() -> None:
    """The independent route: each packet flow's base RTT is the path's least RTT plus one
    packet time per flow ahead of it in the start order."""
    sc = build_scenario("ho-friendliness", algorithm=MIX)
    flows = simulate(sc, "packet").native.flows
    base = np.array([f.base_rtt_s for f in flows])
    least = float(sc.base_rtt_s(sc.flows[0]))  # propagation and one transmission, 6.85 ms
    expected = least + PACKET_TIME_S * np.arange(len(flows))
    np.testing.assert_allclose(base, expected, rtol=0, atol=2e-5)  # 6.85 ... 22.05 ms


def test_the_round_models_base_rtts_are_the_packet_simulators() -> None:
    """The base RTT each round-model law holds (``Result.base_rtt_s``, a running minimum)
    equals the packet simulator's, flow by flow. (It cannot be read back from the recorded
    Δ = w (1 − base/RTT) and the recorded ``rtt_s``: that is the round's RTT, while each
    placed flow's law reads its place in the round's train in every phase,
    docs/round-model.md, "Places in every phase".)"""
    sc = build_scenario("ho-friendliness", algorithm=MIX)
    packet = np.array([f.base_rtt_s for f in simulate(sc, "packet").native.flows])
    base = np.asarray(simulate(sc, "rounds").base_rtt_s)
    np.testing.assert_allclose(base, packet, rtol=0, atol=2e-5)


def test_reno_x5_with_vegas_x15_round_model_agrees_with_the_packets() -> None:
    """The section's three cells of the mix: the round model within the report's
    tolerances of the packet simulator (0.71, 1115, 295 against 0.70, 1106, 298)."""
    runs = {e: ho_table_run("ho-friendliness", MIX, e) for e in ("packet", "rounds")}

    def cells(r: dict) -> tuple[float, float, float]:
        thr = np.array(r["throughput_pps"])
        algs = np.array(r["algorithms"])
        cv = float(np.std(thr) / np.mean(thr))
        return cv, 8.0 * thr[algs == "reno"].mean(), 8.0 * thr[algs == "vegas"].mean()

    (cv_p, reno_p, vegas_p), (cv_r, reno_r, vegas_r) = cells(runs["packet"]), cells(runs["rounds"])
    assert TOLERANCES["share spread"].passes(cv_r, cv_p), (cv_r, cv_p)
    assert TOLERANCES["throughput"].passes(reno_r, reno_p), (reno_r, reno_p)
    assert TOLERANCES["throughput"].passes(vegas_r, vegas_p), (vegas_r, vegas_p)
