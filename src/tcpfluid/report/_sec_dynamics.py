"""Sections ``basic`` (the §5.1 single-flow scenario of the Quick Vegas and TCP-Ho papers,
Figs. 7-10) and ``many-flows`` (the Quick Vegas paper's §5.3, Tables 2 and 3, and the round
map's stability)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import plot
from ..analytic import conspicuous_round, rounds_to_equilibrium, slow_start_exit
from ..engines import ENGINES as MODELS
from ..engines._base import bottleneck_name
from ..fairness import _period_jains, delivered_pkts
from ..scenarios import build_scenario
from ._common import (
    COLUMN,
    DOCUMENT_PARAMS,
    ENGINES,
    LABEL,
    QV_REACH_NOT_SETTLING,
    STYLE,
    CaseSection,
    Runs,
    delivered_between,
    doc,
    engine_cells,
    engine_results,
    err_na,
    num,
    phase_range,
    run_task,
    share_row,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import queue_panel
from ._sec_analytic import _NAMES, D_S
from ._table import (
    CLOSED_FORM,
    DOCUMENT,
    FLUID_PHASE,
    NA,
    PACKET,
    PHASE_MAX,
    PHASE_MIN,
    Row,
    time_kind,
)

# ================================================================== basic behaviour §5.1
_BASIC = (
    ("vegas", "qv-basic", "the Quick Vegas paper's Fig. 7 (the TCP-Ho paper's Fig. 8)"),
    ("quick-vegas", "qv-basic", "the Quick Vegas paper's Fig. 8"),
    ("fast", "qv-basic", "the Quick Vegas paper's Fig. 9"),
    ("tcp-ho", "ho-basic", "the TCP-Ho paper's Fig. 10"),
)


#: sampling interval of the packet run and of the ODE trace (24001 points over 240 s), s
BASIC_GRID_S = 0.01
#: each engine's run options: the packet run and the ODE sampled on the same 0.01 s grid,
#: so that both see short queue peaks alike (the maximum queue is read off the samples)
_BASIC_OPTIONS: dict[str, dict[str, Any]] = {
    "packet": {"sample_interval": BASIC_GRID_S},
    "rounds": {},
    "ode": {"n_points": 24001},
}


#: the CBR start (and stop) moved by these fractions of the base RTT, for every law and row
#: (docs/report.md, "Spreads are shown, not used to pass")
_BASIC_PHASE_FRACTIONS = (0.25, 0.5, 0.75)
#: seconds a phase run goes on after the CBR stops (the slowest doubling settles in ~3 s)
_BASIC_PHASE_TAIL_S = 15.0
#: a case's runs besides each engine's nominal one: run -> (engine, phase fraction)
_BASIC_PHASE_RUNS = {f"{e} at {f}": (e, f) for f in _BASIC_PHASE_FRACTIONS for e in ENGINES}


def _basic_task(cfg: ReportConfig, case: tuple[str, str, str], run: str) -> Task:
    """The nominal run on engine ``run``, or a run with the CBR moved (the fluid engines'
    rounds fall against the CBR start too)."""
    a, sc, _ = case
    if run in ENGINES:
        return run_task(run, sc, a, {}, f"basic: {LABEL[run]} {a}", **_BASIC_OPTIONS[run])
    e, f = _BASIC_PHASE_RUNS[run]
    s = build_scenario(sc)  # the CBR's start and stop moved by f of the base RTT
    shift = f * float(s.fluid_view().path.d)
    t_on, t_off = float(s.cbr[0].start_s) + shift, float(s.cbr[0].stop_s) + shift
    end = t_off + _BASIC_PHASE_TAIL_S
    o = {"duration": f"{end:.6f}s", "cbr_start": f"{t_on:.6f}s", "cbr_stop": f"{t_off:.6f}s"}
    n_points = round(float(o["duration"].rstrip("s")) / BASIC_GRID_S) + 1
    opts = {"n_points": n_points} if MODELS[e].granularity == "continuous" else {}
    what = f"{a}, CBR start moved by {f:.2f} round"
    return run_task(e, sc, a, o, f"basic: {LABEL[e]} {what}", **opts)


#: the printed §5.1 numbers (the Quick Vegas paper's Fig. 1 and §5.1) by algorithm and metric
_BASIC_PRINTED = {
    "vegas": {
        "ss_exit_window": "000/fig1/ss_exit_window",
        "ss_exit_time_s": "000/fig1/ss_exit_time",
        "settled_window": "000/fig1/equilibrium_window",
        "time_to_equilibrium_s": "000/fig1/time_to_equilibrium",
        **{k: f"000/5.1/vegas/{k}" for k in ("halved", "doubled", "max_queue")},
    },
    **{
        a: {"time_to_equilibrium_s": f"000/5.1/{s}/ramp_up", **{k: f"000/5.1/{s}/{k}" for k in ks}}
        for a, s, ks in (
            ("quick-vegas", "qv", ("halved", "doubled", "max_queue")),
            ("fast", "fast", ("halved", "doubled")),
        )
    },
}


def _basic_doc(a: str) -> dict[str, float | NA]:
    out: dict[str, float | NA] = dict.fromkeys(_LABELS, NA("not printed in the documents"))
    out.update({key: doc(ref) for key, ref in _BASIC_PRINTED.get(a, {}).items()})
    if a == "tcp-ho":
        out["time_to_equilibrium_s"] = NA(
            "the TCP-Ho paper's §5.1.2 prints only a bound: < "
            f"{doc('004/5.1.2/tcp-ho/max_convergence'):g} s"
        )
    return out


def _basic_closed(a: str, bdp: float, d: float) -> dict[str, float | NA]:
    out: dict[str, float | NA] = dict.fromkeys(_LABELS, NA("no closed form in the documents"))
    p = DOCUMENT_PARAMS[a]
    if a in ("vegas", "quick-vegas"):
        ex = slow_start_exit(a, bdp, d, gamma=p["gamma"])
        out["ss_exit_window"] = ex.window_pkts
        out["ss_exit_time_s"] = ex.time_s
        out["settled_window"] = bdp + (p["alpha"] + p["beta"]) / 2.0
        if a == "vegas":  # one packet per round: it reaches nW and settles together
            out["doubled"] = float(rounds_to_equilibrium(a, bdp / 2.0, 2.0, beta=p["beta"])) * d
        else:
            out["doubled"] = QV_REACH_NOT_SETTLING
    if a == "vegas":
        out["time_to_equilibrium_s"] = float(conspicuous_round("vegas", bdp, gamma=p["gamma"])) * d
    if a == "fast":
        out["settled_window"] = bdp + p["alpha"]
    if a == "tcp-ho":
        # eq. (4) counts the round at which the Table-4 ramp (TCP-Ho's slow start) ends,
        # not the settling into the 2 % band: each engine's ramp end is its exit time
        out["ss_exit_time_s"] = float(conspicuous_round("tcp-ho", bdp)) * d
        out["time_to_equilibrium_s"] = NA(prose("basic", "tcp_ho_settling"))
    return out


#: each metric's row: quantity, unit, kind
_LABELS = {
    "ss_exit_window": ("slow-start exit window", "pkts", "window"),
    "ss_exit_time_s": ("slow-start exit time", "s", "time"),
    "settled_window": ("settled window before 80 s", "pkts", "window"),
    "time_to_equilibrium_s": ("ramp-up: time to equilibrium", "s", "time"),
    "halved": ("convergence after the bandwidth halves (80 s)", "s", "time"),
    "doubled": ("convergence after the bandwidth doubles (160 s)", "s", "time"),
    "max_queue": ("maximum bottleneck queue, 80–160 s", "pkts", "queue"),
}


def _engine_values(res: dict[str, Any]) -> dict[str, float | NA]:
    """A run's value of each :data:`_LABELS` metric (``n/a`` with the reason)."""
    if "error" in res:
        return dict.fromkeys(_LABELS, err_na(res, ""))
    s = res["summary"]
    conv = [*(s.get("convergence_times_s") or []), None, None]
    nd = "did not settle within max(1 pkt, 2 %) (tcpfluid.metrics)"
    left = "did not leave slow start"
    t, q = np.asarray(res["t_s"]), np.asarray(res["queue_pkts"])
    m = (t >= 80.0) & (t <= 160.0)
    return {
        "ss_exit_window": num(s.get("ss_exit_window"), left),
        "ss_exit_time_s": num(s.get("ss_exit_time_s"), left),
        "settled_window": num(s.get("settled_window"), nd),
        "time_to_equilibrium_s": num(s.get("time_to_equilibrium_s"), nd),
        "halved": num(conv[0], nd),
        "doubled": num(conv[1], nd),
        "max_queue": num(float(q[m].max()) if m.any() else None, "no samples"),
    }


