"""The summary of many flows is each flow's own: flows whose records repeat (a run of
identical flows, judged once) get the values they get among flows that all differ.

(Among flows that all differ, not alone: NumPy adds a sum over one column pairwise and a
sum over many row by row, so a flow judged alone may differ in the last bits.)"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from tcpfluid.metrics import FlowRecords, summarise


def _records(pick: list[int], seed: int, own_t: bool = False) -> FlowRecords:
    """Flows of a few kinds (slow start then a settling, a cycle or a drift; two start
    times), of kinds ``pick`` in order (kind ``k`` is the same whatever the others); with
    ``own_t`` each flow's sample times are a column of their own."""
    rng = np.random.default_rng(seed)
    R = 600
    t = 0.01 * np.arange(1, R + 1)
    kinds = []
    for k in range(max(pick) + 1):
        exit_round = int(rng.integers(3, 12))
        w = np.minimum(2.0 ** np.arange(R), 2.0**exit_round)
        target = float(rng.integers(20, 80))
        w[exit_round:] = target + rng.uniform(0.0, 0.5) * np.cos(np.arange(R - exit_round))
        w[exit_round:] += np.where(k % 3 == 2, 0.2 * np.arange(R - exit_round), 0.0)
        w[exit_round:] += rng.uniform(0.01, 0.99)  # sums of these are rounded
        ss = np.arange(R) < exit_round
        start = 0.0 if k % 2 == 0 else 0.45
        kinds.append((w, ss, start, float(rng.integers(100, 900)), int(rng.integers(0, 3))))
    w = np.stack([kinds[k][0] for k in pick], axis=1)
    ss = np.stack([kinds[k][1] for k in pick], axis=1)
    return FlowRecords(
        names=[f"f{i}" for i in range(len(pick))],
        start_s=np.array([kinds[k][2] for k in pick]),
        stop_s=np.full(len(pick), np.inf),
        t_s=np.tile(t[:, None], (1, len(pick))) if own_t else t,
        window_pkts=w,
        in_slow_start=ss,
        settle_window_pkts=w,
        delivered_pkts=np.array([kinds[k][3] for k in pick]),
        loss_events=np.array([kinds[k][4] for k in pick], dtype=np.int64),
    )


@pytest.mark.parametrize("own_t", [False, True])
@pytest.mark.parametrize("chunk", [None, 2, 3, 4])
@pytest.mark.parametrize(
    "counts", [[300], [40, 1, 1, 90, 2, 70, 1], [1, 1, 1, 1, 1, 1], [5, 1, 5, 1, 5, 1, 200]]
)
def test_flows_judged_once_per_run_get_the_values_of_flows_judged_each(
    counts: list[int], chunk: int | None, own_t: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcpfluid.metrics import summary

    if chunk is not None:  # blocks of a few flows: a block of one flow at the end, or not
        monkeypatch.setattr(summary, "CHUNK_FLOWS", chunk)
    sc = SimpleNamespace(cbr=[SimpleNamespace(start_s=3.0, stop_s=4.5)], flows=(), notes=())
    kw = {"end_s": 6.0, "carried_pkts": 1e4, "capacity_pps": 1e4, "bottleneck": "L"}
    pick = np.repeat(np.arange(len(counts)), counts).tolist()
    once = summarise("rounds", sc, _records(pick, len(counts), own_t), **kw)
    with monkeypatch.context() as m:  # no flow is its predecessor's: each judged itself
        m.setattr(summary, "_same_as_previous", lambda fr, _: np.zeros(len(fr.start_s), bool))
        each = summarise("rounds", sc, _records(pick, len(counts), own_t), **kw)
    assert tuple(once.flows) == tuple(each.flows)
    assert once.to_dict() == each.to_dict()
    assert len({f.settled_window_pkts for f in once.flows}) > 1 or len(counts) == 1
