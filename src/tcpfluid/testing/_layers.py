"""The layers a check compares: their names and quantities, one layer's values for one
scenario (:class:`_Layer`: an engine's summary or the closed forms where they apply), the
tolerance a value is judged with, and the cache of runs (:class:`RunCache`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._json import FieldsDict
from ..analytic._scenario_flows import (
    available_pps,
    change_times,
    flow_prediction,
    flow_values,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import FlowSpec, Scenario
    from ..scenarios.reduction import FluidView

#: the simulation engines (:func:`tcpfluid.simulate`)
ENGINES: tuple[str, ...] = ("rounds", "ode", "packet")
#: the closed forms as a layer name
CLOSED_FORM = "closed-form"
#: every layer a comparison can use
LAYERS: tuple[str, ...] = (CLOSED_FORM, *ENGINES)
#: how messages name the layers
LAYER_LABELS: dict[str, str] = {
    CLOSED_FORM: "closed form",
    "rounds": "round model",
    "ode": "ODE model",
    "packet": "packet simulator",
}
#: compared quantity -> unit (the public summary keys of ``tcpfluid simulate --json``)
QUANTITIES: dict[str, str] = {
    "ss_exit_window": "pkts",
    "ss_exit_time_s": "s",
    "settled_window": "pkts",
    "time_to_equilibrium_s": "s",
    "convergence_times_s": "s",
    "throughput_pps": "pkt/s",
    "utilization": "",
    "jain_index": "",
}
#: quantities of the whole scenario (flow ``"all"`` in the tables)
AGGREGATE: tuple[str, ...] = ("utilization", "jain_index")
#: the quantities :func:`predict_scenario` gives (and ``tcpfluid predict SCENARIO`` prints)
PREDICTED: tuple[str, ...] = tuple(QUANTITIES)[:5]
ALL_FLOWS = "all"


Key = tuple[str, str, int]  # (quantity, flow, change index or -1)


@dataclass
class _Layer:
    """One layer's values for one scenario: key -> number, or ``None`` with a note."""

    layer: str
    flows: tuple[str, ...]
    change_times_s: tuple[float, ...]
    values: dict[Key, float | None] = field(default_factory=dict)
    notes: dict[Key, str] = field(default_factory=dict)
    #: keys whose ``None`` means "this layer cannot give it" (not "it did not happen")
    structural: set[Key] = field(default_factory=set)

    def put(
        self, key: Key, value: Any, missing: str = "", *, structural: bool = False, info: str = ""
    ) -> None:
        """Store ``value``; ``missing`` says why when it is ``None``, ``info`` annotates a
        number; ``structural``: a ``None`` means the layer cannot give this value."""
        v = _number(value)
        self.values[key] = v
        if v is None:
            self.notes[key] = missing
            if structural:
                self.structural.add(key)
        elif info:
            self.notes[key] = info


def _number(x: Any) -> float | None:
    """A finite float, or ``None``."""
    if x is None or isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _engine_layer(result: Any, scenario: Scenario, engine: str) -> _Layer:
    """The compared quantities from an engine's :class:`tcpfluid.results.Summary`."""
    s = result.summary
    names = tuple(f.name for f in scenario.flows)
    lay = _Layer(engine, names, tuple(float(t) for t in s.change_times_s))
    for fs in s.flows:
        name = fs.name
        no_ss = "no slow-start exit reported"
        lay.put(("ss_exit_window", name, -1), fs.ss_exit_window_pkts, no_ss)
        lay.put(("ss_exit_time_s", name, -1), fs.ss_exit_time_s, no_ss)
        why = "did not settle before the first change or the end"
        lay.put(("settled_window", name, -1), fs.settled_window_pkts, why)
        lay.put(("time_to_equilibrium_s", name, -1), fs.time_to_equilibrium_s, why)
        for k, t in enumerate(lay.change_times_s):
            active = fs.start_s < t < fs.stop_s
            why = "did not settle after the change" if active else "not active after the change"
            lay.put(("convergence_times_s", name, k), fs.convergence_times_s[k], why,
                    structural=not active)  # fmt: skip
        lay.put(("throughput_pps", name, -1), fs.throughput_pps, "not active in the run")
    lay.put(("utilization", ALL_FLOWS, -1), s.utilization, "no traffic measured")
    lay.put(("jain_index", ALL_FLOWS, -1), s.jain_index, "no flow measured")
    return lay


