"""Inputs of the round model and their checks: the batch of paths, cross traffic, flow
times, the run's length, recording, the options and the RTT model's name."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, NamedTuple, get_args

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import metrics
from .._validation import (
    as_float_array,
    check_bool,
    check_choice,
    check_int,
    check_positive,
    check_progress,
    check_range,
    option_checker,
)
from ..algorithms.base import ControlLaw
from ..path import Path
from ..scenarios.reduction import peak_cross_rate
from ._rounds_law import DROP_SHARES, LOSS_EVENT_RULES

FloatArray = NDArray[np.float64]
#: optional per-round fields of a :class:`~._rounds_results.RoundTrace` (time, window and
#: phase are always kept)
RECORDABLE = ("delta_pkts", "rtt_s", "queue_pkts", "throughput_pps")


@dataclass(frozen=True, init=False)
class PathBatch:
    """S bottleneck paths as arrays, broadcast to one shape ``(S,)``: the grid one
    :func:`simulate_rounds` call runs.

    Parameters
    ----------
    mu_pps
        Bottleneck rate μ, packets/s (> 0).
    d_s
        Base RTT d, s (> 0).
    buffer_pkts
        Bottleneck buffer, packets (>= 1; ``inf``: no loss).
    reverse_mu_pps, reverse_buffer_pkts
        ACK-path bottleneck, ACKs/s (> 0), and its buffer, ACKs (>= 1) (``inf``: none).
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
        for name, a in zip(self.__dataclass_fields__, arrs, strict=True):
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
            for k in self.__dataclass_fields__
        }


def _inf_array(name: str, value: ArrayLike, *, minimum: float | None) -> FloatArray:
    arr = as_float_array(name, value, finite=False)
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
    """Constant-bit-rate cross traffic at the bottleneck (document 000 §5.1): ``rate_pps``
    (packets/s, a scalar or one per scenario) over ``[start_s, stop_s)``, s."""

    rate_pps: ArrayLike
    start_s: float
    stop_s: float = math.inf

    def __post_init__(self) -> None:
        as_float_array("rate_pps", self.rate_pps, positive=True)
        start = check_range("start_s", self.start_s, 0.0, math.inf, hi_open=True)
        if not (isinstance(self.stop_s, int | float) and self.stop_s > start):
            raise ValueError(f"stop_s must be > start_s={start!r}, got {self.stop_s!r}")


def _flow_times(name: str, value: ArrayLike | None, F: int, *, default: float) -> FloatArray:
    if value is None:
        return np.full(F, default)
    arr = as_float_array(name, value, finite=False)
    if arr.ndim == 0:
        arr = np.full(F, float(arr))
    if arr.shape != (F,):
        raise ValueError(
            f"{name} must have one time per flow (shape ({F},)), got shape {arr.shape}"
        )
    if np.any(np.isnan(arr)) or np.any(arr < 0):
        raise ValueError(f"{name} must be >= 0, got {arr}")
    return arr


RttModel = Literal["average", "last", "fluid"]
#: the names of :data:`RttModel` (the one list; ``tcpfluid.engines.RTT_MODELS`` is it too)
_RTT_MODELS: tuple[str, ...] = get_args(RttModel)
#: default feedback lag of the round model, rounds: the RTT samples a law reads at the end
#: of round k are those of the packets of round k - 1 (docs/round-model.md)
FEEDBACK_ROUNDS = 1
#: the most feedback lag the round model takes, rounds
MAX_FEEDBACK_ROUNDS = 8
#: the most flow-rounds (flows x scenarios x rounds) a run may take, about an hour at
#: :data:`FLOW_ROUND_S` (the hybrid model's and the packet simulator's bounds are of the
#: same order): a longer run is refused before any work, naming what to change
MAX_FLOW_ROUNDS = 3e10
#: a large batch's cost per flow-round on two cores (benchmarks/rounds.py, batch10000:
#: 2-5e7 flow-round updates/s; 8e6 with a million flows' memory traffic); only for the
#: estimate the refusal states
FLOW_ROUND_S = 1.25e-7


def check_law(law: Any) -> ControlLaw:
    """The round model's law: a :class:`~tcpfluid.algorithms.base.ControlLaw`."""
    if not isinstance(law, ControlLaw):
        raise TypeError(f"law must be a ControlLaw (see tcpfluid.algorithms.get_law), got {law!r}")
    return law


def _feedback_rounds(value: Any) -> int:
    lag = check_int("feedback_rounds", value)
    if not 0 <= lag <= MAX_FEEDBACK_ROUNDS:
        raise ValueError(f"feedback_rounds must be in [0, {MAX_FEEDBACK_ROUNDS}], got {value!r}")
    return lag


def _hole_timeouts(value: Any) -> bool | str:
    """``hole_timeouts``: ``True``, ``False`` or ``"red"``."""
    if isinstance(value, str) and value == "red":
        return value
    if not isinstance(value, bool | np.bool_):
        kind = ValueError if isinstance(value, str) else TypeError
        raise kind(f"hole_timeouts must be True, False or 'red', got {value!r}")
    return bool(value)


