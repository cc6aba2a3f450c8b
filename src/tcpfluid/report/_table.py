"""Comparison tables of the validation report: values, tolerances, verdicts.

A :class:`Row` holds one quantity measured or predicted by several *columns* (the closed
form, the round model, the ODE model, the packet simulator, the document), each either a
number or :class:`NA` with the reason it is missing. One column is the row's
*reference*; every other numeric column that is compared gets its relative error against
the reference and is judged by a :class:`Tolerance` (with its stated reason). The packet
simulator referees the fluid layers and the documents referee the packet simulator: in a row
judged against a document or a closed form, a fluid cell outside its tolerance of that
reference agrees when it is within it of the packet cell (:attr:`Row.agree_with_packets`),
while the packet cell is still judged against the reference. The verdict
says ``agree`` or ``DIFFERS`` and names every column outside its tolerance, with the
reason where one is known (a slow-start burst, an erratum of ``docs/errata.md``, an
unspecified rule, a model limit) or ``reason unknown`` otherwise. Nothing here computes
a value: the sections do, at run time.
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
    "Row",
    "Table",
    "Tolerance",
]

CLOSED_FORM = "closed form"
ROUNDS = "round model"
ODE = "ODE"
PACKET = "packet sim"
DOCUMENT = "document"
#: the packet simulator's range over the phase of the change (extra packet runs with the
#: change moved by fractions of the flow's round): informative columns of a row whose
#: reference is the packet simulator or the document. Against the packet simulator, a
#: fluid cell outside the nominal tolerance but inside [min, max], or within the row's
#: tolerance of its nearer end (each end is a run's value), agrees within the packets'
#: phase spread; against the document (one ns-2 run, at a phase it does not give), the
#: packet cell does when the document's value is inside [min, max] or within the row's
#: tolerance of the nearer end
PHASE_MIN = "packet sim over the phase, min"
PHASE_MAX = "packet sim over the phase, max"
#: a fluid engine's range over the same phases of the change (the same extra runs, on that
#: engine): its rounds have a phase against the change too. Informative columns of a row
#: judged against the packet simulator: the fluid cell agrees within the phase spread when
#: its range (with its nominal value) and the packets' range (with theirs) overlap, or when
#: their nearer ends are within the row's tolerance of each other (each end is a run)
ROUNDS_PHASE_MIN = "round model over the phase, min"
ROUNDS_PHASE_MAX = "round model over the phase, max"
ODE_PHASE_MIN = "ODE over the phase, min"
ODE_PHASE_MAX = "ODE over the phase, max"
#: fluid column -> its (min, max) columns over the phase
FLUID_PHASE: dict[str, tuple[str, str]] = {
    "round model": (ROUNDS_PHASE_MIN, ROUNDS_PHASE_MAX),
    "ODE": (ODE_PHASE_MIN, ODE_PHASE_MAX),
}
#: the five standard columns, in display order
ENGINE_COLUMNS: tuple[str, ...] = (CLOSED_FORM, ROUNDS, ODE, PACKET, DOCUMENT)


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


def _ranges_meet(tol: Tolerance, fluid: tuple[float, float], packets: tuple[float, float]) -> bool:
    """True when a fluid engine's values (one, or its range over the phase) and the packet
    simulator's (one, or its range) overlap, or their nearer ends are within ``tol`` (each
    end is one run's value, judged as a single run would be)."""
    if fluid[1] < packets[0]:
        return tol.passes(fluid[1], packets[0])
    if fluid[0] > packets[1]:
        return tol.passes(fluid[0], packets[1])
    return True


