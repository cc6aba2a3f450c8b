"""Each flow's slow-start exit window in the fluid engines against the packet simulator's,
for flows that start together on one path.

Run: ``python benchmarks/slow_start_exits.py [--algorithms vegas,enhanced-vegas]
[--flows 2,3,5,8] [--bandwidths 10,50,200] [--rtts 20,80,200] [--access-links]
[--engines rounds,hybrid]``.

For each algorithm, flow count, bandwidth (Mb/s) and round-trip propagation delay (ms) it
runs the flows together on an unlimited buffer for 40 round trips plus 1 s, on the packet
simulator and on each fluid engine, and compares each flow's window of the round that
leaves slow start (``FlowSummary.ss_exit_window_pkts``) with the packet simulator's
(within 5 %: a step apart is ×1.5 or ×2). The path is ``tcpfluid.Path(...).scenario``,
whose flows reach the bottleneck directly (no access links: each initial window arrives
as one run), or with ``--access-links`` a dumbbell whose access links run at ten times the
bottleneck's rate (``rtt_dumbbell``: the flows' first packets come before any second one).
Prints the paths where a flow parts, then per algorithm and engine the count of paths that
part out of those run.
"""

from __future__ import annotations

import argparse
import itertools
import math


def _exits(sc: object, engine: str) -> list[float]:
    import tcpfluid

    res = tcpfluid.simulate(sc, engine)  # type: ignore[arg-type]
    return [
        math.nan if f.ss_exit_window_pkts is None else float(f.ss_exit_window_pkts)
        for f in res.summary.flows
    ]


def _same(a: list[float], b: list[float]) -> bool:
    return all(
        (math.isnan(x) and math.isnan(y)) or abs(x - y) <= 0.05 * abs(y)
        for x, y in zip(a, b, strict=True)
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--algorithms", default="vegas,enhanced-vegas,quick-vegas,itcp-vegas")
    ap.add_argument("--flows", default="2,3,5,8")
    ap.add_argument("--bandwidths", default="10,50,200", help="Mb/s")
    ap.add_argument("--rtts", default="20,80,200", help="ms")
    ap.add_argument("--access-links", action="store_true", help="a dumbbell with access links")
    ap.add_argument("--engines", default="rounds,hybrid")
    args = ap.parse_args()

    import tcpfluid
    from tcpfluid.scenarios import rtt_dumbbell

    engines = args.engines.split(",")
    counts: dict[tuple[str, str], list[int]] = {}
    grid = itertools.product(
        args.algorithms.split(","),
        [int(x) for x in args.flows.split(",")],
        [float(x) for x in args.bandwidths.split(",")],
        [float(x) for x in args.rtts.split(",")],
    )
    for law, n, mbps, rtt_ms in grid:
        duration = 40 * rtt_ms / 1e3 + 1.0
        if args.access_links:
            sc = rtt_dumbbell(mbps * 1e6, [rtt_ms / 1e3] * n, [law] * n, duration_s=duration)
        else:
            path = tcpfluid.Path(f"{mbps}Mb/s", f"{rtt_ms}ms")
            sc = path.scenario(law, duration=duration, flows=n)
        ref = _exits(sc, "packet")
        got = {e: _exits(sc, e) for e in engines}
        parted = [e for e in engines if not _same(got[e], ref)]
        for e in engines:
            c = counts.setdefault((law, e), [0, 0])
            c[0] += e in parted
            c[1] += 1
        if parted:
            shown = "  ".join(f"{e} {[round(x, 1) for x in got[e]]}" for e in engines)
            print(f"{law} x{n} {mbps:g} Mb/s {rtt_ms:g} ms: packet {ref}  {shown}", flush=True)
    print("\npaths where a flow's exit window parts from the packet simulator's (of those run):")
    for (law, e), (bad, total) in counts.items():
        print(f"  {law:16s} {e:8s} {bad}/{total}")


if __name__ == "__main__":
    main()
