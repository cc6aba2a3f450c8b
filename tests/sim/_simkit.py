"""Test helpers for the packet simulator: a fixed-window law and tiny topologies."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from tcpfluid.algorithms import ControlLaw, RoundAction, RoundSample
from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.sim import PacketResult


class FixedWindow(ControlLaw):
    """A law that keeps the window at ``w`` packets and records every sample it sees."""

    name: ClassVar[str] = "fixed-window"

    def __init__(self, w: float) -> None:
        self.w = float(w)
        self.initial_window = self.w
        self.seen: list[dict[str, float]] = []

    def init_state(self, n: int) -> dict[str, NDArray[np.float64]]:
        return {"phase": np.ones(n)}

    def on_round(self, state: dict[str, Any], sample: RoundSample) -> RoundAction:
        self.seen.append(
            {
                "cwnd": float(sample.cwnd[0]),
                "rtt_mean": float(sample.rtt_mean[0]),
                "rtt_min": float(sample.rtt_min[0]),
                "rtt_max": float(sample.rtt_max[0]),
                "base_rtt": float(sample.base_rtt[0]),
                "acks": float(sample.acks[0]),
                # the packet simulator measures the forward delays (never None here)
                "fwd_mean": float(sample.fwd_delay_mean[0]),  # type: ignore[index]
                "fwd_base": float(sample.fwd_delay_base[0]),  # type: ignore[index]
            }
        )
        n = sample.cwnd.shape[0]
        w = np.full(n, self.w)
        return RoundAction(cwnd=w, incr=np.zeros(n), cap=w.copy())

    def on_loss(self, state: Any, index: Any, kind: int, cwnd: Any) -> NDArray[np.float64]:
        return np.full(np.asarray(index).shape[0], self.w)


def two_link(
    *,
    fwd_bps: float = 8e6,
    fwd_delay: float = 0.010,
    rev_bps: float = 320e3,
    rev_delay: float = 0.005,
    buffer: float = float("inf"),
    duration: float = 0.03,
    start: float = 0.0,
) -> Scenario:
    """One forward link F and one ACK link B; with 1000-byte data and 40-byte ACKs the
    defaults give 1 ms per data packet on F and 1 ms per ACK on B."""
    return Scenario(
        name="tiny",
        links=(Link("F", fwd_bps, fwd_delay, buffer), Link("B", rev_bps, rev_delay)),
        flows=(FlowSpec("f", ("F",), ("B",), start_s=start, algorithm=None),),
        duration_s=duration,
    )


def joining_groups(algorithm: str) -> Any:
    """12 flows joining in 3 groups on a 100 Mb/s dumbbell with a 60-packet buffer: slow start,
    congestion avoidance, joins and (for Reno) losses and recoveries in 8 s."""
    from tcpfluid.scenarios import build_scenario

    return build_scenario(
        "qv-many-flows",
        bandwidth="100Mbps",
        flows=12,
        groups=3,
        group_interval="2s",
        active="5s",
        duration="8s",
        buffer=60,
    ).with_algorithm(algorithm)


def assert_same_run(a: Any, b: Any, *, events: bool = True) -> None:
    """Two packet runs are the same: events (unless ``events`` is False), conservation,
    every round and trace array and the links' counters."""
    if events:
        assert a.events == b.events
    assert a.conservation == b.conservation
    np.testing.assert_array_equal(a.t_s, b.t_s)
    for fa, fb in zip(a.flows, b.flows, strict=True):
        for name in ("round_t_s", "round_cwnd_pkts", "round_next_cwnd_pkts",
                     "round_rtt_mean_s", "round_delta_pkts", "round_phase",
                     "round_ssthresh_pkts", "cwnd_pkts", "goodput_pps", "loss_t_s",
                     "loss_cwnd_after_pkts"):  # fmt: skip
            np.testing.assert_array_equal(getattr(fa, name), getattr(fb, name), err_msg=name)
        assert fa.sent_pkts == fb.sent_pkts and fa.retransmissions == fb.retransmissions
    for la, lb in zip(a.links, b.links, strict=True):
        np.testing.assert_array_equal(la.queue_pkts, lb.queue_pkts)
        np.testing.assert_array_equal(la.drops, lb.drops)
        np.testing.assert_array_equal(la.utilization, lb.utilization)
        assert la.drops_total == lb.drops_total
        assert la.arrivals == lb.arrivals and la.max_queue_pkts == lb.max_queue_pkts
        assert la.bytes_out == lb.bytes_out


