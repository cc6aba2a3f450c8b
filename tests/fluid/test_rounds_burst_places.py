"""The round model's flows read the RTTs of their places in a slow-start round's burst.

Flows that start together send their initial windows over their own access links, so their
first packets reach the bottleneck one per flow in the flows' order; the ACK clock keeps the
order, and in a slow-start round each flow's growth follows the packets it clocks out. The
later a flow in that order, the more of the others' growth its packets queue behind: its
Δ is larger and it leaves slow start first (docs/round-model.md, "Places in the burst").

The numbers asserted come from the packet simulator on the same dumbbell (each flow's Δ per
round as its Vegas sender computes it, and the flows' windows): an independent route.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import rtt_dumbbell

#: 12 Vegas flows that start together, 200 Mb/s × 30 ms, unlimited buffer
N_FLOWS = 12


def _scenario(duration_s: float) -> tcpfluid.Scenario:
    return rtt_dumbbell(200e6, [0.03] * N_FLOWS, ["vegas"] * N_FLOWS, duration_s=duration_s)


@pytest.fixture(scope="module")
def runs() -> tuple[object, object]:
    sc = _scenario(0.45)
    return tcpfluid.simulate(sc, "packet").native, tcpfluid.simulate(sc, "rounds").native


def _round_model_rows(native: object, cwnd: float) -> np.ndarray:
    """The round model's per-flow Δ of the second round at window ``cwnd`` (Vegas grows
    every other round: the round that measures the doubling's packets)."""
    w = np.asarray(native.window_pkts)[:, 0, :]  # type: ignore[attr-defined]
    d = np.asarray(native.delta_pkts)[:, 0, :]  # type: ignore[attr-defined]
    rows = [k for k in range(w.shape[0]) if np.all(w[k] == cwnd) and np.any(d[k] > 0)]
    assert rows, f"no round with every window at {cwnd}"
    return d[rows[0]]


def _packet_delta(native: object, j: int, cwnd: float) -> float:
    f = native.flows[j]  # type: ignore[attr-defined]
    cw = np.asarray(f.round_cwnd_pkts)
    dl = np.asarray(f.round_delta_pkts)
    ks = [k for k in range(1, cw.size) if cw[k] == cwnd and cw[k - 1] == cwnd]
    assert ks, f"packet flow {j} has no second round at {cwnd}"
    return float(dl[ks[0]])


@pytest.mark.parametrize("cwnd", [8.0, 16.0])
def test_each_flow_reads_the_queue_of_its_place_in_the_burst(runs, cwnd) -> None:
    """Δ grows with the flow's place, as in the packets: within 10 % of each packet flow's
    (the packets' first flows queue one packet less per flow than the model's cycles, a
    few per cent); one Δ for all flows (the round's average, 0.96 at 16 packets) is 80 %
    above the first packet flow's and 27 % below the last's."""
    packet, rounds = runs
    model = _round_model_rows(rounds, cwnd)
    for j in (0, 1, N_FLOWS // 2, N_FLOWS - 1):
        want = _packet_delta(packet, j, cwnd)
        assert model[j] == pytest.approx(want, rel=0.10), (j, model[j], want)
    assert np.all(np.diff(model) > 0)


def test_the_later_flows_leave_slow_start_first_as_in_the_packets(runs) -> None:
    """The same flows (the last five in the flows' order) stop doubling at 16 packets in
    both engines; the first seven double to 32."""
    packet, rounds = runs
    w = np.asarray(rounds.window_pkts)[:, 0, :]
    peak_model = w.max(axis=0)
    peak_packets = np.array(
        [np.asarray(f.round_cwnd_pkts).max() for f in packet.flows]  # type: ignore[attr-defined]
    )
    assert set(np.flatnonzero(peak_packets >= 32)) == set(range(7))
    assert set(np.flatnonzero(peak_model >= 32)) == set(np.flatnonzero(peak_packets >= 32))


def test_a_flow_of_another_base_rtt_starting_with_them_takes_no_place() -> None:
    """The placed flows are those that start first with the first one's base RTT
    (:func:`tcpfluid.fluid._rounds_physics.placed_flows`, both engines): beside a 60-ms flow that
    starts with them, the twelve keep their places in the packets (the first seven double
    to 32, the last five stop at 16) and in the round model, which then runs two round
    clocks (placing no flow there, all twelve doubled to 32)."""
    sc = rtt_dumbbell(200e6, [0.03] * N_FLOWS + [0.06], ["vegas"] * (N_FLOWS + 1), duration_s=0.45)
    packet = tcpfluid.simulate(sc, "packet").native
    peak_packets = np.array(
        [np.asarray(f.round_cwnd_pkts).max() for f in packet.flows[:N_FLOWS]]  # type: ignore[attr-defined]
    )
    peak_model = np.nanmax(np.asarray(tcpfluid.simulate(sc, "rounds").window_pkts), axis=1)
    assert set(np.flatnonzero(peak_packets >= 32)) == set(range(7))
    assert set(np.flatnonzero(peak_model[:N_FLOWS] >= 32)) == set(range(7))


#: a path with no access links (``Path.scenario``): each flow's initial window reaches the
#: bottleneck as one run, queued when sent, so the bursts carry one run per flow, not one
#: per initial-window packet
UNSPACED = [
    ("vegas", 2, "50Mb/s", "200ms"),
    ("vegas", 5, "200Mb/s", "80ms"),
    ("enhanced-vegas", 3, "10Mb/s", "80ms"),
    ("quick-vegas", 3, "50Mb/s", "80ms"),
    ("itcp-vegas", 8, "50Mb/s", "80ms"),
]


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
@pytest.mark.parametrize(("law", "n", "rate", "rtt"), UNSPACED)
def test_without_access_links_each_flow_leaves_slow_start_where_the_packets_do(
    engine: str, law: str, n: int, rate: str, rtt: str
) -> None:
    # the packet simulator on the same path is the reference: per flow, the window of the
    # round that leaves slow start, within 5 % (a step apart is ×1.5 or ×2; the hybrid's
    # Quick Vegas windows of ×1.5 steps sit up to a packet below the packet sender's whole
    # packets: 46 and 31 against 47 and 31.5).
    # With the bursts read as interleaved (one cycle per initial-window packet) the first
    # flow left a doubling early (Vegas ×2 on 50 Mb/s × 200 ms: 64 against the packets' 128)
    d = tcpfluid.units.seconds(rtt)
    sc = tcpfluid.Path(rate, rtt).scenario(law, duration=40 * d, flows=n)
    exits = {}
    for eng in ("packet", engine):
        exits[eng] = [f.ss_exit_window_pkts for f in tcpfluid.simulate(sc, eng).summary.flows]
    assert exits[engine] == pytest.approx(exits["packet"], rel=0.05)


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_without_access_links_the_start_locks_out_whole_windows(engine: str) -> None:
    # eight Reno flows, 10 Mb/s × 40 ms, a 3-packet buffer, no access links: the first four
    # packets to arrive are flows 0 and 1's whole windows, the other six flows lose theirs
    # and send nothing before the initial 1-s timer (the packet simulator, the reference:
    # flows 0 and 1 deliver from the first round, the others not before 1 s)
    sc = tcpfluid.Path("10Mb/s", "40ms", buffer=3).scenario("reno", duration=0.9, flows=8)
    for eng in ("packet", engine):
        thr = [f.throughput_pps for f in tcpfluid.simulate(sc, eng).summary.flows]
        assert [x > 0 for x in thr] == [True] * 2 + [False] * 6, eng
