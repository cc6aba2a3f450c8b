"""Checks of one layer of tcpfluid against another, for analysts' own test suites.

tcpfluid describes a scenario with four layers: the closed forms (:mod:`tcpfluid.analytic`),
the round model (engine ``"rounds"``), the ODE model (``"ode"``) and the packet simulator
(``"packet"``). This module compares them on one scenario and asserts that they agree:

* :func:`compare` returns a tidy table (a :class:`pandas.DataFrame`, one row per quantity,
  flow, bandwidth change and layer) with each layer's value, the reference layer's value and
  the relative error;
* :func:`assert_layers_agree` checks engines against a reference engine (the packet
  simulator by default) and :func:`assert_matches_closed_form` checks engines against the
  closed forms; on failure they raise :class:`LayersDisagree`, whose message names the
  layer that is off and prints the table;
* :class:`Tolerance` is how far a value may be from the reference, with the reason for
  that tolerance (the validation report uses the same class);
* :func:`predict_scenario` gives, per flow, the slow-start exit, the settled window and the
  times to equilibrium and to convergence after each bandwidth change, from the closed
  forms where they apply and the round model otherwise (``tcpfluid predict SCENARIO``).

Quantities are the public summary keys of ``tcpfluid simulate --json`` (:data:`QUANTITIES`):
per flow ``ss_exit_window``, ``ss_exit_time_s``, ``settled_window``,
``time_to_equilibrium_s``, ``convergence_times_s`` (one row per bandwidth change) and
``throughput_pps``; for the whole scenario ``utilization`` and ``jain_index`` (flow
``"all"``).

Example
-------
>>> from tcpfluid.testing import Tolerance, assert_matches_closed_form
>>> assert_matches_closed_form(  # doctest: +SKIP
...     "qv-basic", algorithm="vegas", sets={"cbr": "none", "duration": "80s"},
...     engines=("rounds",), quantities=("settled_window",),
...     tolerance=Tolerance(rel=0.01, reason="Vegas settles at the band's lower edge"),
... )

Importing this module is cheap (standard library only); engines, SciPy and pandas are
imported when a comparison runs. The pytest plugin :mod:`tcpfluid.pytest_plugin` wraps these
functions in fixtures that share one run of each engine per test session.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .scenarios import Scenario

__all__ = [
    "AGGREGATE",
    "CLOSED_FORM",
    "ENGINES",
    "LAYERS",
    "LAYER_LABELS",
    "PREDICTED",
    "QUANTITIES",
    "LayersDisagree",
    "Predicted",
    "RunCache",
    "Tolerance",
    "assert_layers_agree",
    "assert_matches_closed_form",
    "compare",
    "format_table",
    "predict_scenario",
]

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
PREDICTED: tuple[str, ...] = (
    "ss_exit_window",
    "ss_exit_time_s",
    "settled_window",
    "time_to_equilibrium_s",
    "convergence_times_s",
)
ALL_FLOWS = "all"


# ------------------------------------------------------------------------------ tolerance
@dataclass(frozen=True)
class Tolerance:
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
        for name in ("rel", "abs_tol"):
            v = getattr(self, name)
            if isinstance(v, bool) or not (
                isinstance(v, int | float) and math.isfinite(v) and v >= 0
            ):
                raise ValueError(f"Tolerance.{name} must be a finite number >= 0, got {v!r}")
        if self.factor is not None and (
            isinstance(self.factor, bool)
            or not (isinstance(self.factor, int | float) and self.factor >= 1)
        ):
            raise ValueError(f"Tolerance.factor must be >= 1 or None, got {self.factor!r}")
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
        parts = []
        if self.rel:
            parts.append(f"±{self.rel * 100:g} %")
        if self.abs_tol:
            parts.append(f"±{self.abs_tol:g}")
        if self.factor is not None:
            parts.append(f"×{self.factor:g}")
        return " or ".join(parts) if parts else "exact"

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict."""
        return {
            "rel": self.rel,
            "abs_tol": self.abs_tol,
            "factor": self.factor,
            "reason": self.reason,
        }


# ------------------------------------------------------------------------------ layers
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


def _change_times(scenario: Scenario) -> tuple[float, ...]:
    """The run's changes as every engine's summary counts them (CBR starts and stops, flows
    joining and leaving, inside the run: :func:`tcpfluid.metrics.run_changes`)."""
    from .metrics import run_changes

    times, _ = run_changes(
        [(c.start_s, c.stop_s) for c in scenario.cbr],
        [(f.start_s, f.stop_s) for f in scenario.flows],
        scenario.duration_s,
    )
    return times


