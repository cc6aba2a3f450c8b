"""Sensitivity of Quick Vegas's "near-band" reading to its threshold (docs/algorithms.md).

The default reading takes a measurement round after an eq.-(3) increase made with a
backlog Δ >= c·α; c = 1/4 was chosen by agreement with two referees at once: one flow on
document 000 §5.1's path (ramp 13 s, 3.3 s after the halving, 2.0 s after the doubling) and
many flows (§5.3: a maximum queue similar to Vegas's). This script prints both for
c = 1/8, 1/4, 1/2 (and the literal "every-round" reading), packet engine:

    .venv/bin/python benchmarks/qv_near_band.py

Simulated times in seconds; queue range in packets over the second half of a 40 s run
with N flows started together. About a minute on a quiet machine.
"""

from __future__ import annotations

import numpy as np

from tcpfluid.algorithms import quick_vegas
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets


def single_flow(sampling: str) -> tuple[float, float, float]:
    s = simulate_packets(
        build_scenario("qv-basic").with_algorithm("quick-vegas", sampling=sampling)
    ).summary
    ramp = float(np.ravel(s.time_to_equilibrium_s)[0])
    halved, doubled = (float(x) for x in np.ravel(s.convergence_times_s)[:2])
    return ramp, halved, doubled


def many_flows(sampling: str, n: int, bandwidth: str) -> tuple[float, float]:
    sc = build_scenario(
        "qv-many-flows", bandwidth=bandwidth, flows=n, groups=1, duration="40s", active="40s"
    ).with_algorithm("quick-vegas", sampling=sampling)
    r = simulate_packets(sc)
    t = np.asarray(r.t_s)
    q = np.asarray(r.link("R1-R2").queue_pkts)[t >= 20.0]
    return float(q.min()), float(q.max())


def main() -> None:
    default = quick_vegas._NEAR_BAND
    rows = []
    try:
        for label, c, sampling in (
            ("alpha/8", 0.125, "near-band"),
            ("alpha/4 (default)", 0.25, "near-band"),
            ("alpha/2", 0.5, "near-band"),
            ("every-round (literal)", default, "every-round"),
        ):
            quick_vegas._NEAR_BAND = c
            ramp, halved, doubled = single_flow(sampling)
            q20 = many_flows(sampling, 20, "100Mbps")
            q60 = many_flows(sampling, 60, "1Gbps")
            rows.append((label, ramp, halved, doubled, q20, q60))
            print(
                f"{label:24s} ramp {ramp:5.1f}  halved {halved:5.2f}  doubled {doubled:5.2f}  "
                f"20 flows {q20[0]:4.0f}-{q20[1]:4.0f}  60 flows {q60[0]:4.0f}-{q60[1]:5.0f}",
                flush=True,
            )
    finally:
        quick_vegas._NEAR_BAND = default
    print("paper: ramp 13, halved 3.3, doubled 2.0; Vegas's band 40-80 (20 flows), 120-240 (60)")


if __name__ == "__main__":
    main()
