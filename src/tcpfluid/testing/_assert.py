"""The assertions: :func:`assert_layers_agree`, :func:`assert_matches_closed_form`, and
the failure they raise (:class:`LayersDisagree`, naming the layer that is off)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._cache import RunCache
from ._compare import _fmt, _prepare, _rows, _tolerances, format_table
from ._layers import CLOSED_FORM, LAYER_LABELS, _number
from ._tolerance import Tolerance

if TYPE_CHECKING:  # pragma: no cover
    from ..scenarios import Scenario


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
