"""The hybrid fluid model's inputs: argument checks (each error names the argument), the
kernel's fresh state and the memory pages of its large arrays."""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import metrics
from .._validation import (
    MEMORY_BUDGET_BYTES,
    check_bool,
    check_choice,
    check_nonnegative,
    check_positive,
    check_progress,
    check_range,
    option_checker,
)
from ..scenarios.reduction import peak_cross_rate
from . import _hybrid_kernel as K
from ._rounds_law import DROP_SHARES
from ._rounds_physics import INITIAL_RTO_S, start_lockout, timer_retransmissions

#: a run's progress callback (the fraction of simulated time done), or none
Progress = Callable[[float], None] | None

FloatArray = NDArray[np.float64]

#: default time step, as a fraction of the smallest base RTT: fine enough to resolve the
#: ACK-clocked trains of slow start and per-ACK growth (docs/ode-model.md, "Time step")
STEPS_PER_RTT = 256
#: the most flow-steps (flows x time steps) a run may take, about an hour at
#: :data:`FLOW_STEP_S`: a longer run is refused before any work, naming what to change
MAX_FLOW_STEPS = 2e11
#: the compiled step's cost per flow, measured on two cores (benchmarks/ode_speed.py,
#: 10,000 flows: 13-15 ns); only for the estimate the refusal states
FLOW_STEP_S = 15e-9
#: what an RTT sample carries (:func:`tcpfluid.fluid.hybrid.simulate_hybrid`'s ``rtt_sample``)
RTT_SAMPLES = ("departure", "arrival")
#: how a flow behind RED learns of RED's fractions of packets
#: (:func:`tcpfluid.fluid.hybrid.simulate_hybrid`'s ``red_losses``)
RED_LOSSES = ("dithered", "whole")


