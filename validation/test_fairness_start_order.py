"""Vegas-1_3 (α = 1, β = 3) on the thesis's two-flow network: the start-up sets the index.

Tsang's thesis starts both connections "simultaneously", Table 3.16 with connection 1
scheduled first and Table 3.17 with connection 2 first, without giving a time; its own two
tables differ by up to 0.09 for Vegas-1_3 (x2 = 10 ms: 0.900 and 0.988; x2 = 60 ms: 0.945
and 0.887). With α < β each flow stops wherever its Δ lies in [α, β], so where it stops is
set by the start-up. The packet simulator shows the same: starting connection 2 later by
eighths of connection 1's minimum round trip (all before connection 1's first ACK is
back; the report shows quarters) moves the index by more than the report's ±0.05, and the thesis's
value is within ±0.05 of the range those starts span.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.analytic import jain_index
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.report._sec_fairness import THESIS_RTT1_S, thesis_offset_scenario
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

#: connection 2 starts this much after connection 1 (s), in eighths of connection 1's
#: minimum round trip; 0 is the report's nominal run
OFFSETS_S = tuple(k * THESIS_RTT1_S / 8.0 for k in range(8))


def _jain(x2_ms: int, offset_s: float) -> float:
    sc = build_scenario(
        "thesis-two-flow", x2=f"{x2_ms}ms", queue="red", duration="60s", alpha=1.0, beta=3.0
    ).with_algorithm("vegas")
    res = simulate_packets(thesis_offset_scenario(sc, offset_s))
    m = (res.t_s > 10.0) & (res.t_s <= 60.0)
    return float(jain_index([f.goodput_pps[m].mean() for f in res.flows]))


@pytest.mark.parametrize("x2_ms", [10, 60])
def test_vegas_1_3_index_is_set_by_how_much_later_connection_2_starts(x2_ms: int) -> None:
    values = np.array([_jain(x2_ms, off) for off in OFFSETS_S])
    doc = THESIS_TABLE_3_16[x2_ms]["vegas-1_3"]
    assert values[0] == pytest.approx(1.0, abs=0.005)  # together: the report's packet cell
    assert abs(values[0] - doc) > 0.05  # the nominal run alone differs from the thesis
    assert values.max() - values.min() > 0.05  # a few ms of offset moves it past ±0.05
    near = min(max(doc, values.min()), values.max())  # the range's point nearest the thesis
    assert abs(near - doc) <= 0.05  # connection 1 first, some phase reaches the thesis
