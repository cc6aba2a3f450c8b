"""The command line's JSON text (:mod:`tcpfluid._json`) is the standard library's,
character for character: ``json.dumps(obj, indent=2, allow_nan=False)`` is the reference."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np
import pytest

from tcpfluid import _json
from tcpfluid.engines import simulate_summary


@pytest.mark.parametrize(
    "obj",
    [
        {},
        [],
        {"a": [], "b": {}, "c": [[]], "d": [[], []], "e": [[1.5, None], []]},
        {"x": [1, 2.5, None, True, "a, b", 'é\n"q"'], "y": 0.1, "z": None, 3: "k"},
        [{"a": [1, {"b": [2.0, [3, []]]}]}, "s", 1e300, -0.0, 2**70],
        {"nested": {"deeper": {"list": list(range(5)), "names": ["S1-D1", "S2-D2"]}}},
    ],
)
def test_the_text_is_the_standard_encoders(obj: Any) -> None:
    assert _json.dumps(obj) == json.dumps(obj, indent=2, allow_nan=False)


def test_a_run_summary_is_written_as_the_standard_encoder_writes_it() -> None:
    out = simulate_summary("qv-many-flows", "vegas", sets={"flows": 5, "duration": "150s"})
    assert _json.dumps(out) == json.dumps(out, indent=2, allow_nan=False)


def test_non_finite_numbers_are_refused_as_the_standard_encoder_refuses_them() -> None:
    for bad in ({"a": [1.0, math.nan]}, {"a": math.inf}, [[-math.inf]]):
        with pytest.raises(ValueError, match="Out of range float"):
            _json.dumps(bad)
    with pytest.raises(TypeError):
        _json.dumps({"a": object()})


def _reference(values: Any, *, nullable: bool, none_inf: bool, integer: bool) -> Any:
    """The plain list of ``values``, element by element (nested for rows)."""
    if isinstance(values, list):
        return [
            _reference(v, nullable=nullable, none_inf=none_inf, integer=integer) for v in values
        ]
    if nullable and (math.isnan(values) or (none_inf and values == math.inf)):
        return None
    return int(values) if integer else values  # an int or a float, as the array holds


def _columns() -> list[tuple[np.ndarray, dict[str, bool]]]:
    rng = np.random.default_rng(7)
    runs = np.repeat(
        rng.choice([1.5, -0.0, 0.0, np.nan, np.inf, 64.0], 40), rng.integers(1, 30, 40)
    )
    distinct = rng.normal(size=300)
    many = rng.normal(size=10000)
    rows = np.repeat(rng.choice([np.nan, 2.0, 0.1], (9, 3)), rng.integers(1, 40, 9), axis=0)
    return [
        (runs, {"nullable": True, "none_inf": True}),
        (np.where(np.isinf(runs), 3.0, runs), {"nullable": True}),
        (np.where(np.isfinite(runs), runs, 12.0), {"nullable": True, "integer": True}),
        (np.where(np.isfinite(runs), runs, 7.0), {}),
        (np.repeat(np.arange(5, dtype=np.int64), 50), {}),
        (distinct, {"nullable": True}),
        (np.round(distinct * 3) / 3, {"nullable": True}),
        (rows, {"nullable": True}),
        (np.zeros((200, 0)), {"nullable": True}),
        (np.full(100, np.nan), {"nullable": True}),
        (np.repeat(rows[:, :2], 60, axis=0), {"nullable": True}),
        (np.repeat(np.where(many > 1, np.nan, many), 4), {"nullable": True}),  # many runs
        (np.repeat(many.reshape(-1, 2), 5, axis=0), {"nullable": True}),
    ]


@pytest.mark.parametrize("case", range(len(_columns())))
def test_a_column_reads_and_writes_as_its_list(case: int) -> None:
    values, how = _columns()[case]
    col = _json.Column(values, **how)
    plain = col.tolist()
    expected = _reference(
        values.tolist(), **{"nullable": False, "none_inf": False, "integer": False, **how}
    )
    assert plain == expected
    assert [type(x) for x in plain] == [type(x) for x in expected]
    for doc in (col, {"a": {"b": col, "c": 1}}, [col, [col]]):
        ref = json.loads(json.dumps(doc, default=lambda c: c.tolist()))
        assert _json.dumps(doc) == json.dumps(ref, indent=2, allow_nan=False)


def test_rows_read_from_a_column_are_lists_of_their_own() -> None:
    rows = _json.Column(np.ones((100, 2)), nullable=True).tolist()
    rows[0].append(5.0)
    assert rows[1] == [1.0, 1.0]


def test_a_columns_text_is_refused_whole_when_a_value_cannot_be_written() -> None:
    bad = np.repeat([1.0, np.nan, np.inf], 100)
    for how in ({}, {"nullable": True}):
        out = io.StringIO()
        with pytest.raises(ValueError, match="Out of range float"):
            _json.dump({"ok": list(range(5)), "bad": _json.Column(bad, **how)}, out)
        assert out.getvalue() == ""


def test_numbered_names_and_strings_are_written_as_their_list() -> None:
    from tcpfluid.scenarios._names import Family, Names

    names = Names(
        [
            ["first", 'q"uo\\te', "é"],
            Family(7, 120, [("S", "-D", ""), ("x{", "}é\n", "")]),
            Family(995, 10, [("", "")]),
            ["last"],
        ]
    )
    spelled = ["first", 'q"uo\\te', "é"]
    spelled += [f"{p}{i}{q}{i}" for i in range(7, 127) for p, q in (("S", "-D"), ("x{", "}é\n"))]
    spelled += [f"{i}" for i in range(995, 1005)] + ["last"]
    assert list(names) == spelled
    reasons = np.array(["a ±1", None] * 50 + ["b"] * 100, dtype=object)
    for col in (_json.Column(names), _json.Column(reasons), _json.Column(list(names))):
        plain = list(col.values)
        assert col.tolist() == plain
        assert _json.dumps({"k": [col]}) == json.dumps({"k": [plain]}, indent=2)


def test_dump_writes_the_text_of_dumps() -> None:
    doc = {"a": _json.Column(np.repeat([0.1, 2.0], 5000)), "b": [1, None]}
    out = io.StringIO()
    _json.dump(doc, out)
    assert out.getvalue() == _json.dumps(doc)
