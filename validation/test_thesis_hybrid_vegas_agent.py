"""The hybrid model's Vegas flows on Tsang's thesis's many-flow network recover as the
hybrid's loss rule (the packet simulator's NewReno sender, docs/ode-model.md, "Losses as a
sender sees them"); the report's packet runs, and the thesis's ns-2, run ns-2's
``Agent/TCP/Vegas`` (its recovery and its round timing; docs/simulator.md, "Fast
recovery", ``"ns2-vegas"``). The agent switched off in the packet simulator: the Vegas
flows recover as NewReno, one change from the report's packet run of the section
(thesis-many-flows, 30 flows behind RED-5-15; docs/mechanisms.md,
``hybrid-without-ns2-vegas-agent``).

With ns-2's agent the packets' Vegas flows time out about a third of their loss events
(1-s timer floor) and take less than the Reno flows beside them; the hybrid's, with
NewReno's rule, time out almost never and take a third more (385 against 290 kb/s beside
Reno). With the Vegas flows on NewReno the packets' Vegas means and Vegas-3's spread alone
(which the agent sets) are the hybrid's within the report's tolerances, and so are the
Reno flows' means (packets 306 → 219 kb/s beside Vegas-3, hybrid 228), which stayed 16 %
above the hybrid's until RED's fractions of packets were dithered
(``test_thesis_hybrid_red_dither.py``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tcpfluid.report import TOLERANCES
from tcpfluid.report._sec_thesis_many import MF_FROM_S, many_flows_run, thesis_mix_scenario
from tcpfluid.report._thesis_ns2 import MANY_FLOWS_MIN_RTO_S, ns2_packet_options
from tcpfluid.sim import simulate_packets

ROUTER = "red-5-15"
FLOWS = 30


def _cells(goodput_bps: Any, algorithms: Any) -> dict[str, float]:
    """The section's cells of a run: the Vegas and Reno flows' mean goodputs (b/s) and
    the spread (std/mean) of every flow's goodput."""
    g = np.asarray(goodput_bps, dtype=float)
    reno = np.array([a == "reno" for a in algorithms])
    out = {"vegas": float(g[~reno].mean()), "spread": float(g.std() / g.mean())}
    if reno.any():
        out["reno"] = float(g[reno].mean())
    return out


def _packets(law: str, vegas_percent: int, vegas_recovery: str) -> dict[str, float]:
    """The report's packet run of the section (:func:`many_flows_run`'s options) with the
    Vegas flows recovering as ``vegas_recovery``."""
    sc = thesis_mix_scenario(FLOWS, ROUTER, law, vegas_percent)
    opts = ns2_packet_options(sc)
    rec = opts["fast_recovery"]
    assert "ns2-vegas" in rec  # the report's Vegas flows run ns-2's agent
    opts["fast_recovery"] = tuple(vegas_recovery if r == "ns2-vegas" else r for r in rec)
    pk = simulate_packets(sc, sample_interval_s=1.0, min_rto_s=MANY_FLOWS_MIN_RTO_S, **opts)
    t = np.asarray(pk.t_s)
    g = np.array([f.goodput_pps for f in pk.flows])[:, t > MF_FROM_S].mean(axis=1)
    return _cells(g * 8.0 * sc.packet_size_bytes, [f.algorithm for f in sc.flows])


def test_hybrid_vegas_cells_follow_the_packets_once_their_vegas_flows_recover_as_newreno() -> None:
    thr = TOLERANCES["throughput"]  # ±10 %
    spr = TOLERANCES["share spread"]  # ±0.10
    # (law, Vegas %, the cells the agent moves): the Vegas-3 mix's spread is the packets'
    # under either recovery (0.334 and 0.333), so it is not one of them; the Vegas-1_3
    # mix's (agent 0.221, NewReno 0.351) the hybrid's 0.254 is within 0.10 of both
    cases = (
        ("vegas-3", 50, ("vegas",)),
        ("vegas-1_3", 50, ("vegas",)),
        ("vegas-3", 100, ("spread",)),
    )
    for law, pct, keys in cases:
        run = many_flows_run(FLOWS, ROUTER, law, pct, engine="ode")
        ode = _cells(run["goodput_bps"], run["algorithm"])
        agent = _packets(law, pct, "ns2-vegas")  # the report's packet run
        newreno = _packets(law, pct, "newreno")  # the hybrid's loss rule
        for k in keys:
            tol = spr if k == "spread" else thr
            assert not tol.passes(ode[k], agent[k]), (law, pct, k, ode[k], agent[k])
            assert tol.passes(ode[k], newreno[k]), (law, pct, k, ode[k], newreno[k])
        if "reno" in ode:
            # the Reno means too (measured 228 against 306 → 219 kb/s beside Vegas-3, 234
            # against 294 → 213 beside Vegas-1_3)
            assert not thr.passes(ode["reno"], agent["reno"]), (law, pct, ode, agent)
            assert thr.passes(ode["reno"], newreno["reno"]), (law, pct, ode, newreno)
