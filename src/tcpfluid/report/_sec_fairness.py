"""Sections ``thesis-fairness`` (Tsang's thesis, Table 3.16: two flows over x2) and
``asymmetric`` (the asymmetric-networks paper's Tables I-III: ACK-path bottleneck)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from .. import plot
from ..analytic import blb_equilibrium, blb_train_equilibrium, jain_index, reverse_path_throughput
from ..engines import ENGINES as MODELS
from ..fairness import _THESIS_SETTINGS as _SETTINGS  # the thesis's Vegas settings
from ..fairness import train_fraction
from ..published import THESIS_TABLE_3_16
from ..results import Result
from ..scenarios import Scenario, build_scenario
from ._common import (
    ALL,
    TWO_FLOW_SHARE,
    CaseSection,
    Runs,
    column_series,
    doc,
    engine_cells,
    err_na,
    mean_rate_since,
    num,
    phase_range,
    run_task,
    run_value,
    share_row,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_columns, render
from ._runs import checked_simulate
from ._sec_analytic import _NAMES
from ._table import DOCUMENT, NA, ODE, PACKET, PHASE_MAX, PHASE_MIN, ROUNDS, Row, Value
from ._thesis_ns2 import ns2_fast_recovery, ns2_initial_window, ns2_packet_options

# ============================================================ thesis two-flow (Table 3.16)
#: informative column: the Boutremans–Le Boudec equilibrium without the train (f = 1)
_ONE_DELAY = "one queueing delay (f = 1)"

#: connection 1's minimum round trip on the thesis network (s), as the thesis gives it
#: (ch. 3 §1: 6 ms of propagation and the packets' transmission times, "0.013211s")
THESIS_RTT1_S = 0.013211

#: connection 2's start offsets (s) of the extra packet runs of every thesis row: k/4 of
#: connection 1's minimum round trip, k = 1..3, the nominal run k = 0 (the thesis gives no
#: time: the section's intro in ``prose.toml``); shown, never judged
THESIS_START_OFFSETS_S: tuple[float, ...] = tuple(k * THESIS_RTT1_S / 4.0 for k in range(1, 4))


def _th_grid(cfg: ReportConfig) -> list[int]:
    return [10, 50, 90] if cfg.quick else sorted(THESIS_TABLE_3_16)


def thesis_run(x2_ms: int, setting: str, start_offsets_s: Sequence[float] = ()) -> dict[str, Any]:
    """Document 001 Table 3.16 point: packet, round-model and ODE Jain's index over 10–60 s,
    and the Boutremans–Le Boudec prediction with the packet run's measured BaseRTT
    errors, alone and with the long flow's measured train fraction; for each of
    ``start_offsets_s`` (in [0, 10) s), one more packet run with connection 2 starting that
    much later (``"packet_offset_jain"``). A run that gave no result leaves, in place of
    its values, :func:`._runs.checked_simulate`'s error under ``"packet_error"``,
    ``"rounds_error"`` or ``"ode_error"`` (an offset run: in place of its index)."""
    offsets = [float(o) for o in start_offsets_s]
    for o in offsets:
        if not (math.isfinite(o) and 0.0 <= o < 10.0):
            raise ValueError(
                f"start_offsets_s must hold offsets in [0, 10) s (connection 2 starts before "
                f"the 10-60 s measurement window), got {o!r}"
            )
    alg, params = _SETTINGS[setting]
    kw = {"x2": f"{x2_ms}ms", "queue": "red", "duration": "60s", **params}
    # the thesis's ns-2 agents start from one packet
    sc = ns2_initial_window(build_scenario("thesis-two-flow", **kw).with_algorithm(alg))
    ns2 = ns2_packet_options(sc)  # the packet senders and RED as the thesis's ns-2
    res = checked_simulate(sc, "packet", record_interval_s=0.001, **ns2)  # fine for the train
    out: dict[str, Any] = {}
    if not isinstance(res, Result):
        out["packet_error"] = res
    else:
        out |= _packet_values(sc, res, alg, params)
        if offsets:
            runs = (
                checked_simulate(thesis_offset_scenario(sc, o), "packet", **ns2) for o in offsets
            )
            out["packet_offset_jain"] = [
                _packet_jain(r) if isinstance(r, Result) else r for r in runs
            ]
    rm = checked_simulate(sc, "rounds")
    if isinstance(rm, Result):
        thr_r = mean_rate_since(rm.time_s, rm.delivered_pkts(), 10.0)
        out["rounds_jain"] = float(jain_index(thr_r))
    else:
        out["rounds_error"] = rm
    r = checked_simulate(sc, "hybrid", record_interval_s=sc.duration_s / 600)
    if not isinstance(r, Result):
        return {**out, "ode_error": r}
    thr_o = mean_rate_since(r.time_s, r.series["delivered_pkts"], 10.0)
    return {**out, "ode_jain": float(jain_index(thr_o))}


def _packet_values(sc: Scenario, res: Result, alg: str, params: dict[str, Any]) -> dict[str, Any]:
    """The values of :func:`thesis_run` from its packet run ``res``: Jain's index and (the
    enhanced Vegas) the Boutremans–Le Boudec predictions from the measured BaseRTTs."""
    out: dict[str, Any] = {"packet_jain": _packet_jain(res)}
    if alg != "enhanced-vegas":
        return out
    prop = np.array([sc.base_rtt_s(f) for f in sc.flows], dtype=np.float64)
    x = np.maximum(np.asarray(res.base_rtt_s, dtype=np.float64) - prop, 0.0)
    mu = sc.link("R1-R2").rate_bps / (8.0 * sc.packet_size_bytes)
    deltas = [params["delta"]] * 2
    out["blb_jain"] = blb_equilibrium(deltas, x, mu, prop_delay_s=prop).jain_index
    f = train_fraction(res.time_s, res.throughput_pps[1], mu, start_s=10.0, end_s=60.0)
    out["train_fraction"] = f
    out["train_jain"] = blb_train_equilibrium(deltas, x, mu, train_fraction=f).jain_index
    return out


def thesis_offset_scenario(sc: Scenario, offset_s: float) -> Scenario:
    """The thesis scenario ``sc`` with connection 2 (its second flow) starting ``offset_s``
    seconds after connection 1."""
    short, long_ = sc.flows
    return replace(sc, flows=(short, replace(long_, start_s=float(offset_s))))


def _packet_jain(res: Result) -> float:
    """Jain's index of a packet run's two mean goodputs over 10–60 s."""
    m = (res.time_s > 10.0) & (res.time_s <= 60.0)
    return float(jain_index([row[m].mean() for row in res.throughput_pps]))


def _th_row(setting: str, x2_ms: int, r: dict[str, Any]) -> Row:
    """The row of one thesis point from :func:`thesis_run`'s result ``r`` against Table
    3.16, with the packet runs' [min, max] over connection 2's start as phase columns."""
    no_blb = NA(prose("thesis-fairness", "no_blb"))
    pv = run_value(r.get("packet_error", r), ("packet_jain",), "no value")
    if "train_jain" in r:
        cf: Value = num(r["train_jain"], "")
    elif isinstance(pv, NA) and _SETTINGS[setting][0] == "enhanced-vegas":
        # the closed form takes the packet run's measured BaseRTTs
        cf = NA(f"no packet run to measure the BaseRTTs from: {pv.reason}", failed=True)
    else:
        cf = no_blb
    ov = run_value(r.get("ode_error", r), ("ode_jain",), "no value")
    rv = run_value(r.get("rounds_error", r), ("rounds_jain",), "no value")
    values = engine_cells(cf, rv, ov, pv, THESIS_TABLE_3_16[x2_ms][setting])
    informative: tuple[str, ...] = ()
    if "blb_jain" in r:
        values[_ONE_DELAY] = r["blb_jain"]
        informative += (_ONE_DELAY,)
    if r.get("packet_offset_jain"):
        offset = [o if isinstance(o, float) else err_na(o, "") for o in r["packet_offset_jain"]]
        values[PHASE_MIN], values[PHASE_MAX] = phase_range([pv, *offset])
        informative += (PHASE_MIN, PHASE_MAX)
    case = {"setting": setting, "x2_ms": x2_ms}
    return share_row(
        f"{setting}, x2 = {x2_ms} ms", TWO_FLOW_SHARE, values, DOCUMENT,
        two_flows=True, informative=informative, case=case,
    )  # fmt: skip


def _th_figure(cfg: ReportConfig, rows: list[Row]) -> Figure:
    grid = _th_grid(cfg)
    fig, ax = plot.new_axes()
    #: (column, legend, style) of each setting's lines
    lines: tuple[tuple[str, str, dict[str, Any]], ...] = (
        (DOCUMENT, "thesis", {"linestyle": "-", "marker": "s", "markersize": 3}),
        (PACKET, "packet sim", {"linestyle": "none", "marker": "x"}),
        (ODE, "ODE", {"linestyle": ":", "marker": "."}),
        (ROUNDS, "round model", {"linestyle": "--", "marker": "o", "fillstyle": "none",
                                 "markersize": 3}),
    )  # fmt: skip
    for i, s in enumerate(_SETTINGS):
        col, mine = f"C{i}", [r for r in rows if r.case["setting"] == s]
        draw_columns(ax, grid, mine, lines, s, col)
        lo, hi = (np.asarray(column_series(mine, c)) for c in (PHASE_MIN, PHASE_MAX))
        ok = np.isfinite(lo) & np.isfinite(hi)
        if ok.any():  # the packet runs' range over connection 2's start offset, each
            # setting's bars moved by a fraction of a millisecond so that they do not overlap
            xs = np.asarray(grid, dtype=float)[ok] + 0.6 * (i - (len(_SETTINGS) - 1) / 2.0)
            ax.vlines(xs, lo[ok], hi[ok], color=col, lw=0.8)
    return render(
        fig, ax, "thesis_fairness", prose("thesis-fairness", "figure"),
        xlabel="access delay x2 of the long connection (ms)",
        ylabel="smaller flow's share of the goodput", title="Two flows on 1.5 Mb/s, RED 15/45",
        fontsize=6,
    )  # fmt: skip


THESIS_FAIRNESS = CaseSection(
    "thesis-fairness", "Two-flow fairness (thesis)",
    lambda cfg: [(s, x2) for s in _SETTINGS for x2 in _th_grid(cfg)],
    lambda cfg, c, _: Task(
        f"{__name__}:thesis_run",
        {"x2_ms": c[1], "setting": c[0], "start_offsets_s": THESIS_START_OFFSETS_S},
        f"thesis: {c[0]} x2={c[1]} ms",
    ),
    lambda case, runs: (("", _th_row(case[0], case[1], runs[ALL])),),
    figures=lambda cfg, _, tables: (_th_figure(cfg, tables[""]),),
    fields=lambda cfg: {"one_delay": _ONE_DELAY, "phase_min": PHASE_MIN, "phase_max": PHASE_MAX},
    engines=lambda case: (ALL,),
).spec  # fmt: skip


# ======================================= asymmetric (the asymmetric-networks paper, Tables I-III)
#: run length of every asymmetric case, which the paper does not give (why 60 s:
#: validation/test_asymmetric_reno.py::
#: test_the_papers_reno_throughputs_are_whole_run_averages_of_a_one_minute_run)
_AS_DURATION = "60s"
#: Table II's forward buffer: its caption's fixed "B_r = 10" is B_f = 10 (docs/errata.md N12)
_AS_TABLE2_FORWARD_BUFFER = 10


def _as_cases(cfg: ReportConfig) -> list[tuple[str, str, dict[str, Any], str]]:
    """(table, algorithm, overrides, published key)."""
    ks = [3, 7] if cfg.quick else [0.5, 3, 5, 7]
    brs = [2, 10] if cfg.quick else [2, 6, 10, 20, 40, 100]
    vegas = {"alpha": 1, "beta": 3}
    cases = []
    for k in ks:
        for a, tab in (("vegas", 1), ("reno", 1), ("forward-vegas", 3)):
            p = {"k": k, "duration": _AS_DURATION, **({} if a == "reno" else vegas)}
            cases.append(("I/III", a, p, f"003/table{tab}/{a}/k{k:g}"))
    for br in brs:
        for a in ("reno", "vegas"):
            p = {"k": 5, "reverse_buffer": br, "forward_buffer": _AS_TABLE2_FORWARD_BUFFER}
            p.update(duration=_AS_DURATION, **({} if a == "reno" else vegas))
            cases.append(("II", a, p, f"003/table2/{a}/br{br}"))
    return cases


def _as_task(cfg: ReportConfig, case: tuple[str, str, dict[str, Any], str], e: str) -> Task:
    _tab, a, o, _key = case
    # the packet senders as the paper's ns agents (_thesis_ns2: ns of the same years)
    ns2 = {"fast_recovery": ns2_fast_recovery(a)}  # and bugFix_, the default
    options = {"packet_options": ns2} if MODELS[e].granularity == "packet" else {}
    return run_task(e, "asymmetric", a, o, f"asymmetric: {e}_run {a} {o}", **options)


def _as_rows(case: tuple[str, str, dict[str, Any], str], runs: Runs) -> Iterator[tuple[str, Row]]:
    tab, a, o, key = case
    mu_f = 200.0
    if a == "vegas" and tab == "I/III":
        cf: float | NA = float(reverse_path_throughput(mu_f, mu_f / float(o["k"])))
    elif a == "forward-vegas":
        cf = mu_f
    else:
        cf = NA("no closed form for this throughput in the asymmetric-networks paper")
    pv, rv = (run_value(runs[e], ("throughput_pps", 0), "", "") for e in ("packet", "rounds"))
    ov = run_value(runs["ode"], ("summary", "throughput_pps", 0), "", "")
    setting = f"{_NAMES[a]}, k = {o['k']:g}"
    if tab == "II":
        setting = f"{_NAMES[a]}, k = 5, B_r = {o['reverse_buffer']} ACKs"
    values = engine_cells(cf, rv, ov, pv, doc(key))
    c: dict[str, Any] = {"table": tab, **{x: o[x] for x in ("k", "reverse_buffer") if x in o}}
    yield tab, Row(setting, "throughput", "pkts/s", "throughput", values, DOCUMENT, case=c)


ASYMMETRIC = CaseSection(
    "asymmetric", "Asymmetric networks", _as_cases, _as_task, _as_rows, ("I/III", "II")
).spec
