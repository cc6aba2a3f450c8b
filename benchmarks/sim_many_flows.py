"""A packet run with many flows: building, simulating, memory.

Run: ``python benchmarks/sim_many_flows.py [--flows N] [--duration T]``. Defaults: the
Quick Vegas paper's §5.1 dumbbell (``qv-basic``: 50 Mb/s x 100 ms) with 10,000 Vegas flows
for 5 s and no CBR, the same as ``tcpfluid simulate qv-basic -e packet -a vegas --set
flows=10000 --set duration=5s --set cbr=none``.

Prints the time to build the scenario, the packet run's wall time (``wall_s``: the event
loop and the laws; ``total_s``: with building the arrays and the summary), data packets
per second of ``wall_s``, events, calls into the laws, and the process's peak resident
memory (``ru_maxrss``), then one JSON line per figure. The kernels are loaded (or compiled)
by a warm-up run first, so the peak includes them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--flows", type=int, default=10_000)
    parser.add_argument("--duration", default="5s")
    args = parser.parse_args()

    simulate_packets(build_scenario("qv-basic", duration="1s", cbr="none").with_algorithm("vegas"))
    base_mb = _peak_mb()
    t0 = time.perf_counter()
    sc = build_scenario(
        "qv-basic", flows=args.flows, duration=args.duration, cbr="none"
    ).with_algorithm("vegas")
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = simulate_packets(sc)
    summary = res.summary
    total_s = time.perf_counter() - t0
    peak_mb = _peak_mb()
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} CPUs")
    print(f"scenario: qv-basic, {len(sc.flows):,} Vegas flows, {len(sc.links):,} links, "
          f"{sc.duration_s:g} s, no CBR; built in {build_s:.2f} s")  # fmt: skip
    print(
        f"packet run: {res.data_packets:,} data packets, {res.events:,} events in "
        f"{res.wall_time_s:.2f} s ({res.packets_per_s:,.0f} packets/s; "
        f"{res.law_calls:,} calls into the laws, {res.law_time_s:.2f} s in them); "
        f"{total_s:.2f} s with the arrays and the summary; Jain index "
        f"{summary.jain_index if summary.jain_index is not None else float('nan'):.3f}"
    )
    print(f"peak resident memory: {peak_mb:,.0f} MB (after the warm-up: {base_mb:,.0f} MB)")
    for name, value, unit in (
        ("build_s", build_s, "s"),
        ("wall_s", res.wall_time_s, "s"),
        ("total_s", total_s, "s"),
        ("packets_per_s", res.packets_per_s, "packets/s"),
        ("law_calls", res.law_calls, "calls"),
        ("peak_rss_mb", peak_mb, "MB"),
    ):
        rec = {"name": f"sim_many_flows/{len(sc.flows)}/{name}", "value": value, "unit": unit}
        print(json.dumps(rec))


if __name__ == "__main__":
    main()
