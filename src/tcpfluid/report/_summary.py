"""The summary in words at the top of the report, generated from the rows.

Every judged cell of a row is one **comparison**: a column against the row's reference
column. Columns are grouped into the four layers (closed form, round model, ODE, packet
simulator; a variant column such as ``round model, rtt=fluid`` or ``W* eq. (10)`` counts
for its layer) and the documents. For each algorithm (read from the row's setting) and
layer the summary counts the comparisons with the documents and with the other layers
that agree within their stated tolerance, and lists the ones that differ, grouped by the
reason the section gives (``reason unknown`` where it gives none). Nothing is typed in:
a new row or a changed reason changes the summary.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ._core import Report
from ._table import ALGORITHM_NAMES, CLOSED_FORM, DOCUMENT, ODE, PACKET, ROUNDS, Row

__all__ = ["LAYERS", "Comparison", "ReportSummary", "algorithm_of", "layer_of", "summarize"]

#: the four layers, in display order
LAYERS: tuple[str, ...] = (CLOSED_FORM, ROUNDS, ODE, PACKET)

#: display names of the algorithms as the sections write them at the start of a setting
_DISPLAY = (
    "forward-path Vegas",
    "Enhanced Vegas",
    "Quick Vegas",
    "iTCP-Vegas",
    "TCP-Ho",
    "Vegas",
    "FAST",
    "Reno",
)
#: registry name -> display name
_REGISTRY = ALGORITHM_NAMES


def algorithm_of(setting: str) -> str:
    """The algorithm a row's setting names (``"Quick Vegas, BDP 100 kb"`` → ``Quick
    Vegas``; the thesis settings ``vegas-1_3``, ``vegas-2`` → Vegas, Enhanced Vegas);
    ``other`` when none."""
    head = re.split(r",| on ", setting, maxsplit=1)[0].strip()
    from ._sec_fairness import _SETTINGS  # the thesis settings' (law, parameters)

    if head in _SETTINGS:
        return _REGISTRY.get(_SETTINGS[head][0], _SETTINGS[head][0])
    if head in _REGISTRY:
        return _REGISTRY[head]
    for name in _DISPLAY:
        if head == name or head.startswith(name + " "):
            return name
    return "other"


def layer_of(column: str) -> str:
    """The layer (or ``document``) a column belongs to."""
    if column in (*LAYERS, DOCUMENT):
        return column
    for prefix in (ROUNDS, PACKET, ODE, DOCUMENT):
        if column.startswith(prefix):
            return prefix
    return CLOSED_FORM  # variants of a closed form: W* eq. (6), printed '−1' (E4), ...


@dataclass(frozen=True)
class Comparison:
    """One judged cell: ``column`` against the row's ``reference``."""

    section: str
    algorithm: str
    setting: str
    quantity: str
    column: str
    reference: str
    agree: bool
    reason: str

    @property
    def layers(self) -> tuple[str, str]:
        """(layer of the column, layer of the reference)."""
        return layer_of(self.column), layer_of(self.reference)

    @property
    def with_document(self) -> bool:
        """True when one side is a document's printed value."""
        return DOCUMENT in self.layers


def comparisons(report: Report) -> list[Comparison]:
    """Every judged cell of the report, in report order."""
    out: list[Comparison] = []
    for s in report.sections:
        for t in s.tables:
            for r in t.rows:
                out += _row_comparisons(s.name, r)
    return out


def _row_comparisons(section: str, r: Row) -> Iterable[Comparison]:
    if r.verdict.startswith("no comparison"):  # reference n/a: nothing was judged
        return
    bad = set(r.failures)
    alg = algorithm_of(r.setting)
    for c in r.compared:
        yield Comparison(
            section,
            alg,
            r.setting,
            r.quantity,
            c,
            r.reference,
            c not in bad,
            r.reasons.get(c, "reason unknown") if c in bad else "",
        )


