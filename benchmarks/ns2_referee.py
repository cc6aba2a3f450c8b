"""ns-2.35, the documents' own simulator, as an external referee for the packet simulator:
a tcpfluid ``Scenario`` written as an ns-2 script, run by an installed ``ns``, its per-flow
goodput set beside the packet simulator's on the same scenario.

Run: ``python benchmarks/ns2_referee.py [--case table7-15-5 ...] [--ns PATH] [--ns2-defaults]``
(docs/ns2.md: the cases, the commands and the table of the report's rows they referee).

ns-2 is not a dependency of tcpfluid: install Debian's package (``apt-get install ns2``,
the binary ``/usr/bin/ns``) or pass ``--ns`` (or set ``TCPFLUID_NS2``). No ns-2 code is
kept here; the script only writes a Tcl script and runs ``ns`` on it.

**What is written.** One ns-2 node per end of the scenario's links, joined where a flow's
path passes from one link to the next (and at each flow's two hosts: its data's first link
leaves the node its ACKs' last link enters); each ``Link`` one ``simplex-link`` with its
rate, delay and discipline; each flow an FTP source on an agent chosen by its law and the
packet simulator's ``fast_recovery`` for it (``Agent/TCP/Newreno`` for ``"newreno"``,
``Agent/TCP/Reno`` for ``"reno"``, ``Agent/TCP/Vegas`` for ``"ns2-vegas"``), started and
stopped at the flow's ``start_s``/``stop_s``; a ``TCPSink`` (``TCPSink/DelAck`` with
delayed ACKs) at its far end; each CBR source an ``Agent/UDP`` with an
``Application/Traffic/CBR`` (packets of the scenario's size, one every ``8·size/rate`` s
from its ``start_s``, ``random_ 0``: the packet simulator's CBR) from its first link's
node to an ``Agent/LossMonitor`` that counts its packets at its last link's. ns-2 routes
by hop count, so a scenario where a flow's data or ACKs, or a CBR source's packets, would
not take their own links (a shorter or an equal other path) is refused, as are two links
between the same nodes in the same direction, and every law but
``reno`` and ``vegas`` (ns-2.35 has no FAST, TCP-Ho, Quick Vegas, Enhanced Vegas,
iTCP-Vegas or Forward Vegas agent): each by name in a ``ValueError``.

**ns-2 settings away from ns-2.35's defaults, to match the packet simulator**
(``simulate_packets``' defaults or the options given; ``--ns2-defaults`` leaves all but
the scenario's own numbers, the sizes and the buffers at ns-2's defaults, as a document
that states no more than its scenario would have run):

* ``Agent/TCP packetSize_`` = the scenario's packet size and ``Agent/TCPSink
  packetSize_`` = its ACK size, and each Reno or NewReno agent's ``packetSize_`` the
  scenario's packet size less :data:`NS2_TCP_HEADER_BYTES`: ns-2.35's ``Agent/TCP/Reno``
  and ``Agent/TCP/Newreno`` put ``packetSize_`` plus their 40-byte TCP/IP header on the
  wire, its Vegas agent and its sinks ``packetSize_`` alone (measured: a loss-free
  10 Mb/s link carries 1201.9 NewReno packets/s of ``packetSize_ 1000``, 1250 of 960, and
  1250 Vegas packets/s of 1000; a 32 kb/s ACK path 100 ACKs/s of ``packetSize_ 40``), so
  every packet is the scenario's size on the wire, as in the packet simulator. With
  1040-byte Reno packets every Reno run lost 4 % of its capacity in packets and every
  flow's phase against the bottleneck's departures moved (docs/ns2.md). With
  ``--ns2-defaults`` the Reno agents keep ``packetSize_`` = the packet size (1040 bytes
  on the wire: what a document giving "1-kbyte packets" will have run).
* ``queue-limit`` = the buffer + 1 on a drop-tail link, the buffer on a RED link: the
  packet simulator drops an arrival that finds ``buffer`` packets waiting (the packet on
  the wire not counted); ns-2.35's ``DropTail`` drops one that finds ``qlim_ − 1``
  waiting (``q_->length() + 1 >= qlim_``), its ``RED`` one that finds ``qlim_`` (measured
  with a queue monitor: at most 9 and 10 packets waiting behind ``queue-limit 10``). An
  infinite buffer is 10^7 packets.
* ``Agent/TCP window_`` 10^6 (ns-2: 20, the receiver's advertised window; the packet
  simulator has none) and ``maxcwnd_`` 0 (unbounded, ns-2's default).
* ``windowInit_`` = the law's ``initial_window`` (the library's 2; ns-2.35's is also 2).
* ``ssthresh_`` 10^6 (ns-2: 20; the laws start with an infinite ``ssthresh``).
* ``syn_ false`` and ``delay_growth_ false`` (ns-2: true, a 40-byte SYN as packet 0 and
  no window growth on its ACK; the packet simulator has no handshake).
* ``rtxcur_init_`` = ``initial_rto_s`` (ns-2: 3 s; the packet simulator's 1 s),
  ``minrto_`` = ``min_rto_s`` (0.2 s in both), ``maxrto_`` = ``max_rto_s`` (60 s in both).
* ``tcpTick_`` 0.001 s (ns-2.35: 0.01 s): ns-2 keeps SRTT and RTTVAR in ticks and floors
  the timeout at two ticks; the packet simulator's timer is continuous. With ``min_rto_s``
  ≥ 0.002 s the floor is ``minrto_``.
* Vegas: ``v_alpha_``, ``v_beta_``, ``v_gamma_`` = the law's α, β, γ (ns-2: 1, 3, 1).
* RED: ``thresh_``, ``maxthresh_`` = ``min_th``, ``max_th``; ``linterm_`` = 1/``max_p``;
  ``q_weight_`` = ``w_q``; ``gentle_`` = the scenario's ``gentle``; ``wait_`` =
  ``red_wait`` (ns-2: true; the packet simulator's default ``False``);
  ``queue_in_bytes_ false`` and ``bytes_ false`` (ns-2: true; the packet simulator's
  RED counts packets); ``mean_pktsize_`` = the packet size (ns-2: 500, used for the
  average's decay over an idle queue).
* Delayed ACKs: ``Agent/TCPSink/DelAck interval_`` = ``delack_timeout_s`` (0.1 s in both).
* ``bugFix_`` left at ns-2.35's ``true`` (the packet simulator's ``timeout_recover=True``:
  no fast retransmit on the duplicate ACKs of a timeout's go-back); ``bugFix_ false`` with
  ``timeout_recover=False`` (``--no-bugfix``, for the packet runs too).
  ns-2's delayed ACK echoes the latest packet's send time: the packet simulator's
  ``delayed_ack_echo="latest"``.

Kept at ns-2's defaults (and so different): ns-2 times one packet per window for SRTT
(``timestamps_ false``), the packet simulator every ACK with RFC 7323's divided gains;
``overhead_`` 0 in both; ``bugFix_ true`` is the packet simulator's ``timeout_recover=True``.

Measured: each CBR source's packets received over ``[t0, t1]`` per second; each flow's
goodput over ``[t0, t1]`` (s) from its agent's cumulative ACK
(``ack_``) at the two times, in packets/s; its window (``cwnd_``) sampled every 10 ms
over the window and averaged; its congestion-window cuts (``ncwndcuts_``: fast
retransmits and timeouts) and timeouts (``nrexmit_``) over the window. The packet
simulator's goodput is the report's (its in-order deliveries at the receiver), over the
same window.

Prints a table per case and one JSON line per case:
``{"case": ..., "ns2_kbps": [...], "packet_kbps": [...], ...}``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"

#: the packet simulator's ``fast_recovery`` -> the ns-2.35 agent that recovers that way
AGENTS: dict[str, str] = {
    "newreno": "Agent/TCP/Newreno",
    "reno": "Agent/TCP/Reno",
    "ns2-vegas": "Agent/TCP/Vegas",
}
#: bytes ns-2.35's Reno and NewReno agents (``Agent/TCP``'s ``tcpip_base_hdr_size_``) add
#: to ``packetSize_`` on the wire; its Vegas agent and its sinks add none (module docstring)
NS2_TCP_HEADER_BYTES = 40
#: the ``fast_recovery`` values whose ns-2 agent adds that header
HEADER_RECOVERIES = ("newreno", "reno")
#: the laws ns-2.35 has, with the ``fast_recovery`` values its agents for them cover
LAW_RECOVERIES: dict[str, tuple[str, ...]] = {
    "reno": ("newreno", "reno"),
    "vegas": ("ns2-vegas",),
}
#: the packet simulator's options of ns-2.35's own Vegas agent (``tcp-vegas.cc``), which its
#: ``"ns2-vegas"`` senders take when matched to ns-2.35: Δ from the agent's packet counts
#: rounded to an integer, the per-ACK increase only into a nearly full window (the
#: simulator's defaults are the documents' agents; docs/simulator.md, "Fast recovery")
NS2_VEGAS_OPTIONS: dict[str, Any] = {
    "ns2_vegas_integer_delta": True,
    "ns2_vegas_growth_check": True,
}
#: packets standing for an infinite buffer
INFINITE_QUEUE = 10_000_000
#: ns-2's advertised window and initial ``ssthresh`` here (packets): never reached
NO_LIMIT = 1_000_000
#: ns-2's timer tick here (s); its default is 0.01
TCP_TICK_S = 0.001
#: interval of the window samples (s)
CWND_SAMPLE_S = 0.01


def find_ns(given: str | None = None) -> str | None:
    """The ``ns`` binary: ``given``, else ``$TCPFLUID_NS2``, else ``ns`` on PATH; ``None``
    when none is found."""
    for cand in (given, os.environ.get("TCPFLUID_NS2"), shutil.which("ns")):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def _per_flow(name: str, value: Any, n: int) -> list[Any]:
    if isinstance(value, (str, bool, int, float)):
        return [value] * n
    vals = list(value)
    if len(vals) != n:
        raise ValueError(f"{name} must be one value or one per flow ({n}), got {len(vals)}")
    return vals


class _Nodes:
    """Union-find over the two ends of every link: ``("from", link)`` and ``("to", link)``."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(self, x: tuple[str, str]) -> tuple[str, str]:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def join(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        self.parent[self.find(a)] = self.find(b)


