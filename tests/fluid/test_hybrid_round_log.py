"""The hybrid model's round log: one row per round boundary of each flow, in its own order.

The reference is the plain route: each flow decided by its own law object written in
Python (a Vegas that records what it read and what it set), so the kernel returns to
Python at every boundary. Each flow's log (``HybridResult.flows[j].round_*``) must hold
what its law read (the window, the round's mean RTT, BaseRTT), the window it set and its
phase after deciding, row for row; and the same run with the compiled Vegas for every
flow (its decisions inside the kernel, the rows written there and split by flow
afterwards) must give the same log to the last bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tcpfluid.algorithms import RoundAction, RoundSample, get_law
from tcpfluid.fluid.hybrid import simulate_hybrid

_VEGAS: Any = type(get_law("vegas"))

#: five flows of four base RTTs, three joining later (their rounds end interleaved with
#: the others'), and one joining too late to end a round
RUN: dict[str, Any] = {
    "mu_pps": 2000.0,
    "base_rtt_s": [0.05, 0.07, 0.11, 0.13, 0.05, 0.13],
    "flow_start_s": [0.0, 0.0, 0.5, 1.0, 2.0, 3.95],
    "duration_s": 4.0,
    "buffer_pkts": 1000.0,
}

COLUMNS = ("round_cwnd_pkts", "round_next_cwnd_pkts", "round_phase", "round_rtt_mean_s",
           "round_base_rtt_s")  # fmt: skip


class _Recording(_VEGAS):
    """Vegas deciding in Python, recording each decision as a log row would show it."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[tuple[float, ...]] = []

    def on_round(self, state: Any, sample: RoundSample) -> RoundAction:
        action: RoundAction = super().on_round(state, sample)
        (w,), (nxt,), (phase,) = sample.cwnd, action.cwnd, state["phase"]
        (mean,), (base,) = sample.rtt_mean, sample.base_rtt
        self.rows.append(tuple(float(x) for x in (w, nxt, phase, mean, base)))
        return action


def test_round_log_equals_each_flows_own_decisions() -> None:
    laws = [_Recording() for _ in RUN["base_rtt_s"]]
    plain = simulate_hybrid(laws, **RUN)
    compiled = simulate_hybrid(get_law("vegas"), **RUN)
    for j, (fl, law) in enumerate(zip(plain.flows, laws, strict=True)):
        t = np.asarray(fl.round_t_s)
        log = np.column_stack([np.asarray(getattr(fl, c), dtype=float) for c in COLUMNS])
        want = np.array(law.rows, dtype=float).reshape(-1, len(COLUMNS))
        assert log.shape == want.shape and log.tobytes() == want.tobytes(), j
        assert t.shape == (len(law.rows),), j
        # boundaries inside the flow's active time, in order
        assert np.all(np.diff(t) > 0.0), j
        assert t.size == 0 or (RUN["flow_start_s"][j] < t[0] and t[-1] <= RUN["duration_s"]), j
    # the late joiner ends no round: an empty log; every other flow ends many
    assert [len(law.rows) for law in laws][-1] == 0
    assert min(len(law.rows) for law in laws[:-1]) > 15
    for a, b in zip(plain.flows, compiled.flows, strict=True):
        for c in ("round_t_s", *COLUMNS):
            x, y = np.asarray(getattr(a, c)), np.asarray(getattr(b, c))
            assert x.shape == y.shape and x.tobytes() == y.tobytes(), c