@dataclass
class _Count:
    agree: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.total += 1
        self.agree += int(ok)

    def text(self) -> str:
        return f"{self.agree}/{self.total}" if self.total else "–"


@dataclass
class _Difference:
    pair: tuple[str, str]
    reason: str
    quantities: list[str] = field(default_factory=list)
    n: int = 0


@dataclass(frozen=True)
class ReportSummary:
    """Counts and grouped differences of a report (see the module docstring)."""

    comparisons: tuple[Comparison, ...]
    n_rows: int
    n_no_comparison: int

    @property
    def algorithms(self) -> list[str]:
        """Algorithms in order of first appearance."""
        seen: list[str] = []
        for c in self.comparisons:
            if c.algorithm not in seen:
                seen.append(c.algorithm)
        return seen

    def counts(self, algorithm: str | None, layer: str) -> tuple[_Count, _Count]:
        """(vs the documents, vs the other layers) counts of ``layer`` for ``algorithm``
        (``None``: every algorithm)."""
        docs, layers = _Count(), _Count()
        for c in self.comparisons:
            if (algorithm is not None and c.algorithm != algorithm) or layer not in c.layers:
                continue
            # a variant column of the same layer (round model, rtt=fluid) counts as a layer
            (docs if c.with_document else layers).add(c.agree)
        return docs, layers

    def differences(self, algorithm: str) -> list[_Difference]:
        """The comparisons of ``algorithm`` that differ, grouped by (columns, reason)."""
        groups: dict[tuple[tuple[str, str], str], _Difference] = {}
        for c in self.comparisons:
            if c.algorithm != algorithm or c.agree:
                continue
            key = ((c.column, c.reference), c.reason)
            d = groups.setdefault(key, _Difference((c.column, c.reference), c.reason))
            d.n += 1
            if c.quantity not in d.quantities:
                d.quantities.append(c.quantity)
        return sorted(groups.values(), key=lambda d: -d.n)

    def overview(self) -> str:
        """One sentence: comparisons, agreements, differences with and without a reason."""
        n = len(self.comparisons)
        ok = sum(c.agree for c in self.comparisons)
        bad = [c for c in self.comparisons if not c.agree]
        unknown = sum(c.reason == "reason unknown" for c in bad)
        docs = [c for c in self.comparisons if c.with_document]
        docs_ok = sum(c.agree for c in docs)
        return (
            f"{self.n_rows} rows hold {n} comparisons of a value with its row's reference: "
            f"{ok} agree within their stated tolerance and {len(bad)} differ "
            f"({len(bad) - unknown} with a stated reason, {unknown} with reason unknown). "
            f"Against the documents' printed values: {docs_ok} of {len(docs)} agree; "
            f"between the layers: {ok - docs_ok} of {n - len(docs)}."
            + (
                f" {self.n_no_comparison} rows have no comparison (reference n/a or one "
                "value only)."
                if self.n_no_comparison
                else ""
            )
        )

    def algorithm_sentence(self, algorithm: str) -> str:
        """What agrees for ``algorithm``, per layer, in words."""
        parts = []
        for layer in LAYERS:
            docs, other = self.counts(algorithm, layer)
            if not (docs.total or other.total):
                continue
            bits = []
            if docs.total:
                bits.append(f"{docs.agree} of {docs.total} with the documents")
            if other.total:
                bits.append(f"{other.agree} of {other.total} with the other layers")
            parts.append(f"{layer}: " + " and ".join(bits))
        return "Agreeing comparisons — " + "; ".join(parts) + "." if parts else ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the overview, the per-algorithm per-layer counts and differences."""
        algs = {}
        for a in self.algorithms:
            algs[a] = {
                "layers": {
                    layer: {
                        "documents": {"agree": d.agree, "compared": d.total},
                        "layers": {"agree": o.agree, "compared": o.total},
                    }
                    for layer in LAYERS
                    for d, o in [self.counts(a, layer)]
                },
                "differences": [
                    {
                        "column": d.pair[0],
                        "reference": d.pair[1],
                        "n": d.n,
                        "quantities": d.quantities,
                        "reason": d.reason,
                    }
                    for d in self.differences(a)
                ],
            }
        return {"overview": self.overview(), "algorithms": algs}

    def _all_cells(self) -> list[str]:
        cells = []
        for layer in LAYERS:
            d, o = self.counts(None, layer)
            cells.append("–" if not (d.total or o.total) else f"{d.text()} · {o.text()}")
        return cells

    def markdown(self) -> list[str]:
        """The summary as Markdown lines (a paragraph, a table, a list per algorithm)."""
        out = ["## Summary", "", self.overview(), ""]
        out += [
            "Agreeing comparisons per algorithm and layer, as *with the documents · with "
            "the other layers* (agree/compared; – none):",
            "",
            "| algorithm | " + " | ".join(LAYERS) + " |",
            "|---|" + "---|" * len(LAYERS),
        ]
        for a in self.algorithms:
            cells = []
            for layer in LAYERS:
                d, o = self.counts(a, layer)
                cells.append("–" if not (d.total or o.total) else f"{d.text()} · {o.text()}")
            out.append(f"| {a} | " + " | ".join(cells) + " |")
        out.append("| **all algorithms** | " + " | ".join(self._all_cells()) + " |")
        out.append("")
        for a in self.algorithms:
            diffs = self.differences(a)
            head = f"**{a}.** {self.algorithm_sentence(a)}"
            if not diffs:
                out += [head + " Nothing differs.", ""]
                continue
            out += [head + " What differs, and why:", ""]
            out += [f"- {_difference_text(diff)}" for diff in diffs]
            out.append("")
        return out

    def html(self) -> list[str]:
        """The same summary as HTML fragments."""
        import html

        e = html.escape
        out = ['<h2 id="summary">Summary</h2>', f"<p>{e(self.overview())}</p>"]
        out.append(
            "<p>Agreeing comparisons per algorithm and layer, as <i>with the documents · "
            "with the other layers</i> (agree/compared; – none):</p>"
        )
        out.append(
            "<table><tr><th>algorithm</th>" + "".join(f"<th>{e(x)}</th>" for x in LAYERS) + "</tr>"
        )
        for a in self.algorithms:
            cells = []
            for layer in LAYERS:
                d, o = self.counts(a, layer)
                cells.append("–" if not (d.total or o.total) else f"{d.text()} · {o.text()}")
            out.append(
                f"<tr><td>{e(a)}</td>" + "".join(f"<td>{e(c)}</td>" for c in cells) + "</tr>"
            )
        out.append(
            "<tr><td><b>all algorithms</b></td>"
            + "".join(f"<td>{e(c)}</td>" for c in self._all_cells())
            + "</tr>"
        )
        out.append("</table>")
        for a in self.algorithms:
            diffs = self.differences(a)
            tail = " Nothing differs." if not diffs else " What differs, and why:"
            out.append(f"<p><b>{e(a)}.</b> {e(self.algorithm_sentence(a))}{tail}</p>")
            if diffs:
                out.append(
                    "<ul>"
                    + "".join(f"<li>{e(_difference_text(diff))}</li>" for diff in diffs)
                    + "</ul>"
                )
        return out


def _difference_text(d: _Difference) -> str:
    qs = d.quantities[:3]
    more = f" and {len(d.quantities) - 3} more" if len(d.quantities) > 3 else ""
    rows = "1 comparison" if d.n == 1 else f"{d.n} comparisons"
    return f"{d.pair[0]} vs {d.pair[1]}, {rows} ({'; '.join(qs)}{more}): {d.reason}"


def summarize(report: Report) -> ReportSummary:
    """The :class:`ReportSummary` of ``report``."""
    rows = [r for s in report.sections for t in s.tables for r in t.rows]
    none = sum(1 for r in rows if r.verdict.startswith("no comparison"))
    return ReportSummary(tuple(comparisons(report)), len(rows), none)
