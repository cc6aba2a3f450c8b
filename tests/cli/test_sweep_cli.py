"""``tcpfluid sweep`` and ``tcpfluid plot``: files written, cache reuse, errors, figures.

Numbers are checked against the library call the command wraps (same sweep through both
doors) and against single runs of ``tcpfluid simulate``; figures are checked for what they
must show (axes labelled with units, a colour bar, one panel per algorithm).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from tcpfluid.cli import main
from tcpfluid.sweep import Sweep, grid, plot_sweep, read_table, sweep

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sweep.toml"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_sweep_command_writes_the_example_table_and_reuses_its_cache(
    tmp_path: Path, capsys: Any
) -> None:
    out = tmp_path / "s.csv"
    assert main(["sweep", str(EXAMPLE), "--out", str(out), "--no-progress"]) == 0
    msg = capsys.readouterr()
    assert "wrote 12 rows" in msg.out and "(12 computed, 0 from cache, 0 failed)" in msg.out
    table = read_table(out)
    assert len(table) == 12
    api = Sweep.from_toml(EXAMPLE).run().table
    pd.testing.assert_frame_equal(table, api, check_dtype=False)
    # second run: every point comes from FILE.cache
    assert (tmp_path / "s.csv.cache").is_dir()
    assert main(["sweep", str(EXAMPLE), "--out", str(out), "--no-progress"]) == 0
    assert "(0 computed, 12 from cache, 0 failed)" in capsys.readouterr().out
    pd.testing.assert_frame_equal(read_table(out), api, check_dtype=False)


def test_parquet_output_and_no_cache(tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "s.parquet"
    assert main(["sweep", str(EXAMPLE), "-o", str(out), "--no-cache", "--no-progress"]) == 0
    assert not (tmp_path / "s.parquet.cache").exists()
    pd.testing.assert_frame_equal(read_table(out), Sweep.from_toml(EXAMPLE).run().table)


BAD = [
    ('engine = "warp"\nalgorithm = "vegas"\nmetrics = ["ss_exit_window"]\n', "'warp'"),
    ('algorithm = "vegas"\nmetrics = ["nope"]\n', "'nope'"),
    (
        'algorithm = "vegas"\nmetrics = ["ss_exit_window"]\n[grid]\nbandwith = ["1Mbps"]\n',
        "bandwith",
    ),
    ('algorithm = "vegas"\nmetrics = ["ss_exit_window"]\n[grid]\nrtt = []\n', "grid.rtt"),
    ('algorithm = "vegas"\nmetrics = ["ss_exit_window"]\njobs = 3\n', "'jobs'"),
    ('algorithm = "vegas"\nmetrics = [\n', "not valid TOML"),
]


@pytest.mark.parametrize(("text", "named"), BAD)
def test_bad_config_exits_2_naming_the_key_and_writes_nothing(
    tmp_path: Path, capsys: Any, text: str, named: str
) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    out = tmp_path / "s.csv"
    assert main(["sweep", str(cfg), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tcpfluid sweep: error:") and named in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_bad_output_and_options_fail_before_work(tmp_path: Path, capsys: Any) -> None:
    assert main(["sweep", str(EXAMPLE), "--out", str(tmp_path / "s.xlsx")]) == 2
    assert ".csv or .parquet" in capsys.readouterr().err
    assert main(["sweep", str(EXAMPLE), "--out", str(tmp_path / "no" / "s.csv")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["sweep", str(EXAMPLE), "--out", str(tmp_path / "s.csv"), "--jobs", "-1"]) == 2
    assert "--jobs" in capsys.readouterr().err
    assert main(["sweep", str(tmp_path / "none.toml"), "--out", str(tmp_path / "s.csv")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_unreachable_or_malformed_scheduler_is_a_clear_error(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "s.csv"
    argv = ["sweep", str(EXAMPLE), "--out", str(out), "--no-cache"]
    assert main([*argv, "--scheduler", "nope://x"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler 'nope://x': cannot connect" in err and "unknown address scheme" in err

    def refused(address: str) -> None:  # what Client raises after its connect timeout
        raise OSError(f"Timed out trying to connect to {address} after 30 s")

    monkeypatch.setattr(distributed, "Client", refused)
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler 'tcp://127.0.0.1:1': cannot connect" in err and "Traceback" not in err
    assert not out.exists()


# ------------------------------------------------------------------------------ plot
@pytest.fixture(scope="module")
def table_file(tmp_path_factory: Any) -> Path:
    out = tmp_path_factory.mktemp("plot") / "s.csv"
    points = grid(
        algorithm=["vegas", "quick-vegas"],
        bandwidth=["20Mbps", "50Mbps", "100Mbps"],
        rtt=["50ms", "100ms"],
        cbr="none",
        duration="60s",
    )
    sweep(points, engine="rounds", metrics=["time_to_equilibrium_s", "throughput_pps"]).write(out)
    return out


def test_plot_heat_map_and_line_plot_files(table_file: Path, capsys: Any) -> None:
    heat = table_file.with_name("heat.png")
    argv = ["plot", str(table_file), "--metric", "time_to_equilibrium_s"]
    assert main([*argv, "--x", "bandwidth", "--y", "rtt", "--out", str(heat)]) == 0
    assert heat.read_bytes()[:8] == PNG_MAGIC
    line = table_file.with_name("line.png")
    assert main([*argv, "--x", "bdp_pkts", "--where", "rtt=100ms", "--out", str(line)]) == 0
    assert line.read_bytes()[:8] == PNG_MAGIC
    # default output name: the table's with .png; default metric: the first one
    assert main(["plot", str(table_file), "--x", "bandwidth"]) == 0
    assert table_file.with_suffix(".png").read_bytes()[:8] == PNG_MAGIC
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--metric", "nope"], "'nope'"),
        (["--x", "bandwidth", "--where", "colour=red"], "'colour'"),
        (["--x", "bandwidth", "--where", "rtt"], "KEY=VALUE"),
        (["--x", "speed"], "'speed'"),
        (["--x", "bandwidth", "--y", "speed"], "--y: no column 'speed'"),
        (["--x", "rtt", "--y", "rtt"], "--y must differ from --x"),
        (["--x", "bandwidth", "--where", "rtt=7ms"], "rtt takes: 100ms, 50ms"),
    ],
)
def test_plot_errors_exit_2(table_file: Path, capsys: Any, argv: list[str], named: str) -> None:
    out = table_file.with_name("x.png")
    assert main(["plot", str(table_file), *argv, "--out", str(out)]) == 2
    assert named in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "named"),
    [("no-such-dir/fig.png", "does not exist"), ("fig.txt", "unknown image format '.txt'")],
)
def test_plot_bad_out_fails_before_drawing(
    table_file: Path, capsys: Any, name: str, named: str
) -> None:
    out = table_file.parent / name
    assert main(["plot", str(table_file), "--x", "bandwidth", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert named in err and "--out" in err and "Traceback" not in err
    assert not out.exists()


def test_plot_empty_out_is_refused_not_replaced_by_the_default(
    table_file: Path, capsys: Any
) -> None:
    # an empty --out once wrote the default TABLE.png
    default = table_file.with_suffix(".png")
    before = default.stat().st_mtime_ns if default.exists() else None
    assert main(["plot", str(table_file), "--x", "bandwidth", "--out", ""]) == 2
    assert "--out must name an image file such as fig.png, got ''" in capsys.readouterr().err
    assert (default.stat().st_mtime_ns if default.exists() else None) == before


def test_plot_sweep_refuses_the_same_column_on_both_axes(table_file: Path) -> None:
    df = read_table(table_file)
    with pytest.raises(ValueError, match="y must differ from x"):
        plot_sweep(df, "time_to_equilibrium_s", x="rtt", y="rtt", where={"algorithm": "vegas"})


def test_plot_sweep_labels_axes_with_units_and_adds_a_colour_bar(table_file: Path) -> None:
    df = read_table(table_file)
    fig, ax = plt.subplots()
    mesh, cbar = plot_sweep(
        df, "time_to_equilibrium_s", x="bandwidth", y="rtt", where={"algorithm": "vegas"}, ax=ax
    )
    assert ax.get_xlabel() == "bandwidth (Mb/s)" and ax.get_ylabel() == "rtt (ms)"
    assert cbar.ax.get_ylabel() == "time_to_equilibrium_s (s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["20", "50", "100"]
    # the cells hold the table's values (row = rtt, column = bandwidth)
    vegas = df[df["algorithm"] == "vegas"]
    want = vegas.pivot(index="rtt", columns="bandwidth", values="time_to_equilibrium_s")
    got = mesh.get_array().reshape(2, 3)
    assert got[1, 2] == want.loc["100ms", "100Mbps"] or pd.isna(want.loc["100ms", "100Mbps"])
    assert got[0, 0] == want.loc["50ms", "20Mbps"]
    plt.close(fig)
    fig, ax = plt.subplots()
    lines = plot_sweep(df, "throughput_pps[0]", x="bdp_pkts", ax=ax)
    # along the BDP axis bandwidth and rtt are absorbed: one line per algorithm, 6 points
    assert len(lines) == 2 and all(len(ln.get_xdata()) == 6 for ln in lines)
    assert list(lines[0].get_xdata()) == sorted(df.loc[df["algorithm"] == "vegas", "bdp_pkts"])
    assert ax.get_xlabel() == "bdp_pkts (packets)"
    assert ax.get_ylabel() == "throughput_pps[0] (packets/s)"
    plt.close(fig)
    with pytest.raises(ValueError, match="algorithm"):
        plot_sweep(df, "time_to_equilibrium_s", x="bandwidth", y="rtt")


def test_result_plot_is_plot_sweep() -> None:
    res = sweep(
        grid(algorithm="vegas", bandwidth=["20Mbps", "40Mbps"], cbr="none", duration="20s"),
        metrics=["utilization"],
    )
    fig, ax = plt.subplots()
    (line,) = res.plot("utilization", x="bandwidth", ax=ax)
    assert list(line.get_xdata()) == [20.0, 40.0]
    assert list(line.get_ydata()) == list(res.table["utilization"])
    plt.close(fig)