def _basic_rows(case: tuple[str, str, str], runs: Runs) -> Iterator[tuple[str, Row]]:
    a, sc, _ = case
    pr, rr = runs["packet"], runs["rounds"]
    closed = _basic_closed(a, pr.get("bdp_pkts", rr.get("bdp_pkts", 626.1)), pr.get("d_s", D_S))
    docs = _basic_doc(a)
    ev = {e: _engine_values(r) for e, r in runs.items()}
    for key, (label, unit, kind) in _LABELS.items():
        values = engine_cells(
            closed[key], ev["rounds"][key], ev["ode"][key], ev["packet"][key], docs[key]
        )
        refs = ((DOCUMENT, docs[key]), (CLOSED_FORM, closed[key]), (PACKET, 0.0))
        ref = next(c for c, v in refs if not isinstance(v, NA))
        informative: tuple[str, ...] = ()
        phases = ((PHASE_MIN, PHASE_MAX), *FLUID_PHASE.values())
        for e, (lo, hi) in zip(ENGINES, phases, strict=True):
            moved = [ev[k][key] for k, (pe, _f) in _BASIC_PHASE_RUNS.items() if pe == e]
            values[lo], values[hi] = phase_range([values[COLUMN[e]], *moved])
            informative += (lo, hi)
        if kind == "time":  # a time against the document's number: its kind by the reference
            kind = time_kind(ref)
        setting = f"{_NAMES[a]} on {sc}"
        yield "", Row(setting, label, unit, kind, values, ref, informative, {"scenario": sc})


