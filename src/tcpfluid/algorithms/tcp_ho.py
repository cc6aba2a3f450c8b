"""TCP-Ho, §3.2 of the TCP-Ho paper (Ho, Chan and Chen 2007): the quick-shift status
machine of Tables 1–2 comparing the throughput intervals [MiT, MaT] of rounds n and n − 2,
with (``decrease="throughput"``, the default) five rules of ours so that the flow converges
after bandwidth changes as the paper reports. The machine, its timing (Table 4), the
readings and the additions: docs/algorithms.md, "tcp-ho".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import check_flows, f64
from ._tcp_ho_rule import _HO_LOSS, _STATE_DEFAULTS, _STATE_KEYS, _TCP_HO
from .base import SLOW_START, CompiledLaw, LossRule, Parameter, RoundRule, RoundSample, State
from .vegas import INITIAL_WINDOW

__all__ = ["DECREASES", "TcpHo"]

#: the law's state arrays its compiled round rule takes, in order
_ROUND_STATE = ("phase", *_STATE_KEYS)

#: how a comparison that finds the throughput fallen (statuses 2 and 4) sizes the decrease
DECREASES = ("throughput", "table")


class TcpHo(CompiledLaw):
    """TCP-Ho's quick-shift status machine (the TCP-Ho paper, §3.2, Tables 1–2).

    It has no tunable parameter of the document's.

    Notes
    -----
    State: ``phase``, ``k`` (on_round calls since the start or the last loss), ``incr``,
    ``maxincr``, ``status`` (1–5), ``amount`` (the signed change of the current pair of
    rounds), the throughputs and RTTs of the previous two rounds, ``rsteady``, ``quiet``,
    ``tail`` and ``rtail`` (the drain after a cut).
    """

    name: ClassVar[str] = "tcp-ho"
    #: its steady state is a limit cycle (holds and one-packet steps of the status machine)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "decrease",
            "throughput",
            "how a comparison that finds the throughput fallen sizes the decrease: 'table' "
            "Tables 1-2 as written, 'throughput' with the five rules of docs/algorithms.md",
            choices=DECREASES,
        ),
        INITIAL_WINDOW,
    )

    def _configure(self, values: Mapping[str, Any]) -> None:
        self.initial_window = values["initial_window"]
        self._decrease = values["decrease"]

    def init_state(self, n: int) -> State:
        """Fresh state: ``status = 1``, ``incr = maxincr = 0``, round count 0."""
        n = check_flows({}, n)
        state = {key: np.full(n, value) for key, value in _STATE_DEFAULTS.items()}
        state["phase"] = np.full(n, SLOW_START)
        return state

    def _round_rule(self, state: State, sample: RoundSample) -> RoundRule:
        """:func:`~tcpfluid.algorithms._tcp_ho_rule._tcp_ho_rule` on the law's state."""
        measured = f64(sample.cwnd, sample.base_rtt, sample.rtt_min, sample.rtt_max)
        states = [state[key] for key in _ROUND_STATE]
        return _TCP_HO, measured[0].shape[0], (*states, *measured, self._decrease == "throughput")

    def _loss_rule(self, state: State, kind: int) -> LossRule:
        """:func:`~tcpfluid.algorithms._tcp_ho_rule._ho_loss` on the law's state."""
        return _HO_LOSS, (*[state[key] for key in _STATE_KEYS], state["phase"]), ()
