"""The comparison table: :func:`compare`, its rows, and :func:`format_table`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._text import number
from ._cache import RunCache, _check_layers, _check_quantities, _scenario
from ._layers import (
    AGGREGATE,
    ALL_FLOWS,
    ENGINES,
    LAYER_LABELS,
    LAYERS,
    QUANTITIES,
    _change_times,
    _number,
)
from ._tolerance import Tolerance

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
    from .._text import columns

    return columns(head, body)
