"""RED's drop spacing with and without ns-2's ``wait_`` (``simulate_packets(red_wait=...)``).

A constant-rate source sends ``λ`` packets/s into a RED link that serves ``μ < λ`` with an
unlimited buffer: in equilibrium RED drops the excess, a fraction ``d = 1 − μ/λ`` of the
arrivals, one drop every ``1/d`` arrivals on average. Each rule fixes the mean gap between
drops as a function of the drop probability ``p_b`` at the average queue, and so the
average at which RED settles (``p_b = max_p (avg − min_th)/(max_th − min_th)``):

* Floyd and Jacobson's ``p_a = p_b/(1 − count·p_b)`` (``red_wait=False``): the gap is
  uniform on ``{1, …, 1/p_b}``, mean ``1/(2 p_b)``, so ``p_b = d/2``;
* ns-2's ``wait_`` (``red.cc``, ``REDQueue::drop_early``: 0 while ``count·p_b < 1``, then
  ``p_b/(2 − count·p_b)``): the gap is uniform on ``[1/p_b, 2/p_b]``, mean ``3/(2 p_b)``,
  so ``p_b = 3d/2``, three times as high at the same drop rate.

Both closed forms neglect terms of order ``p_b`` (the gaps' discreteness), below 1 % here.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.scenarios import FlowSpec, Link, Scenario
from tcpfluid.scenarios.model import CbrSource
from tcpfluid.sim import simulate_packets

MU_BPS = 8e6  # 1000 packets/s of 1000 bytes
LAMBDA_BPS = 8.08e6  # 1010 packets/s
RED = {"min_th": 5.0, "max_th": 105.0, "max_p": 0.1, "w_q": 0.002}


def _scenario() -> Scenario:
    # the CBR source alone crosses the RED link; the one flow (a scenario needs one) has
    # links of its own
    return Scenario(
        name="red-cbr",
        links=(
            Link("F", MU_BPS, 0.01, float("inf"), discipline="red", red=RED),
            Link("G", MU_BPS, 0.01),
            Link("B", MU_BPS, 0.01),
        ),
        flows=(FlowSpec("f", ("G",), ("B",), algorithm="reno"),),
        cbr=(CbrSource("u", LAMBDA_BPS, 0.0, 200.0, ("F",)),),
        duration_s=200.0,
    )


@pytest.mark.parametrize(("wait", "gap_factor"), [(False, 0.5), (True, 1.5)])
def test_red_average_settles_where_the_rules_mean_drop_gap_matches_the_excess(
    wait: bool, gap_factor: float
) -> None:
    d = 1.0 - MU_BPS / LAMBDA_BPS  # the drop fraction the link must reach
    p_b = gap_factor * d  # mean gap gap_factor / p_b = 1 / d
    expected = RED["min_th"] + (RED["max_th"] - RED["min_th"]) * p_b / RED["max_p"]
    res = simulate_packets(_scenario(), red_wait=wait, sample_interval_s=0.1)
    t = np.asarray(res.t_s)
    avg = float(np.asarray(res.links[0].red_avg_pkts)[t > 100.0].mean())
    # 5 %: the average's swing around its equilibrium (a standard deviation of 0.5-0.9
    # packets over the last 100 s) and the closed forms' neglected O(p_b) terms
    assert avg == pytest.approx(expected, rel=0.05)


def test_red_wait_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match="red_wait must be True or False"):
        simulate_packets(_scenario(), red_wait=1)  # type: ignore[arg-type]
