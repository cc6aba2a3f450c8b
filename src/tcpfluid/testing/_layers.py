"""Layer names, compared quantities, and one layer's values for one scenario
(:class:`_Layer`, filled from an engine's summary by :func:`_engine_layer`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario

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


def _change_times(scenario: Scenario) -> tuple[float, ...]:
    """The run's changes as every engine's summary counts them (CBR starts and stops, flows
    joining and leaving, inside the run: :func:`tcpfluid.metrics.run_changes`)."""
    from ..metrics import run_changes

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
            active = fs.start_s < t < fs.stop_s
            why = "did not settle after the change" if active else "not active after the change"
            lay.put(("convergence_times_s", name, k), fs.convergence_times_s[k], why,
                    structural=not active)  # fmt: skip
        lay.put(("throughput_pps", name, -1), fs.throughput_pps, "not active in the run")
    lay.put(("utilization", ALL_FLOWS, -1), s.utilization, "no traffic measured")
    lay.put(("jain_index", ALL_FLOWS, -1), s.jain_index, "no flow measured")
    return lay
