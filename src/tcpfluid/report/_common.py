"""Helpers shared by the report sections."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..published import published
from ..scenarios import build_scenario
from ._core import Figure, ReportConfig, SectionResult, SectionSpec, Task, prose, texts
from ._table import (
    CLOSED_FORM,
    DOCUMENT,
    NA,
    ODE,
    PACKET,
    PHASE_MAX,
    PHASE_MIN,
    ROUNDS,
    Row,
    Table,
    Value,
)

#: packet size of the documents' scenarios, bits (1000-byte packets)
PACKET_BITS = 8000.0

#: the module of the engine runs the sections' tasks call (importable in a worker process)
RUNS = "tcpfluid.report._runs"
#: the engines a case runs on, in the order of its tasks
ENGINES = ("packet", "rounds", "ode")
#: the engine name of a case whose one task runs every engine
ALL = "all"
#: engine -> its column
COLUMN = {"packet": PACKET, "rounds": ROUNDS, "ode": ODE}
#: engine -> its name in the tasks' labels
LABEL = {"packet": "packet", "rounds": "round model", "ode": "ODE"}
#: engine -> the style of its traces in the figures
STYLE: dict[str, dict[str, Any]] = {
    "packet": {"color": "C0"},
    "rounds": {"color": "C1", "linestyle": "--"},
    "ode": {"color": "C2", "linestyle": ":"},
}


NO_FIGURE_VALUES = NA("the document gives this only as a plot, with no printed values")


#: rounds after a rise of the available bandwidth before a Quick Vegas sender's estimation
#: shows it (§3.2.2: "detected at the (i + 2)th round"): eq. (12) counts from there, an
#: engine from the change, so the closed form of the engines' count is ⌈i⌉ + 2
QV_DETECTION_LAG_ROUNDS = 2
#: a settling row's closed-form cell where eq. (12) counts another quantity
QV_REACH_NOT_SETTLING = NA(prose("basic", "qv_reach_not_settling"))

#: the documents' parameters of each law (the Quick Vegas paper §5; FAST's α as in the
#: TCP-Ho paper's §5 footnote): a closed form in a reference cell takes them from here,
#: never from a law's default (docs/report.md, "The rule")
DOCUMENT_PARAMS: dict[str, dict[str, float]] = {
    "vegas": {"alpha": 2.0, "beta": 4.0, "gamma": 1.0},
    "quick-vegas": {"alpha": 2.0, "beta": 4.0, "gamma": 1.0},
    "fast": {"alpha": 100.0},
    "tcp-ho": {},
}


def matched_overrides(
    scenario: str, overrides: Mapping[str, Any], *, bdp_pkts: float, d_s: float
) -> dict[str, Any]:
    """Overrides of a dumbbell scenario such that its base RTT by eq. (5) of the Quick Vegas
    paper is exactly ``d_s`` and its μd is ``bdp_pkts``."""
    bw = bdp_pkts / d_s * PACKET_BITS
    o = {**dict(overrides), "bandwidth": f"{float(bw)!r}bps", "rtt": d_s}
    v = build_scenario(scenario, **o).fluid_view()
    o["rtt"] = d_s - (v.path.d - d_s)
    return o


def doc(key: str) -> float:
    """A printed value of :mod:`tcpfluid.published`."""
    return float(published(key).value)


def num(x: Any, reason: str) -> float | NA:
    """``x`` as a float, or a failed :class:`NA` with ``reason`` when it is None/NaN/inf
    (a value the run should have given: it never reached the quantity or computed none)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return NA(reason, failed=True)
    return v if math.isfinite(v) else NA(reason, failed=True)


def phase_range(values: Sequence[float | NA]) -> tuple[float | NA, float | NA]:
    """The packet column's [min, max] over the runs across the change's phase (the nominal
    run and the phase runs); ``n/a`` when one of them has no value."""
    bad = [v for v in values if isinstance(v, NA)]
    if bad:
        na = NA(f"a run over the phase has no value: {bad[0].reason}")
        return na, na
    nums = [float(v) for v in values]  # type: ignore[arg-type]
    return min(nums), max(nums)


def failure(message: str) -> dict[str, Any]:
    """A task's result when its run failed (not a refusal): ``{"error": message, "failed":
    True}``, whose cells are failed values that differ (:func:`err_na`)."""
    return {"error": message, "failed": True}


def err_na(result: Mapping[str, Any], fallback: str) -> NA:
    """``n/a`` from a task's error message, else ``fallback``: a failed value when the run
    failed (``result["failed"]``, :func:`failure`), else the engine's refusal of a
    configuration it does not model (a ``ValueError``), which is no value of that layer."""
    e = result.get("error") if isinstance(result, Mapping) else None
    if not e:
        return NA(fallback)
    return NA(str(e), failed=True) if result.get("failed") else NA(f"engine refused: {e}")


def engine_cells(
    closed: Value, rounds: Value, ode: Value, packet: Value, document: Value
) -> dict[str, Value]:
    """A row's five standard cells, in display order (:data:`._table.ENGINE_COLUMNS`)."""
    return {CLOSED_FORM: closed, ROUNDS: rounds, ODE: ode, PACKET: packet, DOCUMENT: document}


