"""The round-based fluid model as an engine: :class:`Rounds`."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..fluid._rounds_inputs import FEEDBACK_ROUNDS, check_options
from ..fluid._rounds_law import DROP_SHARE, RECOVERY_ROUNDS
from ._base import Engine, sample_rows, summary_of

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Result
    from ..scenarios import Scenario


@dataclass(frozen=True, kw_only=True)
class Rounds(Engine):
    """The round-based fluid model (:func:`tcpfluid.fluid.simulate_scenario_rounds`): one
    step is one RTT round, the model of the Quick Vegas paper's §4.

    Attributes
    ----------
    rtt_model
        The RTT a law sees in a growing round: ``"average"`` (the round's mean, eqs. 6 and
        10 of the Quick Vegas paper), ``"last"`` (its last packet's, eq. 9) or ``"fluid"``
        (no burst term).
    feedback_rounds
        Feedback lag, rounds, 0 to 8 (0: the documents' model; 1: a packet sender's).
    ack_train, train_runs, whole_packets, drop_share
        The readings of :func:`tcpfluid.fluid.simulate_rounds` of the same names.
    timeout_loss_fraction
        A flow losing more than this fraction of its window in one round times out, else it
        fast-retransmits (``(0, 1]``; :func:`tcpfluid.fluid.simulate_rounds`).
    recovery_rounds, drop_at_least_one, burst_whole_losses, loss_event_rule, queue_memory,
    late_detection, first_loss_timeout, joiner_first_loss_pkts, joiner_base_rtt_s,
    overflow_in_runs, hole_timeouts
        Mechanism switches for experiments (:func:`tcpfluid.fluid.simulate_rounds`;
        docs/round-model.md, "Mechanism switches"); the defaults are the model.
    record_interval_s, record
        The recording (:class:`Engine`): ``None`` keeps every round; ``record`` picks
        among ``queue_pkts``, ``throughput_pps``, ``rtt_s``, ``delta_pkts``.

    Examples
    --------
    >>> Rounds(feedback_rounds=0).feedback_rounds
    0
    >>> Rounds(rtt_model="median")
    Traceback (most recent call last):
    ...
    ValueError: rtt_model must be one of 'average', 'last', 'fluid'; got 'median'
    """

    name: ClassVar[str] = "rounds"
    granularity: ClassVar[str] = "round"
    _check_options = staticmethod(check_options)
    recordable: ClassVar[tuple[str, ...]] = ("queue_pkts", "throughput_pps", "rtt_s", "delta_pkts")
    reports_progress: ClassVar[bool] = True

    rtt_model: str = "average"
    feedback_rounds: int = FEEDBACK_ROUNDS
    ack_train: bool = True
    train_runs: bool = True
    whole_packets: bool = False
    drop_share: str = DROP_SHARE
    timeout_loss_fraction: float = 0.5
    recovery_rounds: int = RECOVERY_ROUNDS
    drop_at_least_one: bool = True
    burst_whole_losses: bool = True
    loss_event_rule: str = "share"
    queue_memory: bool = True
    late_detection: bool = False
    first_loss_timeout: bool = False
    joiner_first_loss_pkts: float = math.inf
    joiner_base_rtt_s: float | None = None
    overflow_in_runs: bool = False
    hole_timeouts: bool | str = "red"

    def _native(
        self, scenario: Scenario, progress: Callable[[float], None] | None, label: str
    ) -> Any:
        from ..fluid.rounds import simulate_scenario_rounds

        # every round is kept for the summary (it is judged on the whole run); the Result's
        # series are then thinned to record_interval_s
        return simulate_scenario_rounds(
            scenario, record=self.record or (), record_every=1, progress=progress, **self._options()
        )

    def _result(self, sc: Scenario, tr: Any, label: str) -> Result:
        from ..fluid._rounds_results import flow_records, own_round_logs, own_rounds
        from ..results import RoundLogs

        F = len(sc.flows)
        t = np.asarray(tr.time_s[:, 0], dtype=np.float64)
        w = np.asarray(tr.window_pkts[:, 0, :], dtype=np.float64).T
        tt, ww, next_w, pp, sizes = own_round_logs(tr)
        records = flow_records(tr, sc.flow_table.names)
        summary = summary_of(
            label,
            sc,
            records,
            carried_pkts=float(tr.carried_pkts[0]),
            capacity_pps=float(tr.paths.mu_pps[0]),
            measured_s=(0.0, float(tr.elapsed_s[0])),
        )
        keep = sample_rows(t, self.record_interval_s)
        q = None if tr.queue_pkts is None else np.asarray(tr.queue_pkts[keep, 0], dtype=np.float64)
        # each flow's own round clock's RTT (flows of their own base RTTs), else the one
        own_rtt = getattr(tr, "flow_rtt_s", None)
        recorded = {
            "rtt_s": tr.rtt_s if own_rtt is None else own_rtt,
            "delta_pkts": tr.delta_pkts,
            "throughput_pps": tr.throughput_pps,
        }
        per_flow = {k: _per_flow(a, F) for k, a in recorded.items() if a is not None}
        logged = {k: per_flow[k] for k in ("rtt_s", "delta_pkts") if k in per_flow}
        series = {k: x[keep].T for k, x in logged.items()}
        # the round logs: each flow's own rounds at the top of its column
        ends = getattr(tr, "round_end", None)
        own = {k: x if ends is None else own_rounds(ends[:, 0, :], x)[0] for k, x in logged.items()}
        base = getattr(tr, "base_rtt_s", None)
        base_rtt = (
            np.array(sc.base_rtts_s(), dtype=np.float64)
            if base is None
            else np.asarray(base, dtype=np.float64).reshape(-1)[:F]
        )
        if tr.law_base_rtt_s is not None:  # what the laws held; a flow that never sent: d
            held = np.asarray(tr.law_base_rtt_s, dtype=np.float64)[0, :F]
            base_rtt = np.where(np.isfinite(held), held, base_rtt)
        logs: Any = RoundLogs(
            tt, ww, next_w, pp.astype(np.int8, copy=False), sizes,
            rtt_s=own.get("rtt_s"), delta_pkts=own.get("delta_pkts"), base_rtt_s=base_rtt,
        )  # fmt: skip
        return self._wrap(
            label,
            sc,
            summary,
            tr,
            t[keep],
            w[:, keep],
            q,
            per_flow["throughput_pps"][keep].T if "throughput_pps" in per_flow else None,
            rounds=logs,
            base_rtt_s=base_rtt,
            series=series,
        )


def _per_flow(a: Any, F: int) -> Any:
    """A recorded per-round quantity of the one scenario of a trace (``(R, S)``: one per
    scenario clock, every flow of it; or ``(R, S, F)``) per round and flow, ``(R, F)``."""
    x = np.asarray(a, dtype=np.float64)
    return np.repeat(x[:, :1], F, axis=1) if x.ndim == 2 else x[:, 0, :]
