"""ns-3 as a referee for who gets the link: Reno or Vegas flows with their own base RTTs on
the hold-out's dumbbell, in ns-3 and in tcpfluid's packet simulator, per flow.

Run: ``python benchmarks/ns3_dumbbell.py --holdout IDX SEED [--duration D] [--ns3-python PATH]``
(or ``--case NAME``, :data:`CASES`); Vegas: ``--ns3-tcp TcpVegas --holdout IDX SEED`` or
``--ns3-tcp TcpVegas --case vegas-10`` (:data:`VEGAS_CASES`), ``--fluid rounds,hybrid`` to
run the fluid engines too.

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

Vegas: ns-3's ``TcpVegas`` with ``Alpha`` 2, ``Beta`` 4, ``Gamma`` 1 (its attributes;
tcpfluid's α, β, γ defaults, and ns-3's own); no SACK unless ``--ns3-sack``. ns-3's
``TcpVegas`` is a port of Linux's ``tcp_vegas.c`` (docs/mechanisms.md,
``ns3-linux-vegas``). ``--ns3-rules`` runs instead ``TcpVegasRules`` (:data:`VEGAS_RULES`),
ns-3.44's ``tcp-vegas.cc`` copied line by line with the listed rules switched to ns-2's
(:data:`RULES`: ``mean_rtt`` the mean RTT of the round instead of its least, ``real_diff``
the backlog Δ as a real number instead of ``cwnd - floor(cwnd BaseRTT / RTT)``,
``ss_every_other`` slow start doubling every other round, ``exit_cut`` leaving slow start
at 7/8 of the window instead of the target window plus one, ``few_samples`` a round of at
most two RTT samples counted in slow start's alternation instead of being NewReno's);
``--ns3-rules none`` is ``TcpVegas`` (the same figures). The hold-out's Vegas flows must
have the law's defaults.

Printed: per flow its share of the packets delivered (in-order, at the receiver) over
each ``--interval`` and over the run, Jain's index of those shares, the mean queue of the
bottleneck (packets waiting, the one in transmission not counted: ns-3's device queue
sampled every tenth of flow 0's RTT, tcpfluid's less one packet), its loss events (fast
retransmits and timeouts) and timeouts, the slow-start exits (time, window after it: ns-3
when it first sets ``ssthresh``, tcpfluid's packets the first round in congestion
avoidance, the fluid engines their summary's), per simulator; and one JSON line per
simulator.
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

#: named Vegas dumbbells of equal RTTs, all flows starting at 0 (``--ns3-tcp TcpVegas``):
#: (flows, bottleneck Mb/s, RTT ms, buffer packets, duration s), built by ``rtt_dumbbell``
VEGAS_CASES: dict[str, tuple[int, float, float, int, float]] = {
    # the Quick Vegas paper's path (document 000 §5.1, 50 Mb/s x 100 ms) with ten flows and
    # a buffer of 1.6 BDP (never full)
    "vegas-10": (10, 50.0, 100.0, 1000, 100.0),
    "vegas-1": (1, 50.0, 100.0, 1000, 100.0),
}

#: tcpfluid's Vegas defaults (α, β, γ) as ns-3's TcpVegas attributes
NS3_VEGAS = {"Alpha": 2, "Beta": 4, "Gamma": 1}

#: ns-3's TcpVegas (src/internet/model/tcp-vegas.cc, ns-3.44) line by line, with four of its
#: rules switchable to ns-2's (the thesis, document 001, chapter 3 §3.3 and §4: the mean RTT
#: of the round, Δ as a real number, slow start doubling every other round, a 1/8 cut at
#: the slow-start exit); all four off it is TcpVegas (the same figures, checked)
VEGAS_RULES = r"""
namespace tcpd {
int mean_rtt = 0, real_diff = 0, ss_every_other = 0, exit_cut = 0, few_samples = 0;
double alpha = 2, beta = 4, gamma = 1;
class TcpVegasRules : public ns3::TcpNewReno {
 public:
  static ns3::TypeId GetTypeId() {
    static ns3::TypeId tid = ns3::TypeId("ns3::TcpVegasRules")
                                 .SetParent<ns3::TcpNewReno>()
                                 .SetGroupName("Internet")
                                 .AddConstructor<TcpVegasRules>();
    return tid;
  }
  TcpVegasRules() {}
  TcpVegasRules(const TcpVegasRules& o) : ns3::TcpNewReno(o) {}
  std::string GetName() const override { return "TcpVegasRules"; }
  ns3::Ptr<ns3::TcpCongestionOps> Fork() override { return ns3::CopyObject<TcpVegasRules>(this); }
  ns3::Time baseRtt = ns3::Time::Max(), minRtt = ns3::Time::Max();
  double sumRtt = 0.0;
  uint32_t cntRtt = 0;
  bool doing = true, grow = false;
  ns3::SequenceNumber32 begSndNxt{0};
  void PktsAcked(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t n, const ns3::Time& rtt) override {
    if (rtt.IsZero()) return;
    minRtt = std::min(minRtt, rtt);
    baseRtt = std::min(baseRtt, rtt);
    sumRtt += rtt.GetSeconds();
    cntRtt++;
  }
  void CongestionStateSet(ns3::Ptr<ns3::TcpSocketState> tcb,
                          const ns3::TcpSocketState::TcpCongState_t s) override {
    if (s == ns3::TcpSocketState::CA_OPEN) {
      doing = true; begSndNxt = tcb->m_nextTxSequence; cntRtt = 0; sumRtt = 0.0;
      minRtt = ns3::Time::Max();
    } else {
      doing = false;
    }
  }
  uint32_t GetSsThresh(ns3::Ptr<const ns3::TcpSocketState> tcb, uint32_t b) override {
    return std::max(std::min(tcb->m_ssThresh.Get(), tcb->m_cWnd.Get() - tcb->m_segmentSize),
                    2 * tcb->m_segmentSize);
  }
  void IncreaseWindow(ns3::Ptr<ns3::TcpSocketState> tcb, uint32_t acked) override {
    if (!doing) { ns3::TcpNewReno::IncreaseWindow(tcb, acked); return; }
    uint32_t seg = tcb->m_segmentSize;
    if (tcb->m_lastAckedSeq >= begSndNxt) {
      begSndNxt = tcb->m_nextTxSequence;
      if (cntRtt <= 2 && few_samples && tcb->m_cWnd < tcb->m_ssThresh) {
        grow = !grow;  // ns-2: no decision, but the round counts in slow start's alternation
        if (!ss_every_other || grow) SlowStart(tcb, acked);
      } else if (cntRtt <= 2) {  // ns-3: the round is NewReno's
        ns3::TcpNewReno::IncreaseWindow(tcb, acked);
      } else {
        uint32_t w = tcb->GetCwndInSegments();
        double rtt = mean_rtt ? sumRtt / cntRtt : minRtt.GetSeconds();
        double target = w * (baseRtt.GetSeconds() / rtt);
        double diff = real_diff ? w - target : double(w - static_cast<uint32_t>(target));
        if (diff > gamma && tcb->m_cWnd < tcb->m_ssThresh) {
          if (exit_cut) {  // ns-2: the window less 1/8
            tcb->m_cWnd = std::max(2 * seg, static_cast<uint32_t>(tcb->m_cWnd * 0.875));
          } else {  // ns-3: the target window plus one
            w = std::min(w, static_cast<uint32_t>(target) + 1);
            tcb->m_cWnd = w * seg;
          }
          tcb->m_ssThresh = GetSsThresh(tcb, 0);
        } else if (tcb->m_cWnd < tcb->m_ssThresh) {
          grow = !grow;
          if (!ss_every_other || grow) SlowStart(tcb, acked);
        } else {
          if (diff > beta) {
            w--;
            tcb->m_cWnd = w * seg;
            tcb->m_ssThresh = GetSsThresh(tcb, 0);
          } else if (diff < alpha) {
            w++;
            tcb->m_cWnd = w * seg;
          }
        }
        tcb->m_ssThresh = std::max(tcb->m_ssThresh.Get(), 3 * tcb->m_cWnd.Get() / 4);
      }
      cntRtt = 0; sumRtt = 0.0; minRtt = ns3::Time::Max();
    } else if (tcb->m_cWnd < tcb->m_ssThresh) {
      if (!ss_every_other || grow) SlowStart(tcb, acked);
    }
  }
};
}
"""

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
std::vector<double> ss_t, ss_w;  // per flow: the first time ssthresh is set, cwnd then
uint64_t drops = 0;
double q_sum = 0.0; uint64_t q_n = 0;
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
void Ssth(uint32_t f, uint32_t seg, uint32_t o, uint32_t v) {
  if (ss_t[f] < 0 && v < 0x7fff0000u) {
    ss_t[f] = ns3::Simulator::Now().GetSeconds();
    ss_w[f] = cwnd[f];
  }
}
// the bottleneck's queue (packets waiting, not the one in transmission) every dt s
void QSample(ns3::Ptr<ns3::Queue<ns3::Packet>> q, double dt) {
  q_sum += q->GetNPackets(); q_n++;
  ns3::Simulator::Schedule(ns3::Seconds(dt), &QSample, q, dt);
}
void QStart(uint32_t router, double dt) {
  auto dev = ns3::NodeList::GetNode(router)->GetDevice(1);  // R1's end of R1-R2
  auto d = ns3::DynamicCast<ns3::PointToPointNetDevice>(dev);
  ns3::Simulator::Schedule(ns3::Seconds(dt / 2), &QSample, d->GetQueue(), dt);
}
void Drop(ns3::Ptr<const ns3::Packet> p) { drops++; }
void Hook(uint32_t f, uint32_t node, uint32_t seg) {
  std::string base = "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/0/";
  ns3::Config::ConnectWithoutContext(base + "CongState", ns3::MakeBoundCallback(&Cong, f));
  ns3::Config::ConnectWithoutContext(base + "CongestionWindow",
                                     ns3::MakeBoundCallback(&Cwnd, f, seg));
  ns3::Config::ConnectWithoutContext(base + "SlowStartThreshold",
                                     ns3::MakeBoundCallback(&Ssth, f, seg));
}
void Setup(uint32_t n, uint32_t router) {
  recov.assign(n, 0); rto.assign(n, 0); cwnd.assign(n, 0.0); ss_t.assign(n, -1.0);
  ss_w.assign(n, 0.0);
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
if cfg["tcp"] == "ns3::TcpVegasRules":
    ns.cppyy.cppdef(VEGAS_RULES)
    for k, v in cfg["rules"].items():
        setattr(ns.cppyy.gbl.tcpd, k, int(v))
    ns.cppyy.gbl.tcpd.TcpVegasRules.GetTypeId()  # registers the name

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
for k, v in cfg["vegas"].items():  # TcpVegas's Alpha, Beta, Gamma (packets, integers)
    ns.Config.SetDefault(f"ns3::TcpVegas::{k}", ns.UintegerValue(v))

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
g.QStart(R1, cfg["queue_dt_s"])
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
    "mean_queue_pkts": float(g.q_sum) / max(1, int(g.q_n)),
    "ss_exit": [[round(float(g.ss_t[f]), 4), round(float(g.ss_w[f]), 1)] for f in range(n)],
    "events": [
        [round(float(g.ev_t[i]), 4), int(g.ev_f[i]), int(g.ev_k[i]), round(float(g.ev_w[i]), 1)]
        for i in range(g.ev_t.size())
    ],
    "version": importlib.metadata.version("ns3"),
}
ns.Simulator.Destroy()
print(json.dumps(out))
"""


