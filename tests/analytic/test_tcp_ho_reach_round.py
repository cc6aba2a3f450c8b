"""The round at which TCP-Ho's Table-4 window first reaches μd, against the table itself
and against the round model (another layer, stepping the TCP-Ho law round by round)."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.algorithms import get_law
from tcpfluid.analytic import conspicuous_round, slow_start_windows, tcp_ho_reach_round
from tcpfluid.fluid import PathBatch, simulate_rounds

BDPS = [2.5, 3.0, 7.9, 18.75, 62.5, 125.0, 250.0, 375.0, 500.0, 625.0, 1000.0]


def test_reach_round_is_the_first_table_4_window_at_or_above_mu_d():
    table = slow_start_windows("tcp-ho", 200)  # index i: Table 4's round i
    for b in BDPS:
        first = int(np.flatnonzero(table >= b)[0])
        assert float(tcp_ho_reach_round(b)) == first, b


def test_reach_round_is_where_the_round_models_window_first_reaches_mu_d():
    b = np.array(BDPS[3:])
    tr = simulate_rounds(get_law("tcp-ho"), PathBatch.from_bdp(b, 0.1), rounds=120, record=())
    w = tr.window_pkts[:, :, 0]  # (rounds, scenarios); row r is round r + 1
    for j, bj in enumerate(b):
        assert int(np.flatnonzero(w[:, j] >= bj)[0]) + 1 == float(tcp_ho_reach_round(bj)), bj


def test_the_ramp_ends_two_or_three_rounds_after_the_window_reaches_mu_d():
    # eq. (4) with the bottleneck queue (erratum E8) reads W_{k-2} >= μd at even k
    b = np.array(BDPS[3:])
    gap = conspicuous_round("tcp-ho", b) - tcp_ho_reach_round(b)
    assert set(gap.tolist()) <= {2.0, 3.0}


def test_bad_bdp_is_refused():
    with pytest.raises(ValueError, match="bdp"):
        tcp_ho_reach_round(-1.0)