def _collapse_note(a: str, sc: str, pr: dict[str, Any]) -> list[str]:
    """A flag when the packet run's throughput over its last 20 s is below 10 % of what the
    path offers then (a flow that stopped sending is a defect to report, not a metric)."""
    if "error" in pr:
        return []
    t, g = pr["t_s"], pr["goodput_pps"][0]
    late = t >= t[-1] - 20.0
    offered = pr.get("mu_pps", np.nan)
    late_pps = float(g[late].mean()) if late.any() else np.nan
    if not (np.isfinite(offered) and late_pps < 0.1 * offered):
        return []
    return [prose("basic", "flag", name=_NAMES[a], sc=sc, late_pps=late_pps, offered=offered)]


def _basic_figure(a: str, sc: str, figref: str, runs: Runs) -> Figure:
    fig, axes = plot.new_axes(3)
    for e, res in engine_results(runs):  # one flow's traces
        ys = (res["window_pkts"][0], res["queue_pkts"], res["goodput_pps"][0])
        for ax, y in zip(axes, ys, strict=True):
            plot.versus(res["t_s"], y, ax=ax, label=COLUMN[e], **STYLE[e])
    for ax in axes:
        ax.axvspan(80, 160, color="0.9", zorder=0, label=None)
    title = f"{_NAMES[a]}: 50 Mb/s × 100 ms, 25 Mb/s CBR 80–160 s (shaded)"
    plot.finish(axes[0], xlabel="", ylabel="cwnd (packets)", title=title)
    plot.finish(axes[1], xlabel="", ylabel="bottleneck queue (packets)")
    plot.finish(axes[2], xlabel="time (s)", ylabel="throughput (packets/s)")
    cap = prose("basic", "figure", name=_NAMES[a], sc=sc, figref=figref)
    return Figure.from_matplotlib(fig, f"basic_{a.replace('-', '_')}", cap)