#: the loss kind of a timeout (``PacketResult`` flows' ``loss_kind``)
TIMEOUT = 3


def spurious_fast_retransmits(res: PacketResult, bottleneck: str = "R1-R2") -> int:
    """Loss events started by duplicate ACKs with no bottleneck drop since the flow's
    previous loss event (one flow: every drop is its own). The drop counter is read at the
    trace sample before each loss event, so the trace must be finer than the flows' RTT:
    with a coarser one a drop just before a loss event is missed and the loss looks
    spurious (hold-out runs on the default trace showed hundreds)."""
    lk = res.link(bottleneck)
    t, drops = res.t_s, lk.drops
    rtt = min(f.base_rtt_s for f in res.flows)
    if len(t) > 1 and t[1] - t[0] > rtt / 4:
        raise ValueError(
            f"trace interval {t[1] - t[0]:g} s is coarser than a quarter of the smallest "
            f"RTT ({rtt:g} s): run with a finer sample_interval_s"
        )
    n = 0
    for f in res.flows:
        before = 0.0
        for tl, kind in zip(f.loss_t_s, f.loss_kind, strict=True):
            i = int(np.searchsorted(t, tl, side="right")) - 1
            now = float(drops[i]) if i >= 0 else 0.0
            if kind != TIMEOUT and now <= before:
                n += 1
            before = now
    return n


def ns2_vegas_option_runs(
    option: str, off: dict[str, Any]
) -> tuple[PacketResult, PacketResult, PacketResult, PacketResult]:
    """Runs of a packet-simulator option of ns-2's Vegas agents, on (``option=True``) and
    off (``off``): two default Vegas senders on a RED dumbbell (the option must leave them
    alone), then eight ns-2 Vegas agents with losses and timeouts (where it acts)."""
    from tcpfluid.scenarios import rtt_dumbbell
    from tcpfluid.sim import simulate_packets

    sc = rtt_dumbbell(
        10e6, [0.02, 0.06], ["vegas", "vegas"], duration_s=8.0, buffer_pkts=12, red=True
    )
    on: dict[str, Any] = {option: True}
    a = simulate_packets(sc, seed=3, **on)
    b = simulate_packets(sc, seed=3, **off)
    many = rtt_dumbbell(
        10e6, [0.02, 0.04, 0.06, 0.08] * 2, ["vegas"] * 8, duration_s=20.0, buffer_pkts=20,
        red=True,
    )  # fmt: skip
    opts: dict[str, Any] = {"seed": 5, "fast_recovery": "ns2-vegas", "timeout_recover": True}
    c = simulate_packets(many, **on, **opts)
    d = simulate_packets(many, **off, **opts)
    return a, b, c, d


def ns2_vegas_agent(cap: int) -> tuple[Any, Any, Any, Any]:
    """One sending ns-2 Vegas agent's state for the packet kernel's round rules, called
    directly: float and int rows, a sample ring of ``cap`` slots (a power of two) and its
    sequence ring."""
    from tcpfluid.sim import _core as C

    ff = np.zeros((1, C.NF))
    fi = np.zeros((1, C.NI), dtype=np.int64)
    fi[0, C.I_RING_CAP] = cap
    fi[0, C.I_STATE] = 1
    return ff, fi, np.zeros(cap), np.zeros((cap, 2), dtype=np.int64)
