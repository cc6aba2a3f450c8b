"""Property tests: random small networks, every run conserves packets and respects buffers.

Nothing here is an expected number: the invariants hold for any configuration
(conservation, a queue never above its buffer plus the packet in transmission, in-order
delivery never above what was sent, determinism for a seed).
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.sim import simulate_packets


@st.composite
def networks(draw: st.DrawFn) -> tuple[Scenario, bool, int]:
    n = draw(st.integers(1, 3))
    rate = draw(st.sampled_from([1e6, 5e6, 2e7]))
    buf = draw(st.integers(1, 30))
    red = draw(st.booleans())
    rev_rate = draw(st.sampled_from([32e3, 1e6, 2e7]))
    rev_buf = draw(st.sampled_from([float("inf"), 3.0, 10.0]))
    core = Link(
        "C",
        rate,
        draw(st.sampled_from([0.001, 0.01, 0.04])),
        buf,
        discipline="red" if red else "drop-tail",
        red={"min_th": 1, "max_th": 1 + buf / 2, "max_p": 0.2, "w_q": 0.2} if red else {},
    )
    links = [core, Link("R", rev_rate, 0.01, rev_buf)]
    flows = []
    for i in range(n):
        links += [Link(f"a{i}", 1e8, draw(st.sampled_from([0.0, 0.002, 0.02])))]
        flows.append(
            FlowSpec(
                f"f{i}",
                (f"a{i}", "C"),
                ("R",),
                start_s=draw(st.sampled_from([0.0, 0.3])),
                algorithm=draw(st.sampled_from(["vegas", "reno", "quick-vegas", "fast"])),
            )
        )
    sc = Scenario(name="random", links=tuple(links), flows=tuple(flows), duration_s=2.0)
    return sc, draw(st.booleans()), draw(st.integers(0, 3))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(networks())
def test_random_networks_conserve_and_respect_buffers(case: tuple[Scenario, bool, int]) -> None:
    sc, delayed, seed = case
    res = simulate_packets(sc, delayed_ack=delayed, seed=seed, sample_interval_s=0.05)
    assert res.conserved
    for lk, spec in zip(res.links, sc.links, strict=True):
        if np.isfinite(spec.buffer_pkts):
            assert lk.max_queue_pkts <= spec.buffer_pkts + 1
        assert np.all(np.diff(lk.drops) >= 0)
    for f in res.flows:
        assert f.delivered_pkts <= f.sent_pkts
        assert np.all(np.diff(f.round_t_s) > 0)
        assert np.all(f.round_next_cwnd_pkts >= 1)
    again = simulate_packets(sc, delayed_ack=delayed, seed=seed, sample_interval_s=0.05)
    assert again.events == res.events
    assert again.conservation == res.conservation
