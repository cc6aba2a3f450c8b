"""Section ``thesis-many-flows`` on Tsang's thesis's many-flow network (ch. 3 §4.4, Table
3.19): Tables 3.21a/b (30, 100 and 200 flows of Reno or Vegas-δ), 3.22a/b (mixes of Vegas
and Reno) and 3.25a-d (the mixes' mean goodput per kind); and the runs of
``thesis-delayed-ack`` (:mod:`._sec_thesis_tables`). Which engine runs which rows:
docs/report.md, "The many-flow network's engines".
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from .. import plot
from ..analytic import jain_index
from ..engines import ENGINES as MODELS
from ..fairness import _THESIS_SETTINGS
from ..results import Result
from ..scenarios import build_scenario
from ..scenarios.mix import with_flow_params, with_mix
from ._common import (
    CaseSection,
    doc,
    engine_cells,
    err_na,
    mean_rate_since,
    run_value,
    share_row,
)
from ._core import Figure, ReportConfig, Task, prose
from ._figures import draw_lines
from ._runs import checked_simulate
from ._table import DOCUMENT, NA, Row
from ._thesis_ns2 import (
    DELACK_TIMEOUT_S,
    DELAYED_ACK_ECHO,
    MANY_FLOWS_MIN_RTO_S,
    NS2_RED_WAIT,
    THESIS_INITIAL_WINDOW,
    ns2_initial_window,
    ns2_packet_options,
)

_MODULE = "tcpfluid.report._sec_thesis_many"
#: goodputs are measured from 20 s to the end of the 60-s run (§4.4: "All goodput
#: measurements are taken after the simulation has started for 20 seconds")
MF_FROM_S = 20.0
ROUTERS = ("red-5-15", "red-54-108")
FLOW_COUNTS = (30, 100, 200)
#: Reno and the thesis's Vegas variants: name -> (registry name, parameters)
LAWS: dict[str, tuple[str, dict[str, float]]] = {
    "reno": ("reno", {}),
    **{s: _THESIS_SETTINGS[s] for s in ("vegas-1", "vegas-2", "vegas-3", "vegas-1_3")},
}
_NO_ROUNDS = NA(prose("thesis-many-flows", "no_rounds"))
_NO_CF = NA("the thesis gives no closed form for many flows' fairness")
_NO_ODE = NA(prose("thesis-many-flows", "no_ode"))
#: informative column of the mixes' rows: the index of Table 3.25's one run
_ONE_RUN = "thesis, one run (Table 3.25)"


def thesis_mix_scenario(
    flows: int,
    router: str,
    law: str,
    vegas_percent: int = 100,
    *,
    fluid: bool = False,
    seed: int = 1,
    duration_s: float = 60.0,
    initial_window: float = THESIS_INITIAL_WINDOW,
) -> Any:
    """The thesis's many-flow network with the first ``vegas_percent`` % of the flows
    running ``law`` (a key of :data:`LAWS`) and the rest Reno (``law="reno"``: all Reno),
    each flow's window starting at ``initial_window`` packets (ns-2's one packet).

    ``fluid``: access links at the bottleneck's rate (the fluid engines' reading, module
    docstring)."""
    if law not in LAWS:
        raise ValueError(f"law must be one of {', '.join(LAWS)}, got {law!r}")
    if not 0 <= vegas_percent <= 100:
        raise ValueError(f"vegas_percent must be in [0, 100], got {vegas_percent!r}")
    extra: dict[str, Any] = {"access_factor": flows} if fluid else {}
    o = {"flows": flows, "router": router, "seed": seed, "duration": f"{duration_s!r}s"}
    sc = build_scenario("thesis-many-flows", **o, **extra)
    alg, params = LAWS[law]
    k = round(flows * vegas_percent / 100) if law != "reno" else 0
    if k == 0:
        sc = sc.with_algorithm("reno")
    elif k == flows:
        sc = with_flow_params(sc.with_algorithm(alg), None, params)
    else:
        sc = with_mix(sc, f"{alg}:{k},reno")
        sc = with_flow_params(sc, alg, params) if params else sc
    return ns2_initial_window(sc, initial_window)


def many_flows_run(
    flows: int,
    router: str,
    law: str,
    vegas_percent: int = 100,
    engine: str = "packet",
    delayed_ack: bool = False,
    delayed_ack_echo: str = DELAYED_ACK_ECHO,
    initial_window: float = THESIS_INITIAL_WINDOW,
    red_wait: bool = NS2_RED_WAIT,
    ns2_vegas_timing: bool = True,
) -> dict[str, Any]:
    """One run of the thesis's many-flow network: each flow's goodput over 20-60 s (b/s),
    its algorithm, Jain's index, the flows that delivered nothing, and (packet engine)
    each flow's first and last recorded BaseRTT and round-trip propagation. The other
    options are the packet engine's, their defaults the thesis's ns-2 set-up
    (:mod:`._thesis_ns2`)."""
    packets = MODELS[engine].granularity == "packet"
    sc = thesis_mix_scenario(
        flows, router, law, vegas_percent, fluid=not packets, initial_window=initial_window
    )
    bits = 8.0 * sc.packet_size_bytes
    if packets:  # the senders recover as ns-2's agents, the router drops as ns-2's RED
        acks: dict[str, Any] = {"delayed_ack": delayed_ack, "delayed_ack_echo": delayed_ack_echo}
        opts = {**acks, "min_rto_s": MANY_FLOWS_MIN_RTO_S, "ns2_vegas_timing": ns2_vegas_timing}
        opts |= {**ns2_packet_options(sc), "red_wait": red_wait}
        opts |= {"record_interval_s": 1.0, "delack_timeout_s": DELACK_TIMEOUT_S}
    else:
        opts = {"min_rto_s": MANY_FLOWS_MIN_RTO_S}
    res = checked_simulate(sc, engine, **opts)
    if not isinstance(res, Result):
        return res
    if packets:
        g = res.throughput_pps[:, res.time_s > MF_FROM_S].mean(axis=1)
    else:
        g = mean_rate_since(res.time_s, res.series["delivered_pkts"], MF_FROM_S)
    out: dict[str, Any] = {
        "goodput_bps": (g * bits).tolist(),
        "algorithm": [f.algorithm for f in sc.flows],
        "jain": float(jain_index(g)),
        "shut_down": int(np.sum(g <= 0.0)),
    }
    if packets:
        out["first_base_rtt_s"], out["last_base_rtt_s"] = _base_rtts(res)
        out["prop_rtt_s"] = [2.0 * sum(sc.link(n).delay_s for n in f.forward) for f in sc.flows]
        out["timeouts"] = list(res.summary.extras["timeouts"])
    return out


def _base_rtts(res: Result) -> tuple[list[float], list[float]]:
    """Each flow's first BaseRTT of its round log (NaN: none) and the one its law held at
    the end of the packet run ``res``, s."""
    assert res.base_rtt_s is not None  # the packet engine keeps both
    first = [r.base_rtt_s for r in res.rounds]
    return [float(b[0]) if b is not None and len(b) else math.nan for b in first], [
        float(b) for b in res.base_rtt_s
    ]


def two_flow_ack_run(
    delayed_ack: bool | list[bool],
    initial_window: float = THESIS_INITIAL_WINDOW,
    delayed_ack_echo: str = DELAYED_ACK_ECHO,
    ns2_vegas_timing: bool = True,
) -> dict[str, Any]:
    """Table 3.28: two Vegas-1_3 flows at 6 ms each (x1 = x2 = 1 ms), RED 15/45, 60 s, the
    receivers delaying their ACKs or not (``delayed_ack``: one bool, or one per connection;
    the options as :func:`many_flows_run`'s): goodputs over 10-60 s (b/s), first and final
    BaseRTT (s); or :func:`._runs.checked_simulate`'s error when the run gave none."""
    o = {"x2": "1ms", "queue": "red", "duration": "60s", "alpha": 1, "beta": 3}
    sc = build_scenario("thesis-two-flow", **o).with_algorithm("vegas")
    sc = ns2_initial_window(sc, initial_window)
    da = delayed_ack if isinstance(delayed_ack, bool) else tuple(delayed_ack)
    acks: dict[str, Any] = {"delayed_ack": da, "delack_timeout_s": DELACK_TIMEOUT_S}
    acks |= {"delayed_ack_echo": delayed_ack_echo, "ns2_vegas_timing": ns2_vegas_timing}
    # the senders recover as ns-2's agents
    res = checked_simulate(sc, "packet", record_interval_s=0.1, **acks, **ns2_packet_options(sc))
    if not isinstance(res, Result):
        return res
    m = res.time_s > 10.0
    first, final = _base_rtts(res)
    return {
        "goodput_bps": (res.throughput_pps[:, m].mean(axis=1) * 8000.0).tolist(),
        "first_base_rtt_s": first,
        "final_base_rtt_s": final,
    }


# ============================================================ thesis-many-flows
#: the mixes of Table 3.22 run here (Vegas share, %): its columns between 0 % (Reno only:
#: Table 3.21's Reno run) and 100 % (Vegas-3 only: Table 3.21's Vegas-3 run; Vegas-1_3
#: alone runs as its own case)
MIX_PERCENTS = (10, 30, 50, 70, 90)
#: the mixes of Table 3.25 (its one run's index and mean goodput per kind)
T325_PERCENTS = (30, 50, 70)
#: the Vegas laws of Table 3.22's mixes, in its column order
MIX_LAWS = ("vegas-3", "vegas-1_3")
#: the mixes the ODE engine runs (at 30 flows; the report's budget)
ODE_MIX_PERCENTS = (50,)
#: the laws of Table 3.21 the ODE engine runs (at 30 flows): Reno and Vegas-3, which the
#: mixes hold (Vegas-1 and Vegas-2: the report's budget)
ODE_LAWS = ("reno", "vegas-3")


def _mf_grid(cfg: ReportConfig) -> tuple[tuple[int, ...], tuple[str, ...]]:
    return ((30,), ROUTERS) if cfg.quick else (FLOW_COUNTS, ROUTERS)


def _mf_cases(cfg: ReportConfig) -> list[tuple[str, int, tuple[tuple[str, int, str], ...]]]:
    """(router, flows, its runs: (law, vegas %, engine) each) of each case, in task order."""
    counts, routers = _mf_grid(cfg)
    laws = ("reno", "vegas-3") if cfg.quick else ("reno", "vegas-1", "vegas-2", "vegas-3")
    # (law, vegas %) per engine; the packets also run Vegas-1_3 alone (Table 3.22's 100 %)
    mixes = {
        "packet": [*((law, 100) for law in laws), *((a, p) for a in MIX_LAWS for p in MIX_PERCENTS),
                   ("vegas-1_3", 100)],
        "ode": [*((law, 100) for law in laws if law in ODE_LAWS),
                *((a, p) for a in MIX_LAWS for p in ODE_MIX_PERCENTS)],
    }  # fmt: skip
    return [
        # the ODE at 30 flows behind RED-5-15 only (the report's budget)
        (r, n, tuple((law, p, e) for e in engines for law, p in mixes[e]))
        for r in routers
        for n in counts
        for engines in [("packet", "ode") if n == 30 and r == ROUTERS[0] else ("packet",)]
    ]


def _mf_task(cfg: ReportConfig, case: tuple[str, int, Any], run: tuple[str, int, str]) -> Task:
    c = (*case[:2], *run)
    keys = ("router", "flows", "law", "vegas_percent", "engine")
    label = "thesis many flows: {4} {0} {1} {2} {3}%".format(*c)
    return Task(f"{_MODULE}:many_flows_run", dict(zip(keys, c, strict=True)), label)


#: the judged quantity of Tables 3.21 and 3.22
_SPREAD = "spread of the flows' goodputs (std/mean), 20–60 s"


def table_of(number: str, router: str) -> str:
    """The thesis's table ``number`` of ``router``: its a part behind RED-5-15, else b."""
    return number + ("a" if router == ROUTERS[0] else "b")


#: a many-flow run: (router, flows, law, vegas %, engine)
_Case = tuple[str, int, str, int, str]


def _spread_row(
    runs: dict[_Case, Any], run: tuple[str, int, str, int], setting: str, ref: float,
    informative_values: dict[str, float], case: dict[str, Any],
) -> Row:  # fmt: skip
    """The row of the flows' share spread of the packet (and ODE) runs of ``run`` (router,
    flows, law, vegas %), with the flows the packet run shut down beside."""
    pk, ode = runs[(*run, "packet")], runs.get((*run, "ode"))
    ov = run_value(ode, ("jain",), "no value", _NO_ODE.reason)
    pv = run_value(pk, ("jain",), "no value")
    jains = {**engine_cells(_NO_CF, _NO_ROUNDS, ov, pv, ref), **informative_values}
    inf = tuple(informative_values)
    row = share_row(setting, _SPREAD, jains, DOCUMENT, two_flows=False, informative=inf, case=case)
    if "shut_down" not in pk:
        return row
    shut = {"flows shut down, packet sim": float(pk["shut_down"])}
    return replace(row, values={**row.values, **shut}, informative=(*row.informative, *shut))


def _kind_goodput(r: dict[str, Any], kind: str) -> float | NA:
    """Mean goodput (kb/s) of the flows running Reno (``kind="reno"``) or not."""
    if "error" in r:
        return err_na(r, "no result")
    g = np.asarray(r["goodput_bps"])
    sel = np.array([(a == "reno") == (kind == "reno") for a in r["algorithm"]])
    return float(g[sel].mean() / 1e3) if sel.any() else NA("no flow of that kind")


def _t21_rows(runs: dict[_Case, Any], router: str, n: int, laws: list[str]) -> Iterator[Row]:
    """Table 3.21's rows (N flows of one law) of ``router`` and ``n`` flows."""
    tab21 = table_of("3.21", router)
    for law in laws:
        base = f"001/table{tab21}/{router}/{law}/n{n}"
        before = doc(f"{base}/before")
        ref = before if law == "reno" else doc(f"{base}/after")
        info = {} if law == "reno" else {"thesis before its ns-2 fix": before}
        # the setting starts with the algorithm (the thesis's setting names, as in the
        # thesis-fairness section: the report's summary reads the algorithm from them)
        setting = f"{'Reno' if law == 'reno' else law}, {n} flows, {router.upper()}"
        case = {"router": router, "flows": n, "law": law}
        yield _spread_row(runs, (router, n, law, 100), setting, ref, info, case)


#: Table 3.25's letter of each (router, law)
_T325_LETTER = {
    ("red-54-108", "vegas-3"): "a",
    ("red-54-108", "vegas-1_3"): "b",
    ("red-5-15", "vegas-3"): "c",
    ("red-5-15", "vegas-1_3"): "d",
}


def _mix_rows(runs: dict[_Case, Any], router: str, n: int) -> Iterator[tuple[str, Row]]:
    """Table 3.22's rows (the mixes, then Vegas-1_3 alone: its 100 % column; Vegas-3 alone
    is Table 3.21's row, the same printed values) and Table 3.25's (the mixes' mean
    goodput per kind) of ``router`` and ``n`` flows, each as ``(table, row)``."""
    tab22 = table_of("3.22", router)
    mixes = [(m, p) for m in MIX_LAWS for p in MIX_PERCENTS] + [("vegas-1_3", 100)]
    for law, pct in mixes:
        run, where, cap = (router, n, law, pct), f"{n} flows, {router.upper()}", law.capitalize()
        ref22 = doc(f"001/table{tab22}/{router}/n{n}/{law}/vegas{pct}")
        case22 = {"router": router, "flows": n, "law": law, "vegas_percent": pct}
        who = f"{law} + Reno ({pct} % {cap})" if pct < 100 else law
        key = f"001/table3.25{_T325_LETTER[(router, law)]}/{router}/{law}/n{n}/vegas{pct}"
        one_run = {_ONE_RUN: doc(f"{key}/jain")} if pct in T325_PERCENTS else {}
        yield "3.22", _spread_row(runs, run, f"{who}, {where}", ref22, one_run, case22)
        if pct not in T325_PERCENTS:  # no one-run index, no goodputs per kind
            continue
        pk, ode = runs[(*run, "packet")], runs.get((*run, "ode"))
        for kind, label in (("vegas", cap), ("reno", "Reno")):
            ov = _NO_ODE if ode is None else _kind_goodput(ode, kind)
            ref = doc(f"{key}/{kind}_goodput") / 1e3
            vals = engine_cells(_NO_CF, _NO_ROUNDS, ov, _kind_goodput(pk, kind), ref)
            mix = f"{law}, flows of a {pct} % mix with Reno"
            who = mix if kind == "vegas" else f"Reno, flows of a mix with {pct} % {cap}"
            q, case = f"mean goodput of the {label} flows, 20–60 s", {**case22, "kind": kind}
            yield "3.25", Row(f"{who}, {where}", q, "kb/s", "throughput", vals, DOCUMENT, case=case)


def _mf_rows(case: tuple[str, int, Any], runs: dict[Any, Any]) -> Iterator[tuple[str, Row]]:
    router, n, _ = case
    full = {(router, n, *k): r for k, r in runs.items()}
    # Table 3.21's laws (Vegas-1_3 alone is a column of Table 3.22)
    laws = sorted({k[0] for k in runs if k[1] == 100} - {"vegas-1_3"}, key=list(LAWS).index)
    yield from (("3.21", r) for r in _t21_rows(full, router, n, laws))
    yield from _mix_rows(full, router, n)


#: a curve of a Jain's-index panel: (color, x, the thesis's values, the packet
#: simulator's, label)
_Curve = tuple[str, Any, list[float], list[float], str]


def _jain_figure(
    routers: tuple[str, ...], curves: Any, xlabel: str, name: str, caption: str
) -> Figure:
    """A panel per router of Jain's index over 20-60 s: each of ``curves(router)``, the
    thesis's values (squares) and the packet simulator's (dotted, crosses)."""
    fig, axes = plot.new_axes(len(routers))
    for ax, router in zip(np.atleast_1d(axes), routers, strict=True):
        for color, x, docs, pk, label in curves(router):
            lines = [(docs, "thesis", {"marker": "s"}),
                     (pk, "packet sim", {"linestyle": ":", "marker": "x"})]  # fmt: skip
            draw_lines(ax, x, lines, label, color)
        xl = xlabel if router == routers[-1] else ""
        plot.finish(ax, xlabel=xl, ylabel="Jain's index, 20–60 s", title=router.upper(), fontsize=6)
    return Figure.from_matplotlib(fig, name, caption)


def _mf_figures(cfg: ReportConfig, runs: list[tuple[Any, Any]]) -> tuple[Figure, Figure]:
    """Jain's index of N flows of one law against N (Tsang's thesis Figs. 3.25a/b), and of
    the mixes against the share of Vegas-3 flows (Figs. 3.29a/b)."""
    every = {(*c[:2], *k): r for c, rs in runs for k, r in rs.items()}
    counts, routers = _mf_grid(cfg)
    shares = (0, *MIX_PERCENTS, 100)

    def packet_jain(*run: Any) -> float:  # of (router, flows, law, vegas %); NaN: not run
        r = every.get((*run, "packet"))
        return np.nan if r is None else float(r.get("jain", np.nan))

    def alone(router: str) -> Iterator[_Curve]:
        tab = table_of("3.21", router)
        for i, law in enumerate(("reno", "vegas-1", "vegas-2", "vegas-3")):
            if (router, counts[0], law, 100, "packet") not in every:
                continue
            key = "before" if law == "reno" else "after"
            docs = [doc(f"001/table{tab}/{router}/{law}/n{n}/{key}") for n in counts]
            pk = [packet_jain(router, n, law, 100) for n in counts]
            yield f"C{i}", counts, docs, pk, law.capitalize()

    def mixes(router: str) -> Iterator[_Curve]:
        tab = table_of("3.22", router)
        for i, n in enumerate(counts):
            base = f"001/table{tab}/{router}/n{n}/"
            docs = [doc(base + ("vegas0" if p == 0 else f"vegas-3/vegas{p}")) for p in shares]
            keys = [(router, n, "vegas-3", p) if p else (router, n, "reno", 100) for p in shares]
            yield f"C{i}", shares, docs, [packet_jain(*k) for k in keys], f"{n} flows"

    cap, mix_cap = (prose("thesis-many-flows", k) for k in ("figure", "mix_figure"))
    return (
        _jain_figure(routers, alone, "active flows", "thesis_many_flows", cap),
        _jain_figure(routers, mixes, "Vegas-3 flows (%)", "thesis_mixes", mix_cap),
    )


THESIS_MANY_FLOWS = CaseSection(
    "thesis-many-flows", "Many flows behind RED (thesis)", _mf_cases, _mf_task, _mf_rows,
    ("3.21", "3.22", "3.25"),
    figures=lambda cfg, runs, _: _mf_figures(cfg, runs),
    fields=lambda cfg: {"many_flows_min_rto_s": MANY_FLOWS_MIN_RTO_S},
    engines=lambda case: case[2],
).spec  # fmt: skip
