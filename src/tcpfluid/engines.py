"""Run one scenario on one engine: the runner behind ``tcpfluid simulate``, sweeps and reports.

Three engines describe the same scenario (:mod:`tcpfluid.scenarios`) with the same control
law objects (:mod:`tcpfluid.algorithms`):

``"rounds"``
    the round-based fluid model, :func:`tcpfluid.fluid.simulate_scenario_rounds`;
``"ode"``
    the continuous-time fluid model, :func:`tcpfluid.fluid.simulate_scenario_ode`;
``"packet"``
    the packet simulator, :func:`tcpfluid.sim.simulate_packets`.

Every engine returns a result whose ``summary.to_dict()`` has the same public keys:
``ss_exit_window``, ``ss_exit_time_s``, ``settled_window``, ``time_to_equilibrium_s``,
``convergence_times_s`` (one per bandwidth change, in order), ``utilization``,
``throughput_pps`` (per flow) and ``jain_index`` (the packet engine adds ``events_per_s``,
``packets_per_s`` and loss counters). ``null``/``None`` means "did not happen".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, get_args

from ._validation import check_choice, check_int
from .algorithms.registry import law_class
from .fluid.ode import simulate_scenario_ode
from .fluid.rounds import RttModel, simulate_scenario_rounds
from .scenarios import Scenario, build_scenario
from .sim import simulate_packets

__all__ = ["ENGINES", "RTT_MODELS", "run_scenario", "simulate_summary"]

#: engine name -> function(scenario) -> result with ``.summary.to_dict()``
ENGINES: dict[str, Callable[..., Any]] = {
    "rounds": simulate_scenario_rounds,
    "packet": simulate_packets,
    "ode": simulate_scenario_ode,
}
#: RTT models of the round engine (the burst term of document 000 §4.1)
RTT_MODELS: tuple[str, ...] = get_args(RttModel)


def run_scenario(
    scenario: Scenario, engine: str = "rounds", *, rtt_model: str = "average", seed: int = 0
) -> Any:
    """Run ``scenario`` (with its algorithm set) on ``engine``; returns the engine's result.

    Parameters
    ----------
    scenario
        A scenario whose flows have an algorithm (:meth:`Scenario.with_algorithm`).
    engine
        ``"rounds"``, ``"ode"`` or ``"packet"``.
    rtt_model
        Round engine only: ``"average"``, ``"last"`` or ``"fluid"``.
    seed
        Packet engine only (RED drops draw random numbers): the seed of its
        ``numpy.random.Generator``. The fluid engines are deterministic.
    """
    check_choice("engine", engine, tuple(ENGINES))
    check_choice("rtt_model", rtt_model, RTT_MODELS)
    check_int("seed", seed, minimum=0)
    if engine == "rounds":
        return simulate_scenario_rounds(scenario, rtt=rtt_model)  # type: ignore[arg-type]
    if engine == "packet":
        return simulate_packets(scenario, seed=seed)
    return ENGINES[engine](scenario)


def simulate_summary(
    scenario_name: str,
    algorithm: str,
    *,
    engine: str = "rounds",
    sets: Mapping[str, Any] | None = None,
    rtt_model: str = "average",
    seed: int = 0,
) -> dict[str, Any]:
    """Build a named scenario, run it and return the JSON summary (``tcpfluid simulate --json``).

    Parameters
    ----------
    scenario_name
        A name of :data:`tcpfluid.scenarios.SCENARIOS`.
    algorithm
        A name of :data:`tcpfluid.algorithms.ALGORITHMS`.
    engine, rtt_model, seed
        As :func:`run_scenario`.
    sets
        Scenario parameter overrides (``{"bandwidth": "100Mbps", "alpha": 1}``).

    Returns
    -------
    dict
        ``scenario``, ``algorithm``, ``engine``, ``params`` and the engine's summary keys.
    """
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    law_class(algorithm)  # an unknown name fails here, listing the valid ones
    scenario = build_scenario(scenario_name, **dict(sets or {})).with_algorithm(algorithm)
    result = run_scenario(scenario, engine, rtt_model=rtt_model, seed=seed)
    summary = result.summary.to_dict()
    plain = scenario.to_dict()["params"]  # JSON-ready (an infinite buffer is None)
    return {
        "scenario": scenario_name,
        "algorithm": algorithm,
        "engine": engine,
        "params": {k: plain[k] for k, v in scenario.params.items() if v is not None},
        **summary,
    }
