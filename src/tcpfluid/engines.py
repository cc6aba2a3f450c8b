"""Run a scenario on an engine: :func:`simulate`, the one documented way.

>>> import tcpfluid
>>> from tcpfluid.scenarios import build_scenario
>>> sc = build_scenario("qv-basic", duration="30s", cbr="none").with_algorithm("vegas")
>>> res = tcpfluid.simulate(sc, engine="rounds")
>>> res.window_pkts.shape[0], round(res.summary.flows[0].ss_exit_window_pkts)
(1, 64)

Three engines describe the same scenario (:mod:`tcpfluid.scenarios`) with the same control
law objects (:mod:`tcpfluid.algorithms`):

``"rounds"``
    the round-based fluid model, :func:`tcpfluid.fluid.simulate_scenario_rounds`;
``"ode"``
    the continuous-time fluid model, :func:`tcpfluid.fluid.simulate_scenario_ode`;
``"packet"``
    the packet simulator, :func:`tcpfluid.sim.simulate_packets`.

:func:`simulate` returns a :class:`tcpfluid.results.Result` for every engine, with one
:class:`tcpfluid.results.Summary` computed by :func:`tcpfluid.metrics.summarise`. An
engine that cannot model a feature of the scenario (RED in the round model, flows of
unequal RTT...) refuses it with a ``ValueError``
(:func:`tcpfluid.scenarios.check_engine`). The engines' own functions stay public;
:func:`run_scenario` (the engine's own result) and :func:`simulate_summary` (the JSON of
``tcpfluid simulate --json``) go through :func:`simulate`.

Options (keywords of :func:`simulate`; :func:`engine_options` lists them per engine):

* every engine: ``algorithm`` (run every flow with this law), ``progress`` (a callable
  receiving the fraction done in [0, 1]);
* ``rounds``: ``rtt_model`` (``"average"``, ``"last"``, ``"fluid"``; ``rtt`` is accepted as
  an alias) and the keywords of :func:`tcpfluid.fluid.simulate_scenario_rounds`;
* ``ode``: ``model`` (``"auto"``, ``"hybrid"``: every law on the hybrid fluid model,
  ``"classical"``: the Vegas/FAST/Reno right-hand sides) and the keywords of
  :func:`tcpfluid.fluid.simulate_ode` (``n_points``, ``measure_from_s``...) except those
  the scenario gives (:func:`tcpfluid.fluid.simulate_scenario_ode`);
* ``packet``: ``seed`` and the keywords of :func:`tcpfluid.sim.simulate_packets`
  (``sample_interval``, ``delayed_ack``...).

An unknown option is a ``TypeError`` that names it and lists the engine's options.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ._validation import check_choice, check_int
from .algorithms.registry import law_class
from .metrics import FlowRecord, summarise
from .results import Result
from .scenarios import Scenario, bottleneck, build_scenario

__all__ = [
    "ENGINES",
    "RTT_MODELS",
    "engine_options",
    "run_named",
    "run_scenario",
    "simulate",
    "simulate_summary",
]


def _rounds(scenario: Scenario, **options: Any) -> Any:
    """:func:`tcpfluid.fluid.simulate_scenario_rounds` (imported on first use)."""
    from .fluid.rounds import simulate_scenario_rounds

    return simulate_scenario_rounds(scenario, **options)


def _ode(scenario: Scenario, **options: Any) -> Any:
    """:func:`tcpfluid.fluid.simulate_scenario_ode` (imported on first use)."""
    from .fluid.ode import simulate_scenario_ode

    return simulate_scenario_ode(scenario, **options)


def _packet(scenario: Scenario, **options: Any) -> Any:
    """:func:`tcpfluid.sim.simulate_packets` (imported on first use: it loads Numba)."""
    from .sim import simulate_packets

    return simulate_packets(scenario, **options)


#: engine name -> function(scenario, **options) -> the engine's own result (each calls the
#: engine's public function, imported on first use so that importing this module is cheap)
ENGINES: dict[str, Callable[..., Any]] = {"rounds": _rounds, "packet": _packet, "ode": _ode}
#: RTT models of the round engine (the burst term of the Quick Vegas paper §4.1; the
#: values of ``tcpfluid.fluid.rounds.RttModel``)
RTT_MODELS: tuple[str, ...] = ("average", "last", "fluid")

_COMMON = ("algorithm", "progress")
_ODE_FROM_SCENARIO = ("t_end_s", "red", "cross_traffic")


def _keywords(fn: Callable[..., Any], drop: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(
        n
        for n, p in inspect.signature(fn).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and n not in drop
    )


def _engine_functions(engine: str) -> tuple[Callable[..., Any], ...]:
    """The public functions whose keyword-only parameters are the engine's options."""
    if engine == "rounds":
        from .fluid.rounds import simulate_scenario_rounds

        return (simulate_scenario_rounds,)
    if engine == "ode":
        from .fluid.ode import simulate_ode, simulate_scenario_ode

        return (simulate_scenario_ode, simulate_ode)
    from .sim import simulate_packets

    return (simulate_packets,)