#: the round model's options that do not depend on the paths, each by its one rule (a
#: named ``TypeError`` or ``ValueError``; returns the value checked): the fields of
#: ``tcpfluid.engines.Rounds`` and the keywords of :func:`~.rounds.simulate_rounds`
OPTION_RULES: dict[str, Callable[[Any], Any]] = {
    "rtt_model": lambda v: check_choice("rtt_model", v, _RTT_MODELS),
    "feedback_rounds": _feedback_rounds,
    "ack_train": partial(check_bool, "ack_train"),
    "train_runs": partial(check_bool, "train_runs"),
    "whole_packets": partial(check_bool, "whole_packets"),
    "drop_share": lambda v: check_choice("drop_share", v, DROP_SHARES),
    "progress": check_progress,
    "recovery_rounds": partial(check_int, "recovery_rounds", minimum=0),
    "drop_at_least_one": partial(check_bool, "drop_at_least_one"),
    "burst_whole_losses": partial(check_bool, "burst_whole_losses"),
    "loss_event_rule": lambda v: check_choice("loss_event_rule", v, LOSS_EVENT_RULES),
    "queue_memory": partial(check_bool, "queue_memory"),
    "late_detection": partial(check_bool, "late_detection"),
    "first_loss_timeout": partial(check_bool, "first_loss_timeout"),
    "joiner_first_loss_pkts": partial(check_positive, "joiner_first_loss_pkts", allow_inf=True),
    "overflow_in_runs": partial(check_bool, "overflow_in_runs"),
    "hole_timeouts": _hole_timeouts,
    "joiner_base_rtt_s": lambda v: None if v is None else check_positive("joiner_base_rtt_s", v),
    "timeout_loss_fraction": partial(
        check_range, "timeout_loss_fraction", lo=0.0, hi=1.0, lo_open=True
    ),
}


check_options = option_checker(OPTION_RULES)


class _Run(NamedTuple):
    """The checked run arguments of :func:`simulate_rounds`."""

    n_steps: int
    t_end: float
    every: int
    frac: float
    rec: set[str]
    start_f: FloatArray
    stop_f: FloatArray
    lead_f: FloatArray
    spacing_f: FloatArray
    cross: list[CrossTraffic]
    c_rates: FloatArray
    c_start: FloatArray
    c_stop: FloatArray
    change_times: tuple[float, ...]


def _check_run(batch: PathBatch, F: int, given: dict[str, Any]) -> _Run:
    """Check the run's keywords ``given`` of :func:`simulate_rounds` for ``F`` flows on
    ``batch`` (a ValueError/TypeError names the bad one)."""
    rounds, duration_s, record = given["rounds"], given["duration_s"], given["record"]
    cross_traffic = given["cross_traffic"]
    S = batch.n_scenarios
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
    if F * S * n_steps > MAX_FLOW_ROUNDS:
        raise ValueError(
            f"{'rounds' if rounds is not None else 'duration_s'}="
            f"{rounds if rounds is not None else duration_s!r} with {F * S:,} flows needs up "
            f"to {F * S * n_steps:.3g} flow-rounds (about "
            f"{F * S * n_steps * FLOW_ROUND_S / 3600:.3g} h), more than "
            f"{MAX_FLOW_ROUNDS:.0e}; give fewer flows or scenarios, or a shorter run"
        )
    every = check_int("record_every", given["record_every"], minimum=1)
    _feedback_rounds(given["feedback_rounds"])
    frac = OPTION_RULES["timeout_loss_fraction"](given["timeout_loss_fraction"])
    if isinstance(record, str):
        raise TypeError(
            f"record must be a collection of field names, got the string {record!r}; "
            f"write record=({record!r},)"
        )
    rec = set(record)
    bad = sorted(rec - set(RECORDABLE))
    if bad:
        raise ValueError(f"record: unknown field {bad[0]!r}; recordable: {', '.join(RECORDABLE)}")
    start_f = _flow_times("flow_start_s", given["flow_start_s"], F, default=0.0)
    stop_f = _flow_times("flow_stop_s", given["flow_stop_s"], F, default=math.inf)
    if np.any(stop_f <= start_f):
        raise ValueError(
            f"flow_stop_s must be > flow_start_s for every flow, got {stop_f} and {start_f}"
        )
    lead_f = _flow_times("flow_lead_s", given["flow_lead_s"], F, default=0.0)
    spacing_f = _flow_times("flow_spacing_s", given["flow_spacing_s"], F, default=0.0)
    if isinstance(cross_traffic, CrossTraffic):
        raise TypeError("cross_traffic must be a sequence of CrossTraffic, got one CrossTraffic")
    cross = list(cross_traffic)
    for j, c in enumerate(cross):
        if not isinstance(c, CrossTraffic):
            raise TypeError(f"cross_traffic[{j}] must be a CrossTraffic, got {c!r}")
    rates = [np.broadcast_to(as_float_array("rate_pps", c.rate_pps), (S,)) for c in cross]
    c_rates = np.stack(rates) if cross else np.zeros((0, S))
    c_start = np.array([c.start_s for c in cross]).reshape(-1, 1)
    c_stop = np.array([c.stop_s for c in cross]).reshape(-1, 1)
    # the largest total rate on at any instant of the run, per scenario
    worst = peak_cross_rate(c_rates, c_start[:, 0], c_stop[:, 0], t_end)
    mu = batch.mu_pps
    if np.any(worst >= mu):
        s = int(np.flatnonzero(worst >= mu)[0])
        raise ValueError(
            f"cross_traffic takes up to {worst[s]:g} pkt/s of a {mu[s]:g} pkt/s bottleneck "
            f"(scenario {s}); it must stay below the bottleneck rate"
        )
    # bandwidth changes inside the run (a change at or after its end is not one)
    change_times = metrics.bandwidth_changes([(c.start_s, c.stop_s) for c in cross], t_end)
    return _Run(
        n_steps, t_end, every, frac, rec, start_f, stop_f, lead_f, spacing_f, cross, c_rates,
        c_start, c_stop, change_times,
    )  # fmt: skip