def _engine_layer(result: Any, scenario: Scenario, engine: str) -> _Layer:
    """The compared quantities from an engine's :class:`tcpfluid.results.Summary`."""
    s = result.summary
    names = tuple(f.name for f in scenario.flows)
    lay = _Layer(engine, names, tuple(float(t) for t in s.change_times_s))
    for fs in s.flows:
        name = fs.name
        for q, v in (
            ("ss_exit_window", fs.ss_exit_window_pkts),
            ("ss_exit_time_s", fs.ss_exit_time_s),
        ):
            lay.put((q, name, -1), v, "no slow-start exit reported")
        why = "did not settle before the first change or the end"
        lay.put(("settled_window", name, -1), fs.settled_window_pkts, why)
        lay.put(("time_to_equilibrium_s", name, -1), fs.time_to_equilibrium_s, why)
        for k, t in enumerate(lay.change_times_s):
            v = fs.convergence_times_s[k]
            if not fs.start_s < t < fs.stop_s:
                lay.put(
                    ("convergence_times_s", name, k),
                    v,
                    "not active after the change",
                    structural=True,
                )
            else:
                lay.put(("convergence_times_s", name, k), v, "did not settle after the change")
        lay.put(("throughput_pps", name, -1), fs.throughput_pps, "not active in the run")
    lay.put(("utilization", ALL_FLOWS, -1), s.utilization, "no traffic measured")
    lay.put(("jain_index", ALL_FLOWS, -1), s.jain_index, "no flow measured")
    return lay


def _law_thresholds(algorithm: str, params: Mapping[str, Any]) -> dict[str, float]:
    """α, β, γ of the flow's law with the law's own defaults (Enhanced Vegas: α = β = δ)."""
    from .algorithms import get_law

    p = get_law(algorithm, **dict(params)).params()
    if "delta" in p and "alpha" not in p:
        p = {**p, "alpha": p["delta"], "beta": p["delta"]}
    out: dict[str, float] = {}
    for key in ("alpha", "beta", "gamma"):
        v = p.get(key)
        if isinstance(v, list):
            raise ValueError(f"one value of {key} per flow (the closed forms take one)")
        if v is not None:
            out[key] = float(v)
    return out


