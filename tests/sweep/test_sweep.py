"""tcpfluid.sweep: grids, validation, the batched round engine, closed forms, cache, failures.

Where the numbers come from:

* per-point results are checked against :func:`tcpfluid.cli.simulate.simulate_summary`,
  the runner of ``tcpfluid simulate`` (one scenario per call: an independent route to the
  batched round-model call);
* the path columns against the hand computation of the Quick Vegas paper, eq (5) written out below;
* the closed-form engine against the round model (another layer: Vegas leaves slow start
  at a power-of-two window, the same in both, the Quick Vegas paper, Table 1 and eq 6).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import tcpfluid.fluid.rounds as rounds_mod
import tcpfluid.sweep as sweep_mod
import tcpfluid.sweep.cache as sweep_cache
import tcpfluid.sweep.execution as sweep_exec
import tcpfluid.sweep.grids as sweep_grids
from tcpfluid.cli.simulate import simulate_summary
from tcpfluid.sweep import ENGINE_METRICS, Sweep, grid, read_table, sweep

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep.toml"
ROUND_METRICS = list(ENGINE_METRICS["rounds"])
SCALAR_KEYS = (
    "ss_exit_window",
    "ss_exit_time_s",
    "ss_exit_round",
    "settled_window",
    "time_to_equilibrium_s",
    "utilization",
    "jain_index",
)


def same(a: Any, b: Any) -> bool:
    """Table value ``a`` (NaN for "did not happen") against a summary value ``b``."""
    if b is None:
        return bool(isinstance(a, float) and math.isnan(a))
    # a batched run's scenario is summarised as its run alone: the same bits
    return float(a) == float(b)


def assert_rows_match_single_runs(
    table: pd.DataFrame, points: list[dict[str, Any]], rtt_model: str = "average"
) -> None:
    for row in table.to_dict("records"):
        p = points[row["point"]]
        sets = {k: v for k, v in p.items() if k not in ("algorithm", "scenario")}
        single = simulate_summary(
            p.get("scenario", "qv-basic"), p["algorithm"], sets=sets, rtt_model=rtt_model
        )
        assert row["status"] == "ok", row["message"]
        for key in SCALAR_KEYS:
            if key in row:
                assert same(row[key], single[key]), (p, key, row[key], single[key])
        for key in ("throughput_pps", "losses", "convergence_times_s"):
            for k, v in enumerate(single[key]):
                col = f"{key}[{k}]"
                if col in row:
                    assert same(row[col], v), (p, col, row[col], v)


# ------------------------------------------------------------------------------ grids
def test_a_law_parameter_the_points_law_does_not_declare_is_refused() -> None:
    """Vegas declares no δ (Enhanced Vegas's): the point is refused before any run, with
    the law's one message for an unknown parameter and the point's index."""
    with pytest.raises(
        ValueError,
        match=r"points\[1\]: unknown parameter 'delta' for algorithm 'vegas'; accepted: alpha",
    ):
        sweep(
            [
                {"scenario": "qv-basic", "algorithm": "enhanced-vegas", "delta": 2.0},
                {"scenario": "qv-basic", "algorithm": "vegas", "delta": 2.0},
            ],
            metrics=["utilization"],
            engine="rounds",
        )


def test_grid_rejects_a_repeated_value() -> None:
    with pytest.raises(ValueError, match="grid axis 'algorithm' repeats the value 'vegas'"):
        grid(algorithm=["vegas", "vegas"], rtt="50ms")
    with pytest.raises(ValueError, match="repeats"):
        Sweep.from_dict(
            {"metrics": ["utilization"], "algorithm": "vegas", "grid": {"rtt": ["1ms", "1ms"]}}
        )


def test_grid_is_the_product_with_the_last_axis_fastest() -> None:
    pts = grid(algorithm=["vegas", "reno"], rtt=["50ms", "100ms", "200ms"], cbr="none")
    assert len(pts) == 6
    assert pts[0] == {"algorithm": "vegas", "rtt": "50ms", "cbr": "none"}
    assert pts[1] == {"algorithm": "vegas", "rtt": "100ms", "cbr": "none"}
    assert pts[3] == {"algorithm": "reno", "rtt": "50ms", "cbr": "none"}


@pytest.mark.parametrize("axes", [{}, {"rtt": []}, {"algorithm": "vegas", "bandwidth": ()}])
def test_grid_rejects_empty_axes(axes: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"axis|at least one"):
        grid(**axes)


# ------------------------------------------------------------------------------ bad configs
BAD_CONFIGS = [
    ({"algorithm": "vegas", "metrics": ["ss_exit_window"], "colour": 1}, "'colour'"),
    (
        {"algorithm": "vegas", "metrics": ["ss_exit_window"], "grid": {"bandwdith": ["1Mbps"]}},
        "'bandwdith'",
    ),
    ({"algorithm": "vegas", "metrics": ["ss_exit_window"], "grid": {"rtt": []}}, "grid.rtt"),
    ({"algorithm": [], "metrics": ["ss_exit_window"]}, "algorithm"),
    ({"algorithm": "vegas", "metrics": []}, "metrics"),
    ({"algorithm": "vegas"}, "metrics"),
    ({"engine": "warp", "algorithm": "vegas", "metrics": ["ss_exit_window"]}, "'warp'"),
    ({"algorithm": "vegas", "metrics": ["ss_exit_windw"]}, "'ss_exit_windw'"),
    ({"engine": "closed-form", "algorithm": "vegas", "metrics": ["utilization"]}, "utilization"),
    ({"algorithm": "vegsa", "metrics": ["ss_exit_window"]}, "'vegsa'"),
    ({"scenario": "nowhere", "algorithm": "vegas", "metrics": ["ss_exit_window"]}, "'nowhere'"),
    ({"engine": "closed-form", "algorithm": "reno", "metrics": ["ss_exit_window"]}, "'reno'"),
    (
        {"algorithm": ["vegas", "reno"], "metrics": ["ss_exit_window"], "grid": {"beta": [3]}},
        "beta",
    ),
    ({"metrics": ["ss_exit_window"], "grid": {"rtt": ["50ms"]}}, "algorithm"),
    ({"algorithm": "vegas", "metrics": ["ss_exit_window"], "points": []}, "points"),
    ({"algorithm": "vegas", "metrics": ["ss_exit_window"], "rtt_model": "psychic"}, "rtt_model"),
    (
        {"algorithm": "vegas", "metrics": ["ss_exit_window"], "grid": {"rtt": [["50ms"]]}},
        "rtt",
    ),
]


@pytest.mark.parametrize(("config", "named"), BAD_CONFIGS)
def test_bad_config_fails_before_any_work_naming_the_key(
    config: dict[str, Any], named: str
) -> None:
    progress: list[float] = []  # reported from the start of the work (0.0) on
    with pytest.raises((ValueError, TypeError)) as info:
        Sweep.from_dict(config).run(jobs=1, progress=progress.append)
    assert named in str(info.value)
    assert progress == []


def test_bad_run_options_fail_before_work(tmp_path: Path) -> None:
    sw = Sweep(points=tuple(grid(algorithm="vegas", cbr="none", duration="5s")))
    with pytest.raises(ValueError, match="jobs"):
        sw.run(jobs=0)
    with pytest.raises(TypeError, match="executor"):
        sw.run(executor="pool")  # type: ignore[arg-type]
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="cache_dir"):
        sw.run(cache_dir=tmp_path / "file")


# ------------------------------------------------------------------------------ the example
def test_example_config_gives_12_rows_equal_to_single_runs() -> None:
    sw = Sweep.from_toml(EXAMPLE)
    res = sw.run()
    t = res.table
    assert len(t) == 12 and res.n_points == 12
    assert list(t.columns) == [
        "point",
        "scenario",
        "algorithm",
        "bandwidth",
        "rtt",
        "mu_pps",
        "d_s",
        "bdp_pkts",
        "ss_exit_window",
        "time_to_equilibrium_s",
        "status",
        "message",
        "reason",
        "seed",
    ]
    assert list(t["algorithm"]) == ["vegas"] * 6 + ["quick-vegas"] * 6
    # qv-basic's CBR is half the bottleneck (the Quick Vegas paper, §5.2: it halves the available
    # bandwidth), so every point of the example runs
    assert (t["status"] == "ok").all()
    ok = t
    assert_rows_match_single_runs(ok, [dict(p) for p in sw.points])
    # the Quick Vegas paper, eq (5) by hand for 50 Mb/s, 100 ms: d = 0.1 s + data transmission on
    # two 1 Gb/s access links and the 50 Mb/s core + ACK (40 B) transmission on the same
    row = t[(t["bandwidth"] == "50Mbps") & (t["rtt"] == "100ms")].iloc[0]
    d = 0.1 + 2 * 8000 / 1e9 + 8000 / 50e6 + 2 * 320 / 1e9 + 320 / 50e6
    assert row["mu_pps"] == pytest.approx(50e6 / 8000, rel=1e-12)
    assert row["d_s"] == pytest.approx(d, rel=1e-12)
    assert row["bdp_pkts"] == pytest.approx(6250 * d, rel=1e-12)


# ------------------------------------------------------------------------------ batching
class Spy:
    def __init__(self, monkeypatch: Any) -> None:
        self.sizes: list[tuple[int, int]] = []
        real = rounds_mod.simulate_rounds

        def spy(law: Any, paths: Any, **kw: Any) -> Any:
            self.sizes.append((paths.n_scenarios, kw.get("n_flows", 1)))
            return real(law, paths, **kw)

        monkeypatch.setattr(rounds_mod, "simulate_rounds", spy)
        self.undo = lambda: monkeypatch.setattr(rounds_mod, "simulate_rounds", real)


def test_rounds_engine_runs_each_algorithm_in_one_batched_call(monkeypatch: Any) -> None:
    points = [
        *grid(
            algorithm=["vegas", "quick-vegas"],
            bandwidth=["5Mbps", "20Mbps", "40Mbps"],
            rtt=["40ms", "90ms"],
            buffer=["inf", 30],
            beta=[4, 6],
            cbr="none",
            duration="20s",
        ),
    ]
    spy = Spy(monkeypatch)
    res = sweep(points, engine="rounds", metrics=ROUND_METRICS)
    spy.undo()
    # paths (bandwidth, rtt, buffer) and a law parameter (beta) vary within one call
    assert spy.sizes == [(24, 1), (24, 1)]
    assert res.n_failed == 0
    # the finite buffer does lose packets somewhere, so losses are compared for real
    assert res.table["losses[0]"].max() > 0
    assert_rows_match_single_runs(res.table, points)


def test_rounds_groups_split_what_one_call_cannot_vary(monkeypatch: Any) -> None:
    points = [
        *grid(
            algorithm="reno",
            flows=[1, 2],
            bandwidth=["5Mbps", "10Mbps"],
            buffer=25,
            cbr="none",
            duration="15s",
        ),
        # with CBR: the rate varies with nothing else (one group), timing splits groups
        *grid(
            algorithm="vegas",
            bandwidth=["30Mbps", "60Mbps"],
            cbr="10Mbps",
            cbr_start=["5s", "8s"],
            cbr_stop="12s",
            duration="15s",
        ),
    ]
    spy = Spy(monkeypatch)
    res = sweep(points, engine="rounds", metrics=ROUND_METRICS)
    spy.undo()
    assert sorted(spy.sizes) == [(2, 1), (2, 1), (2, 1), (2, 2)]
    assert res.n_failed == 0
    # two flows: throughput and losses per flow
    assert "throughput_pps[1]" in res.table.columns
    assert np.isnan(res.table.loc[res.table["flows"] == 1, "throughput_pps[1]"]).all()
    assert_rows_match_single_runs(res.table, points)


def test_a_bad_point_in_a_batch_fails_alone(monkeypatch: Any) -> None:
    # alpha > beta is invalid for Vegas: the batched call rejects the whole law, the sweep
    # bisects and only that point fails (with the law's own message)
    points = [
        *grid(algorithm="vegas", alpha=[1, 2, 3], beta=4, cbr="none", duration="5s"),
        {"algorithm": "vegas", "alpha": 6, "beta": 4, "cbr": "none", "duration": "5s"},
    ]
    res = sweep(points, engine="rounds", metrics=["settled_window"])
    assert list(res.table["status"]) == ["ok", "ok", "ok", "error"]
    with pytest.raises(ValueError) as info:
        simulate_summary("qv-basic", "vegas", sets={"alpha": 6, "beta": 4, "cbr": "none"})
    assert str(info.value) in res.table["message"].iloc[3]
    assert_rows_match_single_runs(res.table.iloc[:3], points)


# ------------------------------------------------------------------------------ closed form
def test_closed_form_agrees_with_the_round_model_on_vegas_slow_start() -> None:
    points = list(
        grid(
            algorithm="vegas",
            bandwidth=["20Mbps", "50Mbps", "100Mbps"],
            rtt=["50ms", "100ms"],
            cbr="none",
        )
    )
    cf = sweep(points, engine="closed-form", metrics=["ss_exit_window", "critical_window"])
    rd = sweep(points, engine="rounds", metrics=["ss_exit_window"])
    a = cf.table["ss_exit_window"].to_numpy()
    np.testing.assert_array_equal(a, rd.table["ss_exit_window"].to_numpy())
    # Table 1 of the Quick Vegas paper: Vegas's slow-start windows are powers of two
    assert np.all(np.log2(a) == np.round(np.log2(a)))
    assert cf.table["critical_window"].notna().all()
    # by hand from each row's μd: W* = (1 + sqrt(1 + 16 μd))/2 (eq. 6, γ = 1), and Vegas
    # leaves slow start with the first power of two at or above it (Table 1: 2, 2, 4, 4, ...)
    wstar = (1.0 + np.sqrt(1.0 + 16.0 * cf.table["bdp_pkts"].to_numpy())) / 2.0
    np.testing.assert_allclose(cf.table["critical_window"].to_numpy(), wstar, rtol=1e-12)
    np.testing.assert_array_equal(a, 2.0 ** np.ceil(np.log2(wstar)))
    assert cf.n_failed == 0 and rd.n_failed == 0


# ------------------------------------------------------------------------------ failures
def test_failed_point_is_recorded_not_fatal_and_retried(tmp_path: Path) -> None:
    # point 1 asks the round model for 1e9 s of 0.1-s rounds, over its 5e7-round limit:
    # the engine refuses that point when it runs it, the others run
    points = list(grid(algorithm="vegas", cbr="none", duration=["5s", "1000000000s", "6s"]))
    res = sweep(points, engine="rounds", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert list(res.table["status"]) == ["ok", "error", "ok"]
    assert res.table["message"].iloc[1].startswith("ValueError: duration=1e+09 s needs up to")
    assert "(at most 50,000,000)" in res.table["message"].iloc[1]
    assert math.isnan(res.table["ss_exit_window"].iloc[1])
    assert res.n_failed == 1
    # a failed point is not cached: the next sweep on the cache runs it again
    again = sweep(points, engine="rounds", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert (again.n_computed, again.n_cached, again.n_failed) == (1, 2, 1)


def test_interrupted_sweep_resumes_computing_only_missing_points(tmp_path: Path) -> None:
    points = list(grid(algorithm="quick-vegas", bandwidth=[f"{b}Mbps" for b in range(10, 110, 10)]))
    seen: list[float] = []

    def ctrl_c_after_the_first_point(fraction: float) -> None:
        # the in-process engines report the first point done at once (then at most ~10
        # times a second): Ctrl-C lands there, with one of the ten points computed
        seen.append(fraction)
        if fraction > 0.0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sweep(
            points,
            engine="closed-form",
            metrics=["ss_exit_window"],
            cache_dir=tmp_path,
            progress=ctrl_c_after_the_first_point,
        )
    assert seen == [0.0, 0.1]
    res = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert (res.n_cached, res.n_computed, res.n_failed) == (1, 9, 0)
    fresh = sweep(points, engine="closed-form", metrics=["ss_exit_window"])
    pd.testing.assert_frame_equal(res.table, fresh.table)


def test_cache_key_depends_on_engine_options_version_and_revision(
    tmp_path: Path, monkeypatch: Any
) -> None:
    points = list(grid(algorithm="vegas", bandwidth=["20Mbps", "50Mbps"]))
    sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    same_again = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert same_again.n_cached == 2
    # the closed forms take the average RTT only: the RTT model's key on the round model
    short = [{**p, "duration": "5s"} for p in points]
    sweep(short, engine="rounds", metrics=["ss_exit_window"], cache_dir=tmp_path)
    other_rtt = sweep(
        short, engine="rounds", metrics=["ss_exit_window"], rtt_model="last", cache_dir=tmp_path
    )
    assert other_rtt.n_cached == 0
    monkeypatch.setattr(sweep_cache, "__version__", "999.0")
    newer = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert newer.n_cached == 0
    # a change that moves results without a new version: the results revision
    monkeypatch.setattr(sweep_cache, "RESULTS_REVISION", sweep_cache.RESULTS_REVISION + 1)
    revised = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert revised.n_cached == 0


def test_torn_cache_line_is_ignored(tmp_path: Path) -> None:
    points = list(grid(algorithm="vegas", bandwidth=["20Mbps", "50Mbps"]))
    sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    (part,) = list(tmp_path.glob("*.jsonl"))
    lines = part.read_text().splitlines()
    part.write_text(lines[0] + "\n" + lines[1][: len(lines[1]) // 2])  # killed mid-write
    res = sweep(points, engine="closed-form", metrics=["ss_exit_window"], cache_dir=tmp_path)
    assert (res.n_cached, res.n_computed) == (1, 1)


# ------------------------------------------------------------------------------ seeds
def test_seed_is_stable_across_processes_and_distinct_per_point() -> None:
    points = list(grid(algorithm=["vegas", "reno"], rtt=["50ms", "100ms"]))
    res = sweep(points, engine="rounds", metrics=["utilization"])
    seeds = list(res.table["seed"])
    assert len(set(seeds)) == 4 and all(0 <= s < 2**63 for s in seeds)
    code = (
        "from tcpfluid.sweep.config import grid, _point_seed, _check_point\n"
        "pts = grid(algorithm=['vegas', 'reno'], rtt=['50ms', '100ms'])\n"
        "print([_point_seed(_check_point(i, p, 'rounds')) for i, p in enumerate(pts)])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
    )
    assert json.loads(out.stdout) == seeds


def test_seed_reaches_the_runner(monkeypatch: Any) -> None:
    import types

    import tcpfluid.engines as sim

    got: list[int] = []

    def runner(scenario: Any, engine: str, *, seed: int) -> Any:
        got.append(seed)
        summary = {"ss_exit_window": 1.0}
        return types.SimpleNamespace(summary=types.SimpleNamespace(to_dict=lambda: summary))

    monkeypatch.setattr(sim, "simulate", runner)
    res = sweep(
        list(grid(algorithm="vegas", rtt=["50ms", "80ms"])),
        engine="packet",
        metrics=["ss_exit_window"],
        jobs=1,
    )
    assert got == list(res.table["seed"])
    assert list(res.table["ss_exit_window"]) == [1.0, 1.0]
    # a runner that omits a requested metric marks the point failed, it does not crash
    res = sweep(
        list(grid(algorithm="vegas", rtt=["50ms"])),
        engine="packet",
        metrics=["utilization"],
        jobs=1,
    )
    assert res.table["status"].iloc[0] == "error"
    assert "did not report metric 'utilization'" in res.table["message"].iloc[0]


# ------------------------------------------------------------------------------ table files
def test_csv_and_parquet_round_trip(tmp_path: Path) -> None:
    points = list(grid(algorithm="reno", buffer=["inf", 20], cbr="none", duration="10s"))
    res = sweep(points, engine="rounds", metrics=["utilization", "losses"])
    for name in ("t.csv", "t.parquet"):
        res.write(tmp_path / name)
        back = read_table(tmp_path / name)
        assert list(back.columns) == list(res.table.columns)
        np.testing.assert_allclose(back["utilization"], res.table["utilization"], rtol=1e-15)
        # mixed "inf"/20 is stored as text; csv reads it back as numbers
        assert [float(x) for x in back["buffer"]] == [math.inf, 20.0]
    json.dumps(res.to_dict(), allow_nan=False)


def test_parquet_without_pyarrow_names_the_extra(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    res = sweep([{"algorithm": "vegas"}], engine="closed-form", metrics=["ss_exit_window"])
    with pytest.raises(ValueError, match=r"tcpfluid\[parquet\]"):
        res.write(tmp_path / "t.parquet")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("name", ["t.xlsx", "t"])
def test_other_extensions_are_refused(tmp_path: Path, name: str) -> None:
    res = sweep([{"algorithm": "vegas"}], engine="closed-form", metrics=["ss_exit_window"])
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        res.write(tmp_path / name)
    with pytest.raises(ValueError, match="does not exist"):
        read_table(tmp_path / "missing.csv")


@pytest.mark.parametrize(
    ("name", "content", "match"),
    [
        ("empty.csv", b"", "'.*empty.csv' is not a readable csv sweep table"),
        ("quote.csv", b'a,"b\n1,2\n', "'.*quote.csv' is not a readable csv sweep table"),
        ("junk.parquet", b"not parquet at all", "'.*junk.parquet' is not a readable parquet"),
        ("other.csv", b"a,b\n1,2\n", "'.*other.csv' is not a sweep table .no 'point' column"),
    ],
)
def test_unreadable_tables_name_the_file(
    tmp_path: Path, name: str, content: bytes, match: str
) -> None:
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ValueError, match=match):
        read_table(tmp_path / name)


def test_ode_engine_rows_equal_single_runs() -> None:
    points = list(
        grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps"], cbr="none", duration="10s")
    )
    metrics = ["utilization", "throughput_pps", "lost_pkts", "settled_window"]
    res = sweep(points, engine="ode", metrics=metrics, jobs=1)
    assert res.n_failed == 0
    for i, p in enumerate(points):
        sets = {k: v for k, v in p.items() if k != "algorithm"}
        single = simulate_summary("qv-basic", "vegas", engine="ode", sets=sets)
        row = res.table.iloc[i]
        assert same(row["utilization"], single["utilization"])
        assert same(row["throughput_pps[0]"], single["throughput_pps"][0])
        assert same(row["lost_pkts"], single["lost_pkts"])
        assert same(row["settled_window"], single["settled_window"])
    # sanity: the faster path carries more packets per second
    assert res.table["throughput_pps[0]"].iloc[1] > res.table["throughput_pps[0]"].iloc[0]


def test_chunked_batches_give_the_same_table(monkeypatch: Any) -> None:
    points = list(
        grid(
            algorithm="quick-vegas",
            bandwidth=["5Mbps", "20Mbps", "40Mbps"],
            rtt=["40ms", "90ms"],
            flows=[1, 2],
            cbr="none",
            duration="10s",
        )
    )
    whole = sweep(points, engine="rounds", metrics=ROUND_METRICS)
    spy = Spy(monkeypatch)
    monkeypatch.setattr(sweep_exec, "_ROUNDS_FLOWS_PER_CALL", 2)
    chunked = sweep(points, engine="rounds", metrics=ROUND_METRICS)
    spy.undo()
    # 6 one-flow points in calls of 2 scenarios, 6 two-flow points in calls of 1
    assert sorted(spy.sizes) == [(1, 2)] * 6 + [(2, 1)] * 3
    pd.testing.assert_frame_equal(chunked.table, whole.table, check_exact=False, rtol=1e-12)


def test_docstring_examples_run() -> None:
    import doctest

    for module in (sweep_mod, sweep_grids):
        result = doctest.testmod(module)
        assert result.attempted >= 1 and result.failed == 0


def test_progress_bar_counts_points_on_stderr(capsys: Any) -> None:
    points = list(grid(algorithm="vegas", bandwidth=["20Mbps", "30Mbps", "40Mbps"]))
    sweep(points, engine="closed-form", metrics=["ss_exit_window"], progress=True)
    err = capsys.readouterr().err
    assert "sweep (closed-form)" in err and "3/3" in err


@pytest.mark.parametrize("rtt_model", ["last", "fluid"])
def test_rtt_model_reaches_the_batched_call(rtt_model: str) -> None:
    points = list(
        grid(algorithm="quick-vegas", bandwidth=["10Mbps", "30Mbps"], cbr="none", duration="10s")
    )
    res = sweep(points, engine="rounds", metrics=ROUND_METRICS, rtt_model=rtt_model)
    assert_rows_match_single_runs(res.table, points, rtt_model=rtt_model)
    # and it matters: the default (average) burst term gives another slow-start exit
    default = sweep(points, engine="rounds", metrics=["ss_exit_window"])
    assert not np.array_equal(default.table["ss_exit_window"], res.table["ss_exit_window"])


def test_explicit_points_in_a_config() -> None:
    config = {
        "engine": "closed-form",
        "algorithm": ["vegas", "quick-vegas"],
        "metrics": ["ss_exit_window"],
        "points": [
            {"bandwidth": "20Mbps", "rtt": "50ms"},
            {"bandwidth": "80Mbps", "rtt": "200ms", "gamma": 2},
        ],
    }
    sw = Sweep.from_dict(config)
    assert [(p["algorithm"], p["bandwidth"]) for p in sw.points] == [
        ("vegas", "20Mbps"),
        ("vegas", "80Mbps"),
        ("quick-vegas", "20Mbps"),
        ("quick-vegas", "80Mbps"),
    ]
    res = sw.run()
    assert list(res.table.columns[3:6]) == ["bandwidth", "rtt", "gamma"]
    assert res.table["gamma"].isna().tolist() == [True, False, True, False]
    with pytest.raises(ValueError, match="'algorithm'"):
        Sweep.from_dict({**config, "points": [{"algorithm": "reno"}]})
    with pytest.raises(ValueError, match="either"):
        Sweep.from_dict({**config, "grid": {"rtt": ["50ms"]}})


def test_batched_rounds_ignore_events_after_the_end_of_a_longer_rtt_point() -> None:
    points = list(
        grid(
            algorithm="vegas",
            rtt=["20ms", "300ms"],
            bandwidth="100Mbps",
            buffer=50,
            cbr="none",
            duration="1s",
        )
    )
    res = sweep(points, engine="rounds", metrics=ROUND_METRICS)
    assert_rows_match_single_runs(res.table, points)
