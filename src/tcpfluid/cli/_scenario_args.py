"""The scenario options shared by ``simulate`` and ``predict``: a named scenario or a
scenario file, ``--algorithm`` (one law or a mix such as ``vegas:8,reno:2``), ``--set``
and ``--param [SELECTOR:]KEY=VALUE`` (law parameters of some flows)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario

__all__ = ["add_param_option", "parse_params", "scenario_from_args"]

_PARAM_HELP = (
    "a law parameter of some flows (repeatable): [SELECTOR:]KEY=VALUE, SELECTOR an "
    "algorithm (vegas:alpha=1), a flow's name, a position or range from 1 (1-8:alpha=1); "
    "without a selector every flow"
)


def add_param_option(p: argparse.ArgumentParser) -> None:
    """Add the repeatable ``--param`` option (read into ``args.params``)."""
    p.add_argument(
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="[SEL:]KEY=VALUE",
        help=_PARAM_HELP,
    )


def parse_params(items: list[str]) -> list[tuple[str | None, dict[str, Any]]]:
    """``["vegas:alpha=1", "beta=3"]`` as ``[("vegas", {"alpha": 1.0}), (None, {"beta": 3.0})]``.

    Raises
    ------
    ValueError
        Naming a malformed item or a value that is not a number.
    """
    from ..scenarios._file_build import parse_number

    out: list[tuple[str | None, dict[str, Any]]] = []
    for item in items:
        lhs, sep, value = item.partition("=")
        sel, colon, key = lhs.rpartition(":")
        key = key.strip()
        if not sep or not key or not value.strip() or (colon and not sel.strip()):
            raise ValueError(f"--param expects [SELECTOR:]KEY=VALUE, got {item!r}")
        try:
            number = parse_number(value)
        except ValueError:
            raise ValueError(
                f"--param {item!r}: the value must be a number, got {value.strip()!r}"
            ) from None
        out.append((sel.strip() if colon else None, {key: number}))
    return out


def scenario_from_args(
    name: str,
    algorithm: str | None,
    sets: dict[str, str],
    params: list[str],
) -> Scenario:
    """The scenario ``name`` (registered, or a scenario file) built with ``sets``, its
    algorithms set by ``algorithm`` (a name or a mix; ``None``: as the file says) and the
    ``--param`` items applied.

    Raises
    ------
    ValueError
        An unknown scenario, parameter or algorithm; a flow left without an algorithm.
    """
    from ..scenarios import build_scenario
    from ..scenarios.mix import with_flow_params, with_mix

    sc = build_scenario(name, **sets)
    if algorithm is not None:
        sc = with_mix(sc, algorithm)
    for selector, values in parse_params(params):
        sc = with_flow_params(sc, selector, values)
    ft = sc.flow_table  # the flows' laws as a table (in the order of their first flow)
    missing = [ft.names[int((ft.law == k).argmax())] for k, (a, _) in enumerate(ft.laws) if not a]
    if missing:
        from ..algorithms.registry import ALGORITHMS

        raise ValueError(
            f"--algorithm: flow {missing[0]!r} of {name!r} has no algorithm; give "
            f"--algorithm NAME (one of {', '.join(ALGORITHMS)}) or a mix such as "
            "vegas:8,reno:2"
        )
    return sc
