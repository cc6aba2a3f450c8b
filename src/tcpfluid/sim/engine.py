"""The packet simulator's Python side: build the arrays, drive the laws, collect results.

:func:`simulate_packets` runs a :class:`~tcpfluid.scenarios.Scenario` packet by packet: the
per-packet work runs in the compiled loop of :mod:`tcpfluid.sim._core`; at every round
boundary and every loss it returns here, the flow's law decides (:mod:`._decisions`) and
the loop resumes. Checks in :mod:`._checks`, arrays in :mod:`._setup`, results in
:mod:`._results`; the model: ``docs/simulator.md``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from .._validation import check_progress, warn_renamed
from ..algorithms._jit import arg_kind
from ..algorithms.base import ControlLaw
from ..scenarios import Scenario
from ..scenarios.model import paused_gc
from . import _core as C
from ._checks import (
    SECONDS_OPTIONS,
    check_ns2_vegas,
    check_options,
    check_rings,
    check_scenario,
    seconds_options,
    trace_interval,
)
from ._decisions import Decisions, law_for
from ._results import FlowTrace, LinkTrace, PacketResult, collect
from ._setup import (
    FLOW_RING,
    LINK_RING,
    Arrays,
    early_receivers,
    event_heap,
    flow_arrays,
    grow_ring,
    link_arrays,
    route_arrays,
    trace_arrays,
)

__all__ = ["FlowTrace", "LinkTrace", "PacketResult", "simulate_packets"]

#: largest number of fixed-interval trace samples (bounded memory)
MAX_SAMPLES = 2_000_000
#: largest number of values in the fixed-interval traces (4 per flow and per link and
#: sample: 160 MB of float64)
MAX_TRACE_VALUES = 20_000_000
#: events between two returns of the compiled loop when progress is reported
_YIELD_EVENTS = 1 << 20
_PROGRESS_EVERY_S = 0.1
#: heap key updates a run may make: a heap slot packs the key's tie-break number (one per
#: update) above the source's SRC_BITS bits of an int64. The loop returns to Python at least
#: once a round, far more often than the margin of 2**30 updates below the limit
_MAX_KEY_UPDATES = (1 << (63 - C.SRC_BITS)) - (1 << 30)
#: what a progress callable with a ``note`` method (tcpfluid._progress.ProgressBar) is
#: told when the first run of a process has not started after ``_COMPILE_NOTICE_S``
#: (the kernels are being compiled: about 20 s, once per install and Numba version)
COMPILE_NOTICE = "compiling the simulator (first run only)"  # ProgressBar.note: <= 40
_COMPILE_NOTICE_S = 1.0
_kernels_ready = False
#: default ceiling on the slots of the simulator's rings (``max_packets``)
MAX_PACKETS = 4_000_000
_RAND_BLOCK = 1 << 16


def _check_agent_delta(sc: Scenario, laws: Sequence[ControlLaw], timed: Any, mode: float) -> None:
    """A ``ValueError`` naming the first ns-2 Vegas sender whose law would not decide on the
    agent's Δ that ``ns2_vegas_agent_delta`` (``mode`` 1) or ``ns2_vegas_integer_delta`` (2)
    asks for (the law's sender declares ``decides_on_sender_delta``)."""
    from ..algorithms.registry import ALGORITHMS, get_law

    for f in np.flatnonzero(timed).tolist():
        if not laws[f].sender.decides_on_sender_delta:
            name = "ns2_vegas_integer_delta" if mode == 2.0 else "ns2_vegas_agent_delta"
            readers = sorted(a for a in ALGORITHMS if get_law(a).sender.decides_on_sender_delta)
            raise ValueError(
                f"{name}=True: flow {sc.flows[f].name!r} runs {laws[f].name!r}, whose rule "
                f"computes its own Δ; the agent's Δ is read by the laws {readers} only"
            )


class _Sim:
    """Mutable run state (private): the arrays handed to the compiled loop."""

    def __init__(
        self,
        scenario: Scenario,
        laws: Sequence[ControlLaw],
        opts: Mapping[str, Any],
        sample_interval_s: float,
    ) -> None:
        """``opts``: the checked options (:func:`~tcpfluid.sim._checks.check_options`)."""
        self.scenario = sc = scenario
        self.rng = np.random.default_rng(opts["seed"])
        self.paths, self.fi, self.cf, self.ci = route_arrays(sc)
        self.lf, self.li, self.rf, self.ri, self.has_red = link_arrays(sc)
        if opts["red_wait"]:  # every RED link drops with ns-2's wait_
            self.li[self.li[:, C.J_DISC] > 0, C.J_DISC] += C.DISC_WAIT
        if opts["send_overhead_s"] > 0.0:
            # each flow's first link draws its data packets' send overhead
            self.lf[self.paths[self.fi[:, C.I_FWD_OFF]], C.L_OVH] = opts["send_overhead_s"]
            self.has_red = True  # the random numbers are needed (the kernel's flag)
        self.link_rows = self.rf.shape[0]
        self.ff, self.fs, self.fq = flow_arrays(sc, self.fi, laws, opts)
        early_receivers(sc, self.paths, self.fi, self.li)
        self.ff[:, C.F_S_DELTA] = np.nan  # no agent's Δ: the laws compute theirs
        if opts["ns2_vegas_timing"]:  # ns-2 Vegas agents time their rounds as tcp-vegas.cc
            timed = self.fi[:, C.I_RECOVERY] == C.REC_NS2_VEGAS
            # 2: and take ns-2.35's rttLen <= 1 BaseRTT rule
            self.ff[timed, C.F_V_TIMED] = 2.0 if opts["ns2_vegas_base_reset"] else 1.0
            self.ff[timed, C.F_V_BEGT] = self.ff[timed, C.F_START]
            # and read the agent's Δ (2: rounded as ns-2.35's); and grow only a full window
            mode = 2.0 if opts["ns2_vegas_integer_delta"] else float(opts["ns2_vegas_agent_delta"])
            if mode > 0.0:
                _check_agent_delta(sc, laws, timed, mode)
            self.ff[timed, C.F_V_DELTA] = mode
            self.ff[timed, C.F_V_GROW_CHECK] = 1.0 if opts["ns2_vegas_growth_check"] else 0.0
        self.flow_rows = self.fs.shape[0]
        # slots of the rings (at most max_packets: check_rings, before the build)
        self.room = self.link_rows + self.flow_rows
        self.max_packets = opts["max_packets"]
        self.ht, self.hi, self.gf, self.gi = event_heap(
            sc, self.ff[:, C.F_START], sample_interval_s=sample_interval_s
        )
        self.decisions = Decisions(sc, laws, self.ff, self.fi, self.gf, self.gi)
        self.pend = self.decisions.pend
        self.rand = self.rng.random(_RAND_BLOCK) if self.has_red else np.zeros(0)
        self.s_t, self.s_flow, self.s_link, self.rec = trace_arrays(sc, sample_interval_s)

    # ------------------------------------------------------------------ growth
    def _grow(
        self, arrays: Arrays, used: int, table: NDArray[np.int64], cols: tuple[int, int, int, int]
    ) -> tuple[Arrays, int]:
        """:func:`grow_ring` of the ring the compiled loop asked for (row ``G_CODE_ARG`` of
        ``table``), refused when the slots of all the rings would pass ``max_packets``
        (:meth:`_refuse`)."""
        row = int(self.gi[C.G_CODE_ARG])
        cap = int(table[row, cols[1]])
        if self.room + cap <= self.max_packets:
            self.room += cap
            return grow_ring(arrays, used, table, row, cols)
        self._refuse(row, cap, table is self.li)

    def _refuse(self, row: int, cap: int, link_ring: bool) -> NoReturn:
        """The ``ValueError`` of a ring (a link's if ``link_ring``, else a flow's; row ``row``,
        ``cap`` slots) that cannot double within ``max_packets``: it names the link holding
        the most packets at that time (arrived and not yet left: a link's ring may also
        hold packets handed on to it ahead of their arrival, and an eager link's ones that
        left it and were not yet emptied) and the flow with the most packets sent and not
        acknowledged."""
        sc, li, rf, now = self.scenario, self.li, self.rf, float(self.gf[C.G_NOW])
        held = []
        for off, capacity, head, tail in li[:, LINK_RING].tolist():
            rows = off + np.arange(head, tail) % capacity
            held.append(np.count_nonzero((rf[rows, C.RF_ARR] <= now) & (rf[rows, C.RF_EXIT] > now)))
        lk = int(np.argmax(held))
        out = self.fi[:, C.I_MAXSENT] - self.fi[:, C.I_UNA]
        f = int(np.argmax(out))
        full = f"link {sc.links[row].name!r}" if link_ring else f"flow {sc.flows[row].name!r}"
        raise ValueError(
            f"the packet simulator's rings would take more than max_packets="
            f"{self.max_packets:,} slots at t={now:.9g} s (the ring of {full} is full at "
            f"{cap:,} slots; a link's ring also holds the packets handed on to it ahead of "
            f"their arrival). Link {sc.links[lk].name!r} held the most packets, "
            f"{held[lk]:,} (queued, in transmission or propagating; buffer "
            f"{sc.links[lk].buffer_pkts:g} packets), and flow {sc.flows[f].name!r} had "
            f"{int(out[f]):,} sent and not acknowledged. A window that grows without a loss "
            "to stop it needs a finite bottleneck buffer (the scenario's buffer setting, e.g. "
            "--set buffer=1000, or Link(buffer_pkts=...)); otherwise give a lower rate or a "
            "shorter duration, or raise max_packets if the machine has the memory (about "
            "250 bytes a slot)"
        )

    # ------------------------------------------------------------------ loop
    def _args(self) -> tuple[Any, ...]:
        """The compiled loop's arguments, in its order (made again after an array grew)."""
        return (
            self.ff, self.fi, self.lf, self.li, self.rf, self.ri, self.hi, self.ht, self.gf,
            self.gi, self.rand, self.paths, self.fs, self.fq, self.cf, self.ci, self.s_t,
            self.s_flow, self.s_link, self.pend, self.rec, self.has_red,
        )  # fmt: skip

    def run(
        self,
        progress: Callable[[float], None] | None = None,
        notice: threading.Timer | None = None,
    ) -> None:
        """Run the compiled loop to the end, taking the decisions it asks for (the
        arguments bound once, re-entered through :func:`_entry`: docs/simulator.md, "How
        it is fast")."""
        global _kernels_ready
        gi = self.gi
        decide = self.decisions.decide
        # ``gi`` as a memoryview (never reallocated): its items read as Python ints
        seq_of = memoryview(gi)  # type: ignore[arg-type]
        g_seq, max_seq = C.G_SEQ, _MAX_KEY_UPDATES
        end = float(self.gf[C.G_END])
        last = time.perf_counter()
        if progress is not None:
            gi[C.G_YIELD_AT] = _YIELD_EVENTS
        done, need_round, need_loss = C.DONE, C.NEED_ROUND, C.NEED_LOSS
        args = self._args()
        code = C.run(*args)  # through Numba's dispatcher: loads (or compiles) the kernels
        if not _kernels_ready:
            _kernels_ready = True
            if notice is not None:
                notice.cancel()
        kernel = _entry(args)
        while code != done:
            decide()
            if code != need_round and code != need_loss:
                self._serve(code)
                args = self._args()
                kernel = _entry(args)
            if progress is not None:
                now = time.perf_counter()
                if now - last >= _PROGRESS_EVERY_S:
                    last = now
                    progress(min(1.0, float(self.gf[C.G_NOW]) / end) if end > 0 else 1.0)
            if seq_of[g_seq] > max_seq:
                raise RuntimeError(
                    "the packet simulator's event heap ran out of tie-break numbers: "
                    f"{int(gi[C.G_SEQ]):,} key updates, more than its limit of "
                    f"{_MAX_KEY_UPDATES:,}; shorten the run (duration) or split it"
                )
            code = kernel(*args)
        if progress is not None:
            progress(1.0)

    def _serve(self, code: int) -> None:
        """What the compiled loop returned ``code`` for, other than a decision: a ring or
        the round records to grow, random numbers, or a progress report (nothing to do)."""
        gi = self.gi
        if code == C.GROW_FLOW:
            (self.fs, self.fq), self.flow_rows = self._grow(
                (self.fs, self.fq), self.flow_rows, self.fi, FLOW_RING
            )
        elif code == C.GROW_LINK:
            # the integer view is of the same memory: grow the float one, view it again
            (self.rf,), self.link_rows = self._grow((self.rf,), self.link_rows, self.li, LINK_RING)
            self.ri = self.rf.view(np.int64)
        elif code == C.NEED_RAND:
            self.rand = self.rng.random(_RAND_BLOCK)
            gi[C.G_RAND_I] = 0
        elif code == C.GROW_REC:
            self.rec = np.concatenate([self.rec, np.zeros_like(self.rec)])
        elif code == C.YIELD:
            gi[C.G_YIELD_AT] = gi[C.G_EVENTS] + _YIELD_EVENTS
        else:  # pragma: no cover - defensive
            raise RuntimeError(f"packet simulator core returned unknown code {code}")


#: the compiled loop's entry point by (dispatcher, kinds of the arguments)
_entries: dict[Any, Callable[..., int]] = {}


def _entry(args: tuple[Any, ...]) -> Callable[..., int]:
    """The compiled loop's entry point for the types of ``args`` (already compiled or
    loaded by a call through the dispatcher), else the dispatcher itself: the arguments'
    types do not change during a run, so Numba's lookup of the version is done once per
    kind of arguments and kept in :data:`_entries` (docs/simulator.md, "How it is fast").
    """
    dispatcher = C.run
    overloads = getattr(dispatcher, "overloads", None)
    if overloads is None:  # not a dispatcher (NUMBA_DISABLE_JIT, or replaced by a test)
        return dispatcher
    key = (dispatcher, tuple(map(arg_kind, args)))
    kernel = _entries.get(key)
    if kernel is None:
        overload = overloads.get(tuple(dispatcher.typeof_pyval(a) for a in args))
        if overload is None:  # pragma: no cover - the types came from a call just made
            return dispatcher
        kernel = _entries[key] = overload.entry_point
    return kernel


def _compile_notice(progress: Any) -> threading.Timer | None:
    """On the first run of a process, a timer that tells ``progress.note`` (if it has
    one) that the kernels are compiling, should loading them take a while."""
    note = getattr(progress, "note", None)
    if _kernels_ready or not callable(note):
        return None
    timer = threading.Timer(_COMPILE_NOTICE_S, note, args=(COMPILE_NOTICE,))
    timer.daemon = True
    timer.start()
    return timer


def simulate_packets(
    scenario: Scenario,
    *,
    seed: int = 0,
    sample_interval_s: float | None = None,
    laws: Mapping[str, ControlLaw] | None = None,
    delayed_ack: bool | Sequence[bool] = False,
    delayed_ack_echo: str = "first",
    delack_timeout_s: float | None = None,
    min_rto_s: float | None = None,
    initial_rto_s: float | None = None,
    max_rto_s: float | None = None,
    fine_retransmit: bool | None = None,
    send_overhead_s: float = 0.0,
    start_delay_s: float | Sequence[float] = 0.0,
    timeout_recover: bool = True,
    fast_recovery: str | Sequence[str] = "newreno",
    red_wait: bool = False,
    ns2_vegas_timing: bool = True,
    ns2_vegas_base_reset: bool = False,
    ns2_vegas_agent_delta: bool = False,
    ns2_vegas_integer_delta: bool = False,
    ns2_vegas_growth_check: bool = False,
    progress: Callable[[float], None] | None = None,
    max_packets: int = MAX_PACKETS,
    sample_interval: float | None = None,
    delack_timeout: float | None = None,
    min_rto: float | None = None,
    initial_rto: float | None = None,
    max_rto: float | None = None,
) -> PacketResult:
    """Run ``scenario`` packet by packet.

    Every option, times in seconds: docs/simulator.md ("Options of simulate_packets" and
    the sections it names).

    Parameters
    ----------
    scenario
        Links, flows (with their algorithm), CBR sources and duration.
    seed
        Seed of the generator drawing RED's random numbers and the send overheads (the
        only randomness): same seed, same trace.
    sample_interval_s
        Interval of the fixed-time traces, at most the run's duration (samples at 0, every
        interval and the end of the run); ``None``: 0.1 s, coarsened to keep at most
        :data:`MAX_SAMPLES` samples and :data:`MAX_TRACE_VALUES` values.
    laws
        Control-law objects by flow name, overriding the flows' ``algorithm``/``params``.
    delayed_ack
        Receivers acknowledge every second in-order packet, or after ``delack_timeout_s``
        (default 0.1); a sequence: one value per flow.
    delayed_ack_echo
        Whose send time a delayed ACK of two packets echoes: ``"first"`` (RFC 7323 §4.3)
        or ``"latest"`` (ns-2's ``DelAckSink``).
    min_rto_s, initial_rto_s, max_rto_s
        Retransmission timer (RFC 6298) bounds and initial value; default 0.2, 1 and 60 s.
    fine_retransmit
        Vegas's fine-grained retransmission check (the Quick Vegas paper §3.1); ``None``:
        as ``law.sender.fine_retransmit`` declares.
    send_overhead_s
        ns-2's ``overhead_``: a uniform random wait in ``[0, send_overhead_s]`` before
        each data packet (0: none).
    start_delay_s
        How long after its flow's ``start_s`` each sender starts, s (one value for every
        flow, or one per flow): a host's start-up latency. The run's changes and its
        summary keep the scenario's start times, so a small delay moves only the order and
        phase of the flows' first packets (0: each sender starts at its flow's start).
    timeout_recover
        RFC 6582 §4 (ns-2's ``bugFix_``): after a timeout, duplicate ACKs below the
        highest packet sent before it start no loss event.
    fast_recovery
        ``"newreno"`` (RFC 6582), ``"reno"``, ``"reno-exit"``, ``"ns2-vegas"`` (laws with
        Vegas's loss rule only) or ``"ns2-fast"``; one for every sender, or one per flow.
    red_wait
        RED links drop as ns-2's ``Queue/RED`` with ``wait_ true``; ``False``: Floyd and
        Jacobson 1993's ``p_b/(1 − count·p_b)``.
    ns2_vegas_timing, ns2_vegas_base_reset, ns2_vegas_agent_delta, ns2_vegas_integer_delta,
    ns2_vegas_growth_check
        ``"ns2-vegas"`` senders time their rounds' RTT and BaseRTT as ns-2's Vegas agent;
        with the others (each with the first; docs/simulator.md, "Fast recovery"),
        BaseRTT also takes a round of at most one packet (ns-2.35's ``rttLen <= 1``;
        ``False``: Tsang's thesis's agent), the law decides on the agent's Δ from its
        packet counts (``False``: Δ of eq (1) from the window), that Δ rounded to an
        integer (ns-2.35's ``int(x + 0.5)``; the thesis's agent kept a double), the
        per-ACK increase only while ``cwnd − (packets outstanding + 1) <= 2`` (ns-2.35's
        agent).
    max_packets
        Ceiling on the slots of the simulator's ring buffers (about 250 bytes each at the
        peak): the links' rings, which hold the packets queued at, in transmission on or
        propagating over each link, and also packets handed on to a link ahead of their
        arrival or not yet emptied from an eager link (docs/simulator.md, "Memory"), and
        the flows' rings, a slot per packet not acknowledged. A ring doubles when full; a
        doubling past the ceiling is a ``ValueError`` naming the full ring, the link
        holding the most packets and the flow with the most unacknowledged.
    sample_interval, delack_timeout, min_rto, initial_rto, max_rto
        Older names of the options above, without the unit suffix (giving both names
        with different values is a ``ValueError``).
    progress
        Called with the fraction of the simulated time done, in [0, 1], at most about ten
        times a second (and with 1.0 at the end); ``None``: no reporting.

    Returns
    -------
    PacketResult
        Traces, counters, and the packet-conservation check.

    Raises
    ------
    ValueError, TypeError
        For a bad scenario or option, before anything runs.
    """
    given = dict(locals())  # the options as the caller gave them
    sim = _checked_sim(scenario, given)
    res = collect(sim, _run_quietly(sim, progress), int(seed))
    if not res.conserved:  # pragma: no cover - a bug in the engine
        raise RuntimeError(f"packet conservation violated: {res.conservation}")
    return res


def _checked_sim(scenario: Scenario, given: dict[str, Any]) -> _Sim:
    """The simulator of :func:`simulate_packets`'s ``scenario`` and options ``given`` (its
    arguments by name), each checked: a bad one raises before anything runs."""
    check_scenario(scenario)
    for name, (alias, _) in SECONDS_OPTIONS.items():  # the older names still work, and warn
        if given.get(alias) is not None:
            warn_renamed("simulate_packets", alias, name, stacklevel=4)
    opts = check_options(given, scenario)
    check_rings(scenario, opts["max_packets"])
    dt_name, dt_given = seconds_options(given)["sample_interval_s"]
    dt = trace_interval(
        scenario, dt_given, max_samples=MAX_SAMPLES, max_values=MAX_TRACE_VALUES, name=dt_name
    )
    check_progress(given["progress"])
    made: dict[tuple[str, str], ControlLaw] = {}
    law_objs = [law_for(fl, opts["laws"], made, scenario.name) for fl in scenario.flows]
    check_ns2_vegas(scenario, law_objs, opts)
    return _Sim(scenario, law_objs, opts, dt)


def _run_quietly(sim: _Sim, progress: Callable[[float], None] | None) -> float:
    """Run ``sim`` to its end with the cyclic garbage collector off; the wall time, s."""
    notice = _compile_notice(progress)
    t0 = time.perf_counter()
    # the loop allocates few Python objects; a cyclic collection in the middle of it only
    # costs time (it scanned every round record before they were arrays)
    try:
        with paused_gc():
            sim.run(progress, notice)
    finally:
        if notice is not None:
            notice.cancel()
    return time.perf_counter() - t0
