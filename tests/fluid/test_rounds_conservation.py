"""The round model never carries more than the link, and no flow delivers fewer than
no packets.

The bottleneck serves at most μ packets per second; whatever the laws, base RTTs, buffer
(infinite included) and cross traffic, the packets the flows deliver plus the cross
traffic carried over a run cannot exceed ``μ × time``. Flows of unequal base RTT run
rounds that overlap in time; counting each round at a rate fixed at its start let the
two thesis flows carry 113 % of the link (Reno, infinite buffer) before the engine
integrated the bottleneck's output between events.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.mixed import MixedLaw
from tcpfluid.fluid import CrossTraffic, PathBatch, simulate_rounds
from tcpfluid.fluid.rounds import simulate_rounds_async
from tcpfluid.path import Path
from tcpfluid.scenarios import build_scenario

LAWS = ("vegas", "quick-vegas", "reno", "fast", "tcp-ho", "enhanced-vegas", "itcp-vegas")


@st.composite
def _runs(draw: st.DrawFn) -> dict[str, object]:
    n = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(LAWS), min_size=n, max_size=n))
    rtts = draw(st.lists(st.sampled_from([0.01, 0.02, 0.05, 0.1, 0.2]), min_size=n, max_size=n))
    mu = draw(st.floats(100.0, 3000.0))
    buffer = draw(st.sampled_from([math.inf, 5.0, 20.0, 60.0, 200.0]))
    cross = []
    if draw(st.booleans()):
        start = draw(st.floats(0.0, 5.0))
        cross = [
            CrossTraffic(draw(st.floats(0.05, 0.8)) * mu, start, start + draw(st.floats(1, 8)))
        ]
    return {"names": names, "rtts": rtts, "mu": mu, "buffer": buffer, "cross": cross}


def _law(names: list[str]) -> tcpfluid.algorithms.ControlLaw:
    if len(set(names)) == 1:
        return get_law(names[0])
    distinct = list(dict.fromkeys(names))
    groups = [[j for j, x in enumerate(names) if x == name] for name in distinct]
    return MixedLaw([get_law(x) for x in distinct], groups)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs())
def test_delivered_never_exceeds_capacity_times_time(run: dict[str, object]) -> None:
    names, rtts = run["names"], run["rtts"]
    mu, buffer = float(run["mu"]), float(run["buffer"])  # type: ignore[arg-type]
    tr = simulate_rounds_async(
        _law(names),  # type: ignore[arg-type]
        Path(mu, 0.1, buffer=buffer),
        rtts,
        duration_s=8.0,
        cross_traffic=run["cross"],  # type: ignore[arg-type]
        record=(),
    )
    capacity = mu * float(tr.elapsed_s[0])
    assert float(tr.carried_pkts[0]) <= capacity * (1.0 + 1e-12)
    assert float(tr.delivered_pkts.sum()) <= capacity * (1.0 + 1e-12)
    assert float(tr.summary.utilization[0]) <= 1.0 + 1e-12
    assert bool((tr.delivered_pkts >= 0.0).all())  # no flow delivers fewer than nothing


def test_losses_charged_beyond_a_cut_window_deliver_nothing_not_less() -> None:
    """Five FAST flows of three base RTTs, joins, a leave and a cross-traffic step, drop-tail
    overflows shared in turn: a flow charged at other classes' rounds with more packets
    than the window it has cut to since delivers nothing in that round, never a negative
    count (which once made a flow's total negative and its summary refuse to compute)."""
    tr = simulate_rounds_async(
        get_law("fast"),
        Path(800.0, 0.05, buffer=50),
        [0.02, 0.02, 0.06, 0.15, 0.15],
        duration_s=25.0,
        flow_start_s=[0.0, 2.0, 0.0, 1.0, 5.0],
        flow_stop_s=[math.inf, 20.0, math.inf, math.inf, math.inf],
        cross_traffic=[CrossTraffic(200.0, 8.0, 15.0)],
        drop_share="in-turn",
    )
    assert bool((tr.delivered_pkts >= 0.0).all())
    assert bool((tr.throughput_pps >= 0.0).all())
    thr = tr.summary.throughput_pps[0]
    assert bool((thr >= 0.0).all()) and float(tr.summary.utilization[0]) <= 1.0 + 1e-12


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from(LAWS),
    st.integers(1, 5),
    st.sampled_from([math.inf, 3.0, 30.0]),
    st.booleans(),
)
def test_a_batch_of_one_base_rtt_never_exceeds_capacity(
    name: str, flows: int, buffer: float, cross: bool
) -> None:
    # the synchronous clock (one class), a batch of paths of many BDPs
    mu = np.array([200.0, 1000.0, 5000.0])
    paths = PathBatch(mu, np.array([0.02, 0.1, 0.05]), buffer_pkts=buffer)
    tr = simulate_rounds(
        get_law(name),
        paths,
        n_flows=flows,
        duration_s=10.0,
        cross_traffic=[CrossTraffic(0.4 * mu, 2.0, 6.0)] if cross else (),
        record=(),
    )
    assert np.all(tr.carried_pkts <= mu * tr.elapsed_s * (1.0 + 1e-12))
    assert np.all(tr.summary.utilization <= 1.0 + 1e-12)


def test_two_reno_flows_of_unequal_rtt_on_an_infinite_buffer_fill_the_link_exactly() -> None:
    """Reno never loses on an infinite buffer, so after its first round the link is never
    idle: the packet simulator carries 99.98 % of the link (the first RTTs empty). The
    round model carries all of it, within 1 % (its first rounds are a few tens of ms)."""
    sc = build_scenario("thesis-two-flow", buffer="inf", duration="60s").with_algorithm("reno")
    u = tcpfluid.simulate(sc, "rounds").summary.to_dict()["utilization"]
    assert 0.99 <= u <= 1.0 + 1e-12
