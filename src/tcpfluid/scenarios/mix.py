"""Several algorithms in one scenario: ``"vegas:8,reno:2"`` and per-flow law parameters.

A mix gives ``NAME:COUNT`` entries to the flows in order (the last may leave out its
count); a flow selector names flows by algorithm, name, position ``"3"`` or range ``"1-8"``
(docs/your-own-scenario.md, "Several algorithms")."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from .model import FlowSpec, Scenario

__all__ = ["mix_label", "parse_mix", "select_flows", "with_flow_params", "with_mix"]


def parse_mix(text: str) -> list[tuple[str, int | None]]:
    """``"vegas:8,reno:2"`` as ``[("vegas", 8), ("reno", 2)]``; ValueError naming a bad entry."""
    from ..algorithms.registry import law_class

    if not isinstance(text, str):
        raise TypeError(
            f"algorithm must be a string such as 'vegas' or 'vegas:8,reno:2', got {text!r}"
        )
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise ValueError(
            f"algorithm {text!r}: give a name, or NAME:COUNT entries separated by commas "
            "(e.g. 'vegas:8,reno:2')"
        )
    out: list[tuple[str, int | None]] = []
    for i, item in enumerate(items):
        name, sep, count = item.partition(":")
        name = name.strip()
        law_class(name)  # an unknown name fails here, listing the valid ones
        n: int | None = None
        if sep:
            try:
                n = int(count.strip())
            except ValueError:
                n = 0
            if n < 1:
                raise ValueError(
                    f"algorithm {text!r}: the count of {item!r} must be an integer >= 1"
                )
        elif i < len(items) - 1:
            raise ValueError(
                f"algorithm {text!r}: {item!r} needs a count (NAME:COUNT); only the last "
                "entry may leave it out (it then takes the remaining flows)"
            )
        out.append((name, n))
    return out


def _check_law_params(flow: FlowSpec, algorithm: str, where: str) -> None:
    """Refuse a law parameter of ``flow`` its ``algorithm`` does not declare, or a value it
    does not accept, naming the flow, the algorithm and ``where`` it was given."""
    from ..algorithms.registry import get_law, law_class

    try:
        law_class(algorithm)._check_parameter_names(flow.params)
    except TypeError as exc:
        raise ValueError(
            f"flow {flow.name!r} ({where}): {exc}. Give a parameter to some flows with "
            "--param SELECTOR:KEY=VALUE (e.g. --param vegas:KEY=VALUE)"
        ) from None
    try:
        get_law(algorithm, **dict(flow.params))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"flow {flow.name!r} ({algorithm}, {where}): {exc}") from None


def with_mix(scenario: Scenario, text: str) -> Scenario:
    """``scenario`` with its flows' algorithms set by the mix ``text``, keeping their law
    parameters; ValueError if it does not parse, its counts do not add up to the flows or a
    law refuses a flow's parameter."""
    entries = parse_mix(text)
    ft = scenario.flow_table
    if len(entries) == 1 and entries[0][1] is None:
        return scenario.with_algorithm(entries[0][0])
    n = len(scenario.flows)
    given = sum(c for _, c in entries if c is not None)
    last_open = entries[-1][1] is None
    if given > n or (not last_open and given != n) or (last_open and given >= n):
        hint = f" (e.g. --set flows={given + last_open})" if "flows" in scenario.params else ""
        raise ValueError(
            f"algorithm {text!r} names {given}{'+' if last_open else ''} flows; scenario "
            f"{scenario.name!r} has {n}: make the counts add up to {n} or change the "
            f"number of flows{hint}"
        )
    algs: list[str] = []
    for name, c in entries:
        algs += [name] * (c if c is not None else n - given)
    # each (old law, new algorithm) pair once: the flows keep their law parameters
    names = sorted(set(algs))
    code = np.array([names.index(a) for a in algs], dtype=np.int64)
    pair = code * len(ft.laws) + ft.law
    pairs, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    laws = [(names[pr // len(ft.laws)], ft.laws[pr % len(ft.laws)][1]) for pr in pairs.tolist()]
    if len(names) > 1:  # in the flows' order: the first flow whose law refuses a parameter
        for k in np.argsort(first, kind="stable").tolist():
            where = "the scenario's law parameters apply to every flow"
            _check_law_params(scenario.flows[int(first[k])], laws[k][0], where)
    return scenario.with_flow_table(ft.with_laws(inverse.reshape(-1), laws))


def select_flows(scenario: Scenario, selector: str) -> list[int]:
    """Indices of the flows ``selector`` names; ValueError if it names none."""
    sel = selector.strip()
    ft = scenario.flow_table
    n = len(ft)
    runs = [k for k, (a, _) in enumerate(ft.laws) if a == sel]
    if runs:
        return [int(i) for i in np.flatnonzero(np.isin(ft.law, runs))]
    if ft.names.find(sel) >= 0:
        return [i for i, name in enumerate(ft.names) if name == sel]
    lo, dash, hi = sel.partition("-")
    if lo.strip().isdigit() and (not dash or hi.strip().isdigit()):
        a = int(lo)
        b = int(hi) if dash else a
        if 1 <= a <= b <= n:
            return list(range(a - 1, b))
    algs = sorted({a for a, _ in ft.laws if a})
    raise ValueError(
        f"flow selector {selector!r} names no flow of scenario {scenario.name!r}; give an "
        f"algorithm it runs ({', '.join(algs) or 'none yet'}), a flow's name (e.g. "
        f"{ft.names[0]!r}) or positions 1..{n} (e.g. '1-{n}')"
    )


def with_flow_params(
    scenario: Scenario, selector: str | None, params: Mapping[str, Any]
) -> Scenario:
    """``scenario`` with law ``params`` merged into those of the flows ``selector`` names
    (``None``: every flow); ValueError if it names none or a law refuses a parameter."""
    ft = scenario.flow_table
    chosen = np.full(len(ft), selector is None)
    if selector is not None:
        chosen[select_flows(scenario, selector)] = True
    # each law of a chosen flow once more, with the parameters merged
    L = len(ft.laws)
    laws = [*ft.laws, *((a, {**dict(p), **dict(params)}) for a, p in ft.laws)]
    law = np.where(chosen, ft.law + L, ft.law)
    used, first = np.unique(law[chosen], return_index=True)
    for k in used[np.argsort(first, kind="stable")].tolist():  # in the flows' order
        alg, merged = laws[k]
        if alg:
            i = int(np.argmax(law == k))
            flow = replace(scenario.flows[i], params=merged)
            _check_law_params(flow, alg, f"--param {selector or ''}")
    return scenario.with_flow_table(ft.with_laws(law, laws))


def mix_label(scenario: Scenario) -> str:
    """The scenario's algorithms as a mix: ``"vegas"`` when every flow runs Vegas,
    ``"vegas:8,reno:2"`` for runs of flows; ``"-"`` for flows without an algorithm."""
    ft = scenario.flow_table
    labels = np.array([a or "-" for a in ft.algorithms()], dtype=object)[ft.law]
    cut = np.flatnonzero(labels[1:] != labels[:-1]) + 1
    starts = np.concatenate([[0], cut])
    counts = np.diff(np.concatenate([starts, [len(ft)]]))
    if starts.size == 1:
        return str(labels[0])
    return ",".join(
        f"{labels[s]}:{c}" for s, c in zip(starts.tolist(), counts.tolist(), strict=True)
    )
