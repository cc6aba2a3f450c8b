"""The ``ode`` engine passes the hybrid model's time step ``dt_s`` through.

The step is the hybrid's resolution of slow start's ACK-clocked trains (docs/ode-model.md,
"Time step"); a user of ``tcpfluid.simulate(..., "ode")`` can set it as the hybrid's own entry
point does, and the classical model, which has no fixed step, refuses it."""

from __future__ import annotations

import numpy as np
import pytest

import tcpfluid
from tcpfluid.fluid.hybrid import simulate_scenario_hybrid
from tcpfluid.scenarios import Scenario, build_scenario

D_S = 0.1  # qv-basic's base RTT


def _scenario() -> Scenario:
    return build_scenario("qv-basic", cbr="none", duration="4s")


def test_the_ode_engine_runs_the_hybrid_at_the_step_it_is_given() -> None:
    sc = _scenario()
    dt = D_S / 1024
    res = tcpfluid.simulate(
        sc, "ode", algorithm="quick-vegas", dt_s=dt, record_interval_s=4.0 / 400
    )
    # the same run through the hybrid's own entry point, recorded on the same grid
    direct = simulate_scenario_hybrid(
        sc.with_algorithm("quick-vegas"), dt_s=dt, record_every_s=4.0 / 400
    )
    np.testing.assert_array_equal(res.window_pkts, direct.window_pkts)
    # and the step is used: the default step (d/256) gives other windows
    default = tcpfluid.simulate(sc, "ode", algorithm="quick-vegas", record_interval_s=4.0 / 400)
    assert not np.array_equal(res.window_pkts, default.window_pkts)


def test_a_bad_step_is_refused_by_name() -> None:
    sc = _scenario()
    with pytest.raises(ValueError, match=r"dt_s must be > 0, got -1"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=-1)
    with pytest.raises(ValueError, match="dt_s must be at most a quarter of the smallest base RTT"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=D_S)
    with pytest.raises(TypeError, match=r"'dt_s' applies to the hybrid model only"):
        tcpfluid.simulate(sc, "ode", algorithm="vegas", dt_s=D_S / 256, model="classical")
