"""``tcpfluid sweep --scheduler local``: the command's packet runs on a Dask LocalCluster
give the table of its own process pool (a cluster of worker processes started and packet
runs on each route, so the validation suite's; the scheduler's errors are checked in
tests/cli/test_sweep_cli.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tcpfluid.cli import main
from tcpfluid.sweep import read_table


def test_sweep_command_on_a_local_dask_cluster(tmp_path: Path, capsys: Any) -> None:
    pytest.importorskip("distributed")
    cfg = tmp_path / "packet.toml"
    cfg.write_text(
        'engine = "packet"\nalgorithm = ["vegas", "reno"]\nmetrics = ["utilization"]\n'
        '[grid]\nbandwidth = ["1Mbps", "2Mbps"]\ncbr = "none"\nduration = "1s"\n'
    )
    out = tmp_path / "p.csv"
    # one worker process: the command's route to a LocalCluster and back (the points cross
    # to another process and return); spreading points over several Dask workers is
    # validation/sweep/test_sweep_executors.py's (100 points, two workers)
    argv = ["sweep", str(cfg), "--out", str(out), "--scheduler", "local", "--jobs", "1"]
    assert main([*argv, "--no-cache"]) == 0
    local = read_table(out)
    assert main(["sweep", str(cfg), "--out", str(out), "--jobs", "1", "--no-cache"]) == 0
    pd.testing.assert_frame_equal(local, read_table(out))
    assert (local["status"] == "ok").all() and (local["utilization"] > 0).all()
