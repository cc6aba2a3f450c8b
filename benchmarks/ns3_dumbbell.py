"""ns-3 as a referee for who gets the link: Reno flows with their own base RTTs on the
hold-out's dumbbell, in ns-3 and in tcpfluid's packet simulator, per flow.

Run: ``python benchmarks/ns3_dumbbell.py --holdout IDX SEED [--duration D] [--ns3-python PATH]``
(or ``--case NAME``, :data:`CASES`).

The scenario is the hold-out's (``benchmarks/holdout.py``, ``draw_case(IDX, SEED)``,
built by :func:`tcpfluid.scenarios.rtt_dumbbell`) cut to ``--duration`` seconds and
without its CBR source (which must start after the cut) and without the flows that join
after it: flow i runs S_i - R1 - R2 - D_i; the bottleneck R1-R2 (and R2-R1)
at the drawn rate with a one-way delay of a quarter of flow 0's RTT and a drop-tail buffer
of the drawn size on R1-R2 (the packet in transmission not counted, in both simulators);
each flow's access links at ten times that rate with the one-way delay that makes its
round-trip propagation delay its own (infinite buffers in tcpfluid, 100,000 packets in
ns-3). Only Reno flows on drop-tail, none leaving (others are refused). Each flow starts
at its drawn start time and runs to the end.

Packet sizes and ns-3 settings are ``benchmarks/ns3_reno.py``'s (its docstring): 958-byte
segments (1000 bytes on the wire) and 42-byte ACKs in both simulators, one ACK per
packet, initial window 2, 200 ms minimum RTO, no SACK (``--ns3-sack``: with it), no
timestamps, no limited transmit, RFC 6582 recovery (``TcpClassicRecovery``), 16 MB socket
buffers; ``--ns3-tcp`` picks ns-3's ``TcpLinuxReno`` (the default) or ``TcpNewReno``. ns-3
opens each connection with a handshake, so its data starts one RTT after the flow's start.
Without SACK, ns-3's repair after a timeout spirals here too (a fast recovery every RTT at
windows of 2-4 packets: seed 80's scenario 14 delivers 12 % of the link in its first 20 s),
so its runs that matter are with ``--ns3-sack``.

Phase: both simulators send at deterministic times. ``--send-overhead S`` gives the packet
simulator's senders ns-2's ``overhead_`` (``send_overhead_s``: a uniform random wait of up
to S before each data packet; docs/mechanisms.md, ``phase-effect``); ``--ns3-jitter S``
gives ns-3 the same on the wire: each sender's access link (S_i to R1) delays each packet
by a uniform random time in [0, S], never delivering a packet before the one sent ahead of
it (a ``PointToPointChannel`` subclass, ``JitterChannel``). ``--seed`` seeds both.

Printed: per flow its share of the packets delivered (in-order, at the receiver) over
each ``--interval`` and over the run, its loss events (fast retransmits and timeouts) and
timeouts, per simulator; and one JSON line per simulator.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

PACKET_BYTES = 1000
ACK_BYTES = 42
NS3_SEGMENT = PACKET_BYTES - 42

#: named cases: (hold-out index, seed, duration s, factor on every rate and the buffer)
CASES: dict[str, tuple[int, int, float, float]] = {
    # seed 80 #14: two Reno flows, 110 Mb/s, 125 / 142 ms, 478 packets (0.28 BDP)
    "s80-14": (14, 80, 600.0, 1.0),
    # the same at a tenth of the rates and the buffer (11 Mb/s, 48 packets): the same split
    # in the packets (0.185 / 0.815 over 400 s; the whole scenario 0.21 / 0.79), ten times
    # cheaper in ns-3
    "s80-14-tenth": (14, 80, 400.0, 0.1),
    # seed 80 #54: five Reno flows, 2.65 Mb/s x 25.3 ms, 23 packets (2.7 BDP), the whole run
    "s80-54": (54, 80, 10.5, 1.0),
    # seed 80 #38: 31 Reno flows, 19.8 Mb/s x 42.1 ms, 114 packets; before its CBR (10.04 s)
    "s80-38": (38, 80, 10.0, 1.0),
    # seed 80 #62: 24 Reno flows, 157 Mb/s x 12.6-13.2 ms, 36 packets; before the joins
    "s80-62": (62, 80, 11.0, 1.0),
    # seed 1 #46: three Reno flows, 10.3 Mb/s x 11.3 / 14 / 36 ms, 7 packets, the whole run
    "s1-46": (46, 1, 6.23, 1.0),
    # seed 1 #14: ten Reno flows, 32.9 Mb/s x 176 ms, 2003 packets; before its CBR (618 s)
    "s1-14": (14, 1, 600.0, 1.0),
}

#: the ns-3 side (argv: one JSON object: the dumbbell and the run)
NS3_PROGRAM = r"""
import importlib.metadata, json, sys
from ns import ns

