"""``tcpfluid scenario``: list the named scenarios, show one as text, JSON or a scenario file."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .._json import dumps as json_text
from ._options import (
    PARAM_HELP,
    add_algorithm_option,
    add_command,
    add_repeated_option,
    parse_sets,
    scenario_with_laws,
)

__all__ = ["add_parser", "run"]

_EPILOG = """\
examples:
  tcpfluid scenario list
  tcpfluid scenario show qv-basic
  tcpfluid scenario show qv-basic --set flows=3 --toml > my.toml   # edit, then:
  tcpfluid simulate my.toml -a vegas -e packet
  tcpfluid scenario show qv-basic --set flows=10 -a vegas:8,reno:2 --param vegas:alpha=1 --toml

A file written by --toml lists every link and path; loading it back
(tcpfluid.load_scenario) gives the same scenario. See docs/your-own-scenario.md for the
shorter form in which tcpfluid derives access links and reverse paths.
"""


def add_parser(sub: Any) -> None:
    p = add_command(
        sub,
        "scenario",
        help="list the named scenarios; show one as text, JSON or a scenario file",
        description="List the named scenarios, or show one (or a scenario file).",
        epilog=_EPILOG,
    )
    p.add_argument("action", choices=("list", "show"), help="list, or show SCENARIO")
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="a name or a FILE.toml")
    add_repeated_option(p, "--set", "override a scenario parameter (repeatable)")
    add_algorithm_option(p)
    add_repeated_option(p, "--param", PARAM_HELP, "[SEL:]KEY=VALUE")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--toml", action="store_true", help="write it as a scenario file")
    fmt.add_argument("--json", action="store_true", help="print it as JSON")
    p.set_defaults(run=run)


def _describe(sc: Any) -> str:
    from ..scenarios import bottleneck

    bott = bottleneck(sc)
    lines = [
        f"{sc.name}: {sc.description}" if sc.description else sc.name,
        f"duration {sc.duration_s:g} s, packets {sc.packet_size_bytes:g} B, ACKs "
        f"{sc.ack_size_bytes:g} B; bottleneck {bott.name if bott else '-'}",
        f"links ({len(sc.links)}):",
        *(
            f"  {lk.name}: {lk.rate_bps / 1e6:g} Mb/s, {1e3 * lk.delay_s:g} ms, buffer "
            f"{lk.buffer_pkts:g} pkts, {lk.discipline}"
            for lk in sc.links
        ),
        f"flows ({len(sc.flows)}):",
        *(
            f"  {f.name}: {f.algorithm or '(algorithm not set)'} {dict(f.params) or ''} from "
            f"{f.start_s:g} s{'' if math.isinf(f.stop_s) else f' to {f.stop_s:g} s'}, "
            f"base RTT {1e3 * sc.base_rtt_s(f):.4g} ms, path {' > '.join(f.forward)}"
            for f in sc.flows
        ),
        *(
            f"cbr {c.name}: {c.rate_bps / 1e6:g} Mb/s from {c.start_s:g} to {c.stop_s:g} s "
            f"over {' > '.join(c.links)}"
            for c in sc.cbr
        ),
        *(f"note: {n}" for n in sc.notes),
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from ..scenarios import SCENARIOS, scenario_to_toml

    if args.action == "list":
        if args.scenario is not None or args.sets or args.algorithm or args.params:
            raise ValueError("scenario list takes no SCENARIO, --set, --algorithm or --param")
        if args.json:
            print(json.dumps({n: s.description for n, s in SCENARIOS.items()}, indent=2))
        else:
            for name, spec in SCENARIOS.items():
                print(f"{name}: {spec.description}")
        return 0
    if args.scenario is None:
        raise ValueError("scenario show needs SCENARIO (a name or a FILE.toml)")
    sc = scenario_with_laws(args.scenario, args.algorithm, parse_sets(args.sets), args.params)
    if args.toml:
        print(scenario_to_toml(sc), end="")
    elif args.json:
        print(json_text(sc.to_dict()))
    else:
        print(_describe(sc))
    return 0
