"""The queue that per-ACK increments build inside an ACK train made of runs (round model,
``train_runs``; :func:`tcpfluid.fluid._rounds_physics.train_clump_queue`).

After the available rate rises (the CBR stops), a window's packets travel apart: each one
is a run of its own. Every ACK releases ``1 + z/W`` packets, so a run grows with the
window; the bottleneck serves a run back to back, so its ACKs return at the available rate
μa and the extra packets of the next round queue inside the run, although the train as a
whole is slower than μa and the evenly spread train of the round model
(``train_runs=False``) queues nothing. The mean backlog is derived here in SymPy and
checked against the packet simulator's per-round mean RTT on the Quick Vegas paper's §4.2
setting (one Quick Vegas flow climbing from W = 125 to nW after an n-fold rise).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy as sp

from tcpfluid.algorithms import QuickVegas
from tcpfluid.fluid._rounds_physics import train_clump_queue

sys.path.insert(0, str(Path(__file__).parent))
from test_new_equilibrium_layers import T_CHANGE, W, _packet


def _derived_mean_backlog() -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
    """SymPy: mean backlog (packets) a packet of the round sees, from the three steps of
    the model (the runs' inner queue, their merging, the size-biased run length)."""
    z, w, n0, rho, rho0, r, length, x = sp.symbols("z W N0 rho rho0 r L x", positive=True)
    g, s, p = sp.symbols("g s p", positive=True)
    k = sp.symbols("k", integer=True, positive=True)

    # 1. inside a run of L ACKs returning at μa (one per 1/μa), each releasing 1 + r
    #    packets, the backlog after a fraction x of the run is x L r: the run's packets
    #    see L r / 2 on average
    inner = sp.integrate(x * length * r, (x, 0, 1))
    assert sp.simplify(inner - length * r / 2) == 0

    # 2. gaps between runs independent and exponential (mean g): a gap that closes by s
    #    survives with probability e^(-s/g) and what is left of it is again exponential
    #    with mean g (memoryless), so the number of runs is proportional to the idle time
    pdf = sp.exp(-x / g) / g
    survive = sp.integrate(pdf, (x, s, sp.oo))
    left = sp.simplify(sp.integrate((x - s) * pdf, (x, s, sp.oo)) / survive)
    assert sp.simplify(survive - sp.exp(-s / g)) == 0 and sp.simplify(left - g) == 0
    #    idle share (1 − ρ) d = N g and (1 − ρ0) d = N0 g: runs N = N0 (1 − ρ)/(1 − ρ0);
    #    a run holds K of the N0 original runs, K geometric with mean m = N0/N
    m = (1 - rho0) / (1 - rho)

    # 3. a packet lies in a run in proportion to its length: size-biased E[K²]/E[K]
    pk = p * (1 - p) ** (k - 1)

    def series(term: sp.Expr) -> sp.Expr:
        total = sp.piecewise_fold(sp.summation(term, (k, 1, sp.oo)))
        # the convergent branch (0 < p < 1)
        return sp.simplify(total.args[0][0] if isinstance(total, sp.Piecewise) else total)

    mean_k, mean_k2 = series(k * pk), series(k**2 * pk)
    assert sp.simplify(mean_k - 1 / p) == 0
    biased = sp.simplify((mean_k2 / mean_k).subs(p, 1 / x))
    assert sp.simplify(biased - (2 * x - 1)) == 0

    # a run of K originals holds K W / N0 packets; r = z / W
    q = inner.subs({length: (w / n0) * biased.subs(x, m), r: z / w})
    return sp.simplify(q), (z, w, n0, rho, rho0)


def test_train_clump_queue_is_the_derived_mean_backlog() -> None:
    q, (z, w, n0, rho, rho0) = _derived_mean_backlog()
    # the closed form the physics module uses
    assert sp.simplify(q - z * (2 * (1 - rho0) / (1 - rho) - 1) / (2 * n0)) == 0
    f = sp.lambdify((z, w, n0, rho, rho0), q, "numpy")
    pipe = 750.0
    for n0_v in (60.0, 125.0, 300.0):
        for w1 in (n0_v * 1.1, 0.3 * pipe + n0_v, 0.8 * pipe):
            for z_v in (1.0, 12.0, 48.0):
                if w1 >= pipe:
                    continue
                got = float(train_clump_queue(*map(np.atleast_1d, (z_v, w1, pipe, n0_v)))[0])
                want = min(float(f(z_v, w1, n0_v, w1 / pipe, n0_v / pipe)), 0.5 * z_v)
                assert got == pytest.approx(want, rel=1e-12)
    # a full round (no idle time left) is one run: the whole train's z/2
    full = train_clump_queue(*map(np.atleast_1d, (10.0, pipe, pipe, 125.0)))
    assert float(full[0]) == 5.0


def _ramp_backlogs(n: int, lo: float = 0.3, hi: float = 0.6) -> tuple[Any, Any]:
    """Per round of the packet ramp after the rise: measured mean backlog (packets of μ,
    from the mean RTT) and the model's, for the rounds with ``lo <= W/μd <= hi`` (from
    0.3 to 0.6 the sender's measurement rounds and decisions do not disturb the window)."""
    f = _packet(n, QuickVegas())
    mud = n * W
    idx = np.flatnonzero(f.round_t_s > T_CHANGE + 0.1)[:40]
    n0 = float(f.round_cwnd_pkts[idx[0] - 1])  # the window when the rate rose
    measured = (f.round_rtt_mean_s - f.round_base_rtt_s) * mud / 0.1
    got, model = [], []
    for i in idx:
        # round i's RTT samples are the ACKs of the packets sent during round i − 1,
        # while those ACKs grew the window from cwnd[i − 2] to cwnd[i − 1] (a record's
        # window is the one at the end of its round)
        w0, w1 = float(f.round_cwnd_pkts[i - 2]), float(f.round_cwnd_pkts[i - 1])
        if w1 / mud > hi:
            break
        if w1 / mud < lo or w1 <= w0:
            continue
        got.append(float(measured[i]))
        model.append(float(train_clump_queue(*map(np.atleast_1d, (w1 - w0, w1, mud, n0)))[0]))
    return np.array(got), np.array(model)


@pytest.mark.parametrize("n", [5, 6, 8, 10])
def test_the_packet_ramp_queues_inside_the_runs_as_the_model_says(n: int) -> None:
    """The packets' mean backlog during the ramp (0.3-0.6 of μd, where the evenly spread
    train queues nothing) against the model, round by round: the same order and growth,
    within a factor 3 (the gaps at the rise are not exactly exponential: the packets'
    backlog is 0.9-1.3 times the model's at n = 5 and 10, 1.4-1.7 at n = 6, 2.0-2.7 at
    n = 8)."""
    got, model = _ramp_backlogs(n)
    assert got.size >= 4
    assert np.all(got > 0.05)  # a queue the evenly spread train does not have
    ratio = got / model
    assert np.all((ratio > 0.6) & (ratio < 3.0)), ratio
    # both grow along the ramp
    assert got[-1] > 1.5 * got[0] and model[-1] > 1.5 * model[0]


@pytest.mark.parametrize("n", [2, 3])
def test_near_the_pipe_the_model_keeps_the_packets_backlog(n: int) -> None:
    """In the last rounds of the ramp (0.75-0.99 of μd) the model's backlog is the
    packets' within 35 % at n = 2 and 3 (0.66-1.08 times): the exponential gaps' merging
    holds up to the pipe there."""
    got, model = _ramp_backlogs(n, 0.75, 0.99)
    assert got.size >= 2
    ratio = model / got
    assert np.all((ratio > 0.65) & (ratio < 1.35)), ratio


def test_near_the_pipe_the_models_runs_merge_faster_than_the_packets_at_n4() -> None:
    """The model's limit at n = 4: there the gaps at the rise are more even than
    exponential, the packets' runs merge more slowly near the pipe and the model's backlog
    is 1.3-2.3 times theirs at 0.75-0.99 of μd, growing towards the pipe; after the last
    increase round Δ exceeds β (a decrease and succ reset) where the packets' stays below
    α, and the round model's ramp takes 22 rounds against the packets' 17
    (validation/test_new_equilibrium_layers.py::
    test_n4_round_model_reaches_nw_with_the_packets_once_its_runs_merge_as_theirs)."""
    got, model = _ramp_backlogs(4, 0.75, 0.99)
    assert got.size >= 2
    ratio = model / got
    assert np.all(ratio > 1.25) and ratio[-1] > 2.0 and ratio[-1] > ratio[0], ratio