def _closed_form_layer(scenario: Scenario) -> _Layer:
    """The closed forms where they apply, per flow (the Quick Vegas paper (Chan, Lin, Ho
    2008) §4 and the TCP-Ho paper (Ho, Chan, Chen 2007) §4).

    A flow has closed-form values when its algorithm has a closed form
    (:data:`tcpfluid.analytic.PREDICT_ALGORITHMS`), the flows share one bottleneck with one
    base RTT and no ACK-path bottleneck, and it starts together with its group (flows with
    the same start time and law) on a path no other flow is using. n flows starting together
    behave as one flow on a path of μ/n (each sees the queue they build together), so the
    single-flow forms apply with μ replaced by (μ − cross traffic)/n. Convergence after a
    bandwidth change: eq. (11)/(12) of the Quick Vegas paper for an increase (Vegas, Enhanced Vegas,
    Quick Vegas); decreases have no closed form. Times are rounds × d.
    """
    from .analytic import PREDICT_ALGORITHMS, predict, rounds_to_equilibrium
    from .path import Path

    names = tuple(f.name for f in scenario.flows)
    changes = _change_times(scenario)
    lay = _Layer(CLOSED_FORM, names, changes)

    def none_for(name: str, why: str) -> None:
        for q in PREDICTED:
            if q == "convergence_times_s":
                for k in range(len(changes)):
                    lay.put((q, name, k), None, why, structural=True)
            else:
                lay.put((q, name, -1), None, why, structural=True)
        lay.put(("throughput_pps", name, -1), None, "an average over the run", structural=True)

    lay.put(("utilization", ALL_FLOWS, -1), None, "an average over the run", structural=True)
    try:
        view = scenario.fluid_view()
    except ValueError as exc:
        short = str(exc).split("; engines that can")[0]
        why = "outside the closed forms' model: " + short.replace(
            "the rounds engine cannot model ", ""
        )
        for name in names:
            none_for(name, why)
        lay.put(("jain_index", ALL_FLOWS, -1), None, why, structural=True)
        return lay
    path = view.path
    mu, d = path.mu, path.d
    cross = view.cross_traffic

    def available(t: float) -> float:
        return mu - sum(c.rate_pps for c in cross if c.start_s <= t < c.stop_s)

    flows = scenario.flows
    groups = {(f.start_s, f.algorithm, json.dumps(dict(f.params), sort_keys=True)) for f in flows}
    if len(groups) == 1 and flows[0].algorithm in PREDICT_ALGORITHMS:
        lay.put(
            ("jain_index", ALL_FLOWS, -1), 1.0, info="equal flows started together: equal shares"
        )
    else:
        lay.put(("jain_index", ALL_FLOWS, -1), None, "flows not started together", structural=True)
    for f in flows:
        alg = f.algorithm or ""
        if alg not in PREDICT_ALGORITHMS:
            none_for(
                f.name,
                f"{alg!r} has none (closed forms: {', '.join(PREDICT_ALGORITHMS)})",
            )
            continue
        if path.reverse_mu is not None:
            none_for(f.name, "ACK-path bottleneck: the closed forms assume none")
            continue
        running = [g for g in flows if g.start_s < f.start_s < g.stop_s]
        if running:
            none_for(f.name, f"joins {len(running)} flow(s) already running")
            continue
        group = [g for g in flows if g.start_s == f.start_s]
        if any(g.algorithm != f.algorithm or dict(g.params) != dict(f.params) for g in group):
            none_for(f.name, "starts with flows of another law or parameters")
            continue
        n = len(group)
        try:
            th = _law_thresholds(alg, f.params)
        except ValueError as exc:
            none_for(f.name, str(exc))
            continue
        mu_a = available(f.start_s)
        if mu_a <= 0:
            none_for(f.name, "no bandwidth available at its start")
            continue
        a, b = th.get("alpha", 2.0), th.get("beta", 4.0)
        backlog = n * (b if alg != "quick-vegas" else (a + b) / 2.0)
        if backlog > path.buffer_pkts:
            none_for(
                f.name, f"buffer {path.buffer_pkts:g} pkts below the flows' backlog {backlog:g}"
            )
            continue
        pr = predict(alg, Path(mu_a / n, d), **th)  # type: ignore[arg-type]
        later = [t for t in changes if t > f.start_s]
        first_change = min([*later, f.stop_s, scenario.duration_s])
        bound = (
            f"after the first change at {first_change:g} s"
            if later and first_change == later[0]
            else f"after the end of the flow's run at {first_change:g} s"
        )
        lay.put(
            ("ss_exit_window", f.name, -1),
            pr.ss_exit_window_pkts,
            "TCP-Ho has no slow start",
            structural=True,
        )
        lay.put(
            ("ss_exit_time_s", f.name, -1),
            None if pr.ss_exit_time_s is None else f.start_s + pr.ss_exit_time_s,
            "TCP-Ho has no slow start",
            structural=True,
        )
        if pr.equilibrium_window_pkts is None:
            lay.put(
                ("settled_window", f.name, -1),
                None,
                "TCP-Ho's analysis gives a round, not a window",
                structural=True,
            )
        else:
            lay.put(("settled_window", f.name, -1), pr.equilibrium_window_pkts)
        if f.start_s + pr.time_to_equilibrium_s < first_change:
            lay.put(("time_to_equilibrium_s", f.name, -1), pr.time_to_equilibrium_s)
        else:
            lay.put(
                ("time_to_equilibrium_s", f.name, -1),
                None,
                f"predicted {pr.time_to_equilibrium_s:.4g} s after its start, {bound}",
            )
        lay.put(
            ("throughput_pps", f.name, -1),
            None,
            "an average over the run",
            structural=True,
        )
        target = (a + b) / 2.0 if alg == "quick-vegas" else a
        for k, t in enumerate(changes):
            key = ("convergence_times_s", f.name, k)
            if not f.start_s < t < f.stop_s:
                lay.put(key, None, "flow not active at the change", structural=True)
                continue
            active = [g for g in flows if g.start_s <= t < g.stop_s]
            if len(active) != n or any(g.start_s != f.start_s for g in active):
                lay.put(key, None, "flows join or leave at or before the change", structural=True)
                continue
            before, after = available(t - 1e-9), available(t)
            if alg == "tcp-ho" or after <= before:
                why = (
                    "TCP-Ho's analysis covers a flow's start only"
                    if alg == "tcp-ho"
                    else "a decrease of the available bandwidth (closed forms: increases only)"
                )
                lay.put(key, None, why, structural=True)
                continue
            w_old = before * d / n + target
            w_new = after * d / n + target
            rounds = float(rounds_to_equilibrium(alg, w_old, w_new / w_old, beta=b))
            lay.put(key, math.ceil(rounds - 1e-9) * d, "")
    return lay


