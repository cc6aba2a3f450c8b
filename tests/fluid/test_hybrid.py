"""The hybrid fluid model on its own: equilibria from the laws' definitions, conservation,
input checks. (Agreement with the packet simulator: validation/test_cross_layer.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.fluid import simulate_hybrid
from tcpfluid.queueing import red_parameters

MU = 1000.0  # packets/s
D = 0.1  # s: mu d = 100 packets


def test_vegas_settles_with_alpha_to_beta_packets_queued() -> None:
    # Vegas's equilibrium (the Quick Vegas paper eq 2, the asymmetric-networks paper eqs
    # 1-4): the window is the pipe mu d plus a backlog in [alpha, beta] = [2, 4] (one
    # packet of slack each side for the +-1 steps of the last rounds)
    r = simulate_hybrid(get_law("vegas"), mu_pps=MU, base_rtt_s=[D], duration_s=60.0)
    w = r.window_pkts[0, -1]
    assert MU * D + 2 - 1 <= w <= MU * D + 4 + 1
    assert 1.0 <= r.queue_pkts[-1] <= 5.0


def test_fast_keeps_alpha_packets_queued() -> None:
    # FAST's fixed point w = w BaseRTT/RTT + alpha: alpha = 100 packets in the queue
    r = simulate_hybrid(get_law("fast"), mu_pps=MU, base_rtt_s=[D], duration_s=30.0)
    assert r.queue_pkts[-1] == pytest.approx(100.0, rel=0.05)


#: the packet simulator's throughputs (packets/s) and Jain index of two Vegas flows that
#: start together on 8 Mb/s (1000-byte packets: MU) × 100 ms, 60 s
#: (``tcpfluid.simulate(rtt_dumbbell(8e6, [0.1, 0.1], ["vegas"] * 2, duration_s=60.0),
#: "packet")``): the second flow's packets queue behind the first's growth in every
#: slow-start round, it leaves slow start first and settles smaller (49.3 against 58.5
#: packets)
PACKET_TWO_VEGAS_PPS = (529.1, 443.1)
PACKET_TWO_VEGAS_JAIN = 0.9922


def test_delivery_never_exceeds_the_bottleneck_and_two_flows_split_it_by_their_places() -> None:
    """Two Vegas flows that start together split the link by their places in the
    slow-start burst (docs/ode-model.md, "Places in the slow-start burst"), as the packet
    senders do: each flow's throughput within 2 % of its packet flow's (the settled
    windows, 58.0 and 48.0 packets, are a fluid's, within 2.5 % of the senders'; measured
    +0.9 % and −0.9 %), the index within 0.003 of theirs (measured 0.9906). Identical
    flows would have an index of 1."""
    r = simulate_hybrid(get_law("vegas"), mu_pps=MU, base_rtt_s=[D, D], duration_s=60.0)
    s = r.summary
    assert r.carried_pkts <= MU * 60.0 + 1e-6
    assert 0.0 < s.utilization <= 1.0
    assert float(np.sum(s.throughput_pps)) <= MU + 1e-9
    assert list(s.throughput_pps) == pytest.approx(PACKET_TWO_VEGAS_PPS, rel=0.02)
    assert s.jain_index == pytest.approx(PACKET_TWO_VEGAS_JAIN, abs=0.003)


def test_drop_tail_losses_call_the_law_and_red_drops_early() -> None:
    reno = get_law("reno")
    dt = simulate_hybrid(reno, mu_pps=MU, base_rtt_s=[D], duration_s=30.0, buffer_pkts=20.0)
    assert dt.flows[0].loss_t_s.size >= 1
    # Reno's sawtooth never holds more than mu d + B in flight
    assert dt.window_pkts[0, dt.time_s > 10.0].max() <= MU * D + 20.0 + 2.0
    red = red_parameters({"min_th": 5, "max_th": 15})
    rr = simulate_hybrid(
        reno, mu_pps=MU, base_rtt_s=[D], duration_s=30.0, buffer_pkts=100.0, red=red
    )
    assert rr.flows[0].loss_t_s.size >= 1
    assert rr.queue_pkts[rr.time_s > 10.0].max() < 100.0  # RED drops before the buffer fills


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"base_rtt_s": [5e-324]}, "time steps"),
        ({"base_rtt_s": [0.0]}, "base_rtt_s"),
        ({"base_rtt_s": [math.nan]}, "base_rtt_s"),
        ({"mu_pps": -1.0}, "mu_pps"),
        ({"duration_s": math.inf}, "duration_s"),
        ({"buffer_pkts": 0.5}, "buffer_pkts"),
        ({"dt_s": 0.05}, "dt_s"),
        ({"cross_traffic": [(2000.0, 0.0, 10.0)]}, "cross traffic"),
        ({"cross_traffic": [(0.0, 0.0, 10.0)]}, "cbr"),
        ({"flow_start_s": [5.0], "flow_stop_s": [1.0]}, "flow_stop_s"),
    ],
)
def test_bad_input_is_a_value_error_naming_it(kwargs: dict[str, object], match: str) -> None:
    args: dict[str, object] = {"mu_pps": MU, "base_rtt_s": [D], "duration_s": 10.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        simulate_hybrid(get_law("vegas"), **args)  # type: ignore[arg-type]


def test_whole_packets_takes_a_bool_and_only_the_hybrid_model_reads_it() -> None:
    with pytest.raises(TypeError, match="whole_packets"):
        simulate_hybrid(
            get_law("vegas"), mu_pps=MU, base_rtt_s=[D], duration_s=1.0, whole_packets=1
        )
    from tcpfluid.fluid import simulate_scenario_ode
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario("qv-basic", duration="2s").with_algorithm("vegas")
    with pytest.raises(TypeError, match=r"whole_packets.*hybrid"):
        simulate_scenario_ode(sc, model="classical", whole_packets=True)


def test_whole_packets_keeps_the_floor_of_the_window_in_flight() -> None:
    # One Vegas flow alone (α = 2, β = 4 packets of queue): in equilibrium the queue is what
    # the flight holds beyond the pipe μd. With whole packets the flight is ⌊w⌋, so the
    # standing queue is ⌊w⌋ − μd, a whole number of packets above a whole-number pipe,
    # while the fluid's is w − μd.
    args: dict[str, object] = {"mu_pps": MU, "base_rtt_s": [D], "duration_s": 30.0}
    h = simulate_hybrid(get_law("vegas"), whole_packets=True, **args)  # type: ignore[arg-type]
    w = h.window_pkts[0, -1]
    pipe = MU * D
    assert h.queue_pkts[-1] == pytest.approx(math.floor(w) - pipe, abs=0.01)
    f = simulate_hybrid(get_law("vegas"), **args)  # type: ignore[arg-type]
    assert f.queue_pkts[-1] == pytest.approx(f.window_pkts[0, -1] - pipe, abs=0.01)


def test_a_run_shorter_than_one_rtt_delivers_nothing() -> None:
    r = simulate_hybrid(get_law("vegas"), mu_pps=MU, base_rtt_s=[D], duration_s=0.05)
    assert r.summary.to_dict()["throughput_pps"] == [0.0]
