"""tcpfluid's packet simulator next to ns-3's TcpVegas on the same dumbbell, in one run.

Run: ``python benchmarks/ns3_vegas.py [--duration 60] [--repeat 3] [--ns3-python PATH]``.

The dumbbell is document 000 §5.1's (``qv-basic``) without its CBR source: one Vegas flow
(α = 2, β = 4, γ = 1, ns-3's defaults too), 1000-byte data packets and 40-byte ACKs, access
links of 1 Gb/s and 1 ms each way, the bottleneck 50 Mb/s and 48 ms each way (base RTT
100 ms plus transmission times), drop-tail buffers that never fill (100,000 packets in
ns-3, infinite in tcpfluid), one ACK per data packet, for ``--duration`` seconds of
simulated time. ns-3's socket buffers are 16 MB (16,000 packets, 25 times the path's
bandwidth-delay product; with 1 GB the bulk sender's first fill of its buffer doubled
ns-3's time), no SACK, no timestamps. The two Vegas implementations are not the same
code: ns-3's leaves slow start earlier (more packets delivered in a short run), so the
figure compared is a rate per packet, not the time of the run. Both simulators run the
same scenario in turns, each in its own process; what is timed is the simulation itself
(ns-3's ``Simulator::Run``, tcpfluid's ``simulate_packets`` with its kernels already
compiled), as CPU time (user + system) and wall time. The figure compared is data packets
delivered to the receiver per second of CPU time, best of ``--repeat`` runs, and their
ratio.

ns-3 is not a dependency of tcpfluid. Install its Python wheel (ns-3.44, about 70 MB with
cppyy) into a SEPARATE virtual environment, never into tcpfluid's::

    python3 -m venv /tmp/ns3venv
    /tmp/ns3venv/bin/pip install ns3

and pass that interpreter with ``--ns3-python /tmp/ns3venv/bin/python`` (or set
``TCPFLUID_NS3_PYTHON``). Without it the script says so and exits with status 0. ns-3's
Python bindings compile their C++ glue with cppyy at the first import in a process (tens
of seconds of CPU); that is not in the timed part.

Prints a table and one JSON line per figure:
``{"name": ..., "tree": "tcpfluid"|"ns-3", "value": ..., "unit": ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

#: the ns-3 side, run by the ns-3 interpreter (argv: duration in seconds)
NS3_PROGRAM = r"""
import json, resource, sys, time
from ns import ns

duration = float(sys.argv[1])
seg = 1000
ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpVegas"))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(seg))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))

nodes = ns.NodeContainer()
nodes.Create(4)  # S1, R1, R2, D1
stack = ns.InternetStackHelper()
stack.Install(nodes)

def link(a, b, rate, delay):
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
    p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("100000p")))
    pair = ns.NodeContainer()
    pair.Add(nodes.Get(a))
    pair.Add(nodes.Get(b))
    return p2p.Install(pair)