def vegas_case(name: str, duration: float | None = None) -> Any:
    """:data:`VEGAS_CASES`'s ``name`` as a scenario (``duration`` s if given), 42-byte ACKs."""
    from tcpfluid.scenarios import rtt_dumbbell

    n, mbps, rtt_ms, buffer, dur = VEGAS_CASES[name]
    sc = rtt_dumbbell(
        mbps * 1e6,
        [rtt_ms / 1e3] * n,
        ["vegas"] * n,
        duration_s=duration if duration is not None else dur,
        buffer_pkts=buffer,
        name=name,
    )
    return dataclasses.replace(sc, ack_size_bytes=float(ACK_BYTES))


def scenario(index: int, seed: int, duration: float, scale: float = 1.0, law: str = "reno") -> Any:
    """The hold-out's scenario ``index`` of ``seed`` cut to ``duration`` s, without its CBR
    source (which must start after ``duration``), with 42-byte ACKs; flows of one law
    (``law``: ``"reno"`` or ``"vegas"``, the law's defaults) on drop-tail only."""
    sys.path.insert(0, str(HERE))
    import holdout

    if law not in ("reno", "vegas"):
        raise ValueError(f"law must be 'reno' or 'vegas', got {law!r}")
    case = holdout.draw_case(index, seed)
    sc = case.scenario
    if sc.cbr and min(c.start_s for c in sc.cbr) < duration:
        raise ValueError(f"hold-out {seed} #{index}: its CBR source starts before {duration} s")
    if case.spec["red"] or set(case.laws) != {law} or case.spec["leaves"]:
        raise ValueError(f"hold-out {seed} #{index}: only {law} on drop-tail, no leaves")
    if any(f.params for f in sc.flows):
        raise ValueError(f"hold-out {seed} #{index}: a flow with its own parameters")
    if not scale > 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    flows = [f for f in sc.flows if f.start_s < duration]  # joins after the cut left out
    links = [
        dataclasses.replace(
            ln,
            rate_bps=ln.rate_bps * scale,
            buffer_pkts=ln.buffer_pkts
            if ln.name != "R1-R2" or ln.buffer_pkts == float("inf")
            else max(2, round(ln.buffer_pkts * scale)),
        )
        for ln in sc.links
    ]
    return dataclasses.replace(
        sc, duration_s=duration, ack_size_bytes=float(ACK_BYTES), cbr=(), flows=flows, links=links
    )


