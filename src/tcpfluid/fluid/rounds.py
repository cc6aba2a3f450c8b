"""The round-based fluid model, batched over scenarios (document 000 §4, document 004 §4).

One step is one **round**: the sender transmits its window, the round ends when the ACK of
the first packet of the round returns (document 000 §4). A control law
(:class:`~tcpfluid.algorithms.base.ControlLaw`) decides at every round boundary; this module
computes what the law measures: the queue, the RTT of the round's packets, the ACKs.

Model (per scenario, all flows of a scenario share the bottleneck and have the same base
RTT; ``W`` below is the sum of the flows' windows):

* **Available rate** ``μa = μ − c(t)``: the bottleneck rate μ minus the constant-bit-rate
  cross traffic active at the start of the round (document 000 §5.1). The FIFO queue holds
  both; in packets of the link it is ``(μ/μa)`` times the flows' own backlog.
* **Standing (fluid) backlog** of a window W: ``q(W) = max(0, W − μa d)`` packets, the
  window beyond the pipe (document 003 eqs 1–4: ``RTT = d + q/μa``).
* **Intra-round burst** (document 000 §4.1, document 004 §4.1): the window grows during the
  round by ``z = min(incr × acks, cap − cwnd)`` through per-ACK increments; the ACKs of
  the previous round arrive every ``1/μa`` seconds and each one releases the extra packets,
  so the backlog grows linearly from ``q(W0)`` (the first packet of the round) to
  ``q(W0) + Z`` (the last one), ``Z`` the sum of the flows' growth. The last packet waits
  ``Z/μa`` more than the first, the average one ``Z/(2μa)``. ``rtt`` chooses the RTT
  the law sees as its mean RTT:

  - ``"average"`` (default, the implementations' smoothed RTT): ``d + (q(W0) + Z/2)/μa``;
    with Vegas doubling (Z = W/2) it reproduces eq. (6) of document 000, with Quick Vegas
    (Z = W/3) eq. (10);
  - ``"last"``: ``d + (q(W0) + Z)/μa``; eqs (6) with 8 instead of 16 and (9);
  - ``"fluid"``: no burst term, ``d + q(W0 + Z)/μa``.

  The round's minimum RTT (TCP-Ho's Minimal RTT) is ``d + q(W0)/μa`` and its maximum
  ``d + (q(W0) + Z)/μa`` (``"fluid"``: both equal the mean).
* **Round duration** (time advance): ``d + q(W1)/μa`` with ``W1 = W0 + Z`` the window at the
  end of the round, so the flows deliver ``W1`` packets per round at most at rate μa.
* **Finite buffer** ``B`` (packets of the link): the flows may hold ``B μa/μ`` of it;
  packets beyond that at the peak of the round are lost. Every active flow of the scenario
  loses its share (proportional to its window; synchronised drop-tail losses) and its law's
  :meth:`~tcpfluid.algorithms.base.ControlLaw.on_loss` is called after ``on_round``
  (kind :data:`~tcpfluid.algorithms.base.LOSS_TIMEOUT` when a flow loses more than
  ``timeout_loss_fraction`` of its window in the round, else
  :data:`~tcpfluid.algorithms.base.LOSS_FAST`). The idle time of a retransmission
  timeout is not modelled.
* **ACK-path bottleneck** (document 003): with ``μr < μa`` ACKs per second on the reverse
  link and a reverse buffer of ``Br`` ACKs, the ACK backlog is
  ``qr = clip(W − μr d, 0, Br)`` and the RTT ``d + qr/μr``: Vegas settles at rate μr.
  When ``W > μr d + Br`` the reverse buffer overflows and drops ACKs; the surviving ACKs
  are cumulative (each covers several packets), so the data rate ``W/(d + Br/μr)`` may
  exceed μr up to μa, beyond which the forward queue ``W − μa (d + Br/μr)`` builds. The
  sender receives ``min(1, μr T/W)`` ACKs per packet. The one-way forward delay
  (RFC 1323 timestamps, for forward-path Vegas) is ``d/2`` plus the forward queueing
  delay. Burst packets of a round are added to the ACK queue (up to ``Br``) when the
  reverse link is the bottleneck.
* **Flows** may start and stop at given times (``flow_start_s``/``flow_stop_s``); a flow
  starts with the law's fresh state and measures its BaseRTT from its own first round
  (so a latecomer counts the standing queue as propagation delay, as a real Vegas does).

Everything is array code over ``n = S × F`` flows (S scenarios of F flows, flow index
fastest); the law's array parameters must have length ``S × F`` (or be scalars).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import metrics
from .._validation import (
    as_float_array,
    check_choice,
    check_int,
    check_positive,
    check_range,
)
from ..algorithms._common import backlog
from ..algorithms.base import (
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    ControlLaw,
    RoundAction,
    RoundSample,
)
from ..algorithms.registry import get_law
from ..metrics import _finite_or_none, _floats
from ..path import Path
from ..scenarios import Scenario

__all__ = [
    "RECORDABLE",
    "CrossTraffic",
    "PathBatch",
    "RoundSummary",
    "RoundTrace",
    "RttModel",
    "simulate_rounds",
    "simulate_scenario_rounds",
]

FloatArray = NDArray[np.float64]
RttModel = Literal["average", "last", "fluid"]
#: the names of :data:`RttModel` (the one list; ``tcpfluid.engines.RTT_MODELS`` is it too)
_RTT_MODELS: tuple[str, ...] = get_args(RttModel)

#: optional per-round fields of a :class:`RoundTrace` (time, window and phase are always kept)
RECORDABLE = ("delta_pkts", "rtt_s", "queue_pkts", "throughput_pps")

#: default feedback lag of the round model, rounds: the RTT samples a law reads at the end
#: of round k are those of the packets of round k - 1 (docs/round-model.md)
FEEDBACK_ROUNDS = 1


# ------------------------------------------------------------------------------ inputs
@dataclass(frozen=True, init=False)
class PathBatch:
    """S bottleneck paths as arrays: the grid one :func:`simulate_rounds` call runs.

    Parameters
    ----------
    mu_pps
        Bottleneck rate μ, packets/s (> 0).
    d_s
        Base RTT d, s (> 0).
    buffer_pkts
        Bottleneck buffer, packets (>= 1; ``inf``: no loss).
    reverse_mu_pps
        ACK-path bottleneck, ACKs/s (> 0; ``inf``: none).
    reverse_buffer_pkts
        Reverse buffer, ACKs (>= 1; ``inf``: no ACK loss).

    All are broadcast to one common shape ``(S,)``.
    """

    mu_pps: FloatArray
    d_s: FloatArray
    buffer_pkts: FloatArray
    reverse_mu_pps: FloatArray
    reverse_buffer_pkts: FloatArray

    def __init__(
        self,
        mu_pps: ArrayLike,
        d_s: ArrayLike,
        *,
        buffer_pkts: ArrayLike = math.inf,
        reverse_mu_pps: ArrayLike = math.inf,
        reverse_buffer_pkts: ArrayLike = math.inf,
    ) -> None:
        mu = as_float_array("mu_pps", mu_pps, positive=True)
        d = as_float_array("d_s", d_s, positive=True)
        buf = _inf_array("buffer_pkts", buffer_pkts, minimum=1.0)
        rmu = _inf_array("reverse_mu_pps", reverse_mu_pps, minimum=None)
        rbuf = _inf_array("reverse_buffer_pkts", reverse_buffer_pkts, minimum=1.0)
        try:
            arrs = np.broadcast_arrays(mu, d, buf, rmu, rbuf)
        except ValueError as exc:
            raise ValueError(
                "mu_pps, d_s, buffer_pkts, reverse_mu_pps and reverse_buffer_pkts must "
                f"broadcast to one shape, got {mu.shape}, {d.shape}, {buf.shape}, "
                f"{rmu.shape}, {rbuf.shape}"
            ) from exc
        if arrs[0].ndim > 1:
            raise ValueError(f"paths must be a 1-d batch, got shape {arrs[0].shape}")
        names = ("mu_pps", "d_s", "buffer_pkts", "reverse_mu_pps", "reverse_buffer_pkts")
        for name, a in zip(names, arrs, strict=True):
            object.__setattr__(self, name, np.array(np.atleast_1d(a), dtype=np.float64))

    @classmethod
    def from_paths(cls, paths: Path | Sequence[Path]) -> PathBatch:
        """A batch from one :class:`~tcpfluid.path.Path` or a sequence of them."""
        seq = [paths] if isinstance(paths, Path) else list(paths)
        if not seq:
            raise ValueError("paths must contain at least one Path, got an empty sequence")
        for i, p in enumerate(seq):
            if not isinstance(p, Path):
                raise TypeError(f"paths[{i}] must be a Path, got {type(p).__name__}")
        return cls(
            [p.mu for p in seq],
            [p.d for p in seq],
            buffer_pkts=[p.buffer_pkts for p in seq],
            reverse_mu_pps=[math.inf if p.reverse_mu is None else p.reverse_mu for p in seq],
            reverse_buffer_pkts=[
                math.inf if p.reverse_buffer_pkts is None else p.reverse_buffer_pkts for p in seq
            ],
        )

    @classmethod
    def from_bdp(cls, bdp_pkts: ArrayLike, d_s: ArrayLike, **kwargs: Any) -> PathBatch:
        """Paths with bandwidth-delay products ``bdp_pkts`` (μ = bdp/d)."""
        b = as_float_array("bdp_pkts", bdp_pkts, positive=True)
        d = as_float_array("d_s", d_s, positive=True)
        return cls(b / d, d, **kwargs)

    @property
    def n_scenarios(self) -> int:
        """S, the number of paths."""
        return int(self.mu_pps.shape[0])

    @property
    def bdp_pkts(self) -> FloatArray:
        """μd of each path, packets."""
        return self.mu_pps * self.d_s

    def to_dict(self) -> dict[str, Any]:
        """Lists of plain numbers (``None`` for infinite)."""
        return {
            k: [None if math.isinf(x) else float(x) for x in getattr(self, k)]
            for k in ("mu_pps", "d_s", "buffer_pkts", "reverse_mu_pps", "reverse_buffer_pkts")
        }


def _inf_array(name: str, value: ArrayLike, *, minimum: float | None) -> FloatArray:
    arr = _floats(name, value)
    if np.any(np.isnan(arr)) or np.any(arr == -np.inf):
        raise ValueError(f"{name} must be a number or inf, got {value!r}")
    finite = arr[np.isfinite(arr)]
    if minimum is not None and np.any(finite < minimum):
        raise ValueError(
            f"{name} must be >= {minimum} (or inf), got {finite[finite < minimum][0]!r}"
        )
    if minimum is None and np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0 (or inf), got {arr[arr <= 0].ravel()[0]!r}")
    return arr


@dataclass(frozen=True)
class CrossTraffic:
    """Constant-bit-rate cross traffic at the bottleneck (document 000 §5.1).

    Attributes
    ----------
    rate_pps
        Rate taken from the bottleneck, packets/s: a scalar or one value per scenario.
    start_s, stop_s
        Active interval ``[start_s, stop_s)``, s.
    """

    rate_pps: ArrayLike
    start_s: float
    stop_s: float = math.inf

    def __post_init__(self) -> None:
        as_float_array("rate_pps", self.rate_pps, positive=True)
        start = check_range("start_s", self.start_s, 0.0, math.inf, hi_open=True)
        if not (isinstance(self.stop_s, int | float) and self.stop_s > start):
            raise ValueError(f"stop_s must be > start_s={start!r}, got {self.stop_s!r}")


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class RoundSummary:
    """Summary metrics of a :class:`RoundTrace` (definitions in :mod:`tcpfluid.metrics`).

    Arrays have shape ``(S,)`` (per scenario) or ``(S, F)`` (per flow). Per-flow window
    metrics describe each flow; ``NaN`` in a time or window field means "did not happen"
    (no slow-start exit, did not settle within the band); the matching boolean field says
    so explicitly.

    Attributes
    ----------
    ss_exit_round, ss_exit_time_s, ss_exit_window_pkts, ss_exited
        Last slow-start round (0-based), the time it ended, its window
        (:func:`tcpfluid.metrics.slow_start_exit`).
    settled_window_pkts, time_to_equilibrium_s, reached_equilibrium
        Settled window before the first bandwidth change and the time to reach it from the
        flow's start (:func:`tcpfluid.metrics.settling`).
    change_times_s
        Times at which the available bandwidth changes.
    convergence_times_s, converged
        One column per change: time from the change until the window settles, shape
        ``(S, F, K)``.
    utilization
        Traffic carried by the bottleneck (flows plus cross traffic) over capacity × time.
    throughput_pps
        Mean delivery rate of each flow over the run, packets/s.
    jain_index
        Jain's fairness index of the flows' throughputs (document 000 eq 13).
    losses
        Number of loss events per flow.
    """

    ss_exit_round: NDArray[np.float64]
    ss_exit_time_s: FloatArray
    ss_exit_window_pkts: FloatArray
    ss_exited: NDArray[np.bool_]
    settled_window_pkts: FloatArray
    time_to_equilibrium_s: FloatArray
    reached_equilibrium: NDArray[np.bool_]
    change_times_s: tuple[float, ...]
    convergence_times_s: FloatArray
    converged: NDArray[np.bool_]
    utilization: FloatArray
    throughput_pps: FloatArray
    jain_index: FloatArray
    losses: NDArray[np.int64]

    def scenario(self, s: int = 0, flow: int = 0) -> dict[str, Any]:
        """The public summary keys for scenario ``s`` (window metrics of flow ``flow``).

        Keys: ``ss_exit_window``, ``ss_exit_time_s``, ``ss_exit_round``,
        ``settled_window`` (``None`` if the window did not settle before the first
        bandwidth change), ``time_to_equilibrium_s``, ``convergence_times_s`` (one per
        bandwidth change, in order; ``None`` where the window did not settle),
        ``change_times_s``, ``utilization``, ``throughput_pps`` (list, per flow),
        ``jain_index``, ``losses`` (per flow). ``None`` stands for "did not happen".
        """
        return {
            "ss_exit_window": _finite_or_none(self.ss_exit_window_pkts[s, flow]),
            "ss_exit_time_s": _finite_or_none(self.ss_exit_time_s[s, flow]),
            "ss_exit_round": _int_or_none(self.ss_exit_round[s, flow]),
            "settled_window": (
                _finite_or_none(self.settled_window_pkts[s, flow])
                if bool(self.reached_equilibrium[s, flow])
                else None
            ),
            "time_to_equilibrium_s": _finite_or_none(self.time_to_equilibrium_s[s, flow]),
            "convergence_times_s": [_finite_or_none(x) for x in self.convergence_times_s[s, flow]],
            "change_times_s": list(self.change_times_s),
            "utilization": _finite_or_none(self.utilization[s]),
            "throughput_pps": [_finite_or_none(x) for x in self.throughput_pps[s]],
            "jain_index": _finite_or_none(self.jain_index[s]),
            "losses": [int(x) for x in self.losses[s]],
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the :meth:`scenario` dict of scenario 0 when there is one scenario,
        else ``{"scenarios": [...]}`` with one per scenario."""
        n = self.utilization.shape[0]
        if n == 1:
            return self.scenario(0)
        return {"scenarios": [self.scenario(s) for s in range(n)]}


