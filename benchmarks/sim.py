"""Speed of the packet simulator: simulated data packets and events per wall-clock second.

Run: ``python benchmarks/sim.py [--quick] [--repeat N]``. Prints a human table, then one
JSON line per measurement: ``{"name": ..., "value": ..., "unit": ...}``.

Measurements (one core; Numba compilation is cached on disk and excluded by a warm-up run)
-----------------------------------------------------------------------------------------
* ``sim/qv-basic/<law>``: document 000 §5.1, one flow on 50 Mb/s x 100 ms for 240 s with
  the 25 Mb/s CBR from 80 s to 160 s (about 1 million data packets): ``packets_per_s``
  (data packets sent by the TCP senders, retransmissions included, per second of wall
  time), ``events_per_s`` (events of the compiled loop: link departures, timers, CBR
  emissions, trace samples) and ``wall_s``.
* ``sim/qv-many-flows/vegas``: document 000 §5.3.1, 60 flows on 1 Gb/s x 100 ms with
  1500-packet buffers, groups of 20 joining at 0, 100, 200 s, each for 300 s, 500 s in all
  (about 58 million data packets): the same three figures. Skipped with ``--quick``.

The wall time of a run is the time spent in :func:`tcpfluid.sim.simulate_packets`'s event
loop, including every call into the control laws at round boundaries and losses; building
the arrays and the summary are excluded (``total_s`` includes them); ``law_time_s`` is the
part of ``wall_s`` spent in Python handling the laws' decisions. Each figure is the best of
``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import PacketResult, simulate_packets


def _best(scenario: Any, repeat: int) -> tuple[PacketResult, float]:
    best: PacketResult | None = None
    total = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = simulate_packets(scenario)
        elapsed = time.perf_counter() - t0
        if best is None or res.wall_time_s < best.wall_time_s:
            best, total = res, elapsed
    assert best is not None
    return best, total


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--quick", action="store_true", help="qv-basic only, shorter runs")
    args = parser.parse_args()

    # warm-up: load (or compile and cache) the Numba kernels
    simulate_packets(build_scenario("qv-basic", duration="2s", cbr="none").with_algorithm("vegas"))

    cases: list[tuple[str, Any, int]] = []
    laws = ("vegas",) if args.quick else ("vegas", "quick-vegas", "tcp-ho", "fast", "reno")
    duration = "60s" if args.quick else "240s"
    for law in laws:
        sc = build_scenario("qv-basic", duration=duration).with_algorithm(law)
        cases.append((f"sim/qv-basic/{law}", sc, args.repeat))
    if not args.quick:
        sc = build_scenario("qv-many-flows").with_algorithm("vegas")
        cases.append(("sim/qv-many-flows/vegas", sc, 1))

    records: list[dict[str, object]] = []
    print(f"{'case':<28} {'data pkts':>11} {'events':>11} {'wall s':>8} "
          f"{'pkts/s':>11} {'events/s':>11} {'law calls':>9} {'in laws s':>9}")  # fmt: skip
    for name, sc, repeat in cases:
        res, total = _best(sc, repeat)
        print(
            f"{name:<28} {res.data_packets:>11,} {res.events:>11,} {res.wall_time_s:>8.2f} "
            f"{res.packets_per_s:>11,.0f} {res.events_per_s:>11,.0f} {res.law_calls:>9,} "
            f"{res.law_time_s:>9.2f}"
        )
        records += [
            {"name": f"{name}/packets_per_s", "value": res.packets_per_s, "unit": "packets/s"},
            {"name": f"{name}/events_per_s", "value": res.events_per_s, "unit": "events/s"},
            {"name": f"{name}/wall_s", "value": res.wall_time_s, "unit": "s"},
            {"name": f"{name}/total_s", "value": total, "unit": "s"},
            {"name": f"{name}/law_time_s", "value": res.law_time_s, "unit": "s"},
        ]
    for rec in records:
        print(json.dumps(rec))


if __name__ == "__main__":
    main()
