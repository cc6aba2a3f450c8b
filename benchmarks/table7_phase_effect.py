"""The TCP-Ho paper's Table 7 on the packet simulator, with and without random send
times: the experiment behind validation/test_table7_phase_effect.py.

Run: ``python benchmarks/table7_phase_effect.py [--duration 60] [--overheads 0,0.4,0.8,3]
[--seed 1] [--ns2-vegas] [--pairs reno-vegas]``. For each proportion of Table 7 (15-5,
10-10, 5-15 of each pair; Reno-Vegas by default) and each send overhead (ms; ns-2's
``Agent/TCP`` ``overhead_``, the packet simulator's ``send_overhead_s``) it prints each
scheme's mean throughput over the whole run (kb/s), the range of its flows'
retransmissions and timeouts, and the paper's mean throughputs. ``--pairs`` picks other
pairs of Table 7 (``fast-reno``, ``fast-vegas``, ``tcp-ho-vegas``, ``tcp-ho-reno``,
``fast-tcp-ho``). ``--ns2-vegas`` gives the Vegas flows ns-2's default α = 1, β = 3 (the
paper does not state its values; the scenario's are the laws' documented 2 and 4). The CPU
time of each run is printed; a run is deterministic for a seed.
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

#: Table 7's pairs: the published key and the two algorithms in the key's order
_PAIRS = {
    "reno-vegas": ("reno", "vegas"),
    "tcp-ho-vegas": ("tcp-ho", "vegas"),
    "tcp-ho-reno": ("tcp-ho", "reno"),
    "fast-vegas": ("fast", "vegas"),
    "fast-reno": ("fast", "reno"),
    "fast-tcp-ho": ("fast", "tcp-ho"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60.0, help="s (default 60)")
    ap.add_argument("--overheads", default="0,0.4,0.8,3", help="ms, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ns2-vegas", action="store_true", help="Vegas alpha=1, beta=3")
    ap.add_argument(
        "--pairs", default="reno-vegas", help="Table 7's pairs, e.g. reno-vegas,fast-reno"
    )
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; duration {args.duration:g} s")
    runs = [
        (pair, na, nb) for pair in args.pairs.split(",") for na, nb in ((15, 5), (10, 10), (5, 15))
    ]
    for pair, na, nb in runs:
        a_name, b_name = _PAIRS[pair]
        sc = build_scenario(
            "ho-friendliness",
            algorithm=f"{a_name}:{na},{b_name}:{nb}",
            duration=f"{args.duration}s",
        )
        if args.ns2_vegas:
            sc = with_flow_params(sc, "vegas", {"alpha": 1, "beta": 3})
        paper = {a: published(f"004/table7/{pair}/{na}-{nb}/{a}").value for a in (a_name, b_name)}
        print(
            f"== {a_name} {na} - {b_name} {nb}: paper {a_name} {paper[a_name]:g}, "
            f"{b_name} {paper[b_name]:g} kb/s"
        )
        for ov in (float(x) for x in args.overheads.split(",")):
            t0 = time.process_time()
            r = simulate_packets(sc, send_overhead_s=ov * 1e-3, seed=args.seed)
            cells = []
            for a in (a_name, b_name):
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