@dataclass(frozen=True)
class Tolerance(FieldsDict):
    """How far a value may be from the reference, and why.

    A value v passes against the reference r when ``|v − r| <= abs_tol`` or
    ``|v − r| <= rel * |r|`` or (``factor`` given) ``max(v/r, r/v) <= factor``.

    Attributes
    ----------
    rel
        Relative tolerance (0.1 = 10 %).
    abs_tol
        Absolute tolerance, in the quantity's unit.
    factor
        Ratio tolerance (e.g. 2 for "within one doubling"); ``None``: not used.
    reason
        Why this tolerance (printed with every comparison that uses it).

    Examples
    --------
    >>> t = Tolerance(rel=0.2, reason="slow-start bursts")
    >>> t.passes(110.0, 100.0), t.passes(125.0, 100.0), t.describe()
    (True, False, '±20 %')
    """

    rel: float = 0.0
    abs_tol: float = 0.0
    factor: float | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        from .._validation import _is_number  # a real number: NumPy's scalars too, no bool

        for name in ("rel", "abs_tol"):
            if not (_is_number(v := getattr(self, name)) and math.isfinite(v) and v >= 0):
                raise ValueError(f"Tolerance.{name} must be a finite number >= 0, got {v!r}")
            object.__setattr__(self, name, float(v))
        if self.factor is not None:
            if not (_is_number(self.factor) and self.factor >= 1):
                raise ValueError(f"Tolerance.factor must be >= 1 or None, got {self.factor!r}")
            object.__setattr__(self, "factor", float(self.factor))
        if not isinstance(self.reason, str):
            raise TypeError(f"Tolerance.reason must be a string, got {self.reason!r}")

    def passes(self, value: float, reference: float) -> bool:
        """Whether ``value`` is within this tolerance of ``reference``."""
        diff = abs(value - reference)
        if diff <= self.abs_tol or diff <= self.rel * abs(reference):
            return True
        if self.factor is not None and value > 0 and reference > 0:
            return max(value / reference, reference / value) <= self.factor
        return False

    def describe(self) -> str:
        """Short text: ``±10 %``, ``±1``, ``×2``; ``exact`` when all are zero."""
        rel = f"±{self.rel * 100:g} %" if self.rel else ""
        factor = "" if self.factor is None else f"×{self.factor:g}"
        parts = (rel, f"±{self.abs_tol:g}" if self.abs_tol else "", factor)
        return " or ".join(filter(None, parts)) or "exact"


def _closed_form_layer(scenario: Scenario) -> _Layer:
    """The closed forms where they apply, per flow (the Quick Vegas paper (Chan, Lin, Ho
    2008) §4 and the TCP-Ho paper (Ho, Chan, Chen 2007) §4).

    Where they apply and what they give: docs/testing.md.
    """
    names = tuple(f.name for f in scenario.flows)
    lay = _Layer(CLOSED_FORM, names, change_times(scenario))
    lay.put(("utilization", ALL_FLOWS, -1), None, "an average over the run", structural=True)
    try:
        view = scenario.fluid_view()
        # the closed forms model one drop-tail path with one base RTT (the round model
        # runs RED and unequal base RTTs, they do not)
        if view.red is not None or not view.equal_rtt:
            what = "a RED queue" if view.red is not None else "flows of unequal base RTT"
            raise ValueError(f"the rounds engine cannot model {what}")
    except ValueError as exc:
        short = str(exc).split("; engines that can")[0]
        why = "outside the closed forms' model: " + short.replace(
            "the rounds engine cannot model ", ""
        )
        for name in names:
            _none_for(lay, name, why)
        lay.put(("jain_index", ALL_FLOWS, -1), None, why, structural=True)
        return lay
    flows = scenario.flows
    outside = ""  # why the closed forms do not apply to some flow (first such flow)
    for f in flows:
        got = flow_prediction(f, flows, view)
        if isinstance(got, str):
            why = got
        else:
            pr, n, th = got
            for q, (v, missing, structural) in flow_values(scenario, f, pr).items():
                lay.put((q, f.name, -1), v, missing, structural=structural)
            lay.put(
                ("throughput_pps", f.name, -1), None, "an average over the run", structural=True
            )
            try:
                _put_convergence(lay, f, flows, view, n, th, scenario.duration_s)
                continue
            except ValueError as exc:  # the flow's path is outside the closed forms' domain
                why = f"outside the closed forms' domain: {exc}"
        _none_for(lay, f.name, why)
        outside = outside or why
    # equal shares follow from the per-flow closed forms: where they do not apply, neither
    # does Jain's index of 1
    groups = {
        (f.start_s, f.stop_s, f.algorithm, json.dumps(dict(f.params), sort_keys=True))
        for f in flows
    }
    jain = ("jain_index", ALL_FLOWS, -1)
    if len(groups) != 1:
        lay.put(jain, None, "flows not started and stopped together", structural=True)
    elif outside:
        lay.put(jain, None, outside, structural=True)
    else:
        lay.put(jain, 1.0, info="equal flows started together: equal shares")
    return lay


