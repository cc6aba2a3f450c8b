"""``tcpfluid predict``'s settling time against the packet simulator's, one flow per path.

Run: ``python benchmarks/predict_settling.py [--algorithms vegas,quick-vegas,tcp-ho]
[--bandwidths 1,10,50,155,1000] [--rtts 20,100,400] [--max-duration 3000]``.

For each algorithm and path (bandwidth in Mb/s × round-trip propagation delay in ms) it
prints the prediction (``tcpfluid.analytic.predict``: its settling time, the route that
gave it, and the closed forms' first reach of the target) beside the packet simulator's
time to equilibrium on the same path (the Quick Vegas paper §5.1 dumbbell, ``qv-basic``
with ``cbr=none`` and an unlimited buffer, as the prediction assumes), and their relative
difference. Both sides use one definition of settling (:func:`tcpfluid.metrics.settling`).

Run length of the packet simulation, fixed before it runs: three times the larger of the
prediction and the first reach, at least 30 s; a packet run that has not settled is run
again twice as long, once. Paths whose run would exceed ``--max-duration`` simulated
seconds are listed as skipped. Prints a table, then one JSON line per path.
"""

from __future__ import annotations

import argparse
import json
import time


def _packet_settling(alg: str, bw: float, rtt_ms: float, duration: float) -> float | None:
    import tcpfluid
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario(
        "qv-basic",
        bandwidth=f"{bw}Mbps",
        rtt=f"{rtt_ms}ms",
        cbr="none",
        buffer="inf",
        duration=f"{duration}s",
    ).with_algorithm(alg)
    flow = tcpfluid.simulate(sc, "packet").summary.flows[0]
    return flow.time_to_equilibrium_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--algorithms", default="vegas,quick-vegas,tcp-ho")
    ap.add_argument("--bandwidths", default="1,10,50,155,1000", help="Mb/s")
    ap.add_argument("--rtts", default="20,100,400", help="ms")
    ap.add_argument("--max-duration", type=float, default=3000.0, help="simulated s")
    args = ap.parse_args()
    from tcpfluid import Path
    from tcpfluid.analytic import predict
    from tcpfluid.scenarios import build_scenario

    rows = []
    head = f"{'algorithm':12} {'Mb/s':>6} {'ms':>5} {'predict s':>10} {'route':12} "
    head += f"{'reach s':>8} {'packet s':>9} {'diff':>7} {'predict cpu':>11}"
    print(head)
    print("-" * len(head))
    for alg in args.algorithms.split(","):
        for bw in (float(x) for x in args.bandwidths.split(",")):
            for rtt_ms in (float(x) for x in args.rtts.split(",")):
                # the same path as the packet run: mu and d of the scenario's bottleneck
                sc = build_scenario("qv-basic", bandwidth=f"{bw}Mbps", rtt=f"{rtt_ms}ms")
                path = sc.fluid_view().path
                row: dict[str, object] = {"algorithm": alg, "mbps": bw, "rtt_ms": rtt_ms}
                t0 = time.process_time()
                try:
                    pr = predict(alg, Path(path.mu, path.d))
                except ValueError as exc:
                    row["status"] = f"no prediction: {str(exc)[:60]}"
                    print(f"{alg:12} {bw:6g} {rtt_ms:5g} {row['status']}")
                    rows.append(row)
                    continue
                cpu = time.process_time() - t0
                pred = pr.time_to_equilibrium_s
                row.update(
                    predicted_s=pred,
                    route=pr.time_to_equilibrium_route,
                    reach_s=pr.time_to_target_s,
                    predict_cpu_s=cpu,
                )
                duration = max(30.0, 3.0 * max(pred or 0.0, pr.time_to_target_s))
                packet = None
                if duration > args.max_duration:
                    row["status"] = f"skipped: a {duration:.0f} s packet run"
                else:
                    packet = _packet_settling(alg, bw, rtt_ms, duration)
                    if packet is None and 2 * duration <= args.max_duration:
                        duration *= 2
                        packet = _packet_settling(alg, bw, rtt_ms, duration)
                    row["status"] = "ok" if packet is not None else "packet run did not settle"
                row.update(packet_s=packet, packet_duration_s=duration)
                diff = None if packet is None or pred is None else (pred - packet) / packet
                row["relative_difference"] = diff
                rows.append(row)
                fmt = lambda x: "-" if x is None else f"{x:.4g}"  # noqa: E731
                dtxt = "-" if diff is None else f"{100 * diff:+.0f}%"
                route = pr.time_to_equilibrium_route
                print(
                    f"{alg:12} {bw:6g} {rtt_ms:5g} {fmt(pred):>10} {route:12} "
                    f"{fmt(pr.time_to_target_s):>8} {fmt(packet):>9} {dtxt:>7} {cpu:10.3f}s"
                    + ("" if row["status"] == "ok" else f"  {row['status']}"),
                    flush=True,
                )
    for row in rows:
        print(json.dumps(row))


if __name__ == "__main__":
    main()
