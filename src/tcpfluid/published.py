"""Numbers printed in the source documents, with where they come from.

Tests, ``tcpfluid predict --documents`` and the validation report compare tcpfluid against
these values. Each entry says which document, where, what quantity, its unit, and whether
the document obtained it by analysis (a closed form) or by ns-2 simulation.

Value keys and ``document`` fields name the documents by short key (000 the Quick Vegas
paper ... 004 the TCP-Ho paper: docs/analytic.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import Literal

from ._json import FieldsDict

__all__ = ["PUBLISHED", "THESIS_TABLE_3_16", "PublishedValue", "published"]


@dataclass(frozen=True)
class PublishedValue(FieldsDict):
    """One printed number.

    Its stable key ``"<doc>/<place>/<quantity>"``, the document
    (``"000"`` .. ``"004"``), where it is printed (section, figure, table or example), what
    it measures (``ss_exit_window``, ...), the algorithm's registry name, the number as
    printed, its unit (``"pkts"``, ``"s"``, ...) and how the document obtained it
    (``"analysis"``, a closed form, or ``"simulation"``, ns-2)."""

    key: str
    document: str
    where: str
    quantity: str
    algorithm: str
    value: float
    unit: str
    method: Literal["analysis", "simulation"]


def _v(
    key: str, where: str, quantity: str, algorithm: str, value: str, unit: str, method: str
) -> PublishedValue:
    number = int(value) if value.lstrip("-").isdigit() else float(value)  # 64 stays an int
    doc = key.split("/", 1)[0]
    return PublishedValue(key, doc, where, quantity, algorithm, number, unit, method)  # type: ignore[arg-type]


#: the entries, in print order: ``published.txt`` beside this module, one a line
PUBLISHED: tuple[PublishedValue, ...] = tuple(
    _v(*(f.strip() for f in line.split("|")))
    for line in resources.files(__package__)
    .joinpath("published.txt")
    .read_text("utf-8")
    .split("\n")
    if line and not line.startswith("#")
)


def published(key: str) -> PublishedValue:
    """The entry with ``key`` (ValueError listing close keys when unknown)."""
    for v in PUBLISHED:
        if v.key == key:
            return v
    prefix = key.split("/", 1)[0]
    near = [v.key for v in PUBLISHED if v.key.startswith(prefix)]
    raise ValueError(f"unknown published value {key!r}; keys starting with {prefix!r}: {near}")


def _thesis_table_3_16() -> dict[int, dict[str, float]]:
    """Tsang's thesis Table 3.16 from its ``001/table3.16/<setting>/x2_<ms>`` entries, in print
    order."""
    out: dict[int, dict[str, float]] = {}
    for v in PUBLISHED:
        if v.key.startswith("001/table3.16/"):
            setting, x2 = v.key.split("/")[2:]
            out.setdefault(int(x2.removeprefix("x2_")), {})[setting] = float(v.value)
    return out


#: Tsang's thesis, ch. 3 §4.3 Table 3.16 (connection 1 starts first): Jain's index by x2 (ms)
#: for Vegas-1, Vegas-2, Vegas-3 (Enhanced Vegas δ = 1, 2, 3) and Vegas-1_3 (α = 1, β = 3);
#: the ``001/table3.16/...`` entries of :data:`PUBLISHED` as a mapping x2 -> setting -> index.
THESIS_TABLE_3_16: dict[int, dict[str, float]] = _thesis_table_3_16()
