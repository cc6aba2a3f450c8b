"""``tcpfluid predict``: closed-form predictions, side by side for several algorithms."""

from __future__ import annotations

import argparse
import json
import math
import re
from typing import Any

from .. import units
from .._json import dumps as json_text
from .._text import cell as _fmt
from .._text import columns as _columns
from ..algorithms.enhanced_vegas import DELTA
from ..analytic import conspicuous_round, conspicuous_round_printed
from ..analytic.predict import PREDICT_ALGORITHMS, Prediction, predict
from ..metrics._settling import base_band_text
from ..path import Path
from ..published import published
from ._options import PARAM_HELP, add_command, add_quiet_option, add_repeated_option, parse_sets

__all__ = ["add_parser", "document_comparison", "run"]

#: the laws predicted when ``--algorithm`` is not given (and a scenario's flows name none)
DEFAULT_ALGORITHMS = "vegas,quick-vegas,tcp-ho"
#: the defaults of the law options of the bare-path mode
LAW_DEFAULTS = {"gamma": 1.0, "alpha": 2.0, "beta": 4.0}

_EPILOG = """\
examples:
  tcpfluid predict --algorithm vegas --bandwidth 50Mbps --rtt 100ms
  tcpfluid predict -a vegas,quick-vegas,tcp-ho --bdp 5000Kb --rtt 100ms --json
  tcpfluid predict --documents          # the documents' paths next to their printed numbers
  tcpfluid predict qv-many-flows --set groups=1                  # a named scenario, per flow
  tcpfluid predict qv-basic -a vegas --check packet              # ... and the packet simulator

Scenario mode (SCENARIO given, names as in `tcpfluid simulate --help`): per flow, the
slow-start exit, the settled window and the times to equilibrium and to convergence after
each change, from the closed forms where they apply (one shared bottleneck and base RTT,
flows starting together on an idle path; convergence after an increase) and the round
model otherwise, with a column naming the source. Parameters as --set KEY=VALUE.

Path: give two of --bandwidth, --rtt, --bdp. --rtt is the base RTT d (propagation plus
transmission, no queueing). A round lasts d, or W/mu while its window W keeps a standing
queue (closed-form fluid model, no loss, no ACK-path congestion).

Two times: "first reaches the target" (rounds_to_target, time_to_target_s) is the closed
forms' count of the round the window first reaches mu*d + alpha (Vegas), mu*d + (alpha +
beta)/2 (Quick Vegas) or TCP-Ho's conspicuous round; "time to equilibrium"
(time_to_equilibrium_s) is the settling time as tcpfluid simulate measures it: a closed
form for Vegas, the round map (the round engine on the path) for Quick Vegas and TCP-Ho;
time_to_equilibrium_route says which.
"""