cfg = json.loads(sys.argv[1])
n, seg = len(cfg["access_delay_s"]), cfg["segment"]
ns.cppyy.cppdef(r'''
#include <vector>
namespace tcpd {
std::vector<uint64_t> recov, rto;
std::vector<double> cwnd;
std::vector<double> ev_t; std::vector<int> ev_f; std::vector<int> ev_k; std::vector<double> ev_w;
uint64_t drops = 0;
void Cong(uint32_t f, ns3::TcpSocketState::TcpCongState_t o,
          ns3::TcpSocketState::TcpCongState_t v) {
  if (o == v) return;
  int k = 0;
  if (v == ns3::TcpSocketState::CA_RECOVERY) { recov[f]++; k = 1; }
  if (v == ns3::TcpSocketState::CA_LOSS) { rto[f]++; k = 3; }
  if (k) { ev_t.push_back(ns3::Simulator::Now().GetSeconds()); ev_f.push_back(f);
           ev_k.push_back(k); ev_w.push_back(cwnd[f]); }
}
void Cwnd(uint32_t f, uint32_t seg, uint32_t o, uint32_t v) { cwnd[f] = double(v) / seg; }
void Drop(ns3::Ptr<const ns3::Packet> p) { drops++; }
void Hook(uint32_t f, uint32_t node, uint32_t seg) {
  std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
  ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeBoundCallback(&Cong, f));
  ns3::Config::ConnectWithoutContext(base + "CongestionWindow",
                                     ns3::MakeBoundCallback(&Cwnd, f, seg));
}
void Setup(uint32_t n, uint32_t router) {
  recov.assign(n, 0); rto.assign(n, 0); cwnd.assign(n, 0.0);
  ns3::NodeList::GetNode(router)->GetObject<ns3::TrafficControlLayer>()
    ->TraceConnectWithoutContext("TcDrop", ns3::MakeCallback(&Drop));
}
// a point-to-point channel that delays each packet sent from its first device by a uniform
// random extra time in [0, jit] s, never reordering (a packet is delivered no earlier than
// the one before it): ns-2's overhead_, a random wait before each data packet, on the wire
class JitterChannel : public ns3::PointToPointChannel {
 public:
  double jit = 0.0;
  ns3::Ptr<ns3::UniformRandomVariable> u;
  ns3::Time last;
  bool TransmitStart(ns3::Ptr<const ns3::Packet> p, ns3::Ptr<ns3::PointToPointNetDevice> src,
                     ns3::Time txTime) override {
    uint32_t wire = (src == GetSource(0)) ? 0 : 1;
    ns3::Ptr<ns3::PointToPointNetDevice> dst = GetDestination(wire);
    ns3::Time at = ns3::Simulator::Now() + txTime + GetDelay();
    if (wire == 0 && jit > 0) {
      at += ns3::Seconds(u->GetValue(0.0, jit));
      if (at < last) at = last;
      last = at;
    }
    ns3::Simulator::ScheduleWithContext(dst->GetNode()->GetId(), at - ns3::Simulator::Now(),
                                        &ns3::PointToPointNetDevice::Receive, dst, p->Copy());
    return true;
  }
};
ns3::NetDeviceContainer JitterLink(ns3::Ptr<ns3::Node> a, ns3::Ptr<ns3::Node> b, uint64_t bps,
                                   int64_t delay_ns, uint32_t qpk, double jit, int64_t stream) {
  ns3::Ptr<JitterChannel> ch = ns3::CreateObject<JitterChannel>();
  ch->SetAttribute("Delay", ns3::TimeValue(ns3::NanoSeconds(delay_ns)));
  ch->jit = jit;
  ch->u = ns3::CreateObject<ns3::UniformRandomVariable>();
  ch->u->SetStream(stream);
  ns3::NetDeviceContainer out;
  for (auto n : {a, b}) {
    ns3::Ptr<ns3::PointToPointNetDevice> d = ns3::CreateObject<ns3::PointToPointNetDevice>();
    d->SetAttribute("DataRate", ns3::DataRateValue(ns3::DataRate(bps)));
    d->SetAddress(ns3::Mac48Address::Allocate());
    n->AddDevice(d);
    auto q = ns3::CreateObject<ns3::DropTailQueue<ns3::Packet>>();
    q->SetMaxSize(ns3::QueueSize(ns3::PACKETS, qpk));
    d->SetQueue(q);
    d->Attach(ch);
    out.Add(d);
  }
  return out;
}
void HookAt(double t, uint32_t f, uint32_t node, uint32_t seg) {
  ns3::Simulator::Schedule(ns3::Seconds(t), &Hook, f, node, seg);
}
}
''')

ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue(cfg["tcp"]))
ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType",
                     ns.TypeIdValue(ns.TypeId.LookupByName("ns3::TcpClassicRecovery")))
ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(seg))
ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(2))
ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(cfg["sack"]))
ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(False))
ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))

