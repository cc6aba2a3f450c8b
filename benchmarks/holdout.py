"""Hold-out benchmark: the fluid engines against the packet simulator on seeded scenarios
nobody tuned for.

Run: ``python benchmarks/holdout.py [--seed 1] [--n 64] [--jobs N] [--json OUT]
[--packet-repeat]``;
``python benchmarks/holdout.py --pool OUT1.json OUT2.json ...`` prints the tables over the
stored runs of several seeds together (nothing is run again);
``python benchmarks/holdout.py --rerun OUT1.json ...`` runs the fluid engines of this tree
again on stored seeds, against their stored packet runs, and prints what moved (a model
change judged on the seeds it was measured on, without running the packets again).

Each scenario is drawn from ``--seed`` (same seed, same scenarios, same figures): every
law of :data:`tcpfluid.algorithms.registry.ALGORITHMS` in turn as the scenario's law (a
quarter of the scenarios mix it with a second law, flow by flow), 1-50 flows, a bottleneck
of 1 Mb/s-1 Gb/s, two-way propagation delays ("RTTs") of 5-400 ms (a third of the
scenarios give every flow its own, up to 4 times the first flow's and at most 400 ms), a
buffer of 0.1-10 bandwidth-delay products or none (a quarter, except with Reno, whose
window grows without bound when nothing is lost; the buffer is that multiple of the first
flow's propagation BDP rounded to whole packets, at least 2), RED on a fifth of the
scenarios whose buffer is finite and of at least 8 packets (about 15 % of all), and at most
two changes: a constant-bit-rate step (20-60 % of the bottleneck from a third to two thirds
of the run), flows joining at a third, flows leaving at two thirds. A scenario's
description, class and regimes are read from the built scenario (:func:`built_figures`:
its flows' base RTTs, which add a packet's and an ACK's transmission to the propagation,
and its buffer over μ times the shortest base RTT), not from the values drawn. The packet
simulator (with the scenario's seed), the round model and the hybrid model run it (the
engine ``"ode"`` runs the hybrid model too, so it is not run again; ``--classical`` adds
the classical continuous-time model); an engine that refuses it (a ``ValueError``: a
feature it does not model) is *refused*, listed apart, never counted as agreeing; one that
raises anything else, or a ``ValueError`` while its output is summarised, *failed*.

The packet simulator's own reproducibility (``--packet-repeat``)
----------------------------------------------------------------
Flows that start together can end unequal in packets because of which first packet
reaches the bottleneck first. ``--packet-repeat`` runs the packet simulator a second time
on each scenario with every sender starting a seeded uniform delay after its flow's start
or join (``start_delay_s``; the run's changes and summary keep the scenario's times), and
judges it against the first packet run by the same rule and tolerances as a fluid engine,
as the column :data:`REPEAT`: the agreement a deterministic model can reach where the
outcome hangs on the first packets. It informs; no fluid count depends on it. The delays
are below ``min(2 packet times of the bottleneck, 1 % of the shortest base RTT)``
(:func:`tcpfluid.sim.start_jitter`, through :func:`start_delays`): the flows' first
packets still meet at the bottleneck within two of its service slots, so only their order
and phase change; no flow gains as much as a hundredth of a round (of a run of at least
40 rounds and 5 s), and real hosts' start-up times differ by far more. The simulator's
seed is the first run's: RED's drops and the send overheads draw the same numbers.

ns-2 as a referee of the referee (``--ns2``)
-------------------------------------------
ns-2.35, the documents' own simulator, runs each scenario whose laws it has (Vegas, Reno;
``benchmarks/ns2_referee.py`` writes the script, CBR sources included; install
``apt-get install ns2`` or pass ``--ns``): its Reno flows on ``Agent/TCP/Newreno`` (the
packet simulator's default recovery), its Vegas flows on ns-2's Vegas agent, which
recovers as ns-2's Vegas does. It is judged, as the column :data:`NS2`, against a packet
run with the same senders (the packet simulator's ``fast_recovery="ns2-vegas"`` for the
Vegas flows, with ns-2.35's own Vegas agent's Δ and growth,
``ns2_referee.NS2_VEGAS_OPTIONS``; the first packet run itself when every flow is Reno),
on what ns-2's agents report: each flow's share of the delivered packets and the
utilization (the flows' goodput and the CBR packets received over the capacity; the
packet simulator's counts the packets carried, its retransmissions among them). It
informs; no fluid count uses it.

Durations
---------
Each segment (start to the first change, between changes, last change to the end) lasts
twice the time the slowest law of the scenario needs to settle from a standing start,
from the law's growth on a path of that scenario's per-flow window ``w`` (bandwidth-delay
product over the active flows, plus the buffer's share for Reno, whose losses set its
cycle): slow start ``2 log2 w`` rounds, then one packet a round for the Vegas family
and Reno (``w`` rounds; Reno three sawtooth periods, ``1.5 w``), ``4 sqrt w`` rounds
for the laws that grow faster than linearly (Quick Vegas, TCP-Ho, iTCP-Vegas, FAST),
plus 40 rounds of the longest RTT with a full buffer; at least 5 s. A run whose packet
count would pass ``PACKET_BUDGET`` is shortened to it and marked *capped*: its settling
comparisons (settled window, times) are not made, since the run is shorter than the
law needs; its throughput shares and utilization still are.

Quantities and tolerances (``TOLERANCES``; the fluid value against the packet value)
---------------------------------------------------------------------------------
See the table printed by the script (``TOLERANCES`` below, with the reasons). One
comparison per (scenario, engine, quantity): for per-flow quantities, the worst flow.
Jain's index is shown, not judged (judged: the per-flow shares, which it summarises and
which can fail where it does not). A settled value or time that exists in one engine
and not the other differs; where no flow (or change) has it in either run (nothing
settled in either) it is counted apart ("neither"). Where there is nothing to compare
(:data:`NOT_COMPARED`: the share of a lone flow, 1 in every engine; the convergence time
of a scenario without a change) no comparison is made or counted.

Output: the tolerance table; agreement per engine, per quantity × engine, per law ×
engine, per class (:data:`CLASSES`: one flow; several flows with windows and a buffer of
some size; several flows with a few packets each or a small buffer) × quantity × engine,
per regime × engine; with ``--packet-repeat``, the repeat as one more engine in each, and
the fluid engines' agreement where the repeat agrees with the packet run and where not
(and, where it agrees, per quantity and per law: the fluid engines' own errors);
the refused and failed runs; the fluid engines' worst comparisons (scenario, quantity,
values).
``--json`` writes every scenario, value and comparison; each run's ``scenario_toml`` is its
scenario as a scenario file (:func:`tcpfluid.scenarios.scenario_to_toml`): write it to
``case.toml`` and ``python -m tcpfluid simulate case.toml -e packet --seed SEED`` runs the
packet run again (``draw_case(index, seed).scenario`` builds it too).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import tcpfluid
from tcpfluid.algorithms.registry import ALGORITHMS
from tcpfluid.engines import ENGINES
from tcpfluid.scenarios import Scenario, rtt_dumbbell, scenario_to_toml
from tcpfluid.scenarios.files import scenario_from_toml
from tcpfluid.sim import JITTER_PACKET_TIMES, JITTER_RTT_FRACTION, start_jitter

PACKET = "packet"
#: the fluid engines judged against the packet simulator, in the order shown. ``"ode"``
#: runs the hybrid model unless it is given the classical one, so it is not run twice:
#: ``--classical`` adds the classical model (``"ode"`` with ``model="classical"``)
FLUID_ENGINES: tuple[str, ...] = tuple(e for e in ("rounds", "hybrid") if e in ENGINES)
#: the label of the classical continuous-time model and its engine options
CLASSICAL = "ode-classical"
_ENGINE_RUNS: dict[str, tuple[str, dict[str, Any]]] = {
    CLASSICAL: ("ode", {"model": "classical"}),
}
#: the packet simulator again, its senders' starts jittered (module docstring), judged
#: against the first packet run as a fluid engine is (``--packet-repeat``)
REPEAT = "packet, start jitter"
#: ns-2.35 on the scenarios whose laws it has (module docstring), judged against
#: :data:`NS2_PACKET` (``--ns2``)
NS2 = "ns-2"
#: the packet run with ns-2's senders that :data:`NS2` is judged against
NS2_PACKET = "packet, ns-2's senders"
#: the quantities ns-2's agents report here
NS2_QUANTITIES = ("throughput share", "utilization")
#: the ``ns`` binary (``--ns``; ``None``: ``$TCPFLUID_NS2`` or ``ns`` on the PATH)
NS2_BINARY: str | None = None
#: at most this many packets carried by the bottleneck in a run (its capacity × duration)
PACKET_BUDGET = 25e6
PACKET_BYTES = 1000.0

#: quantity -> (relative tolerance, absolute part, reason); the absolute part of a time is
#: in RTTs of the longest RTT drawn for the scenario's flows (its two-way propagation delay,
#: :attr:`Case.rtt_max_s`; a flow's base RTT adds a packet's and an ACK's transmission)
TOLERANCES: dict[str, tuple[float, float, str]] = {
    "throughput share": (
        0.10,
        0.0,
        "each flow's throughput (its delivered packets over its own active time) as a share "
        "of the sum of the flows' throughputs (worst flow): the split of the link is what a "
        "fluid model is used to predict; 10 % of the packet share",
    ),
    "settled window": (
        0.10,
        0.0,
        "each flow's window settled in its first segment, from its start to the first "
        "change after it, its stop or the end (a joiner's: from its join on; tail mean; "
        "worst flow): 10 % covers a law's cycle (±1-2 packets) and packet ACK-clock noise "
        "at windows > 20",
    ),
    "utilization": (
        0.10,
        0.0,
        "bottleneck carried/capacity over the run (all traffic): 10 % of the packet value",
    ),
    "time to equilibrium": (
        0.25,
        3.0,
        "time until every flow present from the start has settled (all_settled_time_s): "
        "25 %, or 3 RTTs (settling is resolved to a round; round boundaries and the band "
        "edge move it by a round or two)",
    ),
    "convergence time": (
        0.25,
        3.0,
        "time after each change until every active flow has settled again (the worst "
        "change): as the time to equilibrium",
    ),
}
#: shown, not judged
SHOWN = ("jain index",)
#: where a quantity has nothing to compare (:func:`nothing_to_compare`): no comparison is
#: made and none is counted
NOT_COMPARED = (
    "the throughput share where one flow is the only one ever active (1 in every engine)",
    "the convergence time of a scenario without a change (there is none)",
)
#: what a cell's counts beside agree/compared are
COUNTED_APART = (
    "'neither': no flow (or change) has the value in either run, nothing settled in either",
    "'capped': a settling quantity of a run shortened to the packet budget, not compared",
)
#: the quantities with one value per flow (per change: the convergence time)
_PER_ITEM = ("throughput share", "settled window", "convergence time")

_SLOW_LAWS = ("vegas", "enhanced-vegas", "forward-vegas")


@dataclass
class Case:
    """One drawn scenario and what the draw chose."""

    index: int
    seed: int
    scenario: Scenario
    law: str
    laws: tuple[str, ...]
    rtt_max_s: float
    capped: bool
    spec: dict[str, Any] = field(default_factory=dict)


def _log_uniform(rng: np.random.Generator, lo: float, hi: float) -> float:
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def _settle_rounds(law: str, w: float) -> float:
    """Rounds a flow of ``law`` needs to settle from a standing start with a target window
    of ``w`` packets (module docstring: a sizing rule, not a prediction)."""
    w = max(w, 2.0)
    ss = 2.0 * math.log2(w + 2.0)
    if law in _SLOW_LAWS:
        return ss + w + 40.0
    if law == "reno":
        return ss + 1.5 * w + 40.0
    return ss + 4.0 * math.sqrt(w) + 40.0


def segment_s(
    laws: Sequence[str], rtt_max_s: float, mu_pps: float, buffer_pkts: float, n_active: int
) -> float:
    """A segment of a run (from its start or a change to the next): twice the slowest law's
    settling time (:func:`_settle_rounds` at the window of the ``n_active`` flows' share of
    the pipe, Reno's with the buffer), at least 5 s (module docstring)."""
    extra = 0.0 if math.isinf(buffer_pkts) else buffer_pkts
    q_s = extra / mu_pps
    need = 0.0
    for a in set(laws):
        w = (mu_pps * rtt_max_s + (extra if a == "reno" else 0.0)) / n_active
        need = max(need, _settle_rounds(a, w) * (rtt_max_s + q_s))
    return max(5.0, 2.0 * need)


def draw_case(index: int, seed: int) -> Case:
    """Scenario ``index`` of the hold-out set of ``seed`` (module docstring)."""
    rng = np.random.default_rng([seed, index])
    law = ALGORITHMS[index % len(ALGORITHMS)]
    n = round(_log_uniform(rng, 1.0, 50.0))
    mixed = n >= 2 and rng.random() < 0.25
    other = str(rng.choice([a for a in ALGORITHMS if a != law])) if mixed else law
    laws = tuple(law if i % 2 == 0 else other for i in range(n))
    rate_bps = _log_uniform(rng, 1e6, 1e9)
    rtt0 = _log_uniform(rng, 0.005, 0.4)
    unequal = n >= 2 and rng.random() < 1.0 / 3.0
    # unequal RTTs: up to 4 times the first flow's, inside 5-400 ms
    rtt_hi = min(4.0 * rtt0, 0.4)
    rtts = [_log_uniform(rng, rtt0, rtt_hi) if unequal and i > 0 else rtt0 for i in range(n)]
    mu_pps = rate_bps / (8.0 * PACKET_BYTES)
    bdp = mu_pps * rtt0
    # without losses Reno's window grows without bound: a Reno flow gets a finite buffer
    infinite = rng.random() < 0.25 and "reno" not in laws
    buf_bdp = math.inf if infinite else _log_uniform(rng, 0.1, 10.0)
    buffer_pkts = math.inf if infinite else max(2.0, round(buf_bdp * bdp))
    red = (not infinite) and buffer_pkts >= 8 and rng.random() < 0.2
    cbr = rng.random() < 0.3
    joins = n >= 2 and rng.random() < 0.3
    leaves = n >= 2 and rng.random() < 0.3
    cbr_share = float(rng.uniform(0.2, 0.6)) if cbr else 0.0
    joiners = set(rng.choice(n, size=max(1, n // 3), replace=False).tolist()) if joins else set()
    leavers = (
        set(rng.choice(n, size=max(1, n // 3), replace=False).tolist()) - joiners
        if leaves
        else set()
    )
    if leaves and not leavers:
        leaves = False
    # durations: every segment twice the slowest law's settling time (module docstring)
    rtt_max = max(rtts)
    segment = segment_s(laws, rtt_max, mu_pps, buffer_pkts, max(1, n - len(joiners)))
    n_segments = 3 if (cbr or joins or leaves) else 1
    duration = segment * n_segments
    capped = mu_pps * duration > PACKET_BUDGET
    if capped:
        duration = PACKET_BUDGET / mu_pps
        segment = duration / n_segments
    t_change1, t_change2 = segment, 2.0 * segment
    # the dumbbell: R1-R2 the bottleneck, access links 10x faster carry each flow's RTT
    sc = rtt_dumbbell(
        rate_bps,
        rtts,
        laws,
        duration_s=duration,
        buffer_pkts=buffer_pkts,
        red=red,
        start_s=[t_change1 if i in joiners else 0.0 for i in range(n)],
        stop_s=[t_change2 if i in leavers else math.inf for i in range(n)],
        cbr=(cbr_share * rate_bps, t_change1, t_change2) if cbr else None,
        name=f"holdout-{seed}-{index}",
        packet_size_bytes=PACKET_BYTES,
    )
    spec = {
        "flows": n,
        "laws": sorted(set(laws)),
        "rate_Mbps": rate_bps / 1e6,
        "red": red,
        "cbr_share": cbr_share,
        "joins": len(joiners),
        "leaves": len(leavers),
        "duration_s": duration,
        "capped": capped,
        "unequal_rtt": unequal,
        **built_figures(sc),
    }
    return Case(index, seed, sc, law, laws, rtt_max, capped, spec)


#: the fields of a run's ``spec`` that are the draw's own choices (not read from the built
#: scenario): what ``--rerun`` checks a file that stores no scenario file against
DRAWN_FIELDS = (
    "flows", "laws", "rate_Mbps", "red", "cbr_share", "joins", "leaves", "duration_s",
    "capped", "unequal_rtt",
)  # fmt: skip


def built_figures(sc: Scenario) -> dict[str, Any]:
    """What the description and the classes read of a scenario, from the built scenario
    (not the values drawn for it): its flows' base RTTs d (:meth:`Scenario.base_rtt_s`: the
    propagation both ways plus a packet's and an ACK's transmission on every link); the
    bandwidth-delay product μd over the shortest of them (the first flow's: the others are
    drawn at or above its propagation); the bottleneck's buffer (the drawn multiple of the
    BDP, rounded to whole packets and at least 2) and that buffer over μd."""
    rtts = [sc.base_rtt_s(f) for f in sc.flows]
    bottleneck = sc.link("R1-R2")
    bdp = bottleneck.rate_bps / (8.0 * sc.packet_size_bytes) * min(rtts)
    buf = bottleneck.buffer_pkts
    return {
        "rtt_ms": [round(r * 1e3, 3) for r in sorted(set(rtts))][:4],
        "rtt_values": len(set(rtts)),
        "rtt_max_ms": max(rtts) * 1e3,
        "bdp_pkts": bdp,
        "buffer": "inf" if math.isinf(buf) else f"{buf:g} pkts ({buf / bdp:.2g} BDP)",
        "bdp_per_flow_pkts": bdp / len(rtts),
        "buffer_bdp": buf / bdp,
    }


def describe(c: Case) -> str:
    """One line naming the scenario."""
    s = c.spec
    parts = [
        f"#{c.index} {'+'.join(s['laws'])} x{s['flows']}",
        f"{s['rate_Mbps']:.3g} Mb/s",
        _rtts(s),
        f"buf {s['buffer']}",
    ]
    if s["red"]:
        parts.append("RED")
    if s["cbr_share"]:
        parts.append(f"CBR {s['cbr_share']:.0%}")
    if s["joins"]:
        parts.append(f"{s['joins']} join")
    if s["leaves"]:
        parts.append(f"{s['leaves']} leave")
    parts.append(f"{s['duration_s']:.3g} s" + (" (capped)" if s["capped"] else ""))
    return ", ".join(parts)


def _rtts(s: dict[str, Any]) -> str:
    """The base RTTs: each of up to four distinct values, else the range and the count."""
    if s.get("rtt_values", len(s["rtt_ms"])) <= len(s["rtt_ms"]):
        return f"RTT {'/'.join(f'{r:.3g}' for r in s['rtt_ms'])} ms"
    return f"RTT {s['rtt_ms'][0]:.3g}-{s['rtt_max_ms']:.3g} ms ({s['rtt_values']} values)"


# ------------------------------------------------------------------ running and comparing
def _values(res: Any) -> dict[str, Any]:
    """The compared quantities of one engine's result."""
    s = res.summary
    thr = [f.throughput_pps or 0.0 for f in s.flows]
    total = sum(thr)
    return {
        "throughput share": [x / total if total > 0 else None for x in thr],
        "settled window": [f.settled_window_pkts for f in s.flows],
        "utilization": s.utilization,
        "time to equilibrium": s.all_settled_time_s,
        "convergence time": list(s.all_converged_times_s),
        "jain index": s.jain_index,
        "amplitude": [f.cycle_amplitude_pkts for f in s.flows],
        "not settled": [f.not_settled_reason for f in s.flows],
    }


def start_delays(case: Case) -> tuple[float, ...]:
    """Each sender's start delay in the run :data:`REPEAT`: the library's start jitter
    (:func:`tcpfluid.sim.start_jitter`), seeded by the scenario's seed and index."""
    return start_jitter(case.scenario, (case.seed, case.index, 1))


def engine_options(case: Case, eng: str) -> tuple[str, dict[str, Any]]:
    """The engine that runs ``eng`` on ``case`` and its options."""
    name, opts = {REPEAT: (PACKET, {}), **_ENGINE_RUNS}.get(eng, (eng, {}))
    if name != PACKET:
        return name, dict(opts)
    delay = {"start_delay_s": start_delays(case)} if eng == REPEAT else {}
    return name, {"seed": case.seed, **delay}


def ns2_senders(scenario: Scenario) -> tuple[str, ...]:
    """Each flow's ``fast_recovery`` that ns-2.35's agent for its law recovers with, the
    first the driver lists for the law (``ns2_referee.LAW_RECOVERIES``: ``"newreno"`` for
    Reno, the packet simulator's default; ``"ns2-vegas"`` for Vegas); a ``ValueError``
    naming a law ns-2.35 has no agent for."""
    recoveries = _ns2_referee().LAW_RECOVERIES
    out = []
    for f in scenario.flows:
        if f.algorithm not in recoveries:
            raise ValueError(f"ns-2.35 has no agent for {f.algorithm!r}")
        out.append(recoveries[f.algorithm][0])
    return tuple(out)


def _ns2_referee() -> Any:
    """``benchmarks/ns2_referee.py``, the ns-2 driver beside this script."""
    import importlib.util

    name = "benchmark_ns2_referee"
    if name not in sys.modules:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ns2_referee.py")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[name])
    return sys.modules[name]


def run_ns2_case(case: Case) -> dict[str, Any]:
    """ns-2's values on ``case`` (:data:`NS2_QUANTITIES`) through
    ``benchmarks/ns2_referee.py``; a ``ValueError`` for a scenario it does not write."""
    ns2_referee = _ns2_referee()
    sc = case.scenario
    ns = ns2_referee.find_ns(NS2_BINARY)
    if ns is None:
        raise RuntimeError("no ns-2 binary: apt-get install ns2, or pass --ns PATH")
    window = (0.0, sc.duration_s)
    script = ns2_referee.ns2_script(sc, window_s=window, fast_recovery=ns2_senders(sc))
    got = ns2_referee.run_ns2(script, ns, window)
    delivered = [g * sc.duration_s for g in got["goodput_pps"]]
    cbr = sum(got["cbr_pps"]) * sc.duration_s
    active = [min(f.stop_s, sc.duration_s) - f.start_s for f in sc.flows]
    thr = [d / a if a > 0 else 0.0 for d, a in zip(delivered, active, strict=True)]
    total = sum(thr)
    mu_pps = sc.link("R1-R2").rate_bps / (8.0 * sc.packet_size_bytes)
    return {
        "throughput share": [x / total if total > 0 else None for x in thr],
        "utilization": (sum(delivered) + cbr) / (mu_pps * sc.duration_s),
    }


def _ns2_runs(case: Case, out: dict[str, Any], first: dict[str, Any] | None) -> None:
    """ns-2 on ``case`` and the packet run with its senders, into ``out["engines"]``
    (``first``: the first packet run's entry, reused when every sender is NewReno)."""
    import resource

    try:
        senders = ns2_senders(case.scenario)
    except ValueError as exc:
        out["engines"][NS2] = {"status": "not run", "message": str(exc), "cpu_s": 0.0}
        return
    if set(senders) == {"newreno"} and first is not None:
        out["engines"][NS2_PACKET] = first
    else:
        t0 = time.process_time()
        name, opts = engine_options(case, PACKET)
        # ns-2.35's own Vegas agent (ns2_referee.NS2_VEGAS_OPTIONS)
        opts = _ns2_referee().matched_to_ns2({**opts, "fast_recovery": senders})
        res = tcpfluid.simulate(case.scenario, name, **opts)
        out["engines"][NS2_PACKET] = {"status": "ok", "values": _values(res)}
        out["engines"][NS2_PACKET]["cpu_s"] = time.process_time() - t0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out["engines"][NS2] = {"status": "ok", "values": run_ns2_case(case)}
    except ValueError as exc:  # a scenario the driver does not write
        out["engines"][NS2] = {"status": "not run", "message": str(exc)}
    except Exception as exc:  # a failure is reported, not hidden
        out["engines"][NS2] = {"status": "failed", "message": f"{type(exc).__name__}: {exc}"}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    out["engines"][NS2]["cpu_s"] = cpu


def run_case(index: int, seed: int, engines: Sequence[str] | None = None) -> dict[str, Any]:
    """Draw scenario ``index`` and run it on the packet engine and ``engines`` (default
    :data:`FLUID_ENGINES`; one task of the pool)."""
    case = draw_case(index, seed)
    out: dict[str, Any] = {**run_record(case), "engines": {}}
    for eng in (PACKET, *(FLUID_ENGINES if engines is None else engines)):
        if eng == NS2:
            _ns2_runs(case, out, out["engines"].get(PACKET))
            continue
        out["engines"][eng] = run_engine(case, eng)
    return out


def run_record(case: Case) -> dict[str, Any]:
    """What a run stores of its scenario: index, law, description, ``spec``, the longest
    drawn RTT and, as ``scenario_toml``, the scenario file
    (:func:`tcpfluid.scenarios.scenario_to_toml`) that :func:`tcpfluid.load_scenario`
    builds the same scenario from."""
    return {
        "index": case.index,
        "law": case.law,
        "mixed": len(set(case.laws)) > 1,
        "describe": describe(case),
        "spec": case.spec,
        "rtt_max_s": case.rtt_max_s,
        "scenario_toml": scenario_to_toml(case.scenario),
    }


def run_engine(case: Case, eng: str) -> dict[str, Any]:
    """One engine's entry of a run: ``status`` ("ok" with its ``values``, "refused" or
    "failed" with a ``message``) and the CPU time it took."""
    t0 = time.process_time()
    name, opts = engine_options(case, eng)
    entry: dict[str, Any]
    try:
        res = tcpfluid.simulate(case.scenario, name, **opts)
    except ValueError as exc:
        # refused: the engine declined the scenario before running it; a ValueError from
        # the summary of what it computed (a negative throughput...) is a failure
        after_run = any(
            "tcpfluid/metrics" in f.filename or "tcpfluid/results" in f.filename
            for f in traceback.extract_tb(exc.__traceback__)
        )
        entry = {"status": "failed" if after_run else "refused", "message": str(exc)}
    except Exception as exc:  # a failure is reported, not hidden
        entry = {
            "status": "failed",
            "message": f"{type(exc).__name__}: {exc}",
            "traceback": traceback.format_exc(limit=4),
        }
    else:
        entry = {"status": "ok", "values": _values(res)}
    entry["cpu_s"] = time.process_time() - t0
    return entry


def rerun_case(index: int, seed: int, engines: Sequence[str]) -> dict[str, Any]:
    """Draw scenario ``index`` of ``seed`` again and run ``engines`` on it (``--rerun``; one
    task of the pool): each engine's entry."""
    case = draw_case(index, seed)
    return {eng: run_engine(case, eng) for eng in engines}


def drawn_as_stored(run: dict[str, Any], case: Case) -> bool:
    """Whether ``case`` (this tree's draw of the stored run's seed and index) is the
    stored ``run``'s scenario: the scenario its ``scenario_toml`` builds; for a run stored
    without one, the draw's own choices in its ``spec`` (:data:`DRAWN_FIELDS`)."""
    text = run.get("scenario_toml")
    if text is not None:
        return bool(scenario_from_toml(text) == case.scenario)
    return all(run["spec"].get(k) == case.spec[k] for k in DRAWN_FIELDS)


def _rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b) if b != 0 else (0.0 if a == b else math.inf)


def nothing_to_compare(quantity: str, pairs: Sequence[tuple[Any, Any]]) -> bool:
    """Whether ``quantity``, its (packet, fluid) values ``pairs`` (one per flow or change),
    is no comparison (:data:`NOT_COMPARED`): the throughput share of a lone flow, 1 in every
    engine by definition (in the draw any two flows are active together: joiners start
    before leavers stop, and no flow does both), or a convergence time where the scenario
    has no change (no item at all)."""
    return not pairs or (quantity == "throughput share" and len(pairs) == 1)


def compare(run: dict[str, Any], eng: str) -> list[dict[str, Any]]:
    """The comparisons of engine ``eng`` against the packets on one scenario (none if it
    was not run; none for a quantity with nothing to compare, :func:`nothing_to_compare`).
    Verdicts: "agree"/"differ" (the worst flow or change against its tolerance; a value
    one run has and the other lacks differs), "neither" (no flow or change has the value in
    either run: nothing settled), "capped" (a settling quantity of a capped run)."""
    reference = NS2_PACKET if eng == NS2 else PACKET
    pk = run["engines"].get(reference, {"status": "not run"})
    fl = run["engines"].get(eng, {"status": "not run"})
    if pk["status"] != "ok" or fl["status"] != "ok":
        return []
    p, f = pk["values"], fl["values"]
    capped = run["spec"]["capped"]
    rtt = run["rtt_max_s"]
    out = []
    for q, (rel, abs_rtts, _) in TOLERANCES.items():
        if q not in f:  # a quantity this engine does not report (ns-2's agents)
            continue
        pv, fv = p[q], f[q]
        pairs = list(zip(pv, fv, strict=True)) if isinstance(pv, list) else [(pv, fv)]
        if nothing_to_compare(q, pairs):
            continue
        settling = q in ("settled window", "time to equilibrium", "convergence time")
        if capped and settling:
            out.append({"quantity": q, "verdict": "capped"})
            continue
        abs_tol = abs_rtts * rtt
        worst: dict[str, Any] | None = None
        verdict = "neither"
        for j, (a, b) in enumerate(pairs):
            if a is None and b is None:
                continue
            if a is None or b is None:
                cmp = {"score": math.inf, "packet": a, "fluid": b, "flow": j}
            else:
                tol = max(rel * abs(a), abs_tol)
                err = abs(b - a)
                cmp = {
                    "score": err / tol if tol > 0 else (0.0 if err == 0 else math.inf),
                    "packet": a,
                    "fluid": b,
                    "flow": j,
                    "rel_error": _rel(b, a),
                }
            if worst is None or cmp["score"] > worst["score"]:
                worst = cmp
        if worst is not None:
            verdict = "agree" if worst["score"] <= 1.0 else "differ"
        out.append({"quantity": q, "verdict": verdict, **(worst or {})})
    return out


# ------------------------------------------------------------------ tables
def _pct(a: int, n: int) -> str:
    return f"{a}/{n} ({100.0 * a / n:.0f} %)" if n else "-"


def _table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(head, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)


#: the regimes agreement is broken down by (a scenario may be in several)
REGIMES: tuple[str, ...] = (
    "BDP/flow < 4 pkts",
    "BDP/flow 4-20 pkts",
    "BDP/flow 20-100 pkts",
    "BDP/flow >= 100 pkts",
    "buffer < 0.5 BDP",
    "buffer 0.5-2 BDP",
    "buffer > 2 BDP",
    "no buffer limit",
    "RED",
    "unequal RTTs",
    "CBR step",
    "joins or leaves",
    "one flow",
    "mixed laws",
)


#: a partition of the scenarios into where the fluid engines are meant to apply
#: (docs/fluid-promises.md, "The promises"): one flow; several flows with windows and a
#: buffer of some size; several flows with a few packets each or a small buffer
CLASSES: tuple[str, ...] = (
    "one flow",
    "several flows, BDP/flow >= 4 pkts, buffer >= 0.5 BDP",
    "several flows, BDP/flow < 4 pkts or buffer < 0.5 BDP",
)


def scenario_class(spec: dict[str, Any]) -> str:
    """The class of :data:`CLASSES` a scenario is in."""
    if spec["flows"] == 1:
        return CLASSES[0]
    small = spec["bdp_per_flow_pkts"] < 4 or spec["buffer_bdp"] < 0.5
    return CLASSES[2] if small else CLASSES[1]


def regimes(spec: dict[str, Any], mixed: bool) -> list[str]:
    """The regimes of :data:`REGIMES` a scenario is in."""
    w, b = spec["bdp_per_flow_pkts"], spec["buffer_bdp"]
    out = [
        "BDP/flow < 4 pkts"
        if w < 4
        else "BDP/flow 4-20 pkts"
        if w < 20
        else "BDP/flow 20-100 pkts"
        if w < 100
        else "BDP/flow >= 100 pkts",
        "no buffer limit"
        if math.isinf(b)
        else "buffer < 0.5 BDP"
        if b < 0.5
        else "buffer 0.5-2 BDP"
        if b <= 2
        else "buffer > 2 BDP",
    ]
    flags = (
        (spec["red"], "RED"),
        (spec["unequal_rtt"], "unequal RTTs"),
        (spec["cbr_share"] > 0, "CBR step"),
        (spec["joins"] or spec["leaves"], "joins or leaves"),
        (spec["flows"] == 1, "one flow"),
        (mixed, "mixed laws"),
    )
    return out + [name for flag, name in flags if flag]


def summarise_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Agreement counts per engine (the fluid engines, and :data:`REPEAT` where a run has
    it), quantity and law; refused/failed runs; the fluid engines' worst cases."""
    extra = tuple(e for e in (REPEAT, NS2) if any(e in run["engines"] for run in runs))
    engines = (*FLUID_ENGINES, *extra)
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    by_repeat: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    worst = []
    refused, failed = [], []
    for run in runs:
        label = "mixed" if run["mixed"] else run["law"]
        for eng, r in run["engines"].items():
            if r["status"] == "refused":
                refused.append((run["describe"], eng, r["message"]))
            elif r["status"] == "failed":
                failed.append((run["describe"], eng, r["message"]))
        for eng in engines:
            cmps = compare(run, eng)
            run.setdefault("comparisons", {})[eng] = cmps
            for c in cmps:
                k = {"agree": 0, "differ": 1, "neither": 2, "capped": 3}[c["verdict"]]
                keys = [(eng, c["quantity"], "*"), (eng, "*", label), (eng, "*", "*")]
                keys += [(eng, "*", f"regime:{r}") for r in regimes(run["spec"], run["mixed"])]
                klass = f"class:{scenario_class(run['spec'])}"
                keys += [(eng, c["quantity"], klass), (eng, "*", klass)]
                for key in keys:
                    counts[key][k] += 1
                if c["verdict"] == "differ" and eng in FLUID_ENGINES:
                    worst.append((c["score"], run["describe"], eng, c))
        # the fluid verdicts where the repeat reproduced the packet run, and where not
        again = {c["quantity"]: c["verdict"] for c in run["comparisons"].get(REPEAT, [])}
        for eng in FLUID_ENGINES:
            for c in run["comparisons"][eng]:
                if {c["verdict"], again.get(c["quantity"])} <= {"agree", "differ"}:
                    tag = f"repeat {again[c['quantity']]}s"
                    for what in ("*", c["quantity"], f"law:{label}"):
                        by_repeat[(eng, what, tag)][c["verdict"] == "differ"] += 1
    worst.sort(key=lambda x: -x[0])
    return {
        "counts": counts,
        "worst": worst,
        "refused": refused,
        "failed": failed,
        "engines": engines,
        "by_repeat": by_repeat,
    }


def _fmt(x: Any) -> str:
    if x is None:
        return "none"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def report(runs: list[dict[str, Any]], s: dict[str, Any], n_worst: int = 15) -> str:
    """The printed tables."""
    c, engines = s["counts"], s["engines"]
    eng_head = ["", *engines]

    def cell(key: tuple[str, str, str], counts: dict[Any, list[int]] = c) -> str:
        a, d, n0, cap = counts.get(key, [0, 0, 0, 0])
        extra = f"; {n0} neither" if n0 else ""
        extra += f"; {cap} capped" if cap else ""
        return _pct(a, a + d) + extra

    out = ["Tolerances (fluid value against the packet value):"]
    if REPEAT in engines:
        out[0] += f" ({REPEAT}: the repeat's value against the first packet run's)"
    if NS2 in engines:
        ran = sum(run["engines"].get(NS2, {}).get("status") == "ok" for run in runs)
        out[0] += (
            f" ({NS2}: against the packet run with ns-2's senders, {NS2_PACKET!r}; "
            f"{', '.join(NS2_QUANTITIES)} only; run on {ran} of {len(runs)} scenarios, the "
            "others have a law ns-2.35 lacks)"
        )
    out.append(
        _table(
            ["quantity", "relative", "absolute", "reason"],
            [
                (q, f"{r:.0%}", f"{a:g} RTTs" if a else "-", why)
                for q, (r, a, why) in TOLERANCES.items()
            ],
        )
    )
    out.append(f"shown, not judged: {', '.join(SHOWN)}")
    out.append(f"not compared, in no count (nothing to compare): {'; '.join(NOT_COMPARED)}")
    out.append(f"counted apart: {'; '.join(COUNTED_APART)}")
    out.append("")
    out.append("Agreement per engine (agree/compared):")
    out.append(_table(eng_head, [["all", *(cell((e, "*", "*")) for e in engines)]]))
    out.append("")
    out.append("Agreement per quantity:")
    out.append(_table(eng_head, [[q, *(cell((e, q, "*")) for e in engines)] for q in TOLERANCES]))
    out.append("")
    out.append("Agreement per law (the scenario's law; 'mixed': two laws):")
    labels = [a for a in (*ALGORITHMS, "mixed") if any((e, "*", a) in c for e in engines)]
    out.append(_table(eng_head, [[a, *(cell((e, "*", a)) for e in engines)] for a in labels]))
    out.append("")
    out.append("Agreement per class and quantity (each scenario in one class):")
    n_cls = {k: sum(scenario_class(run["spec"]) == k for run in runs) for k in CLASSES}
    for k in CLASSES:
        if not n_cls[k]:
            continue
        out.append(f"{k} ({n_cls[k]} scenarios):")
        out.append(
            _table(
                eng_head,
                [
                    ["all" if q == "*" else q, *(cell((e, q, f"class:{k}")) for e in engines)]
                    for q in ("*", *TOLERANCES)
                ],
            )
        )
    out.append("")
    out.append("Agreement per regime (all quantities; a scenario counts in each of its regimes):")
    n_in = {r: sum(r in regimes(run["spec"], run["mixed"]) for run in runs) for r in REGIMES}
    out.append(
        _table(
            ["", "scenarios", *engines],
            [
                [r, str(n_in[r]), *(cell((e, "*", f"regime:{r}")) for e in engines)]
                for r in REGIMES
                if n_in[r]
            ],
        )
    )
    if REPEAT in engines:
        out.append("")
        out.append(f"Fluid agreement where {REPEAT!r} agrees with the packet run, and where not:")
        rows = [f"repeat {v}s" for v in ("agree", "differ")]
        by = s["by_repeat"]
        out.append(
            _table(
                ["", *FLUID_ENGINES],
                [[r, *(cell((e, "*", r), by) for e in FLUID_ENGINES)] for r in rows],
            )
        )
        # where the packets reproduce themselves, the fluid engines' own errors: per
        # quantity and per law
        whats = [*TOLERANCES, *(f"law:{a}" for a in (*ALGORITHMS, "mixed"))]
        out.append("")
        out.append(f"Fluid agreement where {REPEAT!r} agrees, per quantity and per law:")
        out.append(
            _table(
                ["", *FLUID_ENGINES],
                [
                    [w.removeprefix("law:"), *(cell((e, w, rows[0]), by) for e in FLUID_ENGINES)]
                    for w in whats
                    if any(sum(by[(e, w, rows[0])][:2]) for e in FLUID_ENGINES)
                ],
            )
        )
    out.append("")
    out.append(f"Refused runs ({len(s['refused'])}):")
    for d, e, m in s["refused"]:
        out.append(f"  {e}: {d}: {m[:160]}")
    out.append(f"Failed runs ({len(s['failed'])}):")
    for d, e, m in s["failed"]:
        out.append(f"  {e}: {d}: {m[:200]}")
    out.append("")
    numeric = [w for w in s["worst"] if math.isfinite(w[0])]
    one_only = [w for w in s["worst"] if not math.isfinite(w[0])]
    for title, rows in (
        (f"Worst differing values ({min(n_worst, len(numeric))} of {len(numeric)})", numeric),
        (
            f"Settled in one engine only ({min(n_worst, len(one_only))} of {len(one_only)})",
            one_only,
        ),
    ):
        out.append(f"{title}:")
        for score, d, e, cmp in rows[:n_worst]:
            item = "change" if cmp["quantity"] == "convergence time" else "flow"
            flow = f" {item} {cmp['flow']}" if cmp["quantity"] in _PER_ITEM else ""
            ratio = f" ({score:.2g}x tolerance)" if math.isfinite(score) else ""
            out.append(
                f"  {e:6s} {cmp['quantity']}{flow}: packet {_fmt(cmp['packet'])}, "
                f"fluid {_fmt(cmp['fluid'])}{ratio}  [{d}]"
            )
    jain = []
    for run in runs:
        vals = {e: r.get("values", {}).get("jain index") for e, r in run["engines"].items()}
        jain.append((run["index"], vals))
    out.append("")
    out.append(f"Jain's index (shown, not judged): scenario: {', '.join(('packet', *engines))}")
    for i, vals in jain:
        out.append(f"  #{i}: " + ", ".join(_fmt(vals.get(e)) for e in ("packet", *engines)))
    return "\n".join(out)


def stored_runs(path: str, option: str = "--pool") -> dict[str, Any]:
    """A ``--json`` output as written, its runs' specs read back (no buffer limit is
    written as null) and their comparisons dropped (they are made again, by this script's
    rules, from the stored values); ``SystemExit`` naming ``option`` if it is not one."""
    try:
        with open(path) as fh:
            payload = json.load(fh)
        int(payload["seed"])
        runs = list(payload["runs"])
        for run in runs:
            spec = run["spec"] = dict(run["spec"])
            if spec["buffer_bdp"] is None:
                spec["buffer_bdp"] = math.inf
            run.pop("comparisons", None)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"{option}: {path} is not a hold-out --json output ({exc})") from exc
    return dict(payload)


def pooled_runs(paths: Sequence[str]) -> list[dict[str, Any]]:
    """The scenarios of several ``--json`` outputs, each labelled with its seed."""
    runs = []
    for path in paths:
        payload = stored_runs(path)
        seed = payload["seed"]
        runs += [{**run, "describe": f"seed {seed} {run['describe']}"} for run in payload["runs"]]
    return runs


def _agreeing(verdicts: Sequence[str]) -> str:
    """``agree/compared`` of a list of verdicts."""
    compared = sum(v in ("agree", "differ") for v in verdicts)
    return f"{verdicts.count('agree')}/{compared}"


def rerun(paths: Sequence[str], jobs: int) -> list[dict[str, Any]]:
    """``--rerun``: the stored ``--json`` outputs at ``paths`` with each scenario's
    :data:`FLUID_ENGINES` run again by this tree (their packet runs, and the packets'
    repeat and ns-2's where stored, kept) and judged against the stored packet runs; an
    engine a file was run without (the classical model, ``--classical``) is run and judged
    the same way, with no count before. Prints each comparison whose verdict moved (and
    each run whose status moved) and each file's counts before and after. Each run's
    record (:func:`run_record`: description, classes, scenario file) becomes this tree's.
    A scenario the seed no longer draws as stored (:func:`drawn_as_stored`: the generator
    changed since) stops it before anything runs: its packet run would judge another
    scenario."""
    payloads = [stored_runs(p, "--rerun") for p in paths]
    tasks = [(k, p["seed"], run) for k, p in enumerate(payloads) for run in p["runs"]]
    for _, seed, run in tasks:
        case = draw_case(run["index"], seed)
        if not drawn_as_stored(run, case):
            raise SystemExit(
                f"--rerun: seed {seed} draws scenario {run['index']} as {describe(case)!r}, "
                f"stored as {run['describe']!r}: the draw changed since the file was written"
            )
        run.update(run_record(case))
    args = [(run["index"], seed, FLUID_ENGINES) for _, seed, run in tasks]
    if jobs == 1:
        got = [rerun_case(*a) for a in args]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            got = list(pool.map(rerun_case, *zip(*args, strict=True)))
    before: dict[tuple[int, str], list[str]] = {}  # (file, engine): verdicts
    for (k, seed, run), entries in zip(tasks, got, strict=True):
        stored = {e: run["engines"][e] for e in FLUID_ENGINES if e in run["engines"]}
        old = {eng: compare(run, eng) for eng in stored}
        run["engines"] = {**run["engines"], **entries}
        for eng, was_entry in stored.items():
            before.setdefault((k, eng), []).extend(c["verdict"] for c in old[eng])
            where = f"  seed {seed} {run['describe']}: {eng}"
            if was_entry["status"] != entries[eng]["status"]:
                print(f"{where} {was_entry['status']} -> {entries[eng]['status']}")
            now = {c["quantity"]: c for c in compare(run, eng)}
            for was in old[eng]:
                c = now.get(was["quantity"])
                if c is not None and c["verdict"] != was["verdict"]:
                    print(
                        f"{where} {c['quantity']} {was['verdict']} -> {c['verdict']} (packet "
                        f"{_fmt(c.get('packet'))}, before {_fmt(was.get('fluid'))}, now "
                        f"{_fmt(c.get('fluid'))})"
                    )
    for k, (path, payload) in enumerate(zip(paths, payloads, strict=True)):
        moved = [
            f"{eng} "
            + (_agreeing(before[(k, eng)]) if (k, eng) in before else "not run")
            + " -> "
            + _agreeing([c["verdict"] for run in payload["runs"] for c in compare(run, eng)])
            for eng in FLUID_ENGINES
        ]
        print(f"{path} (seed {payload['seed']}): {'; '.join(moved)}")
    return payloads


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="seed of the scenario draw (default 1)")
    ap.add_argument("--n", type=int, default=64, help="number of scenarios (default 64)")
    ap.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="worker processes (default: the CPUs, at most --n)",
    )
    ap.add_argument("--json", metavar="OUT", help="write every scenario and comparison here")
    ap.add_argument(
        "--classical",
        action="store_true",
        help=f"also run the classical continuous-time model ({CLASSICAL!r}: the engine "
        "'ode' with model='classical'; without options 'ode' is the hybrid model)",
    )
    ap.add_argument(
        "--pool",
        nargs="+",
        metavar="JSON",
        help="run nothing: print the tables over the scenarios of these --json outputs "
        "together (several seeds pooled)",
    )
    ap.add_argument(
        "--packet-repeat",
        action="store_true",
        help=f"also run the packet simulator again with its senders' starts jittered "
        f"(below {JITTER_PACKET_TIMES:g} bottleneck packet times and "
        f"{100 * JITTER_RTT_FRACTION:g} %% of the shortest base RTT), judged against the "
        f"first packet run as {REPEAT!r}; it informs, no fluid count uses it",
    )
    ap.add_argument(
        "--ns2",
        action="store_true",
        help=f"also run ns-2.35 on the scenarios whose laws it has (Vegas, Reno), judged as "
        f"{NS2!r} against the packet simulator with the same senders; it "
        "informs, no fluid count uses it",
    )
    ap.add_argument("--ns", metavar="PATH", help="the ns-2 binary (default: $TCPFLUID_NS2 or ns)")
    ap.add_argument(
        "--rerun",
        nargs="+",
        metavar="JSON",
        help="run the fluid engines again (with --classical the classical model too) on "
        "the scenarios of these --json outputs, judged against their stored packet runs: "
        "prints each comparison whose verdict moved, each file's counts before and after, "
        "and the tables (a model change judged on stored seeds without running the packets "
        "again); with --json, the new runs of one file",
    )
    args = ap.parse_args(argv)
    if args.pool:
        runs = pooled_runs(args.pool)
        print(f"hold-out: {len(runs)} scenarios pooled from {len(args.pool)} run(s)")
        print(report(runs, summarise_runs(runs)))
        return 0
    global FLUID_ENGINES
    if args.classical:
        FLUID_ENGINES = (*FLUID_ENGINES, CLASSICAL)
    if args.rerun:
        if args.json and len(args.rerun) > 1:
            ap.error("--json with --rerun takes one file")
        jobs = (os.cpu_count() or 1) if args.jobs is None else args.jobs
        if jobs < 1:
            ap.error(f"--jobs must be >= 1, got {jobs}")
        print(f"hold-out: the fluid engines ({', '.join(FLUID_ENGINES)}) again on "
              f"{len(args.rerun)} stored run(s)", flush=True)  # fmt: skip
        payloads = rerun(args.rerun, jobs)
        runs = [
            {**run, "describe": f"seed {p['seed']} {run['describe']}"}
            for p in payloads
            for run in p["runs"]
        ]
        print()
        print(report(runs, summarise_runs(runs)))
        if args.json:
            payload = payloads[0]
            s = summarise_runs(payload["runs"])
            engines = list(payload.get("engines", [PACKET]))
            engines += [e for e in FLUID_ENGINES if e not in engines]
            payload.update(engines=engines, rerun_of=args.rerun[0])
            payload["counts"] = {"|".join(k): v for k, v in s["counts"].items()}
            with open(args.json, "w") as fh:
                json.dump(_finite(payload), fh, indent=1, default=_json_default)
        return 0
    if args.n < 1:
        ap.error(f"--n must be >= 1, got {args.n}")
    if args.seed < 0:
        ap.error(f"--seed must be >= 0, got {args.seed}")
    cpus = os.cpu_count() or 1
    jobs = min(cpus, args.n) if args.jobs is None else args.jobs
    if jobs < 1:
        ap.error(f"--jobs must be >= 1, got {jobs}")
    jobs = min(jobs, cpus, args.n)
    t0 = time.perf_counter()
    engines = (*FLUID_ENGINES, REPEAT) if args.packet_repeat else FLUID_ENGINES
    if args.ns2:
        global NS2_BINARY
        NS2_BINARY = _ns2_referee().find_ns(args.ns)
        if NS2_BINARY is None:
            ap.error("--ns2: no ns-2 binary (apt-get install ns2, or --ns PATH)")
        engines = (*engines, NS2)
    print(
        f"hold-out: seed {args.seed}, {args.n} scenarios, engines packet + "
        f"{', '.join(engines)}, {jobs} worker(s)",
        flush=True,
    )
    if jobs == 1:
        runs = [run_case(i, args.seed, engines) for i in range(args.n)]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_case, i, args.seed, engines) for i in range(args.n)]
            for k, fut in enumerate(as_completed(futures), start=1):
                done = fut.result()
                print(f"  [{k}/{args.n}] scenario #{done['index']} done", file=sys.stderr)
            runs = [f.result() for f in futures]
    for run in runs:
        cpu = ", ".join(f"{e} {r['cpu_s']:.1f}" for e, r in run["engines"].items())
        print(f"  {run['describe']}  [CPU s: {cpu}]")
    s = summarise_runs(runs)
    print()
    print(report(runs, s))
    wall = time.perf_counter() - t0
    cpu_total = sum(r["cpu_s"] for run in runs for r in run["engines"].values())
    print(f"\n{args.n} scenarios in {wall:.0f} s wall, {cpu_total:.0f} s CPU in the engines")
    if args.json:
        payload = {
            "seed": args.seed,
            "n": args.n,
            "engines": [PACKET, *engines],
            "tolerances": {
                q: {"rel": r, "abs_rtts": a, "reason": w} for q, (r, a, w) in TOLERANCES.items()
            },
            "counts": {"|".join(k): v for k, v in s["counts"].items()},
            "runs": runs,
            "wall_s": wall,
        }
        with open(args.json, "w") as fh:
            json.dump(_finite(payload), fh, indent=1, default=_json_default)
    return 0


def _finite(x: Any) -> Any:
    """``x`` with every non-finite float replaced by ``None`` (strict JSON)."""
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"not JSON: {type(x).__name__}")


if __name__ == "__main__":
    sys.exit(main())