BASIC = CaseSection(
    "basic", "Basic behaviour (§5.1)", lambda cfg: _BASIC, _basic_task, _basic_rows,
    figures=lambda cfg, runs, _: tuple(_basic_figure(a, sc, f, r) for (a, sc, f), r in runs),
    engines=lambda case: (*ENGINES, *_BASIC_PHASE_RUNS),
    notes=lambda runs: [n for (a, sc, _), r in runs for n in _collapse_note(a, sc, r["packet"])],
).spec  # fmt: skip


# ================================================================ many flows (§5.3)
_ALGS = ("vegas", "quick-vegas", "fast", "reno")
#: scenarios whose network the document does not specify in its text (the Quick Vegas paper
#: §5.3.2: "Latency and bandwidth of each access link and connection link are depicted in
#: the figure", and Fig. 15 is not in the text): the document's indices are shown, not judged
_UNSPECIFIED = ("qv-different-rtt",)


def _mf_setups(cfg: ReportConfig) -> list[tuple[str, dict[str, Any], list[float], str]]:
    """(scenario, overrides, period edges, document table prefix or '')."""
    if cfg.quick:
        small = {"bandwidth": "100Mbps", "buffer": 150}
        same = {**small, "flows": 6, "group_interval": "20s", "active": "60s", "duration": "100s"}
        other = {**small, "flows_per_group": 2, "duration": "40s"}
        return [
            ("qv-many-flows", same, [0, 20, 40, 60, 80, 100], ""),
            ("qv-different-rtt", other, [0, 10, 20, 30, 40], ""),
        ]
    return [
        ("qv-many-flows", {}, [0, 100, 200, 300, 400, 500], "000/table2"),
        ("qv-different-rtt", {}, [0, 50, 100, 150, 200], "000/table3"),
    ]


#: a scenario's runs: (law, engine) each
_MF_RUNS = tuple((a, e) for a in _ALGS for e in ENGINES)


def _mf_task(cfg: ReportConfig, setup: tuple[str, Any, Any, Any], run: tuple[str, str]) -> Task:
    (sc, o, _, _), (a, e) = setup, run
    return run_task(e, sc, a, o, f"many flows: {LABEL[e]} {a} {sc}")


#: engine -> its queue trace's style beside :data:`._common.STYLE`
_QUEUE_LINE = {"packet": {"linewidth": 0.7, "zorder": 3}, "rounds": {"linewidth": 0.8}, "ode": {}}


def _delivered(r: dict[str, Any]) -> tuple[Any, Any]:
    """A run's sample times and each flow's delivered packets: the ODE's own count, else
    its goodput integrated."""
    t = np.asarray(r["t_s"], dtype=np.float64)
    dl = r["delivered_pkts"] if "delivered_pkts" in r else delivered_pkts(t, r["goodput_pps"])
    return t, np.asarray(dl, dtype=np.float64)


def _mf_engine_jains(
    res: dict[str, Any], edges: list[float], t_end: float
) -> dict[str, list[float] | None]:
    """Per engine: Jain's index per period (None: no result)."""
    jains: dict[str, list[float] | None] = dict.fromkeys(res)
    for key, r in engine_results(res):
        stop = [min(float(s), t_end) for s in r["stop_s"]]  # NaN: none active or delivered
        jains[key] = _period_jains(*_delivered(r), list(r["start_s"]), stop, edges)
    return jains


