"""Section ``itcp-tables``: the iTCP-Vegas paper's Table 1 (iTCP-Vegas against Vegas, 622 Mb/s ×
110 ms), Table 2 (155 Mb/s, RTT 240-840 ms) and its comparison with Quick Vegas (Fig. 7).
iTCP-Vegas is the library's reading of the paper, fitted to these tables (the section's
intro in ``prose.toml``; docs/algorithms.md, "itcp-vegas — an interpretation").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np

from .. import plot
from ..engines import simulate
from ..scenarios import build_scenario
from ._common import (
    COLUMN,
    ENGINES,
    NO_FIGURE_VALUES,
    case_tasks,
    delivered_pkts,
    doc,
    engine_runs_cells,
    per_case,
    run_value,
    section_result,
)
from ._core import Figure, ReportConfig, SectionResult, SectionSpec, Task, prose
from ._figures import render
from ._table import ALGORITHM_NAMES, DOCUMENT, NA, PACKET, Row, Value

_SCENARIO = "itcp-long-delay"
#: Table 2's RTTs, ms (errata N4: the table's values are RTTs, as its header says)
_TABLE2_RTTS_MS = (240, 440, 640, 840)
_NO_CLOSED_FORM = NA("the iTCP-Vegas paper gives no closed form for this quantity")


def itcp_run(algorithm: str, engine: str, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """One run of ``itcp-long-delay`` with ``overrides``: the flow's average goodput (Mb/s),
    the first time its window reaches μd (s; NaN: never) and its running average goodput
    at each second (Mb/s). ``{"error": message}`` when the engine refuses."""
    sc = build_scenario(_SCENARIO, **dict(overrides)).with_algorithm(algorithm)
    try:
        res = simulate(sc, engine)
    except (ValueError, RuntimeError) as exc:
        return {"error": str(exc)}
    t = np.asarray(res.time_s, dtype=np.float64)
    dl = delivered_pkts(res)[0]
    bits = 8.0 * sc.packet_size_bytes
    end = sc.duration_s
    if res.rounds:  # the window each round's decision saw (the packet simulator's log)
        wt, w = np.asarray(res.rounds[0].time_s), np.asarray(res.rounds[0].window_pkts)
    else:
        wt, w = t, np.asarray(res.window_pkts, dtype=np.float64)[0]
    bdp = float(sc.fluid_view().path.bdp)
    full = np.flatnonzero(w >= bdp)
    secs = np.arange(1.0, math.floor(end) + 1.0)
    return {
        "mbps": float(np.interp(end, t, dl)) * bits / end / 1e6,
        "reach_s": float(wt[full[0]]) if full.size else math.nan,
        "bdp_pkts": bdp,
        "avg_t_s": secs.tolist(),
        "avg_mbps": (np.interp(secs, t, dl) * bits / secs / 1e6).tolist(),
    }


def _cases(cfg: ReportConfig) -> list[tuple[str, str, dict[str, Any]]]:
    """(what, algorithm, overrides) of each case, in task order (quick: fewer cases)."""
    out: list[tuple[str, str, dict[str, Any]]] = [
        ("table1", "itcp-vegas", {}),
        ("table1", "vegas", {}),
    ]
    rtts = (240, 840) if cfg.quick else _TABLE2_RTTS_MS
    for rtt in rtts:
        o = {"bandwidth": "155Mbps", "rtt": f"{rtt}ms", "duration": "200s"}
        out.append((f"table2/rtt{rtt}", "itcp-vegas", o))
    if not cfg.quick:
        out.append(("fig7", "quick-vegas", {}))
    return out


def _tasks(cfg: ReportConfig) -> list[Task]:
    return case_tasks(
        "tcpfluid.report._sec_itcp_tables:itcp_run",
        _cases(cfg),
        lambda c: {"algorithm": c[1], "overrides": c[2]},
        lambda c, e: f"iTCP-Vegas paper {c[0]}: {e} {c[1]}",
    )


def _cells(
    runs: Mapping[str, Mapping[str, Any]], key: str, reason: str, document: Value
) -> dict[str, Value]:
    return engine_runs_cells(
        _NO_CLOSED_FORM, runs, partial(run_value, path=(key,), reason=reason), document
    )


_NEVER_FULL = "the window never reaches μd in the run"


def _rows(what: str, alg: str, runs: Mapping[str, Mapping[str, Any]]) -> list[Row]:
    name = ALGORITHM_NAMES[alg]
    case = {"case": what, "algorithm": alg}
    reach = "time to reach the bandwidth limitation (window ≥ μd)"
    if what == "table1":
        v = _cells(runs, "mbps", "no result", doc(f"002/table1/{alg}"))
        setting = f"{name}, 622 Mb/s × 110 ms (RTT 260 ms)"
        return [
            Row(
                setting, "average throughput in 100 s", "Mb/s", "throughput", v, DOCUMENT, case=case
            )
        ]
    if what.startswith("table2"):  # judged against the document
        secs, ref = 200, DOCUMENT
        docs: tuple[Value, Value] = (
            doc(f"002/{what}/throughput"),
            doc(f"002/{what}/time_to_limit"),
        )
        setting = f"{name}, 155 Mb/s, RTT {what.split('rtt')[1]} ms"
    else:  # Fig. 7: plotted only; the layers are compared with the packet simulator
        secs, ref, docs = 100, PACKET, (NO_FIGURE_VALUES, NO_FIGURE_VALUES)
        setting = f"{name}, 622 Mb/s × 110 ms (RTT 260 ms), Fig. 7"
    v = _cells(runs, "mbps", "no result", docs[0])
    tv = _cells(runs, "reach_s", _NEVER_FULL, docs[1])
    q = f"average throughput in {secs} s"
    return [
        Row(setting, q, "Mb/s", "throughput", v, ref, case=case),
        Row(setting, reach, "s", "time", tv, ref, case=case),
    ]


def _figure(res: Mapping[tuple[str, str], Mapping[str, Mapping[str, Any]]]) -> Figure:
    """Running average throughput against time on the 622 Mb/s path (the paper's Fig. 7)."""
    fig, ax = plot.new_axes()
    laws = [(w, a) for (w, a) in res if w in ("table1", "fig7")]
    styles = {"packet": "-", "rounds": "--", "ode": ":"}
    for i, (w, a) in enumerate(laws):
        for e in ENGINES:
            r = res[(w, a)][e]
            if "error" in r:
                continue
            plot.versus(
                r["avg_t_s"], r["avg_mbps"], ax=ax, label=f"{ALGORITHM_NAMES[a]} {COLUMN[e]}",
                color=f"C{i}", linestyle=styles[e],
            )  # fmt: skip
    cap = prose("itcp-tables", "figure")
    return render(
        fig, ax, "itcp_average_throughput", cap, xlabel="time (s)",
        ylabel="average throughput since 0 s (Mb/s)", title="622 Mb/s × 110 ms, one flow",
        fontsize=6,
    )  # fmt: skip


def _assemble(cfg: ReportConfig, out: list[Any]) -> SectionResult:
    res = {(what, a): r for (what, a, _o), r in zip(_cases(cfg), per_case(out), strict=True)}
    groups: dict[str, list[Row]] = {"table1": [], "table2": [], "fig7": []}
    for (what, a), runs in res.items():
        groups[what.split("/")[0]] += _rows(what, a, runs)
    tables = [groups["table1"], groups["table2"], groups["fig7"] or None]
    return section_result("itcp-tables", cfg, tables, (_figure(res),))


ITCP_TABLES = SectionSpec("itcp-tables", "iTCP-Vegas paper Tables 1-2", _tasks, _assemble)
