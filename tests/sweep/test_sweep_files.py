"""Sweeps over scenario files: the cache and the seeds follow the file's content, not its
path; a file without ``algorithm`` runs as written; its flows' own law parameters reach
every engine.

Where the numbers come from:

* the values of a cached sweep against the same sweep with no cache (another route: every
  point computed again);
* the rows of a file run as written against ``tcpfluid.simulate`` on ``load_scenario`` of
  the file (the engines' own entry, no sweep in between);
* the closed forms' settled window against μd + α (the Quick Vegas paper, eq. 6, Vegas
  settles α packets above the pipe), μ and d from the table's path columns;
* the seeds and cache keys of registered scenarios against the rule docs/sweeps.md states
  (SHA-256 of the point as sorted compact JSON), written out here with ``json``/``hashlib``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import tcpfluid
import tcpfluid.sweep.cache as sweep_cache
from tcpfluid.sweep import Sweep, sweep

ONE_LINK = """\
name = "mys"
duration = "20s"
[[link]]
name = "bottleneck"
rate = "{rate}"
delay = "10ms"
buffer = 300
[[flow]]
algorithm = "vegas"
rtt = "60ms"
{params}
"""
CONFIG = """\
engine = "{engine}"
scenario = "myscen.toml"
{algorithm}
metrics = [{metrics}]
[grid]
buffer = [100, 200]
"""


def write(folder: Path, rate: str = "10Mbps", params: str = "", **config: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "myscen.toml").write_text(ONE_LINK.format(rate=rate, params=params))
    cfg = folder / "sweep.toml"
    engine = config.get("engine", "rounds")
    metrics = '"settled_window"' + ("" if engine == "closed-form" else ', "throughput_pps"')
    cfg.write_text(CONFIG.format(engine=engine, algorithm=config.get("alg", ""), metrics=metrics))
    return cfg


def test_an_edited_scenario_file_is_computed_again_not_taken_from_the_cache(
    tmp_path: Path,
) -> None:
    cfg = write(tmp_path, alg='algorithm = "vegas"')
    cache = tmp_path / "c"
    first = Sweep.from_toml(cfg).run(cache_dir=cache)
    assert (first.n_computed, first.n_cached) == (2, 0)
    write(tmp_path, rate="20Mbps", alg='algorithm = "vegas"')  # the same path, new content
    edited = Sweep.from_toml(cfg).run(cache_dir=cache)
    assert (edited.n_computed, edited.n_cached) == (2, 0)
    fresh = Sweep.from_toml(cfg).run()  # no cache: every point computed from the file
    pd.testing.assert_frame_equal(edited.table, fresh.table)
    # the numbers moved with the rate (a stale entry would keep the 10 Mb/s throughput)
    assert list(edited.table["mu_pps"]) == [20e6 / 8000] * 2
    assert (edited.table["throughput_pps[0]"] > first.table["throughput_pps[0]"] * 1.5).all()
    again = Sweep.from_toml(cfg).run(cache_dir=cache)
    assert (again.n_computed, again.n_cached) == (0, 2)
    pd.testing.assert_frame_equal(again.table, fresh.table)


def test_seeds_and_packet_results_do_not_depend_on_the_directory_or_the_path(
    tmp_path: Path, monkeypatch: Any
) -> None:
    cfg = write(tmp_path / "sub", alg='algorithm = "reno"', engine="packet")
    tables = []
    for cwd, config in (
        (tmp_path, Path("sub") / "sweep.toml"),  # the file read as sub/myscen.toml
        (tmp_path / "sub", Path("sweep.toml")),  # ... as myscen.toml
        (tmp_path, cfg),  # ... by its absolute path
    ):
        monkeypatch.chdir(cwd)
        res = Sweep.from_toml(config).run(jobs=1)
        assert (res.table["status"] == "ok").all()
        tables.append(res.table.drop(columns="scenario"))
    for t in tables[1:]:
        pd.testing.assert_frame_equal(t, tables[0])
    # a copy of the file elsewhere is the same experiment: the same seeds
    copy = tmp_path / "elsewhere"
    write(copy, alg='algorithm = "reno"', engine="packet")
    monkeypatch.chdir(copy)
    moved = Sweep.from_toml(Path("sweep.toml")).run(jobs=1)
    assert list(moved.table["seed"]) == list(tables[0]["seed"])
    # a different file (another rate) gives other seeds
    write(copy, rate="12Mbps", alg='algorithm = "reno"', engine="packet")
    other = Sweep.from_toml(Path("sweep.toml")).run(jobs=1)
    assert not set(other.table["seed"]) & set(tables[0]["seed"])


def test_named_scenarios_keep_their_documented_seeds_and_cache_keys(tmp_path: Path) -> None:
    # the rule of docs/sweeps.md, written out: users' caches and tables stay valid
    points = [{"algorithm": "vegas", "bandwidth": "20Mbps"}, {"algorithm": "reno", "rtt": "50ms"}]
    res = sweep(points, engine="rounds", metrics=["utilization"], cache_dir=tmp_path)
    for p, seed in zip(points, res.table["seed"], strict=True):
        point = {"scenario": "qv-basic", **p}
        text = json.dumps(point, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode()).digest()
        assert seed == int.from_bytes(digest[:8], "big") & ((1 << 63) - 1)
    keys = set()
    for p in points:
        key = {
            "point": {"scenario": "qv-basic", **p},
            "engine": "rounds",
            "options": {"rtt_model": "average"},
            "version": tcpfluid.__version__,
            "revision": sweep_cache.RESULTS_REVISION,
        }
        text = json.dumps(key, sort_keys=True, separators=(",", ":"))
        keys.add(hashlib.sha256(text.encode()).hexdigest())
    stored = {json.loads(line)["key"] for f in tmp_path.glob("*.jsonl") for line in f.open()}
    assert stored == keys


@pytest.mark.parametrize("engine", ["rounds", "ode", "packet"])
def test_a_file_without_algorithm_runs_as_written(tmp_path: Path, engine: str) -> None:
    cfg = write(tmp_path, params="params = { alpha = 6, beta = 8 }", engine=engine)
    res = Sweep.from_toml(cfg).run(jobs=1)
    assert (res.table["status"] == "ok").all(), res.table["message"].tolist()
    assert res.table["algorithm"].isna().all()  # the point named none
    for buffer, seed, got in zip(
        res.table["buffer"], res.table["seed"], res.table["settled_window"], strict=True
    ):
        sc = tcpfluid.load_scenario(tmp_path / "myscen.toml", buffer=int(buffer))
        opts = {"seed": int(seed)} if engine == "packet" else {}
        want = tcpfluid.simulate(sc, engine, **opts).summary.to_dict()["settled_window"]
        assert got == want


def test_a_files_own_law_parameters_reach_the_batched_round_model(tmp_path: Path) -> None:
    # algorithm given: the flows keep the file's alpha = 6, beta = 8 (as -a keeps them)
    cfg = write(tmp_path, params="params = { alpha = 6, beta = 8 }", alg='algorithm = "vegas"')
    res = Sweep.from_toml(cfg).run()
    for buffer, got in zip(res.table["buffer"], res.table["settled_window"], strict=True):
        sc = tcpfluid.load_scenario(tmp_path / "myscen.toml", buffer=int(buffer))
        want = tcpfluid.simulate(sc.with_algorithm("vegas"), "rounds").summary.to_dict()
        assert got == want["settled_window"]


def test_the_closed_forms_of_a_file_read_its_flows_law(tmp_path: Path) -> None:
    cfg = write(tmp_path, params="params = { alpha = 6, beta = 8 }", engine="closed-form")
    res = Sweep.from_toml(cfg).run()
    t = res.table
    # Vegas settles at μd + α (eq. 6 of the Quick Vegas paper): α = 6, the file's own
    assert ((t["settled_window"] - (t["mu_pps"] * t["d_s"] + 6)).abs() < 1e-9).all()


def test_a_file_without_algorithm_is_refused_where_it_cannot_run(tmp_path: Path) -> None:
    cfg = write(tmp_path)
    (tmp_path / "myscen.toml").write_text(ONE_LINK.format(rate="10Mbps", params="").replace(
        'algorithm = "vegas"\n', ""
    ))  # fmt: skip
    with pytest.raises(ValueError, match=r"\[\[flow\]\] 1 of .*myscen.toml' has none"):
        Sweep.from_toml(cfg)
    mixed = ONE_LINK.format(rate="10Mbps", params="") + '[[flow]]\nalgorithm = "reno"\n'
    (tmp_path / "myscen.toml").write_text(mixed)
    cf = write(tmp_path / "cf", engine="closed-form")
    (tmp_path / "cf" / "myscen.toml").write_text(mixed)
    with pytest.raises(ValueError, match="run vegas, reno; engine 'closed-form' computes one"):
        Sweep.from_toml(cf)
    with pytest.raises(ValueError, match="scenario 'qv-basic' leaves its flows' algorithm"):
        sweep([{"bandwidth": "10Mbps"}], metrics=["utilization"])