def _own_options(engine: str) -> set[str]:
    return {k for fn in _engine_functions(engine) for k in _keywords(fn, _ODE_FROM_SCENARIO)}


def engine_options(engine: str) -> tuple[str, ...]:
    """The keyword options :func:`simulate` accepts for ``engine``, sorted."""
    check_choice("engine", engine, tuple(ENGINES))
    own = _own_options(engine)
    if engine == "rounds":
        own.add("rtt_model")
    return tuple(sorted({*_COMMON, *own}))


def _check_options(engine: str, options: Mapping[str, Any]) -> dict[str, Any]:
    accepted = engine_options(engine)
    for name in options:
        if name not in accepted:
            raise TypeError(
                f"simulate() got an unknown option {name!r} for the {engine} engine; "
                f"its options: {', '.join(accepted)}"
            )
    opts = dict(options)
    if engine == "rounds":
        if "rtt" in opts and "rtt_model" in opts:
            raise TypeError("give rtt_model or its alias rtt, not both")
        opts["rtt"] = check_choice(
            "rtt_model", opts.pop("rtt_model", opts.get("rtt", "average")), RTT_MODELS
        )
    if "seed" in opts:
        check_int("seed", opts["seed"], minimum=0)
    return opts


def _run_native(engine: str, scenario: Scenario, opts: dict[str, Any]) -> Any:
    progress = opts.pop("progress", None)
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be None or a callable taking a fraction, got {progress!r}")
    fn = ENGINES[engine]
    takes_progress = "progress" in _own_options(engine)
    if progress is not None and takes_progress:
        opts["progress"] = progress
    elif progress is not None:
        progress(0.0)
    # each fluid engine reduces the scenario with scenarios.fluid_view(scenario, engine),
    # which refuses what that engine cannot model (ENGINE_CAPABILITIES), by name
    native = fn(scenario, **opts)
    if progress is not None and not takes_progress:
        progress(1.0)
    return native


