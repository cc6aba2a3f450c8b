"""The thesis-fairness rows' packet runs with connection 2 started later, run for real:
an offset run is reproducible and starts connection 2 later; our start-up's BaseRTT
over-estimate against the thesis's Table 3.6 (ns-2); the hybrid model's index at Vegas-1,
x2 = 70 ms over connection 2's start against the packet simulator's. Long packet and
hybrid runs checked against a document and against each other, so the validation
suite's; the row builder from hand-made results is checked in tests/report."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.analytic import jain_index
from tcpfluid.fluid import ode_problem
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.report import SECTIONS, ReportConfig, Task
from tcpfluid.scenarios import Scenario, build_scenario
from tcpfluid.sim import simulate_packets

#: the thesis's connection 1 round trip without queueing (propagation and transmission), s
THESIS_RTT1_S = 0.013211


@pytest.fixture(scope="module")
def th_tasks() -> list[Task]:
    return SECTIONS["thesis-fairness"].tasks(ReportConfig(quick=True))


def _offset(sc: Scenario, offset_s: float) -> Scenario:
    """``sc`` with connection 2 starting ``offset_s`` after connection 1."""
    short, long_ = sc.flows
    return replace(sc, flows=(short, replace(long_, start_s=float(offset_s))))


def _packet_jain(res: Any) -> float:
    """Jain's index of the two flows' mean throughputs over 10-60 s (the thesis's)."""
    m = (res.time_s > 10.0) & (res.time_s <= 60.0)
    return float(jain_index([row[m].mean() for row in res.throughput_pps]))


def test_an_offset_run_is_reproducible_and_starts_connection_2_later(
    th_tasks: list[Task],
) -> None:
    # the task of Vegas-1_3 at x2 = 10 ms: its offset runs' indices are those of runs with
    # connection 2 started later, run here on their own
    (task,) = [t for t in th_tasks if (t.kwargs["setting"], t.kwargs["x2_ms"]) == ("vegas-1_3", 10)]
    (offsets,) = {tuple(t.kwargs["start_offsets_s"]) for t in th_tasks}
    sc = build_scenario(
        "thesis-two-flow", x2="10ms", queue="red", duration="60s", alpha=1.0, beta=3.0
    ).with_algorithm("vegas", initial_window=1.0)
    late = _offset(sc, offsets[1])
    assert late.flows[0] == sc.flows[0] and late.flows[1].start_s == offsets[1]
    a = _packet_jain(simulate(late, "packet"))
    assert a == _packet_jain(simulate(late, "packet"))
    res = task.run()
    assert res == task.run()  # reproducible
    assert len(res["packet_offset_jain"]) == len(offsets)


# ------------------------------------------------- why the start is one phase among others
def test_our_start_up_over_estimates_connection_2s_base_rtt_unlike_the_thesiss_ns2_run() -> None:
    """The thesis's Table 3.6 (Vegas-1_3, connection 1 first): connection 2's BaseRTT
    over-estimate by x2. It is set by where its first packets fall among connection 1's in
    the queue. Our nominal runs (windows from one packet, as ns-2's and the report's) differ
    from it by more than 1 ms (a fifth of a packet's 5.33 ms) at half the x2 and pass one
    packet's 5.33 ms where the thesis's never do: ns-2's start-up and ours share that timing
    only in part, so our nominal start is one phase of it, not the thesis's."""
    table_3_6_ms = {5: 2.666, 10: 0.544, 20: 5.333, 30: 5.333, 40: 4.298, 50: 5.333,
                    60: 5.333, 70: 3.456, 80: 4.789, 90: 5.333, 100: 5.333, 110: 5.333}  # fmt: skip
    ours_ms = []
    for x2 in table_3_6_ms:
        sc = build_scenario(
            "thesis-two-flow", x2=f"{x2}ms", queue="red", duration="20s", alpha=1.0, beta=3.0
        ).with_algorithm("vegas")
        sc = sc.with_algorithm("vegas", initial_window=1.0)  # ns-2's first window
        prop = ode_problem(sc).flows[1].rtt_s
        ours_ms.append((simulate_packets(sc).flows[1].base_rtt_s - prop) * 1e3)
    thesis_ms = np.array(list(table_3_6_ms.values()))
    assert np.sum(np.abs(np.array(ours_ms) - thesis_ms) > 1.0) >= 6  # of 12
    # the thesis's never exceed one packet's 5.33 ms behind connection 1; ours do
    assert thesis_ms.max() <= 5.334 < max(ours_ms) - 1.0
    assert sorted(THESIS_TABLE_3_16) == [1, *table_3_6_ms]


def test_the_hybrid_at_vegas_1_x2_70ms_moves_with_connection_2s_start_too() -> None:
    """The row that differs by its ODE cell (Vegas-1, x2 = 70 ms): the hybrid's index is one
    start too. Over the report's offsets of connection 2 it moves by more than 0.02 and its
    highest value comes within ±0.05 of the packet simulator's nominal index, which its
    nominal value is not (the report does not run the fluid engines at the offsets)."""
    from tcpfluid.fluid import simulate_scenario_ode

    sc = build_scenario(
        "thesis-two-flow", x2="70ms", queue="red", duration="60s", delta=1.0
    ).with_algorithm("enhanced-vegas")
    packet = _packet_jain(simulate(sc, "packet"))

    def hybrid(offset_s: float) -> float:
        r = simulate_scenario_ode(_offset(sc, offset_s), n_points=601)
        dl = r.delivered_pkts
        at10 = np.array([np.interp(10.0, r.t, row) for row in dl])
        return float(jain_index((dl[:, -1] - at10) / 50.0))

    eighths = [k * THESIS_RTT1_S / 8.0 for k in range(8)]  # the start over eighths of a round
    values = np.array([hybrid(o) for o in eighths])
    assert abs(values[0] - packet) > 0.05  # the report's ODE cell
    assert values.max() - values.min() > 0.02
    assert abs(values.max() - packet) <= 0.05
