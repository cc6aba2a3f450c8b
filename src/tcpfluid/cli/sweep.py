"""``tcpfluid sweep CONFIG.toml --out FILE``: run a parameter sweep, write a tidy table
(docs/sweeps.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .._validation import check_output_file
from ..sweep import CONFIG_KEYS, ENGINE_METRICS, Sweep
from ..sweep.config import _TEXT_COLUMNS
from ..sweep.plotting import missing_reasons
from ..sweep.tables import _table_format
from ._options import add_command, add_jobs_option, add_quiet_option, parse_jobs

__all__ = ["add_parser", "run"]

_EPILOG = """\
config (TOML):
  engine = "rounds"                # closed-form, rounds, ode or packet
  scenario = "qv-basic"            # optional; default qv-basic
  algorithm = ["vegas", "quick-vegas"]   # a top-level list is swept too
  metrics = ["ss_exit_window", "time_to_equilibrium_s"]
  [grid]                           # any scenario parameter: a list (swept) or one value
  bandwidth = ["10Mbps", "50Mbps", "100Mbps"]
  rtt = ["50ms", "100ms"]

top-level keys: {keys}; instead of [grid], [[points]] tables list explicit points.
metrics by engine:
{metrics}

examples:
  tcpfluid sweep examples/sweep.toml --out sweep.csv
  tcpfluid sweep packet.toml --out packet.parquet --jobs 8
  tcpfluid sweep packet.toml --out packet.csv --scheduler tcp://10.0.0.5:8786
  tcpfluid sweep packet.toml --out packet.csv --scheduler local --jobs 4
"""


def add_parser(sub: Any) -> None:
    listing = "\n".join(f"  {e}: {', '.join(m)}" for e, m in ENGINE_METRICS.items())
    p = add_command(
        sub,
        "sweep",
        help="run a parameter sweep from a TOML config (grid x engine x metrics -> table)",
        description=(
            "Evaluate a grid of scenario parameters with one engine and write one row per "
            "point (parameters, bottleneck path, metrics, status, message, seed) to a .csv "
            "or .parquet file."
        ),
        epilog=_EPILOG.format(keys=", ".join(CONFIG_KEYS), metrics=listing),
    )
    p.add_argument("config", metavar="CONFIG.toml", help="sweep configuration")
    p.add_argument(
        "-o", "--out", required=True, metavar="FILE", help="output table: FILE.csv or FILE.parquet"
    )
    add_jobs_option(
        p, "for the packet/ode engines; with --scheduler local, the number of Dask workers"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the points on a Dask cluster: a scheduler address (tcp://host:8786) or "
        "'local' for a LocalCluster on this machine (needs tcpfluid[dask])",
    )
    cache = p.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache", metavar="DIR", default=None, help="result cache directory (default FILE.cache)"
    )
    cache.add_argument("--no-cache", action="store_true", help="do not read or write a cache")
    add_quiet_option(
        p,
        "no progress bar (there is none either when stderr is not a terminal)",
        dest="no_progress",
    )
    p.add_argument(
        "--allow-failed",
        action="store_true",
        help="exit 0 even if some points failed (default: exit status 1 when any point "
        "failed; the table is written either way, failed rows with status=error and the "
        "reason in 'message')",
    )
    p.set_defaults(run=run)


def _dask_client(address: str, jobs: int | None, n_points: int) -> Any:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ValueError(
            f"--scheduler {address!r} needs Dask; install it with `pip install tcpfluid[dask]`"
        ) from None
    if address == "local":
        from ..sweep.execution import pool_size

        workers = pool_size(jobs, n_points)  # capped at the points and the CPUs
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        return Client(cluster)
    try:
        return Client(address)
    except (OSError, ValueError) as exc:  # unreachable host, bad port, malformed address
        raise ValueError(
            f"--scheduler {address!r}: cannot connect to a Dask scheduler there ({exc}); give "
            "a running scheduler's address (tcp://host:8786) or 'local'"
        ) from None


def _check_cache_option(cache_dir: str, out: Path) -> None:
    """Refuse a cache directory that is the output file, holds it, or is an existing file."""
    cache, table = Path(cache_dir).resolve(), out.resolve()
    if cache_dir == "" or cache == table or cache in table.parents:
        raise ValueError(
            f"--cache {cache_dir!r} is the output file or holds it (--out {str(out)!r}); the "
            "cache is a directory of its own: give another --cache or leave it out "
            f"(default {out!s}.cache)"
        )
    if cache.exists() and not cache.is_dir():
        raise ValueError(f"--cache {cache_dir!r} is an existing file; give a directory")


def run(args: argparse.Namespace) -> int:
    """Run the command; returns 0, or 1 if points failed (unless ``--allow-failed``)."""
    for option, value, what, hint in (
        ("--out", args.out, "file such as table.csv", ""),
        ("--cache", args.cache, "directory", " (leave it out for FILE.cache, or --no-cache)"),
    ):
        if value is not None and not value.strip():
            raise ValueError(f"{option} must name a {what}, got {value!r}{hint}")
    out = Path(args.out)
    _table_format(out)  # a bad extension or missing pyarrow fails before any work
    check_output_file("--out", out)  # an unwritable --out fails before any work too
    args.jobs = parse_jobs(args.jobs)
    cache_dir = None if args.no_cache else (args.cache or str(out) + ".cache")
    if cache_dir is not None:
        _check_cache_option(cache_dir, out)  # before the configuration is read
    sw = Sweep.from_toml(args.config)
    client = None
    executor = None
    if args.scheduler is not None:
        client = _dask_client(args.scheduler, args.jobs, len(sw.points))
        executor = client.get_executor()
    try:
        res = sw.run(
            executor=executor,
            jobs=args.jobs,
            cache_dir=cache_dir,
            progress=not args.no_progress and sys.stderr.isatty(),
        )
    finally:
        if client is not None:
            cluster = client.cluster if args.scheduler == "local" else None
            client.close()
            if cluster is not None:
                cluster.close()
    res.write(out)
    print(
        f"wrote {res.n_points} rows to {out} ({res.n_computed} computed, {res.n_cached} from "
        f"cache, {res.n_failed} failed)"
    )
    for metric in res.metrics:
        for column in [c for c in res.table.columns if c.split("[")[0] == metric]:
            for why, n in missing_reasons(res.table, column).items():
                print(f"{column}: no value at {n} point(s): {why}")
    for column in (c for c in _TEXT_COLUMNS if c in res.table.columns):
        counts: dict[str, int] = {}  # in order of first appearance
        for v in res.table.loc[res.table["status"] == "ok", column]:
            counts[v] = counts.get(v, 0) + 1
        print(f"{column}: " + ", ".join(f"{v} at {n} point(s)" for v, n in counts.items()))
    if res.n_failed:
        first = res.table.loc[res.table["status"] != "ok"].iloc[0]
        print(
            f"tcpfluid sweep: {res.n_failed} point(s) failed; first: point {first['point']}: "
            f"{first['message']}",
            file=sys.stderr,
        )
        if not args.allow_failed:
            return 1
    return 0
