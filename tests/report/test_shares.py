"""The fairness rows' shares from Jain's index, derived in SymPy (eq. (13) of the Quick
Vegas paper), and checked against flows' throughputs.

Read through the sections' public contract: the thesis-fairness rows (two flows: the smaller
flow's share) made by its ``assemble`` from hand-made task results (each engine's Jain
index), and the thesis-many-flows rows (n flows: the spread std/mean) of the document's
printed indices, which the rows show beside the shares.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sympy as sp

from tcpfluid.analytic import jain_index
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.report import NA, SECTIONS, ReportConfig, Row

QUICK = ReportConfig(quick=True)
PACKET, DOCUMENT = "packet sim", "document"
JAIN_PACKET, JAIN_DOCUMENT = "Jain's index, packet sim", "Jain's index, document"
#: the packet runs' indices fed to the thesis-fairness rows, one per task in turn
PACKET_JAINS = (0.5, 0.6, 0.9, 0.99, 1.0, float(jain_index([1.0, 3.0])))


def _smaller_share_of_two(j: float) -> float:
    """The smaller of two flows' shares whose Jain index is ``j``: eq. (13) solved in SymPy."""
    s, jj = sp.symbols("s J", positive=True)
    jain = (s + (1 - s)) ** 2 / (2 * (s**2 + (1 - s) ** 2))
    roots = sp.solve(sp.Eq(jain, jj), s)
    small = [r for r in roots if float(r.subs(jj, sp.Rational(9, 10))) <= 0.5]
    assert len(small) == 1
    return float(small[0].subs(jj, j))


def _thesis_fairness(packet_jains: list[float]) -> list[Row]:
    tasks = SECTIONS["thesis-fairness"].tasks(QUICK)
    out: list[dict[str, Any]] = [
        {"packet_jain": packet_jains[k % len(packet_jains)], "rounds_jain": 1.0, "ode_jain": 1.0}
        for k in range(len(tasks))
    ]
    sec = SECTIONS["thesis-fairness"].assemble(QUICK, out)
    return [r for t in sec.tables for r in t.rows]


@pytest.fixture(scope="module")
def two_flow_rows() -> list[Row]:
    return _thesis_fairness(list(PACKET_JAINS))


def test_smaller_share_is_the_inverse_of_jain_for_two_flows(two_flow_rows: list[Row]) -> None:
    assert len(two_flow_rows) >= len(PACKET_JAINS)
    for row in two_flow_rows:
        j = row.values[JAIN_PACKET]
        assert row.values[PACKET] == pytest.approx(_smaller_share_of_two(j), abs=1e-12), j
        jd = THESIS_TABLE_3_16[row.case["x2_ms"]][row.case["setting"]]
        assert row.values[JAIN_DOCUMENT] == jd
        assert row.values[DOCUMENT] == pytest.approx(_smaller_share_of_two(jd), abs=1e-12)
    assert {r.values[JAIN_PACKET] for r in two_flow_rows} == set(PACKET_JAINS)


def test_a_share_row_is_judged_on_the_shares_of_flows_it_was_given_the_index_of(
    two_flow_rows: list[Row],
) -> None:
    # flows at 1 and 3 packets/s: J = 0.8 and the smaller takes 1/4
    j = float(jain_index([1.0, 3.0]))
    assert j == pytest.approx(0.8)
    row = next(r for r in two_flow_rows if r.values[JAIN_PACKET] == j)
    assert row.kind == "share"
    assert row.values[PACKET] == pytest.approx(0.25)
    assert JAIN_PACKET in row.informative and JAIN_DOCUMENT in row.informative
    # no thesis index is below 0.85 (share 0.31): 1/4 is more than 10 % below every one
    assert PACKET in row.failures
    # equal shares (J = 1): one half
    assert next(r for r in two_flow_rows if r.values[JAIN_PACKET] == 1.0).values[PACKET] == 0.5


def test_share_spread_is_the_coefficient_of_variation() -> None:
    # J = (Σx)²/(n Σx²) with Σx = n m, Σx² = n m² (1 + c²): J = 1/(1 + c²), c = √(1/J − 1)
    n, cv, m = sp.symbols("n c m", positive=True)
    jain = (n * m) ** 2 / (n * n * m**2 * (1 + cv**2))
    assert sp.simplify(sp.sqrt(1 / jain - 1) - cv) == 0
    x = np.array([1.0, 2.0, 2.5, 4.0, 7.0])
    assert np.sqrt(1.0 / float(jain_index(x)) - 1.0) == pytest.approx(x.std() / x.mean())
    # the many-flow rows' document cells: the spread of the thesis's printed index
    cfg = QUICK
    n_tasks = len(SECTIONS["thesis-many-flows"].tasks(cfg))
    sec = SECTIONS["thesis-many-flows"].assemble(cfg, [{"error": "not run here"}] * n_tasks)
    spread = [r for t in sec.tables for r in t.rows if r.kind == "share spread"]
    assert spread
    for row in spread:
        jd = row.values[JAIN_DOCUMENT]
        assert row.values[DOCUMENT] == pytest.approx(np.sqrt(1.0 / jd - 1.0), abs=1e-12)
        assert isinstance(row.values[PACKET], NA)  # a run's n/a stays n/a


def test_bad_indices_are_refused() -> None:
    # two flows' index is at least 1/2: 0.4 is no two-flow index
    with pytest.raises(ValueError, match="jain"):
        _thesis_fairness([0.4])
