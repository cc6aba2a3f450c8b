"""A flow's slow-start exit round is counted in its own rounds, whenever it starts.

The round model records each round's window and the summary reads the window whose RTTs
the law read, one row down; a flow's first row must read its own first window whether it
started with the run or joined later (rows before it, when it had not started, read
nothing). One Vegas flow alone on 20 Mb/s x 60 ms leaves slow start in the same round of
its own whenever it starts: on the synchronous model's one round clock (drop-tail) and on
the asynchronous model's (RED).
"""

from __future__ import annotations

import math

import pytest

import tcpfluid
from tcpfluid.scenarios.files import scenario_from_toml

PATH = """
name = "late"
duration = "20s"
[[link]]
name = "b"
rate = "20Mbps"
delay = "10ms"
buffer = 500
{queue}
[[flow]]
algorithm = "vegas"
rtt = "60ms"
start = "{start}s"
"""
#: RED thresholds above any queue of the slow start (32 packets): no drop
RED = 'queue = "red"\nred = { min_th = 300, max_th = 450, max_p = 0.1, w_q = 0.002 }'


def _exit(start_s: float, red: bool, engine: str = "rounds") -> tuple[float, float]:
    sc = scenario_from_toml(PATH.format(start=start_s, queue=RED if red else ""))
    f = tcpfluid.simulate(sc, engine).summary.flows[0]
    assert f.ss_exit_round is not None and f.ss_exit_time_s is not None
    return f.ss_exit_round, f.ss_exit_time_s


@pytest.mark.parametrize("red", [False, True])
@pytest.mark.parametrize("start_s", [0.01, 0.03, 1.0, 10.0])
def test_a_late_flow_leaves_slow_start_in_the_same_round_of_its_own(
    start_s: float, red: bool
) -> None:
    first, _ = _exit(0.0, red)
    late, at = _exit(start_s, red)
    assert late == first
    # the packet simulator (its senders log rounds only once they send) counts the same
    assert late == _exit(start_s, red, "packet")[0]
    # rounds of d (eq. 5: 60 ms, a 1000-byte packet over the 20 Mb/s link and the two
    # 200 Mb/s access links, a 40-byte ACK back over the same three) on the flow's round
    # clock, which a late flow joins at its next boundary, a multiple of d
    d = 0.060 + 8000 / 20e6 + 2 * 8000 / 200e6 + 320 / 20e6 + 2 * 320 / 200e6
    joined = math.ceil(start_s / d) * d
    assert at == pytest.approx(joined + late * d, abs=1e-6)
