"""TCP-Ho's compiled decisions (:class:`tcpfluid.algorithms.tcp_ho.TcpHo`; the rules:
docs/algorithms.md, "tcp-ho"): the quick-shift status machine and its loss reset."""

from __future__ import annotations

from typing import Any

from ._common import MIN_WINDOW, check_index, fmax
from ._jit import Kernel
from .base import CONGESTION_AVOIDANCE, LOSS_FAST, LOSS_TIMEOUT, SLOW_START

#: decrease="throughput": throughputs closer than this many packets per round are a tie
_RESOLUTION_PKTS = 0.5

#: the quick-shift state and its values at the start of a connection: ``status`` 1, all else 0
_STATE_DEFAULTS = {
    k: float(k == "status")
    for k in "k incr maxincr status amount mat1 mit1 mat2 mit2 rmin1 rmax1 rmin2 rmax2 rsteady "
    "quiet tail rtail".split()
}
_STATE_KEYS = tuple(_STATE_DEFAULTS)
#: the position of ``status``, the one that restarts at 1, among them
_STATUS = _STATE_KEYS.index("status")


def _ho_restart(qs: Any, i: Any) -> None:
    """Quick-shift state ``qs`` (the arrays of :data:`_STATE_DEFAULTS`, in its order) of
    flow ``i`` back to the start of a connection (§3.2): ``status = 1``, everything else 0."""
    for a in qs:
        a[i] = 0.0
    qs[_STATUS][i] = 1.0


def _ho_statuses(throughput: bool, w: Any, rmin: Any, rmax: Any, cmat: Any, cmit: Any,
    pmat: Any, pmit: Any, rmin_prior: Any, rmax_prior: Any, in_tail: bool, recent: bool,
    base_rtt: Any) -> tuple[bool, bool, bool, bool]:  # fmt: skip
    """Statuses 1-4 of Table 2 (none: status 5) from this round's [CMiT, CMaT] and round
    k − 2's [PMiT, PMaT]: read literally, or with ``throughput`` the addition's resolution
    and drain rules (``in_tail``: a drain's tail; ``recent``: a decrease draining)."""
    if not throughput:  # Table 2 read literally
        c1 = pmat < cmit
        c2 = (not c1) and (cmat < pmit)
        c3 = (not c1) and (not c2) and (pmit < cmit) and (pmat < cmat)
        c4 = (not c1) and (not c2) and (not c3) and (cmit < pmit) and (cmat < pmat)
        return c1, c2, c3, c4
    # resolution: throughputs closer than half a packet per round are a tie
    res = _RESOLUTION_PKTS / rmin
    c1 = (cmit - pmat) > res
    # a fall only counts if the RTTs rose too: a fall that the flow's own decrease explains
    # (cwnd down, RTTs unchanged) is not congestion
    c2 = (not c1) and ((pmit - cmat) > res) and (rmin > rmax_prior)
    # a rise that the queue draining explains is no room: the minimal RTT fell by more than
    # one packet's delay since round k − 2 while the window did not grow
    w_prior = pmat * rmin_prior
    not_grown = w <= w_prior + _RESOLUTION_PKTS
    drain = (rmin < rmin_prior - rmin / w) and not_grown
    # the tail of a drain just judged over: a further fall of the minimal RTT is still that
    # queue draining, not room
    drain = drain or (in_tail and (rmin < rmin_prior) and not_grown)
    c3 = (not c1) and (not c2) and ((cmit - pmit) > res) and ((cmat - pmat) > res) and (not drain)
    c1 = c1 and not drain
    # a fall of one end of the interval that a rise of the maximal RTT explains is a
    # status-4 move
    slower = (
        (not ((cmit - pmit) > res))
        and (not ((cmat - pmat) > res))
        and (((pmit - cmit) > res) or ((pmat - cmat) > res))
    )
    c4 = (not c1) and (not c2) and (not c3) and slower and (rmax > rmax_prior)
    # a tie with no queue on the path (less than one packet of backlog in the round's
    # largest RTT, eq. 1 of the Quick Vegas paper) is room: status 3
    empty = w * (1.0 - base_rtt / rmax) < 1.0
    c3 = c3 or ((not c1) and (not c2) and (not c3) and (not c4) and empty)
    # while a decrease drains, a rise is the flow's own queue draining: a tie
    return c1 and not recent, c2, c3 and not recent, c4


def _ho_table2(
    c1: bool, c2: bool, c3: bool, c4: bool, s: Any, inc: Any, mx: Any
) -> tuple[Any, Any, float, Any]:
    """Table 2: the new ``incr``, ``maxincr``, status and signed amount from statuses
    ``c1``..``c4`` and the previous status ``s``, ``incr`` and ``maxincr``."""
    c5 = not (c1 or c2 or c3 or c4)
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
    new_status = 1.0 if c1 else (2.0 if c2 else (3.0 if c3 else (4.0 if c4 else 5.0)))
    chosen = new_incr if (c1 or c3) else (-new_max if (c2 or c4) else 0.0)
    return new_incr, new_max, new_status, chosen


