"""The fairness rows' shares from Jain's index, derived in SymPy (eq. (13) of the Quick
Vegas paper), and checked against flows' throughputs."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from tcpfluid.analytic import jain_index
from tcpfluid.report._common import share_row, share_spread, shares_from_jain, smaller_share
from tcpfluid.report._table import DOCUMENT, NA, PACKET, PHASE_MAX, PHASE_MIN


def test_smaller_share_is_the_inverse_of_jain_for_two_flows() -> None:
    s, j = sp.symbols("s J", positive=True)
    jain = (s + (1 - s)) ** 2 / (2 * (s**2 + (1 - s) ** 2))
    roots = sp.solve(sp.Eq(jain, j), s)
    small = [r for r in roots if float(r.subs(j, sp.Rational(9, 10))) <= 0.5]
    assert len(small) == 1
    for jv in (0.5, 0.6, 0.9, 0.99, 1.0):
        assert smaller_share(jv) == pytest.approx(float(small[0].subs(j, jv)), abs=1e-12)
    assert smaller_share(float(jain_index([1.0, 3.0]))) == pytest.approx(0.25)


def test_share_spread_is_the_coefficient_of_variation() -> None:
    x = np.array([1.0, 2.0, 2.5, 4.0, 7.0])
    assert share_spread(float(jain_index(x))) == pytest.approx(x.std() / x.mean())
    n, cv = sp.symbols("n c", positive=True)
    # J = (Σx)²/(n Σx²) with Σx = n m, Σx² = n m² (1 + c²): J = 1/(1 + c²)
    m = sp.symbols("m", positive=True)
    jain = (n * m) ** 2 / (n * n * m**2 * (1 + cv**2))
    assert sp.simplify(sp.sqrt(1 / jain - 1) - cv) == 0


def test_bad_indices_are_refused() -> None:
    with pytest.raises(ValueError, match="jain"):
        smaller_share(0.4)
    with pytest.raises(ValueError, match="jain"):
        share_spread(0.0)


def test_a_row_keeps_its_indices_beside_and_its_range_ordered() -> None:
    values = {DOCUMENT: 0.9, PACKET: 1.0, PHASE_MIN: 0.8, PHASE_MAX: 0.95, "x": NA("no")}
    out, info = shares_from_jain(values, (PHASE_MIN, PHASE_MAX), two_flows=False)
    assert out["Jain's index, document"] == 0.9
    assert out[PACKET] == 0.0 and out[DOCUMENT] == pytest.approx((1 / 0.9 - 1) ** 0.5)
    assert out[PHASE_MIN] < out[PHASE_MAX]
    assert "Jain's index, packet sim" in info and isinstance(out["x"], NA)


def test_a_share_row_is_judged_on_the_shares_of_flows_it_was_given_the_index_of() -> None:
    # flows at 1 and 3 packets/s: the smaller takes 1/4; the document's 1:1 split takes 1/2
    j = float(jain_index([1.0, 3.0]))
    row = share_row(
        "two flows",
        "smaller flow's share",
        {PACKET: j, DOCUMENT: 1.0},
        DOCUMENT,
        two_flows=True,
        case={},
    )
    assert row.kind == "share"
    assert row.values[PACKET] == pytest.approx(0.25)
    assert row.values[DOCUMENT] == pytest.approx(0.5)
    assert row.values[f"Jain's index, {PACKET}"] == pytest.approx(0.8)
    assert f"Jain's index, {PACKET}" in row.informative
    assert not row.ok
    # n flows: judged on the spread, std/mean of the throughputs
    x = np.array([2.0, 2.0, 4.0])
    spread = share_row(
        "three flows",
        "spread",
        {PACKET: float(jain_index(x)), DOCUMENT: 1.0},
        DOCUMENT,
        two_flows=False,
        case={},
    )
    assert spread.kind == "share spread"
    assert spread.values[PACKET] == pytest.approx(x.std() / x.mean())