# ------------------------------------------------------------------------------ runs
def _scenario(
    scenario: Scenario | str, algorithm: str | None, sets: Mapping[str, Any] | None
) -> Scenario:
    """A scenario object from a name or object, with ``algorithm`` set when given."""
    from .scenarios import Scenario, build_scenario

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
    return sc


def _run_engine(scenario: Scenario, engine: str, options: Mapping[str, Any]) -> Any:
    """Run ``scenario`` on ``engine``: the one place that calls the engines."""
    from .engines import simulate

    return simulate(scenario, engine, **dict(options))


class RunCache:
    """Engine runs and closed forms of scenarios, computed once per distinct input.

    The key is the scenario's full description (:meth:`Scenario.to_dict`), the layer and
    its options (a ``progress`` callback aside), so two tests asking for the same packet
    run share it. The pytest plugin
    keeps one cache per test session.

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
        _check_layers("engine", [engine], ENGINES)
        key = self._key(scenario, engine, options)
        if key in self._results:
            self.hits += 1
            return self._results[key]
        self.misses += 1
        result = _run_engine(scenario, engine, options)
        self._results[key] = result
        return result

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
    out = []
    for n in names:
        if not isinstance(n, str) or n not in allowed:
            raise ValueError(f"unknown {what} {n!r}; choose from {', '.join(allowed)}")
        out.append(n)
    return out


def _check_quantities(quantities: Iterable[str] | str | None) -> list[str]:
    if quantities is None:
        return list(QUANTITIES)
    if isinstance(quantities, str):
        quantities = [quantities]
    return _check_layers("quantity", quantities, tuple(QUANTITIES))


# ------------------------------------------------------------------------------ compare
def _tolerances(
    tolerance: Tolerance | Mapping[str, Tolerance] | None, quantities: Sequence[str]
) -> dict[str, Tolerance] | None:
    if tolerance is None:
        return None
    if isinstance(tolerance, Tolerance):
        return {q: tolerance for q in quantities}
    if isinstance(tolerance, Mapping):
        out = {}
        for q in quantities:
            t = tolerance.get(q)
            if not isinstance(t, Tolerance):
                raise ValueError(
                    f"tolerance has no Tolerance for quantity {q!r} (got {t!r}); give one "
                    f"per compared quantity or a single Tolerance"
                )
            out[q] = t
        return out
    raise TypeError(
        f"tolerance must be a tcpfluid.testing.Tolerance or a mapping quantity -> Tolerance, "
        f"got {type(tolerance).__name__}"
    )


def _rows(
    sc: Scenario,
    engines: Sequence[str],
    quantities: Sequence[str],
    reference: str,
    options: Mapping[str, dict[str, Any]],
    cache: RunCache,
    tolerances: dict[str, Tolerance] | None,
) -> list[dict[str, Any]]:
    """The comparison rows (plain dicts, the columns of :func:`compare`)."""
    ref = cache.layer(sc, reference, options.get(reference))
    layers = [cache.layer(sc, e, options.get(e)) for e in engines]
    changes = _change_times(sc)
    names = tuple(f.name for f in sc.flows)
    ref_label = LAYER_LABELS[reference]
    rows: list[dict[str, Any]] = []
    for q in quantities:
        tol = tolerances[q] if tolerances else None
        for flow in (ALL_FLOWS,) if q in AGGREGATE else names:
            for k in range(len(changes)) if q == "convergence_times_s" else (-1,):
                key = (q, flow, k)
                r = ref.values.get(key)
                r_note = ref.notes.get(key, "not reported")
                for lay in layers:
                    v = lay.values.get(key)
                    note = lay.notes.get(key, "" if v is not None else "not reported")
                    err: float | None = None
                    ok: bool | None = None
                    label = LAYER_LABELS[lay.layer]
                    if v is not None and r is not None:
                        err = (v - r) / abs(r) if r != 0 else None
                        ok = tol.passes(v, r) if tol else None
                    elif r is None and (key in ref.structural or key not in ref.values):
                        note = f"{ref_label} n/a: {r_note}"
                    elif v is None and (key in lay.structural or key not in lay.values):
                        note = f"{label} n/a: {note}"
                    elif v is None and r is None:
                        note = f"neither has a value ({label}: {note}; {ref_label}: {r_note})"
                        ok = True if tol else None
                    elif v is None:
                        note = f"{label}: {note}"
                        ok = False if tol else None
                    else:
                        note = f"{ref_label}: {r_note}"
                        ok = False if tol else None
                    rows.append(
                        {
                            "quantity": q,
                            "flow": flow,
                            "change": None if k < 0 else k,
                            "engine": lay.layer,
                            "value": v,
                            "reference": r,
                            "relative_error": err,
                            "reference_layer": reference,
                            "unit": QUANTITIES[q],
                            "change_time_s": None if k < 0 else changes[k],
                            "tolerance": tol.describe() if tol else None,
                            "ok": ok,
                            "note": note,
                        }
                    )
    return rows


def _prepare(
    scenario: Scenario | str,
    engines: Iterable[str] | str,
    quantities: Iterable[str] | str | None,
    reference: str,
    algorithm: str | None,
    sets: Mapping[str, Any] | None,
    options: Mapping[str, Mapping[str, Any]] | None,
) -> tuple[Scenario, list[str], list[str], dict[str, dict[str, Any]]]:
    sc = _scenario(scenario, algorithm, sets)
    if isinstance(engines, str):
        engines = [engines]
    eng = _check_layers("engine", engines, LAYERS)
    _check_layers("reference", [reference], LAYERS)
    eng = [e for e in dict.fromkeys(eng) if e != reference]
    if not eng:
        raise ValueError(f"nothing to compare: engines must name a layer other than {reference!r}")
    opts = {str(k): dict(v) for k, v in dict(options or {}).items()}
    _check_layers("options key", opts, ENGINES)
    return sc, eng, _check_quantities(quantities), opts


def compare(
    scenario: Scenario | str,
    engines: Iterable[str] | str = ("rounds",),
    quantities: Iterable[str] | str | None = None,
    *,
    reference: str = "packet",
    algorithm: str | None = None,
    sets: Mapping[str, Any] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    cache: RunCache | None = None,
) -> pd.DataFrame:
    """Tidy table of the layers' values on ``scenario`` beside a reference layer.

    Parameters
    ----------
    scenario
        A :class:`~tcpfluid.scenarios.Scenario` or a registered scenario name.
    engines
        Layers compared with the reference: ``"rounds"``, ``"ode"``, ``"packet"``,
        ``"closed-form"`` (:data:`LAYERS`); the reference itself is left out.
    quantities
        Names of :data:`QUANTITIES` (default: all).
    reference
        The layer the others are compared against (default the packet simulator, the
        referee of the fluid layers; ``"closed-form"`` for the closed forms).
    algorithm
        Run every flow with this law (:meth:`Scenario.with_algorithm`); needed when the
        scenario's flows have none.
    sets
        Parameter overrides of a scenario given by name (``{"bandwidth": "155Mbps"}``).
    options
        Per engine, keyword options of :func:`tcpfluid.simulate`
        (``{"rounds": {"rtt_model": "fluid"}, "packet": {"seed": 1}}``).
    tolerance
        When given (one :class:`Tolerance` or one per quantity), the table gets the
        ``tolerance`` and ``ok`` columns.
    cache
        Reuse runs across calls (:class:`RunCache`); default a fresh cache per call.

    Returns
    -------
    pandas.DataFrame
        One row per quantity, flow, bandwidth change and compared layer. Columns:
        ``quantity``, ``flow`` (``"all"`` for the scenario-wide quantities), ``change``
        (index of the bandwidth change for ``convergence_times_s``, else ``None``),
        ``engine``, ``value``, ``reference``, ``relative_error`` ((value − reference) /
        |reference|), ``reference_layer``, ``unit``, ``change_time_s``, ``tolerance``,
        ``ok`` (``None``: not judged) and ``note`` (why a value is missing). Missing values
        are ``NaN``/``None``.

    Raises
    ------
    ValueError
        Unknown layer, quantity, scenario or parameter; flows without an algorithm.
    """
    import pandas as pd

    sc, eng, qs, opts = _prepare(scenario, engines, quantities, reference, algorithm, sets, options)
    rows = _rows(sc, eng, qs, reference, opts, cache or RunCache(), _tolerances(tolerance, qs))
    df = pd.DataFrame(rows, columns=list(_COLUMNS))
    df["change"] = df["change"].astype("Int64")
    for col in ("value", "reference", "relative_error", "change_time_s"):
        df[col] = df[col].astype(float)
    return df


_COLUMNS = (
    "quantity",
    "flow",
    "change",
    "engine",
    "value",
    "reference",
    "relative_error",
    "reference_layer",
    "unit",
    "change_time_s",
    "tolerance",
    "ok",
    "note",
)


class LayersDisagree(AssertionError):
    """A comparison outside its tolerance: the message names the layer that is off.

    Attributes
    ----------
    off
        The layers judged off (engine names or ``"closed-form"``).
    rows
        Every row of the comparison (the columns of :func:`compare`).
    """

    def __init__(self, message: str, off: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> None:
        super().__init__(message)
        self.off = tuple(off)
        self.rows = [dict(r) for r in rows]


def _fmt(x: Any) -> str:
    v = _number(x)
    if v is None:
        return "n/a"
    a = abs(v)
    if v == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The comparison rows as a fixed-width text table (as failure messages print it)."""
    head = [
        "quantity",
        "flow",
        "change",
        "engine",
        "value",
        "reference",
        "rel.err",
        "tolerance",
        "ok",
        "note",
    ]
    body = []
    for r in rows:
        err = _number(r.get("relative_error"))
        body.append(
            [
                str(r["quantity"]),
                str(r["flow"]),
                "" if r.get("change") is None else f"{r['change']} @{r['change_time_s']:g}s",
                str(r["engine"]),
                _fmt(r.get("value")),
                _fmt(r.get("reference")),
                "" if err is None else f"{100 * err:+.1f} %",
                r.get("tolerance") or "",
                {True: "ok", False: "FAIL", None: "-"}[r.get("ok")],
                str(r.get("note") or ""),
            ]
        )
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *body]
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _judge(
    sc: Scenario,
    rows: list[dict[str, Any]],
    reference: str,
    tolerances: dict[str, Tolerance],
    engines: Sequence[str],
) -> None:
    """Raise :class:`LayersDisagree` when a judged row failed.

    A failing value blames its engine, except when two or more engines were compared and
    every one of them misses the reference on that value while agreeing with each other
    within the tolerance: then the reference is the layer that is off.
    """
    __tracebackhide__ = True  # pytest shows the caller's line and this message only
    failed = [r for r in rows if r["ok"] is False]
    if not failed:
        return
    by_key: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        by_key.setdefault((r["quantity"], r["flow"], r["change"]), []).append(r)

    def reference_is_off(key: tuple[Any, ...]) -> bool:
        group = by_key[key]
        maybe = [_number(r["value"]) for r in group]
        vals = [v for v in maybe if v is not None]
        if len(engines) < 2 or any(r["ok"] is not False for r in group) or len(vals) < len(maybe):
            return False
        tol = tolerances[group[0]["quantity"]]
        return all(tol.passes(v, vals[0]) for v in vals[1:])

    off: list[str] = []
    lines: list[str] = []
    ref_label = LAYER_LABELS[reference]
    for r in failed:
        key = (r["quantity"], r["flow"], r["change"])
        blame = reference if reference_is_off(key) else r["engine"]
        if blame not in off:
            off.append(blame)
        tol = tolerances[r["quantity"]]
        where = (
            r["flow"] if r["change"] is None else f"{r['flow']}, change at {r['change_time_s']:g} s"
        )
        err = _number(r["relative_error"])
        e = f" ({100 * err:+.1f} %)" if err is not None else ""
        unit = f" {r['unit']}" if r["unit"] else ""
        extra = f"; {r['note']}" if r["note"] else ""
        if blame == reference:
            extra += f"; every engine agrees with the others here: the {ref_label} is off"
        lines.append(
            f"  {r['quantity']} [{where}]: {LAYER_LABELS[r['engine']]} {_fmt(r['value'])} vs "
            f"{ref_label} {_fmt(r['reference'])}{unit}{e}, tolerance {tol.describe()} "
            f"({tol.reason}){extra}"
        )
    algs = sorted({f.algorithm or "?" for f in sc.flows})
    names = " and ".join(f"the {LAYER_LABELS[o]}" for o in off)
    judged = sum(1 for r in rows if r["ok"] is not None)
    head = (
        f"{names} {'is' if len(off) == 1 else 'are'} off on scenario {sc.name!r} "
        f"({', '.join(algs)}): {len(failed)} of {judged} judged values outside their "
        f"tolerance against the {ref_label}"
    )
    message = "\n".join([head, *lines, "", format_table(rows)])
    raise LayersDisagree(message, off, rows)


