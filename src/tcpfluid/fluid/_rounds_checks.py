"""Argument checks of the round model: the run's length, recording, flows' start/stop times,
cross traffic (its rate schedule) and the RTT model's name (:func:`check_run`)."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any, Literal, NamedTuple, get_args

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
from ..algorithms.base import ControlLaw
from ._rounds_inputs import CrossTraffic, PathBatch, _flow_times, _max_concurrent
from ._rounds_law import DROP_SHARES
from ._rounds_results import RECORDABLE

FloatArray = NDArray[np.float64]
RttModel = Literal["average", "last", "fluid"]
#: the names of :data:`RttModel` (the one list; ``tcpfluid.engines.RTT_MODELS`` is it too)
_RTT_MODELS: tuple[str, ...] = get_args(RttModel)
#: default feedback lag of the round model, rounds: the RTT samples a law reads at the end
#: of round k are those of the packets of round k - 1 (docs/round-model.md)
FEEDBACK_ROUNDS = 1
#: the most flow-rounds (flows x scenarios x rounds) a run may take, about an hour at
#: :data:`FLOW_ROUND_S` (the hybrid model's and the packet simulator's bounds are of the
#: same order): a longer run is refused before any work, naming what to change
MAX_FLOW_ROUNDS = 3e10
#: a large batch's cost per flow-round on two cores (benchmarks/rounds.py, batch10000:
#: 2-5e7 flow-round updates/s; 8e6 with a million flows' memory traffic); only for the
#: estimate the refusal states
FLOW_ROUND_S = 1.25e-7


def check_options(
    law: Any, ack_train: Any, train_runs: Any, whole_packets: Any, progress: Any, drop_share: Any
) -> None:
    """The round engine's options that do not depend on the paths: the law, the switches
    ``ack_train``, ``train_runs``, ``whole_packets``, the ``progress`` callback and
    ``drop_share`` (:data:`~._rounds_law.DROP_SHARES`); a named ``TypeError`` or
    ``ValueError`` for a bad one."""
    if not isinstance(law, ControlLaw):
        raise TypeError(f"law must be a ControlLaw (see tcpfluid.algorithms.get_law), got {law!r}")
    if not isinstance(ack_train, bool):
        raise TypeError(f"ack_train must be True or False, got {ack_train!r}")
    for name, value in (("whole_packets", whole_packets), ("train_runs", train_runs)):
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable, got {progress!r}")
    check_choice("drop_share", drop_share, DROP_SHARES)


class _Run(NamedTuple):
    """The checked run arguments of :func:`simulate_rounds`."""

    n_steps: int
    t_end: float
    every: int
    frac: float
    rec: set[str]
    start_f: FloatArray
    stop_f: FloatArray
    cross: list[CrossTraffic]
    c_rates: FloatArray
    c_start: FloatArray
    c_stop: FloatArray
    change_times: tuple[float, ...]


def _check_run(
    batch: PathBatch,
    F: int,
    rounds: int | None,
    duration_s: float | None,
    record: Collection[str],
    record_every: int,
    feedback_rounds: int,
    timeout_loss_fraction: float,
    flow_start_s: ArrayLike | None,
    flow_stop_s: ArrayLike | None,
    cross_traffic: Sequence[CrossTraffic],
) -> _Run:
    """Check :func:`simulate_rounds`'s arguments (a ValueError/TypeError names the bad one)."""
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

    if not cross:
        c_rates, c_start, c_stop = np.zeros((0, S)), np.zeros((0, 1)), np.zeros((0, 1))
    return _Run(
        n_steps, t_end, every, frac, rec, start_f, stop_f, cross, c_rates, c_start, c_stop,
        change_times,
    )  # fmt: skip


def _rtt_model(rtt_model: str | None, rtt: str | None) -> str:
    """The RTT model from ``rtt_model`` or its alias ``rtt`` (not both)."""
    if rtt_model is not None and rtt is not None and rtt_model != rtt:
        raise ValueError(
            f"give the RTT model once: rtt_model={rtt_model!r} and its alias rtt={rtt!r}"
        )
    value = rtt_model if rtt_model is not None else rtt if rtt is not None else "average"
    check_choice("rtt_model" if rtt_model is not None else "rtt", value, _RTT_MODELS)
    return value
