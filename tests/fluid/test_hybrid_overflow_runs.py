"""Who loses at a drop-tail overflow in the hybrid model (``drop_share="growth"``, the
default; docs/ode-model.md, "How an overflow is shared"): runs of one flow's packets, each
as long as the flow's growth in its round (at least one packet), the runs beginning on the
flows in proportion to their arrivals at the full queue, so that an overflow reaches few
flows and identical flows do not stay in lockstep (docs/mechanisms.md,
``overflow-reaches-every-rtt``: in the packets an overflow reaches about three flows)."""

from __future__ import annotations

import numpy as np
import pytest

from tcpfluid.algorithms import Vegas
from tcpfluid.fluid import _hybrid_kernel as K
from tcpfluid.fluid import simulate_hybrid


def _flows(growth: list[float]) -> tuple[np.ndarray, np.ndarray]:
    """Flow rows in their first round (round 0) with the given growth, and the globals."""
    ff = np.zeros((len(growth), K.N_FLOW_ROWS))
    ff[:, K.F_GROWTH] = growth
    return ff, np.zeros(K.N_GLOBALS)


def _step(ff: np.ndarray, g: np.ndarray, send: list[float], over: float) -> np.ndarray:
    """One step's overflow of ``over`` packets on the flows' arrivals ``send``: the drops."""
    s = np.array(send, dtype=float)
    drops = np.zeros_like(s)
    left, dropped, xc = K._overflow_runs(ff, g, s, drops, over, float(s.sum()), 0.0)
    assert left == 0.0 and xc == 0.0
    assert dropped == pytest.approx(over)
    np.testing.assert_allclose(s + drops, send)
    return drops


def test_a_run_takes_one_flows_arrivals_until_its_growth_is_lost() -> None:
    """Two flows sending 1 packet a step each, each growing 2 packets in its round, half a
    packet over in each of 5 steps (by hand): flow 0 (first in flow order at equal
    arrivals) loses 0.5 a step for 4 steps, its run of 2 packets, and flow 1 nothing; the
    fifth step begins a run on flow 1 (its arrivals since flow 0's run began, 5, against
    the 2 of that step charged to flow 0 and its 3 since). The proportional share would
    take 0.25 from each flow each step."""
    ff, g = _flows([2.0, 2.0])
    got = np.array([_step(ff, g, [1.0, 1.0], 0.5) for _ in range(5)])
    np.testing.assert_allclose(got, [[0.5, 0.0]] * 4 + [[0.0, 0.5]], atol=1e-12)
    np.testing.assert_allclose(ff[:, K.F_RUN_LEFT], [0.0, 1.5], atol=1e-12)


def test_a_step_whose_overflow_exceeds_a_flows_arrivals_begins_more_runs() -> None:
    """Three flows sending 0.5 a step, growths 3, 0.2 and 0 (runs of 3, 1 and 1 packets),
    1.2 packets over (by hand): flow 0's whole 0.5, flow 1's whole 0.5 and 0.2 of flow 2;
    runs left 2.5, 0.5 and 0.8."""
    ff, g = _flows([3.0, 0.2, 0.0])
    got = _step(ff, g, [0.5, 0.5, 0.5], 1.2)
    np.testing.assert_allclose(got, [0.5, 0.5, 0.2], atol=1e-12)
    np.testing.assert_allclose(ff[:, K.F_RUN_LEFT], [2.5, 0.5, 0.8], atol=1e-12)


def test_runs_begin_in_proportion_to_the_flows_arrivals() -> None:
    """Two flows sending 3 and 1 packets a step, runs of one packet (growth under a packet),
    one packet over a step for 400 steps: a run begins each step, 300 on the first flow
    and 100 on the second (3 : 1, their arrivals), within one."""
    ff, g = _flows([0.0, 0.0])
    got = np.array([_step(ff, g, [3.0, 1.0], 1.0) for _ in range(400)])
    np.testing.assert_allclose(got.sum(axis=0), [300.0, 100.0], atol=1.0)


def test_identical_flows_hit_by_an_overflow_lose_apart() -> None:
    """Four identical Vegas flows (50 ms, 1000 packets/s, a 30-packet buffer; access
    links spacing each flow's packets 0.1 ms apart) at rest,
    then a CBR of 600 packets/s from 3 s: the overflow is their ACK-clocked packets (no
    growth to drop first). In runs it falls on one flow after another: they learn of their
    first losses at different instants (measured 3.0986-3.0992 s; 1, 8, 1 and 2 loss
    events after 3 s). The switch: with every arriving flow losing in proportion to its
    arrivals (``drop_share="proportional"``, as the rest of an overflow beyond the bursts
    was shared before) they all learn at 3.0986 s."""
    kw = {
        "mu_pps": 1000.0,
        "base_rtt_s": [0.05] * 4,
        "buffer_pkts": 30,
        "duration_s": 6.0,
        "cross_traffic": [(600.0, 3.0, 6.0)],
        "flow_spacing_s": [1e-4] * 4,
    }

    def first_losses(drop_share: str) -> list[float]:
        r = simulate_hybrid([Vegas()] * 4, drop_share=drop_share, **kw)
        lt = [np.asarray(f.loss_t_s) for f in r.flows]
        return [float(x[x > 3.0][0]) for x in lt]

    runs = first_losses("growth")
    assert len(set(runs)) > 1
    assert max(runs) - min(runs) < 0.01  # one overflow
    assert len(set(first_losses("proportional"))) == 1