def _mf_row(
    sc: str, a: str, i: int, edges: list[float], prefix: str, res: dict[str, Any], jains: Any
) -> Row:
    """The row of period ``i`` (edges[i] to edges[i + 1]) for law ``a`` on ``sc`` (``jains``:
    per engine, its index per period; None: no result)."""
    a0, b0 = edges[i], edges[i + 1]
    quick = NA("quick mode runs a scaled-down scenario: the document's table does not apply")
    dv = doc(f"{prefix}/{a}/{a0:g}-{b0:g}") if prefix else quick
    # per engine: its run's error, else its index of the period (None: the run failed)
    rv, ov, pv = (
        err_na(res[k] or {}, "no result")
        if jains[k] is None
        else num(jains[k][i], "no flow active over the whole period")
        for k in ("rounds", "ode", "packet")
    )
    # the paper's different-RTT network (its Fig. 15: rates and delays) is not in its text,
    # so its indices are context there, not a reference: the layers meet the packet sim
    context = sc in _UNSPECIFIED
    ref = DOCUMENT if not isinstance(dv, NA) and not context else PACKET
    no_cf = NA("the documents give no closed form for Jain's index with joining flows")
    values = engine_cells(no_cf, rv, ov, pv, dv)
    informative: tuple[str, ...] = (DOCUMENT,) if context else ()
    setting = f"{_NAMES[a]}, {sc}, {a0:g}–{b0:g} s"
    return share_row(
        setting, "spread of the flows' shares (std/mean)", values, ref,
        two_flows=False, informative=informative, case={"scenario": sc, "period_s": (a0, b0)},
    )  # fmt: skip


#: the utilizations the Quick Vegas paper prints in its §5.3 text: scenario -> law ->
#: (period, s, or None for the whole run; key of :mod:`tcpfluid.published`)
_MF_UTIL_DOC: dict[str, dict[str, tuple[tuple[float, float] | None, str]]] = {
    "qv-many-flows": {
        "reno": ((0.0, 20.0), "000/5.3.1/reno/utilization_0-20"),
        "fast": ((0.0, 100.0), "000/5.3.1/fast/utilization_0-100"),
    },
    "qv-different-rtt": {"fast": (None, "000/5.3.2/fast/utilization")},
}
_MF_UTIL = "bottleneck utilization by the flows' goodput"


def _mf_utilization(r: dict[str, Any] | None, span: tuple[float, float], mu_pps: float) -> Any:
    """The flows' goodput over ``span`` as a fraction of the bottleneck's capacity (a cell:
    ``n/a`` with the run's error)."""
    if r is None or "error" in r:
        return err_na(r or {}, "no result")
    t, dl = _delivered(r)
    if t[0] > 0.0:  # nothing delivered before the first sample's interval began
        t, dl = np.concatenate([[0.0], t]), np.concatenate([np.zeros((dl.shape[0], 1)), dl], 1)
    a, b = span
    got = sum(float(x) for x in delivered_between(t, dl, a, b))
    return num(got / (mu_pps * (b - a)), "")


def _mf_utilization_rows(
    setup: tuple[str, Any, list[float], str], a: str, res: dict[str, Any], mu: float
) -> Iterator[Row]:
    """Law ``a``'s utilization rows on one scenario: the whole run against the packet
    simulator, and each period the document prints a utilization for against it (the
    different-RTT network's is context: the paper does not give that network in its text);
    ``mu``: the bottleneck's capacity, packets/s."""
    sc, _, edges, prefix = setup
    whole = (float(edges[0]), float(edges[-1]))
    span, key = _MF_UTIL_DOC.get(sc, {}).get(a, (None, None)) if prefix else (None, None)
    spans = [(whole, None), (span, key)] if span else [(whole, key)]
    no_cf = NA("the documents give no closed form for the utilization with joining flows")
    no_doc = NA("the document prints no utilization for this law and period")
    for span, key in spans:
        rv, ov, pv = (_mf_utilization(res[k], span, mu) for k in ("rounds", "ode", "packet"))
        dv = doc(key) if key is not None else no_doc
        values = engine_cells(no_cf, rv, ov, pv, dv)
        context = sc in _UNSPECIFIED
        ref = DOCUMENT if key is not None and not context else PACKET
        yield Row(
            f"{_NAMES[a]}, {sc}, {span[0]:g}–{span[1]:g} s", _MF_UTIL, "fraction of the link",
            "throughput", values, ref, informative=(DOCUMENT,) if ref == PACKET else (),
            case={"scenario": sc, "period_s": span, "quantity": "utilization"},
        )  # fmt: skip


