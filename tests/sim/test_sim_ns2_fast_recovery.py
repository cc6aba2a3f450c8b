"""ns-2's FAST TCP module's SACK recovery (``simulate_packets(fast_recovery="ns2-fast")``;
docs/simulator.md, "Fast recovery").

One Reno flow from a one-packet window on 10 Mb/s x 20 ms with a 3-packet drop-tail buffer:
slow start overflows the buffer once in the first 0.3 s, and the bottleneck drops five data
packets of that window (its drop counter: the only losses of the path, whose links keep
packets in order). Until that loss is detected both senders are the same (same packets,
same drops). The receiver's cumulative ACK (the delivered count) stalls at each hole until
its retransmission arrives:

* NewReno (RFC 6582) retransmits the next hole at each partial ACK, so its holes are filled
  one base RTT apart (the queue holds at most three packets, 2.4 ms);
* the SACK sender knows every hole below the highest packet the receiver reported, and
  retransmits them as soon as its packets in flight fall below the halved window: the holes
  that have reported packets above them are filled within one RTT of the first.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.scenarios import rtt_dumbbell
from tcpfluid.scenarios.mix import with_flow_params
from tcpfluid.sim import PacketResult, simulate_packets

_DT = 0.0002  # trace step, s: a quarter of a packet's transmission time (0.8 ms)


def _run(fast_recovery: str) -> PacketResult:
    sc = rtt_dumbbell(10e6, [0.02], ["reno"], duration_s=0.3, buffer_pkts=3)
    sc = with_flow_params(sc, None, {"initial_window": 1.0})
    return simulate_packets(sc, fast_recovery=fast_recovery, sample_interval_s=_DT)


def _fills(res: PacketResult) -> tuple[float, np.ndarray, np.ndarray]:
    """(time of the loss event, the times after it at which the delivered count rises, and
    the count just before each rise)."""
    fl = res.flows[0]
    t = np.asarray(res.t_s)
    dt = np.diff(t, prepend=0.0)
    delivered = np.rint(np.cumsum(np.asarray(fl.goodput_pps) * dt))
    t0 = float(fl.loss_t_s[0])
    up = np.flatnonzero(np.diff(delivered) > 0) + 1
    up = up[t[up] > t0]
    return t0, t[up], delivered[up - 1]


@pytest.fixture(scope="module")
def runs() -> dict[str, PacketResult]:
    return {rec: _run(rec) for rec in ("newreno", "ns2-fast")}


def test_one_window_with_five_holes(runs: dict[str, PacketResult]) -> None:
    for res in runs.values():
        fl = res.flows[0]
        assert res.conserved
        assert len(fl.loss_t_s) == 1 and fl.timeouts == 0
        (drops,) = [lk.data_drops for lk in res.links if lk.drops_total > 0]
        assert drops == 5
        # each hole retransmitted once (no packet re-sent after two average RTTs)
        assert fl.retransmissions == drops
    assert runs["newreno"].flows[0].loss_t_s[0] == runs["ns2-fast"].flows[0].loss_t_s[0]


def test_newreno_fills_one_hole_per_rtt(runs: dict[str, PacketResult]) -> None:
    res = runs["newreno"]
    base = res.scenario.base_rtt_s(res.scenario.flows[0])
    _, times, _ = _fills(res)
    # the first five rises are the five holes, each a partial ACK's retransmission, one
    # base RTT (plus at most the 3-packet queue) after the one before
    gaps = np.diff(times[:5])
    assert np.all(gaps >= base - _DT)
    assert np.all(gaps <= base + 3 * 0.0008 + _DT)


def test_sack_fills_the_holes_below_the_reported_packets_in_one_rtt(
    runs: dict[str, PacketResult],
) -> None:
    base = runs["newreno"].scenario.base_rtt_s(runs["newreno"].scenario.flows[0])
    _, nr_times, nr_before = _fills(runs["newreno"])
    _, times, before = _fills(runs["ns2-fast"])
    # NewReno's holes: the counts at which it stalls before each of its first five rises
    holes = nr_before[:5]
    # the SACK sender's first retransmission is the same fast retransmit
    assert times[0] == pytest.approx(nr_times[0], abs=_DT)
    # within one RTT of it, three holes are filled (NewReno: one)
    within = before[times < times[0] + 0.9 * base]
    assert np.isin(holes, within).sum() >= 3
    assert np.isin(holes, nr_before[nr_times < nr_times[0] + 0.9 * base]).sum() == 1
    # and the last hole is filled two RTTs before NewReno fills it
    last = times[np.flatnonzero(before == holes[-1])[0]]
    assert last <= nr_times[4] - 2 * base + _DT


@pytest.mark.parametrize(
    "red,delayed_ack,scenario",
    [(False, False, "dumbbell"), (True, True, "dumbbell"), (False, False, "asymmetric")],
)
def test_sack_senders_conserve_packets(red: bool, delayed_ack: bool, scenario: str) -> None:
    # several SACK senders of different laws through drops (drop-tail or RED), delayed ACKs,
    # and a reverse bottleneck that drops ACKs (SACK reports lost with them)
    from tcpfluid.scenarios import build_scenario

    if scenario == "asymmetric":
        sc = build_scenario("asymmetric", algorithm="reno", duration="30s")
    else:
        sc = rtt_dumbbell(
            10e6, [0.02, 0.05, 0.08], ["fast", "reno", "vegas"], duration_s=20.0,
            buffer_pkts=20, red=red,
        )  # fmt: skip
    res = simulate_packets(sc, fast_recovery="ns2-fast", delayed_ack=delayed_ack)
    assert res.conserved
    assert sum(f.fast_retransmits for f in res.flows) > 0
    assert sum(f.delivered_pkts for f in res.flows) > 0
