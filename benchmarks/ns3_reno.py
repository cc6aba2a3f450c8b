"""ns-3's TcpLinuxReno as an external referee for losses: the same dumbbell in ns-3 and in
tcpfluid's packet simulator, round model and hybrid model, side by side.

Run: ``python benchmarks/ns3_reno.py [--case reno-25 ...] [--duration 100] [--ns3-python PATH]``.

The scenario (case ``reno-25``, the project's requirement: "one flow, 10 Mb/s × 100 ms,
25-packet buffer") is ``build_scenario("qv-basic", bandwidth="10Mbps", buffer=25,
cbr="none", algorithm="reno")``: access links of 1 Gb/s and 1 ms each way, the bottleneck
10 Mb/s and 48 ms each way (base RTT 2 × (1 + 48 + 1) = 100 ms of propagation plus the
transmission times), drop-tail buffers of 25 packets on the bottleneck (both directions;
the packet in transmission not counted, in both simulators), unlimited on the access
links (100,000 packets in ns-3), one bulk sender per flow from time 0, ``--duration``
simulated seconds. Other cases: ``reno-50``, ``reno-125`` (the buffer) and ``reno8-25``
(8 flows, each on its own pair of access links, all starting at 0).

Packet sizes: tcpfluid's data packets are 1000 bytes on the wire and its ACKs 42 bytes
(set here, 40 by default); ns-3's segments carry 958 bytes of payload, so that with the
20-byte TCP header (no options: no timestamps, no SACK), the 20-byte IP header and the
2-byte PPP header each data packet is 1000 bytes on the bottleneck and each ACK 42. Both
columns count packets: ns-3's goodput is the bytes its sink received / 958 / duration,
tcpfluid's the in-order packets delivered / duration.

ns-3's settings that differ from its defaults, to match tcpfluid's packet simulator's
defaults (``simulate_packets``: ``delayed_ack=False``, ``min_rto_s=0.2``,
``initial_rto_s=1.0``, ``fast_recovery="newreno"``, Reno's initial window 2 and infinite
``ssthresh``): ``TcpSocket::DelAckCount 1`` (an ACK per packet), ``InitialCwnd 2``,
``TcpSocketBase::MinRto 200 ms``, ``Sack false``, ``Timestamp false``,
``LimitedTransmit false`` (tcpfluid has no RFC 3042), ``TcpL4Protocol::RecoveryType
TcpClassicRecovery`` (RFC 5681/6582's window inflation and deflation; ns-3's default is
PRR), socket buffers of 16 MB (the sender never runs dry). What still differs: ns-3 opens
a connection with a handshake (the data starts one RTT later), rounds its timer to its
1 ms ``ClockGranularity``, and its TcpLinuxReno and NewReno recovery are its own code
(counting ACKed bytes, Linux's ``cwnd_cnt``), not tcpfluid's.

Counted in ns-3 (per flow, traced): loss events = entries into ``CA_RECOVERY`` (fast
retransmit) plus entries into ``CA_LOSS`` (retransmission timeout); timeouts = the
latter; retransmissions = data segments sent below the highest sequence sent so far;
drops = packets the bottleneck's queue dropped. In tcpfluid: the packet simulator's loss
events handed to the law (fast retransmits, retransmissions lost again, timeouts), its
timeouts and retransmissions; the fluid engines' loss events.

ns-3 is not a dependency of tcpfluid, not even an optional extra: it runs in its own interpreter.
Install its Python wheel (ns-3.44, about 70 MB, with cppyy) into a SEPARATE virtual
environment, never into tcpfluid's::

    python3 -m venv /tmp/ns3venv
    /tmp/ns3venv/bin/pip install ns3

and pass that interpreter with ``--ns3-python /tmp/ns3venv/bin/python`` (or set
``TCPFLUID_NS3_PYTHON``). Without it the script says so, prints the tcpfluid side only,
and exits with status 0. Prints a table per case and one JSON line per engine and case:
``{"case": ..., "engine": ..., "goodput_pps": ..., "loss_events": ..., ...}``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

#: case name -> (flows, bottleneck buffer in packets)
CASES: dict[str, tuple[int, int]] = {
    "reno-25": (1, 25),
    "reno-50": (1, 50),
    "reno-125": (1, 125),
    "reno8-25": (8, 25),
}

#: bytes of a data packet on the wire (tcpfluid's ``packet_size``) and of an ACK
PACKET_BYTES = 1000
ACK_BYTES = 42
#: ns-3's payload per segment: the wire size less IP (20), TCP (20) and PPP (2) headers
NS3_SEGMENT = PACKET_BYTES - 42

#: the ns-3 side, run by the ns-3 interpreter (argv: one JSON object, the case)
NS3_PROGRAM = r"""
import importlib.metadata, json, sys
from ns import ns

