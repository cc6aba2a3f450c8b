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

Timing (the TCP-Ho paper, §3.2 and Table 4): no increase in the first round; "from the second
round, we adjust the increase (or decrease) amount every other round ... the increase (or
decrease) amounts in the i-th and (i+1)-th rounds will be the same". Counting on_round calls
``k = 0, 1, 2, ...`` from the start of the connection (or a loss), the law compares and
chooses a new amount at odd ``k`` (round k against round k − 2) and applies the same amount
again at the following even ``k``; at ``k = 0`` nothing changes. The amount chosen at call
k acts during round k + 1, so Table 4's window of round i is the window at the start of
round i: W = 2, 2, 2, 3, 4, 6, 8, 11, 14, 18, 22 and z = 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5.

*Ours*, where the document is silent (the reasons: docs/algorithms.md, "tcp-ho"):

* At the first comparison (k = 1) there is no round k − 2: its throughputs are taken as 0
  (nothing was sent), so PMaT = 0 < CMiT and case 1 applies, which gives Table 4's z_2 = 1.
* **Restart at the floor.** A comparison that gives status 5 with the window at the floor
  of 2 packets resets the quick-shift state as at the start of a connection (the round
  count and throughput history too), so Table 4's growth restarts (a window that has
  stopped adjusting has "no idea about the available bandwidth", §3.2).
* Decreases use ``maxincr`` as Table 2 writes it: after status 5 (``maxincr = 0``) a first
  case-2/4 decrease removes 0 packets (Table 2 floors ``maxincr`` at 1 in statuses 2 and 4
  only).
* An increase is spread over the ACKs of the next round (``incr = amount / cwnd`` per ACK,
  ``cap = cwnd + amount``): the document's extra packet sent "when two or more ACKs of the
  previous round are received" (§3.2 and the footnote of §4.2). A decrease is applied at
  the round boundary, in both rounds of its pair.
* Halvings are exact (``incr / 2`` may be fractional); the document does not round.
* ``phase`` is :data:`SLOW_START` while every comparison since the start (or a timeout)
  gave status 1 (the "stable growth" ramp of Table 4) and :data:`CONGESTION_AVOIDANCE`
  from the first comparison that does not; the round where it changes is the
  "conspicuous round" of §4.2.
* Losses (§3.2: "the fast retransmit and fast recovery of TCP-Ho are same as those of TCP
  Vegas ... we reset all parameters used in the QS phase to their default values"): Vegas's
  3/4, 1/2 and timeout-to-2 reactions, then ``incr = maxincr = 0``, ``status = 1`` and the
  round count and throughput history restart as at the beginning of a connection.

Why Table 2 alone cannot converge after a bandwidth change as the paper reports (the
experiment ``tests/algorithms/test_alg_tcp_ho.py::
test_table2_cannot_shed_a_window_after_a_tie``), the decrease chain below the pipe and
the variants measured: docs/algorithms.md, "tcp-ho".
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
        ``"table"``: Tables 1–2 as written (with the readings in the module docstring).
        ``"throughput"`` (default; an *addition*, not in the document: Table 2 alone
        cannot converge as the TCP-Ho paper reports), five rules on top of Tables 1–2:
        (1) throughputs closer than half a packet per round are a tie; (2) a fall
        (statuses 2, 4) counts only if the RTTs rose too, a fall of one end of the
        interval with a rise of the maximal RTT is a status 4, and a rise with the window
        not grown since round n − 2 and the minimal RTT fallen by more than one packet's
        delay is a tie (the queue draining); (3) at a counted fall the window drops at
        least to ``CMiT × r``, ``r`` the minimal RTT of the last calm comparison, in place
        of the pair's decrease (no cut while an earlier cut drains); (4) after a decrease
        a rise is a tie until the minimal RTT moves by less than half a packet's delay
        from one round to the next, then one more cut to ``CMaT × r`` if the window is
        still above it, and until a comparison finds the minimal RTT no lower than the
        previous comparison's a further fall with the window not grown is still the
        drain; (5) a tie with less than one packet of backlog (eq. 1 of the Quick Vegas
        paper with the round's maximal RTT) is a status 3. Why each, and the measured
        numbers: docs/algorithms.md, "The addition decrease="throughput"".
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
