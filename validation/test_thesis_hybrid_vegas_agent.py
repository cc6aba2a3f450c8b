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
NewReno's rule, time out almost never and take a third more (385 against 280 kb/s beside
Reno; 432 since its RED events are dated by the drop that completes them). With the
Vegas flows on NewReno, Vegas-3's spread alone (which the agent sets) is
the hybrid's within the report's tolerance. The means of the mixes followed too (Vegas
424 and 425 kb/s against the hybrid's 385, Reno 219 and 213 against 228 and 234) until the
packet gateway's RED became ns-2.35's (docs/simulator.md): Vegas 446 and 439, Reno 202 and
205. With the hybrid's RED events dated by the drop that completes them (docs/ode-model.md)
the hybrid gives Vegas 432 and 420, Reno 221 and 231: the Vegas-3 mix follows, the Reno
flows beside Vegas-1_3 stay 12 % above (a strict expected failure that says so). With
RED's average decayed over the idle link in the hybrid (Floyd and Jacobson's rule, which
the packet gateway applies) the Reno flows beside Vegas-1_3 take 228 against the packets'
205 on NewReno (+11 %): both mixes are strict expected failures.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

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


def _three_runs(law: str, pct: int) -> tuple[dict[str, float], ...]:
    run = many_flows_run(FLOWS, ROUTER, law, pct, engine="ode")
    ode = _cells(run["goodput_bps"], run["algorithm"])
    agent = _packets(law, pct, "ns2-vegas")  # the report's packet run
    newreno = _packets(law, pct, "newreno")  # the hybrid's loss rule
    return ode, agent, newreno


def test_hybrid_vegas3_spread_follows_the_packets_once_their_vegas_flows_recover_as_newreno() -> (
    None
):
    # Vegas-3 alone: the agent sets the packets' spread (measured 0.312 with it, 0.136 with
    # NewReno; the hybrid's 0.073)
    spr = TOLERANCES["share spread"]  # ±0.10
    ode, agent, newreno = _three_runs("vegas-3", 100)
    assert not spr.passes(ode["spread"], agent["spread"]), (ode, agent)
    assert spr.passes(ode["spread"], newreno["spread"]), (ode, newreno)


@pytest.mark.parametrize(
    "law",
    [
        pytest.param(
            "vegas-3",
            marks=pytest.mark.xfail(
                strict=True,
                reason="the Reno flows beside Vegas-3: the hybrid's 223.5 kb/s against the "
                "packets' 201.8 on NewReno (+10.8 %; the Vegas-3 flows 428.5 against 446.2)",
            ),
        ),
        pytest.param(
            "vegas-1_3",
            marks=pytest.mark.xfail(
                strict=True,
                reason="the Reno flows beside Vegas-1_3: the hybrid's 228.1 kb/s against the "
                "packets' 205.4 on NewReno (+11.0 %; 220.6, +7.4 %, before RED's average "
                "decayed over the idle link in the hybrid); the Vegas-1_3 flows 423.3 "
                "against 438.6",
            ),
        ),
    ],
)
def test_hybrid_mix_means_follow_the_packets_once_their_vegas_flows_recover_as_newreno(
    law: str,
) -> None:
    thr = TOLERANCES["throughput"]  # ±10 %
    ode, agent, newreno = _three_runs(law, 50)
    for k in ("vegas", "reno"):
        assert not thr.passes(ode[k], agent[k]), (law, k, ode, agent)
        assert thr.passes(ode[k], newreno[k]), (law, k, ode, newreno)