def _none_or(rule: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else rule(value)


#: the hybrid model's options that do not depend on the run, each by its one rule (a
#: named ``TypeError`` or ``ValueError``; returns the value checked): the fields of
#: ``tcpfluid.engines.Hybrid`` and the keywords of
#: :func:`~tcpfluid.fluid.hybrid.simulate_hybrid` (``None``: the default step, the packet
#: sender's timeout rule)
OPTION_RULES: dict[str, Callable[[Any], Any]] = {
    "rtt_sample": lambda v: check_choice("rtt_sample", v, RTT_SAMPLES),
    "drop_share": lambda v: check_choice("drop_share", v, DROP_SHARES),
    "whole_packets": functools.partial(check_bool, "whole_packets"),
    "boundary_ack_next_round": functools.partial(check_bool, "boundary_ack_next_round"),
    "hold_drops": functools.partial(check_bool, "hold_drops"),
    "dt_s": _none_or(functools.partial(check_positive, "dt_s")),
    "red_losses": lambda v: check_choice("red_losses", v, RED_LOSSES),
    "min_rto_s": functools.partial(check_positive, "min_rto_s"),
    "timeout_loss_fraction": _none_or(
        functools.partial(check_range, "timeout_loss_fraction", lo=0.0, hi=1.0, lo_open=True)
    ),
    "measure_from_s": functools.partial(check_nonnegative, "measure_from_s"),
    "packets_per_ack": functools.partial(
        check_range, "packets_per_ack", lo=1.0, hi=math.inf, hi_open=True
    ),
    "progress": check_progress,
}

check_options = option_checker(OPTION_RULES)


class Run(NamedTuple):
    """The checked arguments of :func:`simulate_hybrid` (``n_steps`` of ``dt`` s, a record
    every ``every`` steps)."""

    d: FloatArray
    mu: float
    t_end: float
    buf: float
    dt: float
    n_steps: int
    every: int
    frac: float
    start: FloatArray
    stop: FloatArray
    cross: list[tuple[float, float, float]]
    changes: tuple[float, ...]


def check_run(
    mu_pps: float,
    base_rtt_s: ArrayLike,
    duration_s: float,
    buffer_pkts: float,
    cross_traffic: Sequence[tuple[float, float, float]],
    flow_start_s: ArrayLike | None,
    flow_stop_s: ArrayLike | None,
    dt_s: float | None,
    record_every_s: float | None,
    timeout_loss_fraction: float | None,
) -> Run:
    """Check :func:`simulate_hybrid`'s run arguments and derive the time step, step count
    and record interval."""
    d = np.atleast_1d(np.asarray(base_rtt_s, dtype=np.float64))
    if d.ndim != 1 or d.size == 0 or not np.all(np.isfinite(d)) or np.any(d <= 0):
        raise ValueError(
            f"base_rtt_s must be one finite base RTT > 0 s per flow, got {base_rtt_s!r}"
        )
    F, d_min = d.size, float(d.min())
    mu = check_positive("mu_pps", mu_pps)
    t_end = check_positive("duration_s", duration_s)
    buf = float(buffer_pkts)
    if not (buf >= 1.0):
        raise ValueError(f"buffer_pkts must be >= 1 packet (or inf), got {buffer_pkts!r}")
    dt = d_min / STEPS_PER_RTT if dt_s is None else float(dt_s)
    if dt > d_min / 4:
        raise ValueError(f"dt_s must be at most a quarter of the smallest base RTT, got {dt!r}")
    with np.errstate(divide="ignore", over="ignore"):
        ratio = t_end / dt if dt > 0 else math.inf
    if not ratio <= 20_000_000:
        raise ValueError(
            f"duration_s={duration_s!r} needs {ratio:.3g} time steps of dt_s={dt!r} s (the "
            "smallest base RTT / 256 by default; at most 20,000,000): shorten the run, "
            "lengthen the base RTT or give a larger dt_s"
        )
    n_steps = max(1, math.ceil(ratio))
    if F * n_steps > MAX_FLOW_STEPS:
        raise ValueError(
            f"duration_s={duration_s!r} with {F:,} flows needs {F * n_steps:.3g} flow-steps "
            f"({n_steps:,} time steps of dt_s={dt!r} s; about "
            f"{F * n_steps * FLOW_STEP_S / 3600:.3g} h at ~{FLOW_STEP_S * 1e9:.0f} ns a "
            f"flow-step), more than {MAX_FLOW_STEPS:.0e}; give fewer flows, a duration of "
            f"at most {MAX_FLOW_STEPS / F * dt:.3g} s or a larger dt_s"
        )
    rec_dt = (
        d_min / 4 if record_every_s is None else check_positive("record_every_s", record_every_s)
    )
    every = max(1, round(rec_dt / dt))
    frac = math.nan if timeout_loss_fraction is None else float(timeout_loss_fraction)
    start = per_flow("flow_start_s", flow_start_s, F, 0.0)
    stop = per_flow("flow_stop_s", flow_stop_s, F, math.inf)
    if np.any(~np.isfinite(start)) or np.any(start < 0) or np.any(stop <= start):
        raise ValueError("flow_start_s must be >= 0 and flow_stop_s > flow_start_s for every flow")
    # the CBR sources as floats, each valid, together below mu at every instant
    cross = [(float(r), float(a), float(b)) for r, a, b in cross_traffic]
    for i, (r, a, b) in enumerate(cross):
        if not (r > 0 and math.isfinite(r) and a >= 0 and b > a):
            raise ValueError(
                f"cross_traffic[{i}] (a CBR source at the bottleneck: the scenario's cbr, "
                "cbr_start, cbr_stop) needs rate_pps > 0 and 0 <= start_s < stop_s, got "
                f"rate_pps={r!r}, start_s={a!r}, stop_s={b!r}"
            )
    rates, starts, stops = (np.array([c[i] for c in cross]) for i in range(3))
    worst = float(peak_cross_rate(rates, starts, stops, t_end))
    if worst >= mu:
        raise ValueError(
            f"cross traffic takes up to {worst:g} pkt/s of a {mu:g} pkt/s bottleneck; "
            "it must stay below the bottleneck rate"
        )
    changes = metrics.bandwidth_changes([(a, b) for _, a, b in cross], t_end)
    return Run(d, mu, t_end, buf, dt, n_steps, every, frac, start, stop, cross, changes)


def check_reverse(opts: dict[str, Any], dt: float, n_steps: int) -> tuple[FloatArray, int]:
    """The kernel's ``rev`` array from the keywords ``opts`` of
    :func:`~tcpfluid.fluid.hybrid.simulate_hybrid` (ACK-path bottleneck, ``mu_r``, ``b_r``,
    packets per ACK, then the checked ``drop_share``, ``whole_packets``,
    ``boundary_ack_next_round`` and ``hold_drops``) and the length of its forward-delay ring
    (the ACK-path queue's longest delay, capped by the run's steps)."""
    reverse_mu_pps, reverse_buffer_pkts = opts["reverse_mu_pps"], opts["reverse_buffer_pkts"]
    m = opts["packets_per_ack"]  # checked with the options (OPTION_RULES)
    try:
        mu_r, b_r = map(float, (reverse_mu_pps, reverse_buffer_pkts))
    except (TypeError, ValueError) as exc:
        raise TypeError(
            "reverse_mu_pps and reverse_buffer_pkts must be numbers, got "
            f"{reverse_mu_pps!r}, {reverse_buffer_pkts!r}"
        ) from exc
    if not mu_r > 0:
        raise ValueError(f"reverse_mu_pps must be > 0 ACKs/s (or inf), got {reverse_mu_pps!r}")
    if not b_r >= 1.0:
        raise ValueError(
            f"reverse_buffer_pkts must be >= 1 ACK (or inf), got {reverse_buffer_pkts!r}"
        )
    tail = [float(DROP_SHARES.index(opts["drop_share"]))]
    tail += [float(opts[k]) for k in ("whole_packets", "boundary_ack_next_round", "hold_drops")]
    if math.isinf(mu_r):
        return np.array([0.0, math.inf, math.inf, m, *tail]), 1
    longest = (b_r + 2.0) / mu_r / dt + 2.0
    return np.array([1.0, mu_r, b_r, m, *tail]), int(min(longest, n_steps + 2.0, 4_000_000.0))


def per_flow(name: str, value: ArrayLike | None, n: int, default: float) -> FloatArray:
    if value is None:
        return np.full(n, default)
    try:
        return np.broadcast_to(np.asarray(value, dtype=np.float64), (n,)).copy()
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name} must be one time per flow ({n}), got {value!r}") from exc


