"""tcpfluid.fairness.studies on small ODE runs: what the studies' notes and docstrings say
about the fluid equilibria, checked against the equilibria worked out by hand.

A fluid Vegas flow stops changing its window once its backlog x_j q / μ is in [α, β]
(q the common queue): with α = β every flow keeps α packets queued, so every flow's rate
is α μ / q, the same whatever its RTT (Jain's index 1); with α < β any backlogs in the
band are an equilibrium, so rates may differ up to the factor β / α.
"""

from __future__ import annotations

import inspect

import pytest

from tcpfluid.fairness import ho_different_rtt_study, qv_different_rtt_study
from tcpfluid.fluid.ode import OdeFlow, simulate_ode
from tcpfluid.path import Path
from tcpfluid.scenarios import SCENARIOS


def _least_jain(n: int, ratio: float) -> float:
    """The smallest Jain index of n rates in [1, ratio], by hand: k of them at 1, the rest
    at ratio, the worst k."""
    return min((k + (n - k) * ratio) ** 2 / (n * (k + (n - k) * ratio**2)) for k in range(n + 1))


def test_qv_different_rtt_note_holds_equal_shares_for_alpha_equal_beta_only() -> None:
    # two flows per RTT group (50, 100, 200 ms) on 10 Mb/s: every law settles within 40 s
    small = {"flows_per_group": 2, "bandwidth": "10Mbps", "buffer": 100, "duration": "80s"}
    st = qv_different_rtt_study(algorithms=("vegas", "enhanced-vegas"), n_points=401, **small)
    equal = qv_different_rtt_study(algorithms=("vegas",), n_points=401, alpha=2, beta=2, **small)
    last = st.table.groupby("algorithm")["ode_jain"].last()
    # alpha = beta (Enhanced Vegas's delta, or alpha = beta = 2): equal shares
    assert last["enhanced-vegas"] == pytest.approx(1.0, abs=1e-6)
    assert equal.table["ode_jain"].iloc[-1] == pytest.approx(1.0, abs=1e-6)
    # alpha = 2 < beta = 4: not equal, within the band's factor 2
    assert _least_jain(6, 4.0 / 2.0) <= last["vegas"] < 0.99
    # and the note says so (it used to claim equal shares for any Vegas of equal alpha)
    assert "with α < β the equilibrium is not unique" in st.notes
    assert "With α = β" in st.notes and "share equally whatever the RTT" in st.notes


def test_ho_different_rtt_runs_enhanced_vegas_with_the_registrys_delta() -> None:
    # equal RTTs: two identical flows share equally (this used to fail: the ODE's form of
    # the law got Vegas's alpha = 1, beta = 3 instead of Enhanced Vegas's delta)
    st = ho_different_rtt_study(
        [0.05, 0.05], algorithms=("enhanced-vegas",), duration_s=40.0, measure_from_s=20.0
    )
    assert st.table["ode_jain"].iloc[0] == pytest.approx(1.0, abs=1e-9)
    # unequal RTTs: alpha = beta = delta, equal shares; the same as the ODE given the
    # registry's delta = 3 (docs/algorithms.md, Hasegawa's example) by hand
    rtts = [0.05, 0.1]
    st = ho_different_rtt_study(
        rtts, algorithms=("enhanced-vegas",), duration_s=200.0, measure_from_s=100.0
    )
    row = st.table.iloc[0]
    assert row["ode_jain"] == pytest.approx(1.0, abs=1e-6)
    by_hand = [OdeFlow("enhanced-vegas", d, alpha_pkts=3.0, beta_pkts=3.0) for d in rtts]
    path = Path(100e6 / 8000.0, min(rtts), buffer=300.0)
    s = simulate_ode(by_hand, path, t_end_s=200.0, measure_from_s=100.0).summary
    assert row["ode_jain"] == pytest.approx(s.jain_index, abs=1e-9)
    assert row["ode_utilization"] == pytest.approx(s.utilization, abs=1e-9)


def test_ho_different_rtt_docstring_names_the_registered_scenario() -> None:
    doc = inspect.getdoc(ho_different_rtt_study) or ""
    assert "ho-different-rtt" in SCENARIOS
    assert "``ho-different-rtt``" in doc and "no registered scenario" not in doc