cfg = json.loads(sys.argv[1])
n, seg, duration = cfg["flows"], cfg["segment"], cfg["duration"]
ns.cppyy.cppdef(r'''
#include <vector>
namespace tcpf {
std::vector<uint64_t> recov, rto, retx, txdata;
std::vector<uint64_t> high;
std::vector<double> loss_t;
std::vector<int> loss_kind;
uint64_t drops = 0;
void Cong(uint32_t f, ns3::TcpSocketState::TcpCongState_t o,
          ns3::TcpSocketState::TcpCongState_t v) {
  if (o == v) return;
  if (v == ns3::TcpSocketState::CA_RECOVERY) recov[f]++;
  if (v == ns3::TcpSocketState::CA_LOSS) rto[f]++;
  if (f == 0 && (v == ns3::TcpSocketState::CA_RECOVERY || v == ns3::TcpSocketState::CA_LOSS)) {
    loss_t.push_back(ns3::Simulator::Now().GetSeconds());
    loss_kind.push_back(v == ns3::TcpSocketState::CA_LOSS ? 3 : 1);
  }
}
void Tx(uint32_t f, ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h,
        ns3::Ptr<const ns3::TcpSocketBase> s) {
  uint32_t len = p->GetSize();
  if (len == 0) return;
  uint64_t seq = h.GetSequenceNumber().GetValue();
  txdata[f]++;
  if (seq < high[f]) retx[f]++; else high[f] = seq + len;
}
void Drop(ns3::Ptr<const ns3::Packet> p) { drops++; }
void Hook(uint32_t f, uint32_t node) {
  std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
  ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeBoundCallback(&Cong, f));
  ns3::Config::ConnectWithoutContext(base + "Tx", ns3::MakeBoundCallback(&Tx, f));
}
void Setup(uint32_t n, uint32_t first_node, uint32_t router) {
  recov.assign(n, 0); rto.assign(n, 0); retx.assign(n, 0); txdata.assign(n, 0);
  high.assign(n, 0);
  for (uint32_t f = 0; f < n; ++f)  // the sockets exist once the senders have started
    ns3::Simulator::Schedule(ns3::MicroSeconds(1), &Hook, f, first_node + f);
  // no queue disc: a packet that finds the device's queue full (stopped, by flow control)
  // is dropped by the traffic-control layer, not by the queue
  ns3::NodeList::GetNode(router)->GetObject<ns3::TrafficControlLayer>()
    ->TraceConnectWithoutContext("TcDrop", ns3::MakeCallback(&Drop));
}
}
''')

ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpLinuxReno"))
recovery = cfg.get("recovery", "ns3::TcpClassicRecovery")
ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                     ns.TypeIdValue(ns.TypeId.LookupByName(recovery)))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(seg))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(cfg.get("sack", False)))
ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))

# nodes: 0 .. n-1 senders, n router R1, n+1 router R2, n+2 .. 2n+1 receivers
nodes = ns.NodeContainer()
nodes.Create(2 * n + 2)
stack = ns.InternetStackHelper()
stack.Install(nodes)
R1, R2 = n, n + 1