def _required_tolerance(tolerance: Any, quantities: Sequence[str]) -> dict[str, Tolerance]:
    tols = _tolerances(tolerance, quantities)
    if tols is None:
        raise TypeError(
            "tolerance is required: a Tolerance(rel=..., reason=...) or one per quantity"
        )
    for q, t in tols.items():
        if not t.reason.strip():
            raise ValueError(
                f"the tolerance of {q!r} has no reason; state why the layers may differ that "
                "much (Tolerance(rel=0.2, reason='...'))"
            )
    return tols


def assert_layers_agree(
    scenario: Scenario | str,
    quantities: Iterable[str] | str | None = None,
    engines: Iterable[str] | str = ("rounds",),
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    *,
    reference: str = "packet",
    algorithm: str | None = None,
    sets: Mapping[str, Any] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    cache: RunCache | None = None,
) -> list[dict[str, Any]]:
    """Assert that ``engines`` agree with the ``reference`` layer within ``tolerance``.

    Parameters are those of :func:`compare`; ``tolerance`` is required (a :class:`Tolerance`
    with a non-empty reason, or a mapping quantity -> Tolerance).

    A value judged is a number on both sides (within tolerance to pass), or missing on both
    sides because it did not happen (e.g. neither settled: passes); a value one side gives
    and the other reports as not happening fails. Values a layer cannot give (a closed form
    that does not apply, a flow not active after a change) are shown but not judged.

    Returns
    -------
    list of dict
        The comparison rows (as :func:`compare`'s columns) when everything agrees.

    Raises
    ------
    LayersDisagree
        Its message names the layer that is off (the engines outside their tolerance, or
        the reference when every compared engine misses it the same way and they agree with
        each other), lists each failing value with its tolerance and reason, and prints the
        whole table.
    """
    __tracebackhide__ = True
    sc, eng, qs, opts = _prepare(scenario, engines, quantities, reference, algorithm, sets, options)
    tols = _required_tolerance(tolerance, qs)
    rows = _rows(sc, eng, qs, reference, opts, cache or RunCache(), tols)
    _judge(sc, rows, reference, tols, eng)
    return rows