def simulate(scenario: Scenario, engine: str = "rounds", **options: Any) -> Result:
    """Run ``scenario`` on ``engine`` and return the common :class:`~tcpfluid.results.Result`.

    Parameters
    ----------
    scenario
        A :class:`~tcpfluid.scenarios.Scenario` (:func:`~tcpfluid.scenarios.build_scenario`);
        its flows need an algorithm (:meth:`~tcpfluid.scenarios.Scenario.with_algorithm`,
        or the ``algorithm`` option).
    engine
        ``"rounds"``, ``"ode"`` or ``"packet"``.
    **options
        The engine's options (module docstring; :func:`engine_options`).

    Raises
    ------
    TypeError
        ``scenario`` is not a Scenario, or an option the engine does not take (naming it
        and listing the accepted ones).
    ValueError
        Unknown engine, bad option value, or a scenario the engine cannot model (naming
        the feature and the engines that can).
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    opts = _check_options(engine, options)
    algorithm = opts.pop("algorithm", None)
    if algorithm is not None:
        law_class(algorithm)
        scenario = scenario.with_algorithm(algorithm)
    native = _run_native(engine, scenario, opts)
    return _ADAPTERS[engine](scenario, native)


# ------------------------------------------------------------------ engine results -> Result
def _rounds_result(sc: Scenario, tr: Any) -> Result:
    from .fluid._rounds_results import measured_windows, next_windows

    every = bool(getattr(tr, "all_rounds_recorded", False))

    t = np.asarray(tr.time_s[:, 0], dtype=np.float64)
    w = np.asarray(tr.window_pkts[:, 0, :], dtype=np.float64).T
    in_ss = tr.phase[:, 0, :] == _slow_start()
    # flows of unequal base RTT: each flow's own round ends (AsyncRoundTrace.round_end)
    ends = getattr(tr, "round_end", None)
    rows = [slice(None) if ends is None else ends[:, 0, i] for i in range(len(sc.flows))]
    recs = [
        FlowRecord(
            name=f.name,
            start_s=f.start_s,
            stop_s=f.stop_s,
            t_s=t[rows[i]],
            # the slow-start exit names the window whose RTTs the decision read
            window_pkts=measured_windows(w[i][rows[i]], getattr(tr, "exit_lag_rows", 0)),
            in_slow_start=in_ss[rows[i], i],
            # each round's window stamped at the start of its round (as the packet summary)
            settle_window_pkts=next_windows(w[i][rows[i]]) if every else w[i][rows[i]],
            delivered_pkts=float(tr.delivered_pkts[0, i]),
            loss_events=int(tr.losses[0, i]),
        )
        for i, f in enumerate(sc.flows)
    ]
    elapsed = float(tr.elapsed_s[0])
    summary = summarise(
        "rounds",
        sc,
        recs,
        end_s=sc.duration_s,
        carried_pkts=float(tr.carried_pkts[0]),
        capacity_pps=float(tr.paths.mu_pps[0]),
        measured_s=(0.0, elapsed),
        bottleneck=_bottleneck_name(sc),
    )
    nan = np.full_like(t, np.nan)
    q = nan if tr.queue_pkts is None else np.asarray(tr.queue_pkts[:, 0], dtype=np.float64)
    thr = (
        np.full_like(w, np.nan)
        if tr.throughput_pps is None
        else np.asarray(tr.throughput_pps[:, 0, :], dtype=np.float64).T
    )
    return Result("rounds", sc, summary.flow_names, t, w, q, thr, summary, tr)


def _ode_result(sc: Scenario, r: Any) -> Result:
    t = np.asarray(r.t, dtype=np.float64)
    w = np.asarray(r.windows_pkts, dtype=np.float64)
    native = r.summary
    m_from = float(native.measure_from_s)
    span = float(native.measure_to_s) - m_from
    D = np.asarray(r.delivered_pkts, dtype=np.float64)
    # loss events: the model's own count (the classical model cuts once per lost packet,
    # MGT; the hybrid model counts the events its laws reacted to)
    events = getattr(r, "loss_events", None)
    L = np.asarray(r.lost_pkts if events is None else events, dtype=np.float64)
    hybrid = getattr(r, "hybrid", None)

    def since(a: Any) -> float:
        return float(a[-1] - np.interp(m_from, t, a))

    recs = []
    for i, f in enumerate(sc.flows):
        if hybrid is not None:  # laws deciding at round boundaries: the packets' trace
            rec = _round_record(f.name, hybrid.flows[i], since(D[i]), since(L[i]))
        else:  # no slow start: settling judged on the sampled windows
            rec = FlowRecord(
                f.name, f.start_s, f.stop_s, t, w[i], None, w[i], since(D[i]), since(L[i])
            )
        recs.append(rec)
    keep: tuple[str, ...] = (
        "measure_from_s",
        "measure_to_s",
        "mean_queue_pkts",
        "final_queue_pkts",
    )
    keep += ("final_windows_pkts", "base_rtt_overestimate_s", "lost_pkts", "loss_fraction")
    extras = {k: v for k, v in native.to_dict().items() if k in keep}
    extras["lost_pkts_per_flow"] = [float(x) for x in native.losses_pkts]
    summary = summarise(
        "ode",
        sc,
        recs,
        end_s=sc.duration_s,
        carried_pkts=float(native.utilization) * float(r.capacity_pps) * span,
        capacity_pps=float(r.capacity_pps),
        measured_s=(m_from, float(native.measure_to_s)),
        bottleneck=_bottleneck_name(sc),
        extras=extras,
    )
    q = np.asarray(r.queue_pkts, dtype=np.float64)
    thr = np.asarray(r.rates_pps, dtype=np.float64)
    return Result("ode", sc, summary.flow_names, t, w, q, thr, summary, r)


def _round_record(name: str, fl: Any, delivered_pkts: float, loss_events: float) -> FlowRecord:
    """A flow's record from its round trace (one sample per round boundary, the window the
    law saw, its phase, the window it set): the packet simulator and the hybrid model."""
    return FlowRecord(
        name=name,
        start_s=fl.start_s,
        stop_s=fl.stop_s,
        t_s=np.asarray(fl.round_t_s, dtype=np.float64),
        window_pkts=np.asarray(fl.round_cwnd_pkts, dtype=np.float64),
        in_slow_start=np.asarray(fl.round_phase) == _slow_start(),
        settle_window_pkts=np.asarray(fl.round_next_cwnd_pkts, dtype=np.float64),
        delivered_pkts=delivered_pkts,
        loss_events=loss_events,
        # boundary k ends round k + 1; the law leaves slow start at the end of the round
        # that sent the exit window and keeps it one more round, which ends the exit round
        # (the convention of tcpfluid.metrics.summarise)
        exit_delay_samples=1,
    )


def _packet_result(sc: Scenario, res: Any) -> Result:
    recs = [
        _round_record(fl.name, fl, float(fl.delivered_pkts), int(fl.loss_t_s.size))
        for fl in res.flows
    ]
    name = _bottleneck_name(sc)
    lk = res.link(name)
    pkt_bytes = sc.packet_size_bytes
    extras = {
        "retransmissions": [int(fl.retransmissions) for fl in res.flows],
        "timeouts": [int(fl.timeouts) for fl in res.flows],
        "packets_per_s": _plain(res.packets_per_s),
        "events_per_s": _plain(res.events_per_s),
        "conserved": bool(res.conserved),
    }
    summary = summarise(
        "packet",
        sc,
        recs,
        end_s=sc.duration_s,
        carried_pkts=float(lk.bytes_out) / pkt_bytes,
        capacity_pps=float(lk.rate_bps) / (8.0 * pkt_bytes),
        bottleneck=name,
        extras=extras,
    )
    t = np.asarray(res.t_s, dtype=np.float64)
    w = np.array([fl.cwnd_pkts for fl in res.flows], dtype=np.float64).reshape(len(recs), t.size)
    thr = np.array([fl.goodput_pps for fl in res.flows], dtype=np.float64).reshape(w.shape)
    q = np.asarray(lk.queue_pkts, dtype=np.float64)
    return Result("packet", sc, summary.flow_names, t, w, q, thr, summary, res)


def _plain(x: Any) -> float | None:
    v = float(x)
    return v if np.isfinite(v) else None


def _slow_start() -> int:
    from .algorithms.base import SLOW_START

    return int(SLOW_START)


def _bottleneck_name(sc: Scenario) -> str:
    link = bottleneck(sc)
    assert link is not None
    return link.name


_ADAPTERS: dict[str, Callable[[Scenario, Any], Result]] = {
    "rounds": _rounds_result,
    "ode": _ode_result,
    "packet": _packet_result,
}


# ------------------------------------------------------------------ the older entry points
def run_scenario(
    scenario: Scenario, engine: str = "rounds", *, rtt_model: str = "average", seed: int = 0
) -> Any:
    """Run ``scenario`` (with its algorithm set) on ``engine``; returns the engine's own
    result (:attr:`tcpfluid.results.Result.native` of :func:`simulate`).

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
    return simulate(scenario, engine, **_legacy_options(engine, rtt_model, seed)).native


