"""The comparison table (:func:`compare`, :func:`format_table`), the assertions on it
(:func:`assert_layers_agree`, :func:`assert_matches_closed_form`, :class:`LayersDisagree`)
and the per-flow predictions (:func:`predict_scenario`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .._json import FieldsDict
from .._text import columns, number
from ..analytic._scenario_flows import change_times
from ._layers import (
    AGGREGATE,
    ALL_FLOWS,
    CLOSED_FORM,
    ENGINES,
    LAYER_LABELS,
    LAYERS,
    PREDICTED,
    QUANTITIES,
    RunCache,
    Tolerance,
    _check_layers,
    _check_quantities,
    _Layer,
    _number,
    _scenario,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..scenarios import Scenario


def _tolerances(
    tolerance: Tolerance | Mapping[str, Tolerance] | None, quantities: Sequence[str]
) -> dict[str, Tolerance] | None:
    if tolerance is None:
        return None
    if isinstance(tolerance, Tolerance):
        return {q: tolerance for q in quantities}
    if isinstance(tolerance, Mapping):
        if not tolerance:
            raise ValueError(
                "tolerance must map each compared quantity to a Tolerance, got an empty "
                f"mapping {tolerance!r}"
            )
        for q in quantities:
            if not isinstance(t := tolerance.get(q), Tolerance):
                raise ValueError(
                    f"tolerance has no Tolerance for quantity {q!r} (got {t!r}); give one "
                    f"per compared quantity or a single Tolerance"
                )
        return {q: tolerance[q] for q in quantities}
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
    changes = change_times(sc)
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
                    else:  # one side has a value, the other has none
                        note = f"{label}: {note}" if v is None else f"{ref_label}: {r_note}"
                        ok = False if tol else None
                    change = (None, None) if k < 0 else (k, changes[k])
                    values = (q, flow, change[0], lay.layer, v, r, err, reference, QUANTITIES[q])
                    judged = (change[1], tol.describe() if tol else None, ok, note)
                    rows.append(dict(zip(_COLUMNS, (*values, *judged), strict=True)))
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
    from ..engines import _check_engine

    eng = [_check_engine(e, LAYERS) for e in engines]
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
        Names of :data:`QUANTITIES`, at least one (default: all).
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
        One row per quantity, flow (``"all"`` for the scenario-wide quantities), bandwidth
        change and compared layer; columns ``quantity``, ``flow``, ``change``, ``engine``,
        ``value``, ``reference``, ``relative_error``, ``reference_layer``, ``unit``,
        ``change_time_s``, ``tolerance``, ``ok``, ``note`` (docs/testing.md).

    Raises
    ------
    ValueError
        Unknown layer, quantity, scenario or parameter; no quantity; an empty tolerance
        mapping; flows without an algorithm.
    """
    import pandas as pd

    sc, eng, qs, opts = _prepare(scenario, engines, quantities, reference, algorithm, sets, options)
    rows = _rows(sc, eng, qs, reference, opts, cache or RunCache(), _tolerances(tolerance, qs))
    df = pd.DataFrame(rows, columns=list(_COLUMNS))
    df["change"] = df["change"].astype("Int64")
    for col in ("value", "reference", "relative_error", "change_time_s"):
        df[col] = df[col].astype(float)
    return df


#: the columns of :func:`compare`, in order
_COLUMNS = (
    "quantity", "flow", "change", "engine", "value", "reference", "relative_error",
    "reference_layer", "unit", "change_time_s", "tolerance", "ok", "note",
)  # fmt: skip


