"""Run a scenario on an engine: :func:`simulate`, the one documented way.

>>> import tcpfluid
>>> from tcpfluid.scenarios import build_scenario
>>> sc = build_scenario("qv-basic", duration="30s", cbr="none").with_algorithm("vegas")
>>> res = tcpfluid.simulate(sc, engine="rounds")
>>> res.window_pkts.shape[0], round(res.summary.flows[0].ss_exit_window_pkts)
(1, 64)
>>> from tcpfluid.engines import Rounds
>>> tcpfluid.simulate(sc, Rounds(feedback_rounds=0)).summary.flows[0].ss_exit_round
11

Each engine is a frozen, validated dataclass of its options (:class:`Rounds`,
:class:`Hybrid`, :class:`Ode`, :class:`Packet`); :func:`simulate` takes one, or an engine's
name and its options as keywords (:func:`engine_options`). :func:`packet_spread` runs the
packet simulator over several start orders and gives each flow's min, median and max
(:class:`PacketSpread`): it informs, it is not a tolerance.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .._validation import check_choice, check_int, check_progress
from ..algorithms.registry import law_class
from ..results import Result
from ..scenarios import Scenario, build_scenario
from ._base import RECORD_FIELDS, Engine, older_names, renamed_keywords

if TYPE_CHECKING:  # pragma: no cover
    from ._ode import Hybrid, Ode
    from ._packet import Packet
    from ._rounds import Rounds
    from ._spread import PacketSpread, Spread, packet_spread

__all__ = [
    "ENGINES",
    "RECORD_FIELDS",
    "RTT_MODELS",
    "Engine",
    "Hybrid",
    "Ode",
    "Packet",
    "PacketSpread",
    "Rounds",
    "Spread",
    "engine_options",
    "get_engine",
    "ode_by_name",
    "packet_spread",
    "run_named",
    "run_scenario",
    "simulate",
    "simulate_summary",
]

#: engine class name -> its module (loaded on first use: the engines load Numba/SciPy)
_CLASSES = {"Rounds": "._rounds", "Hybrid": "._ode", "Ode": "._ode", "Packet": "._packet"}
#: every name loaded on first use: the classes, the packet simulator's spread over start
#: orders (:func:`packet_spread`) and :func:`ode_by_name`
_LAZY = dict.fromkeys(("PacketSpread", "Spread", "packet_spread"), "._spread")
_LAZY.update(_CLASSES, ode_by_name="._ode")
#: engine name -> its class name
_NAMES = {"rounds": "Rounds", "packet": "Packet", "ode": "Ode", "hybrid": "Hybrid"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _EngineTable(Mapping[str, type[Engine]]):
    """Engine name -> engine class, each class imported on first access."""

    def __getitem__(self, name: str) -> type[Engine]:
        return __getattr__(_NAMES[name])  # a KeyError for another name

    def __iter__(self) -> Iterator[str]:
        return iter(_NAMES)

    def __len__(self) -> int:
        return len(_NAMES)

    def __repr__(self) -> str:
        return f"ENGINES({', '.join(_NAMES)})"


#: engine name -> engine class (:class:`Rounds`, :class:`Packet`, :class:`Ode`,
#: :class:`Hybrid`); the name ``"ode"`` in :func:`simulate` chooses between :class:`Hybrid`
#: and :class:`Ode` (:func:`ode_by_name`)
ENGINES: Mapping[str, type[Engine]] = _EngineTable()
#: RTT models of the round engine (the burst term of the Quick Vegas paper §4.1; the
#: values of ``tcpfluid.fluid.rounds.RttModel``)
RTT_MODELS: tuple[str, ...] = ("average", "last", "fluid")

_COMMON = ("algorithm", "progress")


def _check_engine(engine: Any, names: Iterable[str] = ENGINES, option: str = "") -> str:
    """An engine's name, one of ``names`` (default :data:`ENGINES`; a ``ValueError`` naming
    the value, after ``option`` if given, and listing the names otherwise): the one check of
    every function, option or configuration key taking one."""
    accepted = tuple(names)
    if not isinstance(engine, str) or engine not in accepted:
        where = f"{option}: " if option else ""
        raise ValueError(f"{where}unknown engine {engine!r}; engines: {', '.join(accepted)}")
    return engine


def engine_options(engine: str) -> tuple[str, ...]:
    """The keyword options :func:`simulate` accepts for ``engine`` (its options class's
    fields, the older names still accepted, ``algorithm`` and ``progress``), sorted."""
    _check_engine(engine)
    own = _own_options(engine)
    return tuple(sorted({*_COMMON, *own, *older_names(own, None)}))


def _own_options(engine: str) -> tuple[str, ...]:
    """The options of ``engine`` under their own names (``tcpfluid simulate --option``):
    its options class's fields; the name ``"ode"``: either model's and ``model``."""
    names = tuple(ENGINES[engine].option_names())  # in the options class's order
    if engine == "ode":  # the older name: either model's options and the choice
        names += (*(n for n in ENGINES["hybrid"].option_names() if n not in names), "model")
    return names


def get_engine(engine: str, scenario: Scenario | None = None, **options: Any) -> Engine:
    """The engine object of name ``engine`` with ``options`` (older names mapped, with a
    ``DeprecationWarning``; ``scenario`` converts the ones counted in rounds or points).

    Raises
    ------
    ValueError
        Unknown engine or a bad option value.
    TypeError
        An option the engine does not take (naming it and listing the accepted ones).
    """
    accepted = engine_options(engine)  # an unknown engine is refused here
    for name in options:
        if name not in accepted or name in _COMMON:
            raise TypeError(
                f"simulate() got an unknown option {name!r} for the {engine} engine; "
                f"its options: {', '.join(accepted)}"
            )
    older = older_names(_own_options(engine), scenario)
    opts = renamed_keywords(f"the {engine} engine", options, older, stacklevel=4)
    if engine == "ode":
        from ._ode import ode_by_name

        return ode_by_name(opts)
    return ENGINES[engine](**opts)


def simulate(
    scenario: Scenario,
    engine: str | Engine = "rounds",
    *,
    algorithm: str | None = None,
    progress: Callable[[float], None] | None = None,
    settle_band: float | Mapping[str, float] | None = None,
    **options: Any,
) -> Result:
    """Run ``scenario`` on ``engine`` and return the common :class:`~tcpfluid.results.Result`.

    Parameters
    ----------
    scenario
        A :class:`~tcpfluid.scenarios.Scenario` (:func:`~tcpfluid.scenarios.build_scenario`);
        its flows need an algorithm (:meth:`~tcpfluid.scenarios.Scenario.with_algorithm`,
        or ``algorithm``).
    engine
        An engine object (``Rounds(feedback_rounds=0)``, ``Packet(seed=1)``...) or a name:
        ``"rounds"``, ``"hybrid"``, ``"ode"`` or ``"packet"``.
    algorithm
        Run every flow with this law (a name of :data:`tcpfluid.algorithms.ALGORITHMS`).
    progress
        ``None`` or a callable receiving the fraction done in [0, 1].
    settle_band
        The summary's settling band, packets: the amplitude of a window's oscillation that
        counts as settled (:func:`tcpfluid.metrics.settling`; its centre and amplitude are
        reported). ``None`` (default): each flow's law's own limit cycle
        (:func:`tcpfluid.metrics.law_settle_band`: 1 packet for Vegas's and Quick Vegas's
        ±1 moves, unlimited for Enhanced Vegas, 0 for laws resting on a fixed point); a
        number ``>= 0`` (``math.inf``: any cycle that does not drift) for every flow; or a
        mapping from algorithm names to bands, the law's own for the others
        (``{"reno": 2.0}``). Only the summary reads it.
    **options
        With a name: the engine's options (module docstring; :func:`engine_options`).

    Raises
    ------
    TypeError
        ``scenario`` is not a Scenario, or an option the engine does not take (naming it
        and listing the accepted ones), or options beside an engine object.
    ValueError
        Unknown engine, bad option value, or a scenario the engine cannot model (naming
        the feature and the engines that can).
    """
    if not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario must be a tcpfluid.scenarios.Scenario, got {type(scenario).__name__}"
        )
    label = None
    if isinstance(engine, Engine):
        if options:
            raise TypeError(
                f"simulate() got options {', '.join(map(repr, options))} beside the engine "
                f"object {type(engine).__name__}; give them to it instead"
            )
        eng = engine
    else:
        eng = get_engine(engine, scenario, **options)
        label = engine  # "ode" names its results "ode" whichever model ran
    check_progress(progress)
    if algorithm is not None:
        law_class(algorithm)
        scenario = scenario.with_algorithm(algorithm)
    own, around = (progress, None) if eng.reports_progress else (None, progress)
    if around is not None:
        around(0.0)
    # each fluid engine reduces the scenario with scenarios.fluid_view(scenario, engine),
    # which refuses what that engine cannot model (its capabilities), by name
    result = eng.run(scenario, progress=own, label=label, settle_band=settle_band)
    if around is not None:
        around(1.0)
    return result


# ------------------------------------------------------------------ the older entry points
def run_scenario(
    scenario: Scenario, engine: str = "rounds", *, rtt_model: str = "average", seed: int = 0
) -> Any:
    """Run ``scenario`` (with its algorithm set) on ``engine``; returns the engine's
    intermediate result (:attr:`tcpfluid.results.Result.native` of :func:`simulate`).

    Parameters
    ----------
    scenario
        A scenario whose flows have an algorithm (:meth:`Scenario.with_algorithm`).
    engine
        ``"rounds"``, ``"hybrid"``, ``"ode"`` or ``"packet"``.
    rtt_model
        Engines with an RTT model (the round model): ``"average"``, ``"last"`` or ``"fluid"``.
    seed
        Engines that draw random numbers (the packet simulator: RED drops): the seed of
        its ``numpy.random.Generator``. The fluid engines are deterministic.
    """
    _check_engine(engine)
    return simulate(scenario, engine, **_legacy_options(engine, rtt_model, seed)).native


def _legacy_options(engine: str, rtt_model: str, seed: int) -> dict[str, Any]:
    """The options of the older entry points, for the engines that take them: checked."""
    check_choice("rtt_model", rtt_model, RTT_MODELS)
    check_int("seed", seed, minimum=0)
    cls = ENGINES[engine]
    out = {"rtt_model": rtt_model} if "rtt_model" in cls.option_names() else {}
    return out | ({"seed": seed} if cls.stochastic else {})


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
        ``scenario``, ``algorithm``, ``engine``, ``params``, ``status``, ``message`` and the
        keys of :meth:`tcpfluid.results.Summary.to_dict`.
    """
    return run_named(**locals())[0]  # its arguments, by name


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
    _check_engine(engine)
    law_class(algorithm)  # an unknown name fails here, listing the valid ones
    opts = _legacy_options(engine, rtt_model, seed)
    scenario = build_scenario(scenario_name, **dict(sets or {})).with_algorithm(algorithm)
    result = simulate(scenario, engine, progress=progress, **opts)
    return _run_json(scenario_name, algorithm, engine, result, result.summary.to_dict()), result


def _run_json(
    name: str, algorithm: str, engine: str, result: Result, summary: Mapping[str, Any]
) -> dict[str, Any]:
    """The JSON dict of ``tcpfluid simulate``: the run, the scenario's parameters that are
    set (JSON-ready: an infinite buffer is ``None``), the ``summary`` keys, the status."""
    sc = result.scenario
    plain = sc._plain_params()
    return {
        "scenario": name,
        "algorithm": algorithm,
        "engine": engine,
        "params": {k: plain[k] for k, v in sc.params.items() if v is not None},
        **summary,
        "status": result.status,
        "message": result.message,
    }
