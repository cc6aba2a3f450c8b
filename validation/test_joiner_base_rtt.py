"""A joining Vegas flow's share follows the BaseRTT it measures (docs/fluid-promises.md,
"Why joiners' shares part").

Four Vegas flows on 50 Mb/s x 40 ms (unlimited buffer) and a fifth joining at 10 s of 30 s.
A joiner takes as BaseRTT the smallest RTT it sees, which holds the queue the four others
keep; it then keeps that queue on top of its own α-β, so the more queue it finds, the more
of the link it takes. The packet simulator's joiner finds the others' backlog (their Δ's
sum); so does the hybrid model's, whose four flows leave slow start at their places in the
burst and rest across the band as the packet flows do (identical, they rested together at
the bottom and its joiner found 1.59 ms and took 0.201). Swapped in the round model (the
joiner's BaseRTT pinned, once it joins, to each engine's measured value), the round model's
share follows: with the packets' BaseRTT it is the packets' share, with the hybrid model's
it is the hybrid model's.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import Scenario, rtt_dumbbell

RATE_BPS, RTT_S, JOIN_S = 50e6, 0.04, 10.0
N_FIRST = 4
#: one 1000-byte packet's service time on the bottleneck, s
PACKET_S = 8000.0 / RATE_BPS


def _scenario() -> Scenario:
    n = N_FIRST + 1
    return rtt_dumbbell(
        RATE_BPS, [RTT_S] * n, ["vegas"] * n, duration_s=30.0,
        start_s=[0.0] * N_FIRST + [JOIN_S],
    )  # fmt: skip


def _shares(res: tcpfluid.Result) -> np.ndarray:
    thr = np.array([f.throughput_pps for f in res.summary.flows], dtype=np.float64)
    return thr / thr.sum()


def _round_model_share(joiner_base_rtt_s: float) -> float:
    """The round model's joiner's share with the joiner given ``joiner_base_rtt_s`` from
    its first round on (the switch of the experiment)."""
    res = tcpfluid.simulate(_scenario(), "rounds", joiner_base_rtt_s=joiner_base_rtt_s)
    return float(_shares(res)[N_FIRST])


@pytest.fixture(scope="module")
def runs() -> dict[str, tcpfluid.Result]:
    sc = _scenario()
    return {e: tcpfluid.simulate(sc, e) for e in ("packet", "hybrid")}


def test_the_packet_joiner_finds_the_others_backlog(runs: dict[str, tcpfluid.Result]) -> None:
    """The independent route: the packet joiner's BaseRTT exceeds the others' by the
    backlog they hold when it joins (the sum of their Δ, about 12 packets: 1.9 ms), give or
    take the packet its own first packet may wait behind."""
    flows = runs["packet"].native.flows
    backlog = 0.0
    for f in flows[:N_FIRST]:
        t = np.asarray(f.round_t_s)
        backlog += float(np.asarray(f.round_delta_pkts)[t < JOIN_S][-1])
    excess = float(flows[N_FIRST].base_rtt_s - flows[0].base_rtt_s) / PACKET_S
    assert 8.0 < backlog < 16.0, backlog
    assert abs(excess - backlog) <= 1.5, (excess, backlog)


def test_the_hybrid_joiner_finds_the_packet_joiners_queue_and_share(
    runs: dict[str, tcpfluid.Result],
) -> None:
    """The hybrid model's four flows leave slow start at their places in the burst and rest
    across the band as the packet flows do: its joiner's BaseRTT holds the packet joiner's
    queue within one packet (the packets' own granularity) and its share is within the
    hold-out's 10 % of the packet share (measured: 0.005 ms apart; 0.252 against 0.250)."""
    base = {e: float(r.base_rtt_s[N_FIRST]) for e, r in runs.items()}
    assert abs(base["packet"] - base["hybrid"]) < PACKET_S, base
    share = {e: float(_shares(r)[N_FIRST]) for e, r in runs.items()}
    assert abs(share["hybrid"] - share["packet"]) < 0.1 * share["packet"], share


@pytest.mark.parametrize("engine", ["packet", "hybrid"])
def test_the_round_models_joiner_takes_the_share_of_the_base_rtt_it_is_given(
    runs: dict[str, tcpfluid.Result], engine: str
) -> None:
    """The swap (``joiner_base_rtt_s``): the round model's joiner given the BaseRTT the
    packet (hybrid) joiner measured takes the packet (hybrid) joiner's share, within the
    hold-out's 10 %."""
    got = _round_model_share(float(runs[engine].base_rtt_s[N_FIRST]))
    want = float(_shares(runs[engine])[N_FIRST])
    assert abs(got - want) <= 0.10 * want, (got, want)


def test_the_round_models_joiner_with_the_paths_base_rtt_takes_far_less(
    runs: dict[str, tcpfluid.Result],
) -> None:
    """Switched off (``joiner_base_rtt_s``, the path's least RTT: no queue in its
    BaseRTT): its share falls below 60 % of the packet joiner's."""
    got = _round_model_share(float(runs["packet"].base_rtt_s[0]))
    assert got < 0.6 * float(_shares(runs["packet"])[N_FIRST]), got