def add_parser(sub: Any) -> None:
    p = add_command(
        sub,
        "predict",
        help="closed-form slow-start exit and time to equilibrium",
        description=(
            "Closed-form predictions: critical window, slow-start exit round and time, "
            "equilibrium window, rounds and seconds to equilibrium (the Quick Vegas paper §4, "
            "the TCP-Ho paper §4)."
        ),
        epilog=_EPILOG,
    )
    p.add_argument(
        "scenario",
        nargs="?",
        metavar="SCENARIO",
        help="a named scenario or a scenario file (as tcpfluid simulate): per-flow "
        "predictions for it",
    )
    p.add_argument(
        "-a",
        "--algorithm",
        action="append",
        metavar="NAME[,NAME...]",
        help=(
            f"algorithm(s): {', '.join(PREDICT_ALGORITHMS)}; repeat or comma-separate "
            f"(default: {DEFAULT_ALGORITHMS}); with a SCENARIO any law of tcpfluid simulate, "
            "or a mix given to the flows in order (vegas:8,reno:2; default: a file's own)"
        ),
    )
    p.add_argument(
        "--bandwidth",
        help="bottleneck rate, e.g. 50Mbps or 6250 (a bare number: packets/s; --set "
        "bandwidth=... of a SCENARIO takes a unit only: 50Mbps or 6250pps)",
    )
    p.add_argument("--rtt", help="base RTT d, e.g. 100ms or 0.1 (seconds)")
    p.add_argument("--bdp", help="bandwidth-delay product, e.g. 5000Kb or 625 (packets)")
    p.add_argument(
        "--packet-size", default="1000B", help="data packet size (default 1000B, as the documents)"
    )
    whats = ("slow-start threshold γ", "Vegas α", "Vegas β")
    for (key, default), what in zip(LAW_DEFAULTS.items(), whats, strict=True):
        p.add_argument(
            f"--{key}", type=float, default=_Default(default), help=f"{what}, packets ({default:g})"
        )
    p.add_argument(
        "--delta",
        type=float,
        default=None,
        help=f"Enhanced Vegas's one threshold δ = α = β, packets ({DELTA.default:g})",
    )
    p.add_argument(
        "--rtt-kind",
        choices=("average", "last"),
        default="average",
        help="RTT used by the slow-start check: the round's average (eqs. 6, 10) or its "
        "last packet's (eq. 9) (default average)",
    )
    p.add_argument(
        "--whole-acks",
        action="store_true",
        help="Quick Vegas slow start counts whole ACKs (one extra packet per two ACKs)",
    )
    p.add_argument(
        "--rule",
        choices=("documents", "sender"),
        default=None,
        help="whose slow start: the documents' model (eqs. 6, 10 on Table 1's windows; the "
        "default without a SCENARIO) or the packet sender's (the decision reads the previous "
        "round's RTTs; whole-packet windows; the only rule with a SCENARIO)",
    )
    p.add_argument(
        "--documents",
        action="store_true",
        help="predict the documents' paths and compare with their printed numbers",
    )
    add_repeated_option(
        p,
        "--set",
        "scenario mode: override a scenario parameter (repeatable), e.g. groups=1; a rate "
        "with its unit (bandwidth=50Mbps or 6250pps: a bare number is refused)",
    )
    add_repeated_option(p, "--param", PARAM_HELP, "[SEL:]KEY=VALUE")
    p.add_argument(
        "--check",
        choices=("rounds", "ode", "packet"),
        default=None,
        help="scenario mode: also run this engine and print its values and the differences",
    )
    add_quiet_option(
        p, "scenario mode: no progress bar on stderr during --check (never with --json)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(run=run)


class _Default(float):
    """A default of a law option: tells "not given" from the same value given."""


def _law_options(
    args: argparse.Namespace, algorithm: str
) -> tuple[float | None, float | None, float | None, float | None]:
    """``(gamma, alpha, beta, delta)`` given on the command line for ``algorithm`` (``None``:
    its law's own default, :func:`~tcpfluid.analytic.predict`); ``--delta`` goes to
    Enhanced Vegas only, and with it ``--alpha``/``--beta`` to the other laws only."""
    g, a, b = (None if isinstance(v := getattr(args, k), _Default) else v for k in LAW_DEFAULTS)
    if algorithm == "enhanced-vegas" and args.delta is not None:
        return g, None, None, args.delta
    return g, a, b, None


def _refuse_unused_law_options(args: argparse.Namespace, names: list[str]) -> None:
    """TCP-Ho's law has no γ, α, β: refused with it, not ignored."""
    given = [k for k in LAW_DEFAULTS if not isinstance(getattr(args, k), _Default)]
    if "tcp-ho" in names and given:
        others = ",".join(n for n in names if n != "tcp-ho") or "vegas"
        raise ValueError(
            f"--{given[0]} does not apply to tcp-ho (its law has no gamma, alpha or beta); "
            f"leave tcp-ho out, e.g. -a {others}"
        )


def _algorithms(values: list[str] | None) -> list[str]:
    names: list[str] = []
    for v in values or [DEFAULT_ALGORITHMS]:
        names.extend(x.strip() for x in v.split(",") if x.strip())
    if not names:
        raise ValueError(
            f"--algorithm {', '.join(map(repr, values or []))} names no algorithm; choose "
            f"from {', '.join(PREDICT_ALGORITHMS)}"
        )
    for name in names:
        if name not in PREDICT_ALGORITHMS:
            raise ValueError(
                f"--algorithm {name!r} has no closed form here; choose from "
                f"{', '.join(PREDICT_ALGORITHMS)}"
            )
    return names


_BARE_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _bare_number(value: str | None, option: str) -> str | float | None:
    """``"6250"`` -> 6250.0 (the option's stated unit); text with a unit as it is."""
    if value is None or not _BARE_NUMBER.fullmatch(value.strip()):
        return value
    x = float(value)
    if not math.isfinite(x):
        raise ValueError(f"{option} must be finite, got {value!r}")
    return x


def _path(args: argparse.Namespace) -> Path:
    given = [x for x in ("bandwidth", "rtt", "bdp") if getattr(args, x) is not None]
    if len(given) != 2:
        raise ValueError(
            "give exactly two of --bandwidth, --rtt, --bdp to describe the path "
            f"(got {', '.join('--' + g for g in given) or 'none'})"
        )
    pkt = units.bytes_(args.packet_size, name="--packet-size")
    # a bare number is in the unit the help states: packets/s, seconds, packets
    for name in ("bandwidth", "rtt", "bdp"):
        setattr(args, name, _bare_number(getattr(args, name), f"--{name}"))
    if args.bdp is None:
        return Path(args.bandwidth, args.rtt, packet_size=pkt)
    if args.rtt is not None:
        return Path.from_bdp(args.bdp, args.rtt, packet_size=pkt)
    mu = units.rate_pps(args.bandwidth, packet_size_bytes=pkt, name="--bandwidth")
    b = units.packets(args.bdp, packet_size_bytes=pkt, name="--bdp")
    return Path(mu, b / mu, packet_size=pkt)


_ROWS = (
    ("critical window (pkts)", "critical_window_pkts"),
    ("slow-start exit round", "ss_exit_round"),
    ("slow-start exit window (pkts)", "ss_exit_window_pkts"),
    ("slow-start exit time (s)", "ss_exit_time_s"),
    ("window after the 1/8 cut (pkts)", "ca_start_window_pkts"),
    ("equilibrium window (pkts)", "equilibrium_window_pkts"),
    ("equilibrium band (pkts)", "equilibrium_band_pkts"),
    ("first reaches the target: round", "rounds_to_target"),
    ("first reaches the target (s)", "time_to_target_s"),
    ("settled: rounds to equilibrium", "rounds_to_equilibrium"),
    ("settled: time to equilibrium (s)", "time_to_equilibrium_s"),
    ("  from", "time_to_equilibrium_route"),
)


_RULE_NAMES = {"documents": "the documents' rule", "sender": "the packet sender's rule"}

_TIMES_NOTE = (
    "target: mu*d + alpha (Vegas), mu*d + (alpha+beta)/2 (Quick Vegas), TCP-Ho's conspicuous "
    f"round; settled: the window stays within {base_band_text()} of its final value (or in "
    "its law's own limit cycle), as in tcpfluid simulate"
)


def _table(preds: list[Prediction]) -> str:
    head = ["", *(p.algorithm for p in preds)]
    body = [[label, *(_fmt(getattr(p, key)) for p in preds)] for label, key in _ROWS]
    return _columns(head, body)


def document_comparison() -> list[dict[str, Any]]:
    """Closed-form predictions on the documents' paths (the Quick Vegas paper's §5.1 path,
    the TCP-Ho paper's Examples 1-3) beside their printed numbers and ``method``;
    ``rel_err`` = (tcpfluid - document)/document."""
    rows: list[dict[str, Any]] = []

    def add(case: str, key: str, ours: float, note: str = "") -> None:
        ref = published(key)
        row: dict[str, Any] = dict(case=case, algorithm=ref.algorithm, quantity=ref.quantity)
        row |= dict(tcpfluid=ours, document=ref.value, unit=ref.unit, method=ref.method)
        where, rel_err = f"doc {ref.document} {ref.where}", (ours - ref.value) / ref.value
        rows.append({**row, "where": where, "rel_err": rel_err, "note": note})

    qv = Path.from_links(["1Gbps", "50Mbps", "1Gbps"], "100ms")
    v = predict("vegas", qv)
    case = "50Mb/s x 100ms"
    add(case, "000/fig1/ss_exit_window", float(v.ss_exit_window_pkts or 0))
    add(case, "000/fig1/ss_exit_time", float(v.ss_exit_time_s or 0))
    add(case, "000/fig1/equilibrium_window", float(v.equilibrium_window_pkts or 0))
    add(case, "000/fig1/time_to_equilibrium", float(v.time_to_equilibrium_s or 0))
    q = predict("quick-vegas", qv)
    add(
        case,
        "000/5.1/qv/ramp_up",
        float("nan") if q.time_to_equilibrium_s is None else q.time_to_equilibrium_s,
        f"settling from the round map; eq. 12 counts {q.time_to_target_s:.3g} s to first "
        "reach the target (it assumes succ is never reset)",
    )
    for i, mu in enumerate((187.5, 2500.0, 6250.0), start=1):
        path = Path(mu, 0.1)
        case = f"Example {i}: mu={mu:g} pkt/s, d=0.1 s"
        kv = float(conspicuous_round("vegas", path.bdp)) * path.d
        kh = float(conspicuous_round("tcp-ho", path.bdp)) * path.d
        k5 = float(conspicuous_round("tcp-ho", path.bdp, queue="paper")) * path.d
        kp = float(conspicuous_round_printed("tcp-ho", path.bdp)) * path.d
        add(case, f"004/ex{i}/vegas/analysis", kv, "eq. 2 with l corrected (erratum E4)")
        add(case, f"004/ex{i}/vegas/simulation", kv)
        add(case, f"004/ex{i}/tcp-ho/analysis", kh, "eq. 4 with the bottleneck queue (E8)")
        add(case, f"004/ex{i}/tcp-ho/analysis", k5, "eq. 5 solved exactly (errata E5, E6)")
        add(case, f"004/ex{i}/tcp-ho/analysis", kp, "printed eq. 6 (erratum E6)")
        add(case, f"004/ex{i}/tcp-ho/simulation", kh, "eq. 4 with the bottleneck queue (E8)")
    return rows


def _doc_table(rows: list[dict[str, Any]]) -> str:
    head = ["case", "algorithm", "quantity", "tcpfluid", "document", "method", "rel.err", "note"]
    body = [
        [r["case"], r["algorithm"], r["quantity"], _fmt(r["tcpfluid"]), _fmt(float(r["document"])),
         r["method"], f"{100 * r['rel_err']:+.1f}%", r["note"]]
        for r in rows
    ]  # fmt: skip
    return _columns(head, body)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "scenario", None) is not None:
        from ._predict_scenario import run_scenario_mode

        return run_scenario_mode(args, parse_sets(args.sets))
    if getattr(args, "sets", None) or getattr(args, "check", None) or getattr(args, "params", None):
        raise ValueError(
            "--set, --param and --check need a SCENARIO (e.g. tcpfluid predict qv-basic ...)"
        )
    if args.documents:
        given = [
            opt
            for opt, on in (
                (f"--rule {args.rule}", args.rule is not None),
                ("--algorithm", bool(args.algorithm)),
                ("--bandwidth", args.bandwidth is not None),
                ("--rtt", args.rtt is not None),
                ("--bdp", args.bdp is not None),
            )
            if on
        ]
        if given:
            raise ValueError(
                f"{given[0]} does not apply with --documents, which compares the documents' "
                "own model on their own paths with their printed numbers"
            )
        rows = document_comparison()
        if args.json:
            print(json.dumps({"comparison": rows}, indent=2))
        else:
            print(
                "Closed-form predictions on the documents' paths (a round lasts d, or W/mu "
                "with a standing queue)\n"
            )
            print(_doc_table(rows))
        return 0
    names = _algorithms(args.algorithm)
    path = _path(args)
    law = {k: getattr(args, k) for k in LAW_DEFAULTS}
    rule = args.rule or "documents"
    if args.delta is not None and "enhanced-vegas" not in names:
        raise ValueError(
            f"--delta is Enhanced Vegas's threshold; add it to the algorithms (-a "
            f"{','.join(names)},enhanced-vegas) or leave --delta out"
        )
    if args.whole_acks and "quick-vegas" not in names:
        raise ValueError(
            "--whole-acks counts Quick Vegas's slow-start ACKs; add quick-vegas to the "
            f"algorithms (-a {','.join(names)},quick-vegas) or leave --whole-acks out"
        )
    preds = []
    for n in names:
        # TCP-Ho's analysis reads no threshold: one given is refused below, after the
        # other laws have checked its value
        g, a, b, d = (None,) * 4 if n == "tcp-ho" else _law_options(args, n)
        try:
            pr = predict(
                n,
                path,
                gamma=g,
                alpha=a,
                beta=b,
                delta=d,
                rtt=args.rtt_kind,
                whole_acks=args.whole_acks and n == "quick-vegas",
                rule=rule,  # type: ignore[arg-type]
            )
        except ValueError as exc:  # which of the algorithms has no prediction here
            raise ValueError(f"{n}: {exc}") from None
        preds.append(pr)
    _refuse_unused_law_options(args, names)
    if args.json:
        ev = [p for p in preds if p.algorithm == "enhanced-vegas"]
        delta = ev[0].alpha_pkts if ev else DELTA.default if args.delta is None else args.delta
        out = {
            "path": {"mu_pps": path.mu, "rtt_s": path.d, "bdp_pkts": path.bdp},
            "parameters": dict(
                law, delta=delta, rtt_kind=args.rtt_kind, whole_acks=args.whole_acks, rule=rule
            ),
            "predictions": [p.to_dict() for p in preds],
        }
        print(json_text(out))
        return 0
    ev = [p for p in preds if p.algorithm == "enhanced-vegas"]
    print(
        f"path: mu = {path.mu:.6g} pkt/s, d = {path.d:.6g} s, mu*d = {path.bdp:.6g} pkts "
        f"(gamma={args.gamma:g}, alpha={args.alpha:g}, beta={args.beta:g}, "
        + (f"enhanced-vegas: delta={ev[0].alpha_pkts:g}, " if ev else "")
        + f"rtt={args.rtt_kind}, slow start: {_RULE_NAMES[rule]})"
    )
    print(_table(preds))
    print(_TIMES_NOTE)
    for p in preds:
        if p.note:
            print(f"{p.algorithm}: {p.note}")
    return 0
