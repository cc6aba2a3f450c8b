"""Sweeps at any scale: bounded workers and memory, honest exits, nothing lost or doubled.

* worker processes capped at the points and the CPUs, and gone when their parent is killed;
* grids built and checked lazily, in time and memory linear in their axes;
* atomic table writes that leave no temporary file, even after a kill;
* cache entries validated (a hand edit or a NaN is recomputed with a warning), a lock
  so that two sweeps on one cache do not compute a point twice, and a cache that cannot
  be written costs the cache, not the table;
* a worker that dies fails only the points it held; the sweep goes on;
* an empty metric of a successful point carries its reason (table and plot).
"""

from __future__ import annotations

import errno
import json
import logging
import math
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import tcpfluid.sweep.execution as sweep_exec
import tcpfluid.sweep.tables as sweep_tables
from tcpfluid.sweep import Sweep, grid, plot_sweep, sweep
from tcpfluid.sweep.cache import _Cache
from tcpfluid.sweep.config import Grid

PY = sys.executable
METRIC = ["ss_exit_window"]


# ------------------------------------------------------------------------------ workers
def test_pool_size_is_capped_at_the_points_and_the_cpus() -> None:
    cpus = sweep_exec.usable_cpus()
    assert sweep_exec.pool_size(100_000, 1) == 1
    assert sweep_exec.pool_size(32, 1) == 1
    assert sweep_exec.pool_size(100_000, 10**6) == cpus
    assert sweep_exec.pool_size(None, 3) == min(3, cpus)
    assert sweep_exec.pool_size(1, 50) == 1


def test_jobs_far_above_the_work_starts_one_worker(monkeypatch: Any) -> None:
    sizes: list[int] = []
    real = sweep_exec._new_pool

    def spy(workers: int, *rest: Any) -> Any:
        sizes.append(workers)
        return real(workers, *rest)

    monkeypatch.setattr(sweep_exec, "_new_pool", spy)
    points = grid(algorithm="vegas", bandwidth="1Mbps", cbr="none", duration="1s")
    res = sweep(points, engine="packet", metrics=["utilization"], jobs=100_000)
    assert res.n_failed == 0
    assert sizes == [1]


