"""Per-flow predictions of a scenario from the closed forms, or the round model where
they do not apply (:func:`predict_scenario`, ``tcpfluid predict SCENARIO``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from ._cache import RunCache, _scenario
from ._layers import CLOSED_FORM, LAYER_LABELS, PREDICTED, QUANTITIES, _change_times, _Layer

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario


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
        return asdict(self)


def _fluid_fallback(sc: Scenario, rtt_model: str, cache: RunCache) -> tuple[_Layer, str, str]:
    """The round model's values, or the ODE model's when the round model cannot run ``sc``
    (returns the layer, its label and a note saying why the ODE stands in)."""
    try:
        return cache.layer(sc, "rounds", {"rtt_model": rtt_model}), LAYER_LABELS["rounds"], ""
    except ValueError as exc:
        reason = str(exc).split("; engines that can")[0]
        why = f"the round model cannot run this scenario ({reason}): the ODE model stands in"
        return cache.layer(sc, "ode"), LAYER_LABELS["ode"], why


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
                key, unit = (q, f.name, k), QUANTITIES[q]
                change, when = (None, None) if k < 0 else (k, changes[k])
                if when is not None and not f.start_s < when < f.stop_s:
                    out.append(Predicted(q, f.name, change, when, None, unit, "-", "not active"))
                    continue
                v = closed.values.get(key)
                if v is not None:
                    note = closed.notes.get(key, "")
                    out.append(Predicted(q, f.name, change, when, v, unit, "closed form", note))
                    continue
                if fluid is None:
                    fluid, label, instead = _fluid_fallback(sc, rtt_model, cache)
                why = closed.notes.get(key, "")
                rv = fluid.values.get(key)
                note = "; ".join(x for x in (f"no closed form: {why}" if why else "", instead) if x)
                if rv is None:
                    note = f"{note}; {label}: {fluid.notes.get(key, '')}".lstrip("; ")
                out.append(Predicted(q, f.name, change, when, rv, unit, label, note))
    return out