def link(a, b, rate, delay, buffer):
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
    p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(buffer)))
    pair = ns.NodeContainer()
    pair.Add(nodes.Get(a))
    pair.Add(nodes.Get(b))
    return p2p.Install(pair)


devs = [link(R1, R2, cfg["bandwidth"], "48ms", f"{cfg['buffer']}p")]
for f in range(n):
    devs.append(link(f, R1, "1Gbps", "1ms", "100000p"))
    devs.append(link(R2, n + 2 + f, "1Gbps", "1ms", "100000p"))
addr = ns.Ipv4AddressHelper()
ifaces = []
for i, d in enumerate(devs):
    addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces.append(addr.Assign(d))
    # no queue disc in front of the devices: their queues are the only buffers
    ns.TrafficControlHelper().Uninstall(d)
ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

sinks = []
for f in range(n):
    port = 5000 + f
    dst = ns.InetSocketAddress(ifaces[2 + 2 * f].GetAddress(1), port).ConvertTo()
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(seg))
    apps = bulk.Install(nodes.Get(f))
    apps.Start(ns.Seconds(0.0))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    sink_apps = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(
        nodes.Get(n + 2 + f)
    )
    sink_apps.Start(ns.Seconds(0.0))
    sinks.append(sink_apps)
ns.cppyy.gbl.tcpf.Setup(n, 0, R1)
ns.Simulator.Stop(ns.Seconds(duration))
ns.Simulator.Run()
g = ns.cppyy.gbl.tcpf
out = {
    "delivered": [int(s.Get(0).GetObject[ns.PacketSink]().GetTotalRx()) // seg for s in sinks],
    "recoveries": [int(g.recov[f]) for f in range(n)],
    "timeouts": [int(g.rto[f]) for f in range(n)],
    "retransmissions": [int(g.retx[f]) for f in range(n)],
    "data_sent": [int(g.txdata[f]) for f in range(n)],
    "drops": int(g.drops),
    "loss_t_s": [round(float(g.loss_t[i]), 4) for i in range(g.loss_t.size())],
    "loss_kind": [int(g.loss_kind[i]) for i in range(g.loss_kind.size())],
    "version": importlib.metadata.version("ns3"),
}
ns.Simulator.Destroy()
print(json.dumps(out))
"""

ENGINES = ("packet", "rounds", "hybrid")


def scenario(case: str, duration: float) -> Any:
    """tcpfluid's scenario of ``case`` (:data:`CASES`), ``duration`` simulated seconds."""
    from tcpfluid.scenarios import build_scenario

    flows, buffer = CASES[case]
    return build_scenario(
        "qv-basic",
        bandwidth="10Mbps",
        buffer=buffer,
        flows=flows,
        cbr="none",
        algorithm="reno",
        duration=f"{duration}s",
        packet_size=f"{PACKET_BYTES}B",
        ack_size=f"{ACK_BYTES}B",
    )


def run_tcpfluid(case: str, duration: float, engine: str) -> dict[str, Any]:
    """Goodput (packets/s, all flows), loss events (all flows) of one engine on ``case``;
    the packet simulator adds its retransmissions, timeouts and bottleneck drops."""
    from tcpfluid import simulate

    res = simulate(scenario(case, duration), engine)
    flows = res.summary.flows
    out: dict[str, Any] = {
        "goodput_pps": float(sum(f.throughput_pps for f in flows)),
        "loss_events": int(sum(f.losses for f in flows)),
    }
    if engine == "packet":
        ex = res.summary.extras
        out["retransmissions"] = int(sum(ex["retransmissions"]))
        out["timeouts"] = int(sum(ex["timeouts"]))
        out["drops"] = int(res.native.link("R1-R2").drops_total)
    return out


def run_ns3(py3: str, case: str, duration: float, sack: bool = False) -> dict[str, Any]:
    """ns-3's figures for ``case`` (the same keys as :func:`run_tcpfluid`), run by ``py3``;
    ``sack``: ns-3's sender and receiver negotiate SACK (RFC 2018; tcpfluid has none)."""
    flows, buffer = CASES[case]
    cfg = {
        "sack": sack,
        "flows": flows,
        "buffer": buffer,
        "duration": duration,
        "segment": NS3_SEGMENT,
        "bandwidth": "10Mbps",
    }
    out = subprocess.run([py3, "-c", NS3_PROGRAM, json.dumps(cfg)], capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"ns-3 failed ({out.returncode}):\n{out.stderr[-3000:]}")
    r = json.loads(lines[-1])
    return {
        "goodput_pps": sum(r["delivered"]) / duration,
        "loss_events": sum(r["recoveries"]) + sum(r["timeouts"]),
        "retransmissions": sum(r["retransmissions"]),
        "timeouts": sum(r["timeouts"]),
        "drops": r["drops"],
        "version": r["version"],
        "loss_t_s": r["loss_t_s"],
        "loss_kind": r["loss_kind"],
    }


def _cell(r: dict[str, Any], key: str) -> str:
    v = r.get(key)
    return "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--case", action="append", choices=sorted(CASES), help="case(s) to run (reno-25)"
    )
    ap.add_argument("--duration", type=float, default=100.0, help="simulated seconds (100)")
    ap.add_argument("--ns3-python", default=None, help="interpreter with the ns3 wheel")
    ap.add_argument(
        "--ns3-sack", action="store_true", help="ns-3 with SACK (its default; tcpfluid has none)"
    )
    args = ap.parse_args(argv)
    if not args.duration > 0:
        ap.error(f"--duration must be > 0, got {args.duration}")
    sys.path.insert(0, str(SRC))
    sys.path.insert(0, str(HERE))
    from ns3_vegas import _ns3_python  # one finder of ns-3's interpreter for both scripts

    py3 = _ns3_python(args.ns3_python)
    if py3 is None:
        print(
            "ns-3 not found: its column needs ns-3's Python wheel in a separate virtual\n"
            "environment (not a tcpfluid dependency):\n"
            "    python3 -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3\n"
            "then: python benchmarks/ns3_reno.py --ns3-python /tmp/ns3venv/bin/python\n"
            "(or set TCPFLUID_NS3_PYTHON). tcpfluid's engines only:"
        )
    keys = ("goodput_pps", "loss_events", "retransmissions", "timeouts", "drops")
    for case in args.case or ["reno-25"]:
        flows, buffer = CASES[case]
        rows: dict[str, dict[str, Any]] = {}
        if py3 is not None:
            rows["ns-3"] = run_ns3(py3, case, args.duration, args.ns3_sack)
        for engine in ENGINES:
            rows[engine] = run_tcpfluid(case, args.duration, engine)
        label = ""
        if "ns-3" in rows:
            sack = "with SACK" if args.ns3_sack else "no SACK"
            label = f"ns-3 {rows['ns-3']['version']} TcpLinuxReno, {sack}"
        print(
            f"\n{case}: {flows} Reno flow(s), 10 Mb/s x 100 ms, drop-tail {buffer} packets, "
            f"{args.duration:g} s; {label}"
        )
        print(f"{'engine':8} " + " ".join(f"{k:>15}" for k in keys) + f" {'goodput vs ns-3':>16}")
        for name, r in rows.items():
            vs = ""
            if "ns-3" in rows and name != "ns-3":
                ref = rows["ns-3"]["goodput_pps"]
                vs = f"{100.0 * (r['goodput_pps'] - ref) / ref:+.1f} %"
            print(f"{name:8} " + " ".join(f"{_cell(r, k):>15}" for k in keys) + f" {vs:>16}")
        if "ns-3" in rows:  # flow 1's loss events: time, 1 fast recovery / 3 timeout
            ev = zip(rows["ns-3"].pop("loss_t_s"), rows["ns-3"].pop("loss_kind"), strict=True)
            print("ns-3 flow 1 loss events (s, kind):", " ".join(f"{t:g}/{k}" for t, k in ev))
        for name, r in rows.items():
            print(json.dumps({"case": case, "engine": name, "duration_s": args.duration, **r}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
