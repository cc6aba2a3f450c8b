"""``tcpfluid predict SCENARIO``: per-flow predictions for a named scenario.

Each value comes from the closed forms where they apply and from the round model otherwise
(:func:`tcpfluid.testing.predict_scenario`); ``--check ENGINE`` also runs that engine and
prints the differences. The ``--json`` keys: docs/testing.md, "tcpfluid predict SCENARIO".
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .._json import dumps as json_text
from .._text import cell
from .._text import columns as _columns
from .predict import DEFAULT_ALGORITHMS, LAW_DEFAULTS

# the bare-path options and their defaults: refused in scenario mode when changed
_PATH_OPTIONS = {
    **dict.fromkeys(("bandwidth", "rtt", "bdp")), "packet_size": "1000B", "rtt_kind": "average",
    **dict.fromkeys(("whole_acks", "documents"), False),
}  # fmt: skip
#: an engine's values by (quantity, flow, change; -1: none)
_Checked = dict[tuple[str, str, int], float | None]
_LABELS = {
    "ss_exit_window": "slow-start exit window (pkts)",
    "ss_exit_time_s": "slow-start exit time (s)",
    "settled_window": "settled window (pkts)",
    "time_to_equilibrium_s": "time to equilibrium (s)",
    "convergence_times_s": "convergence after {when} (s)",
}


def _check_options(args: argparse.Namespace) -> None:
    if getattr(args, "rule", None) not in (None, "sender"):
        raise ValueError(
            f"--rule {args.rule} does not apply with a scenario ({args.scenario!r}): a "
            "scenario's flows are the packet sender's, whose slow start is the 'sender' rule; "
            "the documents' rule applies to the bare-path mode"
        )
    for key, default in _PATH_OPTIONS.items():
        if getattr(args, key, default) != default:
            opt = "--" + key.replace("_", "-")
            hint = (
                f"give it as --set {key}=..."
                if key in ("bandwidth", "rtt", "packet_size")
                else "it applies to the bare-path mode only"
            )
            raise ValueError(f"{opt} does not apply with a scenario ({args.scenario!r}); {hint}")
    given = {k: getattr(args, k) for k, v in LAW_DEFAULTS.items() if getattr(args, k) != v}
    if getattr(args, "delta", None) is not None:
        given["delta"] = args.delta
    if given:
        law_key, value = next(iter(given.items()))
        raise ValueError(
            f"--{law_key} does not apply with a scenario; give the law's parameter as "
            f"--set {law_key}={value:g}"
        )


def _algorithms(values: list[str] | None, base: Any) -> list[str | None]:
    """The ``--algorithm`` values, one prediction each: a mix (``vegas:8,reno:2``) or each law
    of a comma-separated list; by default the scenario's own laws (``None``) when every flow
    has one, else :data:`DEFAULT_ALGORITHMS`."""
    from ..scenarios.mix import parse_mix

    if not values and all(f.algorithm for f in base.flows):
        return [None]
    out: list[str | None] = []
    for v in values or [DEFAULT_ALGORITHMS]:
        if ":" in v:
            parse_mix(v)
            out.append(v.strip())
            continue
        for x in v.split(","):
            if x.strip():
                parse_mix(x.strip())  # an unknown name fails here, listing the valid ones
                out.append(x.strip())
    return list(dict.fromkeys(out))


def _checked(p: Any, checked: _Checked) -> tuple[float | None, float | None]:
    """The checked engine's value of prediction ``p`` and its difference (``None``: missing)."""
    v = checked.get((p.quantity, p.flow, -1 if p.change is None else p.change))
    return v, None if v is None or p.value is None else v - p.value


def run_scenario_mode(args: argparse.Namespace, sets: dict[str, str]) -> int:
    """Print the per-flow predictions of ``args.scenario`` (text or ``--json``)."""
    from ..metrics import run_changes
    from ..scenarios import build_scenario, fluid_view
    from ..scenarios.mix import mix_label
    from ._options import scenario_from_args

    _check_options(args)
    base = build_scenario(args.scenario, **sets)
    specs = _algorithms(args.algorithm, base)
    changes, kinds = run_changes(
        [(c.start_s, c.stop_s) for c in base.cbr],
        [(f.start_s, f.stop_s) for f in base.flows],
        base.duration_s,
        start_spread_s=base.start_spread_s,
    )
    scenarios = [
        scenario_from_args(args.scenario, a, sets, getattr(args, "params", []) or []) for a in specs
    ]
    algorithms = [mix_label(sc) for sc in scenarios]
    per_alg = [_predict_one(args, sc) for sc in scenarios]
    if args.json:
        plain = base.to_dict()["params"]
        out: dict[str, Any] = {
            "scenario": args.scenario,
            "params": {k: plain[k] for k, v in base.params.items() if v is not None},
            "change_times_s": list(changes),
            "change_kinds": list(kinds),
            "predictions": [
                _json_one(a, preds, checked, args.check, base)
                for a, (preds, checked) in zip(algorithms, per_alg, strict=True)
            ],
        }
        print(json_text(out))
        return 0
    path = fluid_view(base).path
    print(
        f"{args.scenario}: per-flow predictions, from the closed forms where they apply, the "
        "round model otherwise"
    )
    print(
        f"bottleneck: mu = {path.mu:.6g} pkt/s, d = {path.d:.6g} s (first flow), mu*d = "
        f"{path.bdp:.6g} pkts; {len(base.flows)} flow(s); changes: "
        + (", ".join(f"{t:g} s ({k})" for t, k in zip(changes, kinds, strict=True)) or "none")
    )
    for a, (preds, checked) in zip(algorithms, per_alg, strict=True):
        print()
        _print_one(a, preds, checked, args.check, kinds)
    return 0


