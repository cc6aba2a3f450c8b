"""The older option names docs/api-engines.md lists ("Older option names") work on every
engine the table names, with a DeprecationWarning naming the older name, and run as the
new name with the value converted by hand; every other engine refuses them by name."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

import tcpfluid
from tcpfluid.engines import ENGINES
from tcpfluid.scenarios import build_scenario

DOC = Path(__file__).resolve().parents[2] / "docs" / "api-engines.md"

SC = build_scenario("qv-basic", duration="2s", cbr="none", bandwidth="10Mbps").with_algorithm(
    "vegas"
)
#: a value of each older name and, by hand, the new name's value it stands for
VALUES: dict[str, tuple[Any, Any]] = {
    "record_every": (2, 2 * SC.base_rtt_s(SC.flows[0])),  # 2 base RTTs of the one flow
    "n_points": (9, 2.0 / 8),  # 9 samples over 2 s: 0.25 s apart
    "record_every_s": (0.5, 0.5),
    "sample_interval": (0.5, 0.5),
    "sample_interval_s": (0.5, 0.5),
    "rtt": ("last", "last"),
    "min_rto": (0.3, 0.3),
    "delack_timeout": (0.1, 0.1),
    "initial_rto": (2.0, 2.0),
    "max_rto": (30.0, 30.0),
}


def documented() -> list[tuple[str, str, tuple[str, ...]]]:
    """(older name, new name, engines) of each row of the documentation's table."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("**Older option names**", 1)[1].split("\n\n", 2)[1]
    out = []
    for row in table.splitlines()[2:]:
        olds, new, engines = (c.strip() for c in row.strip("|").split("|"))
        names = tuple(ENGINES) if engines == "every engine" else tuple(engines.split(", "))
        for old in re.findall(r"`(\w+)`", olds):
            target = f"{old}_s" if new == "the same with `_s`" else new.strip("`")
            out.append((old, target, names))
    return out


def test_the_table_lists_every_older_name() -> None:
    assert sorted(old for old, _, _ in documented()) == sorted(VALUES)


@pytest.mark.parametrize(("old", "new", "engines"), documented())
def test_an_older_name_runs_as_its_new_name_where_the_table_says(
    old: str, new: str, engines: tuple[str, ...]
) -> None:
    value, converted = VALUES[old]
    for engine in ENGINES:
        if engine not in engines:
            with pytest.raises(TypeError, match=f"unknown option {old!r} for the {engine}"):
                tcpfluid.simulate(SC, engine, **{old: value})
            continue
        with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated; use '{new}'"):
            a = tcpfluid.simulate(SC, engine, **{old: value})
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            b = tcpfluid.simulate(SC, engine, **{new: converted})
        assert a.time_s.tolist() == b.time_s.tolist(), engine
        assert a.summary.flows[0].throughput_pps == b.summary.flows[0].throughput_pps, engine
