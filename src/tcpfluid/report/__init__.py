"""The validation report: closed forms vs round model vs ODE vs packet simulator vs the
documents (``tcpfluid report``).

Each section runs the documents' scenarios on every layer that supports them and shows a
table (columns closed form / round model / ODE / packet simulator / document, relative
errors against a reference column, and a verdict against a stated tolerance) and figures
that correspond to the documents' figures. Every number is computed at run time; an
engine that cannot run a case shows ``n/a`` with the reason.

>>> from tcpfluid.report import SECTIONS
>>> list(SECTIONS)[:2]
['critical-window', 'new-equilibrium']
"""

from __future__ import annotations

from ._core import Figure, Report, ReportConfig, SectionResult, SectionSpec, Task
from ._table import NA, TOLERANCES, Row, Table, Tolerance
from ._writer import render_html, render_markdown, write_report
from .sections import SECTIONS, build_report, resolve_sections

__all__ = [
    "NA",
    "SECTIONS",
    "TOLERANCES",
    "Figure",
    "Report",
    "ReportConfig",
    "Row",
    "SectionResult",
    "SectionSpec",
    "Table",
    "Task",
    "Tolerance",
    "build_report",
    "render_html",
    "render_markdown",
    "resolve_sections",
    "write_report",
]
