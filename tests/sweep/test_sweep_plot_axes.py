"""``plot_sweep`` axes: rates in any accepted form on one numeric, sorted axis with its
unit; a bare buffer in packets; ``where`` compares numbers as numbers; reasons that hold
"; " are kept whole.

Where the expectations come from: the x values of a rate axis against the table's own
``mu_pps`` column (the path layer's conversion of the same rates, ``tcpfluid.Path``; in
``qv-basic`` the bandwidth is the bottleneck's rate), Mb/s by hand (1 Mb/s = 10^6 bit/s).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from tcpfluid.sweep import grid, plot_sweep, read_table, sweep
from tcpfluid.sweep.plotting import missing_reasons


def table(bandwidths: list[str], **axes: object) -> pd.DataFrame:
    points = grid(algorithm="vegas", bandwidth=bandwidths, cbr="none", **axes)
    return sweep(points, engine="closed-form", metrics=["settled_window"]).table


def drawn(t: pd.DataFrame, x: str, **kw: object) -> tuple[np.ndarray, np.ndarray, str]:
    _, ax = plt.subplots()
    (line,) = plot_sweep(t, "settled_window", x=x, ax=ax, **kw)  # type: ignore[arg-type]
    out = np.asarray(line.get_xdata()), np.asarray(line.get_ydata()), ax.get_xlabel()
    plt.close(ax.figure)
    return out


@pytest.mark.parametrize(
    "bandwidths",
    [
        ["12500pps", "2500pps", "6250pps", "1250pps"],  # packet rates
        ["500kbps", "1.5Mbps", "6250pps", "0.1Gbps", "20 Mb/s"],  # both kinds, spellings
    ],
)
def test_a_rate_axis_is_numeric_in_packets_per_second_and_sorted(bandwidths: list[str]) -> None:
    t = table(bandwidths)
    xs, ys, label = drawn(t, "bandwidth")
    order = np.argsort(t["mu_pps"].to_numpy())
    np.testing.assert_array_equal(xs, t["mu_pps"].to_numpy()[order])
    np.testing.assert_array_equal(ys, t["settled_window"].to_numpy()[order])
    assert label.startswith("bandwidth (packets/s")
    assert ("1000-byte packets" in label) == any("bps" in b or "b/s" in b for b in bandwidths)


def test_bit_rates_alone_are_drawn_in_megabits_per_second_sorted() -> None:
    xs, _, label = drawn(table(["100Mbps", "20 Mb/s", "5000kbps"]), "bandwidth")
    assert label == "bandwidth (Mb/s)"
    np.testing.assert_array_equal(xs, [5.0, 20.0, 100.0])


def test_a_numeric_buffer_axis_is_in_packets() -> None:
    _, _, label = drawn(table(["10Mbps"], buffer=[50, 100]), "buffer")
    assert label == "buffer (packets)"


def test_where_compares_numbers_as_numbers_in_a_table_read_back(tmp_path: Path) -> None:
    res = sweep(
        grid(algorithm="vegas", alpha=[1, 1.5, 2], buffer=[50, 100], cbr="none"),
        engine="closed-form",
        metrics=["settled_window"],
    )
    res.write(tmp_path / "al.csv")
    back = read_table(tmp_path / "al.csv")  # alpha comes back as 1.0, 1.5, 2.0
    xs, ys, _ = drawn(back, "buffer", where={"alpha": "1"})
    rows = back[back["alpha"] == 1.0]
    np.testing.assert_array_equal(xs, rows["buffer"])
    np.testing.assert_array_equal(ys, rows["settled_window"])
    with pytest.raises(ValueError, match=r"alpha takes: 1, 1\.5, 2$"):
        plot_sweep(back, "settled_window", x="buffer", where={"alpha": "7"})


def test_a_reason_that_holds_a_semicolon_is_counted_whole() -> None:
    why = "no closed form gives settling; the round map does not settle"
    t = pd.DataFrame(
        {
            "point": [0, 1],
            "time_to_equilibrium_s": [np.nan, np.nan],
            "ss_exit_window": [np.nan, 3.0],
            "status": ["ok", "ok"],
            "reason": [
                f"ss_exit_window: none; time_to_equilibrium_s: {why}",
                f"time_to_equilibrium_s: {why}",
            ],
        }
    )
    assert missing_reasons(t, "time_to_equilibrium_s") == {why: 2}
    assert missing_reasons(t, "ss_exit_window") == {"none": 1}


def test_heat_map_ticks_show_whole_packet_rates_as_written() -> None:
    # 12500 packets/s is the tick's label, not 1.25e+04
    t = table(["12500pps", "2500pps"], buffer=[100, 200])
    _, ax = plt.subplots()
    plot_sweep(t, "settled_window", x="bandwidth", y="buffer", ax=ax)
    labels = [tick.get_text() for tick in ax.get_xticklabels()]
    plt.close(ax.figure)
    assert labels == ["2500", "12500"]
