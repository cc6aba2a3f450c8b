"""iTCP-Vegas flows started together part in the ramp and meet again at rest in the packets.

Two iTCP-Vegas flows on 786 Mb/s × 5.13 ms with a 367-packet buffer (hold-out seed 87,
scenario 52's path without its CBR step; 5 s). Their packets cross the bottleneck in the
flows' order in every round, so in Area 1's ramp the second flow reads the queue the
first one's growth added (docs/round-model.md, "Places in the burst"), leaves Area 1
earlier and holds less: over 0.25-0.5 s the packet flows hold 287.6 and 243.6 packets.
With the thresholds following the window the smaller flow's Δ reaches its band later in
each cycle of the queue, so the flows meet again (267.5 and 261.7 over 3-5 s): every flow
settles only after that, at 0.58 s. The parting is the first packets' order, and the
hold-out's start jitter keeps it (the second sender 10 µs late: 294.7 / 232.4, 0.78 s).

The switch-off experiment: the second sender half a round (2.56 ms) late, so its train no
longer queues behind the first one's growth: 267.1 / 258.6 in the ramp, settled at 0.33 s.

Neither fluid engine follows both halves (docs/fluid-promises.md, "iTCP-Vegas against the
packets' own repeat"): the round model parts the flows as the packets do (282.3 / 248.8)
but rests parted (277.8 / 253.4, its places kept at rest: docs/round-model.md, "Places at
rest") and settles at 0.27 s; the hybrid model's places end with slow start, its flows
barely part (259.6 / 271.4) and settle at 0.25 s, the time of the shifted packet run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms import get_law
from tcpfluid.algorithms.base import RoundSample
from tcpfluid.scenarios import rtt_dumbbell

MU_BPS, RTT_S, BUFFER_PKTS, DURATION_S = 785759437.33, 0.00512978, 367, 5.0
#: the ramp's stretch after slow start, and the stretch at rest, s
RAMP_S, REST_S = (0.25, 0.5), (3.0, 5.0)
#: the hold-out's start jitter on this path is at most two packet times (20 µs)
JITTER_S = 1e-5
HALF_ROUND_S = 0.00256
#: the round sample's fields and the round log's columns they are read from
_SAMPLE = {
    "cwnd": "window_pkts",
    "base_rtt": "base_rtt_s",
    "rtt_mean": "rtt_mean_s",
    "rtt_min": "rtt_min_s",
    "rtt_max": "rtt_max_s",
}


def _run(engine: str, **opts: Any) -> Any:
    sc = rtt_dumbbell(
        MU_BPS, [RTT_S] * 2, ["itcp-vegas"] * 2, buffer_pkts=BUFFER_PKTS, duration_s=DURATION_S
    )
    return tcpfluid.simulate(sc, engine, **opts)


def _means(result: Any, span: tuple[float, float]) -> np.ndarray:
    """Each flow's mean window over the rounds that end in ``span``, packets."""
    out = []
    for log in result.rounds:
        m = (log.time_s >= span[0]) & (log.time_s < span[1])
        out.append(log.window_pkts[m].mean())
    return np.array(out)


def _parting(result: Any, span: tuple[float, float]) -> float:
    """The larger flow's mean window over the smaller's, less one."""
    w = _means(result, span)
    return float(w.max() / w.min() - 1.0)


@pytest.fixture(scope="module")
def packets() -> Any:
    return _run("packet")


@pytest.fixture(scope="module")
def shifted() -> Any:
    return _run("packet", start_delay_s=(0.0, HALF_ROUND_S))


def test_packet_flows_part_in_the_ramp_and_meet_at_rest(packets: Any) -> None:
    """Started together: 18 % apart in the ramp (287.6 / 243.6), within 3 % at rest (267.5 /
    261.7)."""
    assert _parting(packets, RAMP_S) > 0.10
    assert _parting(packets, REST_S) < 0.05


def test_the_start_jitter_keeps_the_parting(packets: Any, shifted: Any) -> None:
    """The second sender 10 µs late (within the hold-out's jitter): still over 10 % apart in
    the ramp and settled later than with it half a round late (0.78 s against 0.33 s)."""
    jittered = _run("packet", start_delay_s=(0.0, JITTER_S))
    assert _parting(jittered, RAMP_S) > 0.10
    assert jittered.summary.all_settled_time_s > 1.5 * shifted.summary.all_settled_time_s


def test_half_a_round_apart_the_flows_do_not_part(packets: Any, shifted: Any) -> None:
    """Switched off (the second sender half a round late): under 5 % apart in the ramp (267.1
    / 258.6), and every flow settled in under three quarters of the time it takes started
    together (0.33 s against 0.58 s)."""
    assert _parting(shifted, RAMP_S) < 0.05
    assert shifted.summary.all_settled_time_s < 0.75 * packets.summary.all_settled_time_s


def test_round_model_parts_as_the_packets(packets: Any) -> None:
    """The round model's ramp: each flow's mean within 3 % of the packet flow's (282.3 /
    248.8 against 287.6 / 243.6)."""
    assert _means(_run("rounds"), RAMP_S) == pytest.approx(_means(packets, RAMP_S), rel=0.03)


@pytest.mark.xfail(
    strict=True,
    reason="the round model keeps its flows' places at rest: 277.8 / 253.4 over 3-5 s, 9.6 % "
    "apart, where the packet flows meet (267.5 / 261.7)",
)
def test_round_model_meets_again_at_rest(packets: Any) -> None:
    """The round model's flows within 5 % of each other at rest, as the packets'."""
    assert _parting(_run("rounds"), REST_S) < 0.05


def test_hybrid_model_barely_parts(packets: Any) -> None:
    """The hybrid model's ramp parts the flows by under half the packets' parting (4.5 %
    against 18 %): its places end with slow start."""
    assert _parting(_run("hybrid"), RAMP_S) < 0.5 * _parting(packets, RAMP_S)


@pytest.mark.xfail(
    strict=True,
    reason="the hybrid model's flows do not part, so they settle at 0.25 s, where the packet "
    "flows started together settle at 0.58 s after meeting again",
)
def test_hybrid_model_settles_when_the_packets_do(packets: Any) -> None:
    """Every flow settled within the hold-out's 25 % of the packets' time."""
    got = _run("hybrid").summary.all_settled_time_s
    assert got == pytest.approx(packets.summary.all_settled_time_s, rel=0.25)


def test_packet_sender_carries_out_the_law(packets: Any) -> None:
    """The packet run is the law's: the law replayed on each flow's recorded rounds (window,
    BaseRTT, mean RTT) sets every boundary's window exactly, and the per-ACK growth of each
    round reaches the law's cap within 0.2 packet (the sender's per-ACK sums trail it:
    `test_packet_increments_reach_the_cap.py`)."""
    for log in packets.rounds:
        law = get_law("itcp-vegas")
        state = law.init_state(1)
        new, cap = [], []
        for j in range(len(log.time_s)):
            one = {k: np.array([getattr(log, c)[j]]) for k, c in _SAMPLE.items()}
            act = law.on_round(state, RoundSample(**one, acks=one["cwnd"]))
            new.append(float(act.cwnd[0]))
            cap.append(float(act.cap[0]))
        assert np.array(new) == pytest.approx(log.next_window_pkts, abs=1e-9)
        shortfall = np.array(cap[:-1]) - log.window_pkts[1:]
        assert shortfall.max() < 0.2 and shortfall.min() > -1e-9
