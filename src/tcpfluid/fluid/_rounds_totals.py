"""What a round loses and what the bottleneck delivers: the round engine's losses and totals.

:func:`round_losses` shares a round's overflow among the flows in flight (the drop-share
rules) and adds RED's whole packets (the round's drop probability, :mod:`._rounds_kernel`);
:func:`integrate`, :func:`account` and :func:`account_one` add the bottleneck's output
between events (the delivered packets of :mod:`tcpfluid.fluid._rounds_engine`'s module
docstring). Each takes
the :class:`~tcpfluid.fluid._rounds_engine.RoundEngine` whose state it reads and updates.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ._rounds_kernel import RED_P, totals
from ._rounds_law import growth_shares
from ._rounds_physics import (
    _standing_rev,
    across_flows,
    any_of,
    backlog_of,
    by_scenario,
    per_scenario,
)

if TYPE_CHECKING:
    from ._rounds_engine import RoundEngine

FloatArray = NDArray[np.float64]


def round_losses(
    eng: RoundEngine, c: int, lost_s: FloatArray | None, w1: FloatArray, z: FloatArray,
    w1_s: FloatArray, others: Any, t0: FloatArray, q_mean: FloatArray, mu_a: FloatArray,
) -> FloatArray | None:  # fmt: skip
    """Per-flow losses of the round (full length, zero outside the class): its share of
    the overflow ``lost_s`` at the round's peak and of the overflows at the other
    classes' rounds since its last round (drop-share rule), and RED's whole packets.

    The overflow falls on every flow in flight in proportion to its window (the
    class's windows ``w1_s`` per scenario and ``others``, the other classes' windows in
    flight, :meth:`~._rounds_kernel.ClassKernel.others`); the other classes' flows take
    theirs at the end of their own next round and until then it is not in flight."""
    ix, S = eng.sel[c], eng.S
    if lost_s is not None and (eng.share is not None or any_of(lost_s)):
        if eng.K == 1:
            w = w1
        else:
            w = np.where(eng.active, eng.w_cur - eng.pending, 0.0)
            np.maximum(w, 0.0, out=w)
            w[ix] = w1
        if eng.growth is not None:
            g = z if eng.K == 1 else np.where(eng.active, eng.growth, 0.0)
            eng.pending += growth_shares(lost_s, g, w)
            eng.charged = True
        else:
            total = w1_s
            if others is not None:  # (the other classes' windows in flight)
                total = w1_s + sum(w for w in others[0].tolist()[1:] if w > 0.0)
            # (each scenario's total and overflow over its flows, broadcast)
            F = eng.F
            tot = across_flows(np.asarray(total), F)
            grid = np.divide(
                by_scenario(w, S, F), tot, out=by_scenario(np.zeros(eng.n), S, F), where=tot > 0
            )
            grid *= across_flows(lost_s, F)
            mine = grid.reshape(-1)
            if eng.share is not None:
                F = eng.F
                for s in range(S):
                    part = slice(s * F, (s + 1) * F)
                    mine[part] = eng.share(mine[part], w[part], s)
            if eng.K == 1 and eng.red is None:
                # one class: every flow takes its share now (nothing is pending)
                return mine
            eng.pending += mine
            eng.charged = True
    lost: FloatArray | None = None
    if eng.charged and any_of(eng.pending[ix] > 0.0):
        lost = np.zeros(eng.n)
        lost[ix] = eng.pending[ix]
        eng.pending[ix] = 0.0
        eng.charged = any_of(eng.pending)
    if eng.red_state is not None:
        p = float(eng.red_state[RED_P])  # (the round's, :mod:`._rounds_kernel`)
        if p > 0.0:
            debt = eng.red_debt[ix]  # (a view when the class's flows are a slice)
            debt += p * w1
            whole = np.floor(debt)
            debt -= whole
            if not isinstance(ix, slice):
                eng.red_debt[ix] = debt
            if any_of(whole):  # (no whole packet dropped: no loss, as without RED)
                if lost is None:
                    lost = np.zeros(eng.n)
                lost[ix] += whole
    return lost


def integrate(eng: RoundEngine, t: float, g: FloatArray | None = None, q_mu: float = 0.0) -> None:
    """Add the flows' and the cross traffic's output since the last event up to ``t``
    (several classes, one scenario; nothing after the run's end); then, given ``g``, the
    rates from now on of the packets ``g`` in flight: ``g / (d + q_mu)`` (``q_mu``: the
    standing backlog's delay)."""
    t_end = eng.run.t_end
    dt = min(t, t_end) - min(eng.t_ev, t_end)
    eng.t_ev = t
    assert eng.d_flow is not None
    totals(
        eng.delivered, eng.rate, eng.elapsed, eng.cross_carried,
        eng.rate_cross if eng.cross else eng.none_s, dt, eng.rate if g is None else g,
        eng.d_flow, q_mu, g is not None,
    )  # fmt: skip


def account(
    eng: RoundEngine, c: int, t0: FloatArray, got: FloatArray, mu_a: FloatArray, q: float | None
) -> None:
    """A new event at ``t0`` (several classes): integrate up to it, then the rates from
    now on (class ``c``'s flows send ``got`` packets not lost; module docstring). ``q``:
    the standing backlog of the windows in flight when the round computed it (nothing
    lost, nothing pending: they are the windows of the rounds in progress)."""
    g = eng.inflight
    if q is None:
        np.subtract(eng.w_cur, eng.pending, out=g)
        np.maximum(g, 0.0, out=g)
        g[~eng.active] = 0.0
        g[eng.sel[c]] = got
        q = backlog_of(eng._class_sums(g), float(mu_a[0]) * eng.d_class)
    else:
        g = eng.w_cur
    integrate(eng, float(t0[0]), g, q / float(mu_a[0]))
    if eng.cross:
        eng.rate_cross = eng.mu - mu_a


def account_one(
    eng: RoundEngine, t0: FloatArray, t1: FloatArray, duration: FloatArray, got: FloatArray,
    whole: bool, mu_a: FloatArray, mud: FloatArray, inv_mu: FloatArray, mu_r: Any,
) -> None:  # fmt: skip
    """:func:`account` for one class: the next event is the end of this round, ``t1``,
    so the round's part before the run's end is added at once (``got`` at the rate its
    standing backlog allows). ``whole``: no packet of the round was lost, so (without
    an ACK-path bottleneck) that backlog is the round's and its RTT the duration."""
    S, F, d = eng.S, eng.F, eng.d[0]
    t_end = eng.run.t_end
    dt = duration if t_end == math.inf else np.minimum(t1, t_end) - np.minimum(t0, t_end)
    if eng.cross:
        eng.cross_carried += (eng.mu - mu_a) * dt
    eng.elapsed += dt
    if whole and not eng.reverse:
        if t_end == math.inf:
            eng.delivered += got
        else:  # (a view: each scenario's part of the round over its flows)
            delivered = by_scenario(eng.delivered, S, F)
            delivered += by_scenario(got, S, F) * across_flows(dt / duration, F)
        return
    g_s = per_scenario(got, S, F)
    if eng.reverse:
        qr, qf = _standing_rev(g_s, mu_a, mu_r, eng.b_r, d)
        with np.errstate(invalid="ignore"):
            rtt = d + np.where(np.isfinite(mu_r), qr / mu_r, 0.0) + qf / mu_a
    else:  # (in place: one buffer per scenario)
        rtt = np.subtract(g_s, mud, out=eng.buf_s)
        np.maximum(rtt, 0.0, out=rtt)
        rtt *= inv_mu
        rtt += d
    share = np.divide(dt, rtt, out=eng.buf_s)
    delivered = by_scenario(eng.delivered, S, F)  # (a view: each scenario's share over its flows)
    delivered += by_scenario(got, S, F) * across_flows(share, F)
