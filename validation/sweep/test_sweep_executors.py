"""Per-point engines fanned out over executors: process pool, Dask LocalCluster, a real kill.

A 100-point packet-level sweep with ``jobs=2`` and on a Dask
``LocalCluster`` gives identical tables (tiny points: 1-3 Mb/s, 2 s, no CBR, so the whole
file runs in seconds); killing a sweep halfway and re-running it recomputes only the
missing points. Values are cross-checked against single runs of ``tcpfluid simulate
--engine packet`` (:func:`tcpfluid.cli.simulate.simulate_summary`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from tcpfluid.cli.simulate import simulate_summary
from tcpfluid.sweep import grid, sweep

METRICS = ["ss_exit_window", "time_to_equilibrium_s", "utilization", "throughput_pps", "losses"]
POINTS = list(
    grid(
        algorithm=["vegas", "quick-vegas"],
        bandwidth=["1Mbps", "1.5Mbps", "2Mbps", "2.5Mbps", "3Mbps"],
        rtt=["20ms", "30ms", "40ms", "50ms", "60ms"],
        beta=[4, 6],
        cbr="none",
        duration="2s",
    )
)


@pytest.fixture(scope="module")
def pool_table() -> pd.DataFrame:
    res = sweep(POINTS, engine="packet", metrics=METRICS, jobs=2)
    assert res.n_points == 100 and res.n_failed == 0, res.table["message"].unique()
    return res.table


def test_100_packet_points_with_jobs_2_match_single_runs(pool_table: pd.DataFrame) -> None:
    for i in (0, 37, 99):
        p = POINTS[i]
        sets = {k: v for k, v in p.items() if k != "algorithm"}
        single = simulate_summary("qv-basic", p["algorithm"], engine="packet", sets=sets)
        row = pool_table.iloc[i]
        assert row["point"] == i
        for key in ("ss_exit_window", "time_to_equilibrium_s", "utilization"):
            want = single[key]
            assert (pd.isna(row[key]) and want is None) or row[key] == want
        assert row["throughput_pps[0]"] == single["throughput_pps"][0]
    # the packets did flow: every point carried traffic
    assert (pool_table["throughput_pps[0]"] > 0).all()


def test_dask_local_cluster_gives_the_identical_table(pool_table: pd.DataFrame) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        res = sweep(POINTS, engine="packet", metrics=METRICS, executor=client.get_executor())
    pd.testing.assert_frame_equal(res.table, pool_table)


def test_in_process_run_gives_the_identical_table(pool_table: pd.DataFrame) -> None:
    res = sweep(POINTS, engine="packet", metrics=METRICS, jobs=1)
    pd.testing.assert_frame_equal(res.table, pool_table)


_KILLED = textwrap.dedent(
    """
    import sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.sweep import grid, sweep

    real = sm._run_point

    def slow(task):
        time.sleep(0.1)
        return real(task)

    sm._run_point = slow
    points = grid(algorithm="vegas", bandwidth=[f"{b}Mbps" for b in range(1, 31)],
                  cbr="none", duration="1s")
    sweep(points, engine="packet", metrics=["utilization"], jobs=1, cache_dir=sys.argv[1])
    """
)


def _cached_keys(cache: Path) -> list[str]:
    keys = []
    for f in cache.glob("*.jsonl"):
        for line in f.read_text().splitlines():
            try:
                keys.append(json.loads(line)["key"])
            except ValueError:
                pass  # torn by the kill
    return keys


def test_killed_sweep_recomputes_only_missing_points(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    proc = subprocess.Popen([sys.executable, "-c", _KILLED, str(cache)])
    try:
        deadline = time.monotonic() + 120
        while len(_cached_keys(cache)) < 8:
            assert proc.poll() is None, "the sweep ended before it could be killed"
            assert time.monotonic() < deadline, "the sweep made no progress"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    keys = _cached_keys(cache)
    k = len(keys)
    assert 8 <= k < 30 and len(set(keys)) == k  # k points, each once
    points = list(
        grid(
            algorithm="vegas",
            bandwidth=[f"{b}Mbps" for b in range(1, 31)],
            cbr="none",
            duration="1s",
        )
    )
    res = sweep(points, engine="packet", metrics=["utilization"], jobs=1, cache_dir=cache)
    # every one of the k distinct points in the cache is taken from it, so the 30 - k
    # computed are exactly the points the killed sweep had not finished
    assert (res.n_cached, res.n_computed, res.n_failed) == (k, 30 - k, 0)
    fresh = sweep(points, engine="packet", metrics=["utilization"], jobs=1)
    pd.testing.assert_frame_equal(res.table, fresh.table)