devs = [link(0, 1, "1Gbps", "1ms"), link(1, 2, "50Mbps", "48ms"), link(2, 3, "1Gbps", "1ms")]
addr = ns.Ipv4AddressHelper()
ifaces = []
for i, d in enumerate(devs):
    addr.SetBase(ns.Ipv4Address(f"10.1.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces.append(addr.Assign(d))
    # no queue disc (Assign installs one) in front of the devices: their queues are the
    # only buffers
    ns.TrafficControlHelper().Uninstall(d)
ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

port = 5000
dst = ns.InetSocketAddress(ifaces[2].GetAddress(1), port).ConvertTo()
bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
bulk.SetAttribute("SendSize", ns.UintegerValue(seg))
src_apps = bulk.Install(nodes.Get(0))
src_apps.Start(ns.Seconds(0.0))
any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
sink_helper = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr)
sink_apps = sink_helper.Install(nodes.Get(3))
sink_apps.Start(ns.Seconds(0.0))
ns.Simulator.Stop(ns.Seconds(duration))

r0 = resource.getrusage(resource.RUSAGE_SELF)
w0 = time.perf_counter()
ns.Simulator.Run()
wall = time.perf_counter() - w0
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
sink = sink_apps.Get(0).GetObject[ns.PacketSink]()
delivered = sink.GetTotalRx() // seg
ns.Simulator.Destroy()
print(json.dumps({"delivered": int(delivered), "cpu_s": cpu, "wall_s": wall}))
"""

#: the tcpfluid side, run by this interpreter with this tree's src first on the path
TCPFLUID_PROGRAM = r"""
import json, resource, sys, time
from tcpfluid.scenarios import build_scenario
from tcpfluid.sim import simulate_packets

duration = float(sys.argv[1])
sc = build_scenario("qv-basic", duration=f"{duration}s", cbr="none").with_algorithm("vegas")
simulate_packets(build_scenario("qv-basic", duration="1s", cbr="none").with_algorithm("vegas"))
r0 = resource.getrusage(resource.RUSAGE_SELF)
w0 = time.perf_counter()
res = simulate_packets(sc)
wall = time.perf_counter() - w0
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
delivered = int(res.flows[0].delivered_pkts)
print(json.dumps({"delivered": delivered, "sent": int(res.data_packets), "cpu_s": cpu,
                  "wall_s": wall}))
"""


def _ns3_python(arg: str | None) -> str | None:
    """The interpreter that has ns-3's bindings, or None."""
    cands = [arg, os.environ.get("TCPFLUID_NS3_PYTHON"), sys.executable]
    for c in cands:
        if not c or not (Path(c).exists() or shutil.which(c)):
            continue
        ok = subprocess.run(
            [c, "-c", "import importlib.util as u, sys; sys.exit(u.find_spec('ns') is None)"],
            capture_output=True,
        )
        if ok.returncode == 0:
            return c
    return None


def _run(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"{cmd[0]} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (60)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each simulator (best kept)")
    ap.add_argument("--ns3-python", default=None, help="interpreter with the ns3 wheel")
    args = ap.parse_args(argv)
    if not args.duration > 0 or args.repeat < 1:
        ap.error("--duration must be > 0 and --repeat >= 1")
    py3 = _ns3_python(args.ns3_python)
    if py3 is None:
        print(
            "ns-3 not found: this comparison needs ns-3's Python wheel in a separate virtual\n"
            "environment (not a tcpfluid dependency):\n"
            "    python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3\n"
            "then: python benchmarks/ns3_vegas.py --ns3-python /tmp/ns3venv/bin/python\n"
            "(or set TCPFLUID_NS3_PYTHON). Nothing was measured."
        )
        return 0
    env = dict(os.environ, PYTHONPATH=str(SRC))
    load = os.getloadavg()[0]
    dur = str(args.duration)
    best: dict[str, dict[str, Any]] = {}
    for _ in range(args.repeat):
        for name, cmd, e in (
            ("tcpfluid", [sys.executable, "-c", TCPFLUID_PROGRAM, dur], env),
            ("ns-3", [py3, "-c", NS3_PROGRAM, dur], None),
        ):
            r = _run(cmd, e)
            if name not in best or r["cpu_s"] < best[name]["cpu_s"]:
                best[name] = r
    print(f"load average before: {load:.2f} (1 min) on {os.cpu_count()} CPUs")
    print(f"one Vegas flow, 50 Mb/s x 100 ms dumbbell, {args.duration:g} s simulated")
    print(f"{'simulator':10} {'delivered':>10} {'CPU s':>8} {'wall s':>8} {'pkts/CPU s':>12}")
    rates: dict[str, float] = {}
    for name in ("tcpfluid", "ns-3"):
        r = best[name]
        delivered = r["delivered"]
        rates[name] = delivered / r["cpu_s"]
        print(
            f"{name:10} {delivered:>10,} {r['cpu_s']:>8.3f} {r['wall_s']:>8.3f} "
            f"{rates[name]:>12,.0f}"
        )
    ratio = rates["tcpfluid"] / rates["ns-3"]
    print(f"{'ratio':10} {'':>10} {'':>8} {'':>8} {ratio:>11.1f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    for name in ("tcpfluid", "ns-3"):
        rec = {"name": "ns3-vegas/packets_per_cpu_s", "tree": name, "value": rates[name]}
        print(json.dumps({**rec, "unit": "packets/s"}))
    print(json.dumps({"name": "ns3-vegas/ratio", "tree": "tcpfluid", "value": ratio, "unit": "x"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