#: float arrays of flows x recorded samples a run holds at its peak: the kernel's recorded
#: series and what the results derive from them (measured: ~16 with 10,000 flows)
ARRAYS_PER_FLOW_SAMPLE = K.N_REC_F + 14


def memory_estimate(run: Run, hist_rows: int, ring_len: int) -> int:
    """Bytes a checked run takes at its peak (recorded series, ACK rings, arrival ring)."""
    F = run.d.size
    n_rec = run.n_steps // run.every + 2
    per_flow = 8 * (ARRAYS_PER_FLOW_SAMPLE * n_rec + 3 * hist_rows + K.N_FLOW_ROWS + 16)
    return int(F * per_flow + 16 * ring_len + 8 * K.N_REC_G * n_rec)


class KernelState(NamedTuple):
    """The arrays :func:`tcpfluid.fluid._hybrid_kernel.advance` updates in place, and the
    steps between records."""

    red: FloatArray
    rev: FloatArray
    ff: FloatArray
    g: FloatArray
    dep_hist: FloatArray
    ack_hist: FloatArray
    drop_hist: FloatArray
    q_hist: FloatArray
    f_hist: FloatArray
    fq_ring: FloatArray
    qa_ring: FloatArray
    drops: FloatArray
    cross: FloatArray
    every: int
    rec_f: FloatArray
    rec_g: FloatArray
    sends: FloatArray
    touched: NDArray[np.int64]