def _none_for(lay: _Layer, name: str, why: str) -> None:
    """Mark every value of flow ``name`` as one the closed forms cannot give, because ``why``."""
    for q in PREDICTED:
        for k in range(len(lay.change_times_s)) if q == "convergence_times_s" else (-1,):
            lay.put((q, name, k), None, why, structural=True)
    lay.put(("throughput_pps", name, -1), None, "an average over the run", structural=True)


def _put_convergence(
    lay: _Layer,
    f: FlowSpec,
    flows: Sequence[FlowSpec],
    view: FluidView,
    n: int,
    th: dict[str, float],
    duration_s: float,
) -> None:
    """FlowSpec ``f``'s convergence time after each bandwidth change, as a settling time
    (:func:`tcpfluid.metrics.settling`): Vegas and Enhanced Vegas grow one packet per
    round after an increase of the available rate (eq. (11) of the Quick Vegas paper), so
    they settle within max(1, 2 %) of the new window that many rounds before reaching it;
    rounds × d, reported where the segment (to the next change, the flow's stop or the
    run's end ``duration_s``) holds the rule's two tail lengths after it. Quick Vegas
    overshoots (eq. (12) counts the first reach only): no closed form."""
    from ..analytic import rounds_to_equilibrium
    from ..analytic._scenario_flows import unheld
    from ..metrics._settling import base_band_pkts, settle_hold_s

    alg = f.algorithm or ""
    d = view.path.d
    a, b = th.get("alpha", 2.0), th.get("beta", 4.0)
    target = (a + b) / 2.0 if alg == "quick-vegas" else a
    for k, t in enumerate(lay.change_times_s):
        key = ("convergence_times_s", f.name, k)
        if not f.start_s < t < f.stop_s:
            lay.put(key, None, "flow not active at the change", structural=True)
            continue
        active = [g for g in flows if g.start_s <= t < g.stop_s]
        if len(active) != n or any(g.start_s != f.start_s for g in active):
            lay.put(key, None, "flows join or leave at or before the change", structural=True)
            continue
        before, after = available_pps(view, t - 1e-9), available_pps(view, t)
        if alg in ("tcp-ho", "quick-vegas") or after <= before:
            why = {
                "tcp-ho": "TCP-Ho's analysis covers a flow's start only",
                "quick-vegas": "no closed form of the settling time (Quick Vegas overshoots; "
                "eq. (12) counts the first reach of the new target)",
            }.get(alg, "a decrease of the available bandwidth (closed forms: increases only)")
            lay.put(key, None, why, structural=True)
            continue
        w_old = before * d / n + target
        w_new = after * d / n + target
        rounds = float(rounds_to_equilibrium(alg, w_old, w_new / w_old, beta=b))
        tol = base_band_pkts(w_new)  # the base band of tcpfluid.metrics.settling
        conv = max(math.ceil(rounds - tol - 1e-9), 0) * d
        end = min([c for c in lay.change_times_s if c > t] + [f.stop_s, duration_s])
        if conv <= end - t - settle_hold_s(end - t):
            lay.put(key, conv, "")
        else:
            lay.put(key, None, unheld(conv, end - t, "the segment's end", end))


