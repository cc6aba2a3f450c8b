"""``tcpfluid simulate``: run a named scenario or a scenario file on one engine; the
``--json`` keys (:meth:`tcpfluid.results.Summary.to_dict`'s and the run's) are a contract
(tests/repo/public_surface.json)."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Any

from .._json import dump
from ..engines import ENGINES, RTT_MODELS, engine_options, simulate_summary
from ..scenarios import SCENARIOS
from ._options import (
    ENGINE_OPTION_HELP,
    PARAM_HELP,
    add_algorithm_option,
    add_command,
    add_quiet_option,
    add_repeated_option,
    parse_engine_options,
    parse_sets,
    scenario_from_args,
    split_key_value,
)

__all__ = ["ENGINES", "PLANNED_ENGINES", "add_parser", "parse_sets", "run", "simulate_summary"]

#: the engines the command offers (all of :data:`tcpfluid.engines.ENGINES`)
PLANNED_ENGINES: tuple[str, ...] = tuple(ENGINES)

_EPILOG = """\
examples:
  tcpfluid simulate qv-basic --algorithm vegas
  tcpfluid simulate qv-basic --algorithm quick-vegas --set cbr=none --json
  tcpfluid simulate qv-basic -a vegas --set bandwidth=100Mbps --set rtt=200ms --set alpha=1
  tcpfluid simulate qv-basic -a vegas:8,reno:2 --set flows=10 -e packet --param vegas:alpha=1
  tcpfluid simulate examples/scenarios/eight-vegas-two-reno.toml -e packet   # your own file

{settling}

scenarios:
{scenarios}
"""


def settling_rule_text() -> str:
    """The settling rule of the summaries (:func:`tcpfluid.metrics.settling`) as the help
    states it: the base band, the tail and the hold from the settling module's constants,
    and each law's own settling band (:func:`tcpfluid.metrics.law_settle_band`)."""
    from ..algorithms.registry import ALGORITHMS
    from ..metrics._settling import TAIL_FRACTION, base_band_text, law_settle_band

    bands = ", ".join(f"{a} {law_settle_band(a):g}" for a in ALGORITHMS)
    tail = f"{100.0 * TAIL_FRACTION:g} %"
    return (
        "Time to equilibrium / convergence (tcpfluid.metrics.settling; docs/round-model.md): "
        "per segment (from the flow's start or a bandwidth change to the next change), the "
        f"settled value is the window's mean over the segment's last {tail} (the tail) and "
        f"the base band {base_band_text()} of it. The window has settled on a fixed point "
        "if it stays in the base band for at least two tail lengths, or in a limit cycle if "
        "over those two tail lengths it swings by at most the settling band (half-range, "
        "packets; --settle-band) without drifting or growing; the time is that of the first "
        "sample after which it stays within the base band of its steady stretch's envelope. "
        "A flow settles only after it has left slow start, at least two tail lengths before "
        f"the segment's end. Default settling band, each law's own (packets): {bands} "
        "(0: fixed points only; inf: any cycle that neither drifts nor grows). null if it "
        "does not settle."
    )