def _mf_caption(cfg: ReportConfig, sc: str, enveloped: list[str]) -> str:
    """The caption of the queue figure of scenario ``sc``."""
    same = sc == "qv-many-flows"
    what = "same RTT, Table 2, Figs. 13–14" if same else "different RTTs, Table 3, Figs. 16–17"
    mode = ", quick mode" if cfg.quick else ""
    cap = (
        f"Bottleneck queue against time with many flows ({sc}{mode}) "
        f"for Vegas, Quick Vegas, FAST and Reno; cf. the Quick Vegas paper's §5.3 ({what})."
    )
    if enveloped:
        cap += prose("many-flows", "enveloped_caption", enveloped=", ".join(enveloped))
    return cap


def _mf_rows(setup: tuple[str, Any, list[float], str], runs: Runs) -> Iterator[tuple[str, Row]]:
    """The rows of one scenario: Jain's indices per law and period, then utilizations."""
    sc, o, edges, prefix = setup
    s = build_scenario(sc, **dict(o))  # one build for the four laws' utilization rows
    mu = float(s.link(bottleneck_name(s)).rate_bps / (8.0 * s.packet_size_bytes))  # packets/s
    for a in _ALGS:
        res = {e: runs[(a, e)] for e in ENGINES}
        jains = _mf_engine_jains(res, edges, float(edges[-1]))
        yield from (
            (sc, _mf_row(sc, a, i, edges, prefix, res, jains)) for i in range(len(edges) - 1)
        )
        yield from ((f"{sc} utilization", row) for row in _mf_utilization_rows(setup, a, res, mu))


def _mf_figure(cfg: ReportConfig, setup: tuple[str, Any, list[float], str], runs: Runs) -> Figure:
    """The queue figure of one scenario, a panel per law."""
    sc, t_end = setup[0], float(setup[2][-1])
    fig, axes = plot.new_axes(len(_ALGS))
    enveloped: list[str] = []
    for ai, a in enumerate(_ALGS):
        res = engine_results({e: runs[(a, e)] for e in ENGINES})
        traces = [(COLUMN[e], r["t_s"], r["queue_pkts"], STYLE[e] | _QUEUE_LINE[e]) for e, r in res]
        # a queue oscillating faster than the panel can show: envelope and zoom
        enveloped += [f"{_NAMES[a]} {n}" for n in queue_panel(axes[ai], traces, t_end=t_end)]
        xlabel = "time (s)" if ai == len(_ALGS) - 1 else ""
        plot.finish(axes[ai], xlabel=xlabel, ylabel="queue (pkts)", title=_NAMES[a], fontsize=6)
    name = f"many_flows_{sc.replace('-', '_')}"
    return Figure.from_matplotlib(fig, name, _mf_caption(cfg, sc, enveloped))


def _mf_table_caption(key: str) -> str:
    sc = key.removesuffix(" utilization")
    if key != sc:
        where = "§5.3.1, Fig. 13" if sc == "qv-many-flows" else "§5.3.2, Fig. 16"
        caption = prose("many-flows", "utilization_caption", scenario=sc, where=where)
    else:
        table = "Table 2" if sc == "qv-many-flows" else "Table 3"
        caption = f"Spread of the flows' shares per period, {sc} (the Quick Vegas paper {table})"
    return caption + (prose("many-flows", "unspecified_caption") if sc in _UNSPECIFIED else "")


def _stability_figure() -> Figure:
    """Why some queues above oscillate: the round map's spectral radius (closed form)."""
    import matplotlib.pyplot as plt

    from ..analytic import plot_stability

    fig, ax = plt.subplots(figsize=(6.0, 4.0))
    plot_stability(ax)
    cap = prose("many-flows", "stability_figure")
    return Figure.from_matplotlib(fig, "stability_round_map", cap)


MANY_FLOWS = CaseSection(
    "many-flows", "Many flows", _mf_setups, _mf_task, _mf_rows,
    (
        "qv-many-flows", "qv-different-rtt",
        "qv-many-flows utilization", "qv-different-rtt utilization",
    ),
    figures=lambda cfg, runs, _: (
        *(_mf_figure(cfg, setup, r) for setup, r in runs), _stability_figure()
    ),
    engines=lambda setup: _MF_RUNS,
    caption=_mf_table_caption,
).spec  # fmt: skip
