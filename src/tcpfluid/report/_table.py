"""Comparison tables of the validation report: values, the one verdict rule, tolerances.

A :class:`Row` holds one quantity measured or predicted by several *columns* (the closed
form, the round model, the ODE model, the packet simulator, the document), each either a
number or :class:`NA` with the reason it is missing. One column is the row's *reference*:
a document's printed number, a closed form (computed from the documents' equations with
the row's stated parameters), or, in rows that compare the layers, the packet simulator.

**One verdict rule.** A compared cell agrees when it is within its quantity's tolerance
(:data:`TOLERANCES`, one entry per quantity kind, stated once with its reason) of the
row's reference; a row DIFFERS when one of its compared cells does not. Nothing else
passes a cell: ranges over the phase of a change or the flows' start order are shown
(informative columns), never used to pass; the packet simulator's cell does not rescue a
fluid cell. Where the reference is a document or a closed form, the fluid cells are also
judged against the packet cell, with the same tolerance, in a verdict of their own
(:attr:`Row.layers_verdict`): shown beside the verdict, never changing it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._text import number
from ..testing import Tolerance  # one tolerance type for the report and analysts' checks

__all__ = [
    "CLOSED_FORM",
    "DOCUMENT",
    "ENGINE_COLUMNS",
    "FLUID_PHASE",
    "KINDS",
    "NA",
    "ODE",
    "ODE_PHASE_MAX",
    "ODE_PHASE_MIN",
    "PACKET",
    "PHASE_MAX",
    "PHASE_MIN",
    "ROUNDS",
    "ROUNDS_PHASE_MAX",
    "ROUNDS_PHASE_MIN",
    "TOLERANCES",
    "Row",
    "Table",
    "Tolerance",
]

CLOSED_FORM = "closed form"
ROUNDS = "round model"
ODE = "ODE"
PACKET = "packet sim"
DOCUMENT = "document"
#: the packet simulator's range over the phase of the change, or over the flows' start
#: order (extra packet runs): informative, shown beside the nominal run, never judged
PHASE_MIN = "packet sim over the phase, min"
PHASE_MAX = "packet sim over the phase, max"
#: a fluid engine's range over the same phases of the change: informative
ROUNDS_PHASE_MIN = "round model over the phase, min"
ROUNDS_PHASE_MAX = "round model over the phase, max"
ODE_PHASE_MIN = "ODE over the phase, min"
ODE_PHASE_MAX = "ODE over the phase, max"
#: fluid column -> its (min, max) columns over the phase
FLUID_PHASE: dict[str, tuple[str, str]] = {
    ROUNDS: (ROUNDS_PHASE_MIN, ROUNDS_PHASE_MAX),
    ODE: (ODE_PHASE_MIN, ODE_PHASE_MAX),
}
#: the five standard columns, in display order
ENGINE_COLUMNS: tuple[str, ...] = (CLOSED_FORM, ROUNDS, ODE, PACKET, DOCUMENT)
#: the fluid layers, judged against the packet simulator in :attr:`Row.layers_verdict`
FLUID: tuple[str, ...] = (ROUNDS, ODE)

#: quantity kind -> its tolerance, the one table of the report's tolerances. Times and
#: round counts: ±25 % or 2 rounds (a settling or exit time is resolved to a round
#: boundary in the engine and in the reference, ±1 round each); a time against a
#: document's number, read off its ns-2 plot: ±10 %; windows, queues and throughputs:
#: ±10 %; the fairness quantities are per-flow throughput shares, ±10 %.
TOLERANCES: dict[str, Tolerance] = {
    "time": Tolerance(
        rel=0.25,
        abs_tol=0.2,
        reason=(
            "±25 % or 0.2 s (2 RTTs of the documents' 100-ms paths): a time is resolved to "
            "a round boundary in the engine and in the reference, one round each"
        ),
    ),
    "document time": Tolerance(
        rel=0.10,
        abs_tol=0.2,
        reason=(
            "±10 % or 0.2 s: a time the document gives for its ns-2 run, read off its plot "
            "(±10 %); a time is resolved to a round boundary, one 0.1-s round each side"
        ),
    ),
    "rounds": Tolerance(
        rel=0.25,
        abs_tol=2.0,
        reason=(
            "±25 % or 2 rounds: a count of rounds is resolved to a round boundary in the "
            "engine and in the reference, one round each"
        ),
    ),
    "window": Tolerance(rel=0.10, reason="±10 %: a window"),
    "queue": Tolerance(rel=0.10, reason="±10 %: a queue"),
    "throughput": Tolerance(rel=0.10, reason="±10 %: a throughput"),
    "share": Tolerance(
        rel=0.10,
        reason=(
            "±10 %: the smaller of two flows' share of their summed throughput (each "
            "flow's share within 10 % of the reference's)"
        ),
    ),
    "share spread": Tolerance(
        abs_tol=0.10,
        reason=(
            "±0.10: the flows' throughputs' coefficient of variation (std/mean), i.e. the "
            "flows' shares within 10 % of the mean share, rms, of the reference's spread"
        ),
    ),
}
#: the quantity kinds, in the order the report states them
KINDS: tuple[str, ...] = tuple(TOLERANCES)


@dataclass(frozen=True)
class NA:
    """A value that is not available, and why (shown as ``n/a`` with a footnote)."""

    reason: str

    def to_dict(self) -> dict[str, Any]:
        """``{"na": reason}``."""
        return {"na": self.reason}


Value = float | NA


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class Row:
    """One quantity across the columns.

    Attributes
    ----------
    setting
        What was run (``"Vegas, BDP 1000 kb"``); it starts with the algorithm's name.
    quantity
        What is compared (``"slow-start exit window"``).
    unit
        Unit of every value of the row (``"pkts"``, ``"s"``, ``"rounds"``, ``""``).
    kind
        The quantity's kind, a key of :data:`TOLERANCES`: its tolerance.
    values
        Column name → number or :class:`NA`.
    reference
        The column the others are compared against (must hold a number for a verdict).
    informative
        Columns shown but not judged (a printed form, a range over the phase, ...).
    case
        The row's case as declared parameters (``{"bdp_kb": 150.0}``, ``{"x2_ms": 50,
        "setting": "vegas-1"}``): what a mechanism's scope may name
        (:mod:`._mechanisms`), never parsed from the setting's text.
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
        if self.kind not in TOLERANCES:
            raise ValueError(
                f"row {self.setting!r}/{self.quantity!r}: kind {self.kind!r} is not one of "
                f"{', '.join(KINDS)}"
            )
        if self.reference not in self.values:
            raise ValueError(
                f"row {self.setting!r}/{self.quantity!r}: reference column "
                f"{self.reference!r} is not among its columns {sorted(self.values)}"
            )
        for col, v in self.values.items():
            if not (isinstance(v, NA) or _is_num(v)):
                raise ValueError(
                    f"row {self.setting!r}/{self.quantity!r}: column {col!r} must be a finite "
                    f"number or NA(reason), got {v!r}"
                )
        for cmin, cmax in ((PHASE_MIN, PHASE_MAX), *FLUID_PHASE.values()):
            has = [c in self.values for c in (cmin, cmax)]
            if not any(has):
                continue
            informative = cmin in self.informative and cmax in self.informative
            if not all(has) or not informative:
                raise ValueError(
                    f"row {self.setting!r}/{self.quantity!r}: the phase columns {cmin!r} "
                    f"and {cmax!r} come together and are informative"
                )
            lo, hi = self.values[cmin], self.values[cmax]
            if _is_num(lo) and _is_num(hi) and float(lo) > float(hi):  # type: ignore[arg-type]
                raise ValueError(
                    f"row {self.setting!r}/{self.quantity!r}: phase range min {lo!r} > max {hi!r}"
                )

    @property
    def tolerance(self) -> Tolerance:
        """The tolerance of every compared cell of the row (its kind's)."""
        return TOLERANCES[self.kind]

    @property
    def compared(self) -> tuple[str, ...]:
        """Numeric columns judged against the reference."""
        return tuple(
            c
            for c, v in self.values.items()
            if c != self.reference and c not in self.informative and _is_num(v)
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
        """Compared columns outside the tolerance of the reference."""
        return self._outside(self.compared, self.reference)

    def _outside(self, columns: Sequence[str], against: str) -> tuple[str, ...]:
        """``columns`` whose values are outside the row's tolerance of column ``against``."""
        ref = self.values.get(against)
        if not _is_num(ref):
            return ()
        r, tol = float(ref), self.tolerance  # type: ignore[arg-type]
        return tuple(c for c in columns if not tol.passes(float(self.values[c]), r))  # type: ignore[arg-type]

    @property
    def judged(self) -> bool:
        """True when the row has a reference value and at least one compared cell."""
        return _is_num(self.values[self.reference]) and bool(self.compared)

    @property
    def ok(self) -> bool:
        """True when no compared column is outside its tolerance."""
        return not self.failures

    @property
    def verdict(self) -> str:
        """``agree``, ``DIFFERS: <col> <error>, ...`` or ``no comparison (...)``."""
        if not _is_num(self.values[self.reference]):
            return f"no comparison (reference {self.reference} n/a)"
        if not self.compared:
            return "no comparison (one value only)"
        return _verdict(self, self.failures, None)

    # ------------------------------------------------------------ fluid vs packets
    @property
    def layers_compared(self) -> tuple[str, ...]:
        """Fluid cells judged against the packet cell in :attr:`layers_verdict`: in a row
        whose reference is a document or a closed form and whose packet cell is a number
        (in a row referenced to the packet simulator the verdict is that comparison)."""
        if self.reference == PACKET or not _is_num(self.values.get(PACKET)):
            return ()
        return tuple(c for c in FLUID if c in self.values and _is_num(self.values[c]))

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
    items = []
    for c in bad:
        err = row.relative_error(c, against)
        items.append(f"{c} {err * 100:+.0f} %" if err is not None else c)
    return "DIFFERS: " + ", ".join(items)


@dataclass(frozen=True)
class Table:
    """Rows sharing the same columns, with a caption.

    Attributes
    ----------
    caption
        What the table shows (and which document table/figure it corresponds to).
    rows
        The rows.
    columns
        Display order of the value columns (defaults: the five standard columns plus any
        extra column used by a row, in first-use order).
    """

    caption: str
    rows: tuple[Row, ...]
    columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.columns:
            cols = list(ENGINE_COLUMNS)
            for r in self.rows:
                for c in r.values:
                    if c not in cols:
                        cols.append(c)
            object.__setattr__(self, "columns", tuple(cols))

    @property
    def n_disagreements(self) -> int:
        """Rows whose verdict is DIFFERS."""
        return sum(1 for r in self.rows if not r.ok)

    def na_notes(self) -> list[str]:
        """Distinct reasons for ``n/a`` cells, as ``"<column>: <reason>"``."""
        out: list[str] = []
        for r in self.rows:
            for c, v in r.values.items():
                if isinstance(v, NA):
                    s = f"{c}: {v.reason}"
                    if s not in out:
                        out.append(s)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "caption": self.caption,
            "columns": list(self.columns),
            "rows": [r.to_dict() for r in self.rows],
        }


def fmt_value(v: Value | None) -> str:
    """A cell: ``n/a``, or the number with 3–4 significant digits
    (:func:`tcpfluid._text.number`)."""
    if v is None or isinstance(v, NA):
        return "n/a"
    return number(float(v))


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