def _predict_one(args: argparse.Namespace, scenario: Any) -> tuple[list[Any], _Checked]:
    """Predictions of one algorithm and, with ``--check``, the engine's values."""
    from ..testing import RunCache, predict_scenario

    cache = RunCache()
    preds = predict_scenario(scenario, cache=cache)
    checked: _Checked = {}
    if args.check is not None:
        from .._progress import progress_bar

        label = f"{args.check} run ({scenario.flows[0].algorithm})"
        with progress_bar(label, enabled=not (args.quiet or args.json)) as bar:
            checked = dict(cache.layer(scenario, args.check, {"progress": bar}).values)
    return preds, checked


def _json_one(
    algorithm: str, preds: list[Any], checked: _Checked, engine: str | None, scenario: Any
) -> dict[str, Any]:
    conv = "convergence_times_s"  # one value per change; the other quantities one each

    def by_quantity(mine: list[Any], value: Callable[[Any], Any]) -> dict[str, Any]:
        rows = {q: [p for p in mine if p.quantity == q] for q in _LABELS}
        return {q: [value(p) for p in r] if q == conv else value(r[0]) for q, r in rows.items()}

    flows, eng_flows = [], []
    for f in scenario.flows:
        mine = [p for p in preds if p.flow == f.name]
        value, source, note = (
            by_quantity(mine, attrgetter(a)) for a in ("value", "source", "note")
        )
        flows.append({"name": f.name, **value, "sources": source, "notes": note})
        eng_flows.append({"name": f.name, **by_quantity(mine, lambda p: _checked(p, checked)[0])})
    out: dict[str, Any] = {"algorithm": algorithm, "flows": flows}
    if engine is None:
        return out
    diffs = []
    for p in preds:
        v, d = _checked(p, checked)
        row = {"flow": p.flow, "quantity": p.quantity, "change": p.change, "predicted": p.value}
        rel = None if d is None or not p.value else d / abs(p.value)
        diffs.append({**row, "engine_value": v, "difference": d, "relative_error": rel})
    out["check"] = {"engine": engine, "flows": eng_flows, "differences": diffs}
    return out


def _print_one(
    algorithm: str, preds: list[Any], checked: _Checked, engine: str | None, kinds: Any
) -> None:
    """One algorithm's table: consecutive flows with identical rows are merged."""
    footnotes: list[str] = []

    def note_ref(text: str) -> str:
        if not text:
            return ""
        if text not in footnotes:
            footnotes.append(text)
        return f"[{footnotes.index(text) + 1}]"

    per_flow: dict[str, list[list[str]]] = {}
    for pr in preds:
        change = pr.change
        when = "" if change is None else f"change at {pr.change_time_s:g} s ({kinds[change]})"
        row = [_LABELS[pr.quantity].format(when=when), cell(pr.value), pr.source]
        if engine is not None:
            v, d = _checked(pr, checked)
            diff = "-" if d is None else f"{d:+.4g}"
            if d is not None and pr.value:
                diff += f" ({100 * d / abs(pr.value):+.1f} %)"
            row += [cell(v), diff]
        row.append(pr.note)
        per_flow.setdefault(pr.flow, []).append(row)
    head = ["flow", "quantity", "predicted", "source"]
    head += [engine, "difference", "note"] if engine is not None else ["note"]
    body = []
    for cells, group in itertools.groupby(per_flow.items(), key=lambda item: item[1]):
        members = [name for name, _ in group]
        n = len(members)
        first = members[0] if n == 1 else f"{members[0]} .. {members[-1]} ({n} flows)"
        for i, row in enumerate(cells):
            body.append([first if i == 0 else "", *row[:-1], note_ref(row[-1])])
    print(f"algorithm: {algorithm}")
    print(_columns(head, body))
    for i, text in enumerate(footnotes, start=1):
        print(f"[{i}] {text}")
