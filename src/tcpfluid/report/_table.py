"""Comparison tables of the validation report: values, the one verdict rule, tolerances.

A :class:`Row` holds one quantity in several columns (closed form, round model, ODE, packet
simulator, document), each a number or :class:`NA`; a compared cell agrees when it is
within its kind's tolerance (:data:`TOLERANCES`) of the row's reference column, and nothing
else passes it (docs/report.md, "The rule").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._text import number
from ..testing import Tolerance  # one tolerance type for the report and analysts' checks

CLOSED_FORM = "closed form"
ROUNDS = "round model"
ODE = "ODE"
PACKET = "packet sim"
DOCUMENT = "document"
#: the packet simulator's range over the phase of the change, or over the flows' start
#: order (extra packet runs): informative, shown beside the nominal run, never judged
PHASE_MIN = "packet sim over the phase, min"
PHASE_MAX = "packet sim over the phase, max"
#: fluid column -> its (min, max) columns over the same phases: informative
FLUID_PHASE: dict[str, tuple[str, str]] = {
    c: (f"{c} over the phase, min", f"{c} over the phase, max") for c in (ROUNDS, ODE)
}
#: the five standard columns, in display order
ENGINE_COLUMNS: tuple[str, ...] = (CLOSED_FORM, ROUNDS, ODE, PACKET, DOCUMENT)
#: the fluid layers, judged against the packet simulator in :attr:`Row.layers_verdict`
FLUID: tuple[str, ...] = (ROUNDS, ODE)

#: quantity kind -> its tolerance, with its reason: the one table of the report's tolerances
# fmt: off
TOLERANCES: dict[str, Tolerance] = {
    "time": Tolerance(rel=0.25, abs_tol=0.2, reason=(
        "±25 % or 0.2 s (2 RTTs of the documents' 100-ms paths): a time is resolved to "
        "a round boundary in the engine and in the reference, one round each")),
    "document time": Tolerance(rel=0.10, abs_tol=0.2, reason=(
        "±10 % or 0.2 s: a time the document gives for its ns-2 run, read off its plot "
        "(±10 %); a time is resolved to a round boundary, one 0.1-s round each side")),
    "rounds": Tolerance(rel=0.25, abs_tol=2.0, reason=(
        "±25 % or 2 rounds: a count of rounds is resolved to a round boundary in the "
        "engine and in the reference, one round each")),
    "window": Tolerance(rel=0.10, reason="±10 %: a window"),
    "queue": Tolerance(rel=0.10, reason="±10 %: a queue"),
    "throughput": Tolerance(rel=0.10, reason="±10 %: a throughput"),
    "share": Tolerance(rel=0.10, reason=(
        "±10 %: the smaller of two flows' share of their summed throughput (each "
        "flow's share within 10 % of the reference's)")),
    "share spread": Tolerance(abs_tol=0.10, reason=(
        "±0.10: the flows' throughputs' coefficient of variation (std/mean), i.e. the "
        "flows' shares within 10 % of the mean share, rms, of the reference's spread")),
}
# fmt: on


@dataclass(frozen=True)
class NA:
    """A value that is not available, and why (shown as ``n/a`` with a footnote).

    ``failed``: the layer should have given the value and did not (its run failed, its
    value is NaN or infinite, its flow never reached the quantity, e.g. never settled): a
    compared cell that differs (docs/report.md, "The rule"). Otherwise the layer has no
    such value (no closed form, a document that prints none, an engine not run or refusing
    a configuration it does not model) and the cell is not compared.
    """

    reason: str
    failed: bool = False

    def to_dict(self) -> dict[str, Any]:
        """``{"na": reason}``, with ``"failed": true`` for a failed value."""
        return {"na": self.reason, **({"failed": True} if self.failed else {})}


Value = float | NA


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _is_judged(v: Any) -> bool:
    """A cell judged against a reference: a number, or a failed value (which differs)."""
    return _is_num(v) or (isinstance(v, NA) and v.failed)


def time_kind(reference: str) -> str:
    """The kind of a time judged against the column ``reference``: ``document time``
    against a document's printed number, else ``time``."""
    return "document time" if reference == DOCUMENT else "time"


