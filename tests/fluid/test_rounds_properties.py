"""Invariants of the round model over random paths, laws and cross traffic (hypothesis).

Whatever the law, the bottleneck cannot carry more than its capacity, the flows cannot
deliver more than they sent, the queue never exceeds a finite buffer, every reported
number is finite, and every flow has a window from its first round on (for a flow the
simultaneous start locks out: from the retransmission that gets through).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.registry import ALGORITHMS as LAWS
from tcpfluid.fluid import CrossTraffic, PathBatch, simulate_rounds


@settings(max_examples=30, deadline=None)
@given(
    law=st.sampled_from(LAWS),
    bdp=st.floats(5.0, 2000.0),
    d=st.floats(0.01, 0.5),
    buffer=st.one_of(st.just(np.inf), st.floats(1.0, 500.0)),
    cross_fraction=st.floats(0.0, 0.9),
    rtt=st.sampled_from(["average", "last", "fluid"]),
    n_flows=st.integers(1, 3),
)
def test_capacity_and_buffer_are_respected(
    law: str, bdp: float, d: float, buffer: float, cross_fraction: float, rtt: str, n_flows: int
) -> None:
    mu = bdp / d
    if law == "reno" and not np.isfinite(buffer):
        buffer = bdp  # Reno needs losses to stay bounded
    cross = [CrossTraffic(mu * cross_fraction, 5.0 * d, 50.0 * d)] if cross_fraction > 0 else []
    tr = simulate_rounds(
        get_law(law),
        PathBatch(mu, d, buffer_pkts=buffer),
        rounds=150,
        n_flows=n_flows,
        rtt=rtt,  # type: ignore[arg-type]
        cross_traffic=cross,
    )
    s = tr.summary
    # every flow has a window from its first round on; a flow the simultaneous start locks
    # out has none until a retransmission gets through, and one locked out to the end none
    # (docs/round-model.md, "Lock-out at a simultaneous start")
    assert np.all(np.isfinite(tr.window_pkts))
    has = tr.window_pkts[:, 0, :] > 0
    assert np.all(has == (np.cumsum(has, axis=0) > 0))
    out = np.zeros(n_flows, dtype=bool) if tr.locked_out is None else tr.locked_out[0]
    assert np.all(has[-1] != out) and not has[:, out].any()
    assert s.utilization[0] <= 1.0 + 1e-9
    # per-round delivery never exceeds the rate left by the cross traffic
    dur = np.diff(tr.time_s[:, 0], prepend=0.0)
    start = tr.time_s[:, 0] - dur
    on = (start >= 5.0 * d) & (start < 50.0 * d) if cross else np.zeros_like(start, dtype=bool)
    avail = mu * (1.0 - np.where(on, cross_fraction, 0.0))
    assert np.all(tr.throughput_pps[:, 0, :].sum(axis=1) <= avail * (1 + 1e-9))
    # delivered <= sent
    assert np.all(tr.delivered_pkts[0] <= tr.window_pkts[:, 0, :].sum(axis=0) + 1e-6)
    if np.isfinite(buffer):
        assert np.all(tr.queue_pkts <= buffer * (1 + 1e-9))
    assert np.all(np.isfinite(s.throughput_pps))
