"""A joiner reaches the bottleneck its own access delay after it starts (docs/fluid-promises.md,
"Why joiners' shares part").

Two Vegas flows of 20 ms on 20 Mb/s (unlimited buffer), a third of 80.5 ms joining at
10 s of 30 s together with a CBR source of 40 % of the link. The joiner takes as BaseRTT
the queue it finds, and the CBR builds that queue from 10 s: the later the joiner's first
packets reach the bottleneck, the more CBR queue they find and the larger its share. On
the dumbbell its access links are 17.5 ms one way, so its packets reach the bottleneck
15 ms after the first flows' would. Switched off (the same RTT with the delay on the far
side: 2.5 ms before the bottleneck, 32.5 ms after it) the packet joiner's BaseRTT is
0.8 ms lower and its share 0.201 against 0.225. The fluid engines queue a flow's packets
when it sends them and start each flow at its start time, so both variants give them one
result (hybrid 0.207, round model 0.232): strict expected failures below.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios import Scenario, rtt_dumbbell

RATE_BPS, JOIN_S = 20e6, 10.0
#: the joiner's one-way access delays before and after the bottleneck, s (dumbbell: equal)
SPLITS = {"lead": (0.0175, 0.0175), "no lead": (0.0025, 0.0325)}


def _scenario(split: str) -> Scenario:
    sc = rtt_dumbbell(
        RATE_BPS, [0.02, 0.02, 0.08], ["vegas"] * 3, duration_s=30.0,
        start_s=[0.0, 0.0, JOIN_S], cbr=(0.4 * RATE_BPS, JOIN_S, math.inf),
    )  # fmt: skip
    before, after = SPLITS[split]
    delay = {"S3-R1": before, "R1-S3": before, "R2-D3": after, "D3-R2": after}
    links = tuple(
        dataclasses.replace(lk, delay_s=delay[lk.name]) if lk.name in delay else lk
        for lk in sc.links
    )
    return dataclasses.replace(sc, links=links)


def _joiner_share(res: tcpfluid.Result) -> float:
    thr = np.array([f.throughput_pps for f in res.summary.flows], dtype=np.float64)
    return float(thr[2] / thr.sum())


@pytest.fixture(scope="module")
def shares() -> dict[tuple[str, str], float]:
    out = {}
    for split in SPLITS:
        sc = _scenario(split)
        for engine in ("packet", "rounds", "hybrid"):
            opts = {"seed": 1} if engine == "packet" else {}
            out[split, engine] = _joiner_share(tcpfluid.simulate(sc, engine, **opts))
    return out


def test_both_splits_have_one_rtt() -> None:
    a, b = (_scenario(s).base_rtts_s() for s in SPLITS)
    assert np.allclose(a, b, rtol=0.0, atol=1e-12)


def test_the_packet_joiner_takes_more_with_its_lead(shares: dict[tuple[str, str], float]) -> None:
    """The packet simulator, the referee: with its lead the joiner finds more CBR queue
    and takes a share more than 10 % larger (measured 0.225 against 0.201)."""
    assert shares["lead", "packet"] > 1.10 * shares["no lead", "packet"], shares


@pytest.mark.parametrize("split", list(SPLITS))
def test_the_hybrid_joiner_is_within_10_percent_of_the_packet_joiners_share(
    shares: dict[tuple[str, str], float], split: str
) -> None:
    """The hybrid model's joiner within the hold-out's 10 % of the packet joiner's share
    with and without the lead (measured 0.207 for both, packets 0.225 and 0.201): the
    lead's effect is smaller than the tolerance here, the tests below tell it."""
    got, want = shares[split, "hybrid"], shares[split, "packet"]
    assert abs(got - want) <= 0.10 * want, shares


@pytest.mark.xfail(
    strict=True,
    reason="the fluid engines start a flow at its start time and queue its packets when it "
    "sends them: the hybrid joiner's share is 0.207 with and without the lead (packets "
    "0.225 and 0.201); moving each flow's start by its lead gave 0.237 and 0.207, not "
    "kept (docs/fluid-promises.md)",
)
def test_the_hybrid_joiner_takes_more_with_its_lead(shares: dict[tuple[str, str], float]) -> None:
    assert shares["lead", "hybrid"] > 1.05 * shares["no lead", "hybrid"], shares


@pytest.mark.xfail(
    strict=True,
    reason="the round model's joiner holds one BaseRTT with and without the lead, 3.10 ms "
    "above the path's (packets 1.50 and 0.70 ms): shares 0.232 and 0.232 (packets 0.225 "
    "and 0.201)",
)
def test_the_round_models_joiner_takes_more_with_its_lead(
    shares: dict[tuple[str, str], float],
) -> None:
    assert shares["lead", "rounds"] > 1.05 * shares["no lead", "rounds"], shares
