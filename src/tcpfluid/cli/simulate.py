"""``tcpfluid simulate``: run a named scenario with one algorithm on one engine.

Engines are looked up by name in :data:`tcpfluid.engines.ENGINES` (name → engine class,
:mod:`tcpfluid.engines`): ``rounds``, ``packet``, ``ode`` (the hybrid model under its older
name) and ``hybrid``. Every run gives a :class:`~tcpfluid.results.Result` whose summary has
the public keys below.

Public JSON keys (``--json``): ``ss_exit_window``, ``ss_exit_time_s``, ``settled_window``,
``time_to_equilibrium_s``, ``convergence_times_s`` (one per bandwidth change, in order),
``utilization``, ``throughput_pps`` (per flow), ``jain_index``; plus ``scenario``,
``algorithm``, ``engine``, ``params``, ``status`` and ``message`` (0 and ``"ok"`` for a
complete run). ``null`` means "did not happen" (no slow-start
exit, did not settle). The window keys above describe flow 0; beside them every flow's
values (``settled_windows_pkts``, ``times_to_equilibrium_s``, ...) and the aggregates
(``all_settled_time_s``, ``all_converged_times_s``, ``losses_unit``, ``notes``): see
:meth:`tcpfluid.results.Summary.to_dict`. The text table shows every flow.

The run goes through :func:`tcpfluid.simulate`; a progress bar is drawn on stderr when it
is a terminal, unless ``--quiet`` or ``--json``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..algorithms.registry import ALGORITHMS
from ..engines import ENGINES, run_named, simulate_summary
from ..results import Summary
from ..scenarios import SCENARIOS
from ._sets import add_set_option, parse_sets

__all__ = ["ENGINES", "PLANNED_ENGINES", "add_parser", "parse_sets", "run", "simulate_summary"]

#: the engines the command offers (all of :data:`tcpfluid.engines.ENGINES`)
PLANNED_ENGINES: tuple[str, ...] = tuple(ENGINES)

_EPILOG = """\
examples:
  tcpfluid simulate qv-basic --algorithm vegas
  tcpfluid simulate qv-basic --algorithm quick-vegas --set cbr=none --json
  tcpfluid simulate qv-basic -a vegas --set bandwidth=100Mbps --set rtt=200ms --set alpha=1

Time to equilibrium / convergence: the first time after which the window stays within
max(1 packet, 2 %) of the value it settles at (the mean over the last 10 % of the segment
before the next bandwidth change), provided it stays there for at least twice that tail;
null if it does not settle. See tcpfluid.metrics and docs/round-model.md.

scenarios:
{scenarios}
"""


def add_parser(sub: Any) -> None:
    """Register the ``simulate`` sub-command."""
    listing = "\n".join(
        f"  {name}: {spec.description}\n    parameters (--set): {', '.join(spec.defaults)}"
        for name, spec in SCENARIOS.items()
    )
    p = sub.add_parser(
        "simulate",
        help="run a named scenario (round model; packet and ODE engines)",
        description=(
            "Run a named scenario with one congestion-control algorithm and print its summary: "
            "slow-start exit, settled window, time to equilibrium, convergence after each "
            "bandwidth change, utilization, throughput per flow, Jain's index."
        ),
        epilog=_EPILOG.format(scenarios=listing),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("scenario", metavar="SCENARIO", help=f"one of: {', '.join(SCENARIOS)}")
    p.add_argument(
        "-a",
        "--algorithm",
        required=True,
        metavar="ALGO",
        help=f"control law: {', '.join(ALGORITHMS)}",
    )
    p.add_argument(
        "-e",
        "--engine",
        default="rounds",
        metavar="ENGINE",
        help=f"engine: {', '.join(PLANNED_ENGINES)} (default rounds: the round-based fluid model)",
    )
    add_set_option(
        p,
        "override a scenario parameter (repeatable), e.g. bandwidth=100Mbps, rtt=200ms, "
        "buffer=1000, duration=100s, cbr=none, alpha=1, beta=3, gamma=1",
    )
    p.add_argument(
        "--rtt-model",
        choices=("average", "last", "fluid"),
        default=None,
        help="rounds engine only: RTT the law sees in a growing round: the round's average "
        "(default; Quick Vegas paper eqs 6, 10), its last packet's (eq 9) or no burst term (fluid)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="packet engine: seed of its random generator (RED drops); default 0",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "-q",
        "--quiet",
        "--no-progress",
        dest="quiet",
        action="store_true",
        help="no progress bar on stderr (never with --json)",
    )
    p.set_defaults(run=run)


def _table(out: dict[str, Any], summary: Summary) -> str:
    """The text summary: a title, then :meth:`tcpfluid.results.Summary.table` (every flow)."""
    title = f"{out['scenario']} / {out['algorithm']} / engine {out['engine']}"
    return "\n".join([title, "-" * len(title), summary.table()])


def run(args: argparse.Namespace) -> int:
    """Run the command; returns 0 (errors are raised as ``ValueError``/``TypeError``)."""
    if args.rtt_model is not None and args.engine in ENGINES:
        takes = [e for e, cls in ENGINES.items() if "rtt_model" in cls.option_names()]
        if args.engine not in takes:
            raise ValueError(
                f"--rtt-model applies to the {', '.join(takes)} engine only (the "
                f"{args.engine!r} engine measures its RTTs itself); drop it or use "
                f"--engine {takes[0]}"
            )
    from .._progress import progress_bar

    with progress_bar(f"{args.engine} run", enabled=not (args.quiet or args.json)) as bar:
        out, result = run_named(
            args.scenario,
            args.algorithm,
            engine=args.engine,
            sets=parse_sets(args.sets),
            rtt_model=args.rtt_model or "average",
            seed=args.seed,
            progress=bar,
        )
    if args.json:
        print(json.dumps(out, indent=2, allow_nan=False))
    else:
        print(_table(out, result.summary))
    return 0