ns.RngSeedManager.SetSeed(1)
ns.RngSeedManager.SetRun(cfg["seed"])  # before any random variable is made
nodes = ns.NodeContainer()
nodes.Create(2 * n + 2)  # 0..n-1 senders, n R1, n+1 R2, n+2.. receivers
ns.InternetStackHelper().Install(nodes)
R1, R2 = n, n + 1
rate = cfg["rate_bps"]


def link(a, b, bps, delay_s, buffer):
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(int(round(bps)))))
    p2p.SetChannelAttribute("Delay", ns.TimeValue(ns.NanoSeconds(int(round(delay_s * 1e9)))))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize(buffer)))
    pair = ns.NodeContainer()
    pair.Add(nodes.Get(a))
    pair.Add(nodes.Get(b))
    return p2p.Install(pair)


devs = [link(R1, R2, rate, cfg["core_delay_s"], f"{cfg['buffer']}p")]
for f in range(n):
    if cfg["jitter_s"] > 0:  # the sender's access link delays its packets at random
        devs.append(ns.cppyy.gbl.tcpd.JitterLink(
            nodes.Get(f), nodes.Get(R1), int(round(10 * rate)),
            int(round(cfg["access_delay_s"][f] * 1e9)), 100000, cfg["jitter_s"], f + 1))
    else:
        devs.append(link(f, R1, 10 * rate, cfg["access_delay_s"][f], "100000p"))
    devs.append(link(R2, n + 2 + f, 10 * rate, cfg["access_delay_s"][f], "100000p"))