def add_parser(sub: Any) -> None:
    listing = "\n".join(
        f"  {name}: {spec.description}\n    parameters (--set): "
        + ", ".join(k for k in spec.defaults if k != "algorithm")  # -a sets the laws
        for name, spec in SCENARIOS.items()
    )
    p = add_command(
        sub,
        "simulate",
        help="run a named scenario (round model; packet and ODE engines)",
        description=(
            "Run a named scenario with one congestion-control algorithm and print its summary: "
            "slow-start exit, settled window, time to equilibrium, convergence after each "
            "bandwidth change, utilization, throughput per flow, Jain's index."
        ),
        epilog=_EPILOG.format(settling=_wrap(settling_rule_text()), scenarios=listing),
    )
    p.add_argument(
        "scenario",
        metavar="SCENARIO",
        help=f"one of: {', '.join(SCENARIOS)}; or a scenario file (FILE.toml)",
    )
    add_algorithm_option(p)
    p.add_argument(
        "-e", "--engine", default="rounds", metavar="ENGINE",
        help=f"engine: {', '.join(ENGINES)} (default rounds: the round-based fluid model)",
    )  # fmt: skip
    add_repeated_option(
        p,
        "--set",
        "override a scenario parameter (repeatable), e.g. bandwidth=100Mbps, rtt=200ms, "
        "buffer=1000, duration=100s, cbr=none, alpha=1, beta=3, gamma=1; a rate with its unit "
        "(bandwidth=100Mbps or 12500pps: a bare number is refused)",
    )
    add_repeated_option(p, "--param", PARAM_HELP, "[SEL:]KEY=VALUE")
    add_repeated_option(p, "--option", ENGINE_OPTION_HELP)
    p.add_argument(
        "--rtt-model",
        choices=RTT_MODELS,
        default=None,
        help="rounds engine only: RTT the law sees in a growing round: the round's average "
        "(default; Quick Vegas paper eqs 6, 10), its last packet's (eq 9) or no burst term (fluid)",
    )
    p.add_argument(
        "--seed", type=int, default=0,
        help="packet engine: seed of its random generator (RED drops); default 0",
    )  # fmt: skip
    p.add_argument(
        "--settle-band",
        default=None,
        metavar="BAND",
        help="the summary's settling band, packets: the amplitude of a window's cycle that "
        "counts as settled (its centre and amplitude are reported): one number for every flow "
        "(0: fixed points only; inf: any cycle that does not drift) or ALGO=BAND,... per law "
        "(reno=2,vegas=1; the others keep their own); default: each law's own",
    )
    p.add_argument(
        "--packet-spread",
        type=int,
        default=None,
        metavar="N",
        help="also run the packet simulator N >= 2 times, each with another start order (the "
        "senders' starts moved by less than 2 bottleneck packet times), and print beside the "
        "engine's values each flow's packet min-max (median) over them (with -e packet, the "
        "run itself is run 0; --seed seeds the start orders too; --json: key packet_spread). "
        "It informs what hangs on the start order; it is not a tolerance",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_quiet_option(p, "no progress bar on stderr (never with --json)")
    p.set_defaults(run=run)


def _wrap(text: str) -> str:
    """``text`` in lines of at most 90 characters (the epilogue is printed as written)."""
    return "\n".join(textwrap.wrap(text, 90, break_on_hyphens=False))


def parse_settle_band(text: str | None) -> float | dict[str, float] | None:
    """``--settle-band``: ``None``, one number, or ``ALGO=BAND,...`` as a dict."""
    if text is None:
        return None

    def number(word: str, where: str) -> float:
        try:
            return float(word)
        except ValueError:
            raise ValueError(
                f"--settle-band: {where} must be a number of packets >= 0 (or inf), got {word!r}"
            ) from None

    if "=" not in text:
        return number(text.strip(), "the band")
    out: dict[str, float] = {}
    for part in text.split(","):
        law, sep, word = part.partition("=")
        if not sep or not law.strip():
            raise ValueError(
                f"--settle-band: expected ALGO=BAND,... (reno=2,vegas=1) or one number, "
                f"got {text!r}"
            )
        name = law.strip()
        if name in out:
            raise ValueError(
                f"--settle-band: {name!r} is given twice in {text!r}; give each algorithm "
                "once (ALGO=BAND,..., e.g. reno=2,vegas=1) or one number for every flow"
            )
        out[name] = number(word.strip(), f"the band of {name!r}")
    return out


def run(args: argparse.Namespace) -> int:
    from .. import engines
    from ..scenarios.mix import mix_label

    engine = engines._check_engine(args.engine, option="--engine")
    accepted = engine_options(engine)
    if args.rtt_model is not None and "rtt_model" not in accepted:
        raise ValueError(
            f"--rtt-model applies to the rounds engine only (the {engine!r} engine "
            "measures its RTTs itself); drop it or use --engine rounds"
        )
    if args.seed < 0:
        raise ValueError(f"--seed must be an integer >= 0, got {args.seed}")
    if args.packet_spread is not None and args.packet_spread < 2:
        raise ValueError(f"--packet-spread must be an integer >= 2, got {args.packet_spread}")
    band = parse_settle_band(args.settle_band)
    if band is not None:  # checked before the run, naming the option
        from ..metrics.summary import check_settle_band

        try:
            check_settle_band(band)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"--settle-band: {exc}") from None
    extra = parse_engine_options(args.options, engines._own_options(engine), engine)
    scenario = scenario_from_args(args.scenario, args.algorithm, parse_sets(args.sets), args.params)
    opts = {**engines._legacy_options(engine, args.rtt_model or "average", args.seed), **extra}
    from .._progress import progress_bar

    spread = None
    with progress_bar(f"{engine} run", enabled=not (args.quiet or args.json)) as bar:
        if args.packet_spread is not None and engine == "packet":  # the run itself is run 0
            spread = _spread(args, scenario, band, bar, extra)
            result = spread.first
        else:
            result = engines.simulate(scenario, engine, progress=bar, settle_band=band, **opts)
    if args.packet_spread is not None and spread is None:
        label = f"packet spread ({args.packet_spread} runs)"
        with progress_bar(label, enabled=not (args.quiet or args.json)) as bar:
            spread = _spread(args, scenario, band, bar, {})
    # the per-flow lists as columns: written, never made
    out = engines._run_json(
        args.scenario, mix_label(scenario), engine, result, result.summary._to_dict()
    )
    if band is not None:
        out["settle_band"] = args.settle_band  # as given: JSON holds no infinity
    if extra:
        # as given (JSON holds no infinity)
        out["engine_options"] = dict(split_key_value(item, "--option") for item in args.options)
    # the spellings of ``tcpfluid predict --json`` beside these (flow 0, as the keys above)
    out.setdefault("ss_exit_window_pkts", out.get("ss_exit_window"))
    out.setdefault("settled_window_pkts", out.get("settled_window"))
    out.setdefault("equilibrium_window_pkts", out.get("settled_window"))
    if spread is not None:
        out["packet_spread"] = spread.to_dict()
    if args.json:
        dump(out, sys.stdout)  # json.dumps(out, indent=2, allow_nan=False), in pieces
        sys.stdout.write("\n")
        return 0
    title = f"{out['scenario']} / {out['algorithm']} / engine {out['engine']}"
    print("\n".join([title, "-" * len(title), result.summary.table()]))
    if spread is not None:  # the engine's values beside the packet spread
        print("\n" + spread.table(beside=None if engine == "packet" else result.summary))
    return 0


def _spread(
    args: argparse.Namespace, scenario: Any, band: Any, bar: Any, options: dict[str, Any]
) -> Any:
    """``--packet-spread``: the packet simulator's spread over start orders (``--seed``
    seeds the simulator and the start orders; ``options``: the packet engine's
    ``--option`` values when it is the engine run)."""
    from ..engines import Packet, packet_spread

    engine = Packet(seed=args.seed, **options)
    return packet_spread(
        scenario, engine, runs=args.packet_spread, seed=args.seed, progress=bar, settle_band=band
    )