def topology(scenario: Any) -> tuple[dict[str, tuple[int, int]], list[tuple[int, int]]]:
    """ns-2 nodes of ``scenario``: each link's (from, to) node numbers, and each flow's
    (source, sink) node. Raises a ValueError where ns-2's hop-count routing would not
    carry a flow's data or ACKs over the flow's own links."""
    uf = _Nodes()
    for link in scenario.links:
        uf.find(("from", link.name))
        uf.find(("to", link.name))
    for f in scenario.flows:
        for path in (f.forward, f.reverse):
            for a, b in itertools.pairwise(path):
                uf.join(("to", a), ("from", b))
        if f.reverse:
            uf.join(("from", f.forward[0]), ("to", f.reverse[-1]))
            uf.join(("to", f.forward[-1]), ("from", f.reverse[0]))
    for c in scenario.cbr:
        for a, b in itertools.pairwise(c.links):
            uf.join(("to", a), ("from", b))
    number: dict[tuple[str, str], int] = {}
    ends: dict[str, tuple[int, int]] = {}
    for link in scenario.links:
        a = number.setdefault(uf.find(("from", link.name)), len(number))
        b = number.setdefault(uf.find(("to", link.name)), len(number))
        ends[link.name] = (a, b)
    seen: dict[tuple[int, int], str] = {}
    for name, pair in ends.items():
        if pair[0] == pair[1]:
            raise ValueError(f"link {name!r} would join a node to itself in ns-2")
        if pair in seen:
            raise ValueError(
                f"links {seen[pair]!r} and {name!r} join the same two nodes in the same "
                "direction: ns-2 keeps one link per node pair and direction"
            )
        seen[pair] = name
    adj: dict[int, list[int]] = {}
    for a, b in ends.values():
        adj.setdefault(a, []).append(b)
    hosts = []
    for f in scenario.flows:
        src, dst = ends[f.forward[0]][0], ends[f.forward[-1]][1]
        for kind, path, s, d in (("data", f.forward, src, dst), ("ACKs", f.reverse, dst, src)):
            if not path:
                continue
            hops, ways = _shortest(adj, s, d)
            if hops != len(path) or ways != 1:
                raise ValueError(
                    f"flow {f.name!r}: ns-2 routes by hop count and its {kind} would not take "
                    f"the flow's links {list(path)} ({ways} shortest path(s) of {hops} hops)"
                )
        hosts.append((src, dst))
    for c in scenario.cbr:
        hops, ways = _shortest(adj, ends[c.links[0]][0], ends[c.links[-1]][1])
        if hops != len(c.links) or ways != 1:
            raise ValueError(
                f"CBR {c.name!r}: ns-2 routes by hop count and its packets would not take "
                f"its links {list(c.links)} ({ways} shortest path(s) of {hops} hops)"
            )
    return ends, hosts