def _fmt(x: Any) -> str:
    v = _number(x)
    return "n/a" if v is None else number(v)


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The comparison rows as a fixed-width text table (as failure messages print it)."""
    head = [*_COLUMNS[:6], "rel.err", "tolerance", "ok", "note"]
    body = []
    for r in rows:
        err = _number(r.get("relative_error"))
        q, flow = str(r["quantity"]), str(r["flow"])
        change = "" if r.get("change") is None else f"{r['change']} @{r['change_time_s']:g}s"
        values = (str(r["engine"]), _fmt(r.get("value")), _fmt(r.get("reference")))
        rel = "" if err is None else f"{100 * err:+.1f} %"
        tol, ok = r.get("tolerance") or "", {True: "ok", False: "FAIL", None: "-"}[r.get("ok")]
        body.append([q, flow, change, *values, rel, tol, ok, str(r.get("note") or "")])
    return columns(head, body)


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


def _judge(
    sc: Scenario,
    rows: list[dict[str, Any]],
    reference: str,
    tolerances: dict[str, Tolerance],
    engines: Sequence[str],
) -> None:
    """Raise :class:`LayersDisagree` when a judged row failed, naming the layer that is off
    (docs/testing.md)."""
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


def _judged_rows(
    args: tuple[Any, ...], tolerance: Any, cache: RunCache | None, *, closed_form: bool
) -> list[dict[str, Any]]:
    """The rows of an assertion (``args``: those of :func:`_prepare`), judged against
    ``tolerance`` (required, each with a reason); with ``closed_form``, a closed form must
    apply to at least one value (else the check could not fail)."""
    __tracebackhide__ = True
    sc, eng, qs, opts = _prepare(*args)
    reference = args[3]
    tols = _tolerances(tolerance, qs)
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
    rows = _rows(sc, eng, qs, reference, opts, cache or RunCache(), tols)
    if closed_form and all(r["reference"] is None for r in rows):
        notes = sorted({r["note"] for r in rows})
        raise ValueError(
            f"no closed form applies to {', '.join(qs)} on scenario {sc.name!r}: "
            + "; ".join(notes)
        )
    _judge(sc, rows, reference, tols, eng)
    return rows


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
    with a non-empty reason, or a mapping quantity -> Tolerance). What is judged:
    docs/testing.md.

    Returns
    -------
    list of dict
        The comparison rows (as :func:`compare`'s columns) when everything agrees.

    Raises
    ------
    LayersDisagree
        Naming the layer that is off (docs/testing.md), each failing value with its
        tolerance and reason, and the whole table.
    """
    __tracebackhide__ = True
    args = (scenario, engines, quantities, reference, algorithm, sets, options)
    return _judged_rows(args, tolerance, cache, closed_form=False)


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

    :func:`assert_layers_agree` with ``reference="closed-form"``; values with no closed form
    are shown but not judged.

    Raises
    ------
    LayersDisagree
        As :func:`assert_layers_agree`.
    ValueError
        No requested quantity has a closed form on this scenario.
    """
    __tracebackhide__ = True
    args = (scenario, engines, quantities, CLOSED_FORM, algorithm, sets, options)
    return _judged_rows(args, tolerance, cache, closed_form=True)


@dataclass(frozen=True)
class Predicted(FieldsDict):
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


def _fluid_fallback(sc: Scenario, rtt_model: str, cache: RunCache) -> tuple[_Layer, str, str]:
    """The round model's values, or the ODE model's when the round model cannot run ``sc``
    (returns the layer, its label and a note saying why the ODE stands in)."""
    try:
        return cache.layer(sc, "rounds", {"rtt_model": rtt_model}), LAYER_LABELS["rounds"], ""
    except ValueError as exc:
        reason = str(exc).split("; engines that can")[0]
        why = f"the round model cannot run this scenario ({reason}): the ODE model stands in"
        try:
            return cache.layer(sc, "ode"), LAYER_LABELS["ode"], why
        except ValueError as ode_exc:
            raise ValueError(
                f"no prediction for scenario {sc.name!r}: the closed forms need the round "
                f"model or the ODE model where they do not apply, and neither can run it "
                f"({ode_exc}); run it on the packet simulator (engine 'packet')"
            ) from ode_exc


def predict_scenario(
    scenario: Scenario | str,
    *,
    algorithm: str | None = None,
    sets: Mapping[str, Any] | None = None,
    rtt_model: str = "average",
    cache: RunCache | None = None,
) -> list[Predicted]:
    """Per flow: slow-start exit, settled window, times to equilibrium and to convergence.

    Each value comes from the closed forms where they apply (docs/testing.md) and from
    the round model otherwise (run only when a value needs it; the ODE model stands in on a
    scenario the round model cannot run); ``source`` says which, ``note`` why.

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
    changes = change_times(sc)
    fluid: _Layer | None = None
    label = instead = ""
    out: list[Predicted] = []
    for f in sc.flows:
        for q in PREDICTED:
            for k in range(len(changes)) if q == "convergence_times_s" else (-1,):
                key = (q, f.name, k)
                change, when = (None, None) if k < 0 else (k, changes[k])
                if when is not None and not f.start_s < when < f.stop_s:
                    v, source, note = None, "-", "not active"
                elif (v := closed.values.get(key)) is not None:
                    source, note = "closed form", closed.notes.get(key, "")
                else:
                    if fluid is None:
                        fluid, label, instead = _fluid_fallback(sc, rtt_model, cache)
                    why = closed.notes.get(key, "")
                    v, source = fluid.values.get(key), label
                    note = "; ".join(filter(None, (why and f"no closed form: {why}", instead)))
                    if v is None:
                        note = f"{note}; {label}: {fluid.notes.get(key, '')}".lstrip("; ")
                out.append(Predicted(q, f.name, change, when, v, QUANTITIES[q], source, note))
    return out