@dataclass(frozen=True)
class Row:
    """One quantity across the columns.

    Attributes
    ----------
    setting
        What was run (``"Vegas, BDP 1000 kb"``).
    quantity
        What is compared (``"slow-start exit window"``).
    unit
        Unit of every value of the row (``"pkts"``, ``"s"``, ``"rounds"``, ``""``).
    values
        Column name → number or :class:`NA`.
    reference
        The column the others are compared against (must hold a number for a verdict).
    tolerances
        Column name → :class:`Tolerance`; a compared column without an entry uses
        ``default_tolerance``.
    default_tolerance
        Tolerance of compared columns without their own.
    informative
        Columns shown but not judged (e.g. a printed form kept for comparison).
    reasons
        Column name → known reason for a disagreement of that column.
    """

    setting: str
    quantity: str
    unit: str
    values: Mapping[str, Value]
    reference: str
    default_tolerance: Tolerance
    tolerances: Mapping[str, Tolerance] = field(default_factory=dict)
    informative: tuple[str, ...] = ()
    reasons: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
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

    def tolerance(self, column: str) -> Tolerance:
        """The tolerance applied to ``column``."""
        return self.tolerances.get(column, self.default_tolerance)

    @property
    def compared(self) -> tuple[str, ...]:
        """Numeric columns judged against the reference."""
        return tuple(
            c
            for c, v in self.values.items()
            if c != self.reference and c not in self.informative and _is_num(v)
        )

    def relative_error(self, column: str) -> float | None:
        """(value − reference)/|reference|, or ``None`` when either is missing or ref = 0."""
        v, r = self.values.get(column), self.values[self.reference]
        if not (_is_num(v) and _is_num(r)) or r == 0:
            return None
        return (float(v) - float(r)) / abs(float(r))  # type: ignore[arg-type]

    @property
    def phase_range(self) -> tuple[float, float] | None:
        """The packet simulator's [min, max] over the phase of the change, when the row
        holds one (both ends numbers) and is judged against the packet simulator or the
        document."""
        if self.reference not in (PACKET, DOCUMENT):
            return None
        lo, hi = self.values.get(PHASE_MIN), self.values.get(PHASE_MAX)
        if not (_is_num(lo) and _is_num(hi)):
            return None
        return float(lo), float(hi)  # type: ignore[arg-type]

    def fluid_phase_range(self, column: str) -> tuple[float, float] | None:
        """A fluid column's [min, max] over the phase of the change (its nominal value
        included), when the row holds one (both ends numbers): judged against the packets'
        range when the row is judged against the packet simulator or, through
        :attr:`agree_with_packets`, against the packet cell."""
        cols = FLUID_PHASE.get(column)
        v = self.values.get(column)
        if cols is None or not _is_num(v):
            return None
        lo, hi = self.values.get(cols[0]), self.values.get(cols[1])
        if not (_is_num(lo) and _is_num(hi)):
            return None
        return min(float(lo), float(v)), max(float(hi), float(v))  # type: ignore[arg-type]

    @property
    def within_phase_spread(self) -> tuple[str, ...]:
        """Columns outside their tolerance of the reference that agree over the phase of
        the change. Against the packet simulator: a fluid column inside the packets' range
        over the phase, or within the row's tolerance of its nearer end (the nominal run is
        one phase of the change, judged with the tolerance; each run over the phase is
        another, judged the same way: the range's ends are runs' values); where the row
        also holds the fluid engine's own range over the same phases
        (:data:`FLUID_PHASE`), the two ranges overlap or their nearer ends are within the
        tolerance (the engines' rounds fall differently against the change, so a phase of
        one is not the same phase of the other: their ranges are compared). Against the
        document: the packet column, when the document's value is inside that range or
        within the tolerance of its nearer end (the document's run is one phase too, at a
        phase it does not give)."""
        rng = self.phase_range
        ref = self.values[self.reference]
        fluid = {c: self.fluid_phase_range(c) for c in FLUID_PHASE}
        if not _is_num(ref) or (rng is None and not any(fluid.values())):
            return ()
        r = float(ref)  # type: ignore[arg-type]
        out = []
        for c in self.compared:
            v, tol = float(self.values[c]), self.tolerance(c)  # type: ignore[arg-type]
            if tol.passes(v, r):
                continue
            if self.reference == PACKET and c in (ROUNDS, ODE):
                if _ranges_meet(tol, fluid[c] or (v, v), self._packet_range()):
                    out.append(c)
            elif self.reference == DOCUMENT and c == PACKET and rng is not None:
                near = min(max(r, rng[0]), rng[1])  # the range's point nearest the document
                if tol.passes(near, r):
                    out.append(c)
        return tuple(out)

    @property
    def agree_with_packets(self) -> tuple[str, ...]:
        """Fluid columns of a row judged against a document or a closed form that fall
        outside their tolerance of that reference (and of its phase spread) but within it of
        the packet simulator's cell, or of the nearest point of the packets' range over the
        phase when the row holds one. The packet simulator is the fluid layers' referee and
        the reference is the packet simulator's: such a fluid cell agrees with its referee,
        and the packet cell is judged against the reference as before (a row whose packet
        cell differs from the reference still DIFFERS)."""
        if self.reference not in (DOCUMENT, CLOSED_FORM) or PACKET not in self.compared:
            return ()
        ref = self.values[self.reference]
        if not _is_num(ref):
            return ()
        spread = self.within_phase_spread
        out = []
        for c in (ROUNDS, ODE):
            if c not in self.compared or c in spread:
                continue
            v, tol = float(self.values[c]), self.tolerance(c)  # type: ignore[arg-type]
            if tol.passes(v, float(ref)):  # type: ignore[arg-type]
                continue
            if _ranges_meet(tol, self.fluid_phase_range(c) or (v, v), self._packet_range()):
                out.append(c)
        return tuple(out)

    def _packet_range(self) -> tuple[float, float]:
        """The packet cell's value, widened to the packets' range over the phase when the
        row holds one."""
        p = float(self.values[PACKET])  # type: ignore[arg-type]
        lo, hi = self.values.get(PHASE_MIN), self.values.get(PHASE_MAX)
        if _is_num(lo) and _is_num(hi):
            return min(float(lo), p), max(float(hi), p)  # type: ignore[arg-type]
        return p, p

    @property
    def failures(self) -> tuple[str, ...]:
        """Compared columns outside their tolerance (and, for a column that the packets'
        phase range judges, outside that range and its ends' tolerance; for a fluid column of
        a document- or closed-form-referenced row, also outside its tolerance of the packet
        simulator: :attr:`agree_with_packets`)."""
        ref = self.values[self.reference]
        if not _is_num(ref):
            return ()
        spread = self.within_phase_spread + self.agree_with_packets
        return tuple(
            c
            for c in self.compared
            if c not in spread and not self.tolerance(c).passes(float(self.values[c]), float(ref))  # type: ignore[arg-type]
        )

    def _phase_note(self) -> str:
        spread = self.within_phase_spread
        rng = self.phase_range
        notes = []
        if spread:
            r = self.values[self.reference]
            lo, hi = rng if rng is not None else (r, r)
            ranges = "".join(
                f"; {c} over the phase [{number(f[0])}, {number(f[1])}]"
                for c in spread
                if (f := self.fluid_phase_range(c)) is not None
            )
            notes.append(
                f"{' and '.join(spread)} within the packets' phase spread "
                f"[{number(float(lo))}, {number(float(hi))}]{ranges}"  # type: ignore[arg-type]
            )
        referee = self.agree_with_packets
        if referee:
            notes.append(
                f"{' and '.join(referee)} within tolerance of the packet simulator, "
                "the fluid layers' referee"
            )
        return "; ".join(notes)

    @property
    def verdict(self) -> str:
        """``agree``, ``DIFFERS: <col> (<reason>)...`` or ``no comparison (...)``."""
        ref = self.values[self.reference]
        if not _is_num(ref):
            return f"no comparison (reference {self.reference} n/a)"
        if not self.compared:
            return "no comparison (one value only)"
        bad = self.failures
        note = self._phase_note()
        if not bad:
            return f"agree ({note})" if note else "agree"
        items = []
        for c in bad:
            err = self.relative_error(c)
            e = f" {err * 100:+.0f} %" if err is not None else ""
            items.append(f"{c}{e} ({self.reasons.get(c, 'reason unknown')})")
        return "DIFFERS: " + "; ".join(items) + (f"; {note}" if note else "")

    @property
    def ok(self) -> bool:
        """True when no compared column is outside its tolerance."""
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: values (numbers or ``{"na": reason}``), errors, tolerances, verdict."""
        return {
            "setting": self.setting,
            "quantity": self.quantity,
            "unit": self.unit,
            "values": {
                c: (v.to_dict() if isinstance(v, NA) else float(v)) for c, v in self.values.items()
            },
            "reference": self.reference,
            "relative_errors": {c: self.relative_error(c) for c in self.compared},
            "tolerances": {c: self.tolerance(c).to_dict() for c in self.compared},
            "verdict": self.verdict,
            "ok": self.ok,
            "packet_phase_range": list(self.phase_range) if self.phase_range else None,
            "within_phase_spread": list(self.within_phase_spread),
            "agree_with_packets": list(self.agree_with_packets),
            "fluid_phase_ranges": {
                c: list(f) for c in FLUID_PHASE if (f := self.fluid_phase_range(c)) is not None
            },
        }


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

    def tolerance_notes(self) -> list[str]:
        """Distinct ``"<columns>: <tolerance> — <reason>"`` statements of the table."""
        seen: dict[tuple[str, str], list[str]] = {}
        for r in self.rows:
            for c in r.compared:
                t = r.tolerance(c)
                # a tolerance that differs per row only by a measured size (a number of
                # the flow's rounds) is stated once, by its rule (``rule()``)
                rule = getattr(t, "rule", None)
                key = (rule() if callable(rule) else t.describe(), t.reason)
                cols = seen.setdefault(key, [])
                if c not in cols:
                    cols.append(c)
        return [f"{', '.join(cols)}: {d} — {why}" for (d, why), cols in seen.items()]

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


def fmt_value(v: Value | None, unit: str = "") -> str:
    """A cell: ``n/a``, or the number with 3–4 significant digits
    (:func:`tcpfluid._text.number`)."""
    if v is None or isinstance(v, NA):
        return "n/a"
    return number(float(v))


def rows_from(items: Sequence[Row]) -> tuple[Row, ...]:
    """A tuple of rows (type helper)."""
    return tuple(items)


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
