"""Who leaves slow start first is set by the flows' order in the slow-start bursts.

Flows that start together reach the bottleneck one first packet per flow in the flows'
order (ties broken by index), the ACK clock keeps that order through slow start, and the
later a flow's packets in each round's train the more of the others' growth they queue
behind: the larger its Δ, the earlier it leaves (docs/round-model.md, "Places in the
burst"). The experiment switches the order: the same 12 Vegas flows started 1 µs apart in
the reverse of their indices (so the last index reaches the bottleneck first). In the packet
simulator Δ then falls with the index instead of rising, and the flows that stop doubling
at 16 packets are the first five indices instead of the last five: the exits follow the
arrival order, not anything else that distinguishes the flows.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

#: 12 Vegas flows, 200 Mb/s × 30 ms, unlimited buffer (tests/fluid/test_rounds_burst_places.py)
N_FLOWS = 12


def _packet_run(start_s: list[float]) -> object:
    sc = rtt_dumbbell(
        200e6, [0.03] * N_FLOWS, ["vegas"] * N_FLOWS, duration_s=0.45, start_s=start_s
    )
    return tcpfluid.simulate(sc, "packet", seed=1).native


def _delta_at_16(flow: object) -> float:
    """Δ of the flow's second round at 16 packets (the round that measures the doubling)."""
    cw = np.asarray(flow.round_cwnd_pkts)  # type: ignore[attr-defined]
    dl = np.asarray(flow.round_delta_pkts)  # type: ignore[attr-defined]
    ks = [k for k in range(1, cw.size) if cw[k] == 16.0 and cw[k - 1] == 16.0]
    assert ks, "no second round at 16 packets"
    return float(dl[ks[0]])


def _stopped_at_16(native: object) -> set[int]:
    peaks = [np.asarray(f.round_cwnd_pkts).max() for f in native.flows]  # type: ignore[attr-defined]
    return {j for j, p in enumerate(peaks) if p < 32.0}


@pytest.mark.parametrize(
    ("order", "start_s"),
    [
        ("index order", [0.0] * N_FLOWS),
        ("reversed", [(N_FLOWS - 1 - j) * 1e-6 for j in range(N_FLOWS)]),
    ],
)
def test_delta_and_the_slow_start_exits_follow_the_arrival_order(order, start_s) -> None:
    """Index order: Δ at 16 packets rises with the index (0.535 … 1.315) and flows 7–11
    stop at 16; reversed: Δ falls with the index (1.53 … 0.25) and flows 0–4 stop at 16.
    Flow 11 of the reversed run starts alone and doubles on (its Δ is the smallest)."""
    native = _packet_run(start_s)
    delta = np.array([_delta_at_16(f) for f in native.flows])  # type: ignore[attr-defined]
    rank = np.arange(N_FLOWS) if order == "index order" else np.arange(N_FLOWS)[::-1]
    # the arrival order (rank 0 first) sorts Δ increasing
    assert np.all(np.diff(delta[np.argsort(rank)]) > 0), delta
    last_five = set(np.argsort(rank)[-5:].tolist())
    assert _stopped_at_16(native) == last_five