def assert_matches_closed_form(
    scenario: Scenario | str,
    quantities: Iterable[str] | str | None = ("ss_exit_window", "settled_window"),
    engines: Iterable[str] | str = ("packet",),
    tolerance: Tolerance | Mapping[str, Tolerance] | None = None,
    *,
    algorithm: str | None = None,
    sets: Mapping[str, Any] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
    cache: RunCache | None = None,
) -> list[dict[str, Any]]:
    """Assert that ``engines`` match the closed forms within ``tolerance``.

    :func:`assert_layers_agree` with ``reference="closed-form"``. Values for which no
    closed form applies (see :func:`predict_scenario`) are shown but not judged; if none
    of the requested values has a closed form, that is an error (the check could not fail).

    Raises
    ------
    LayersDisagree
        As :func:`assert_layers_agree`; when two or more engines all miss the closed form
        the same way and agree with each other, the message names the closed form as the
        layer that is off.
    ValueError
        No requested quantity has a closed form on this scenario.
    """
    __tracebackhide__ = True
    sc, eng, qs, opts = _prepare(
        scenario, engines, quantities, CLOSED_FORM, algorithm, sets, options
    )
    tols = _required_tolerance(tolerance, qs)
    rows = _rows(sc, eng, qs, CLOSED_FORM, opts, cache or RunCache(), tols)
    if all(r["reference"] is None for r in rows):
        notes = sorted({r["note"] for r in rows})
        raise ValueError(
            f"no closed form applies to {', '.join(qs)} on scenario {sc.name!r}: "
            + "; ".join(notes)
        )
    _judge(sc, rows, CLOSED_FORM, tols, eng)
    return rows