def _int_or_none(x: Any) -> int | None:
    v = float(x)
    return None if not math.isfinite(v) else int(v)


@dataclass(frozen=True)
class RoundTrace:
    """Per-round result of :func:`simulate_rounds`.

    Row ``k`` describes round ``k``: ``time_s[k]`` is the time the round **ends** (its
    first ACK returns and the law decides), ``window_pkts[k]`` the window at that moment
    (the packets sent in the round), ``phase[k]`` the law's phase **during** the round,
    ``delta_pkts[k]`` the backlog Δ the law computes from the round (eq 1 of document 000,
    with the round's mean RTT), ``rtt_s[k]`` the round's mean RTT as the law sees it,
    ``queue_pkts[k]`` the bottleneck queue at the end of the round in packets of the link
    (flows and cross traffic), ``throughput_pps[k]`` each flow's delivery rate in the
    round. With ``record_every = m`` only every m-th round is kept.

    Shapes: ``(R, S)`` per scenario, ``(R, S, F)`` per flow. Fields not recorded
    (``record=``) are ``None``.

    Attributes
    ----------
    paths
        The scenarios' paths.
    algorithm, law_params
        The law's registry name and parameters.
    rtt_model
        ``"fluid"``, ``"last"`` or ``"average"``.
    change_times_s
        Times at which the cross traffic (available bandwidth) changes.
    duration_s
        The run's duration (``None`` when run for a number of rounds).
    elapsed_s
        Per scenario, the time over which totals are counted.
    delivered_pkts, carried_pkts
        Totals: packets delivered per flow; packets carried by the bottleneck (flows and
        cross traffic) per scenario.
    losses
        Loss events per flow.
    flow_start_s, flow_stop_s
        Each flow's active interval; the summary judges every flow over its own.
    """

    time_s: FloatArray
    window_pkts: FloatArray
    phase: NDArray[np.int8]
    delta_pkts: FloatArray | None
    rtt_s: FloatArray | None
    queue_pkts: FloatArray | None
    throughput_pps: FloatArray | None
    paths: PathBatch
    algorithm: str
    law_params: dict[str, Any]
    rtt_model: str
    change_times_s: tuple[float, ...]
    duration_s: float | None
    elapsed_s: FloatArray
    delivered_pkts: FloatArray
    carried_pkts: FloatArray
    losses: NDArray[np.int64]
    flow_start_s: FloatArray
    flow_stop_s: FloatArray
    _summary: list[RoundSummary] = field(default_factory=list, repr=False, compare=False)

    @property
    def n_rounds(self) -> int:
        """Recorded rows R."""
        return int(self.time_s.shape[0])

    @property
    def n_scenarios(self) -> int:
        """S."""
        return int(self.time_s.shape[1])

    @property
    def n_flows(self) -> int:
        """F."""
        return int(self.window_pkts.shape[2])

    @property
    def summary(self) -> RoundSummary:
        """Summary metrics (computed once, on first access)."""
        if not self._summary:
            self._summary.append(_summarise(self))
        return self._summary[0]

    def to_dict(self) -> dict[str, Any]:
        """Plain lists: per-round series of scenario 0 when S = 1, else all as nested lists;
        plus ``summary``."""
        out: dict[str, Any] = {
            "algorithm": self.algorithm,
            "law_params": self.law_params,
            "rtt_model": self.rtt_model,
            "paths": self.paths.to_dict(),
            "change_times_s": list(self.change_times_s),
            "duration_s": self.duration_s,
        }
        for name in ("time_s", "window_pkts", "phase", *RECORDABLE):
            arr = getattr(self, name)
            if arr is None:
                continue
            if self.n_scenarios == 1:
                arr = arr[:, 0]
            out[name] = np.where(np.isfinite(arr), arr, np.nan).tolist()
        out["summary"] = self.summary.to_dict()
        return out

    def plot(self, ax: Any = None, *, scenario: int = 0) -> list[Any]:
        """Plot scenario ``scenario``'s windows (and its queue, dashed) against time.

        Returns the artists; the library never calls ``plt.show()``.
        """
        check_int("scenario", scenario, minimum=0)
        if scenario >= self.n_scenarios:
            raise ValueError(
                f"scenario must be < {self.n_scenarios} (the number of scenarios), got {scenario}"
            )
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        t = self.time_s[:, scenario]
        artists: list[Any] = []
        for f in range(self.n_flows):
            label = f"flow {f} ({self.algorithm}) window"
            artists += ax.plot(t, self.window_pkts[:, scenario, f], label=label)
        if self.queue_pkts is not None:
            artists += ax.plot(t, self.queue_pkts[:, scenario], "k--", label="queue (link)")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("packets")
        ax.legend(loc="best")
        return artists

    def to_frame(self) -> Any:
        """A long :class:`pandas.DataFrame`: one row per (round, scenario, flow)."""
        import pandas as pd

        r, s, f = self.window_pkts.shape
        cols: dict[str, Any] = {
            "round": np.repeat(np.arange(r), s * f),
            "scenario": np.tile(np.repeat(np.arange(s), f), r),
            "flow": np.tile(np.arange(f), r * s),
            "time_s": np.repeat(self.time_s.ravel(), f),
            "window_pkts": self.window_pkts.ravel(),
            "phase": self.phase.ravel(),
        }
        for name in ("delta_pkts", "throughput_pps"):
            arr = getattr(self, name)
            if arr is not None:
                cols[name] = arr.ravel()
        for name in ("rtt_s", "queue_pkts"):
            arr = getattr(self, name)
            if arr is not None:
                cols[name] = np.repeat(arr.ravel(), f)
        return pd.DataFrame(cols)


