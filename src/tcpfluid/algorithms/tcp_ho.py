"""TCP-Ho, §3.2 of the TCP-Ho paper (Ho, Chan and Chen 2007): quick shift with a status machine.

By default (``TcpHo(decrease="throughput")``) five rules of ours are added to Tables 1–2
so that the flow converges after bandwidth changes as the TCP-Ho paper reports (see
:class:`TcpHo` and "What the rules cannot do" below); ``decrease="table"`` is the
document's status machine alone, described here.

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

*Ours*, where the document is silent:

* At the first comparison (k = 1) there is no round k − 2: its throughputs are taken as 0
  (nothing was sent), so PMaT = 0 < CMiT and case 1 applies, which gives Table 4's z_2 = 1.
* **Restart at the floor.** When the window is at the floor of 2 packets and a comparison
  gives status 5 (nothing changes any more), the quick-shift state is reset as at the
  start of a connection (the round count and throughput history too), so Table 4's growth
  restarts: the document's rules never increase after a tie, and a window of 2 that has
  stopped adjusting has "no idea about the available bandwidth" (the TCP-Ho paper, §3.2),
  the situation the document resolves by starting afresh.
* Decreases use ``maxincr`` as Table 2 writes it: after status 5 (``maxincr = 0``) a first
  case-2/4 decrease removes 0 packets. We do not read "maxincr ≥ 1" as applying to that
  step: Table 2 attaches it to statuses 2 and 4 only, and a floor of 1 packet there would
  start the self-sustaining decrease chain described below from every steady state.
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

What the rules cannot do (an experiment: ``tests/algorithms/test_alg_tcp_ho.py::
test_table2_cannot_shed_a_window_after_a_tie``): after a status 5, ``maxincr = 0``; a
decrease chain from there removes 0, then at most 1 packet per comparison (statuses 2 and 4
floor ``maxincr`` at 1, and only increases raise it), each applied in two rounds. In 7 s of
200 ms rounds (17 comparisons) that is at most 32 packets, where the TCP-Ho paper's §5.1.2 needs
about 310 (the window halves). No reading of Table 2 that keeps "otherwise: maxincr = 0" can
converge in 7 s after a halving from a steady state. With a standing queue, cwnd / RTT
equals the available rate μa whatever the window, so no comparison sees the queue. After the
available rate halves from a status-5 steady state the first decrease is ``maxincr = 0`` and
the throughputs are flat afterwards: the window keeps its size, the sender's throughput
converges at once (the queue absorbs the excess) and the queue grows by the old window minus
the new μa d. Moving the window by hundreds of packets within the TCP-Ho paper's "less than 7
seconds" would need decreases larger than any ``maxincr`` Table 2 allows after a status 5;
we do not invent one.

Below the pipe (W < μa d) the throughput is cwnd / BaseRTT, so a decrease lowers it: a
chain of decreases in statuses 2/4 (``maxincr`` never below 1 there) sees its own effect
two rounds later as "CMaT < PMiT" and continues one packet per round down to the floor.
In the packet simulator a standing queue gives throughputs that differ by ~0.1 packet/s
from round to round (round boundaries fall between packets), enough to start such a chain
(exact inequalities); in ns-2 coarser noise would likely break it. The restart at the
floor bounds the damage: the window ramps back as in Table 4 (about 5 s at 50 Mb/s × 100
ms). A comparison resolution (differences below one packet per round as ties) was tried:
it stops the chain on the TCP-Ho paper's §5.1.2 path but moves the conspicuous round for
μd = 5 and cannot separate Table 4's first +1 packet from a 1-packet decrease chain, so
it is not shipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from ._common import MIN_WINDOW, check_flows, check_index
from ._jit import Kernel
from .base import (
    CONGESTION_AVOIDANCE,
    LOSS_FAST,
    LOSS_TIMEOUT,
    SLOW_START,
    ControlLaw,
    FlowIndex,
    Parameter,
    RoundAction,
    RoundSample,
)
from .vegas import INITIAL_WINDOW

__all__ = ["DECREASES", "TcpHo"]

#: how a comparison that finds the throughput fallen (statuses 2 and 4) sizes the decrease
DECREASES = ("throughput", "table")

#: decrease="throughput": throughputs closer than this many packets per round are a tie
_RESOLUTION_PKTS = 0.5

FloatArray = NDArray[np.float64]
State = dict[str, FloatArray]

_STATE_DEFAULTS = {
    "k": 0.0,
    "incr": 0.0,
    "maxincr": 0.0,
    "status": 1.0,
    "amount": 0.0,
    "mat1": 0.0,
    "mit1": 0.0,
    "mat2": 0.0,
    "mit2": 0.0,
    "rmin1": 0.0,
    "rmax1": 0.0,
    "rmin2": 0.0,
    "rmax2": 0.0,
    "rsteady": 0.0,
    "quiet": 0.0,
    "tail": 0.0,
    "rtail": 0.0,
}


_STATE_KEYS = tuple(_STATE_DEFAULTS)


def _ho_restart(
    k: Any,
    incr: Any,
    maxincr: Any,
    status: Any,
    amount: Any,
    mat1: Any,
    mit1: Any,
    mat2: Any,
    mit2: Any,
    rmin1: Any,
    rmax1: Any,
    rmin2: Any,
    rmax2: Any,
    rsteady: Any,
    quiet: Any,
    tail: Any,
    rtail: Any,
    i: Any,
) -> None:
    """Quick-shift state of flow ``i`` back to the start of a connection (§3.2):
    ``status = 1``, everything else 0 (:data:`_STATE_DEFAULTS`)."""
    k[i] = 0.0
    incr[i] = 0.0
    maxincr[i] = 0.0
    status[i] = 1.0
    amount[i] = 0.0
    mat1[i] = 0.0
    mit1[i] = 0.0
    mat2[i] = 0.0
    mit2[i] = 0.0
    rmin1[i] = 0.0
    rmax1[i] = 0.0
    rmin2[i] = 0.0
    rmax2[i] = 0.0
    rsteady[i] = 0.0
    quiet[i] = 0.0
    tail[i] = 0.0
    rtail[i] = 0.0


class TcpHo(ControlLaw):
    """TCP-Ho's quick-shift status machine (the TCP-Ho paper, §3.2, Tables 1–2).

    TCP-Ho has no tunable parameter: its increments are counted in packets and its
    decisions compare throughputs of rounds n and n − 2.

    Parameters
    ----------
    decrease : {"throughput", "table"}, default "throughput"
        ``"table"``: Tables 1–2 as written (with the readings in the module docstring).
        ``"throughput"`` (default; an *addition*, not in the document: Table 2 alone
        cannot converge as the TCP-Ho paper reports, see the module docstring), five rules on
        top of Tables 1–2: (1) throughputs closer than half a packet per round are a tie;
        (2) a fall (statuses 2, 4) counts only if the RTTs rose too (a fall that the
        flow's own decrease explains is a tie), and a fall of one end of the interval
        with a rise of the maximal RTT is a status 4; a rise (statuses 1, 3) with the
        window not grown since round n − 2 and the minimal RTT fallen by more than one
        packet's delay is a tie (the queue draining: no room until it is empty, rule
        5); (3) at a counted fall the window drops at least to ``CMiT × r``, ``r``
        the minimal RTT of the last calm comparison (the window that sends the measured
        throughput with the RTT the flow had before the fall), in place of the pair's
        decrease (a further fall while an earlier cut drains makes no cut: the round's
        RTTs still carry the old window's queue, so its throughput understates the new
        rate; the trim of rule 4 sizes the window once the drain is over); (4) after a
        decrease a rise is a tie until the drain is over (the minimal RTT moved by less
        than half a packet's delay since the previous round),
        then one more cut to ``CMaT × r`` if the window is still above it, and until a
        comparison finds the minimal RTT no lower than the previous comparison's, a
        further fall with the window not grown is still the drain (its tail: the RTTs
        move in steps of one packet's service time). The drain is
        judged round to round, not against round n − 2: after a bandwidth change the
        flow's share of a FIFO shared with other traffic settles over several rounds,
        and the round spanning the change may still show the old RTTs (a trim sized
        from a draining round undershoots the new pipe); (5) a tie with less than one
        packet of backlog (eq. 1 of the Quick Vegas paper with the round's maximal RTT)
        is a status 3: an empty path is room. Table 4 and the conspicuous rounds are
        unchanged. docs/algorithms.md has the measured numbers.
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

    def on_round(
        self, state: State, sample: RoundSample, out: RoundAction | None = None
    ) -> RoundAction:
        """Compare round k with round k − 2 at odd k; apply the chosen amount twice
        (:func:`_tcp_ho_rule`, compiled), written into ``out`` if given."""
        return self._run_round(state, sample, out)

    def _round_rule(self, state: State, sample: RoundSample) -> tuple[Any, int, tuple[Any, ...]]:
        """:func:`_tcp_ho_rule` on the law's state (``phase``, then :data:`_STATE_DEFAULTS`'
        keys in order), the sample and the decrease rule."""
        cwnd = np.asarray(sample.cwnd, dtype=np.float64)
        return (
            _TCP_HO,
            cwnd.shape[0],
            (
                state["phase"],
                *(state[key] for key in _STATE_DEFAULTS),
                cwnd,
                np.asarray(sample.base_rtt, dtype=np.float64),
                np.asarray(sample.rtt_min, dtype=np.float64),
                np.asarray(sample.rtt_max, dtype=np.float64),
                self._decrease == "throughput",
            ),
        )

    def on_loss(
        self,
        state: State,
        index: FlowIndex,
        kind: int,
        cwnd: FloatArray,
        out: FloatArray | None = None,
    ) -> FloatArray:
        """Vegas's loss reactions, then the quick-shift state back to its defaults
        (:func:`_ho_loss`, compiled; written into ``out`` if given)."""
        return self._run_loss(state, index, kind, cwnd, out)

    def _loss_rule(
        self, state: State, kind: int
    ) -> tuple[Any, tuple[FloatArray, ...], tuple[Any, ...]]:
        """:func:`_ho_loss` on the law's state."""
        return _HO_LOSS, (*[state[key] for key in _STATE_KEYS], state["phase"]), ()


def _tcp_ho_rule(
    phase: Any,
    k: Any,
    incr: Any,
    maxincr: Any,
    status: Any,
    amount: Any,
    mat1: Any,
    mit1: Any,
    mat2: Any,
    mit2: Any,
    rmin1: Any,
    rmax1: Any,
    rmin2: Any,
    rmax2: Any,
    rsteady: Any,
    quiet: Any,
    tail: Any,
    rtail: Any,
    cwnd: Any,
    base_rtt: Any,
    rtt_min: Any,
    rtt_max: Any,
    throughput: bool,
    new: Any,
    incr_out: Any,
    cap: Any,
) -> None:
    """TCP-Ho's decision for each flow ``i`` (the TCP-Ho paper §3.2, Tables 1–2, with the
    readings of the module docstring): every other call compares the throughput interval
    [CMiT, CMaT] = [cwnd/RTTmax, cwnd/RTTmin] of this round with that of round k − 2 and
    picks the status and amount of Table 2; the amount acts in this round and the next
    (an increase spread over the ACKs, a decrease at the boundary).

    ``throughput``: the addition ``decrease="throughput"`` (the class docstring; statuses
    with a resolution of half a packet per round and the drain rules, and the cut to
    CMiT × r at a counted fall); else Table 2 read literally. The state arrays are those of
    :data:`_STATE_DEFAULTS` in its order (a restart sets them back: :func:`_ho_restart`).
    Writes the action into ``new``, ``incr_out``, ``cap`` and the state in place. Compiled
    once (:mod:`tcpfluid.algorithms._jit`). ``numpy.maximum(x, y)`` is written
    ``x if (x > y or x != x) else y`` (``minimum`` with ``<``): NaN if either is NaN, and
    ``y`` when they are equal, as NumPy gives for zeros of both signs (a decrease of
    ``-0.0`` packets leaves an increment of ``0.0``, not ``-0.0``).
    """
    res_pkts = _RESOLUTION_PKTS
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        rmin = rtt_min[i]
        rmax = rtt_max[i]
        cmat = w / rmin
        cmit = w / rmax
        pmat = mat2[i]  # round k − 2 (before the history shifts below)
        pmit = mit2[i]
        adjust = (k[i] % 2.0) == 1.0

        # ---- statuses 1-4 of Table 2 (status 5: none of them)
        if throughput:
            # resolution: throughputs closer than half a packet per round are a tie
            res = res_pkts / rmin
            c1 = (cmit - pmat) > res
            # a fall only counts if the RTTs rose too: a fall that the flow's own
            # decrease explains (cwnd down, RTTs unchanged) is not congestion
            c2 = (not c1) and ((pmit - cmat) > res) and (rmin > rmax2[i])
            # a rise that the queue draining explains is no room: the minimal RTT fell by
            # more than one packet's delay since round k − 2 while the window did not grow
            w_prior = pmat * rmin2[i]
            not_grown = w <= w_prior + res_pkts
            drain = (rmin < rmin2[i] - rmin / w) and not_grown
            # the tail of a drain just judged over: a further fall of the minimal RTT is
            # still that queue draining, not room
            drain = drain or ((tail[i] > 0.0) and (rmin < rmin2[i]) and not_grown)
            c3 = (
                (not c1)
                and (not c2)
                and ((cmit - pmit) > res)
                and ((cmat - pmat) > res)
                and (not drain)
            )
            c1 = c1 and not drain
            # a fall of one end of the interval that a rise of the maximal RTT explains is
            # a status-4 move
            slower = (
                (not ((cmit - pmit) > res))
                and (not ((cmat - pmat) > res))
                and (((pmit - cmit) > res) or ((pmat - cmat) > res))
            )
            c4 = (not c1) and (not c2) and (not c3) and slower and (rmax > rmax2[i])
            # a tie with no queue on the path (less than one packet of backlog in the
            # round's largest RTT, eq. 1 of the Quick Vegas paper) is room: status 3
            empty = w * (1.0 - base_rtt[i] / rmax) < 1.0
            c3 = c3 or ((not c1) and (not c2) and (not c3) and (not c4) and empty)
            # while a decrease drains, a rise is the flow's own queue draining: a tie
            recent = quiet[i] > 0.0
            c1 = c1 and not recent
            c3 = c3 and not recent
        else:  # Table 2 read literally
            c1 = pmat < cmit
            c2 = (not c1) and (cmat < pmit)
            c3 = (not c1) and (not c2) and (pmit < cmit) and (pmat < cmat)
            c4 = (not c1) and (not c2) and (not c3) and (cmit < pmit) and (cmat < pmat)
        c5 = not (c1 or c2 or c3 or c4)

        # ---- Table 2: incr, maxincr, status and amount of a flow that compares this round
        s = status[i]
        inc = incr[i]
        mx = maxincr[i]
        up13 = s == 1.0 or s == 3.0
        dn24 = s == 2.0 or s == 4.0
        incr1 = inc + 1.0 if up13 else 1.0
        h = 0.5 * inc
        incr3 = (h if (h > 1.0 or h != h) else 1.0) if up13 else 1.0  # numpy.maximum
        new_incr = incr1 if c1 else (incr3 if c3 else 0.0)
        if c1:
            new_max = (mx if (mx > incr1 or mx != mx) else incr1) if up13 else 1.0
        elif c2 and dn24:
            d = mx - 1.0
            new_max = d if (d > 1.0 or d != d) else 1.0
        elif c4 and dn24:
            d = 0.5 * mx
            new_max = d if (d > 1.0 or d != d) else 1.0
        elif c5:
            new_max = 0.0
        else:
            new_max = mx
        if c1:
            new_status = 1.0
        elif c2:
            new_status = 2.0
        elif c3:
            new_status = 3.0
        elif c4:
            new_status = 4.0
        else:
            new_status = 5.0
        if c1 or c3:
            chosen = new_incr
        elif c2 or c4:
            chosen = -new_max
        else:
            chosen = 0.0
        amt = chosen if adjust else amount[i]
        if adjust:
            incr[i] = new_incr
            maxincr[i] = new_max
            status[i] = new_status
            if not c1:
                phase[i] = CONGESTION_AVOIDANCE
        amount[i] = amt

        # ---- the history shifts: round k becomes "k − 1", k − 1 becomes "k − 2"
        mat2[i] = mat1[i]
        mit2[i] = mit1[i]
        mat1[i] = cmat
        mit1[i] = cmit
        rmin2[i] = rmin1[i]
        rmax2[i] = rmax1[i]
        rmin1[i] = rmin
        rmax1[i] = rmax
        k[i] += 1.0

        # ---- restart at the floor: a status-5 comparison with the window at 2 packets
        if adjust and c5 and w <= MIN_WINDOW:
            _ho_restart(
                k,
                incr,
                maxincr,
                status,
                amount,
                mat1,
                mit1,
                mat2,
                mit2,
                rmin1,
                rmax1,
                rmin2,
                rmax2,
                rsteady,
                quiet,
                tail,
                rtail,
                i,
            )
            phase[i] = SLOW_START
            amt = 0.0

        up = amt if (amt > 0.0 or amt != amt) else 0.0  # numpy.maximum
        down = amt if (amt < 0.0 or amt != amt) else 0.0  # numpy.minimum

        # ---- decrease="throughput": the cut at a counted fall (status 2 or 4) to CMiT × r,
        # r the minimal RTT of the last calm comparison; none while an earlier cut drains
        if throughput:
            fall = c2 or c4
            q = quiet[i]
            hold = adjust and fall and (q > 0.0)
            fell = adjust and fall and (rsteady[i] > 0.0) and not hold
            target = cmit * rsteady[i]
            cut = fell and (target - w < down)
            if cut:
                down = target - w
            elif hold:
                down = 0.0
            # the cut replaces the pair's decrease: the next round does not repeat it
            if cut or hold:
                amount[i] = 0.0
            # the minimal RTT of the last comparison that found no fall, away from a cut
            if adjust and (not fall) and (q <= 0.0):
                rsteady[i] = rmin
            # quiet from a decrease until the drain is over: the minimal RTT moved by less
            # than half a packet's delay since the previous round ("rmin2" after the
            # shift); then one more look: cut again to CMaT × r if the window is still
            # above it (once per fall)
            dec = adjust and fall
            steady = abs(rmin - rmin2[i]) <= res_pkts * rmin / w
            settled = adjust and (not dec) and (q > 0.0) and steady
            # the drain's tail: from the comparison that ends the quiet until one whose
            # minimal RTT is no lower than the previous comparison's ("rtail")
            if (adjust and (q <= 0.0) and (rmin >= rtail[i])) or dec:
                tail[i] = 0.0
            if settled:
                tail[i] = 1.0
            if adjust:
                rtail[i] = rmin
            target2 = cmat * rsteady[i]
            again = settled and (q == 1.0) and (target2 < w - res_pkts)
            t2 = target2 - w if again else 0.0
            down = down if (down < t2 or down != down) else t2  # numpy.minimum
            if dec:
                quiet[i] = 1.0
            elif again:
                quiet[i] = 2.0
            elif settled:
                quiet[i] = 0.0

        x = w + down
        x = x if (x > MIN_WINDOW or x != x) else MIN_WINDOW  # numpy.maximum
        new[i] = x
        incr_out[i] = up / w
        cap[i] = x + up


_TCP_HO = Kernel(_tcp_ho_rule, "w" * 18 + "rrrr" + "b" + "www", uses=(_ho_restart,))


def _ho_loss(
    k: Any,
    incr: Any,
    maxincr: Any,
    status: Any,
    amount: Any,
    mat1: Any,
    mit1: Any,
    mat2: Any,
    mit2: Any,
    rmin1: Any,
    rmax1: Any,
    rmin2: Any,
    rmax2: Any,
    rsteady: Any,
    quiet: Any,
    tail: Any,
    rtail: Any,
    phase: Any,
    index: Any,
    kind: int,
    cwnd: Any,
    new: Any,
) -> None:
    """TCP-Ho's loss reactions (§3.2: "the fast retransmit and fast recovery of TCP-Ho are
    same as those of TCP Vegas ... we reset all parameters used in the QS phase to their
    default values") for flows ``index[j]`` whose windows are ``cwnd[j]``: the quick-shift
    state back to the start of a connection, then ``LOSS_TIMEOUT`` 2 packets and slow
    start, else 3/4 (``LOSS_FAST``) or 1/2 of the window, at least 2 packets, congestion
    avoidance. ``kind`` is a checked base kind (:func:`~._common.loss_args`). Writes the
    new windows into ``new``. Compiled once."""
    n = phase.shape[0]
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        _ho_restart(
            k,
            incr,
            maxincr,
            status,
            amount,
            mat1,
            mit1,
            mat2,
            mit2,
            rmin1,
            rmax1,
            rmin2,
            rmax2,
            rsteady,
            quiet,
            tail,
            rtail,
            i,
        )
        if kind == LOSS_TIMEOUT:
            phase[i] = SLOW_START
            new[j] = MIN_WINDOW
        else:
            x = cwnd[j] * (0.75 if kind == LOSS_FAST else 0.5)
            phase[i] = CONGESTION_AVOIDANCE
            new[j] = x if (x >= MIN_WINDOW or x != x) else MIN_WINDOW  # numpy.maximum


_HO_LOSS = Kernel(_ho_loss, "w" * 18 + "Iirw", uses=(check_index, _ho_restart))
