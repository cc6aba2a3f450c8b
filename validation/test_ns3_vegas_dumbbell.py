"""ns-3 as a second opinion on several Vegas flows sharing a link: ten Vegas flows (α = 2,
β = 4, γ = 1) starting together on a 50 Mb/s × 100 ms dumbbell with a 1000-packet
drop-tail buffer (never full), 100 s (``benchmarks/ns3_dumbbell.py``'s case ``vegas-10``).

The documents' Vegas (the Quick Vegas paper §3.1, eq. 2; Tsang's thesis ch. 3 §3.2-3.3 on
ns-2's agent) holds each flow's backlog Δ = cwnd (1 - BaseRTT/RTT) between α and β packets
in congestion avoidance. On one bottleneck every flow sees the same queueing delay q, so
Δ_i = w_i q / (BDP + q): at rest the N flows' backlogs, the queue, lie in [N α, N β] =
[20, 40] packets, and no flow's window (share) is below α/β = 1/2 of another's.

ns-3.44's ``TcpVegas`` is a port of Linux's ``tcp_vegas.c``, which the thesis (ch. 2 §2.1)
lists as differing from the Arizona/ns-2 Vegas: it takes the least RTT of the round, not
the mean; its backlog is a whole number, ``cwnd - floor(cwnd BaseRTT / minRTT)``, so
``diff < α`` stops the increase only once Δ > α - 1 (the band is (1, 4] for α = 2); its
slow start doubles every round and leaves it at the target window plus one, not 7/8 of the
window; and a round with at most two RTT samples is NewReno's. Measured
(``benchmarks/ns3_dumbbell.py --ns3-tcp TcpVegas --case vegas-10``): ns-3 holds a mean
queue of 17.7 packets, below N α, and splits the link 0.196 / 0.112-0.120 / 0.068 (Jain
0.867; windows left slow start at 128, 61-64 and 32); the packet simulator 34.2 packets and
0.107 / 0.089 (Jain 0.992), the round model 27.9 and 0.995, the hybrid 25.4 and 0.995.
ns-3's Vegas copied line by line (``TcpVegasRules``) with those five rules switched to
ns-2's (``--ns3-rules mean_rtt,real_diff,ss_every_other,exit_cut,few_samples``) holds 26.8
packets with shares 0.093-0.126 (Jain 0.984): inside the band, as the packet simulator.
The packet simulator follows the documents; ns-3's Vegas is another implementation.

The tests that run ns-3 need its Python wheel in a separate virtual environment
(``/tmp/ns3venv``, or ``TCPFLUID_NS3_PYTHON``; not a tcpfluid dependency) and are skipped
without it. The scenario is the script's own (its function ``vegas_case``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

#: α, β of the library's Vegas (and of ns-3's TcpVegas, set by the script), packets
ALPHA, BETA = 2.0, 4.0
#: flows of the case
N = 10
#: ns-2's five rules that the ns-3 copy switches (the script's ``RULES``)
NS2_RULES = ("mean_rtt", "real_diff", "ss_every_other", "exit_cut", "few_samples")


def _band_figures(r: dict[str, Any]) -> tuple[float, float]:
    """The mean queue (packets waiting) and the least share over the greatest, over the run."""
    last = r["delivered_cum"][-1]
    return float(r["mean_queue_pkts"]), min(last) / max(last)


@pytest.fixture
def script(ns3_script: Callable[[str], ModuleType]) -> ModuleType:
    return ns3_script("ns3_dumbbell")


@pytest.fixture
def ns3_python(ns3_script: Callable[[str], ModuleType]) -> str:
    candidates = [os.environ.get("TCPFLUID_NS3_PYTHON"), "/tmp/ns3venv/bin/python"]
    py3 = ns3_script("ns3_vegas")._ns3_python(next((c for c in candidates if c), None))
    if py3 is None or not Path(py3).exists():
        pytest.skip("ns-3's Python wheel is not installed (/tmp/ns3venv)")
    return str(py3)


def _in_band(queue: float, ratio: float) -> bool:
    return N * ALPHA <= queue <= N * BETA and ratio >= ALPHA / BETA


@pytest.mark.parametrize("engine", ["packet", "rounds", "hybrid"])
def test_ten_vegas_flows_hold_the_queue_and_shares_the_band_sets(
    engine: str, script: ModuleType
) -> None:
    sc = script.vegas_case("vegas-10")
    if engine == "packet":
        r = script.run_packets(sc, 20.0, 1, 0.0)
    else:
        r = script.run_fluid(sc, engine, 20.0)
    queue, ratio = _band_figures(r)
    assert N * ALPHA <= queue <= N * BETA
    assert ratio >= ALPHA / BETA


def test_ns3_vegas_copy_with_no_rule_switched_is_ns3s_tcp_vegas(
    script: ModuleType, ns3_python: str
) -> None:
    sc = script.vegas_case("vegas-10", 5.0)
    stock = script.run_ns3(ns3_python, sc, "TcpVegas", 1.0)
    copy = script.run_ns3(ns3_python, sc, "TcpVegasRules", 1.0)
    assert copy["delivered_cum"] == stock["delivered_cum"]
    assert copy["ss_exit"] == stock["ss_exit"]


def test_ns3_holds_the_vegas_band_with_ns2s_rules_and_not_with_its_own(
    script: ModuleType, ns3_python: str
) -> None:
    sc = script.vegas_case("vegas-10")
    own = _band_figures(script.run_ns3(ns3_python, sc, "TcpVegas", 20.0))
    ns2 = _band_figures(script.run_ns3(ns3_python, sc, "TcpVegasRules", 20.0, rules=NS2_RULES))
    assert _in_band(*ns2), ns2
    # ns-3's whole-number backlog stops the increase at Δ > α - 1: a queue below N α; its
    # slow-start exits (128, 61-64, 32) leave windows further apart than α/β
    assert own[0] < N * ALPHA, own
    assert own[1] < ALPHA / BETA, own
