"""``tcpfluid report``: the validation report (closed forms vs fluid models vs packet
simulator vs the documents).

Writes ``OUT/index.md``, ``OUT/index.html`` (self-contained: figures embedded),
``OUT/report.json`` and the figures as PNG and SVG in ``OUT/figures/``; with
``--figures DIR`` the PNG figures are also written to DIR (the repository's ``figures/``,
which the README shows). A progress bar goes to stderr.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

__all__ = ["add_parser", "run"]

_EPILOG = """\
examples:
  tcpfluid report                                   # full report into ./report
  tcpfluid report --quick --jobs 2 --out /tmp/r     # CI settings (< 3 minutes)
  tcpfluid report --sections critical-window,conspicuous
  tcpfluid report --jobs 2 --figures figures        # also refresh the README figures

sections:
{sections}
"""


def add_parser(sub: Any) -> None:
    """Register the ``report`` sub-command."""
    from ..report import SECTIONS

    listing = "\n".join(f"  {name}: {spec.title}" for name, spec in SECTIONS.items())
    p = sub.add_parser(
        "report",
        help="validation report: closed form vs round model vs ODE vs packet sim vs documents",
        description=(
            "Run the documents' scenarios on every layer and write a Markdown and a "
            "self-contained HTML report with comparison tables (relative errors, stated "
            "tolerances, verdicts) and figures."
        ),
        epilog=_EPILOG.format(sections=listing),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--out", default="report", metavar="DIR", help="output folder (default: report)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="CI settings: smaller grids and scaled-down many-flow runs",
    )
    p.add_argument(
        "--jobs", default="1", metavar="N", help="worker processes (default 1; 0 = all CPUs)"
    )
    p.add_argument(
        "--sections",
        default=None,
        metavar="A,B,...",
        help=f"comma-separated subset of: {', '.join(SECTIONS)}",
    )
    p.add_argument(
        "--figures",
        default=None,
        metavar="DIR",
        help="also write the PNG figures into DIR, e.g. figures (the README's)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(run=run)


def parse_jobs(value: str) -> int:
    """``--jobs``: an integer >= 0 (0: all CPUs); ValueError naming the value otherwise."""
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ValueError(f"--jobs must be an integer >= 0 (0: all CPUs), got {value!r}") from None
    if n < 0:
        raise ValueError(f"--jobs must be an integer >= 0 (0: all CPUs), got {value!r}")
    return n if n > 0 else (os.cpu_count() or 1)


def _command(args: argparse.Namespace, jobs: int) -> str:
    """The command line that reproduces this report (written into it)."""
    parts = ["tcpfluid report", f"--out {args.out}", f"--jobs {jobs}"]
    if args.quick:
        parts.append("--quick")
    if args.sections:
        parts.append(f"--sections {args.sections}")
    if args.figures is not None:
        parts.append(f"--figures {args.figures}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    """Validate the options, run the report, write it."""
    import matplotlib

    matplotlib.use("Agg")
    from ..report import build_report, resolve_sections, write_report

    jobs = parse_jobs(args.jobs)
    names = resolve_sections(args.sections)  # raises before any work on a bad name
    out = args.out
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"--out must be a directory, got {out!r}, which is a file")
    if (
        args.figures is not None
        and os.path.exists(args.figures)
        and not os.path.isdir(args.figures)
    ):
        raise ValueError(f"--figures must be a directory, got {args.figures!r}, which is a file")
    report = build_report(
        [s.name for s in names], quick=args.quick, jobs=jobs, progress=not args.no_progress
    )
    cmd = _command(args, jobs)
    written = write_report(report, out, figures_dir=args.figures, command=cmd)
    print(
        f"wrote {os.path.join(out, 'index.html')} and {os.path.join(out, 'index.md')} "
        f"({len(written['files'])} files); {report.n_rows} rows, "
        f"{report.n_disagreements} flagged DIFFERS; {report.elapsed_s:.1f} s"
    )
    return 0
