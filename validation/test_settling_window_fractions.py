"""Time to equilibrium of several Enhanced Vegas flows: the packet senders' window fractions.

The switch-off experiment of docs/mechanisms.md, `window-fraction-drift`. A packet sender's
congestion-avoidance increase adds 1/w per ACK; from a whole window the sum ends a few
1e-15 short of the next whole packet, the packet it would release waits for the next
round, and from then on each +1 adds floor(w)/w of a packet: the window carries a
fractional part that shrinks by about f/w at each increase. Enhanced Vegas has no dead band,
so every flow turns where its Δ reading crosses δ, and which round that is depends on
hundredths of a packet; the shrinking fraction moves each flow's reading at the top of its
cycle a little every cycle until one flow turns a round earlier and the flows split the
link again. The fluid engines' windows are whole.

Reference: the packet simulator (the referee) with the mechanism switched off, a law whose
per-ACK increase is 1/floor(w) (a round of floor(w) ACKs then adds exactly one packet, the
window stays whole); the tolerance is the hold-out's for a time (25 % or 3 RTTs,
benchmarks/holdout.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.algorithms.base import SLOW_START, RoundAction
from tcpfluid.algorithms.enhanced_vegas import EnhancedVegas
from tcpfluid.scenarios.topology import rtt_dumbbell

#: the hold-out's tolerance for a time: 25 % of the packet value, or 3 RTTs
REL, RTTS = 0.25, 3.0

# hold-out seed 1's scenario 41 up to its first change (a CBR step at 86.6 s): four
# Enhanced Vegas flows, 46.2 Mb/s, 70.6 ms, a 1203-packet buffer
RATE_BPS, RTT_S, BUFFER_PKTS, DURATION_S = 46.208e6, 0.070573, 1203.0, 86.614
N_FLOWS = 4


class WholeWindowEnhancedVegas(EnhancedVegas):
    """Enhanced Vegas whose congestion-avoidance increase is 1/floor(w) per ACK: the
    round's last ACK reaches the next whole packet and the window stays whole."""

    def on_round(self, state: Any, sample: Any, out: RoundAction | None = None) -> RoundAction:
        act = super().on_round(state, sample, out)
        rising = (state["phase"] != SLOW_START) & (act.incr > 0.0) & (act.incr < 1.0)
        act.incr[...] = np.where(rising, (1.0 + 1e-9) / np.floor(act.cwnd), act.incr)
        return act


def _scenario() -> Any:
    return rtt_dumbbell(
        RATE_BPS,
        [RTT_S] * N_FLOWS,
        ["enhanced-vegas"] * N_FLOWS,
        duration_s=DURATION_S,
        buffer_pkts=BUFFER_PKTS,
        packet_size_bytes=1000,
    )


def _packets(whole: bool) -> Any:
    sc = _scenario()
    laws = {f.name: WholeWindowEnhancedVegas() for f in sc.flows} if whole else None
    return simulate(sc, "packet", seed=1, laws=laws)


def _agree(fluid: float, packet: float) -> bool:
    return abs(fluid - packet) <= max(REL * packet, RTTS * RTT_S)


def _fraction(res: Any, flow: int, t0: float, t1: float) -> float:
    log = res.rounds[flow]
    t, w = np.asarray(log.time_s), np.asarray(log.window_pkts)
    w = w[(t >= t0) & (t < t1)]
    return float(np.median(w - np.floor(w)))


def _readings_before_tops(res: Any, flow: int, t0: float, t1: float) -> Any:
    """Δ read in the round before each top of the flow's cycle (its last +1 decision)."""
    log = res.rounds[flow]
    t, w, d = (np.asarray(a) for a in (log.time_s, log.window_pkts, log.delta_pkts))
    tops = [i for i in range(1, len(t) - 1) if t0 <= t[i] < t1 and w[i - 1] < w[i] > w[i + 1]]
    return d[np.asarray(tops) - 1]


@pytest.fixture(scope="module")
def packets() -> Any:
    return _packets(whole=False)


@pytest.fixture(scope="module")
def whole_packets() -> Any:
    return _packets(whole=True)


def test_packet_window_fractions_shrink_and_the_flows_split_again(packets: Any) -> None:
    # measured: every flow's fraction 0.19-0.20 at 10-12 s, 0.07-0.08 at 24-26 s; flow 0
    # cycles over 103-107 packets until 25.5 s and over 107-111 from 27 s
    for flow in range(N_FLOWS):
        early, late = _fraction(packets, flow, 10.0, 12.0), _fraction(packets, flow, 24.0, 26.0)
        assert 0.1 < early < 0.3 and 0.0 < late < early / 2
    log = packets.rounds[0]
    t, w = np.asarray(log.time_s), np.asarray(log.window_pkts)
    assert w[(t > 10.0) & (t < 25.0)].max() < 108.0
    assert w[(t > 28.0) & (t < 40.0)].min() > 106.0
    # flow 3's reading before its top climbs toward δ = 3 (2.53 at 15.0 s, 2.99 at 24.9 s)
    before = _readings_before_tops(packets, 3, 14.8, 25.2)
    assert before[-1] - before[0] > 0.3 and np.all(np.diff(before) > -0.01)
    # the last step sets the packets' time to equilibrium: 27.6 s
    tte = packets.summary.all_settled_time_s
    assert tte is not None and 26.0 < tte < 29.0


