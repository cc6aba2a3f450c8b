"""Scenarios from names, engine runs, and the cache of runs and layers (:class:`RunCache`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._closed_form import _closed_form_layer
from ._layers import CLOSED_FORM, ENGINES, QUANTITIES, _engine_layer, _Layer

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario


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
    return sc


def _run_engine(scenario: Scenario, engine: str, options: Mapping[str, Any]) -> Any:
    """Run ``scenario`` on ``engine``: the one place that calls the engines."""
    from ..engines import simulate

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
        result = self._results[key] = _run_engine(scenario, engine, options)
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
