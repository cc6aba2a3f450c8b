"""The continuous-time engine takes the laws' parameters over the range the laws accept.

Vegas accepts ``0 <= alpha <= beta`` (its registry parameters). The classical model used
to refuse ``beta=0`` as ``beta_pkts must be > 0`` and ``alpha=0`` as ``alpha_pkts`` below
its switch width, internal names a user never typed. Now ``alpha = 0`` (and
``beta = 0``) run on every engine; a threshold the classical model's ramped sign cannot
resolve (``0 < alpha < switch_width_pkts``) is refused naming the user's parameter, the
value and the range the classical model runs.
"""

from __future__ import annotations

import pytest

import tcpfluid
from tcpfluid.fluid.ode import OdeFlow
from tcpfluid.scenarios import build_scenario

SETS = {"cbr": "none", "duration": "20s", "flows": 1}


def _scenario(algorithm: str = "vegas", **params: float) -> tcpfluid.scenarios.Scenario:
    return build_scenario("qv-basic", **SETS).with_algorithm(algorithm, **params)


@pytest.mark.parametrize("engine", ["rounds", "hybrid", "ode", "packet"])
def test_alpha_and_beta_zero_run_on_every_engine(engine: str) -> None:
    s = tcpfluid.simulate(_scenario(alpha=0.0, beta=0.0), engine).summary
    assert s.utilization is not None and 0.0 < s.utilization <= 1.0


def test_the_classical_model_runs_alpha_and_beta_zero_inside_the_band() -> None:
    # Mo et al.: Vegas rests where its backlog Δ is in [α, β]; with α = β = 0 and the
    # ramped sign ε = 0.1 packets wide, in [0, ε]. One flow's backlog is the queue.
    r = tcpfluid.simulate(_scenario(alpha=0.0, beta=0.0), "ode", model="classical")
    q = r.native.summary.final_queue_pkts
    assert 0.0 <= q <= 0.1 + 1e-6
    assert OdeFlow("vegas", 0.1, alpha_pkts=0.0, beta_pkts=0.0).beta_pkts == 0.0


@pytest.mark.parametrize(("algorithm", "name"), [("vegas", "alpha"), ("enhanced-vegas", "delta")])
def test_a_threshold_below_the_switch_width_is_refused_by_the_users_name(
    algorithm: str, name: str
) -> None:
    params = {"alpha": 0.05, "beta": 0.05} if algorithm == "vegas" else {"delta": 0.05}
    with pytest.raises(ValueError) as info:
        tcpfluid.simulate(_scenario(algorithm, **params), "ode", model="classical")
    msg = str(info.value)
    assert f"{name}=0.05" in msg
    assert f"{name} = 0 or {name} >= switch_width_pkts" in msg
    # the hybrid model takes it
    assert tcpfluid.simulate(_scenario(algorithm, **params), "ode").summary.utilization