def _tcp_ho_rule(phase: Any, k: Any, incr: Any, maxincr: Any, status: Any, amount: Any,
    mat1: Any, mit1: Any, mat2: Any, mit2: Any, rmin1: Any, rmax1: Any, rmin2: Any,
    rmax2: Any, rsteady: Any, quiet: Any, tail: Any, rtail: Any, cwnd: Any, base_rtt: Any,
    rtt_min: Any, rtt_max: Any, throughput: bool, new: Any, incr_out: Any,
    cap: Any) -> None:  # fmt: skip
    """TCP-Ho's decision for each flow ``i``: every other call compares this round's
    throughput interval [cwnd/RTTmax, cwnd/RTTmin] with round k − 2's and picks Table 2's
    status and amount, which act in this round and the next; ``throughput``: the addition
    ``decrease="throughput"``. The state arrays are :data:`_STATE_DEFAULTS`'s, in order.
    Writes the action into ``new``, ``incr_out``, ``cap`` and the state in place. Where zeros
    of both signs can meet, ``numpy.maximum(x, y)`` is written ``x if (x > y or x != x) else
    y`` (``minimum`` with ``<``), which gives ``y`` for equal values as NumPy does."""
    qs = (k, incr, maxincr, status, amount, mat1, mit1, mat2, mit2, rmin1, rmax1, rmin2, rmax2,
          rsteady, quiet, tail, rtail)  # fmt: skip
    for i in range(cwnd.shape[0]):
        w = cwnd[i]
        rmin = rtt_min[i]
        rmax = rtt_max[i]
        cmat = w / rmin
        cmit = w / rmax
        pmat = mat2[i]  # round k − 2 (before the history shifts below)
        pmit = mit2[i]
        adjust = (k[i] % 2.0) == 1.0
        c1, c2, c3, c4 = _ho_statuses(
            throughput, w, rmin, rmax, cmat, cmit, pmat, pmit, rmin2[i], rmax2[i],
            tail[i] > 0.0, quiet[i] > 0.0, base_rtt[i],
        )  # fmt: skip
        c5 = not (c1 or c2 or c3 or c4)
        new_incr, new_max, new_status, chosen = _ho_table2(
            c1, c2, c3, c4, status[i], incr[i], maxincr[i]
        )
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
            _ho_restart(qs, i)
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
            steady = abs(rmin - rmin2[i]) <= _RESOLUTION_PKTS * rmin / w
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
            again = settled and (q == 1.0) and (target2 < w - _RESOLUTION_PKTS)
            t2 = target2 - w if again else 0.0
            down = down if (down < t2 or down != down) else t2  # numpy.minimum
            if dec:
                quiet[i] = 1.0
            elif again:
                quiet[i] = 2.0
            elif settled:
                quiet[i] = 0.0

        x = fmax(w + down, MIN_WINDOW)
        new[i] = x
        incr_out[i] = up / w
        cap[i] = x + up


_TCP_HO = Kernel(
    _tcp_ho_rule,
    "w" * 18 + "rrrr" + "b" + "www",
    uses=(_ho_restart, fmax, _ho_statuses, _ho_table2),
)


def _ho_loss(k: Any, incr: Any, maxincr: Any, status: Any, amount: Any, mat1: Any, mit1: Any,
    mat2: Any, mit2: Any, rmin1: Any, rmax1: Any, rmin2: Any, rmax2: Any, rsteady: Any,
    quiet: Any, tail: Any, rtail: Any, phase: Any, index: Any, kind: int, cwnd: Any,
    new: Any) -> None:  # fmt: skip
    """TCP-Ho's loss reactions (§3.2: Vegas's, and "we reset all parameters used in the QS
    phase to their default values"): the quick-shift state restarted, then a timeout 2
    packets and slow start, else 3/4 (``LOSS_FAST``) or 1/2 of the window."""
    n = phase.shape[0]
    qs = (k, incr, maxincr, status, amount, mat1, mit1, mat2, mit2, rmin1, rmax1, rmin2, rmax2,
          rsteady, quiet, tail, rtail)  # fmt: skip
    for j in range(index.shape[0]):
        i = check_index(index[j], n)
        _ho_restart(qs, i)
        if kind == LOSS_TIMEOUT:
            phase[i] = SLOW_START
            new[j] = MIN_WINDOW
        else:
            phase[i] = CONGESTION_AVOIDANCE
            new[j] = fmax(cwnd[j] * (0.75 if kind == LOSS_FAST else 0.5), MIN_WINDOW)


_HO_LOSS = Kernel(_ho_loss, "w" * 18 + "Iirw", uses=(check_index, _ho_restart, fmax))
