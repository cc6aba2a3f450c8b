"""The sweep cache trusts nothing it reads and never costs the table: entries outside a
metric's range and malformed lines are recomputed with a warning; ``--cache`` equal to
``--out`` is refused before any work. (A cache that cannot be written: test_sweep_robust.)"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from tcpfluid.cli import main
from tcpfluid.sweep import Sweep, grid
from tcpfluid.sweep.cache import invalid_metric

METRICS = ("utilization", "jain_index", "throughput_pps")


def _sweep() -> Sweep:
    points = grid(algorithm="vegas", bandwidth=["10Mbps", "20Mbps"], cbr="none", duration="3s")
    return Sweep(points, engine="rounds", metrics=METRICS)


@pytest.mark.parametrize(
    ("metric", "value"),
    [
        ("utilization", 7.57),
        ("utilization", -0.1),
        ("jain_index", 1.5),
        ("throughput_pps", [10.0, -3.0]),
        ("settled_window", 0.0),
        ("time_to_equilibrium_s", -1.0),
        ("conserved", 1),
        ("losses", True),
    ],
)
def test_values_outside_a_metric_range_are_invalid(metric: str, value: Any) -> None:
    assert invalid_metric({metric: value}, [metric]) is not None
    assert invalid_metric({metric: None}, [metric]) is None


def test_an_edited_cached_value_is_recomputed_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    first = _sweep().run(cache_dir=tmp_path)
    (part,) = tmp_path.glob("*.jsonl")
    lines = part.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["summary"]["utilization"] = 7.57
    lines[0] = json.dumps(rec)
    part.write_text("\n".join([*lines, '{"key": "torn']) + "\n")
    with caplog.at_level(logging.WARNING, logger="tcpfluid.sweep"):
        again = _sweep().run(cache_dir=tmp_path)
    assert again.n_cached == 1 and again.n_computed == 1
    assert "utilization = 7.57 (outside [0, 1])" in caplog.text
    assert "1 malformed line" in caplog.text and f"{part}:3" in caplog.text
    # the recomputed point is the first run's (same seed, same result)
    assert list(again.table["utilization"]) == list(first.table["utilization"])
    assert set(again.table["status"]) == {"ok"}


def test_cache_equal_to_out_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(
        'engine = "closed-form"\nalgorithm = "vegas"\nmetrics = ["ss_exit_window"]\n'
        '[grid]\nbandwidth = ["10Mbps"]\n'
    )
    for cache in ("X.csv", "."):
        assert main(["sweep", "s.toml", "--out", "X.csv", "--cache", cache]) == 2
        err = capsys.readouterr().err
        assert f"--cache {cache!r} is the output file or holds it" in err
        assert not Path("X.csv").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--out", ""], "--out must name a file such as table.csv, got ''"),
        # an empty --cache once fell back silently to the default X.csv.cache
        (["--out", "X.csv", "--cache", ""], "--cache must name a directory, got ''"),
    ],
)
def test_an_empty_out_or_cache_is_refused_before_any_work(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.toml").write_text(
        'engine = "closed-form"\nalgorithm = "vegas"\nmetrics = ["ss_exit_window"]\n'
        '[grid]\nbandwidth = ["10Mbps"]\n'
    )
    assert main(["sweep", "s.toml", *options]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


def test_a_rate_without_a_unit_in_a_grid_is_refused_before_any_point() -> None:
    with pytest.raises(ValueError, match=r"bandwidth=6250 \(point 0\) has no unit"):
        Sweep(grid(algorithm="vegas", bandwidth=[6250, 12500]), engine="rounds", metrics=METRICS)