_ORPHANS = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.sweep import grid, sweep

    def stuck(task):
        time.sleep(300)

    sm._run_point = stuck
    real_new_pool = sm._new_pool

    def new_pool(workers, *rest):
        pool = real_new_pool(workers, *rest)
        def report():
            time.sleep(1.0)
            pids = [p.pid for p in multiprocessing.active_children()]
            with open(sys.argv[1] + ".part", "w") as fh:
                fh.write(" ".join(map(str, pids)))
            os.replace(sys.argv[1] + ".part", sys.argv[1])
        import threading
        threading.Thread(target=report, daemon=True).start()
        return pool

    sm._new_pool = new_pool
    points = grid(algorithm="vegas", bandwidth=["1Mbps", "2Mbps", "3Mbps"], cbr="none")
    sweep(points, engine="packet", metrics=["utilization"], jobs=2)
    """
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by init) counts as gone
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_when_the_parent_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "orphans.py"
    script.write_text(_ORPHANS)
    pids_file = tmp_path / "pids"
    proc = subprocess.Popen([PY, str(script), str(pids_file)])
    t0 = time.monotonic()
    while not pids_file.exists():
        assert time.monotonic() - t0 < 60, "the sweep never started its pool"
        assert proc.poll() is None, "the sweep ended early"
        time.sleep(0.05)
    workers = [int(x) for x in pids_file.read_text().split()]
    assert workers and all(_alive(p) for p in workers)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    t0 = time.monotonic()
    while any(_alive(p) for p in workers) and time.monotonic() - t0 < 10:
        time.sleep(0.05)
    left = [p for p in workers if _alive(p)]
    for p in left:  # do not leave them behind if the test fails
        os.kill(p, signal.SIGKILL)
    assert left == [], "pool workers outlived their killed parent"


# ------------------------------------------------------------------------------ grids
def test_a_grid_whose_table_cannot_fit_in_memory_stops_before_any_point(monkeypatch: Any) -> None:
    # the table is held in memory until written: with a 1 MB ceiling, 10,000 points at
    # ~0.7 kB each do not fit, and the run must stop before computing anything
    monkeypatch.setattr(sweep_tables, "memory_budget_bytes", lambda: 10**6)
    progress: list[float] = []  # reported from the start of the work (0.0) on
    g = grid(algorithm="vegas", rtt=[f"{r}ms" for r in range(10, 110)], beta=list(range(3, 103)))
    sw = Sweep(points=g, engine="packet", metrics=("utilization",))
    with pytest.raises(ValueError, match=r"10,000 points.*split the grid into sweeps of at most"):
        sw.run(progress=progress.append)
    assert progress == []
    # a grid that fits runs as before (the check is only a ceiling)
    sweep_tables.check_table_fits(1000, 1)


def test_grid_is_lazy_and_indexable() -> None:
    g = grid(algorithm=["vegas", "reno"], rtt=["50ms", "100ms", "200ms"], cbr="none")
    assert isinstance(g, Grid) and len(g) == 6
    eager = [
        {"algorithm": a, "rtt": r, "cbr": "none"}
        for a in ("vegas", "reno")
        for r in ("50ms", "100ms", "200ms")
    ]
    assert list(g) == eager
    assert [g[i] for i in range(6)] == eager and g[-1] == eager[-1] and g[1:3] == eager[1:3]
    assert g == eager
    with pytest.raises(IndexError, match="6 points"):
        g[6]
    with pytest.raises(TypeError, match="integer"):
        g["1"]  # type: ignore[call-overload]


def test_a_grid_of_ten_million_points_is_built_and_checked_in_linear_memory() -> None:
    tracemalloc.start()
    try:
        g = grid(
            algorithm="vegas",
            bandwidth=[f"{b}Mbps" for b in range(1, 101)],
            rtt=[f"{r}ms" for r in range(10, 110)],
            beta=[2.0 + k / 100 for k in range(1000)],
        )
        sw = Sweep(points=g, engine="rounds", metrics=("time_to_equilibrium_s",))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(sw.points) == 10_000_000
    assert peak < 20e6  # bytes: the axes, not ten million dicts (~4 GB)
    assert sw.points[9_999_999] == {
        "algorithm": "vegas",
        "bandwidth": "100Mbps",
        "rtt": "109ms",
        "beta": 2.0 + 999 / 100,
        "scenario": "qv-basic",
    }
    assert sw.parameters == ("bandwidth", "rtt", "beta")


def test_a_long_axis_is_checked_for_repeats_in_linear_time() -> None:
    n = 200_000  # the former pairwise check needed 2e10 comparisons here
    g = grid(algorithm="vegas", beta=[1.0 + k * 1e-6 for k in range(n)])
    assert len(g) == n
    with pytest.raises(ValueError, match=r"'beta' repeats the value 1\.0"):
        grid(algorithm="vegas", beta=[1.0 + k * 1e-6 for k in range(n)] + [1.0])
    with pytest.raises(ValueError, match="repeats"):
        grid(algorithm="vegas", rtt=["50ms", "50ms"])


def test_a_bad_value_deep_in_a_grid_is_found_with_its_index() -> None:
    g = grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps"], beta=[2.0, 3.0, [1, 2]])
    with pytest.raises(TypeError, match=r"beta: value \[1, 2\] \(point 2\)"):
        Sweep(points=g, engine="closed-form", metrics=("ss_exit_window",))


def test_grid_sweep_equals_the_same_points_as_a_list() -> None:
    g = grid(algorithm=["vegas", "quick-vegas"], bandwidth=["10Mbps", "30Mbps"], rtt="50ms")
    lazy = sweep(g, engine="closed-form", metrics=["ss_exit_window", "settled_window"])
    eager = sweep(list(g), engine="closed-form", metrics=["ss_exit_window", "settled_window"])
    assert lazy.table.equals(eager.table)


def test_the_first_points_are_computed_before_the_whole_grid_is_prepared(
    monkeypatch: Any,
) -> None:
    # in-process engines work in chunks: the progress callback reports the first chunk
    # before the views of later chunks are built
    monkeypatch.setattr(sweep_exec, "_CHUNK", 4)
    built: list[int] = []
    seen_at_first_progress: list[int] = []
    real = sweep_exec._Structures.view_or_error

    def counting(self: Any, point: Any) -> Any:
        built.append(1)
        return real(self, point)

    monkeypatch.setattr(sweep_exec._Structures, "view_or_error", counting)

    def progress(fraction: float) -> None:
        if fraction > 0 and not seen_at_first_progress:
            seen_at_first_progress.append(len(built))

    g = grid(algorithm="vegas", bandwidth=[f"{b}Mbps" for b in range(10, 30)])
    Sweep(points=g, engine="closed-form", metrics=("ss_exit_window",)).run(progress=progress)
    assert seen_at_first_progress == [4]
    assert len(built) == 20


# ------------------------------------------------------------------------------ writes
def test_write_leaves_no_temporary_file_on_failure(tmp_path: Path, monkeypatch: Any) -> None:
    res = sweep(
        grid(algorithm="vegas", rtt="50ms"), engine="closed-form", metrics=["ss_exit_window"]
    )
    out = tmp_path / "t.csv"
    res.write(out)
    before = out.read_bytes()

    def boom(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(type(res.table), "to_csv", boom)
    with pytest.raises(KeyboardInterrupt):
        res.write(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
    assert out.read_bytes() == before


@pytest.mark.parametrize("existed", [True, False])
def test_a_full_disk_names_the_table_not_its_temporary(
    tmp_path: Path, monkeypatch: Any, capsys: Any, existed: bool
) -> None:
    res = sweep(
        grid(algorithm="vegas", rtt="50ms"), engine="closed-form", metrics=["ss_exit_window"]
    )
    out = tmp_path / "t.csv"
    if existed:
        res.write(out)
    before = out.read_bytes() if existed else None

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")  # as write(2): no file name

    monkeypatch.setattr(type(res.table), "to_csv", full)
    with pytest.raises(OSError, match="No space left on device") as info:
        res.write(out)
    assert info.value.filename == str(out) and info.value.errno == errno.ENOSPC
    assert ("left as it was" if existed else "was not created") in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == (["t.csv"] if existed else [])
    assert (out.read_bytes() if existed else None) == before
    # on the command line: one line naming the table (the same sweep as a config file)
    from tcpfluid.cli import main

    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'engine = "closed-form"\nalgorithm = "vegas"\nmetrics = ["ss_exit_window"]\n'
        '[grid]\nrtt = "50ms"\n'
    )
    capsys.readouterr()
    argv = ["sweep", str(cfg), "--out", str(out), "--no-progress", "--no-cache"]
    assert main(argv) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"tcpfluid sweep: error: {str(out)!r}: No space left"), line


def test_temporary_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = subprocess.run(
        [PY, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".t.csv.{dead_pid}.0123456789ab.tmp"
    stale.write_text("half a table")
    live = tmp_path / f".t.csv.{os.getpid()}.ba9876543210.tmp"  # a writer still running
    live.write_text("being written")
    other = tmp_path / ".other.csv.1.0123456789ab.tmp"
    other.write_text("not ours")
    res = sweep(
        grid(algorithm="vegas", rtt="50ms"), engine="closed-form", metrics=["ss_exit_window"]
    )
    res.write(tmp_path / "t.csv")
    assert not stale.exists()
    assert live.exists() and other.exists()
    # nothing else left beside the table: no stale temporary, not the write's own
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live.name, other.name, "t.csv"])


#: a sweep table's writer killed while writing: ``to_csv`` writes part of the table into the
#: temporary file it is given, names it and waits to be killed
_KILLED_WRITER = textwrap.dedent(
    """
    import sys, time
    import pandas as pd
    from tcpfluid.sweep import grid, sweep

    def partial(self, path, **kwargs):
        open(path, "w").write("partial")
        print(path, flush=True)
        time.sleep(300)

    res = sweep(grid(algorithm="vegas", rtt="50ms"), engine="closed-form",
                metrics=["ss_exit_window"])
    pd.DataFrame.to_csv = partial
    res.write(sys.argv[1])
    """
)


def test_sigkill_while_writing_leaves_a_temp_that_the_next_write_removes(tmp_path: Path) -> None:
    script = tmp_path / "w.py"
    script.write_text(_KILLED_WRITER)
    target = tmp_path / "out.csv"
    proc = subprocess.Popen([PY, str(script), str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    tmp = Path(proc.stdout.readline().strip())
    assert tmp.exists() and tmp.name.startswith(".out.csv.")
    proc.kill()
    proc.wait(timeout=30)
    assert not target.exists()
    res = sweep(
        grid(algorithm="vegas", rtt="50ms"), engine="closed-form", metrics=["ss_exit_window"]
    )
    res.write(target)
    (tmp_path / "ref").mkdir()
    res.write(tmp_path / "ref" / "out.csv")  # the complete table, written where nothing was
    assert target.read_bytes() == (tmp_path / "ref" / "out.csv").read_bytes()
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# ------------------------------------------------------------------------------ cache
def _cache_lines(d: Path) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for f in sorted(d.glob("*.jsonl")):
        out += [(f, json.loads(line)) for line in f.read_text().splitlines()]
    return out


def test_bad_cache_entries_are_recomputed_with_a_warning(tmp_path: Path, caplog: Any) -> None:
    points = list(grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps", "30Mbps"]))
    metrics = ["ss_exit_window", "settled_window"]
    first = sweep(points, engine="closed-form", metrics=metrics, cache_dir=tmp_path)
    lines = _cache_lines(tmp_path)
    assert len(lines) == 3
    # hand-edit one value to text and another to NaN
    f, rec0 = lines[0]
    _, rec1 = lines[1]
    rec0["summary"]["ss_exit_window"] = "abc"
    rec1["summary"]["settled_window"] = math.nan
    f.write_text(json.dumps(rec0) + "\n" + json.dumps(rec1) + "\n" + json.dumps(lines[2][1]) + "\n")
    with caplog.at_level(logging.WARNING, logger="tcpfluid.sweep"):
        again = sweep(points, engine="closed-form", metrics=metrics, cache_dir=tmp_path)
    assert (again.n_cached, again.n_computed, again.n_failed) == (1, 2, 0)
    assert again.table.equals(first.table)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "2 invalid entries" in warnings[0] and "'abc'" in warnings[0]


def test_a_nan_from_an_engine_is_a_failed_point_not_a_silent_value(monkeypatch: Any) -> None:
    monkeypatch.setattr(sweep_exec, "_run_point", lambda task: {"ss_exit_window": math.nan})
    res = sweep(
        grid(algorithm="vegas", rtt="50ms"), engine="closed-form", metrics=["ss_exit_window"]
    )
    row = res.table.iloc[0]
    assert row["status"] == "error" and "ss_exit_window = nan" in row["message"]


_LOCKED = textwrap.dedent(
    """
    import sys, time
    import tcpfluid.sweep.execution as sm
    from tcpfluid.sweep import grid, sweep

    real = sm._run_point

    def slow(task):
        with open(sys.argv[2], "a") as fh:
            fh.write(f"{task.index}\\n")
        time.sleep(0.05)
        return real(task)

    sm._run_point = slow
    points = grid(algorithm="vegas", bandwidth=[f"{b}Mbps" for b in range(10, 40)])
    res = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=sys.argv[1])
    print(res.n_computed, res.n_cached, res.n_failed)
    """
)


def test_two_sweeps_on_one_cache_compute_each_point_once(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text(_LOCKED)
    cache = tmp_path / "cache"
    log = tmp_path / "computed.txt"
    procs = [
        subprocess.Popen(
            [PY, str(script), str(cache), str(log)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    counts = sorted(tuple(map(int, o[0].split())) for o in outs)
    assert counts == [(0, 30, 0), (30, 0, 0)]
    assert sorted(map(int, log.read_text().split())) == list(range(30))


# ------------------------------------------------------------------------------ reasons
def test_an_empty_metric_carries_its_reason_in_the_table_and_the_plot() -> None:
    # 3 s is too short for Vegas to settle at 100 Mb/s x 100 ms (BDP 1250): no settled
    # window and no time to equilibrium, but a slow-start exit
    points = grid(algorithm="vegas", bandwidth=["1Mbps", "100Mbps"], cbr="none", duration="3s")
    res = sweep(points, engine="rounds", metrics=["ss_exit_window", "time_to_equilibrium_s"])
    t = res.table
    assert list(t["status"]) == ["ok", "ok"]
    assert not np.isnan(t["time_to_equilibrium_s"][0]) and t["reason"][0] == ""
    assert np.isnan(t["time_to_equilibrium_s"][1])
    assert (
        t["reason"][1] == "time_to_equilibrium_s: the flow did not settle before the end of the run"
    )
    fig, ax = plt.subplots()
    plot_sweep(t, "time_to_equilibrium_s", x="bandwidth", ax=ax)
    notes = [c.get_text() for c in ax.texts]
    assert any("no value at 1 point: the flow did not settle" in n for n in notes), notes
    plt.close(fig)


def test_plot_default_x_is_numeric_and_a_categorical_x_gets_no_lines(
    tmp_path: Path, capsys: Any
) -> None:
    from tcpfluid.cli import main

    points = grid(algorithm=["vegas", "quick-vegas"], bandwidth=["10Mbps", "20Mbps", "40Mbps"])
    res = sweep(points, engine="closed-form", metrics=["ss_exit_window"])
    table = tmp_path / "s.csv"
    res.write(table)
    shown: list[Any] = []
    import matplotlib.figure

    real_savefig = matplotlib.figure.Figure.savefig

    def spy(self: Any, *args: Any, **kwargs: Any) -> Any:
        shown.append(self.axes[0])
        return real_savefig(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matplotlib.figure.Figure, "savefig", spy)
        assert main(["plot", str(table)]) == 0
    ax = shown[0]
    assert ax.get_xlabel() == "bandwidth (Mb/s)"
    labels = sorted(line.get_label() for line in ax.get_lines())
    assert labels == ["algorithm=quick-vegas", "algorithm=vegas"]
    # asked for explicitly, a categorical x is drawn with markers only
    fig, ax2 = plt.subplots()
    lines = plot_sweep(res.table, "ss_exit_window", x="algorithm", ax=ax2)
    assert all(line.get_linestyle() == "None" for line in lines)
    plt.close(fig)


def test_sweep_command_says_why_values_are_empty(tmp_path: Path, capsys: Any) -> None:
    from tcpfluid.cli import main

    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'engine = "rounds"\nalgorithm = "vegas"\nmetrics = ["time_to_equilibrium_s"]\n'
        '[grid]\nbandwidth = ["1Mbps", "100Mbps"]\ncbr = "none"\nduration = "3s"\n'
    )
    out = tmp_path / "o.csv"
    assert main(["sweep", str(cfg), "--out", str(out), "--no-progress", "--no-cache"]) == 0
    printed = capsys.readouterr().out
    assert (
        "time_to_equilibrium_s: no value at 1 point(s): the flow did not settle before the "
        "end of the run"
    ) in printed


def test_a_scenario_the_round_model_refuses_still_has_its_path_columns() -> None:
    # thesis-two-flow has two base RTTs: the closed forms refuse it in their own words,
    # and the table still shows the bottleneck it reduces to (from the scenario, not the
    # round model's check)
    res = sweep(
        grid(algorithm="vegas", scenario="thesis-two-flow", duration="2s"),
        engine="closed-form",
        metrics=METRIC,
    )
    row = res.table.iloc[0]
    assert row["status"] == "error"
    assert "closed forms model one drop-tail path" in row["message"]
    assert np.isfinite(row["mu_pps"]) and np.isfinite(row["bdp_pkts"])


def test_a_cache_that_cannot_be_written_costs_the_cache_not_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    real_init = _Cache.__init__

    def full_disk(self: _Cache, directory: Any) -> None:
        real_init(self, directory)
        self._file = Path("/dev/full")  # every write: ENOSPC, no space left on device

    monkeypatch.setattr(_Cache, "__init__", full_disk)
    with caplog.at_level(logging.WARNING, logger="tcpfluid.sweep"):
        points = grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps"], cbr="none", duration="3s")
        metrics = ("utilization", "jain_index", "throughput_pps")
        res = Sweep(points, engine="rounds", metrics=metrics).run(cache_dir=tmp_path / "cache")
    assert res.n_computed == 2 and set(res.table["status"]) == {"ok"}
    assert "cannot write /dev/full" in caplog.text
    out = tmp_path / "t.csv"
    res.write(out)
    assert out.read_text().count("\n") == 3


@pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork",
    reason="the crashing engine is patched in the parent and inherited by forked workers",
)
def test_a_crashing_worker_fails_its_points_and_the_sweep_goes_on(monkeypatch: Any) -> None:
    def crashing(task: Any) -> dict[str, Any]:
        if task.index == 5:
            os._exit(3)  # a worker process dying, as a crash in compiled code would
        return {"ss_exit_time_s": float(task.index)}  # a value in its range (>= 0)

    monkeypatch.setattr(sweep_exec, "_run_point", crashing)
    points = list(grid(algorithm="vegas", bandwidth=[f"{b}Mbps" for b in range(1, 301)]))
    res = sweep(points, engine="packet", metrics=["ss_exit_time_s"], jobs=2)
    t = res.table
    assert t.loc[5, "status"] == "error"
    assert "BrokenProcessPool" in t.loc[5, "message"]
    # the points in flight when the worker died fail with it (64 at a time, plus those
    # submitted before the pool noticed, which need not be consecutive, and how far they
    # reach depends on the machine's load); every point after the last of them runs on a
    # fresh pool, and most of the sweep's points run
    failed = t[t["status"] != "ok"]
    assert failed["message"].str.contains("BrokenProcessPool").all()
    last = int(failed["point"].max())
    assert len(failed) < 150 and last < len(t) - 1
    assert (t.loc[last + 1 :, "status"] == "ok").all()
    ok = t[t["status"] == "ok"]
    assert list(ok["ss_exit_time_s"]) == [float(i) for i in ok["point"]]
