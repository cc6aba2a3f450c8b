"""The sections of the validation report, in order, and :func:`build_report`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from ._core import Report, ReportConfig, SectionSpec, run_sections
from ._sec_analytic import CONSPICUOUS, CRITICAL_WINDOW, NEW_EQUILIBRIUM
from ._sec_convergence import CONVERGENCE_BDP
from ._sec_dynamics import BASIC, MANY_FLOWS
from ._sec_fairness import ASYMMETRIC, THESIS_FAIRNESS
from ._sec_tcp_ho_tables import HO_FAIRNESS, HO_FRIENDLINESS, ITCP_TABLES
from ._sec_thesis_many import THESIS_MANY_FLOWS
from ._sec_thesis_tables import THESIS_DELAYED_ACK, THESIS_RENO, THESIS_VEGAS_DELTA

__all__ = ["SECTIONS", "build_report", "resolve_sections"]

#: section name -> spec, in report order
SECTIONS: dict[str, SectionSpec] = {
    s.name: s
    for s in (
        CRITICAL_WINDOW,
        NEW_EQUILIBRIUM,
        CONSPICUOUS,
        BASIC,
        CONVERGENCE_BDP,
        MANY_FLOWS,
        THESIS_FAIRNESS,
        THESIS_VEGAS_DELTA,
        THESIS_RENO,
        THESIS_MANY_FLOWS,
        THESIS_DELAYED_ACK,
        ASYMMETRIC,
        HO_FAIRNESS,
        HO_FRIENDLINESS,
        ITCP_TABLES,
    )
}


def resolve_sections(names: Sequence[str] | str | None) -> list[SectionSpec]:
    """Specs for ``names`` (a list or a comma-separated string; ``None``: all), in report
    order; raises ValueError naming an unknown section and listing the valid ones."""
    if names is None:
        return list(SECTIONS.values())
    items = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    items = [n for n in items if n]
    if not items:
        raise ValueError(f"sections must name at least one of: {', '.join(SECTIONS)}")
    unknown = [n for n in items if n not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown section {unknown[0]!r}; valid sections: {', '.join(SECTIONS)}")
    return [s for name, s in SECTIONS.items() if name in items]


def build_report(
    sections: Sequence[str] | str | None = None,
    *,
    quick: bool = False,
    jobs: int = 1,
    progress: bool = False,
    stream: TextIO | None = None,
) -> Report:
    """Run the chosen sections and return the :class:`Report` (nothing is written).

    Parameters
    ----------
    sections
        Section names (``None``: all of :data:`SECTIONS`).
    quick
        CI settings: smaller grids and scaled-down scenarios.
    jobs
        Worker processes (results do not depend on it).
    progress
        Show a progress bar on ``stream`` (stderr by default).
    """
    specs = resolve_sections(sections)
    cfg = ReportConfig(quick=quick, jobs=jobs)
    return run_sections(specs, cfg, progress=progress, stream=stream)
