"""TCP-Ho, §3.2 of the TCP-Ho paper (Ho, Chan and Chen 2007): quick shift with a status machine.

By default (``TcpHo(decrease="throughput")``) five rules of ours are added to Tables 1–2
so that the flow converges after bandwidth changes as the TCP-Ho paper reports (see
:class:`TcpHo`); ``decrease="table"`` is the document's status machine alone, described
here.

Quantities of one round n (the TCP-Ho paper, §3.2): Maximal Throughput ``MaT = cwnd / Minimal
RTT`` and Minimal Throughput ``MiT = cwnd / Maximal RTT``, with the Minimal and Maximal RTT
of the round's own packets (``sample.rtt_min``, ``sample.rtt_max``). "Current" is round n,
"Prior" round n − 2.

Status machine (Tables 1–2), checked in this order, ``s`` the previous status:

1. PMaT < CMiT: if s ∈ {1, 3}: ``incr += 1``, ``maxincr = max(maxincr, incr)``; otherwise
   ``incr = maxincr = 1``. Then ``cwnd += incr``, status 1.
2. CMaT < PMiT: if s ∈ {2, 4}: ``maxincr = max(maxincr − 1, 1)``. Then
   ``cwnd = max(cwnd − maxincr, 2)``, ``incr = 0``, status 2.
3. PMiT < CMiT and PMaT < CMaT: if s ∈ {1, 3}: ``incr = max(incr / 2, 1)``; otherwise
   ``incr = 1``. Then ``cwnd += incr``, status 3.
4. CMiT < PMiT and CMaT < PMaT: if s ∈ {2, 4}: ``maxincr = max(maxincr / 2, 1)``. Then
   ``cwnd = max(cwnd − maxincr, 2)``, ``incr = 0``, status 4.
5. Otherwise: ``incr = maxincr = 0``, status 5.

Timing (§3.2, Table 4): counting on_round calls ``k = 0, 1, 2, ...`` from the start of the
connection (or a loss), the law compares round k with round k − 2 and chooses a new amount
at odd ``k`` and applies it again at the next even ``k``; nothing changes at ``k = 0``. The
amount chosen at call k acts during round k + 1, which gives Table 4's windows exactly.

The readings of ours where the document is silent (the first comparison, the restart at
the floor, the pacing of an increase over the ACKs, ``phase`` and the conspicuous round,
the loss reset), why Table 2 alone cannot converge after a bandwidth change as the paper
reports and the variants measured: docs/algorithms.md, "tcp-ho".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ._common import check_flows
from ._tcp_ho_rule import _HO_LOSS, _STATE_DEFAULTS, _STATE_KEYS, _TCP_HO
from .base import (
    SLOW_START,
    CompiledLaw,
    FloatArray,
    Parameter,
    RoundSample,
    State,
)
from .vegas import INITIAL_WINDOW

__all__ = ["DECREASES", "TcpHo"]

#: the law's state arrays its compiled round rule takes, in order
_ROUND_STATE = ("phase", *_STATE_KEYS)

#: how a comparison that finds the throughput fallen (statuses 2 and 4) sizes the decrease
DECREASES = ("throughput", "table")


class TcpHo(CompiledLaw):
    """TCP-Ho's quick-shift status machine (the TCP-Ho paper, §3.2, Tables 1–2).

    TCP-Ho has no tunable parameter: its increments are counted in packets and its
    decisions compare throughputs of rounds n and n − 2.

    Parameters
    ----------
    decrease : {"throughput", "table"}, default "throughput"
        ``"table"``: Tables 1–2 as written (with the readings of the module docstring).
        ``"throughput"`` (default; an *addition* of ours: Table 2 alone cannot converge
        as the TCP-Ho paper reports): five rules on top of Tables 1–2 (a resolution of half
        a packet per round, a fall counted only with rising RTTs, a cut to ``CMiT × r`` at
        a counted fall, a wait for the drain after a decrease, an empty path as room).
        Each rule and its measured numbers: docs/algorithms.md, "The addition
        decrease="throughput"".
    initial_window : float, default 2
        Window of the first round, packets; ``>= 1``. Table 4 of the TCP-Ho paper starts at
        2; ns-2's TCP agents, which ran the paper's simulations, start at 1
        (``windowInit_``).

    Notes
    -----
    State (arrays over flows): ``phase``, ``k`` (on_round calls since the start or the last
    loss), ``incr``, ``maxincr``, ``status`` (1–5, Table 1), ``amount`` (the signed window
    change applied in the current pair of rounds), ``mat1``/``mit1`` and ``mat2``/``mit2``
    (maximal/minimal throughputs of the previous two rounds, packets/s), ``quiet``
    (a cut or trim draining), ``tail`` and ``rtail`` (the drain's tail after the quiet).
    """

    name: ClassVar[str] = "tcp-ho"
    #: its steady state is a limit cycle (holds and one-packet steps of the status machine)
    cycle_amplitude_pkts: ClassVar[float] = float("inf")

    parameters: ClassVar[tuple[Parameter, ...]] = (
        Parameter(
            "decrease",
            "throughput",
            "how a comparison that finds the throughput fallen sizes the decrease",
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

    def _round_rule(self, state: State, sample: RoundSample) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`~tcpfluid.algorithms._tcp_ho_rule._tcp_ho_rule` on the law's state
        (``phase``, then :data:`~tcpfluid.algorithms._tcp_ho_rule._STATE_DEFAULTS`' keys in
        order), the sample and the decrease rule."""
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        base_rtt = np.asarray(sample.base_rtt, dtype=np.float64)
        rtt_min = np.asarray(sample.rtt_min, dtype=np.float64)
        rtt_max = np.asarray(sample.rtt_max, dtype=np.float64)
        states = [state[key] for key in _ROUND_STATE]
        args = (*states, cwnd, base_rtt, rtt_min, rtt_max, self._decrease == "throughput")
        return _TCP_HO, cwnd.shape[0], args

    def _loss_rule(
        self, state: State, kind: int
    ) -> tuple[Any, tuple[FloatArray, ...], tuple[Any, ...]]:
        """:func:`~tcpfluid.algorithms._tcp_ho_rule._ho_loss` on the law's state."""
        return _HO_LOSS, (*[state[key] for key in _STATE_KEYS], state["phase"]), ()
