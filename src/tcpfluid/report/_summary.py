"""The summary that opens the report, counted from the rows: per algorithm and layer, the
compared cells (**comparisons**) with the documents (reference a document or a closed
form) and with the packet simulator, and the mechanisms (:mod:`._mechanisms`) that cover
the differing cells.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..fairness import _THESIS_SETTINGS as _SETTINGS  # the thesis settings
from ._core import Report, prose
from ._mechanisms import MECHANISMS, explain
from ._table import ALGORITHM_NAMES, CLOSED_FORM, MIXED_LAWS, NA, ODE, PACKET, ROUNDS, Row

#: the four layers, in display order
LAYERS: tuple[str, ...] = (CLOSED_FORM, ROUNDS, ODE, PACKET)


def algorithm_of(setting: str) -> str:
    """The algorithm a row's setting names (``"Quick Vegas, BDP 100 kb"`` → ``Quick
    Vegas``; the thesis settings ``vegas-1_3``, ``vegas-2`` → Vegas, Enhanced Vegas);
    ``mixed laws`` for a mix the setting writes as ``a + b`` (the thesis's ``vegas-3 +
    Reno (30 % Vegas-3)``); ``other`` when none."""
    head = re.split(r",| on ", setting, maxsplit=1)[0].strip()
    if " + " in head:
        return MIXED_LAWS
    if head in _SETTINGS:
        return ALGORITHM_NAMES.get(_SETTINGS[head][0], _SETTINGS[head][0])
    if head in ALGORITHM_NAMES:
        return ALGORITHM_NAMES[head]
    for name in ALGORITHM_NAMES.values():  # no name is another's first word
        if head == name or head.startswith(name + " "):
            return name
    return "other"


def layer_of(column: str) -> str:
    """The layer a compared column belongs to (a variant column such as ``round model,
    rtt=fluid`` counts for its layer)."""
    return next((p for p in (ROUNDS, PACKET, ODE) if column.startswith(p)), CLOSED_FORM)


@dataclass(frozen=True)
class Comparison:
    """One judged cell: ``column`` against ``reference`` (``layers``: a fluid cell against
    the packet cell, :attr:`~._table.Row.layers_verdict`)."""

    section: str
    algorithm: str
    quantity: str
    column: str
    reference: str
    agree: bool
    layers: bool = False
    #: the row's declared case (:attr:`~._table.Row.case`)
    case: Mapping[str, Any] = field(default_factory=dict)
    #: the cell, or the row's reference, is a failed value (:class:`~._table.NA`)
    failed: bool = False

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """Ids of the mechanisms that cover this cell when it differs (none for a failed
        value: a mechanism explains a number, not a run without one)."""
        if self.agree or self.failed:
            return ()
        found = explain(self.section, self.column, self.quantity, self.algorithm, self.case)
        return tuple(m.id for m in found)


def row_comparisons(section: str, r: Row) -> Iterable[Comparison]:
    """The comparisons of one row: its compared cells, then its layers' cells."""
    if not r.judged:
        return
    alg = algorithm_of(r.setting)
    bad = set(r.failures)
    for c in r.compared:
        failed = isinstance(r.values[c], NA) or r.reference_failed
        yield Comparison(
            section, alg, r.quantity, c, r.reference, c not in bad, case=r.case, failed=failed
        )
    lbad = set(r.layers_failures)
    for c in r.layers_compared:
        failed = isinstance(r.values[c], NA)
        yield Comparison(section, alg, r.quantity, c, PACKET, c not in lbad, True, r.case, failed)


def row_mechanisms(section: str, r: Row) -> tuple[str, ...]:
    """Ids of the mechanisms that cover a row's differing cells (its verdict's and its
    layers' verdict's), in :data:`~._mechanisms.MECHANISMS` order."""
    ids = {m for c in row_comparisons(section, r) for m in c.mechanisms}
    return tuple(m.id for m in MECHANISMS if m.id in ids)


@dataclass
class _Count:
    agree: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.agree += int(ok)

    def text(self) -> str:
        return f"{self.agree}/{self.total}" if self.total else "–"


