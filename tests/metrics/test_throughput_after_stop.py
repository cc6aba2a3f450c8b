"""A flow's throughput counts its deliveries over the time they took: from its start to the
later of its stop and its last delivery, so it is never above what its path carried.

One Reno flow that stops 1 ms after its start (its first window, 2 packets, is sent at
once and delivered a one-way delay or a round later) beside a CBR source. Over its 1-ms
active time alone its 2 packets read 2000 packets/s on a 1250 packets/s link.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tcpfluid
from tcpfluid.metrics._records import flow_rates
from tcpfluid.scenarios import Scenario
from tcpfluid.scenarios.files import scenario_from_toml

#: the one Reno flow of examples/scenarios/one-reno-overshoot.toml
EXAMPLE = Path(__file__).resolve().parents[2] / "examples/scenarios/one-reno-overshoot.toml"
#: ... behind a RED queue, stopped 1 ms after its start
BRIEF = {
    "link.bn.queue": "red",
    **{f"link.bn.red.{k}": v for k, v in
       dict(min_th=5, max_th=15, max_p=0.1, w_q=0.002, gentle=False).items()},
    "flow.1.stop": "0.001s",
}  # fmt: skip


def brief(cbr: str) -> Scenario:
    """The flow stopped 1 ms after its start behind a RED queue, beside a CBR source of
    rate ``cbr``."""
    cbr_table = f'\n[[cbr]]\nname = "c"\nrate = "{cbr}"\n'
    return scenario_from_toml(EXAMPLE.read_text() + cbr_table, **BRIEF)


#: the bottleneck's rate, packets/s (10 Mb/s of 1000-byte packets)
LINK_PPS = 10e6 / 8 / 1000


@pytest.mark.parametrize(
    ("engine", "cbr"),
    [
        ("packet", "12Mbps"),  # the CBR above the link's rate: only the packets model it
        ("packet", "5Mbps"),
        ("rounds", "5Mbps"),
        ("hybrid", "5Mbps"),
        ("ode", "5Mbps"),
    ],
)
def test_no_flow_is_faster_than_the_bottleneck(engine: str, cbr: str) -> None:
    res = tcpfluid.simulate(brief(cbr), engine)
    f = res.summary.flows
    assert res.summary.flows.stop_s[0] == pytest.approx(0.001)
    delivered = 2.0  # its first window: the packets it sent before its stop
    assert np.all(f.throughput_pps <= LINK_PPS)
    # delivered within a round (60 ms and at most a 50-packet queue: 0.1 s) of its start
    assert delivered / 0.1 <= f.throughput_pps[0] <= delivered / 0.03


def test_the_rate_counts_up_to_the_later_of_stop_and_last_delivery() -> None:
    """By hand: 10 packets from 1 s, stopped at 3 s, the last delivered at 3.5 s: 10 / 2.5;
    delivered by the stop: 10 / 2; unknown (NaN): to the stop; the measured time's end
    (3.2 s) caps it: 10 / 2.2."""
    got = flow_rates(
        np.array([10.0, 10.0, 10.0, 10.0]),
        np.array([1.0, 1.0, 1.0, 1.0]),
        np.array([3.0, 3.0, 3.0, 3.0]),
        (0.0, np.array([10.0, 10.0, 10.0, 3.2])),
        np.array([3.5, 2.5, np.nan, 3.5]),
    )
    assert got.tolist() == pytest.approx([4.0, 5.0, 5.0, 10.0 / 2.2])