# ------------------------------------------------------------------------------ predict
@dataclass(frozen=True)
class Predicted:
    """One predicted value of :func:`predict_scenario`.

    Attributes
    ----------
    quantity
        A name of :data:`PREDICTED`.
    flow
        The flow's name.
    change, change_time_s
        For ``convergence_times_s``: index and time of the bandwidth change; else ``None``.
    value
        The value (``None``: does not happen, e.g. the round model does not settle).
    unit
        ``"pkts"`` or ``"s"``.
    source
        ``"closed form"``, ``"round model"`` (``"ODE model"`` on a scenario the round model
        cannot run), or ``"-"`` for a change during which the flow is not active.
    note
        Why the closed form does not apply (when the source is the round model), or why the
        value is missing.
    """

    quantity: str
    flow: str
    change: int | None
    change_time_s: float | None
    value: float | None
    unit: str
    source: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {
            "quantity": self.quantity,
            "flow": self.flow,
            "change": self.change,
            "change_time_s": self.change_time_s,
            "value": self.value,
            "unit": self.unit,
            "source": self.source,
            "note": self.note,
        }


def _fluid_fallback(sc: Scenario, rtt_model: str, cache: RunCache) -> tuple[_Layer, str, str]:
    """The round model's values, or the ODE model's when the round model cannot run ``sc``
    (returns the layer, its label and a note saying why the ODE stands in)."""
    from .scenarios import fluid_view

    try:
        fluid_view(sc, engine="rounds")
    except ValueError:
        why = "the round model cannot run this scenario: the ODE model stands in"
        return cache.layer(sc, "ode"), LAYER_LABELS["ode"], why
    return cache.layer(sc, "rounds", {"rtt_model": rtt_model}), LAYER_LABELS["rounds"], ""


