"""The hybrid fluid model with an ACK-path bottleneck (the asymmetric-network paper, Fu,
Chung and Liew), against the packet simulator, the paper's printed values and its closed
forms.

The hybrid's ACK path: ACKs queue behind the reverse link of rate μr (drop-tail, in ACKs);
a surviving ACK acknowledges all earlier data (cumulative ACKs), so the data of a dropped
ACK leaves with the next one and the sender's clock runs at the forward departures while
per-ACK increments count the ACKs that arrive.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from tcpfluid.algorithms import LOSS_FAST, LOSS_TIMEOUT, get_law
from tcpfluid.algorithms.reno import Reno
from tcpfluid.fluid import simulate_hybrid
from tcpfluid.fluid.ode import simulate_scenario_ode
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.reduction import fluid_view
from tcpfluid.sim import simulate_packets

MU_F = 200.0  # the paper's forward link: 1.6 Mb/s of 1000-byte packets
DURATION = 100.0  # s, the report's runs
#: the report's tolerance on the asymmetric throughputs
REL = 0.15


def _scenario(algorithm: str, **overrides: Any) -> Any:
    p: dict[str, Any] = {"duration": f"{DURATION:g}s", **overrides}
    if algorithm != "reno":
        p.update(alpha=1, beta=3)
    return build_scenario("asymmetric", **p).with_algorithm(algorithm)


def _summary(r: Any) -> Any:
    assert r.summary is not None
    return r.summary


def _packet_throughput(sc: Any, law: Any = None) -> float:
    laws = None if law is None else {sc.flows[0].name: law}
    r = simulate_packets(sc, laws=laws)
    return float(r.flows[0].delivered_pkts) / DURATION


def _hybrid_throughput(sc: Any, law: Any = None) -> float:
    if law is None:
        s = _summary(simulate_scenario_ode(sc))
        assert s.model == "hybrid"
        return float(s.throughput_pps[0])
    v = fluid_view(sc)
    h = simulate_hybrid(
        law,
        mu_pps=v.path.mu,
        base_rtt_s=v.base_rtt_s,
        duration_s=DURATION,
        buffer_pkts=v.path.buffer_pkts,
        reverse_mu_pps=v.path.reverse_mu,
        reverse_buffer_pkts=v.path.reverse_buffer_pkts,
    )
    return float(h.flows[0].delivered_pkts) / DURATION


def test_the_ode_engine_runs_the_hybrid_on_an_ack_path_bottleneck() -> None:
    r = simulate_scenario_ode(_scenario("vegas", k=5, duration="10s"))
    assert _summary(r).model == "hybrid"
    # the classical model stays available by name
    c = simulate_scenario_ode(_scenario("vegas", k=5, duration="10s"), model="classical")
    assert _summary(c).model != "hybrid"


@pytest.mark.parametrize("k", [3, 5, 7])
def test_vegas_carries_the_reverse_rate_like_the_packet_simulator(k: int) -> None:
    # the asymmetric-networks paper §IV: the ACK queue is in Vegas's RTT, so Vegas settles
    # at min(μf, μr) and drops no ACK at B_r = 10 > β: every ACK acknowledges one packet
    sc = _scenario("vegas", k=k)
    hyb = _hybrid_throughput(sc)
    assert hyb == pytest.approx(_packet_throughput(sc), rel=REL)
    assert hyb == pytest.approx(min(MU_F, MU_F / k), rel=0.03)


@pytest.mark.parametrize(("k", "printed"), [(3, 190.0), (5, 193.0), (7, 189.0)])
def test_forward_vegas_reaches_the_forward_rate_through_cumulative_acks(
    k: int, printed: float
) -> None:
    # the asymmetric-networks paper §V, Table III: forward-path Vegas carries ~μf although
    # the ACK link carries only μf/k ACKs/s: surviving ACKs acknowledge the data of the dropped ones
    sc = _scenario("forward-vegas", k=k)
    hyb = _hybrid_throughput(sc)
    assert hyb == pytest.approx(printed, rel=REL)
    assert hyb > 2.5 * MU_F / k  # far beyond one packet per ACK
    # the packet simulator's forward-path Vegas is burstier (dropped ACKs release packets
    # in bursts into a 15-packet buffer): 163-196 pkt/s where the paper prints 189-193;
    # the hybrid is within 20 % of it
    assert hyb == pytest.approx(_packet_throughput(sc), rel=0.20)


def test_without_cumulative_acks_forward_vegas_would_be_held_to_the_reverse_rate() -> None:
    # switch-off: the classical ODE's ACK path carries one ACK per packet (no cumulative
    # ACKs): there forward-path Vegas cannot pass μr, which is what the hybrid's
    # cumulative ACKs remove
    sc = _scenario("forward-vegas", k=7)
    classical = _summary(simulate_scenario_ode(sc, model="classical")).throughput_pps[0]
    assert classical == pytest.approx(MU_F / 7, rel=0.05)
    assert _hybrid_throughput(sc) > 5.0 * classical


class _NoOvershootReno(Reno):
    """Reno starting with ssthresh = 40 packets: slow start ends before it overshoots the
    path (the switch-off of the slow-start overshoot)."""

    def init_state(self, n: int) -> dict[str, Any]:
        st = super().init_state(n)
        st["ssthresh"][:] = 40.0
        return st


@pytest.mark.parametrize(
    "overrides",
    [
        {"k": 3},
        {"k": 5},
        {"k": 7},
        {"k": 5, "reverse_buffer": 20},
        {"k": 5, "reverse_buffer": 40},
        {"k": 5, "reverse_buffer": 100},
    ],
)
def test_reno_tracks_the_packet_simulator_without_the_slow_start_overshoot(
    overrides: dict[str, Any],
) -> None:
    # With the overshoot switched off, Reno's congestion avoidance (one packet per ACK'd
    # window, clocked by the μr surviving ACKs: w² grows by 2 μr per second) and the
    # losses the cumulative-ACK bursts cause agree between the two engines.
    sc = _scenario("reno", **overrides)
    hyb = _hybrid_throughput(sc, _NoOvershootReno())
    assert hyb == pytest.approx(_packet_throughput(sc, _NoOvershootReno()), rel=REL)


def test_reno_overshoot_ends_in_a_timeout_and_the_default_hybrid_carries_what_the_packets_do() -> (
    None
):
    # The slow-start overshoot (132 packets at k = 7) loses dozens of packets; NewReno
    # repairs one per RTT and the timeout fires (the packet sender with ns-2's bugFix_,
    # timeout_recover=True: the go-back's duplicate ACKs start no further fast retransmit),
    # so the loss event is a fast retransmit at 132 packets and a timeout at 66, and the
    # window regrows from one packet to 33 and on by one packet per RTT for the rest of the
    # run. The hybrid reports that loss as LOSS_BURST_TIMEOUT (the flow's ACKs were being
    # dropped) and the default Reno recovery ends it at the 2-packet floor: within 15 % of
    # the packets over the run (101.3 against 111.0 pkts/s). Without bugFix_ the go-back's
    # retransmissions lost again cut the packet window to the floor (92.0 pkts/s).
    sc = _scenario("reno", k=7)
    pk = simulate_packets(sc, timeout_recover=True)
    fl = pk.flows[0]
    assert fl.timeouts >= 1
    assert fl.loss_kind.tolist() == [LOSS_FAST, LOSS_TIMEOUT]  # a fast retransmit, then the timeout
    packets = float(fl.delivered_pkts) / DURATION
    assert _hybrid_throughput(sc) == pytest.approx(packets, rel=REL)


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "measured: switched to one halving per loss (recovery='halving') the hybrid carries "
        "118.9 pkts/s against the packets' 111.0 (160.2 before the hybrid's timeout with "
        "duplicate ACKs behind its holes reached the law as a fast retransmit and then a "
        "timeout at the halved window, docs/ode-model.md), so the halving no longer stands "
        "apart from the packets by more than 15 %"
    ),
)
def test_reno_overshoot_with_one_halving_per_loss_carries_far_more_than_the_packets() -> None:
    sc = _scenario("reno", k=7)
    fl = simulate_packets(sc, timeout_recover=True).flows[0]
    packets = float(fl.delivered_pkts) / DURATION
    halving = sc.with_algorithm("reno", recovery="halving")
    assert len(simulate_scenario_ode(halving).hybrid.flows[0].loss_t_s) == 1
    assert _hybrid_throughput(halving) > (1.0 + REL) * packets


def test_reno_at_a_two_ack_reverse_buffer() -> None:
    # B_r = 2: nearly every ACK is dropped and each surviving one releases a burst; without
    # the overshoot the hybrid is within 25 % of packets (it counts one window cut per
    # overflow where the packet NewReno cuts two or three times per episode)
    sc = _scenario("reno", k=5, reverse_buffer=2)
    hyb = _hybrid_throughput(sc, _NoOvershootReno())
    assert hyb == pytest.approx(_packet_throughput(sc, _NoOvershootReno()), rel=0.25)


def test_delayed_acks_double_the_data_each_ack_releases() -> None:
    # Vegas behind an ACK-path bottleneck with one ACK per two packets carries 2 μr (the
    # model's own statement, checked by hand; the packet simulator's delayed ACKs also
    # wait for a 100 ms timer, which this model does not have: 42 pkt/s there)
    v = fluid_view(_scenario("vegas", k=7))
    h = simulate_hybrid(
        get_law("vegas", alpha=1, beta=3),
        mu_pps=v.path.mu,
        base_rtt_s=v.base_rtt_s,
        duration_s=60.0,
        buffer_pkts=v.path.buffer_pkts,
        reverse_mu_pps=v.path.reverse_mu,
        reverse_buffer_pkts=v.path.reverse_buffer_pkts,
        packets_per_ack=2.0,
    )
    thr = float(h.throughput_pps[0, h.time_s > 30.0].mean())
    assert thr == pytest.approx(2.0 * MU_F / 7, rel=0.05)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"reverse_mu_pps": 0.0}, "reverse_mu_pps"),
        ({"reverse_mu_pps": 10.0, "reverse_buffer_pkts": 0.5}, "reverse_buffer_pkts"),
        ({"packets_per_ack": 0.5}, "packets_per_ack"),
        ({"packets_per_ack": math.nan}, "packets_per_ack"),
        ({"rtt_sample": "queue"}, "rtt_sample"),
        ({"drop_share": "random"}, "drop_share"),
    ],
)
def test_bad_ack_path_input_is_a_value_error_naming_it(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        simulate_hybrid(get_law("vegas"), mu_pps=100.0, base_rtt_s=[0.1], duration_s=1.0, **kwargs)


def test_the_ode_engine_reports_the_hybrid_ack_path_queue() -> None:
    # Reno at k = 5 fills the 10-ACK reverse buffer (its ACKs arrive faster than μr): the
    # ode engine's reverse_queue_pkts is the hybrid's ACK-path queue, within the buffer
    # (it was reported as zeros); without an ACK-path bottleneck it stays zero.
    r = simulate_scenario_ode(_scenario("reno", k=5, duration="20s"))
    b_r = fluid_view(_scenario("reno", k=5)).path.reverse_buffer_pkts
    assert b_r is not None
    q = r.reverse_queue_pkts
    assert 0.5 * b_r < float(q.max()) <= b_r + 1e-6
    plain = simulate_scenario_ode(build_scenario("qv-basic", duration="5s").with_algorithm("vegas"))
    assert float(np.max(plain.reverse_queue_pkts)) == 0.0