addr = ns.Ipv4AddressHelper()
ifaces = []
for i, d in enumerate(devs):
    addr.SetBase(ns.Ipv4Address(f"10.{1 + i // 250}.{i % 250}.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces.append(addr.Assign(d))
    if i == 0 or cfg["jitter_s"] == 0 or i % 2 == 0:  # the jitter links have no queue disc
        ns.TrafficControlHelper().Uninstall(d)
ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
g = ns.cppyy.gbl.tcpd
g.Setup(n, R1)
sinks = []
for f in range(n):
    port = 5000 + f
    dst = ns.InetSocketAddress(ifaces[2 + 2 * f].GetAddress(1), port).ConvertTo()
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(seg))
    apps = bulk.Install(nodes.Get(f))
    apps.Start(ns.Seconds(cfg["start_s"][f]))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
    sk = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(nodes.Get(n + 2 + f))
    sk.Start(ns.Seconds(0.0))
    sinks.append(sk.Get(0).GetObject[ns.PacketSink]())
    g.HookAt(cfg["start_s"][f] + 1e-6, f, f, seg)
chunks, t, dt = [], 0.0, cfg["interval_s"]
while t < cfg["duration_s"] - 1e-9:
    t = min(cfg["duration_s"], t + dt)
    ns.Simulator.Stop(ns.Seconds(t) - ns.Simulator.Now())
    ns.Simulator.Run()
    chunks.append([int(s.GetTotalRx()) // seg for s in sinks])
out = {
    "delivered_cum": chunks,
    "recoveries": [int(g.recov[f]) for f in range(n)],
    "timeouts": [int(g.rto[f]) for f in range(n)],
    "drops": int(g.drops),
    "events": [
        [round(float(g.ev_t[i]), 4), int(g.ev_f[i]), int(g.ev_k[i]), round(float(g.ev_w[i]), 1)]
        for i in range(g.ev_t.size())
    ],
    "version": importlib.metadata.version("ns3"),
}
ns.Simulator.Destroy()
print(json.dumps(out))
"""


def scenario(index: int, seed: int, duration: float, scale: float = 1.0) -> Any:
    """The hold-out's scenario ``index`` of ``seed`` cut to ``duration`` s, without its CBR
    source (which must start after ``duration``), with 42-byte ACKs; Reno on drop-tail only."""
    sys.path.insert(0, str(HERE))
    import holdout

    case = holdout.draw_case(index, seed)
    sc = case.scenario
    if sc.cbr and min(c.start_s for c in sc.cbr) < duration:
        raise ValueError(f"hold-out {seed} #{index}: its CBR source starts before {duration} s")
    if case.spec["red"] or set(case.laws) != {"reno"} or case.spec["leaves"]:
        raise ValueError(f"hold-out {seed} #{index}: only Reno on drop-tail, no leaves")
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    flows = [f for f in sc.flows if f.start_s < duration]  # joins after the cut left out
    links = [
        dataclasses.replace(
            ln,
            rate_bps=ln.rate_bps * scale,
            buffer_pkts=ln.buffer_pkts
            if ln.name != "R1-R2"
            else max(2, round(ln.buffer_pkts * scale)),
        )
        for ln in sc.links
    ]
    return dataclasses.replace(
        sc, duration_s=duration, ack_size_bytes=float(ACK_BYTES), cbr=(), flows=flows, links=links
    )


def ns3_config(
    sc: Any, tcp: str, interval: float, sack: bool = False, jitter: float = 0.0, seed: int = 1
) -> dict[str, Any]:
    """The dumbbell of ``sc`` (an ``rtt_dumbbell``) as the ns-3 program's configuration."""
    core = sc.link("R1-R2")
    acc = [sc.link(f.forward[0]).delay_s for f in sc.flows]
    return {
        "rate_bps": core.rate_bps,
        "core_delay_s": core.delay_s,
        "buffer": int(core.buffer_pkts),
        "access_delay_s": acc,
        "start_s": [f.start_s for f in sc.flows],
        "duration_s": sc.duration_s,
        "interval_s": interval,
        "segment": NS3_SEGMENT,
        "tcp": f"ns3::{tcp}",
        "sack": sack,
        "jitter_s": jitter,
        "seed": seed,
    }


def run_ns3(
    py3: str,
    sc: Any,
    tcp: str,
    interval: float,
    sack: bool = False,
    jitter: float = 0.0,
    seed: int = 1,
) -> dict[str, Any]:
    """ns-3's per-flow figures on ``sc``: cumulative deliveries per interval, loss events."""
    cfg = ns3_config(sc, tcp, interval, sack, jitter, seed)
    out = subprocess.run([py3, "-c", NS3_PROGRAM, json.dumps(cfg)], capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"ns-3 failed ({out.returncode}):\n{out.stderr[-3000:]}")
    r: dict[str, Any] = json.loads(lines[-1])
    n = len(sc.flows)
    r["loss_events"] = [r["recoveries"][f] + r["timeouts"][f] for f in range(n)]
    return r


def _edges(duration: float, interval: float) -> list[float]:
    """The ends of the intervals the shares are counted over (the ns-3 program's chunks)."""
    out, t = [], 0.0
    while t < duration - 1e-9:
        t = min(duration, t + interval)
        out.append(t)
    return out


def run_packets(sc: Any, interval: float, seed: int, overhead: float) -> dict[str, Any]:
    """The packet simulator's figures on ``sc`` in :func:`run_ns3`'s form."""
    import numpy as np

    from tcpfluid.sim.engine import simulate_packets

    res = simulate_packets(sc, seed=seed, send_overhead_s=overhead)
    t = np.asarray(res.t_s)
    dt = float(t[1] - t[0]) if len(t) > 1 else sc.duration_s
    cum = []
    edges = _edges(sc.duration_s, interval)
    for f in res.flows:
        g = np.cumsum(np.asarray(f.goodput_pps) * dt)
        cum.append(np.interp(edges, t, g))
    ev = []
    for i, f in enumerate(res.flows):
        for tt, k, w in zip(f.loss_t_s, f.loss_kind, f.loss_cwnd_before_pkts, strict=True):
            ev.append([round(float(tt), 4), i, int(k), round(float(w), 1)])
    ev.sort()
    return {
        "delivered_cum": [[float(c[j]) for c in cum] for j in range(len(edges))],
        "loss_events": [len(f.loss_t_s) for f in res.flows],
        "timeouts": [int(np.sum(np.asarray(f.loss_kind) == 3)) for f in res.flows],
        "events": ev,
    }


def _shares(cum: list[list[float]]) -> list[list[float]]:
    rows, prev = [], [0.0] * len(cum[0])
    for c in cum:
        d = [a - b for a, b in zip(c, prev, strict=True)]
        tot = sum(d) or 1.0
        rows.append([x / tot for x in d])
        prev = c
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--holdout", nargs=2, type=int, metavar=("IDX", "SEED"))
    ap.add_argument("--case", choices=sorted(CASES))
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds")
    ap.add_argument(
        "--scale", type=float, default=None, help="every rate and the buffer times this"
    )
    ap.add_argument("--interval", type=float, default=50.0, help="share interval, s (50)")
    ap.add_argument("--ns3-python", default=None, help="interpreter with the ns3 wheel")
    ap.add_argument("--ns3-tcp", default="TcpLinuxReno", choices=("TcpLinuxReno", "TcpNewReno"))
    ap.add_argument("--ns3-sack", action="store_true", help="ns-3 with SACK")
    ap.add_argument("--send-overhead", type=float, default=0.0, help="tcpfluid's overhead, s")
    ap.add_argument("--ns3-jitter", type=float, default=0.0, help="ns-3's random wait, s")
    ap.add_argument("--seed", type=int, default=1, help="seed of both random waits (1)")
    ap.add_argument("--no-ns3", action="store_true", help="tcpfluid only")
    ap.add_argument("--events", type=int, default=0, help="print the first N loss events")
    args = ap.parse_args(argv)
    if args.case:
        idx, seed, dur, scale = CASES[args.case]
    elif args.holdout:
        (idx, seed), dur, scale = args.holdout, 100.0, 1.0
    else:
        ap.error("give --case or --holdout IDX SEED")
    for name in ("duration", "scale"):
        value = getattr(args, name)
        if value is not None and not value > 0:
            ap.error(f"--{name} must be > 0 (got {value})")
    dur = args.duration if args.duration is not None else dur
    scale = args.scale if args.scale is not None else scale
    sys.path.insert(0, str(SRC))
    sys.path.insert(0, str(HERE))
    from ns3_vegas import _ns3_python

    sc = scenario(idx, seed, dur, scale)
    rows: dict[str, dict[str, Any]] = {}
    py3 = None if args.no_ns3 else _ns3_python(args.ns3_python)
    if py3 is None and not args.no_ns3:
        print("ns-3 not found (see benchmarks/ns3_reno.py's docstring); tcpfluid only")
    if py3 is not None:
        label = f"ns-3 {args.ns3_tcp}" + (" SACK" if args.ns3_sack else "")
        if args.ns3_jitter:
            label += f" jitter {args.ns3_jitter:g} s"
        rows[label] = run_ns3(
            py3, sc, args.ns3_tcp, args.interval, args.ns3_sack, args.ns3_jitter, args.seed
        )
    label = "packet" + (f" overhead {args.send_overhead:g} s" if args.send_overhead else "")
    rows[label] = run_packets(sc, args.interval, args.seed, args.send_overhead)
    rtts = [round(1e3 * sc.base_rtt_s(f), 1) for f in sc.flows]
    scaled = f", rates and buffer x {scale:g}" if scale != 1.0 else ""
    print(f"hold-out {seed} #{idx}, {len(sc.flows)} Reno flows, {dur:g} s, no CBR{scaled} {rtts}")
    for name, r in rows.items():
        sh = _shares(r["delivered_cum"])
        tot = _shares([r["delivered_cum"][-1]])[0]
        print(f"== {name}: shares over the run {[round(x, 3) for x in tot[:12]]}")
        print(f"   loss events {r['loss_events'][:12]}, timeouts {r['timeouts'][:12]}")
        for j, s in enumerate(sh):
            print(f"   {_edges(dur, args.interval)[j]:7.1f} s {[round(x, 3) for x in s[:12]]}")
        for e in r["events"][: args.events]:
            print(f"     t {e[0]:9.3f} flow {e[1]} kind {e[2]} cwnd {e[3]}")
        r2 = {k: v for k, v in r.items() if k != "events"}
        print(json.dumps({"engine": name, "holdout": [idx, seed], "duration_s": dur, **r2}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