#: the rules of :data:`VEGAS_RULES` that ``--ns3-rules`` can switch to ns-2's
RULES = ("mean_rtt", "real_diff", "ss_every_other", "exit_cut", "few_samples")


def ns3_config(
    sc: Any,
    tcp: str,
    interval: float,
    sack: bool = False,
    jitter: float = 0.0,
    seed: int = 1,
    rules: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The dumbbell of ``sc`` (an ``rtt_dumbbell``) as the ns-3 program's configuration
    (an infinite buffer as 100,000 packets)."""
    core = sc.link("R1-R2")
    acc = [sc.link(f.forward[0]).delay_s for f in sc.flows]
    rtt0 = sc.base_rtt_s(sc.flows[0])
    return {
        "rate_bps": core.rate_bps,
        "core_delay_s": core.delay_s,
        "buffer": int(min(core.buffer_pkts, 100000)),
        "vegas": NS3_VEGAS if tcp.startswith("TcpVegas") else {},
        "rules": {k: int(k in rules) for k in RULES},
        "queue_dt_s": rtt0 / 10,
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


def run_ns3(py3: str, sc: Any, tcp: str, interval: float, **options: Any) -> dict[str, Any]:
    """ns-3's per-flow figures on ``sc``: cumulative deliveries per interval, loss events
    (``options``: :func:`ns3_config`'s ``sack``, ``jitter``, ``seed``, ``rules``)."""
    cfg = ns3_config(sc, tcp, interval, **options)
    program = f"VEGAS_RULES = {VEGAS_RULES!r}\n" + NS3_PROGRAM
    out = subprocess.run([py3, "-c", program, json.dumps(cfg)], capture_output=True, text=True)
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"ns-3 failed ({out.returncode}):\n{out.stderr[-3000:]}")
    r: dict[str, Any] = json.loads(lines[-1])
    n = len(sc.flows)
    r["loss_events"] = [r["recoveries"][f] + r["timeouts"][f] for f in range(n)]
    r["ss_exit"] = [e if e[0] >= 0 else None for e in r["ss_exit"]]
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

    from tcpfluid.algorithms.base import SLOW_START
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
    ss_exit: list[list[float] | None] = []
    for f in res.flows:  # the first round in congestion avoidance: its start, its window
        ca = np.flatnonzero(np.asarray(f.round_phase) != SLOW_START)
        j = int(ca[0]) if len(ca) else -1
        ss_exit.append(
            None
            if j < 0
            else [round(float(f.round_t_s[j]), 4), round(float(f.round_cwnd_pkts[j]), 1)]
        )
    # waiting packets (ns-3's count): the one in transmission left out
    q = np.asarray(res.links[[ln.name for ln in res.links].index("R1-R2")].queue_pkts)
    return {
        "mean_queue_pkts": float(np.mean(np.maximum(q - 1.0, 0.0))),
        "ss_exit": ss_exit,
        "delivered_cum": [[float(c[j]) for c in cum] for j in range(len(edges))],
        "loss_events": [len(f.loss_t_s) for f in res.flows],
        "timeouts": [int(np.sum(np.asarray(f.loss_kind) == 3)) for f in res.flows],
        "events": ev,
    }


def run_fluid(sc: Any, engine: str, interval: float) -> dict[str, Any]:
    """A fluid engine's (``"rounds"``, ``"hybrid"``) figures on ``sc`` in :func:`run_ns3`'s
    form: deliveries from its throughputs, its queue less one packet in transmission, the
    summary's slow-start exits (time, window) and losses."""
    import numpy as np

    import tcpfluid

    r = tcpfluid.simulate(sc, engine)
    t = np.asarray(r.time_s)
    x = np.atleast_2d(np.asarray(r.throughput_pps))
    edges = _edges(sc.duration_s, interval)
    cum = []
    for row in x:
        g = np.concatenate([[0.0], np.cumsum(0.5 * (row[1:] + row[:-1]) * np.diff(t))])
        cum.append(np.interp(edges, t, g))
    q = np.asarray(r.link_queues_pkts.get("R1-R2", r.queue_pkts))
    return {
        "mean_queue_pkts": float(np.mean(np.maximum(q - 1.0, 0.0))),
        "ss_exit": [
            None
            if f.ss_exit_time_s is None
            else [round(f.ss_exit_time_s, 4), round(float(f.ss_exit_window_pkts or 0.0), 1)]
            for f in r.summary.flows
        ],
        "delivered_cum": [[float(c[j]) for c in cum] for j in range(len(edges))],
        "loss_events": [round(float(f.losses)) for f in r.summary.flows],
        "timeouts": [],  # not counted apart by the summary
        "events": [],
    }


def jain(x: list[float]) -> float:
    """Jain's fairness index ``(Σx)² / (n Σx²)``."""
    s2 = sum(v * v for v in x)
    return sum(x) ** 2 / (len(x) * s2) if s2 > 0 else 1.0


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
    ap.add_argument("--case", choices=sorted(CASES) + sorted(VEGAS_CASES))
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds")
    ap.add_argument(
        "--scale", type=float, default=None, help="every rate and the buffer times this"
    )
    ap.add_argument("--interval", type=float, default=50.0, help="share interval, s (50)")
    ap.add_argument("--ns3-python", default=None, help="interpreter with the ns3 wheel")
    ap.add_argument(
        "--ns3-tcp", default="TcpLinuxReno", choices=("TcpLinuxReno", "TcpNewReno", "TcpVegas")
    )
    ap.add_argument(
        "--ns3-rules",
        default=None,
        help="with TcpVegas: ns-3's Vegas copied (TcpVegasRules) with these of its rules "
        f"switched to ns-2's, comma-separated ({','.join(RULES)}), or 'none'",
    )
    ap.add_argument(
        "--fluid", default="", help="fluid engines to run too, comma-separated (rounds,hybrid)"
    )
    ap.add_argument("--ns3-sack", action="store_true", help="ns-3 with SACK")
    ap.add_argument("--send-overhead", type=float, default=0.0, help="tcpfluid's overhead, s")
    ap.add_argument("--ns3-jitter", type=float, default=0.0, help="ns-3's random wait, s")
    ap.add_argument("--seed", type=int, default=1, help="seed of both random waits (1)")
    ap.add_argument("--no-ns3", action="store_true", help="tcpfluid only")
    ap.add_argument("--no-packet", action="store_true", help="no packet simulator run")
    ap.add_argument("--events", type=int, default=0, help="print the first N loss events")
    args = ap.parse_args(argv)
    vegas = args.ns3_tcp == "TcpVegas"
    rules: tuple[str, ...] = ()
    if args.ns3_rules is not None:
        rules = tuple(r for r in args.ns3_rules.split(",") if r and r != "none")
        bad = [r for r in rules if r not in RULES]
        if bad or not vegas:
            ap.error(f"--ns3-rules takes {RULES} with --ns3-tcp TcpVegas (got {args.ns3_rules})")
    if args.case in VEGAS_CASES:
        if not vegas:
            ap.error(f"--case {args.case} is a Vegas case: give --ns3-tcp TcpVegas")
        idx, seed, dur, scale = -1, 0, VEGAS_CASES[args.case][4], 1.0
    elif args.case:
        if vegas:
            ap.error(f"--case {args.case} is a Reno case")
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

    if idx < 0:
        if args.scale is not None:
            ap.error("--scale is for the hold-out's cases")
        sc = vegas_case(args.case, dur)
    else:
        sc = scenario(idx, seed, dur, scale, "vegas" if vegas else "reno")
    rows: dict[str, dict[str, Any]] = {}
    py3 = None if args.no_ns3 else _ns3_python(args.ns3_python)
    if py3 is None and not args.no_ns3:
        print("ns-3 not found (see benchmarks/ns3_reno.py's docstring); tcpfluid only")
    if py3 is not None:
        tcp = args.ns3_tcp if args.ns3_rules is None else "TcpVegasRules"
        label = f"ns-3 {tcp}" + (" SACK" if args.ns3_sack else "")
        if args.ns3_rules is not None:
            label += f" ns-2's {'+'.join(rules) or 'none'}"
        if args.ns3_jitter:
            label += f" jitter {args.ns3_jitter:g} s"
        rows[label] = run_ns3(
            py3,
            sc,
            tcp,
            args.interval,
            sack=args.ns3_sack,
            jitter=args.ns3_jitter,
            seed=args.seed,
            rules=rules,
        )
    label = "packet" + (f" overhead {args.send_overhead:g} s" if args.send_overhead else "")
    if not args.no_packet:
        rows[label] = run_packets(sc, args.interval, args.seed, args.send_overhead)
    for eng in [e for e in args.fluid.split(",") if e]:
        rows[eng] = run_fluid(sc, eng, args.interval)
    rtts = [round(1e3 * sc.base_rtt_s(f), 1) for f in sc.flows]
    scaled = f", rates and buffer x {scale:g}" if scale != 1.0 else ""
    where = args.case if idx < 0 else f"hold-out {seed} #{idx}"
    law = "Vegas" if vegas else "Reno"
    core = sc.link("R1-R2")
    print(
        f"{where}, {len(sc.flows)} {law} flows, {core.rate_bps / 1e6:.4g} Mb/s, buffer "
        f"{core.buffer_pkts:g} pkts, {dur:g} s, no CBR{scaled}, RTTs ms {rtts[:12]}"
    )
    for name, r in rows.items():
        sh = _shares(r["delivered_cum"])
        tot = _shares([r["delivered_cum"][-1]])[0]
        r["jain"] = round(jain(tot), 4)
        r["jain_last"] = round(jain(sh[-1]), 4)
        print(f"== {name}: shares over the run {[round(x, 3) for x in tot[:12]]}")
        total = sum(r["delivered_cum"][-1])
        print(
            f"   Jain {r['jain']:.3f} (last interval {r['jain_last']:.3f}), delivered "
            f"{total:.0f} pkts ({total / dur:.1f} pkt/s), mean queue "
            f"{r.get('mean_queue_pkts', float('nan')):.1f} pkts"
        )
        print(f"   loss events {r['loss_events'][:12]}, timeouts {r['timeouts'][:12]}")
        if "ss_exit" in r:
            print(f"   slow-start exit (s, window) {r['ss_exit'][:12]}")
        for j, s in enumerate(sh):
            print(f"   {_edges(dur, args.interval)[j]:7.1f} s {[round(x, 3) for x in s[:12]]}")
        for e in r["events"][: args.events]:
            print(f"     t {e[0]:9.3f} flow {e[1]} kind {e[2]} cwnd {e[3]}")
        r2 = {k: v for k, v in r.items() if k != "events"}
        print(json.dumps({"engine": name, "case": where, "duration_s": dur, **r2}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
