"""Quick Vegas leaving slow start with several RTT classes (qv-different-rtt, scaled down as
the report's quick mode: 100 Mb/s, two flows per RTT group, 150-packet buffer), the
asynchronous round model against the packet simulator.

With one RTT class the two engines leave slow start in the same round (the critical-window
section). Here the packets' 100-ms and 200-ms flows leave it one round earlier than the
round model's classes: their slow-start trains reach the bottleneck on top of a 50-ms
flows' run (the queue climbs to ~50 packets inside a 100-ms flow's train), whereas a class
of the round model reads the shared standing backlog of all classes plus the queue of its
own class's growth only. Switching the 50-ms flows off
during the others' slow start (they start at 4 s) moves the packets' exits to the round
model's round, and the round model's exits do not move, but for the places in the burst:
the two 100-ms flows then start first, together, on one round clock, and the second of
them leaves slow start a round earlier (70.5 packets, the packets' second 100-ms flow's;
105.5 with the 50-ms flows).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms import QuickVegas
from tcpfluid.analytic import jain_index
from tcpfluid.fairness import period_throughputs
from tcpfluid.fluid import rounds as rounds_module
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

_QUICK = {"bandwidth": "100Mbps", "flows_per_group": 2, "buffer": 150}


def _scenario(duration: str, late_short_flows: bool = False) -> Any:
    sc = build_scenario("qv-different-rtt", duration=duration, **_QUICK)
    sc = sc.with_algorithm("quick-vegas")
    if late_short_flows:  # the two 50-ms flows start after the others left slow start
        flows = tuple(replace(f, start_s=4.0) if i < 2 else f for i, f in enumerate(sc.flows))
        sc = replace(sc, flows=flows)
    return sc


def _packet_exits(sc: Any) -> list[tuple[float, float]]:
    """(time, window) of each flow's slow-start exit decision in the packet run."""
    out = []
    for f in simulate_packets(sc).flows:
        i = int(np.flatnonzero(np.asarray(f.round_phase) > 0)[0])
        out.append((float(f.round_t_s[i]), float(f.round_cwnd_pkts[i])))
    return out


def _round_exits(res: Any) -> list[tuple[float, float]]:
    """(time, window) of each flow's slow-start exit decision in the round model (a row's
    phase is the one its round was sent in: the decision ended the row before)."""
    n = res.native
    t = np.ravel(n.time_s)
    out = []
    for f in range(n.window_pkts.shape[-1]):
        m = n.flow_rows(f)
        i = int(np.flatnonzero(n.phase[m, 0, f] > 0)[0]) - 1
        out.append((float(t[m][i]), float(n.window_pkts[m, 0, f][i])))
    return out


def test_the_packets_long_rtt_flows_leave_slow_start_early_behind_the_short_flows_queue() -> None:
    d = {0: 0.05, 2: 0.1, 4: 0.2}
    pk = _packet_exits(_scenario("6s"))
    pk_late = _packet_exits(_scenario("6s", late_short_flows=True))
    rm = _round_exits(simulate(_scenario("6s"), "rounds"))
    rm_late = _round_exits(simulate(_scenario("6s", late_short_flows=True), "rounds"))
    for f in (2, 3, 4, 5):  # the 100-ms and 200-ms flows
        g = 2 * (f // 2)
        # packets: with the 50-ms flows running, the exit comes at least a round earlier
        # (x 1.5 per round in slow start) than without them
        assert pk_late[f][0] >= pk[f][0] + 0.9 * d[g]
        assert pk_late[f][1] >= 1.45 * pk[f][1]
        if f == 3:  # (placed without the 50-ms flows: a round earlier, the packets' window)
            assert rm_late[f][1] == pytest.approx(pk_late[f][1])
            assert abs(rm[f][0] - rm_late[f][0] - d[g]) <= 0.05 * d[g]
        else:
            # the round model's exit does not depend on the 50-ms flows: the same window,
            # in the same round (its end moves by the 50-ms flows' queue, 2 ms of 200)
            assert rm_late[f][1] == pytest.approx(rm[f][1])
            assert abs(rm_late[f][0] - rm[f][0]) <= 0.05 * d[g]
        # ... and is the packets' without the 50-ms flows, at the same time (both engines'
        # first round sends the first window without growth: no ACK returns before it ends)
        assert any(
            abs(rm[f][0] - t) <= 0.3 * d[g] and w == pytest.approx(rm[f][1])
            for t, w in pk_late[f - f % 2 : f - f % 2 + 2]
        )
        # with them, the packets leave a round before the round model
        assert rm[f][0] - pk[f][0] >= -0.3 * d[g] and rm[f][1] > 1.4 * pk[f][1]
    # the one-class 50-ms flows leave in the same round in both engines, at the same time
    for f in (0, 1):
        assert abs(rm[f][0] - pk[f][0]) <= 0.3 * d[0] and rm[f][1] == pytest.approx(pk[f][1])


def _first_jain(res: Any, start: list[float], stop: list[float], edges: list[float]) -> float:
    """Jain's index of the flows active over the whole first period: each flow's
    cumulative delivered packets are its public per-sample rates integrated (sample ``j``
    covers ``(t_{j-1}, t_j]``, ``t_{-1} = 0``)."""
    delivered = np.cumsum(res.throughput_pps * np.diff(res.time_s, prepend=0.0), axis=-1)
    _flows, thr = period_throughputs(res.time_s, delivered, start, stop, edges)[0]
    return float(jain_index(thr))


def test_round_model_exits_moved_to_the_packets_round_lower_the_first_index() -> None:
    """The first 10-s index (round model 0.786, packets 0.707): moving the round model's
    100-ms and 200-ms exits a round earlier, to the packets' round (a per-flow γ below
    their Δ there, the switch), lowers it to 0.757. The rest of the gap is not the exits
    and is not explained here (the packets also deliver less in 0-10 s: ~101 000 against
    the round model's ~111 000 packets of the link's 125 000)."""
    sc = _scenario("40s")
    edges = [0.0, 10.0]
    start = [f.start_s for f in sc.flows]
    stop = [min(f.stop_s, sc.duration_s) for f in sc.flows]
    pk = _first_jain(simulate(sc, "packet"), start, stop, edges)
    got = {}
    original = rounds_module.get_law
    for g in (1.0, 0.45):
        gamma = np.array([1.0, 1.0, g, g, g, g])

        def law(name: str, gamma: Any = gamma, **params: Any) -> QuickVegas:
            return QuickVegas(**{**params, "gamma": gamma})

        rounds_module.get_law = law
        try:
            r = simulate(sc, "rounds")
        finally:
            rounds_module.get_law = original
        got[g] = (
            _round_exits(r),
            _first_jain(r, start, stop, edges),
        )
    (ex1, j1), (ex2, j2) = got[1.0], got[0.45]
    assert all(ex2[f][0] < ex1[f][0] for f in (2, 3, 4, 5))  # a round earlier
    assert j1 - pk > 0.05  # the row's disagreement
    assert j2 < j1 - 0.02 and abs(j2 - pk) < abs(j1 - pk)
