"""The command line's JSON text (:mod:`tcpfluid._json`) is the standard library's,
character for character: ``json.dumps(obj, indent=2, allow_nan=False)`` is the reference."""

from __future__ import annotations

import json
import math
from typing import Any

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