def _shortest(adj: Mapping[int, Sequence[int]], s: int, d: int) -> tuple[int, int]:
    """Hops of the shortest path from ``s`` to ``d`` and how many there are (BFS)."""
    dist, ways, frontier = {s: 0}, {s: 1}, [s]
    while frontier:
        nxt: list[int] = []
        for u in frontier:
            for v in adj.get(u, ()):
                if v not in dist:
                    dist[v], ways[v] = dist[u] + 1, ways[u]
                    nxt.append(v)
                elif dist[v] == dist[u] + 1:
                    ways[v] += ways[u]
        frontier = nxt
    return dist.get(d, -1), ways.get(d, 0)


def _num(x: float) -> str:
    return repr(float(x))


def ns2_script(
    scenario: Any,
    *,
    window_s: tuple[float, float],
    fast_recovery: str | Sequence[str] = "newreno",
    delayed_ack: bool | Sequence[bool] = False,
    delack_timeout_s: float = 0.1,
    min_rto_s: float = 0.2,
    initial_rto_s: float = 1.0,
    max_rto_s: float = 60.0,
    red_wait: bool = False,
    timeout_recover: bool = True,
    ns2_defaults: bool = False,
) -> str:
    """The ns-2 Tcl script of ``scenario`` (module docstring), its options named as
    ``simulate_packets``' (``timeout_recover=False``: ns-2's ``bugFix_ false``); it
    prints one line per flow at ``window_s[1]``:
    ``flow i <ACKs at t0> <ACKs at t1> <mean cwnd> <cuts> <timeouts>``.
    ``ns2_defaults``: only the scenario's rates, delays, buffers, sizes, times and law
    parameters are set; every other setting stays at ns-2.35's default."""
    from tcpfluid.algorithms.registry import get_law

    t0, t1 = (float(x) for x in window_s)
    if not (0.0 <= t0 < t1 <= scenario.duration_s):
        raise ValueError(
            f"window_s must satisfy 0 <= t0 < t1 <= duration ({scenario.duration_s} s), "
            f"got {window_s!r}"
        )
    flows = list(scenario.flows)
    n = len(flows)
    recs = _per_flow("fast_recovery", fast_recovery, n)
    delacks = _per_flow("delayed_ack", delayed_ack, n)
    laws = []
    for f, rec in zip(flows, recs, strict=True):
        alg = f.algorithm
        if alg not in LAW_RECOVERIES:
            raise ValueError(
                f"flow {f.name!r} runs {alg!r}: ns-2.35 has agents for "
                f"{sorted(LAW_RECOVERIES)} only"
            )
        if rec not in LAW_RECOVERIES[alg]:
            raise ValueError(
                f"flow {f.name!r}: ns-2.35's agent for {alg!r} recovers as fast_recovery in "
                f"{list(LAW_RECOVERIES[alg])}, got {rec!r}"
            )
        laws.append(get_law(alg, **dict(f.params)))
    ends, hosts = topology(scenario)
    pkt, ack = scenario.packet_size_bytes, scenario.ack_size_bytes
    out = [
        "set ns [new Simulator]",
        f"Agent/TCP set packetSize_ {round(pkt)}",
        f"Agent/TCPSink set packetSize_ {round(ack)}",
    ]
    if not ns2_defaults:
        out += [
            f"Agent/TCP set window_ {NO_LIMIT}",
            "Agent/TCP set maxcwnd_ 0",
            f"Agent/TCP set ssthresh_ {NO_LIMIT}",
            "Agent/TCP set syn_ false",
            "Agent/TCP set delay_growth_ false",
            f"Agent/TCP set rtxcur_init_ {_num(initial_rto_s)}",
            f"Agent/TCP set minrto_ {_num(min_rto_s)}",
            f"Agent/TCP set maxrto_ {_num(max_rto_s)}",
            f"Agent/TCP set tcpTick_ {_num(TCP_TICK_S)}",
            f"Agent/TCPSink/DelAck set interval_ {_num(delack_timeout_s)}",
        ]
    if not timeout_recover:  # the packet simulator's timeout_recover=False
        out.append("Agent/TCP set bugFix_ false")
    nodes = 1 + max(max(p) for p in ends.values())
    out.append(f"for {{set i 0}} {{$i < {nodes}}} {{incr i}} {{ set n($i) [$ns node] }}")
    for link in scenario.links:
        a, b = ends[link.name]
        kind = "RED" if link.discipline == "red" else "DropTail"
        if kind == "RED":
            red = link.red_parameters()
            settings = {
                "thresh_": red["min_th"],
                "maxthresh_": red["max_th"],
                "linterm_": 1.0 / red["max_p"],
                "q_weight_": red["w_q"],
                "gentle_": "true" if red["gentle"] else "false",
                "queue_in_bytes_": "false",
                "bytes_": "false",
                "mean_pktsize_": round(pkt),
            }
            if not ns2_defaults:
                settings["wait_"] = "true" if red_wait else "false"
            for k, v in settings.items():
                out.append(f"Queue/RED set {k} {v}")
        limit = INFINITE_QUEUE if math.isinf(link.buffer_pkts) else round(link.buffer_pkts)
        out += [
            f"# {link.name}: {link.rate_bps:g} b/s, {link.delay_s:g} s, buffer "
            f"{link.buffer_pkts:g} packets, {link.discipline}",
            f"$ns simplex-link $n({a}) $n({b}) {link.rate_bps:.0f}b {_num(link.delay_s)}s {kind}",
            f"$ns queue-limit $n({a}) $n({b}) {limit + (kind == 'DropTail')}",
        ]
    for i, (f, rec, law, dack) in enumerate(zip(flows, recs, laws, delacks, strict=True)):
        src, dst = hosts[i]
        sink = "Agent/TCPSink/DelAck" if dack else "Agent/TCPSink"
        out += [
            f"# flow {f.name}: {f.algorithm}, recovery {rec}",
            f"set tcp({i}) [new {AGENTS[rec]}]",
            f"set sink({i}) [new {sink}]",
        ]
        if not ns2_defaults:
            out.append(f"$tcp({i}) set windowInit_ {_num(law.initial_window)}")
            if rec in HEADER_RECOVERIES:  # the scenario's size on the wire, header included
                out.append(f"$tcp({i}) set packetSize_ {round(pkt) - NS2_TCP_HEADER_BYTES}")
        if f.algorithm == "vegas":
            p = law.params()
            for k in ("alpha", "beta", "gamma"):
                out.append(f"$tcp({i}) set v_{k}_ {_num(p[k])}")
        out += [
            f"$ns attach-agent $n({src}) $tcp({i})",
            f"$ns attach-agent $n({dst}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [new Application/FTP]",
            f"$ftp({i}) attach-agent $tcp({i})",
            f'$ns at {_num(f.start_s)} "$ftp({i}) start"',
        ]
        if math.isfinite(f.stop_s) and f.stop_s < t1:
            out.append(f'$ns at {_num(f.stop_s)} "$ftp({i}) stop"')
    for j, c in enumerate(scenario.cbr):
        src, dst = ends[c.links[0]][0], ends[c.links[-1]][1]
        out += [
            f"# CBR {c.name}: {c.rate_bps:g} b/s over {list(c.links)}",
            f"set udp({j}) [new Agent/UDP]",
            f"$udp({j}) set packetSize_ {round(pkt)}",
            f"set lm({j}) [new Agent/LossMonitor]",
            f"$ns attach-agent $n({src}) $udp({j})",
            f"$ns attach-agent $n({dst}) $lm({j})",
            f"$ns connect $udp({j}) $lm({j})",
            f"set cbr({j}) [new Application/Traffic/CBR]",
            f"$cbr({j}) set packetSize_ {round(pkt)}",
            f"$cbr({j}) set rate_ {c.rate_bps:.0f}b",
            f"$cbr({j}) set random_ 0",
            f"$cbr({j}) attach-agent $udp({j})",
            f'$ns at {_num(c.start_s)} "$cbr({j}) start"',
        ]
        if math.isfinite(c.stop_s) and c.stop_s < t1:
            out.append(f'$ns at {_num(c.stop_s)} "$cbr({j}) stop"')
    nc = len(scenario.cbr)
    out += [
        f"set nf {n}",
        f"set nc {nc}",
        "proc mark {} { global tcp nf a0 c0 r0 w lm nc l0",
        "  for {set j 0} {$j < $nc} {incr j} { set l0($j) [$lm($j) set npkts_] }",
        "  for {set i 0} {$i < $nf} {incr i} { set a0($i) [$tcp($i) set ack_]",
        "    set c0($i) [$tcp($i) set ncwndcuts_]; set r0($i) [$tcp($i) set nrexmit_]",
        "    set w($i) 0.0 } }",
        "proc sample {} { global tcp nf ns w ns_samples",
        "  incr ns_samples",
        "  for {set i 0} {$i < $nf} {incr i} { set w($i) [expr $w($i) + [$tcp($i) set cwnd_]] }",
        f"  set t [expr [$ns now] + {CWND_SAMPLE_S}]",
        f'  if {{$t < {_num(t1)}}} {{ $ns at $t "sample" }} }}',
        "proc done {} { global tcp nf a0 c0 r0 w ns_samples lm nc l0",
        '  for {set j 0} {$j < $nc} {incr j} { puts "cbr $j $l0($j) [$lm($j) set npkts_]" }',
        "  for {set i 0} {$i < $nf} {incr i} {",
        '    puts "flow $i $a0($i) [$tcp($i) set ack_] [expr $w($i) / $ns_samples]'
        ' [expr [$tcp($i) set ncwndcuts_] - $c0($i)] [expr [$tcp($i) set nrexmit_] - $r0($i)]"',
        "  }",
        "  exit 0 }",
        "set ns_samples 0",
        "set w(0) 0.0",
        f'$ns at {_num(t0)} "mark; sample"',
        f'$ns at {_num(t1)} "done"',
        "$ns run",
    ]
    return "\n".join(out) + "\n"