# ------------------------------------------------------------------------------ engine
def simulate_rounds(
    law: ControlLaw,
    paths: Path | Sequence[Path] | PathBatch,
    *,
    rounds: int | None = None,
    duration_s: float | None = None,
    n_flows: int = 1,
    flow_start_s: ArrayLike | None = None,
    flow_stop_s: ArrayLike | None = None,
    rtt_model: RttModel | None = None,
    cross_traffic: Sequence[CrossTraffic] = (),
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    timeout_loss_fraction: float = 0.5,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    rtt: RttModel | None = None,
    progress: Callable[[float], None] | None = None,
) -> RoundTrace:
    """Step ``law`` round by round on one path or a batch of paths.

    Parameters
    ----------
    law
        The control law (its array parameters, if any, have length ``S × n_flows``).
    paths
        A :class:`~tcpfluid.path.Path`, a sequence of them, or a :class:`PathBatch` (S
        scenarios).
    rounds, duration_s
        Exactly one: run this many rounds, or until every scenario's clock reaches
        ``duration_s`` seconds (scenarios whose clock passes it keep stepping until the
        last one does, but their totals and summaries stop at ``duration_s``).
    n_flows
        F, flows per scenario sharing the bottleneck (equal base RTT).
    flow_start_s, flow_stop_s
        Per-flow start and stop times, shape ``(F,)`` (defaults: 0 and never).
    rtt_model
        The RTT model (the burst term of the RTT): ``"average"`` (default), ``"last"`` or
        ``"fluid"`` (module docstring).
    cross_traffic
        CBR sources at the bottleneck; at every instant their total must stay below μ.
    record
        Which optional per-round fields to keep (subset of :data:`RECORDABLE`); time,
        window and phase are always kept. Fewer fields save memory in large sweeps.
    record_every
        Keep every m-th round (1: all).
    timeout_loss_fraction
        A flow losing more than this fraction of its window in one round suffers a
        retransmission timeout; otherwise a fast retransmit (``(0, 1]``).
    feedback_rounds
        Feedback lag, rounds (0 to 8): the RTTs a law reads at the end of round k are those
        of the packets of round ``k - feedback_rounds`` (plus the round-ending ACK of round
        k's first packet, which enters the round's minimum and maximum). Packet senders
        read the ACKs of the previous round's packets, so the default is 1; 0 is the
        documents' model (eqs. 6, 9, 10, 12 and the conspicuous round assume it).
    ack_train
        Model the spacing of the ACK train (default ``True``): the per-ACK growth of a
        round queues only beyond the spare capacity of an ACK train slower than the
        available rate (after the available rate rises). ``False`` queues the whole growth
        Z of every round, an artefact that inflates Δ after a bandwidth increase
        (docs/round-model.md).
    rtt
        Alias of ``rtt_model`` (the older name).
    progress
        Called with the fraction done in [0, 1] (simulated time over ``duration_s``, or
        rounds over ``rounds``) at most about ten times a second of wall time.

    Returns
    -------
    RoundTrace

    Raises
    ------
    ValueError, TypeError
        Bad arguments, before any work starts.
    """
    if not isinstance(law, ControlLaw):
        raise TypeError(f"law must be a ControlLaw (see tcpfluid.algorithms.get_law), got {law!r}")
    batch = paths if isinstance(paths, PathBatch) else PathBatch.from_paths(paths)
    S = batch.n_scenarios
    F = check_int("n_flows", n_flows, minimum=1)
    n = S * F
    model = _rtt_model(rtt_model, rtt)
    if not isinstance(ack_train, bool):
        raise TypeError(f"ack_train must be True or False, got {ack_train!r}")
    if (rounds is None) == (duration_s is None):
        raise ValueError(
            f"give exactly one of rounds or duration_s, got rounds={rounds!r}, "
            f"duration_s={duration_s!r}"
        )
    if rounds is not None:
        n_steps = check_int("rounds", rounds, minimum=1)
        t_end = math.inf
    else:
        t_end = check_positive("duration_s", duration_s)
        # every round lasts at least d, so this bound is never reached early
        d_min = float(batch.d_s.min())
        if t_end < d_min:
            raise ValueError(
                f"duration_s={duration_s!r} is shorter than one round (the base RTT "
                f"d={d_min!r} s): no round ends within the run; give a duration of at "
                "least one base RTT"
            )
        ratio = t_end / d_min
        if not ratio <= 50_000_000:
            raise ValueError(
                f"duration_s={duration_s!r} needs up to {ratio:.3g} rounds of "
                f"d={d_min!r} s (at most 50,000,000); shorten the run or lengthen d"
            )
        n_steps = math.ceil(ratio) + 1
    every = check_int("record_every", record_every, minimum=1)
    check_int("feedback_rounds", feedback_rounds, minimum=0)
    if feedback_rounds > 8:
        raise ValueError(f"feedback_rounds must be between 0 and 8, got {feedback_rounds!r}")
    frac = check_range("timeout_loss_fraction", timeout_loss_fraction, 0.0, 1.0, lo_open=True)
    if isinstance(record, str):
        raise TypeError(
            f"record must be a collection of field names, got the string {record!r}; "
            f"write record=({record!r},)"
        )
    rec = set(record)
    bad = sorted(rec - set(RECORDABLE))
    if bad:
        raise ValueError(f"record: unknown field {bad[0]!r}; recordable: {', '.join(RECORDABLE)}")
    start_f = _flow_times("flow_start_s", flow_start_s, F, default=0.0)
    stop_f = _flow_times("flow_stop_s", flow_stop_s, F, default=math.inf)
    if np.any(stop_f <= start_f):
        raise ValueError(
            f"flow_stop_s must be > flow_start_s for every flow, got {stop_f} and {start_f}"
        )
    if isinstance(cross_traffic, CrossTraffic):
        raise TypeError("cross_traffic must be a sequence of CrossTraffic, got one CrossTraffic")
    cross = list(cross_traffic)
    for j, c in enumerate(cross):
        if not isinstance(c, CrossTraffic):
            raise TypeError(f"cross_traffic[{j}] must be a CrossTraffic, got {c!r}")
    mu = batch.mu_pps
    d = batch.d_s
    if cross:
        c_rates = np.stack(
            [np.broadcast_to(as_float_array("rate_pps", c.rate_pps), (S,)) for c in cross]
        )
        c_start = np.array([c.start_s for c in cross])[:, None]
        c_stop = np.array([c.stop_s for c in cross])[:, None]
        worst = _max_concurrent(c_rates, c_start[:, 0], c_stop[:, 0])
        if np.any(worst >= mu):
            s = int(np.flatnonzero(worst >= mu)[0])
            raise ValueError(
                f"cross_traffic takes up to {worst[s]:g} pkt/s of a {mu[s]:g} pkt/s bottleneck "
                f"(scenario {s}); it must stay below the bottleneck rate"
            )
    # bandwidth changes inside the run (a change at or after its end is not one)
    change_times = metrics.bandwidth_changes([(c.start_s, c.stop_s) for c in cross], t_end)

    # --------------------------------------------------------------- law state
    state = law.init_state(n)
    if "phase" not in state:
        raise TypeError(f"{type(law).__name__}.init_state must return a 'phase' array")
    staggered = bool(np.any(start_f > 0.0) or np.any(np.isfinite(stop_f)))
    fresh = {k: v.copy() for k, v in state.items()} if staggered else {}
    act0 = law.initial_action(state)
    cwnd0 = np.array(act0.cwnd, dtype=np.float64)
    incr = np.array(act0.incr, dtype=np.float64)
    cap = np.array(act0.cap, dtype=np.float64)
    bad0 = ~(np.isfinite(cwnd0) & (cwnd0 > 0))
    if np.any(bad0):
        raise ValueError(
            f"{type(law).__name__}.initial_action gave a window <= 0 or not finite: "
            f"{cwnd0[bad0][0]!r}"
        )
    init_cwnd = cwnd0.copy()
    init_incr = incr.copy()
    init_cap = cap.copy()

    reverse = bool(np.any(np.isfinite(batch.reverse_mu_pps)))
    finite_buf = bool(np.any(np.isfinite(batch.buffer_pkts)))
    mu_r = batch.reverse_mu_pps
    b_r = batch.reverse_buffer_pkts

    # --------------------------------------------------------------- recording
    n_rec = (n_steps + every - 1) // every
    time_rec = np.empty((n_rec, S))
    win_rec = np.empty((n_rec, S, F))
    phase_rec = np.empty((n_rec, S, F), dtype=np.int8)
    delta_rec = np.empty((n_rec, S, F)) if "delta_pkts" in rec else None
    rtt_rec = np.empty((n_rec, S)) if "rtt_s" in rec else None
    queue_rec = np.empty((n_rec, S)) if "queue_pkts" in rec else None
    thr_rec = np.empty((n_rec, S, F)) if "throughput_pps" in rec else None

    t = np.zeros(S)
    base_rtt = np.full(n, np.inf)
    fwd_base = np.full(n, np.inf)
    delivered = np.zeros(n)
    elapsed = np.zeros(S)
    losses = np.zeros(n, dtype=np.int64)
    active = np.ones(n, dtype=bool)
    started = np.zeros(n, dtype=bool) if staggered else np.ones(n, dtype=bool)
    start_n = np.tile(start_f, S)
    stop_n = np.tile(stop_f, S)
    mu_link = mu
    half_d = 0.5 * d
    cross_carried = np.zeros(S)
    # without cross traffic the available rate never changes: hoist mu d, 1/mu and the
    # flows' share of the buffer
    mu_a = mu
    mud = mu * d
    inv_mu = 1.0 / mu
    b_tcp = batch.buffer_pkts

    def reverse_bottleneck(mu_a: FloatArray) -> tuple[FloatArray, NDArray[np.bool_]]:
        """The ACK-path rate where it is below the available rate (inf elsewhere)."""
        mu_r_eff = np.where(mu_r < mu_a, mu_r, np.inf)
        return mu_r_eff, np.isfinite(mu_r_eff)

    if reverse:
        mu_r_eff, rev_bott = reverse_bottleneck(mu_a)

    def per_flow(x: Any) -> Any:
        """A per-scenario array (S,) repeated over each scenario's flows (S × F,)."""
        return np.repeat(x, F) if F > 1 else x

    def per_scenario(x: FloatArray) -> FloatArray:
        """The sum over each scenario's flows of a per-flow array (S × F,) -> (S,)."""
        return x.reshape(S, F).sum(axis=1) if F > 1 else x

    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    next_report = time.monotonic()
    lag = feedback_rounds
    # rate at which the ACKs of the previous round return (per scenario): the bottleneck
    # rate while the flows' packets travel in a train compressed by the queue; below it
    # once the available rate rises (docs/round-model.md, "ACK train")
    ack_rate = np.full(S, np.inf)
    spread_train = ack_train and not reverse
    history: deque[tuple[FloatArray, ...]] = deque()
    k_rec = 0
    k = 0
    for k in range(n_steps):
        # ---------------- available rate at the start of the round
        if cross:
            on = (t >= c_start) & (t < c_stop)
            mu_a = mu - (c_rates * on).sum(axis=0)
            mud = mu_a * d
            inv_mu = 1.0 / mu_a
            b_tcp = batch.buffer_pkts * (mu_a / mu_link)
            if reverse:
                mu_r_eff, rev_bott = reverse_bottleneck(mu_a)
            if spread_train:
                np.minimum(ack_rate, mu_a, out=ack_rate)
        # ---------------- flows joining or leaving
        if staggered:
            t_n = per_flow(t)
            joining = ~started & (t_n >= start_n)
            if np.any(joining):
                for key, arr in state.items():
                    arr[joining] = fresh[key][joining]
                cwnd0[joining] = init_cwnd[joining]
                incr[joining] = init_incr[joining]
                cap[joining] = init_cap[joining]
                base_rtt[joining] = np.inf
                fwd_base[joining] = np.inf
                started |= joining
            active = started & (t_n < stop_n)
            w0 = np.where(active, cwnd0, 0.0)
        else:
            w0 = cwnd0
        w0_s = per_scenario(w0)
        # ---------------- standing backlog at the start and ACKs of the round
        if reverse:
            qr0, qf0 = _standing_rev(w0_s, mu_a, mu_r_eff, b_r, d)
            t0 = d + qr0 / mu_r_eff + qf0 / mu_a
            with np.errstate(divide="ignore", invalid="ignore"):
                ack_ratio = np.minimum(1.0, np.where(w0_s > 0, mu_r_eff * t0 / w0_s, 1.0))
            acks = w0 * per_flow(ack_ratio)
        else:
            qf0 = np.maximum(w0_s - mud, 0.0)
            acks = w0
        # ---------------- growth of the round through per-ACK increments
        z = np.minimum(incr * acks, cap - w0)
        np.maximum(z, 0.0, out=z)
        if staggered:
            z[~active] = 0.0
        w1 = w0 + z
        z_s = per_scenario(z)
        w1_s = w0_s + z_s if F > 1 else w1
        # ---------------- queues and RTTs
        if reverse:
            qr1, qf1 = _standing_rev(w1_s, mu_a, mu_r_eff, b_r, d)
            if model == "fluid":
                qf_min = qf_mean = qf_max = qf1
                qr_min = qr_mean = qr_max = qr1
            else:
                burst_mean = z_s if model == "last" else 0.5 * z_s
                qr_min = qr0
                qr_max = np.where(rev_bott, np.minimum(qr0 + z_s, b_r), qr0)
                qr_mean = np.where(rev_bott, np.minimum(qr0 + burst_mean, b_r), qr0)
                qf_min = qf0
                qf_max = np.where(rev_bott, qf0, qf0 + z_s)
                qf_mean = np.where(rev_bott, qf0, qf0 + burst_mean)
        else:
            qf1 = np.maximum(w1_s - mud, 0.0)
            if model == "fluid":
                qf_min = qf_mean = qf_max = qf1
            else:
                if spread_train:
                    # ACKs return at ack_rate < mu_a: the growth queues only beyond the
                    # spare capacity of the ACK train, w0 (mu_a / ack_rate - 1)
                    with np.errstate(invalid="ignore"):
                        spare = w0_s * (mu_a / ack_rate - 1.0)
                    zq = np.maximum(z_s - np.where(spare > 0, spare, 0.0), 0.0)
                    with np.errstate(divide="ignore", invalid="ignore"):
                        grown = np.where(w0_s > 0, w1_s / w0_s, 1.0)
                    ack_rate = np.minimum(ack_rate * grown, mu_a)
                else:
                    zq = z_s
                qf_min = qf0
                qf_max = qf0 + zq
                qf_mean = qf_max if model == "last" else qf0 + 0.5 * zq
        # ---------------- finite buffer: losses at the peak of the round
        if finite_buf:
            peak = np.maximum(qf_max, qf1)
            lost_s = np.maximum(peak - b_tcp, 0.0)
            qf_min = np.minimum(qf_min, b_tcp)
            qf_mean = np.minimum(qf_mean, b_tcp)
            qf_max = np.minimum(qf_max, b_tcp)
            qf1 = np.minimum(qf1, b_tcp)
        else:
            lost_s = None
        if reverse:
            dr = d + qr1 / mu_r_eff + qf1 / mu_a
            rtt_min = d + qr_min / mu_r_eff + qf_min / mu_a
            rtt_mean = d + qr_mean / mu_r_eff + qf_mean / mu_a
            rtt_max = d + qr_max / mu_r_eff + qf_max / mu_a
        else:
            dr = d + qf1 * inv_mu
            rtt_min = d + qf_min * inv_mu
            rtt_mean = rtt_min if qf_mean is qf_min else d + qf_mean * inv_mu
            rtt_max = rtt_min if qf_max is qf_min else d + qf_max * inv_mu
        # one-way forward delay (RFC 1323 timestamps): half the base RTT plus the
        # forward queueing delay; only its changes matter to forward-path Vegas
        if reverse:
            fwd_mean = half_d + qf_mean * inv_mu
            fwd_min = half_d + qf_min * inv_mu
        else:  # the whole queueing delay is on the forward path
            fwd_mean = rtt_mean - half_d
            fwd_min = rtt_min - half_d
        duration = dr
        # ---------------- feedback lag: the law sees the RTTs of an earlier round
        if lag:
            history.append((rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean))
            # the ACK that ends the round (of this round's first packet) is measured too:
            # it carries the queue at the start of this round
            cur_min, cur_fmin = rtt_min, fwd_min
            if len(history) > lag:
                rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = history.popleft()
            else:  # before any packet of a past round returned: the first round's
                rtt_min, rtt_mean, rtt_max, fwd_min, fwd_mean = history[0]
            rtt_max = np.maximum(rtt_max, cur_min)
            rtt_min = np.minimum(rtt_min, cur_min)
            fwd_min = np.minimum(fwd_min, cur_fmin)
        # ---------------- per-flow views
        rtt_min_n = per_flow(rtt_min)
        rtt_mean_n = per_flow(rtt_mean)
        rtt_max_n = per_flow(rtt_max)
        if staggered:
            np.minimum(base_rtt, np.where(active, rtt_min_n, np.inf), out=base_rtt)
            base_for_law = np.where(np.isfinite(base_rtt), base_rtt, rtt_min_n)
        else:
            np.minimum(base_rtt, rtt_min_n, out=base_rtt)
            base_for_law = base_rtt
        sample = RoundSample(
            # a flow not (or no longer) sending reports the window it would send with
            cwnd=np.where(active, w1, cwnd0) if staggered else w1,
            base_rtt=base_for_law,
            rtt_mean=rtt_mean_n,
            rtt_min=rtt_min_n,
            rtt_max=rtt_max_n,
            acks=acks,
        )
        fmin = per_flow(fwd_min)
        if staggered:
            np.minimum(fwd_base, np.where(active, fmin, np.inf), out=fwd_base)
            sample.fwd_delay_base = np.where(np.isfinite(fwd_base), fwd_base, fmin)
        else:
            np.minimum(fwd_base, fmin, out=fwd_base)
            sample.fwd_delay_base = fwd_base
        sample.fwd_delay_mean = per_flow(fwd_mean)
        # ---------------- totals (only rounds starting before the end)
        if lost_s is not None:
            w1_s_n = per_flow(w1_s)
            share = np.divide(w1, w1_s_n, out=np.zeros(n), where=w1_s_n > 0)
            lost = share * per_flow(lost_s)
            got = w1 - lost
        else:
            lost = None
            got = w1
        cn: Any = True
        if t_end == math.inf:
            delivered += got
            if cross:
                cross_carried += (mu_link - mu_a) * duration
        else:
            counting = t < t_end
            cn = per_flow(counting)
            delivered += np.where(cn, got, 0.0)
            if cross:
                cross_carried += np.where(counting, (mu_link - mu_a) * duration, 0.0)
            elapsed += np.where(counting, duration, 0.0)
        t = t + duration
        # ---------------- record
        if k % every == 0:
            time_rec[k_rec] = t
            win_rec[k_rec] = w1.reshape(S, F)
            phase_rec[k_rec] = state["phase"].reshape(S, F)
            if delta_rec is not None:
                delta_rec[k_rec] = backlog(w1, base_for_law, rtt_mean_n).reshape(S, F)
            if rtt_rec is not None:
                rtt_rec[k_rec] = rtt_mean
            if queue_rec is not None:
                q_end = qf_max if model != "fluid" else qf1
                queue_rec[k_rec] = q_end * (mu_link * inv_mu) if cross else q_end
            if thr_rec is not None:
                thr_rec[k_rec] = (got / per_flow(duration)).reshape(S, F)
            k_rec += 1
        # ---------------- the law decides
        action: RoundAction = law.on_round(state, sample)
        cwnd0 = np.asarray(action.cwnd, dtype=np.float64)
        incr = np.asarray(action.incr, dtype=np.float64)
        cap = np.asarray(action.cap, dtype=np.float64)
        if lost is not None:
            hit = (lost > 1e-9) & active
            if np.any(hit):
                cwnd0 = cwnd0.copy()
                incr = incr.copy()
                cap = cap.copy()
                timeout = hit & (lost > frac * w1)
                for kind, mask in ((LOSS_TIMEOUT, timeout), (LOSS_FAST, hit & ~timeout)):
                    idx = np.flatnonzero(mask)
                    if idx.size:
                        new = np.asarray(law.on_loss(state, idx, kind, w1[idx]), dtype=np.float64)
                        cwnd0[idx] = new
                        incr[idx] = 0.0
                        cap[idx] = new
                # a scenario whose clock has passed duration_s keeps stepping while others
                # of the batch finish; its losses after the end do not count
                losses += hit & cn
        if (k & 31) == 31 or k == n_steps - 1:
            _check_bounded(w1, k)
            if progress is not None and (now := time.monotonic()) >= next_report:
                next_report = now + 0.1
                done = k / n_steps if t_end == math.inf else float(t.min()) / t_end
                progress(min(1.0, max(0.0, done)))
        if t_end != math.inf and bool(np.all(t >= t_end)):
            _check_bounded(w1, k)
            break
    if progress is not None:
        progress(1.0)
    n_done = k_rec
    if t_end == math.inf:
        elapsed = t
    carried = delivered.reshape(S, F).sum(axis=1) + cross_carried
    return RoundTrace(
        time_s=time_rec[:n_done],
        window_pkts=win_rec[:n_done],
        phase=phase_rec[:n_done],
        delta_pkts=None if delta_rec is None else delta_rec[:n_done],
        rtt_s=None if rtt_rec is None else rtt_rec[:n_done],
        queue_pkts=None if queue_rec is None else queue_rec[:n_done],
        throughput_pps=None if thr_rec is None else thr_rec[:n_done],
        paths=batch,
        algorithm=getattr(law, "name", type(law).__name__),
        law_params=law.params(),
        rtt_model=model,
        change_times_s=change_times,
        duration_s=None if t_end == math.inf else t_end,
        elapsed_s=elapsed,
        delivered_pkts=delivered.reshape(S, F),
        carried_pkts=carried,
        losses=losses.reshape(S, F),
        flow_start_s=start_f,
        flow_stop_s=stop_f,
    )


