"""A flow whose start is at or after the run's end never runs: it has no value of its own
and leaves the run's aggregates (when every flow had settled, when every flow had
converged after each change) to the flows that did run, as if it were not listed. By hand,
on records: the engines leave such a flow out of their runs altogether."""

from __future__ import annotations

import math

import numpy as np

from tcpfluid.metrics import FlowRecord, summarise

#: a 2-s run sampled every 0.1 s: a window doubling to 4 packets in slow start, then at 10
T = np.round(np.arange(1, 21) * 0.1, 10)
W = np.where(T < 0.3, 2.0 ** (T * 10.0), 10.0)
SS = T < 0.3


def _summary(records: list[FlowRecord]):  # type: ignore[no-untyped-def]
    return summarise("x", None, records, end_s=2.0, carried_pkts=100.0, capacity_pps=100.0,
                     bottleneck="b")  # fmt: skip


def test_a_flow_starting_after_the_end_leaves_the_aggregates_as_they_were() -> None:
    stays = FlowRecord("stays", 0.0, math.inf, T, W, SS, W, 100.0, 0.0, 0)
    w_left = np.where(T > 1.0, 0.0, W)
    leaves = FlowRecord("leaves", 0.0, 1.0, T, w_left, SS, w_left, 50.0, 0.0, 0)
    late = FlowRecord("late", 5.0, math.inf, T, np.zeros(20), SS, np.zeros(20), 0.0, 0.0, 0)
    alone = _summary([stays, leaves])
    # by hand: both flows rest at 10 from 0.3 s; "leaves" stops at 1 s (the one change),
    # after which "stays" is already at rest (converged at once)
    assert alone.all_settled_time_s == 0.3
    assert alone.change_times_s == (1.0,) and alone.all_converged_times_s == (0.0,)
    with_late = _summary([stays, leaves, late])
    assert with_late.all_settled_time_s == alone.all_settled_time_s
    assert with_late.all_converged_times_s == alone.all_converged_times_s
    assert with_late.change_times_s == alone.change_times_s
    assert with_late.flows[2].throughput_pps is None
    assert with_late.jain_index == alone.jain_index


def test_without_a_change_the_run_settled_when_its_running_flows_did() -> None:
    stays = FlowRecord("stays", 0.0, math.inf, T, W, SS, W, 100.0, 0.0, 0)
    late = FlowRecord("late", 5.0, math.inf, T, np.zeros(20), SS, np.zeros(20), 0.0, 0.0, 0)
    s = _summary([stays, late])
    assert s.change_times_s == () and s.all_settled_time_s == 0.3