def predict_scenario(
    scenario: Scenario | str,
    *,
    algorithm: str | None = None,
    sets: Mapping[str, Any] | None = None,
    rtt_model: str = "average",
    cache: RunCache | None = None,
) -> list[Predicted]:
    """Per flow: slow-start exit, settled window, times to equilibrium and to convergence.

    Each value comes from the closed forms where they apply (the rules are those of the
    closed-form layer: a law with a closed form, one shared bottleneck and base RTT, a
    group of flows starting together on a path no other flow uses; an increase of the
    available bandwidth for convergence) and from the round model otherwise; ``source``
    says which, ``note`` why the closed form does not apply. The round model runs only when
    some value needs it; on a scenario it cannot model (a RED queue, flows of unequal base
    RTT, a bottleneck not every flow crosses) the ODE model stands in for it, and the note
    says so.

    Parameters
    ----------
    scenario, algorithm, sets
        As :func:`compare`.
    rtt_model
        The round model's RTT model (:data:`tcpfluid.engines.RTT_MODELS`).
    cache
        Reuse runs (:class:`RunCache`).

    Returns
    -------
    list of Predicted
        Flow by flow, in the order of :data:`PREDICTED` (one ``convergence_times_s`` entry
        per bandwidth change).
    """
    sc = _scenario(scenario, algorithm, sets)
    cache = cache or RunCache()
    closed = cache.layer(sc, CLOSED_FORM)
    changes = _change_times(sc)
    fluid: _Layer | None = None
    label = instead = ""
    out: list[Predicted] = []
    for f in sc.flows:
        for q in PREDICTED:
            for k in range(len(changes)) if q == "convergence_times_s" else (-1,):
                key = (q, f.name, k)
                v = closed.values.get(key)
                change = None if k < 0 else k
                when = None if k < 0 else changes[k]
                if when is not None and not f.start_s < when < f.stop_s:
                    out.append(
                        Predicted(q, f.name, change, when, None, QUANTITIES[q], "-", "not active")
                    )
                    continue
                if v is not None:
                    out.append(
                        Predicted(
                            q,
                            f.name,
                            change,
                            when,
                            v,
                            QUANTITIES[q],
                            "closed form",
                            closed.notes.get(key, ""),
                        )
                    )
                    continue
                if fluid is None:
                    fluid, label, instead = _fluid_fallback(sc, rtt_model, cache)
                why = closed.notes.get(key, "")
                rv = fluid.values.get(key)
                note = "; ".join(x for x in (f"no closed form: {why}" if why else "", instead) if x)
                if rv is None:
                    note = f"{note}; {label}: {fluid.notes.get(key, '')}".lstrip("; ")
                out.append(Predicted(q, f.name, change, when, rv, QUANTITIES[q], label, note))
    return out