def column_series(rows: Sequence[Row], column: str) -> list[float]:
    """The cells of ``column`` across ``rows`` as a figure's curve: NaN where a row's cell
    is ``n/a`` or missing."""
    cells = (r.values.get(column) for r in rows)
    return [math.nan if v is None or isinstance(v, NA) else float(v) for v in cells]


def run_value(
    result: Mapping[str, Any] | None,
    path: Sequence[str | int],
    reason: str,
    fallback: str = "no result",
) -> float | NA:
    """A task's value ``result[path[0]][path[1]]...`` as a cell by :func:`num`; ``n/a``
    with the engine's error (else ``fallback``) when the run failed or is missing."""
    if result is None or "error" in result:
        return err_na(result or {}, fallback)
    v: Any = result
    for key in path:
        v = v[key]
    return num(v, reason)


def run_task(
    engine: str,
    scenario: str,
    algorithm: str,
    overrides: Mapping[str, Any],
    label: str,
    **options: Any,
) -> Task:
    """A task running ``scenario`` with ``algorithm`` on ``engine`` through
    :mod:`tcpfluid.report._runs` (``options``: the run function's other keywords)."""
    kwargs = {"scenario": scenario, "algorithm": algorithm, "overrides": overrides, **options}
    return Task(f"{RUNS}:{engine}_run", kwargs, label)


#: a case's runs: engine -> its task's result
Runs = dict[Any, Any]


@dataclass(frozen=True)
class CaseSection:
    """A section declared as its cases: each case of ``cases(cfg)`` runs as one task per
    engine of ``engines(case)`` (``task(cfg, case, engine)``), and ``rows(case, runs)``
    turns its runs ({engine: result}) into ``(table, row)`` pairs; the tables come in the
    order of ``tables`` (an empty one left out), captioned by ``prose.toml``. ``figures(cfg,
    [(case, runs)], rows by table)`` draws the figures, ``fields(cfg)`` fills the texts."""

    name: str
    title: str
    cases: Callable[[ReportConfig], Sequence[Any]]
    task: Callable[[ReportConfig, Any, Any], Task]
    rows: Callable[[Any, Runs], Iterable[tuple[str, Row]]]
    tables: tuple[str, ...] = ("",)
    figures: Callable[
        [ReportConfig, list[tuple[Any, Runs]], dict[str, list[Row]]], Sequence[Figure]
    ] = lambda cfg, runs, tables: ()
    fields: Callable[[ReportConfig], Mapping[str, Any]] = lambda cfg: {}
    engines: Callable[[Any], Sequence[Any]] = lambda case: ENGINES
    #: a table's caption from its key (``None``: the section's ``tables`` in ``prose.toml``)
    caption: Callable[[str], str] | None = None
    #: the section's notes from its runs
    notes: Callable[[list[tuple[Any, Runs]]], Sequence[str]] = lambda runs: ()

    def run_tasks(self, cfg: ReportConfig) -> list[Task]:
        """One task per case and engine, in that order."""
        return [self.task(cfg, c, e) for c in self.cases(cfg) for e in self.engines(c)]

    def assemble(self, cfg: ReportConfig, out: list[Any]) -> SectionResult:
        """The section's tables and figures from its tasks' results ``out``."""
        cases = self.cases(cfg)
        n = sum(len(self.engines(c)) for c in cases)
        if len(out) != n:
            raise ValueError(f"section {self.name}: {len(out)} results for its {n} tasks")
        it = iter(out)
        runs = [(c, {e: next(it) for e in self.engines(c)}) for c in cases]
        tables: dict[str, list[Row]] = {t: [] for t in self.tables}
        for c, r in runs:
            for t, row in self.rows(c, r):
                tables[t].append(row)
        # the texts of prose.toml: title, intro (in quick mode with its quick-mode sentence),
        # the tables' captions by their places (unless ``caption``), comparisons
        text, fields = texts(self.name), self.fields(cfg)
        intro = prose(self.name, "intro", **fields)
        if cfg.quick and "intro_quick" in text:
            intro += prose(self.name, "intro_quick", **fields)
        given = tuple(
            Table(self.caption(k) if self.caption else text["tables"][i], tuple(t))
            for i, (k, t) in enumerate(tables.items())
            if t
        )
        figs, notes = tuple(self.figures(cfg, runs, tables)), tuple(self.notes(runs))
        comparisons = tuple(text.get("comparisons", ()))
        return SectionResult(
            self.name, text["title"], intro, given, figs, notes, comparisons=comparisons
        )

    @property
    def spec(self) -> SectionSpec:
        """The section as the report runs it."""
        return SectionSpec(self.name, self.title, self.run_tasks, self.assemble)


