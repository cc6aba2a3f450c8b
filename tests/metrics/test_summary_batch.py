""":func:`tcpfluid.metrics.summarise` over a batch of runs (``scenarios=S``) is the summary
of each run alone: every value of row ``s`` of the :class:`~tcpfluid.results.SummaryBatch`
equals the :class:`~tcpfluid.results.Summary` of run ``s`` summarised by itself (the
independent route), and its columns are those rows' ``to_dict`` values."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tcpfluid
from tcpfluid.algorithms.base import SLOW_START
from tcpfluid.metrics import FlowRecord, summarise
from tcpfluid.metrics.summary import FlowRecords
from tcpfluid.results import Summary, SummaryBatch
from tcpfluid.scenarios import build_scenario


def _records(res: Any, s: int) -> list[FlowRecord]:
    """Each flow of a run as a :class:`FlowRecord` read from its public round logs (the
    window of each round, the one set at its end, the phase); ``s`` varies the counts."""
    return [
        FlowRecord(
            name=name,
            start_s=log_flow.start_s,
            stop_s=log_flow.stop_s,
            t_s=log.time_s,
            window_pkts=log.window_pkts,
            in_slow_start=log.phase == SLOW_START,
            settle_window_pkts=log.next_window_pkts,
            delivered_pkts=1000.0 * (s + 1) + 7.0 * f,
            loss_events=s + f,
        )
        for f, (name, log, log_flow) in enumerate(
            zip(res.flow_names, res.rounds, res.summary.flows, strict=True)
        )
    ]


def _runs(scenario: str, law: str, bandwidths: list[str], **sets: Any) -> tuple[Any, list[Any]]:
    sc = [build_scenario(scenario, bandwidth=b, **sets).with_algorithm(law) for b in bandwidths]
    return sc[0], [tcpfluid.simulate(x, "rounds") for x in sc]


def _batch(sc: Any, runs: list[Any], end_s: float) -> tuple[SummaryBatch, list[Summary]]:
    """The batch's summary and, the independent route, each run's summarised alone."""
    recs = [_records(r, s) for s, r in enumerate(runs)]
    kw: list[dict[str, Any]] = [
        {"carried_pkts": 5000.0 + 11.0 * s, "capacity_pps": 100.0 * (s + 3),
         "measured_s": (0.0, end_s + 0.01 * s)}
        for s in range(len(runs))
    ]  # fmt: skip
    alone = [
        summarise("rounds", sc, r, end_s=end_s, bottleneck="b", **k)
        for r, k in zip(recs, kw, strict=True)
    ]
    batch = summarise(
        "rounds",
        sc,
        FlowRecords.of([fr for r in recs for fr in r], end_s),
        scenarios=len(runs),
        end_s=end_s,
        bottleneck="b",
        carried_pkts=np.array([k["carried_pkts"] for k in kw]),
        capacity_pps=np.array([k["capacity_pps"] for k in kw]),
        measured_s=(0.0, np.array([k["measured_s"][1] for k in kw])),
    )
    return batch, alone


def _check(batch: SummaryBatch, alone: list[Summary]) -> None:
    assert isinstance(batch, SummaryBatch) and len(batch) == len(alone)
    cols = batch.to_dict()
    for s, one in enumerate(alone):
        # one computation: the same bits (== on floats, None where it did not happen)
        assert batch.row(s).to_dict() == one.to_dict()
        assert batch.row(s).table() == one.table()
        assert {k: v[s] for k, v in cols.items()} == one.to_dict()
    assert [r.to_dict() for r in batch] == [r.to_dict() for r in alone]


def test_one_flow_runs_of_other_rates_are_each_the_run_alone() -> None:
    # qv-basic with its CBR source (two changes), 3 bandwidths: other numbers of rounds
    # before the end, other settled windows; Vegas settles, with convergence after each change
    sc, runs = _runs("qv-basic", "vegas", ["5Mbps", "8Mbps", "13Mbps"], duration="170s")
    batch, alone = _batch(sc, runs, 170.0)
    _check(batch, alone)
    assert batch.change_times_s == alone[0].change_times_s == (80.0, 160.0)
    assert all(x.flows[0].convergence_times_s[0] is not None for x in alone)


def test_runs_of_flows_joining_and_leaving_are_each_the_run_alone() -> None:
    # two flows: flow 0 over [0, 40) s, flow 1 over [20, 60) s (three changes: a join and
    # two leaves); Quick Vegas, which settles in a limit cycle
    sc, runs = _runs(
        "qv-many-flows", "quick-vegas", ["6Mbps", "10Mbps", "15Mbps"], flows=2, groups=2,
        group_interval="20s", active="40s", duration="80s",
    )  # fmt: skip
    batch, alone = _batch(sc, runs, 80.0)
    _check(batch, alone)
    assert batch.change_times_s == (20.0, 40.0, 60.0)
    assert batch.flows["throughput_pps"].shape == (3, 2)
    assert batch.all_converged_times_s.shape == (3, 3)


def test_a_sweeps_keys_per_run_are_the_rows_keys() -> None:
    sc, runs = _runs("qv-basic", "fast", ["6Mbps", "9Mbps"], duration="30s", cbr="none")
    batch, alone = _batch(sc, runs, 30.0)
    keys = ("jain_index", "ss_exit_round", "convergence_times_s", "throughput_pps")
    got = batch.records(keys)
    # in the order of Summary.to_dict, whatever the order asked
    assert [list(r) for r in got] == [[keys[i] for i in (1, 2, 3, 0)]] * 2
    assert got == [{k: one.to_dict()[k] for k in keys} for one in alone]


def test_a_batch_is_refused_where_its_runs_are_not_one_shape() -> None:
    sc, runs = _runs("qv-basic", "vegas", ["5Mbps", "8Mbps"], duration="20s", cbr="none")
    recs = [fr for s, r in enumerate(runs) for fr in _records(r, s)]
    kw: dict[str, Any] = {"end_s": 20.0, "carried_pkts": 1.0, "capacity_pps": 1.0,
                          "bottleneck": "b"}  # fmt: skip
    with pytest.raises(TypeError, match="FlowRecords"):
        summarise("rounds", sc, recs, scenarios=2, **kw)
    with pytest.raises(ValueError, match="scenarios"):
        summarise("rounds", sc, FlowRecords.of(recs, 20.0), scenarios=0, **kw)
    with pytest.raises(ValueError, match="3 runs"):
        summarise("rounds", sc, FlowRecords.of(recs, 20.0), scenarios=3, **kw)
    late = [recs[0], FlowRecord(**{**recs[1].__dict__, "start_s": 1.0})]
    with pytest.raises(ValueError, match="same flows' start and stop"):
        summarise("rounds", sc, FlowRecords.of(late, 20.0), scenarios=2, **kw)
    batch = summarise("rounds", sc, FlowRecords.of(recs, 20.0), scenarios=2, **kw)
    with pytest.raises(ValueError, match="not a summary key"):
        batch.to_dict(["utilisation"])
