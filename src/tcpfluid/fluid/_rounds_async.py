"""The round model with per-flow base RTTs: asynchronous rounds sharing one bottleneck.

The synchronous round model (:mod:`tcpfluid.fluid.rounds`) steps every flow of a scenario
at the same round boundaries, which holds only when the flows have one base RTT. Here each
**round-clock class** (the flows of one base RTT ``d_c``) has its own round clock; the
classes' rounds interleave in time and share the bottleneck queue (docs/round-model-
unequal-rtt.md).

Events are processed in time order: the next event is the earliest round start among the
classes still running (a class's round starts when its previous round ends). At the start
of a round of class ``c`` (time ``t``):

* **Available rate** ``μa = μ − c(t)`` (CBR at ``t``), joins and leaves of the class's
  flows, its window ``W0`` and the per-ACK growth ``Z = min(incr × acks, cap − cwnd)``,
  exactly as the synchronous model does.
* **Shared standing backlog.** A window-limited flow keeps ``w_j`` packets in flight:
  ``w_j = x_j (d_j + q/μa)`` with ``x_j`` its rate; while the queue is not empty the
  rates fill the link, ``Σ x_j = μa``. So the standing backlog of windows ``W_k`` (class
  ``k``, base RTT ``d_k``) is the root ``q ≥ 0`` of

  .. math:: \\sum_k W_k / (μa d_k + q) = 1

  (``q = 0`` when ``Σ W_k/(μa d_k) ≤ 1``). The other classes count with the window of
  the round they are in (their ``W1``); class ``c`` with ``W0`` at the start of its
  round (the round's first packet) and ``W1 = W0 + Z`` at its end. With one class this
  is ``q = max(0, W − μa d)``, the synchronous model's backlog.
* **Burst, RTTs, duration.** The class's growth queues on top of the standing backlog as in
  the synchronous model (:mod:`~tcpfluid.fluid._rounds_kernel`, the RTT
  model, the ACK train); its packets' RTTs are ``d_c`` plus the queueing delay, the
  round lasts ``d_c + q(W1)/μa``; the law reads them with the feedback lag
  (:mod:`~tcpfluid.fluid._rounds_kernel`, per class).
* **Losses.** Drop-tail: the backlog beyond the flows' share of the buffer at the round's
  peak is lost, by every flow in flight in proportion to its window (one class: the
  synchronous rule; the hybrid's rule, in proportion to its arrivals). The flows of the
  class take theirs at the end of the round; the other classes' flows at the end of their
  own next round, and until then what they lost is not in flight (it leaves their
  windows in the shared backlog). A flow's losses taken at the end of the round after
  its loss reaction belong to the same loss episode and start no new loss event
  (``_rounds_law.RECOVERY_ROUNDS``): without that rule the long-RTT flows, charged a
  share of the short-RTT classes' overflows at every one of their rounds, halve every
  round. RED
  (:mod:`tcpfluid.queueing`): the averaged queue ``avg`` follows the queue per arrival
  (``μ`` arrivals per second, weight ``w_q``), the class's packets of the round are
  dropped with probability ``p(avg)``; a flow's expected drops accumulate and each whole
  packet is a loss event at the end of its round (deterministic, no random numbers).
* **The law** of each flow (the same :class:`~tcpfluid.algorithms.base.ControlLaw` object
  every engine steps) decides at the end of its class's round; other flows keep their
  state and action.

Totals are the bottleneck's output integrated between events
(:mod:`tcpfluid.fluid._rounds_engine`): the flows never carry more than the link.

With every flow in one class the events are the synchronous model's rounds and every
operation is the synchronous model's: both are the one round engine
(:class:`~tcpfluid.fluid._rounds_engine.RoundEngine`), with clocks shaped (scenarios ×
classes); tests/fluid/test_rounds_async.py checks the traces are identical.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_float_array
from ..algorithms.base import ControlLaw
from ..path import Path
from ..queueing import RedParameters
from . import _rounds_physics
from ._rounds_async_trace import AsyncRecorder, AsyncRoundTrace
from ._rounds_checks import FEEDBACK_ROUNDS, RttModel, _check_run, _rtt_model, check_options
from ._rounds_engine import RoundEngine
from ._rounds_inputs import CrossTraffic, PathBatch
from ._rounds_law import DROP_SHARE
from ._rounds_physics import shared_backlog
from ._rounds_results import RECORDABLE

__all__ = ["rtt_classes", "shared_backlog", "simulate_rounds_async"]

FloatArray = NDArray[np.float64]


def rtt_classes(base_rtt_s: FloatArray) -> list[NDArray[np.intp]]:
    """The flows grouped by base RTT (equal to rounding, ``math.isclose``), in order of
    their first flow: each group shares one round clock."""
    groups: list[list[int]] = []
    for j, d in enumerate(base_rtt_s.tolist()):
        for g in groups:
            if math.isclose(d, float(base_rtt_s[g[0]])):
                g.append(j)
                break
        else:
            groups.append([j])
    return [np.array(g, dtype=np.intp) for g in groups]


def simulate_rounds_async(
    law: ControlLaw,
    path: Path,
    base_rtt_s: ArrayLike,
    *,
    duration_s: float,
    flow_start_s: ArrayLike | None = None,
    flow_stop_s: ArrayLike | None = None,
    rtt_model: RttModel | None = None,
    cross_traffic: Sequence[CrossTraffic] = (),
    red: RedParameters | None = None,
    record: Collection[str] = RECORDABLE,
    record_every: int = 1,
    timeout_loss_fraction: float = 0.5,
    feedback_rounds: int = FEEDBACK_ROUNDS,
    ack_train: bool = True,
    progress: Callable[[float], None] | None = None,
    drop_share: str = DROP_SHARE,
    train_runs: bool = True,
) -> AsyncRoundTrace:
    """Step ``law`` for flows with their own base RTTs sharing ``path``'s bottleneck.

    Parameters
    ----------
    law
        The control law of every flow (array parameters: length F).
    path
        The bottleneck: rate μ (packets/s), buffer (packets); its ``d`` is not used (each
        flow's base RTT is in ``base_rtt_s``). An ACK-path bottleneck is refused.
    base_rtt_s
        Each flow's base RTT, s, shape ``(F,)`` (F flows).
    duration_s
        Simulated time, s.
    red
        RED parameters of the bottleneck (``None``: drop-tail).
    flow_start_s, flow_stop_s, rtt_model, cross_traffic, record, record_every,
    timeout_loss_fraction, feedback_rounds, ack_train, progress, drop_share, train_runs
        As in :func:`tcpfluid.fluid.rounds.simulate_rounds` (``drop_share``: one turn
        over the flows of every class; ``"growth"``: each flow's growth in its last
        round; ``train_runs``: the runs of each class's ACK train).

    Returns
    -------
    AsyncRoundTrace
        One scenario (``S = 1``); rows at every flow's round ends.

    Raises
    ------
    ValueError, TypeError
        Bad arguments (named), or an ACK-path bottleneck on ``path``.
    """
    check_options(law, ack_train, train_runs, False, progress, drop_share)
    if not isinstance(path, Path):
        raise TypeError(f"path must be a Path, got {type(path).__name__}")
    d = as_float_array("base_rtt_s", base_rtt_s, positive=True).ravel()
    if d.size == 0:
        raise ValueError("base_rtt_s must give one base RTT per flow, got none")
    if path.ack_path_limits:
        raise ValueError(
            "the round model with per-flow base RTTs or RED cannot model an ACK-path "
            f"bottleneck ({path.reverse_mu:g} ACKs/s < {path.mu:g} packets/s); engines "
            "that can: packet"
        )
    if red is not None and not isinstance(red, RedParameters):
        raise TypeError(f"red must be None or a RedParameters, got {red!r}")
    model = _rtt_model(rtt_model, None)
    batch = PathBatch(path.mu, float(d.min()), buffer_pkts=path.buffer_pkts)
    run = _check_run(
        batch, d.size, None, duration_s, record, record_every, feedback_rounds,
        timeout_loss_fraction, flow_start_s, flow_stop_s, cross_traffic,
    )  # fmt: skip
    classes = rtt_classes(d)
    eng = RoundEngine(
        law, batch, classes, np.array([[d[ix[0]] for ix in classes]]), run, model=model,
        ack_train=ack_train, lag=feedback_rounds, whole_packets=False,
        train_runs=bool(train_runs), drop_share=drop_share, red=red,
        memory_of=_rounds_physics.queue_memory,
    )  # fmt: skip
    recorder = AsyncRecorder(classes, d.size, run.rec)
    eng.loop(recorder, progress)
    return AsyncRoundTrace(
        **recorder.series(),
        paths=PathBatch(path.mu, float(d[0]), buffer_pkts=path.buffer_pkts),
        **eng.results(model),
        base_rtt_s=d.copy(),
    )
