"""The classical model's right-hand side (:mod:`tcpfluid.fluid.ode`): state layout, the
algebraic quantities and the laws' own rate forms (:class:`~tcpfluid.algorithms.base.OdeForm`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..algorithms._common import backlog
from ..algorithms.base import OdeForm
from ._ode_types import OdeFlow, RedQueue, _form, _unit

FloatArray = NDArray[np.float64]

_METHODS = ("LSODA", "BDF", "Radau", "RK45", "RK23", "DOP853")
_MIN_WINDOW_PKTS = 1.0
#: width of the Lipschitz ramps at the window floor and cap, packets
_SOFT_WINDOW_PKTS = 0.25
#: queue below which the link serves less than C (an empty-queue boundary layer), packets
_SOFT_QUEUE_PKTS = 0.05


class _BudgetExceeded(Exception):
    pass


class _Model:
    """Vectorised right-hand side; column-wise over states for solve_ivp's ``vectorized``."""

    def __init__(
        self,
        flows: Sequence[OdeFlow],
        capacity_pps: float,
        buffer_pkts: float,
        reverse_pps: float,
        red: RedQueue | None,
        switch_width_pkts: float,
        droptail_width_pkts: float,
        max_rhs_evals: int,
    ) -> None:
        n = len(flows)
        self.n = n
        col = lambda v: np.asarray(v, dtype=np.float64).reshape(n, 1)  # noqa: E731
        self.d = col([f.rtt_s for f in flows])
        self.alpha = col([f.alpha_pkts for f in flows])
        self.beta = col([f.beta_pkts for f in flows])
        self.gamma = col([f.fast_gamma for f in flows])
        self.wmax = col([f.max_window_pkts for f in flows])
        self.err = col([f.base_rtt_error_s for f in flows])
        forms = [_form(f.law) for f in flows]
        fwd = [fm.forward_delay for fm in forms]
        self.forward = np.array(fwd).reshape(n, 1) if any(fwd) else None
        self.cut = col([fm.loss_cut for fm in forms])
        # the laws' own rate forms, each with the mask of its flows (only the forms present
        # are evaluated: a sweep calls the right-hand side millions of times)
        self.forms: list[tuple[OdeForm, NDArray[np.bool_]]] = []
        for fm in dict.fromkeys(forms):
            mask = np.array([g is fm for g in forms]).reshape(n, 1)
            self.forms.append((fm, mask))
        self.C = capacity_pps
        self.B = buffer_pkts
        self.Cr = reverse_pps
        self.red = red
        self.eps = switch_width_pkts
        self.eps_b = droptail_width_pkts
        self.red_rate = 0.0 if red is None else capacity_pps * math.log1p(-red.weight)
        self.active = np.ones((n, 1), dtype=bool)
        self.cross_pps = 0.0
        self.budget = max_rhs_evals
        self.nfev = 0
        # state layout
        self.i_w = slice(0, n)
        self.i_x = slice(n, 2 * n)
        self.i_D = slice(2 * n, 3 * n)
        self.i_L = slice(3 * n, 4 * n)
        self.i_q = 4 * n
        self.i_qa = 4 * n + 1
        self.i_qr = 4 * n + 2
        self.i_Q = 4 * n + 3
        self.i_X = 4 * n + 4  # cross traffic carried
        self.i_I = 4 * n + 5  # the link's unused service, packets (carried = C·t - I)
        self.size = 4 * n + 6

    def sparsity(self) -> Any:
        """Jacobian sparsity pattern (for BDF/Radau's finite differences and sparse LU)."""
        from scipy.sparse import lil_matrix

        n = self.n
        S = lil_matrix((self.size, self.size), dtype=np.int8)
        shared = [self.i_q, self.i_qa, self.i_qr]
        w_cols = list(range(self.i_w.start, self.i_w.stop))
        for j in range(n):
            w, x, D, L = (
                self.i_w.start + j,
                self.i_x.start + j,
                self.i_D.start + j,
                self.i_L.start + j,
            )
            for c in (w, x, *shared):
                S[w, c] = 1  # own window: own Δ, RTT, loss
            for c in (w, x, *shared):
                S[x, c] = 1  # BaseRTT tracking: queueing delay
            for c in (*w_cols, *shared):
                S[D, c] = 1  # delivery share depends on every rate
            for c in (w, *shared):
                S[L, c] = 1
        for r in (self.i_q, self.i_qr, self.i_X, self.i_I):
            for c in (*w_cols, *shared):
                S[r, c] = 1
        S[self.i_qa, self.i_qa] = 1
        S[self.i_qa, self.i_q] = 1
        S[self.i_Q, self.i_q] = 1
        return S.tocsc()

    # -- algebraic quantities --------------------------------------------------
    def algebra(self, y: FloatArray) -> dict[str, FloatArray]:
        n = self.n
        w = np.minimum(y[self.i_w], self.wmax)  # the cap binds exactly, whatever the step
        x = y[self.i_x]
        q = np.minimum(np.maximum(y[self.i_q], 0.0), self.B)
        qa = y[self.i_qa]
        qr = np.maximum(y[self.i_qr], 0.0) if math.isfinite(self.Cr) else np.zeros_like(q)
        qdelay = q / self.C + (qr / self.Cr if math.isfinite(self.Cr) else 0.0)
        rtt = self.d + qdelay  # (n, k)
        act = self.active
        rate = np.where(act, w / rtt, 0.0)
        base = self.d + x
        delta = backlog(w, base, rtt)
        if self.forward is not None:  # forward-path Vegas: Δ_f from the forward queue only
            qf = q / self.C
            delta = np.where(self.forward, w * qf / rtt, delta)
        total = rate.sum(axis=0) + self.cross_pps
        if math.isfinite(self.B):
            p = _unit((q - (self.B - self.eps_b)) / self.eps_b)
        else:
            p = np.zeros_like(q)
        if self.red is not None:
            p = 1.0 - (1.0 - p) * (1.0 - self.red.probability(qa))
        del n
        return {
            "w": w, "x": x, "q": q, "qa": qa, "qr": qr, "qdelay": qdelay, "rtt": rtt,
            "rate": rate, "delta": delta, "total": total, "p": p,
        }  # fmt: skip

    def __call__(self, t: float, y: FloatArray) -> FloatArray:
        y2 = y.reshape(self.size, -1)
        self.nfev += y2.shape[1]
        if self.nfev > self.budget:
            raise _BudgetExceeded
        a = self.algebra(y2)
        w, rtt, rate, delta, p, q = a["w"], a["rtt"], a["rate"], a["delta"], a["p"], a["q"]
        loss_rate = p * rate  # loss events per second per flow
        # Vegas / Enhanced Vegas: +1, 0, -1 per RTT, ramped over eps packets
        eps = self.eps
        s = _unit((self.alpha - delta) / eps) - _unit((delta - self.beta) / eps)
        fm, mask = self.forms[0]
        dw = fm.rate(s, delta, w, rtt, self.alpha, self.gamma)
        for fm, mask in self.forms[1:]:
            dw = np.where(mask, fm.rate(s, delta, w, rtt, self.alpha, self.gamma), dw)
        dw = dw - self.cut * w * loss_rate
        # floor and cap as Lipschitz ramps (an implicit solver's Newton iteration is fooled
        # by jumps in the right-hand side: see docs/ode-model.md)
        floor = _unit((w - _MIN_WINDOW_PKTS) / _SOFT_WINDOW_PKTS)
        cap = _unit((self.wmax + _SOFT_WINDOW_PKTS - y2[self.i_w]) / _SOFT_WINDOW_PKTS)
        dw = np.where(dw < 0.0, dw * floor, dw * cap)
        dw = np.where(self.active, dw, 0.0)
        # queue: the link serves min(C, inflow + C q / q_soft): C whenever a queue exists,
        # the arrivals when it is empty; continuous, and q stays >= 0 without clipping
        inflow = (1.0 - p) * a["total"]
        served = np.minimum(self.C, inflow + self.C * q / _SOFT_QUEUE_PKTS)
        dq = inflow - served
        share = np.where(inflow > 0.0, served / np.where(inflow > 0.0, inflow, 1.0), 0.0)
        delivered = (1.0 - p) * rate * share
        # ACK path: the same server law for the ACK queue
        if math.isfinite(self.Cr):
            qr = a["qr"]
            dqr = served - np.minimum(self.Cr, served + self.Cr * qr / _SOFT_QUEUE_PKTS)
        else:
            dqr = np.zeros_like(dq)
        # recorded BaseRTT: follows the minimum of the queueing delay seen since joining,
        # relaxing down with time constant d_j / 50 and never up
        x = a["x"]
        dx = -(50.0 / self.d) * np.maximum(x - a["qdelay"] - self.err, 0.0)
        dx = np.where(self.active, dx, 0.0)
        dqa = self.red_rate * (a["qa"] - q) if self.red is not None else np.zeros_like(q)
        out = np.empty_like(y2)
        out[self.i_w] = dw
        out[self.i_x] = dx
        out[self.i_D] = delivered
        out[self.i_L] = loss_rate
        out[self.i_q] = dq
        out[self.i_qa] = dqa
        out[self.i_qr] = dqr
        out[self.i_Q] = q
        out[self.i_X] = (1.0 - p) * self.cross_pps * share
        # unused service: exactly 0 while the link has a backlog (served = C), so what the
        # link carried, C·t - I, never exceeds C·t by the integration's error
        out[self.i_I] = self.C - served
        return out.reshape(y.shape)