@dataclass(frozen=True)
class ReportSummary:
    """Counts of a report (see the module docstring)."""

    comparisons: tuple[Comparison, ...]
    n_rows: int
    n_differs: int
    n_no_comparison: int

    @property
    def verdict_cells(self) -> list[Comparison]:
        """The compared cells of the rows' verdicts (not the layers' comparisons)."""
        return [c for c in self.comparisons if not c.layers]

    @property
    def algorithms(self) -> list[str]:
        """Algorithms in order of first appearance."""
        return list(dict.fromkeys(c.algorithm for c in self.comparisons))

    def counts(self, algorithm: str | None, layer: str) -> tuple[_Count, _Count]:
        """(with the documents, with the packet simulator) counts of ``layer`` for
        ``algorithm`` (``None``: every algorithm). With the packet simulator: the cells of
        the rows referenced to it and the fluid-vs-packets cells (the layers' comparisons),
        so its counts are not a part of the overview's compared cells."""
        docs, packets = _Count(), _Count()
        for c in self.comparisons:
            if (algorithm is not None and c.algorithm != algorithm) or layer_of(c.column) != layer:
                continue
            (packets if c.reference == PACKET else docs).add(c.agree)
        return docs, packets

    def overview(self) -> str:
        """The counts in one paragraph: rows, cells, the layers' comparisons."""
        cells, lay = self.verdict_cells, [c for c in self.comparisons if c.layers]
        rows = {"n_differs": self.n_differs, "n_rows": self.n_rows, "n_none": self.n_no_comparison}
        bad = {"bad": sum(not c.agree for c in cells), "n_cells": len(cells)}
        layers = {"n_bad_layers": sum(not c.agree for c in lay), "n_layers": len(lay)}
        return prose("summary", "overview", **rows, **bad, **layers)

    def mechanism_counts(self) -> list[tuple[str, int]]:
        """(mechanism id, differing cells of the verdicts it covers) for every mechanism that
        covers one, then ``("unexplained", n)``: the cells the overview counts as outside
        their tolerance (a cell two mechanisms cover counts for each)."""
        bad = [c for c in self.verdict_cells if not c.agree]
        out = [(m.id, sum(m.id in c.mechanisms for c in bad)) for m in MECHANISMS]
        out = [(i, n) for i, n in out if n]
        out.append(("unexplained", sum(not c.mechanisms for c in bad)))
        return out

    def table_rows(self) -> list[tuple[str, list[str]]]:
        """(algorithm, cells) of the per-algorithm × layer table, then all algorithms."""

        def cell(a: str | None, layer: str) -> str:
            d, p = self.counts(a, layer)
            return f"{d.text()} · {p.text()}"

        return [
            (a or "all algorithms", [cell(a, x) for x in LAYERS]) for a in [*self.algorithms, None]
        ]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the overview, the per-algorithm per-layer counts, the mechanisms."""
        return {
            "overview": self.overview(),
            "rows": self.n_rows,
            "differs": self.n_differs,
            "compared_cells": len(self.verdict_cells),
            "differing_cells": sum(not c.agree for c in self.verdict_cells),
            "algorithms": {
                a: {
                    layer: {
                        "documents": {"agree": d.agree, "compared": d.total},
                        "packets": {"agree": p.agree, "compared": p.total},
                    }
                    for layer in LAYERS
                    for d, p in [self.counts(a, layer)]
                }
                for a in self.algorithms
            },
            "mechanisms": dict(self.mechanism_counts()),
        }

    def markdown(self, mechanisms_href: str | None = None) -> list[str]:
        """The summary as Markdown lines, each mechanism linked to its entry of
        ``mechanisms_href`` (``None``: named only)."""
        n_bad = sum(not c.agree for c in self.verdict_cells)
        out = ["## Summary", "", self.overview(), "", prose("summary", "table_intro"), ""]
        out += ["| algorithm | " + " | ".join(LAYERS) + " |", "|---|" + "---|" * len(LAYERS)]
        out += [f"| {a} | " + " | ".join(cells) + " |" for a, cells in self.table_rows()]
        out += ["", prose("summary", "by_mechanism", n_bad=n_bad), ""]
        for mid, n in self.mechanism_counts():
            named = mid == "unexplained" or mechanisms_href is None
            link = mid if named else f"[{mid}]({mechanisms_href}#{mid})"
            out.append(f"- {link}: {n}")
        return [*out, ""]

    def html(self) -> list[str]:
        """The same summary as HTML fragments."""
        import html

        e = html.escape
        out = ['<h2 id="summary">Summary</h2>', f"<p>{e(self.overview())}</p>"]
        out.append(
            "<p>Agreeing cells per algorithm and layer, <i>with the documents · with the "
            "packet simulator</i> (agree/compared; – none; with the packet simulator: the "
            "cells of rows referenced to it and the fluid-vs-packets cells):</p>"
        )
        for i, (a, cells) in enumerate([("algorithm", LAYERS), *self.table_rows()]):
            tag = "th" if i == 0 else "td"
            row = "".join(f"<{tag}>{e(x)}</{tag}>" for x in cells)
            out.append(("<table>" if i == 0 else "") + f"<tr><{tag}>{e(a)}</{tag}>{row}</tr>")
        out.append("</table><p>Differing cells by the mechanism that explains them:</p><ul>")
        out += [f"<li>{e(mid)}: {n}</li>" for mid, n in self.mechanism_counts()]
        out.append("</ul>")
        return out


def summarize(report: Report) -> ReportSummary:
    """The :class:`ReportSummary` of ``report``: every judged cell, in report order."""
    rows = [(s.name, r) for s in report.sections for t in s.tables for r in t.rows]
    cells = tuple(c for name, r in rows for c in row_comparisons(name, r))
    none = sum(1 for _, r in rows if not r.judged)
    return ReportSummary(cells, len(rows), report.n_disagreements, none)
