"""``tcpfluid report``: the validation report (closed forms vs fluid models vs packet
simulator vs the documents); what it writes: docs/report.md."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._options import add_command, add_jobs_option, add_quiet_option
from ._options import parse_jobs as _parse_jobs

__all__ = ["DEFAULT_OUT", "DEFAULT_OUT_QUICK", "SECTION_TITLES", "add_parser", "run"]

#: default output folders of a full and of a quick report
DEFAULT_OUT = "report"
DEFAULT_OUT_QUICK = "report-quick"

_EPILOG = """\
examples:
  tcpfluid report --jobs 2                          # full report into ./report
  tcpfluid report --quick                           # CI settings, into ./report-quick
  tcpfluid report --sections critical-window,conspicuous --out /tmp/r
  tcpfluid report --jobs 2 --figures figures        # also refresh the README figures

sections:
{sections}
"""


#: the report's sections and their titles, in order (``--help`` lists them without importing
#: the sections; tests/report/test_report.py checks them against tcpfluid.report.SECTIONS)
SECTION_TITLES: tuple[tuple[str, str], ...] = (
    ("critical-window", "Critical window vs BDP"),
    ("new-equilibrium", "Rounds to a new equilibrium"),
    ("conspicuous", "TCP-Ho conspicuous rounds"),
    ("basic", "Basic behaviour (§5.1)"),
    ("convergence-bdp", "Convergence time vs BDP"),
    ("many-flows", "Many flows"),
    ("thesis-fairness", "Two-flow fairness (thesis)"),
    ("thesis-vegas-delta", "One Vegas-δ flow (thesis)"),
    ("thesis-reno", "Two Reno flows (thesis)"),
    ("thesis-many-flows", "Many flows behind RED (thesis)"),
    ("thesis-delayed-ack", "Delayed ACKs (thesis)"),
    ("asymmetric", "Asymmetric networks"),
    ("ho-fairness", "TCP-Ho paper Tables 5-6"),
    ("ho-friendliness", "TCP-Ho paper Table 7"),
    ("itcp-tables", "iTCP-Vegas paper Tables 1-2"),
)


def add_parser(sub: Any) -> None:
    listing = "\n".join(f"  {name}: {title}" for name, title in SECTION_TITLES)
    p = add_command(
        sub,
        "report",
        help="validation report: closed form vs round model vs ODE vs packet sim vs documents",
        description=(
            "Run the documents' scenarios on every layer and write a Markdown and a "
            "self-contained HTML report with comparison tables (relative errors, stated "
            "tolerances, verdicts) and figures."
        ),
        epilog=_EPILOG.format(sections=listing),
    )
    p.add_argument(
        "--out", default=None, metavar="DIR",
        help=f"output folder (default: {DEFAULT_OUT}; with --quick: {DEFAULT_OUT_QUICK})",
    )  # fmt: skip
    p.add_argument(
        "--quick", action="store_true",
        help="CI settings: smaller grids and scaled-down many-flow runs",
    )  # fmt: skip
    add_jobs_option(p)
    p.add_argument(
        "--sections", default=None, metavar="A,B,...",
        help=f"comma-separated subset of: {', '.join(n for n, _ in SECTION_TITLES)}",
    )  # fmt: skip
    p.add_argument(
        "--figures", default=None, metavar="DIR",
        help="also write the PNG figures into DIR, e.g. figures (the README's)",
    )  # fmt: skip
    add_quiet_option(p, "no progress bar (there is none either when stderr is not a terminal)")
    p.set_defaults(run=run)


def parse_jobs(value: str | None) -> int:
    """``--jobs`` (:func:`tcpfluid.cli._options.parse_jobs`), default and 0: the usable CPUs,
    capped at them."""
    from ..sweep.execution import usable_cpus

    n = _parse_jobs(value)
    return usable_cpus() if not n else min(n, usable_cpus())


def _holds_full_report(out: str) -> bool:
    """True when ``out/report.json`` is a report written without ``--quick``."""
    import json

    path = os.path.join(out, "report.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return False
    config = data.get("config") if isinstance(data, dict) else None
    return isinstance(config, dict) and config.get("quick") is False


def _command(args: argparse.Namespace, jobs: int) -> str:
    """The command line that reproduces this report (written into it)."""
    parts = ["tcpfluid report", f"--out {args.out}", f"--jobs {jobs}"]
    parts += ["--quick"] * args.quick + [f"--sections {args.sections}"] * bool(args.sections)
    parts += [f"--figures {args.figures}"] * (args.figures is not None)
    return " ".join(parts)


def _check_writable(option: str, path: str) -> None:
    """Refuse an output folder that cannot be written (its nearest existing ancestor probed),
    naming the folder as given and the ancestor that refuses it."""
    from pathlib import Path

    from .._validation import _probe_directory

    probe = os.path.abspath(path)
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        raise ValueError(
            f"{option} {path!r} cannot be written: {probe!r} is a file, not a directory"
        )
    _probe_directory(option, Path(probe), Path(path))  # "OPTION 'path': cannot write in ..."


def run(args: argparse.Namespace) -> int:
    """Validate the options (before the report's modules are imported), run, write."""
    jobs = parse_jobs(args.jobs)
    if args.out is None:
        args.out = DEFAULT_OUT_QUICK if args.quick else DEFAULT_OUT
    out = args.out
    if not out.strip():
        raise ValueError(
            f"--out must name a directory, got {out!r} (an empty name would write into the "
            "current directory); give e.g. --out report"
        )
    if args.quick and _holds_full_report(out):  # False when out is a file
        raise ValueError(
            f"--out {out!r} holds a full report; a --quick run does not overwrite it "
            f"(default for --quick: {DEFAULT_OUT_QUICK}; or remove {out!r} first)"
        )
    folders = [
        (opt, d) for opt, d in (("--out", out), ("--figures", args.figures)) if d is not None
    ]
    for option, folder in folders:
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise ValueError(f"{option} must be a directory, got {folder!r}, which is a file")
    for option, folder in folders:  # before minutes of runs
        _check_writable(option, folder)
    import matplotlib

    matplotlib.use("Agg")
    from ..report import build_report, resolve_sections, write_report

    names = resolve_sections(args.sections)  # raises before any work on a bad name
    report = build_report(
        [s.name for s in names], quick=args.quick, jobs=jobs, progress=not args.quiet
    )
    cmd = _command(args, jobs)
    written = write_report(report, out, figures_dir=args.figures, command=cmd)
    from ..report._summary import summarize

    summary = summarize(report)  # the count the report's summary states
    cells = summary.verdict_cells
    print(
        f"wrote {os.path.join(out, 'index.html')} and {os.path.join(out, 'index.md')} "
        f"({len(written['files'])} files); {report.n_rows} rows, {summary.n_differs} "
        f"flagged DIFFERS ({sum(not c.agree for c in cells)} of {len(cells)} compared cells "
        f"outside their tolerance); {report.elapsed_s:.1f} s"
    )
    return 0