def _scenario(
    scenario: Scenario | str, algorithm: str | None, sets: Mapping[str, Any] | None
) -> Scenario:
    """A scenario object from a name or object, with ``algorithm`` set when given."""
    from ..scenarios import Scenario, build_scenario

    if isinstance(scenario, str):
        sc = build_scenario(scenario, **dict(sets or {}))
    elif isinstance(scenario, Scenario):
        if sets:
            raise ValueError(
                "sets= applies to a scenario given by name; build the Scenario with them"
            )
        sc = scenario
    else:
        raise TypeError(
            f"scenario must be a Scenario or a scenario name, got {type(scenario).__name__}"
        )
    if algorithm is not None:
        sc = sc.with_algorithm(algorithm)
    missing = [f.name for f in sc.flows if not f.algorithm]
    if missing:
        raise ValueError(
            f"flows {missing} of scenario {sc.name!r} have no algorithm; pass algorithm='vegas' "
            "(or another name of tcpfluid.algorithms.ALGORITHMS)"
        )
    # a law's parameters checked at the door (the engines would each refuse them later)
    from ..algorithms import get_law

    for alg, params in {(f.algorithm, tuple(sorted(f.params.items()))) for f in sc.flows}:
        get_law(alg or "", **dict(params))  # (every flow has one: checked above)
    return sc


class RunCache:
    """Engine runs and closed forms of scenarios, computed once per distinct input.

    The key is the scenario's full description (:meth:`Scenario.to_dict`), the layer and
    its options (a ``progress`` callback aside), so two tests asking for the same packet
    run share it. The pytest plugin keeps one cache per test session.

    Attributes
    ----------
    hits, misses
        How many requests were served from the cache / computed.
    """

    def __init__(self) -> None:
        self._results: dict[str, Any] = {}
        self._layers: dict[str, _Layer] = {}
        self.hits = 0
        self.misses = 0

    @staticmethod
    def _key(scenario: Scenario, layer: str, options: Mapping[str, Any]) -> str:
        # a progress callback does not change the result
        opts = {k: v for k, v in options.items() if k != "progress"}
        return json.dumps([scenario.to_dict(), layer, opts], sort_keys=True, default=repr)

    def run(self, scenario: Scenario, engine: str, **options: Any) -> Any:
        """The engine's result for ``scenario`` (computed on the first request)."""
        from ..engines import _check_engine, simulate  # the one place that calls the engines

        _check_engine(engine, ENGINES)
        key = self._key(scenario, engine, options)
        if key in self._results:
            self.hits += 1
            return self._results[key]
        self.misses += 1
        self._results[key] = simulate(scenario, engine, **options)
        return self._results[key]

    def layer(
        self, scenario: Scenario, layer: str, options: Mapping[str, Any] | None = None
    ) -> _Layer:
        """The compared values of one layer for ``scenario``."""
        opts = dict(options or {})
        key = self._key(scenario, layer, opts)
        if key in self._layers:
            self.hits += 1
            return self._layers[key]
        if layer == CLOSED_FORM:
            self.misses += 1
            lay = _closed_form_layer(scenario)
        else:
            lay = _engine_layer(self.run(scenario, layer, **opts), scenario, layer)
        self._layers[key] = lay
        return lay

    def clear(self) -> None:
        """Forget every stored run."""
        self._results.clear()
        self._layers.clear()


def _check_layers(what: str, names: Iterable[str], allowed: Sequence[str]) -> list[str]:
    out = list(names)
    for n in out:
        if not isinstance(n, str) or n not in allowed:
            raise ValueError(f"unknown {what} {n!r}; choose from {', '.join(allowed)}")
    return out


def _check_quantities(quantities: Iterable[str] | str | None) -> list[str]:
    if quantities is None:
        return list(QUANTITIES)
    if isinstance(quantities, str):
        quantities = [quantities]
    out = _check_layers("quantity", quantities, tuple(QUANTITIES))
    if not out:
        raise ValueError(
            f"quantities must name at least one of {', '.join(QUANTITIES)} (or be None: all), "
            f"got {quantities!r}"
        )
    return out
