"""The TCP-Ho paper's Table 7 (Reno with Vegas) on the packet simulator, with and without
random send times: the experiment behind validation/test_table7_phase_effect.py.

Run: ``python benchmarks/table7_phase_effect.py [--duration 60] [--overheads 0,0.4,0.8,3]
[--seed 1] [--ns2-vegas]``. For each proportion of Table 7 (Reno-Vegas 15-5, 10-10, 5-15)
and each send overhead (ms; ns-2's ``Agent/TCP`` ``overhead_``, the packet simulator's
``send_overhead_s``) it prints each scheme's mean throughput over the whole run (kb/s), the
range of its flows' retransmissions and timeouts, and the paper's mean throughput.
``--ns2-vegas`` gives the Vegas flows ns-2's default α = 1, β = 3 (the paper does not state
its values; the scenario's are the laws' documented 2 and 4).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from tcpfluid.published import published
from tcpfluid.scenarios import build_scenario
from tcpfluid.scenarios.mix import with_flow_params
from tcpfluid.sim import simulate_packets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60.0, help="s (default 60)")
    ap.add_argument("--overheads", default="0,0.4,0.8,3", help="ms, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ns2-vegas", action="store_true", help="Vegas alpha=1, beta=3")
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; duration {args.duration:g} s")
    for n_reno, n_vegas in ((15, 5), (10, 10), (5, 15)):
        sc = build_scenario(
            "ho-friendliness",
            algorithm=f"reno:{n_reno},vegas:{n_vegas}",
            duration=f"{args.duration}s",
        )
        if args.ns2_vegas:
            sc = with_flow_params(sc, "vegas", {"alpha": 1, "beta": 3})
        paper = {
            a: published(f"004/table7/reno-vegas/{n_reno}-{n_vegas}/{a}").value
            for a in ("reno", "vegas")
        }
        print(
            f"== Reno {n_reno} - Vegas {n_vegas}: paper Reno {paper['reno']:g}, "
            f"Vegas {paper['vegas']:g} kb/s"
        )
        for ov in (float(x) for x in args.overheads.split(",")):
            t0 = time.process_time()
            r = simulate_packets(sc, send_overhead_s=ov * 1e-3, seed=args.seed)
            cells = []
            for a in ("reno", "vegas"):
                fs = [f for f in r.flows if f.algorithm == a]
                kbps = np.mean([f.delivered_pkts for f in fs]) * sc.packet_size_bytes * 8
                kbps /= args.duration * 1e3
                rx = [f.retransmissions for f in fs]
                to = [f.timeouts for f in fs]
                cells.append(
                    f"{a} {kbps:5.0f} kb/s retx {min(rx)}-{max(rx)} timeouts {min(to)}-{max(to)}"
                )
            cpu = time.process_time() - t0
            print(f"overhead {ov:4.2f} ms | " + " | ".join(cells) + f" | cpu {cpu:.1f} s")


if __name__ == "__main__":
    main()