@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_fluid_time_agrees_with_packets_whose_windows_stay_whole(
    engine: str, packets: Any, whole_packets: Any
) -> None:
    # packets 27.6 s; with whole windows 8.0 s (every flow 7.2-8.0 s); round model and
    # hybrid 6.0 s (whole windows; measured on the tree of this test): within the 25 % of
    # 8.0 s by 0.01 s, far outside it of 27.6 s
    fluid = simulate(_scenario(), engine).summary.all_settled_time_s
    default, whole = packets.summary.all_settled_time_s, whole_packets.summary.all_settled_time_s
    assert fluid is not None and default is not None and whole is not None
    assert _agree(fluid, whole)
    assert not _agree(fluid, default)
    for flow in range(N_FLOWS):
        assert _fraction(whole_packets, flow, 10.0, 26.0) == 0.0
        # with whole windows every cycle reads the same (flow 0: 2.925, flow 3: 2.500)
        assert np.ptp(_readings_before_tops(whole_packets, flow, 10.0, 40.0)) < 1e-3


def test_whole_windows_reach_the_packets_final_split_sooner(
    packets: Any, whole_packets: Any
) -> None:
    # the same four cycles, 108.5 / 103.5 / 105.5 / 101.5 packets (flow 0's at 107-111):
    # the fractions' drift delays the split, it does not make it
    default = sorted(f.settled_window_pkts for f in packets.summary.flows)
    whole = sorted(f.settled_window_pkts for f in whole_packets.summary.flows)
    assert np.allclose(default, whole, atol=0.1)
    assert np.ptp(default) > 6.0


# The convergence time after a change, the same switch (docs/mechanisms.md,
# `window-fraction-drift`, "After a change"): two hold-out scenarios whose packet time the
# packets' start-jittered repeat reproduces and both fluid engines miss, built as the
# hold-out builds them (benchmarks/holdout.py). ``join``: seed 119's scenario 49, two
# Enhanced Vegas flows, 1.18 Mb/s x 49.4 ms, an 18-packet buffer, the second flow joining
# at a third of the run; ``cbr``: seed 121's scenario 9, twelve flows, 2.47 Mb/s x
# 5.19 ms, no buffer limit, a CBR source taking 21 % from 5 to 10 s.
_CHANGES: dict[str, dict[str, Any]] = {
    "join": {
        "args": (1180326.195421463, [0.049418490566593825] * 2, ["enhanced-vegas"] * 2),
        "kw": {"duration_s": 55.25473415559217, "buffer_pkts": 18.0,
               "start_s": [0.0, 18.418244718530723]},
        "rtt_s": 0.049418490566593825,
    },
    "cbr": {
        "args": (2467624.6471114126, [0.005185763897836705] * 12, ["enhanced-vegas"] * 12),
        "kw": {"duration_s": 15.0, "cbr": (518910.76092948363, 5.0, 10.0)},
        "rtt_s": 0.005185763897836705,
    },
}  # fmt: skip


def _change_scenario(case: str) -> Any:
    c = _CHANGES[case]
    return rtt_dumbbell(*c["args"], **c["kw"], packet_size_bytes=1000)


def _worst_change(res: Any) -> float:
    """The hold-out's convergence time: the worst change's (every change settled here)."""
    times = res.summary.all_converged_times_s
    assert all(t is not None for t in times)
    return float(max(times))


@pytest.mark.parametrize(
    "case",
    [
        "join",
        pytest.param(
            "cbr",
            marks=pytest.mark.xfail(
                strict=True,
                reason="measured: the hybrid's worst convergence after the CBR start is 0.48 s"
                " against the whole-window packets' 0.0 (the round model 0.0) since the round-"
                "ending step's ACKs beyond the round's first packet grow the next round"
                " (docs/ode-model.md, 'The round-ending step's ACKs'; 0.0 before)",
            ),
        ),
    ],
)
def test_fluid_convergence_agrees_with_packets_whose_windows_stay_whole(case: str) -> None:
    # measured (worst change, s): join: packets 1.73, with whole windows 0.62, round model
    # 0.73, hybrid 0.73; cbr (the CBR start): packets 0.55 (three flows that the fractions
    # left a packet higher step down three rounds after the step), with whole windows 0.0
    # (all twelve flows cycle 3.5-4.5 packets before and after), both fluid engines 0.0
    sc = _change_scenario(case)
    rtt = _CHANGES[case]["rtt_s"]
    whole_laws = {f.name: WholeWindowEnhancedVegas() for f in sc.flows}
    default = _worst_change(simulate(sc, "packet", seed=1))
    whole = _worst_change(simulate(sc, "packet", seed=1, laws=whole_laws))

    def agree(fluid: float, packet: float) -> bool:
        return abs(fluid - packet) <= max(REL * packet, RTTS * rtt)

    for engine in ("rounds", "hybrid"):
        fluid = _worst_change(simulate(sc, engine))
        assert agree(fluid, whole), (engine, fluid, whole)
        assert not agree(fluid, default), (engine, fluid, default)
