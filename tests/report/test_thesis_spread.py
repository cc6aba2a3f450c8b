"""The thesis-fairness rows with the packet simulator's range over connection 2's start.

Tsang's thesis starts both connections "simultaneously", connection 1 scheduled first, and
gives no time; every row runs the packet simulator also with connection 2 later by 1/8 to
7/8 of connection 1's minimum round trip. The row builder puts the range of those runs and
the nominal one in the phase columns, shown and never used to pass a cell. The judged
quantity is the smaller flow's share, s = (1 − √(1/J − 1))/2 from Jain's index J, within
±10 % of the thesis's. The rows' numbers below are written by hand.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from tcpfluid import simulate
from tcpfluid.analytic import jain_index
from tcpfluid.fluid import ode_problem
from tcpfluid.published import THESIS_TABLE_3_16
from tcpfluid.report import SECTIONS, ReportConfig, Row, Task
from tcpfluid.scenarios import Scenario, build_scenario
from tcpfluid.sim import simulate_packets

QUICK = ReportConfig(quick=True)
#: the report's columns, as report.json names them
ROUNDS, ODE, PACKET, DOCUMENT = "round model", "ODE", "packet sim", "document"
PHASE_MIN, PHASE_MAX = "packet sim over the phase, min", "packet sim over the phase, max"
#: the thesis's connection 1 round trip without queueing (propagation and transmission), s
THESIS_RTT1_S = 0.013211


def _result(packet: float, offsets: list[float] | None, rounds: float, ode: float) -> dict:
    """A thesis-fairness task's result as the section reads it: each engine's Jain index."""
    r: dict = {"packet_jain": packet, "rounds_jain": rounds, "ode_jain": ode}
    if offsets is not None:
        r["packet_offset_jain"] = offsets
    return r


@pytest.fixture(scope="module")
def th_tasks() -> list[Task]:
    return SECTIONS["thesis-fairness"].tasks(QUICK)


def _with_start_offsets(th_tasks: list[Task]) -> tuple[float, ...]:
    (offsets,) = {tuple(t.kwargs["start_offsets_s"]) for t in th_tasks}
    return offsets


@pytest.fixture(scope="module")
def rows(th_tasks: list[Task]) -> dict[tuple[str, int], Row]:
    """The section's rows from hand-made results (every other point: all engines J = 1)."""
    r90 = _result(0.86, [0.86, 0.889], 0.958, 0.861)
    r90.update(train_jain=0.87, blb_jain=0.95)
    chosen = {
        ("vegas-1_3", 10): _result(1.0, [0.99, 0.941, 0.995], 0.95, 0.95),
        ("vegas-1_3", 50): _result(1.0, [0.99, 0.9], 0.9, 0.9),
        ("vegas-1_3", 90): _result(1.0, None, 1.0, 1.0),
        ("vegas-1", 50): _result(1.0, None, 1.0, 1.0),
        ("vegas-1", 90): r90,
    }
    out = [
        chosen.get((t.kwargs["setting"], t.kwargs["x2_ms"]), _result(1.0, None, 1.0, 1.0))
        for t in th_tasks
    ]
    sec = SECTIONS["thesis-fairness"].assemble(QUICK, out)
    return {(r.case["setting"], r.case["x2_ms"]): r for t in sec.tables for r in t.rows}


# ------------------------------------------------------------------------ the row builder
def _share(j: float) -> float:
    return (1.0 - (1.0 / j - 1.0) ** 0.5) / 2.0


def test_the_phase_columns_are_the_range_of_the_nominal_and_the_offset_runs(
    rows: dict[tuple[str, int], Row],
) -> None:
    row = rows[("vegas-1_3", 10)]
    assert row.values[PHASE_MIN] == pytest.approx(_share(0.941))
    assert row.values[PHASE_MAX] == 0.5  # the nominal run (J = 1: equal shares) is one end
    assert row.values[DOCUMENT] == pytest.approx(_share(0.900))  # Table 3.16, x2 = 10 ms
    assert row.values["Jain's index, document"] == 0.900
    assert set(row.informative) >= {PHASE_MIN, PHASE_MAX, "Jain's index, packet sim"}


def test_the_packet_cell_is_judged_on_its_nominal_run_whatever_the_range(
    rows: dict[tuple[str, int], Row],
) -> None:
    # x2 = 50 ms: thesis J 0.962, share 0.4006; packet J 1.000: share 0.5 (+25 %); the
    # range holds J 0.99 and 0.9 (share 0.3333 to 0.4502): still DIFFERS: a range never
    # passes a cell; the fluid cells (J 0.9: share 0.3333, −17 %) differ too
    assert THESIS_TABLE_3_16[50]["vegas-1_3"] == 0.962
    row = rows[("vegas-1_3", 50)]
    assert row.values[PHASE_MIN] == pytest.approx(_share(0.9))
    assert row.values[PHASE_MAX] == 0.5
    assert set(row.failures) == {PACKET, ROUNDS, ODE}
    assert row.relative_error(PACKET) == pytest.approx(0.5 / _share(0.962) - 1.0)
    assert row.verdict.startswith("DIFFERS: round model")


def test_a_program_printing_equal_shares_fails_an_unfair_row(
    rows: dict[tuple[str, int], Row],
) -> None:
    # Vegas-1 at x2 = 50 ms, thesis J 0.997 (share 0.4726); every engine 1.000 (0.5,
    # +5.8 %): agrees; Vegas-1_3 at x2 = 90 ms, thesis J 0.941 (0.3822): 0.5 differs
    assert THESIS_TABLE_3_16[90]["vegas-1_3"] == 0.941
    assert rows[("vegas-1", 50)].ok
    assert set(rows[("vegas-1_3", 90)].failures) == {ROUNDS, ODE, PACKET}


def test_the_closed_form_and_the_one_delay_column_are_kept_beside_the_phase_columns(
    rows: dict[tuple[str, int], Row],
) -> None:
    row = rows[("vegas-1", 90)]
    assert row.values["closed form"] == pytest.approx(_share(0.87))
    assert row.values["one queueing delay (f = 1)"] == pytest.approx(_share(0.95))
    assert {"one queueing delay (f = 1)", PHASE_MIN, PHASE_MAX} <= set(row.informative)
    assert row.values[ODE] == pytest.approx(_share(0.861))


# ----------------------------------------------------------------------- the offsets' rule
def test_the_offsets_are_the_quarters_of_connection_1s_round_before_its_first_ack(
    th_tasks: list[Task],
) -> None:
    sc = build_scenario("thesis-two-flow", x2="10ms", queue="red", duration="60s")
    # the scenario's connection 1 round trip (propagation and transmission) is the thesis's
    rtt1 = ode_problem(sc.with_algorithm("vegas")).flows[0].rtt_s
    assert rtt1 == pytest.approx(THESIS_RTT1_S, abs=2e-6)
    offs = np.array(_with_start_offsets(th_tasks))
    assert len(offs) == 3  # with the nominal run: four phases of connection 1's round
    np.testing.assert_allclose(np.diff(np.r_[0.0, offs, rtt1]), rtt1 / 4, rtol=1e-3)
    assert offs.min() > 0.0 and offs.max() < rtt1


def test_thesis_run_refuses_offsets_outside_the_start_up(th_tasks: list[Task]) -> None:
    task = th_tasks[0]
    for bad in (-0.001, 10.0, float("nan")):
        with pytest.raises(ValueError, match="start_offsets_s"):
            Task(task.function, {**task.kwargs, "start_offsets_s": (bad,)}).run()


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
    offsets = _with_start_offsets(th_tasks)
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
