"""Flows joining a busy bottleneck together: each one's first packet waits behind the
standing queue and behind the first windows of the joiners whose packets reach the
bottleneck before its own, so its BaseRTT over-estimate grows with its lead to the
bottleneck (``fluid._first_packets.join_waits``, both fluid engines; docs/round-model.md,
"First packets").

Two Vegas flows hold a standing queue of about 8 packets on 10 Mb/s (1250 packets/s, 0.8
ms a packet); four Vegas flows join at 3 s. The reference is the packet simulator: each
joiner's BaseRTT at its first rounds, less its propagation RTT. With RTTs of 30, 60, 90
and 120 ms (their access delays put their first windows at the bottleneck 15 ms apart)
the later joiners find the earlier ones' two-packet windows ahead; with equal RTTs the
first packets arrive together and each waits one packet per joiner ahead: the same rule,
with its lead differences switched off. Before the rule the fluid engines gave every
joiner the same over-estimate (the queue at the join), 2-5 ms off the packets' spread.
"""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.scenarios.files import scenario_from_toml

#: the bottleneck's packet time, s: the tolerance of an over-estimate's spread (the packets'
#: first windows reach the bottleneck whole packets apart)
PACKET_S = 1.0 / 1250.0

BUSY = """name = "busy-joiners"
duration = "5s"
[[link]]
name = "bn"
rate = "10Mbps"
delay = "5ms"
[[flow]]
algorithm = "vegas"
rtt = "40ms"
[[flow]]
algorithm = "vegas"
rtt = "40ms"
"""


def _joiners(rtts_ms: list[int]) -> str:
    return BUSY + "".join(
        f'[[flow]]\nalgorithm = "vegas"\nrtt = "{r}ms"\nstart = "3s"\n' for r in rtts_ms
    )


def _first_over_estimates(engine: str, text: str) -> np.ndarray:
    """Each joiner's BaseRTT at its first round less its propagation RTT, s."""
    sc = scenario_from_toml(text)
    res = tcpfluid.simulate(sc, engine)
    out = []
    for i, f in enumerate(sc.flows):
        if f.start_s == 0.0:
            continue
        t, b = np.asarray(res.rounds[i].time_s), np.asarray(res.rounds[i].base_rtt_s)
        first = np.flatnonzero((t > f.start_s) & np.isfinite(b) & (b > 0.0))[0]
        out.append(b[first] - sc.base_rtt_s(f))
    return np.array(out)


@pytest.mark.parametrize("rtts_ms", [[30, 60, 90, 120], [60, 60, 60, 60]])
@pytest.mark.parametrize("engine", ["rounds", "hybrid"])
def test_joiners_first_base_rtts_spread_as_the_packets_do(engine: str, rtts_ms: list[int]) -> None:
    text = _joiners(rtts_ms)
    packets = _first_over_estimates("packet", text)
    fluid = _first_over_estimates(engine, text)
    # the packets: later leads, larger over-estimates (at least one packet more each)
    assert np.all(np.diff(packets) >= PACKET_S - 1e-9)
    # each engine's spread over the joiners is the packets' within a packet time (its
    # level is the engine's own standing queue at the join)
    assert np.abs((fluid - fluid[0]) - (packets - packets[0])).max() <= PACKET_S