def engine_results(runs: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """``(engine, result)`` of each engine of :data:`ENGINES` whose run gave a result."""
    return ((e, r) for e in ENGINES if (r := runs.get(e)) is not None and "error" not in r)


def engine_runs_cells(
    closed: Value, runs: Mapping[str, Any], cell: Callable[[Any], Value], document: Value
) -> dict[str, Value]:
    """A row's cells: ``closed``, then each engine's ``cell(runs.get(engine))`` (``None``: the
    engine did not run) in :data:`ENGINES` order, then ``document``."""
    cells = {COLUMN[e]: cell(runs.get(e)) for e in ENGINES}
    return {CLOSED_FORM: closed, **cells, DOCUMENT: document}


def run_cells(
    closed: Value, runs: Mapping[str, Any], path: Sequence[str | int], document: Value,
    fn: Callable[[float], float] | None = None, *, reason: str = "no result",
    fallback: str = "no result", skipped: Value | None = None,
) -> dict[str, Value]:  # fmt: skip
    """:func:`engine_runs_cells` of each engine's value at ``path`` of its run (:func:`run_value`
    with ``reason`` and ``fallback``; ``fn`` of it), ``skipped`` where the engine did not run."""

    def cell(r: Mapping[str, Any] | None) -> Value:
        v = skipped if r is None and skipped is not None else run_value(r, path, reason, fallback)
        return v if fn is None else map_value(v, fn)

    return engine_runs_cells(closed, runs, cell, document)


def map_value(v: Value, fn: Callable[[float], float]) -> Value:
    """``fn`` of a number cell; an ``n/a`` cell as it is."""
    return v if isinstance(v, NA) else fn(float(v))


def delivered_between(
    t: ArrayLike, delivered: ArrayLike, start_s: float, end_s: float
) -> NDArray[np.float64]:
    """Each flow's packets delivered from ``start_s`` to ``end_s``: its cumulative count
    ``delivered`` (a row per flow, sampled at ``t``) read at both ends (linear between
    samples)."""
    ta = np.asarray(t, dtype=np.float64)
    dl = np.asarray(delivered, dtype=np.float64)
    return np.array([np.interp(end_s, ta, row) - np.interp(start_s, ta, row) for row in dl])


def mean_rate_since(t: ArrayLike, delivered: ArrayLike, start_s: float) -> NDArray[np.float64]:
    """Each flow's mean delivery rate from ``start_s`` to the end of the run: its
    delivered packets ``delivered`` (a row per flow, sampled at ``t``) over that span."""
    end_s = float(np.asarray(t, dtype=np.float64)[-1])
    return delivered_between(t, delivered, start_s, end_s) / (end_s - start_s)


def smaller_share(jain: float) -> float:
    """The smaller of two flows' shares of their summed throughput, from their Jain's
    index J (eq. (13) of the Quick Vegas paper): with shares s and 1 − s,
    J = 1/(2(s² + (1 − s)²)), so s = (1 − √(1/J − 1))/2 for s ≤ 1/2 (derived in SymPy by
    tests/report/test_shares.py). Raises ValueError outside J in [1/2, 1]."""
    j = float(jain)
    if not 0.5 - 1e-12 <= j <= 1.0 + 1e-12:
        raise ValueError(f"jain must be in [0.5, 1] for two flows, got {jain!r}")
    return (1.0 - math.sqrt(max(1.0 / j - 1.0, 0.0))) / 2.0


def share_spread(jain: float) -> float:
    """The coefficient of variation (std/mean) of n flows' throughputs from their Jain's
    index: J = 1/(1 + CV²), so CV = √(1/J − 1) (derived in SymPy by
    tests/report/test_shares.py). Raises ValueError outside J in (0, 1]."""
    j = float(jain)
    if not 0.0 < j <= 1.0 + 1e-12:
        raise ValueError(f"jain must be in (0, 1], got {jain!r}")
    return math.sqrt(max(1.0 / j - 1.0, 0.0))


#: the quantity of a two-flow fairness row over the thesis's 10–60 s
TWO_FLOW_SHARE = "smaller flow's share of the two goodputs, 10–60 s"


def share_row(
    setting: str,
    quantity: str,
    jains: Mapping[str, Any],
    reference: str,
    *,
    two_flows: bool,
    informative: Sequence[str] = (),
    case: Mapping[str, Any],
) -> Row:
    """A fairness row from the cells' Jain's indices ``jains``, judged on the flows' shares:
    every numeric cell becomes two flows' smaller share (:func:`smaller_share`, kind
    ``share``) or the flows' share spread (:func:`share_spread`, kind ``share spread``);
    the indices are kept beside as informative columns ``"Jain's index, <column>"``. A phase
    range stays a [min, max] range."""
    fn = smaller_share if two_flows else share_spread
    out = {c: v if isinstance(v, NA) else fn(float(v)) for c, v in jains.items()}
    beside = {f"Jain's index, {c}": float(v) for c, v in jains.items() if not isinstance(v, NA)}
    lo, hi = out.get(PHASE_MIN), out.get(PHASE_MAX)
    if isinstance(lo, float) and isinstance(hi, float) and lo > hi:
        out[PHASE_MIN], out[PHASE_MAX] = hi, lo
    kind, info = ("share" if two_flows else "share spread"), (*informative, *beside)
    return Row(setting, quantity, "", kind, {**out, **beside}, reference, info, case)
