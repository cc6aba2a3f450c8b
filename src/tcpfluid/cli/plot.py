"""``tcpfluid plot SWEEP_FILE``: a line plot or heat map of a metric from a sweep table
(:func:`tcpfluid.sweep.plot_sweep`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._validation import atomic_output, check_output_file
from ..sweep import plot_sweep, read_table
from ..sweep.plotting import _axis, _parameter_columns, _select
from ._options import add_command

__all__ = ["add_parser", "run"]

_MAX_PANELS = 12

_EPILOG = """\
examples:
  tcpfluid plot sweep.csv --metric time_to_equilibrium_s --x bandwidth
  tcpfluid plot sweep.csv --metric ss_exit_window --x bandwidth --y rtt --out ss.png
  tcpfluid plot sweep.csv --metric time_to_equilibrium_s --x bdp_pkts --where algorithm=vegas
"""


def add_parser(sub: Any) -> None:
    p = add_command(
        sub,
        "plot",
        help="plot a metric of a sweep table (line plot, or heat map over two parameters)",
        description=(
            "Draw a metric of a `tcpfluid sweep` table over one parameter (lines) or two "
            "(a heat map with a colour bar) and save it as an image."
        ),
        epilog=_EPILOG,
    )
    p.add_argument("table", metavar="SWEEP_FILE", help="a .csv or .parquet written by sweep")
    p.add_argument("-m", "--metric", default=None, help="metric column (default: the first metric)")
    p.add_argument("-x", "--x", dest="x", default=None, help="parameter on the x axis")
    p.add_argument("-y", "--y", dest="y", default=None, help="parameter on the y axis (heat map)")
    p.add_argument(
        "--where", action="append", default=[], metavar="KEY=VALUE",
        help="keep only rows with KEY=VALUE (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--by", action="append", default=None, metavar="COLUMN",
        help="line plot: one line per value of COLUMN (repeatable; default: the other "
        "varying parameters)",
    )  # fmt: skip
    p.add_argument("-o", "--out", default=None, metavar="FIG", help="image file (.png, .pdf, .svg)")
    p.set_defaults(run=run)


def _check_out(out: Path) -> None:
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = out.suffix.lower().lstrip(".")
    if suffix not in formats:
        raise ValueError(
            f"--out {str(out)!r}: unknown image format {out.suffix!r}; use one of "
            f"{', '.join('.' + f for f in sorted(formats))}"
        )
    check_output_file("--out", out)


def run(args: argparse.Namespace) -> int:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if args.out is not None and not args.out.strip():
        raise ValueError(
            f"--out must name an image file such as fig.png, got {args.out!r} (leave it out "
            "for the table's name with .png)"
        )
    out = Path(args.out) if args.out is not None else Path(args.table).with_suffix(".png")
    _check_out(out)  # before any work: no figure drawn for a file that cannot be written
    df = read_table(args.table)
    cols = list(df.columns)
    metrics = cols[cols.index("bdp_pkts") + 1 : cols.index("status")]
    metric = args.metric or (metrics[0] if metrics else None)
    if metric is None:
        raise ValueError(f"{args.table!r} has no metric column")
    if metric not in metrics:
        raise ValueError(
            f"--metric: no metric {metric!r} in the table; metrics: {', '.join(metrics)}"
        )
    where: dict[str, str] = {}
    for item in args.where:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--where expects KEY=VALUE, got {item!r}")
        where[key.strip()] = value.strip()
    params = _parameter_columns(df)
    selected = _select(df, metric, where)
    for opt, name in (("--x", args.x), ("--y", args.y)):
        if name is not None and name not in df.columns:
            raise ValueError(f"{opt}: no column {name!r}; columns: {', '.join(df.columns)}")
    varying = [c for c in params if c not in where and selected[c].astype(str).nunique() > 1]
    # default x: the first varying parameter with numbers (or values with units); a
    # categorical one (algorithm, scenario) then gets one line per value instead
    numeric = [c for c in varying if _axis(selected, c)[0] is not None]
    x = args.x or (numeric[0] if numeric else varying[0] if varying else None)
    if x is None:
        raise ValueError("--x: no parameter varies in the table; name one with --x")
    if args.y is not None and args.y == x:
        raise ValueError(f"--y must differ from --x (a heat map needs two axes), got {args.y!r}")
    if args.y is None:
        fig, ax = plt.subplots(figsize=(7.0, 4.6))
        plot_sweep(df, metric, x=x, where=where, by=args.by, ax=ax)
        ax.set_title(f"{metric} over {x}")
    else:
        others = [c for c in varying if c not in (x, args.y)]
        combos = (
            selected[others].astype(str).drop_duplicates().to_dict("records") if others else [{}]
        )
        if len(combos) > _MAX_PANELS:
            raise ValueError(
                f"a heat map over {x} x {args.y} would need {len(combos)} panels (one per "
                f"value of {', '.join(others)}); fix some with --where KEY=VALUE"
            )
        fig, axes = plt.subplots(1, len(combos), figsize=(5.6 * len(combos), 4.6), squeeze=False)
        for ax, combo in zip(axes[0], combos, strict=True):
            plot_sweep(df, metric, x=x, y=args.y, where={**where, **combo}, ax=ax)
            ax.set_title(", ".join(f"{k}={v}" for k, v in combo.items()) or metric)
    fig.tight_layout()
    with atomic_output(out) as tmp:  # a complete image or none
        fig.savefig(tmp, dpi=120, format=out.suffix.lower().lstrip("."))
    plt.close(fig)
    print(f"wrote {out}")
    return 0