def _legacy_options(engine: str, rtt_model: str, seed: int) -> dict[str, Any]:
    """The options of the older entry points (each engine takes its own): checked."""
    check_choice("rtt_model", rtt_model, RTT_MODELS)
    check_int("seed", seed, minimum=0)
    if engine == "rounds":
        return {"rtt_model": rtt_model}
    if engine == "packet":
        return {"seed": seed}
    return {}


def simulate_summary(
    scenario_name: str,
    algorithm: str,
    *,
    engine: str = "rounds",
    sets: Mapping[str, Any] | None = None,
    rtt_model: str = "average",
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
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
    progress
        ``None`` or a callable receiving the fraction done.

    Returns
    -------
    dict
        ``scenario``, ``algorithm``, ``engine``, ``params`` and the keys of
        :meth:`tcpfluid.results.Summary.to_dict`.
    """
    return run_named(
        scenario_name,
        algorithm,
        engine=engine,
        sets=sets,
        rtt_model=rtt_model,
        seed=seed,
        progress=progress,
    )[0]


def run_named(
    scenario_name: str,
    algorithm: str,
    *,
    engine: str = "rounds",
    sets: Mapping[str, Any] | None = None,
    rtt_model: str = "average",
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
) -> tuple[dict[str, Any], Result]:
    """:func:`simulate_summary`'s JSON dict and the :class:`~tcpfluid.results.Result` it
    summarises (``tcpfluid simulate`` prints the one and tabulates the other)."""
    if not isinstance(engine, str) or engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    law_class(algorithm)  # an unknown name fails here, listing the valid ones
    opts = _legacy_options(engine, rtt_model, seed)
    scenario = build_scenario(scenario_name, **dict(sets or {})).with_algorithm(algorithm)
    result = simulate(scenario, engine, progress=progress, **opts)
    plain = scenario.to_dict()["params"]  # JSON-ready (an infinite buffer is None)
    out = {
        "scenario": scenario_name,
        "algorithm": algorithm,
        "engine": engine,
        "params": {k: plain[k] for k, v in scenario.params.items() if v is not None},
        **result.summary.to_dict(),
    }
    return out, result