def simulate_scenario_rounds(
    scenario: Scenario,
    *,
    rtt_model: RttModel | None = None,
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    rtt: RttModel | None = None,
    progress: Callable[[float], None] | None = None,
) -> RoundTrace:
    """Run a :class:`~tcpfluid.scenarios.Scenario` with the round model.

    The scenario is reduced by :meth:`~tcpfluid.scenarios.Scenario.fluid_view` (one
    bottleneck, CBR sources as cross traffic); every flow must run the same algorithm
    with the same parameters (set with :meth:`~tcpfluid.scenarios.Scenario.with_algorithm`).
    This is the ``rounds`` engine of ``tcpfluid simulate``. The options are those of
    :func:`simulate_rounds` (``rtt`` is an alias of ``rtt_model``).

    Raises
    ------
    ValueError
        If a flow has no algorithm, flows differ in algorithm or parameters, the flows
        do not share one path with one base RTT, or the scenario has a feature the round
        model cannot model (a RED queue, cross traffic off the bottleneck): the round model
        refuses it instead of running something else.
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(f"scenario must be a Scenario, got {type(scenario).__name__}")
    view = scenario.fluid_view()
    first = view.flows[0]
    if first.algorithm is None:
        raise ValueError(
            f"scenario {scenario.name!r}: its flows have no algorithm; choose one with "
            "Scenario.with_algorithm(name) (tcpfluid simulate --algorithm NAME)"
        )
    for fl in view.flows[1:]:
        if fl.algorithm != first.algorithm or dict(fl.params) != dict(first.params):
            raise ValueError(
                "the round model runs one algorithm with one parameter set for all flows; "
                f"flow {fl.name!r} has {fl.algorithm!r} {dict(fl.params)} but {first.name!r} "
                f"has {first.algorithm!r} {dict(first.params)}"
            )
    law = get_law(first.algorithm, **dict(first.params))
    return simulate_rounds(
        law,
        view.path,
        duration_s=view.duration_s,
        n_flows=len(view.flows),
        flow_start_s=[f.start_s for f in view.flows],
        flow_stop_s=[f.stop_s for f in view.flows],
        rtt_model=_rtt_model(rtt_model, rtt),  # type: ignore[arg-type]
        cross_traffic=[CrossTraffic(c.rate_pps, c.start_s, c.stop_s) for c in view.cross_traffic],
        record=record,
        record_every=record_every,
        feedback_rounds=feedback_rounds,
        ack_train=ack_train,
        progress=progress,
    )


def _rtt_model(rtt_model: str | None, rtt: str | None) -> str:
    """The RTT model from ``rtt_model`` or its alias ``rtt`` (not both)."""
    if rtt_model is not None and rtt is not None and rtt_model != rtt:
        raise ValueError(
            f"give the RTT model once: rtt_model={rtt_model!r} and its alias rtt={rtt!r}"
        )
    value = rtt_model if rtt_model is not None else rtt if rtt is not None else "average"
    check_choice("rtt_model" if rtt_model is not None else "rtt", value, _RTT_MODELS)
    return value


#: windows beyond this many packets mean a law grew without bound (no loss to stop it)
_MAX_WINDOW_PKTS = 1e12


def _check_bounded(w: FloatArray, k: int) -> None:
    """Raise instead of letting an unbounded window overflow into inf/NaN."""
    bad = ~(np.abs(w) < _MAX_WINDOW_PKTS)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        if np.isnan(w[i]):
            raise ValueError(
                f"the window of flow {i} is NaN by round {k}: the control law returned an "
                "invalid action (a NaN window, increment or cap)"
            )
        raise ValueError(
            f"the window of flow {i} reached {w[i]!r} packets by round {k}: the law grows "
            "without bound on this path (e.g. a loss-driven law such as Reno with an infinite "
            "buffer); give the path a finite buffer or run fewer rounds"
        )


def _standing_rev(
    w: FloatArray, mu_a: FloatArray, mu_r: FloatArray, b_r: FloatArray, d: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """ACK backlog and forward backlog of a window ``w`` with an ACK-path bottleneck."""
    with np.errstate(invalid="ignore"):
        qr = np.clip(w - mu_r * d, 0.0, b_r)
        qr = np.where(np.isfinite(mu_r), qr, 0.0)
        delay_r = np.where(np.isfinite(mu_r), qr / mu_r, 0.0)
    qf = np.maximum(w - mu_a * (d + delay_r), 0.0)
    return qr, qf


def _flow_times(name: str, value: ArrayLike | None, F: int, *, default: float) -> FloatArray:
    if value is None:
        return np.full(F, default)
    arr = _floats(name, value)
    if arr.ndim == 0:
        arr = np.full(F, float(arr))
    if arr.shape != (F,):
        raise ValueError(
            f"{name} must have one time per flow (shape ({F},)), got shape {arr.shape}"
        )
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {arr}")
    return arr


def _max_concurrent(rates: FloatArray, start: FloatArray, stop: FloatArray) -> FloatArray:
    """Largest total cross-traffic rate active at any instant, per scenario."""
    times = np.unique(start)
    worst = np.zeros(rates.shape[1])
    for ti in times:
        on = (start <= ti) & (stop > ti)
        worst = np.maximum(worst, rates[on].sum(axis=0))
    return worst


# ------------------------------------------------------------------------------ summary
def _summarise(tr: RoundTrace) -> RoundSummary:
    S, F = tr.n_scenarios, tr.n_flows
    t = tr.time_s[:, :, None]  # (R, S, 1)
    t_end = tr.duration_s if tr.duration_s is not None else math.inf
    last = tr.time_s[-1] if tr.n_rounds else np.zeros(S)
    end = np.minimum(last, t_end)[:, None]  # (S, 1)
    ss = metrics.slow_start_exit(t, tr.window_pkts, tr.phase == SLOW_START)
    # rows after duration_s (a scenario that kept stepping for the rest of its batch) do
    # not count: an exit decided after the end did not happen within the run
    late = ~(ss.time_s <= end)
    if np.any(late & ss.found):
        ss = metrics.Event(
            index=np.where(late, np.nan, ss.index),
            time_s=np.where(late, np.nan, ss.time_s),
            value=np.where(late, np.nan, ss.value),
            found=ss.found & ~late,
        )
    changes = tr.change_times_s
    # each flow is judged over its own active interval (S, F)
    seg = metrics.settling_by_segment(
        t,
        tr.window_pkts,
        start_s=np.broadcast_to(tr.flow_start_s[None, :], (S, F)),
        end_s=np.minimum(end, tr.flow_stop_s[None, :]),
        change_times_s=changes,
    )
    first = seg.equilibrium
    conv = np.full((S, F, len(changes)), np.nan)
    ok = np.zeros((S, F, len(changes)), dtype=bool)
    for j, r in enumerate(seg.convergence):
        conv[:, :, j] = r.time_s
        ok[:, :, j] = r.settled
    with np.errstate(invalid="ignore", divide="ignore"):
        thr = np.where(tr.elapsed_s[:, None] > 0, tr.delivered_pkts / tr.elapsed_s[:, None], np.nan)
        util = np.where(
            tr.elapsed_s > 0, tr.carried_pkts / (tr.paths.mu_pps * tr.elapsed_s), np.nan
        )
    jain = metrics.jain_index(thr, axis=-1)
    return RoundSummary(
        ss_exit_round=ss.index,
        ss_exit_time_s=ss.time_s,
        ss_exit_window_pkts=ss.value,
        ss_exited=ss.found,
        settled_window_pkts=first.value,
        time_to_equilibrium_s=first.time_s,
        reached_equilibrium=first.settled,
        change_times_s=changes,
        convergence_times_s=conv,
        converged=ok,
        utilization=np.asarray(util, dtype=np.float64),
        throughput_pps=np.asarray(thr, dtype=np.float64),
        jain_index=np.asarray(jain, dtype=np.float64),
        losses=tr.losses.copy(),
    )