def run_ns2(script: str, ns: str, window_s: tuple[float, float]) -> dict[str, list[float]]:
    """Run ``script`` (:func:`ns2_script`) with the ``ns`` binary: per flow, goodput
    (packets/s) over ``window_s``, mean window (packets), window cuts and timeouts."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scenario.tcl"
        path.write_text(script)
        proc = subprocess.run([ns, str(path)], capture_output=True, text=True, cwd=tmp)
    rows = [ln.split() for ln in proc.stdout.splitlines() if ln.startswith("flow ")]
    if proc.returncode != 0 or not rows:
        raise RuntimeError(f"ns failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    span = window_s[1] - window_s[0]
    rows.sort(key=lambda r: int(r[1]))
    cbr = sorted(
        (ln.split() for ln in proc.stdout.splitlines() if ln.startswith("cbr ")),
        key=lambda r: int(r[1]),
    )
    return {
        "goodput_pps": [(float(r[3]) - float(r[2])) / span for r in rows],
        "cbr_pps": [(float(r[3]) - float(r[2])) / span for r in cbr],
        "cwnd_pkts": [float(r[4]) for r in rows],
        "cuts": [float(r[5]) for r in rows],
        "timeouts": [float(r[6]) for r in rows],
    }


def packet_goodput(scenario: Any, window_s: tuple[float, float], **options: Any) -> list[float]:
    """The packet simulator's per-flow goodput (packets/s) over ``window_s``, the report's
    way (delivered packets at the two times)."""
    import numpy as np

    from tcpfluid import simulate

    res = simulate(scenario, "packet", **options)
    t = np.asarray(res.time_s, dtype=np.float64)
    dl = res.delivered_pkts()
    a = np.array([np.interp(window_s[0], t, row) for row in dl])
    b = np.array([np.interp(window_s[1], t, row) for row in dl])
    return [float(x) for x in (b - a) / (window_s[1] - window_s[0])]


# ------------------------------------------------------------------------- the report's cases
def staggered(scenario: Any, step_s: float) -> Any:
    """``scenario`` with its flow k (from 0) starting ``k * step_s`` seconds later."""
    from dataclasses import replace

    if not step_s:
        return scenario
    flows = tuple(replace(f, start_s=f.start_s + k * step_s) for k, f in enumerate(scenario.flows))
    return replace(scenario, flows=flows)


def _table7(na: int, nb: int, start_step_s: float = 0.0) -> Any:
    """The TCP-Ho paper's Table 7 dumbbell, Reno ×``na`` with Vegas ×``nb``; flow k
    starting ``k * start_step_s`` later."""
    from tcpfluid.scenarios import build_scenario

    sc = build_scenario("ho-friendliness", algorithm=f"reno:{na},vegas:{nb}")
    return staggered(sc, start_step_s)


def _thesis_two_flow(x2_ms: int, offset_s: float = 0.0) -> Any:
    """Tsang's thesis's two-flow network (Table 3.16's runs: RED, 60 s, one-packet initial
    windows), Vegas α = 1, β = 3 (the row ``vegas-1_3``), connection 2 ``offset_s`` later."""
    from tcpfluid.report._thesis_ns2 import ns2_initial_window
    from tcpfluid.scenarios import build_scenario

    kw = {"x2": f"{x2_ms}ms", "queue": "red", "duration": "60s", "alpha": 1, "beta": 3}
    sc = ns2_initial_window(build_scenario("thesis-two-flow", **kw).with_algorithm("vegas"))
    return staggered(sc, offset_s)


def matched_to_ns2(options: Mapping[str, Any]) -> dict[str, Any]:
    """The packet simulator's ``options`` with ns-2.35's own Vegas agent
    (:data:`NS2_VEGAS_OPTIONS`) for its ``"ns2-vegas"`` senders, if it has any."""
    rec = options.get("fast_recovery", "newreno")
    vegas = "ns2-vegas" in ([rec] if isinstance(rec, str) else list(rec))
    return {**options, **NS2_VEGAS_OPTIONS} if vegas else dict(options)


#: case name -> (scenario builder, measurement window, the packet simulator's options
#: matched to ns-2.35's agents; the report's own options for its row)
def cases() -> dict[str, tuple[Any, tuple[float, float], dict[str, Any], dict[str, Any]]]:
    """Every case this script runs (docs/ns2.md, the table)."""
    from tcpfluid.report._thesis_ns2 import ns2_packet_options

    out: dict[str, tuple[Any, tuple[float, float], dict[str, Any], dict[str, Any]]] = {}
    for na, nb in ((15, 5), (10, 10), (5, 15)):
        for step in (0.0, 0.01):
            sc = _table7(na, nb, step)
            rec = ["newreno"] * na + ["ns2-vegas"] * nb
            name = f"table7-{na}-{nb}" + ("-stagger" if step else "")
            out[name] = (sc, (10.0, 60.0), matched_to_ns2({"fast_recovery": rec}), {})
    for x2 in (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110):
        sc = _thesis_two_flow(x2)
        ns2 = ns2_packet_options(sc)
        out[f"thesis-vegas13-{x2}"] = (sc, (10.0, 60.0), matched_to_ns2(ns2), ns2)
    # the Quick Vegas paper's Table 2, Vegas, 0-100 and 100-200 s: the flows of the groups
    # that joined before the period's end, all active over the period
    from dataclasses import replace

    from tcpfluid.scenarios import build_scenario

    qv = build_scenario("qv-many-flows").with_algorithm("vegas")
    for a0, b0 in ((0.0, 100.0), (100.0, 200.0)):
        sc = replace(qv, duration_s=b0, flows=tuple(f for f in qv.flows if f.start_s < b0))
        name = f"qv-many-flows-vegas-{a0:g}-{b0:g}"
        out[name] = (sc, (a0, b0), matched_to_ns2({"fast_recovery": "ns2-vegas"}), {})
    from tcpfluid.report._sec_thesis_many import (
        MANY_FLOWS_MIN_RTO_S,
        MF_FROM_S,
        thesis_mix_scenario,
    )
    from tcpfluid.report._sec_thesis_tables import RENO_X2_MS, reno_two_flow_scenario
    from tcpfluid.report._thesis_ns2 import DELACK_TIMEOUT_S, DELAYED_ACK_ECHO

    for x2 in RENO_X2_MS:
        sc = reno_two_flow_scenario(x2)
        ns2 = ns2_packet_options(sc)
        out[f"thesis-reno-{x2}"] = (sc, (10.0, 60.0), ns2, ns2)
    for acks, da in (("ia-ia", False), ("da-da", True), ("da-ia", [True, False])):
        sc = _thesis_two_flow(1)
        ns2 = ns2_packet_options(sc)
        ns2 |= {"delayed_ack": da, "delack_timeout_s": DELACK_TIMEOUT_S}
        ns2 |= {"delayed_ack_echo": DELAYED_ACK_ECHO}
        out[f"thesis-delack-{acks}"] = (sc, (10.0, 60.0), matched_to_ns2(ns2), ns2)
    for router in ("red-5-15", "red-54-108"):
        for n in (30, 100):
            for law, pct in (("reno", 0), ("vegas-1_3", 100), *(
                ("vegas-1_3", p) for p in (10, 30, 50, 70, 90)
            )):  # fmt: skip
                sc = thesis_mix_scenario(n, router, law, pct or 100)
                ns2 = {**ns2_packet_options(sc), "min_rto_s": MANY_FLOWS_MIN_RTO_S}
                name = f"many-{router}-{n}-" + ("reno" if law == "reno" else f"vegas13-{pct}")
                out[name] = (sc, (MF_FROM_S, 60.0), matched_to_ns2(ns2), ns2)
    # the asymmetric-networks paper's Tables I and II (the report's section asymmetric:
    # 60-s runs, the whole run's throughput; Vegas α = 1, β = 3)
    from tcpfluid.report._thesis_ns2 import ns2_fast_recovery

    asym = [(f"k{k:g}", {"k": k}) for k in (0.5, 3, 5, 7)]
    asym += [
        (f"br{br}", {"k": 5, "reverse_buffer": br, "forward_buffer": 10})
        for br in (2, 6, 10, 20, 40, 100)
    ]
    for law in ("reno", "vegas"):
        for tag, kw in asym:
            params = {} if law == "reno" else {"alpha": 1, "beta": 3}
            sc = build_scenario("asymmetric", algorithm=law, duration="60s", **kw, **params)
            rec = {"fast_recovery": ns2_fast_recovery(law)}
            out[f"asym-{law}-{tag}"] = (sc, (0.0, 60.0), matched_to_ns2(rec), rec)
    # three Reno flows of 97, 123 and 266 ms behind a 0.35-BDP drop-tail buffer (hold-out
    # seed 140's scenario 30 without its leave, 240 s): a drop-tail phase lock
    # (validation/test_reno_phase_split.py)
    from tcpfluid.scenarios import rtt_dumbbell

    sc = rtt_dumbbell(
        RENO_PHASE_RATE_BPS, list(RENO_PHASE_RTTS_S), ["reno"] * 3,
        duration_s=RENO_PHASE_DURATION_S, buffer_pkts=RENO_PHASE_BUFFER_PKTS,
    )  # fmt: skip
    out["reno-phase-split"] = (sc, (0.0, RENO_PHASE_DURATION_S), {}, {})
    return out


#: the ``reno-phase-split`` case: bottleneck rate (b/s), base RTTs (s), buffer (packets),
#: run length (s)
RENO_PHASE_RATE_BPS = 18.145e6
RENO_PHASE_RTTS_S = (0.097054, 0.12311, 0.266015)
RENO_PHASE_BUFFER_PKTS = 78.0
RENO_PHASE_DURATION_S = 240.0


def ns2_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Of the packet simulator's ``options``, those :func:`ns2_script` writes."""
    keys = ("fast_recovery", "delayed_ack", "delack_timeout_s", "min_rto_s", "initial_rto_s",
            "max_rto_s", "red_wait", "timeout_recover")  # fmt: skip
    return {k: v for k, v in options.items() if k in keys}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", action="append", help="case(s) to run (all); --list names them")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--ns", default=None, help="the ns-2 binary (ns on PATH)")
    ap.add_argument("--ns2-defaults", action="store_true", help="ns-2's defaults (docstring)")
    ap.add_argument("--script", action="store_true", help="print the ns-2 script and exit")
    ap.add_argument(
        "--stagger", type=float, default=0.0, help="flow k starts k * STAGGER s later (0)"
    )
    ap.add_argument(
        "--no-bugfix",
        action="store_true",
        help="ns-2's bugFix_ false and the packet simulator's timeout_recover=False",
    )
    args = ap.parse_args(argv)
    sys.path.insert(0, str(SRC))
    table = cases()
    if args.list:
        print("\n".join(table))
        return 0
    names = args.case or list(table)
    bad = [c for c in names if c not in table]
    if bad:
        ap.error(f"unknown case(s) {bad}; --list names them")
    ns = find_ns(args.ns)
    for name in names:
        sc, win, matched, report_opts = table[name]
        if args.no_bugfix:
            matched = {**matched, "timeout_recover": False}
            report_opts = {**report_opts, "timeout_recover": False}
        sc = staggered(sc, args.stagger)
        script = ns2_script(
            sc, window_s=win, ns2_defaults=args.ns2_defaults, **ns2_options(matched)
        )
        if args.script:
            print(script)
            continue
        row: dict[str, Any] = {"case": name, "window_s": list(win), "stagger_s": args.stagger}
        if ns is None:
            print("ns-2 not found (apt-get install ns2, or --ns PATH): tcpfluid's side only")
        else:
            r = run_ns2(script, ns, win)
            row["ns2_kbps"] = [
                round(x * sc.packet_size_bytes * 8 / 1e3, 1) for x in r["goodput_pps"]
            ]
            row["ns2_cwnd"] = [round(x, 2) for x in r["cwnd_pkts"]]
            row["ns2_cuts"], row["ns2_timeouts"] = r["cuts"], r["timeouts"]
        kb = sc.packet_size_bytes * 8 / 1e3
        row["packet_kbps"] = [round(x * kb, 1) for x in packet_goodput(sc, win, **matched)]
        rec = matched.get("fast_recovery", "newreno")
        if "ns2-vegas" in ([rec] if isinstance(rec, str) else list(rec)):
            # ns-2.35's Vegas agent also takes BaseRTT from a one-packet round; the thesis's
            # agent, which the report's packet runs model, did not
            row["packet_base_reset_kbps"] = [
                round(x * kb, 1)
                for x in packet_goodput(sc, win, **matched, ns2_vegas_base_reset=True)
            ]
        if report_opts != matched:
            row["packet_report_kbps"] = [
                round(x * kb, 1) for x in packet_goodput(sc, win, **report_opts)
            ]
        algs = [f.algorithm for f in sc.flows]
        for key in [k for k in list(row) if k.endswith("_kbps")]:
            means = {
                a: round(sum(v for v, g in zip(row[key], algs, strict=True) if g == a)
                         / algs.count(a), 1)
                for a in dict.fromkeys(algs)
            }  # fmt: skip
            rates = row[key]
            mean = sum(rates) / len(rates)
            spread = math.sqrt(sum((x - mean) ** 2 for x in rates) / len(rates)) / mean
            row[key.replace("_kbps", "_spread")] = round(spread, 3)
            row[key.replace("_kbps", "_smaller_share")] = round(min(rates) / sum(rates), 3)
            print(f"{name:24} {key:20} per-law mean {means} spread {spread:.3f}")
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