def kernel_state(run: Run, rev: FloatArray, fq_len: int, opts: dict[str, Any]) -> KernelState:
    """The kernel's fresh arrays for a checked run (``rev``, ``fq_len``: :func:`check_reverse`;
    ``opts``: the keywords of :func:`~tcpfluid.fluid.hybrid.simulate_hybrid` checked)."""
    F, red = run.d.size, opts["red"]
    ff = np.zeros((F, K.N_FLOW_ROWS))  # the per-flow state rows, fresh
    ff[:, K.F_D], ff[:, K.F_START], ff[:, K.F_STOP] = run.d, run.start, run.stop
    ff[:, [K.F_R_MIN, K.F_FIRST_DROP, K.F_FMIN]] = np.inf
    ff[:, K.F_RECOVER] = -np.inf
    # a packet sent in step k leaves the queue in step k at the earliest, is ACKed D steps
    # later and refilled in the step after: the loop is (D + 1) dt = d
    ff[:, K.F_DELAY_STEPS] = np.maximum(1, np.rint(run.d / run.dt) - 1)
    ff[:, K.F_WHOLE] = rev[5]  # whole packets (rounds begin at a whole packet)
    ff[:, K.F_LOSS_AT] = 1.0
    if red is not None and opts["red_losses"] == "dithered":
        ff[:, K.F_DITHER] = 1.0
        ff[:, K.F_LOSS_AT] = [K.loss_threshold(j, 0.0) for j in range(F)]
    H = int(ff[:, K.F_DELAY_STEPS].max()) + 1
    # the longest forward queue's drain, steps (without a buffer: 64 default base RTTs)
    fwd = 64.0 * STEPS_PER_RTT if math.isinf(run.buf) else (run.buf + 2.0) / run.mu / run.dt + 2.0
    # the ring of cumulative arrivals behind rtt_sample="arrival" (1 for "departure"): the
    # drain, at least 64 default base RTTs, capped by the run's steps
    ring = 1
    if opts["rtt_sample"] != "departure":
        ring = int(min(max(fwd, 64.0 * STEPS_PER_RTT), run.n_steps + 2.0, 4_000_000.0))
    # held drops are released a base RTT plus the queueing delay after the drop: the
    # longest queue's delay in steps beyond H (the drain plus the ACK-path ring
    # ``fq_len``), capped by the run's steps
    hold = rev[7] == 1.0
    HD = H + int(min(fwd + fq_len + 1.0, run.n_steps + 2.0, 4_000_000.0)) if hold else 1
    n_rec = run.n_steps // run.every + 2
    need = memory_estimate(run, H + HD, ring)  # a run above the budget is refused
    if need > MEMORY_BUDGET_BYTES:
        raise ValueError(
            f"the hybrid model would need about {need / 2**30:.1f} GiB for {F} flows x "
            f"{n_rec} recorded samples (budget {MEMORY_BUDGET_BYTES / 2**30:.0f} GiB): "
            "record fewer samples (a longer record_interval_s; record_every_s of "
            "simulate_hybrid), or run fewer flows"
        )
    red_arr = np.zeros(6)
    if red is not None:
        red_arr[:] = (1.0, red.min_th_pkts, red.max_th_pkts, red.max_p, red.w_q, float(red.gentle))
    g = np.zeros(K.N_GLOBALS)
    g[K.G_REDO] = 1.0  # every flow's first sending is computed
    return KernelState(
        red=red_arr,
        rev=rev,
        ff=ff,
        g=g,
        dep_hist=np.zeros((H, F)),
        ack_hist=np.zeros((H, F)) if rev[0] == 1.0 else np.zeros((1, 1)),
        drop_hist=np.zeros((HD, F)) if hold else np.zeros((1, 1)),
        q_hist=np.zeros(H),
        f_hist=np.zeros(H),
        fq_ring=np.zeros(fq_len),
        qa_ring=np.zeros((ring, 2)),
        drops=np.zeros(F),
        cross=np.array(run.cross, dtype=np.float64).reshape(-1, 3),
        every=run.every,
        rec_f=np.zeros((K.N_REC_F, n_rec, F)),
        rec_g=np.zeros((K.N_REC_G, n_rec)),
        sends=np.zeros((4, F)),
        touched=np.zeros((4, F), dtype=np.int64),
    )


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """NumPy's large arrays allocated in this block on ordinary pages, not huge ones
    (docs/ode-model.md, "Memory"); without NumPy's setting it changes nothing."""
    setter = _hugepage_setter()
    before = setter is not None and setter(False)
    try:
        yield
    finally:
        if setter is not None:
            setter(before)


@functools.cache
def _hugepage_setter() -> Callable[[bool], bool] | None:
    """NumPy's switch of the huge-page advice (returns the previous setting), if it has one."""
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(module)
        except ImportError:
            continue
        setter = getattr(mod, "_set_madvise_hugepage", None)
        if callable(setter):
            return setter
    return None


class StartLockout:
    """The flows whose whole first window the simultaneous start loses
    (:func:`~._rounds_physics.start_lockout`): each starts once a timer retransmission gets
    through (:func:`~._rounds_physics.timer_retransmissions`)."""

    def __init__(
        self,
        ff: NDArray[np.float64],
        buffer_pkts: float,
        init_cwnd: NDArray[np.float64],
        spacing_s: NDArray[np.float64],
    ) -> None:
        locked = start_lockout(ff[:, K.F_START], ff[:, K.F_D], buffer_pkts, init_cwnd, spacing_s)
        ff[locked, K.F_START] += INITIAL_RTO_S
        self.rto = np.where(locked, INITIAL_RTO_S, 0.0)

    def retransmit(self, ff: NDArray[np.float64], joining: NDArray[np.bool_], full: bool) -> None:
        """The tries of the flows ``joining`` whose timer expires; ``joining`` updated. A try
        is lost where the queue it meets is ``full`` (no room for a packet)."""
        due = joining & (self.rto > 0.0)
        if not due.any():
            return
        through = timer_retransmissions(due, due & full, self.rto, ff[:, K.F_START])
        joining &= ~due | through