@dataclass(frozen=True)
class Row:
    """One quantity across the columns.

    ``setting`` (what was run, starting with the algorithm's name), ``quantity``, ``unit``
    and ``kind`` (a key of :data:`TOLERANCES`); ``values``, column → number or :class:`NA`;
    ``reference``, the column the others are judged against; ``informative``, columns
    shown but not judged; ``case``, the row's declared parameters, which a mechanism's
    scope may name (:mod:`._mechanisms`).
    """

    setting: str
    quantity: str
    unit: str
    kind: str
    values: Mapping[str, Value]
    reference: str
    informative: tuple[str, ...] = ()
    case: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        at = f"row {self.setting!r}/{self.quantity!r}:"
        if self.kind not in TOLERANCES:
            raise ValueError(f"{at} kind {self.kind!r} is not one of {', '.join(TOLERANCES)}")
        if self.kind in ("time", "document time") and self.kind != time_kind(self.reference):
            raise ValueError(
                f"{at} a time against the {self.reference!r} column is of kind "
                f"{time_kind(self.reference)!r}, not {self.kind!r}"
            )
        if self.reference not in self.values:
            raise ValueError(
                f"{at} reference column {self.reference!r} is not among its columns "
                f"{sorted(self.values)}"
            )
        for col, v in self.values.items():
            if not (isinstance(v, NA) or _is_num(v)):
                raise ValueError(
                    f"{at} column {col!r} must be a finite number or NA(reason), got {v!r}"
                )
        for cmin, cmax in ((PHASE_MIN, PHASE_MAX), *FLUID_PHASE.values()):
            has = [c in self.values for c in (cmin, cmax)]
            if not any(has):
                continue
            if not all(has) or not {cmin, cmax} <= set(self.informative):
                raise ValueError(
                    f"{at} the phase columns {cmin!r} and {cmax!r} come together and are "
                    "informative"
                )
            lo, hi = self.values[cmin], self.values[cmax]
            if _is_num(lo) and _is_num(hi) and float(lo) > float(hi):  # type: ignore[arg-type]
                raise ValueError(f"{at} phase range min {lo!r} > max {hi!r}")

    @property
    def tolerance(self) -> Tolerance:
        """The tolerance of every compared cell of the row (its kind's)."""
        return TOLERANCES[self.kind]

    @property
    def compared(self) -> tuple[str, ...]:
        """Columns judged against the reference: numbers and failed values."""
        return tuple(
            c
            for c, v in self.values.items()
            if c != self.reference and c not in self.informative and _is_judged(v)
        )

    def relative_error(self, column: str, against: str | None = None) -> float | None:
        """(value − reference)/|reference| (``against``: another column as the
        reference), or ``None`` when either is missing or the reference is 0."""
        v, r = self.values.get(column), self.values.get(against or self.reference)
        if not (_is_num(v) and _is_num(r)) or r == 0:
            return None
        return (float(v) - float(r)) / abs(float(r))  # type: ignore[arg-type]

    @property
    def failures(self) -> tuple[str, ...]:
        """Compared columns outside the tolerance of the reference (a failed value always)."""
        return self._outside(self.compared, self.reference)

    def _outside(self, columns: Sequence[str], against: str) -> tuple[str, ...]:
        """``columns`` whose values are outside the row's tolerance of column ``against``."""
        ref = self.values.get(against)
        if not _is_num(ref):  # a failed reference: no cell is within a tolerance of it
            return tuple(columns) if isinstance(ref, NA) and ref.failed else ()
        r, tol = float(ref), self.tolerance  # type: ignore[arg-type]
        return tuple(
            c for c in columns if isinstance(v := self.values[c], NA) or not tol.passes(float(v), r)
        )

    @property
    def reference_failed(self) -> bool:
        """True when the reference cell is a failed value (:class:`NA` ``failed``): its
        layer should have given the number every other cell is judged against."""
        ref = self.values[self.reference]
        return isinstance(ref, NA) and ref.failed

    @property
    def judged(self) -> bool:
        """True when the row has a reference value (or a failed one, against which every
        compared cell differs) and at least one compared cell."""
        ref = self.values[self.reference]
        return (_is_num(ref) or self.reference_failed) and bool(self.compared)

    @property
    def ok(self) -> bool:
        """True when no compared column is outside its tolerance and the reference did
        not fail."""
        return not self.failures and not self.reference_failed

    @property
    def verdict(self) -> str:
        """``agree``, ``DIFFERS: <col> <error>, ...`` (a failed reference: ``DIFFERS:
        reference <col> n/a (<reason>)``) or ``no comparison (...)``."""
        ref = self.values[self.reference]
        if isinstance(ref, NA) and ref.failed:
            return f"DIFFERS: reference {self.reference} n/a ({ref.reason})"
        if not _is_num(ref):
            return f"no comparison (reference {self.reference} n/a)"
        if not self.compared:
            return "no comparison (one value only)"
        return _verdict(self, self.failures, None)

    @property
    def layers_compared(self) -> tuple[str, ...]:
        """Fluid cells (numbers and failed values) judged against the packet cell in
        :attr:`layers_verdict` (none in a row referenced to the packet simulator or without
        a packet number)."""
        if self.reference == PACKET or not _is_num(self.values.get(PACKET)):
            return ()
        return tuple(c for c in FLUID if c in self.values and _is_judged(self.values[c]))

    @property
    def layers_failures(self) -> tuple[str, ...]:
        """Fluid cells outside the row's tolerance of the packet cell."""
        return self._outside(self.layers_compared, PACKET)

    @property
    def layers_verdict(self) -> str:
        """Fluid cells against the packet cell: ``agree``, ``DIFFERS: ...`` or ``–``."""
        if not self.layers_compared:
            return "–"
        return _verdict(self, self.layers_failures, PACKET)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: values (numbers or ``{"na": reason}``), errors, tolerance, verdicts."""
        return {
            "setting": self.setting,
            "quantity": self.quantity,
            "unit": self.unit,
            "kind": self.kind,
            "values": {
                c: (v.to_dict() if isinstance(v, NA) else float(v)) for c, v in self.values.items()
            },
            "reference": self.reference,
            "informative": list(self.informative),
            "case": dict(self.case),
            "relative_errors": {c: self.relative_error(c) for c in self.compared},
            "tolerance": self.tolerance.to_dict(),
            "verdict": self.verdict,
            "ok": self.ok,
            "failures": list(self.failures),
            "layers_verdict": self.layers_verdict,
            "layers_failures": list(self.layers_failures),
        }


def _verdict(row: Row, bad: Sequence[str], against: str | None) -> str:
    if not bad:
        return "agree"

    def why(c: str) -> str:
        v, e = row.values[c], row.relative_error(c, against)
        if isinstance(v, NA):
            return f"{c} n/a ({v.reason})"
        return c if e is None else f"{c} {e * 100:+.0f} %"

    return "DIFFERS: " + ", ".join(why(c) for c in bad)


@dataclass(frozen=True)
class Table:
    """Rows with a caption; ``columns``, the display order (default: the five standard
    columns, then any other a row uses, in first-use order)."""

    caption: str
    rows: tuple[Row, ...]
    columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.columns:
            cols = dict.fromkeys([*ENGINE_COLUMNS, *(c for r in self.rows for c in r.values)])
            object.__setattr__(self, "columns", tuple(cols))

    @property
    def n_disagreements(self) -> int:
        """Rows whose verdict is DIFFERS."""
        return sum(1 for r in self.rows if not r.ok)

    def na_notes(self) -> list[str]:
        """Distinct reasons for ``n/a`` cells, as ``"<column>: <reason>"``."""
        cells = (
            f"{c}: {v.reason}" for r in self.rows for c, v in r.values.items() if isinstance(v, NA)
        )
        return list(dict.fromkeys(cells))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "caption": self.caption,
            "columns": list(self.columns),
            "rows": [r.to_dict() for r in self.rows],
        }


def fmt_value(v: Value | None) -> str:
    """A cell: ``n/a``, or the number by :func:`tcpfluid._text.number`."""
    return "n/a" if v is None or isinstance(v, NA) else number(float(v))


#: registry name -> display name, for every table, figure and summary of the report
ALGORITHM_NAMES = {
    "vegas": "Vegas",
    "quick-vegas": "Quick Vegas",
    "tcp-ho": "TCP-Ho",
    "fast": "FAST",
    "reno": "Reno",
    "forward-vegas": "forward-path Vegas",
    "enhanced-vegas": "Enhanced Vegas",
    "itcp-vegas": "iTCP-Vegas",
}
#: the summary's name for the rows of a mix of two laws (a setting written ``a + b``)
MIXED_LAWS = "mixed laws"
