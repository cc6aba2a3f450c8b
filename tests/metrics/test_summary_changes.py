"""Flows joining at times of their own make one change each: the summary judges each flow
only after the changes whose segments hold its samples, with the values of the definition
(every flow after every change, :func:`settling_by_segment`), and refuses, before any work,
a flows x changes table larger than the memory budget."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from tcpfluid.metrics import FlowRecords, settling_by_segment, summarise


def _records(n: int, seed: int, own_t: bool, fortran: bool) -> FlowRecords:
    """``n`` flows, each starting at a time of its own, some stopping before the end;
    windows that rise, settle, cycle or drift, with fractions whose sums are rounded."""
    rng = np.random.default_rng(seed)
    R = 300
    t = 0.02 * np.arange(1, R + 1)
    start = np.sort(rng.uniform(0.0, 4.0, n))
    stop = np.where(rng.random(n) < 0.3, start + rng.uniform(1.0, 3.0, n), np.inf)
    level = rng.integers(10, 60, n).astype(float)
    ramp = np.minimum(1.0, (t[:, None] - start) / rng.uniform(0.1, 1.0, n))
    w = level * np.clip(ramp, 0.0, None) + rng.uniform(0.01, 0.99, n)
    w += np.where(np.arange(n) % 3 == 0, np.cos(7.0 * t)[:, None], 0.0)
    w += np.where(np.arange(n) % 5 == 1, 0.5 * t[:, None], 0.0)
    if fortran:
        w = np.asfortranarray(w)
    return FlowRecords(
        names=[f"f{i}" for i in range(n)],
        start_s=start,
        stop_s=stop,
        t_s=np.tile(t[:, None], (1, n)) if own_t else t,
        window_pkts=w,
        in_slow_start=None,
        settle_window_pkts=w,
        delivered_pkts=np.full(n, 100.0),
        loss_events=np.zeros(n, dtype=np.int64),
    )


@pytest.mark.parametrize("n", [1, 2, 40])
@pytest.mark.parametrize("own_t", [False, True])
@pytest.mark.parametrize("fortran", [False, True])
@pytest.mark.parametrize("chunk", [None, 3])
def test_convergence_after_each_join_is_the_definitions(
    n: int, own_t: bool, fortran: bool, chunk: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tcpfluid.metrics import summary

    if chunk is not None:  # pairs judged in blocks of a few, one left alone at the end
        monkeypatch.setattr(summary, "CHUNK_FLOWS", chunk)
    end = 6.0
    sc = SimpleNamespace(cbr=[SimpleNamespace(start_s=2.5, stop_s=4.5)], flows=(), notes=())
    fr = _records(n, 7 + n, own_t, fortran)
    got = summarise("rounds", sc, fr, end_s=end, carried_pkts=1.0, capacity_pps=1.0, bottleneck="L")
    changes = got.change_times_s
    assert len(changes) > n  # a change per flow join, and more
    # the definition: every flow judged after every change, all flows at once
    t = fr.t_s if fr.t_s.ndim > 1 else fr.t_s[:, None]
    seg = settling_by_segment(
        t,
        fr.settle_window_pkts,
        start_s=fr.start_s,
        end_s=np.minimum(end, fr.stop_s),
        change_times_s=changes,
        settle_band=0.0,
    )
    want = np.array(
        [np.where(c.settled, np.asarray(c.time_s, dtype=float), np.nan) for c in seg.convergence]
    ).T.reshape(n, len(changes))
    have = np.array(
        [[math.nan if v is None else v for v in f.convergence_times_s] for f in got.flows]
    )
    np.testing.assert_array_equal(have, want)
    assert np.isfinite(want).any() and np.isnan(want).any()
    # all flows converged after change k: the latest of the flows active over its segment
    bounds = [*changes, math.inf]
    for k, tc in enumerate(changes):
        act = (fr.start_s < bounds[k + 1]) & (fr.stop_s > tc)
        conv = np.maximum(fr.start_s[act], tc) - tc + want[act, k]
        expect = None if not act.any() or np.isnan(conv).any() else float(np.max(conv))
        assert got.all_converged_times_s[k] == expect


def _one_by_one(sc: Any, width_s: float) -> Any:
    """``sc`` with each flow's start and stop moved by a time of its own in
    ``(0, width_s)`` (distinct declared times: joins and leaves one by one)."""
    ft = sc.flow_table
    off = width_s * np.arange(1, len(ft) + 1) / (len(ft) + 1)
    return sc.with_flow_table(ft.with_times(ft.start_s + off, ft.stop_s + off))


def test_flows_joining_one_by_one_are_refused_before_any_work_past_the_budget() -> None:
    import tcpfluid
    from tcpfluid.metrics.summary import check_summary_size
    from tcpfluid.scenarios import build_scenario

    sc = _one_by_one(build_scenario("qv-many-flows", groups=1, flows=200_000), 10.0)
    with pytest.raises(ValueError, match=r"^flows=200,000 make 400,000 bandwidth changes") as e:
        tcpfluid.simulate(sc, algorithm="vegas")
    assert "fewer distinct start and stop times" in str(e.value) and "\n" not in str(e.value)
    # the same flows starting together change nothing: no table to refuse; nor do they
    # started a start spread apart (the starts, and the stops, of one spread are one each)
    check_summary_size(build_scenario("qv-many-flows", groups=1, flows=200_000))
    check_summary_size(build_scenario("qv-many-flows", groups=1, flows=200_000, start_spread="10s"))


def test_many_flows_joining_one_by_one_are_summarised() -> None:
    import tcpfluid
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario("qv-many-flows", groups=1, flows=300, duration="12s")
    sc = _one_by_one(sc, 1.0).with_algorithm("vegas")
    res = tcpfluid.simulate(sc, engine="rounds")
    s = res.summary
    assert len(s.change_times_s) == 300
    conv = np.array(
        [[math.nan if v is None else v for v in f.convergence_times_s] for f in s.flows]
    )
    start = np.array([f.start_s for f in s.flows])
    c = np.asarray(s.change_times_s)
    # a flow has no convergence time after a change that ends before it starts
    assert np.isnan(conv[start[:, None] >= np.append(c[1:], np.inf)]).all()
    # every change is in every flow's slow start (up to the last change each window in the
    # trace is 0 or a power of two: doubled, never cut), so only the last change, whose
    # segment runs to the end, leaves a flow the time to converge; each does, out of slow
    # start
    w = res.window_pkts[:, res.time_s <= c[-1]]
    assert np.isin(w, [0, 2, 4, 8, 16, 32]).all()
    assert np.isnan(conv[:, :-1]).all() and np.isfinite(conv[:, -1]).all()
    exits = np.array([f.ss_exit_time_s for f in s.flows])
    assert (c[-1] + conv[:, -1] >= exits).all()
