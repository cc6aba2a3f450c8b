"""Tsang's thesis's Reno flows recover as ns-2's ``Agent/TCP/Reno`` of 2000 did: the
mechanism switched on and off in the packet simulator (docs/thesis-tables.md, "What
differs"; docs/simulator.md, "Fast recovery").

* **Two Reno flows** (Table 3.13). ns-2's Reno of the thesis's years leaves fast recovery
  at the first new ACK and cuts again for a second hole of the window; the packet
  simulator's default sender (NewReno) repairs the window's holes in one recovery with one
  cut. With ns-2's recovery (and ns-2's ``bugFix_``, as the report runs it) the long
  connection at x2 = 100 ms takes the thesis's goodput; with NewReno it takes more.
* **Reno flows among many** (Table 3.25). With windows of about 8 packets a second hole
  of a window rarely brings three duplicate ACKs: ns-2's Reno recovery turns NewReno's
  partial-ACK repair into a timeout, the Reno flows lose goodput and the Vegas flows of the
  mix take it, the link carrying the same. That moves the Reno flows' mean further below
  the thesis's: the thesis's Reno lost less to timeouts for a reason outside the recovery.
"""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.engines import Packet, simulate
from tcpfluid.published import published
from tcpfluid.report._sec_thesis_many import thesis_mix_scenario
from tcpfluid.report._sec_thesis_tables import RENO_FROM_S, reno_two_flow_scenario
from tcpfluid.report._thesis_ns2 import MANY_FLOWS_MIN_RTO_S, ns2_packet_options
from tcpfluid.sim import simulate_packets


def _goodputs_kbps(fast_recovery: str, timeout_recover: bool) -> np.ndarray:
    sc = reno_two_flow_scenario(100)
    eng = Packet(fast_recovery=fast_recovery, timeout_recover=timeout_recover)
    res = simulate(sc, eng)
    t = np.asarray(res.time_s)
    rates = np.asarray(res.throughput_pps)[:, t > RENO_FROM_S]
    return rates.mean(axis=1) * 8.0 * sc.packet_size_bytes / 1e3


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason=(
        "with the packet timer's gains divided per window (no timeout without a loss) ns-2's "
        "Reno recovery gives the long connection 452.6 kb/s, 15 % above the thesis's 394.7, "
        "and NewReno 413.1; the agreement (398 against NewReno's 460) came with the timer's "
        "timeouts without a loss (docs/thesis-tables.md)"
    ),
)
def test_ns2_reno_recovery_gives_the_long_connection_the_thesis_goodput() -> None:
    thesis = published("001/table3.13/reno2/x2_100").value / 1e3  # 394.7 kb/s
    ns2 = _goodputs_kbps("reno", True)[1]
    newreno = _goodputs_kbps("newreno", False)[1]
    # the report's throughput tolerance, 10 %
    assert abs(ns2 / thesis - 1.0) < 0.10, (ns2, thesis)
    # switched off: the simulator's NewReno sender
    assert newreno / thesis - 1.0 > 0.10, (newreno, thesis)


def _mix(fast_recovery: str) -> tuple[float, float, float, float]:
    """Reno flows' mean timeouts and goodput (kb/s), Vegas flows' mean goodput, and the
    link's goodput (kb/s) over 20-60 s: 30 flows behind RED-5-15, half of them Vegas-3."""
    sc = thesis_mix_scenario(30, "red-5-15", "vegas-3", 50)
    reno = np.array([f.algorithm == "reno" for f in sc.flows])
    opts = ns2_packet_options(sc)
    # the Reno recovery alone switched: the Vegas flows recover as NewReno in both runs
    # (their ns-2 recovery is validation/test_thesis_vegas_recovery.py's)
    opts["fast_recovery"] = tuple(
        "newreno" if r == "ns2-vegas" else r for r in opts["fast_recovery"]
    )
    if fast_recovery == "newreno":  # the rest of the report's set-up (RED's wait_) kept
        opts = {**opts, "fast_recovery": "newreno", "timeout_recover": False}
    pk = simulate_packets(sc, sample_interval_s=1.0, min_rto_s=MANY_FLOWS_MIN_RTO_S, **opts)
    t = np.asarray(pk.t_s)
    g = np.array([f.goodput_pps for f in pk.flows])[:, t > 20.0].mean(axis=1)
    g = g * 8.0 * sc.packet_size_bytes / 1e3
    to = np.array([f.timeouts for f in pk.flows], dtype=float)
    return float(to[reno].mean()), float(g[reno].mean()), float(g[~reno].mean()), float(g.sum())


def test_ns2_reno_recovery_turns_partial_ack_repairs_into_timeouts() -> None:
    to_n, reno_n, vegas_n, link_n = _mix("newreno")
    to_r, reno_r, vegas_r, link_r = _mix("reno")
    assert to_r > 1.5 * to_n  # measured 19.1 against 11.0 timeouts per Reno flow
    assert reno_r < 0.9 * reno_n  # the Reno flows lose goodput ...
    assert vegas_r > vegas_n  # ... the Vegas flows take it ...
    assert abs(link_r / link_n - 1.0) < 0.02  # ... the link carries the same
    thesis = published("001/table3.25c/red-5-15/vegas-3/n30/vegas50/reno_goodput").value / 1e3
    assert reno_r < reno_n < thesis  # both below the thesis's, ns-2's recovery further
