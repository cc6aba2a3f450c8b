"""Budget and checks shared by the fuzz tests.

Budget: ``TCPFLUID_FUZZ=ci`` (the default: a few dozen examples per test, no deadline, so
the whole directory runs in well under a minute and never flakes on a slow machine) or
``TCPFLUID_FUZZ=long`` (thousands of examples per test, for a local run of several minutes:
``TCPFLUID_FUZZ=long .venv/bin/pytest tests/fuzz``). The settings are applied per test
(not as a global Hypothesis profile), so other tests keep their own budgets.

Contract checked: a public entry point either returns values without NaN or infinity
(where the argument does not ask for one) or raises ``ValueError``/``TypeError`` whose
message names one of the parameters it was given; any other exception fails the test.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_LEVEL = os.environ.get("TCPFLUID_FUZZ", "ci")
if _LEVEL not in ("ci", "long"):
    raise RuntimeError(f"TCPFLUID_FUZZ must be 'ci' or 'long', got {_LEVEL!r}")

#: settings of every fuzz test (the budget above)
FUZZ = settings(
    max_examples=2000 if _LEVEL == "long" else 25,
    deadline=None,
    derandomize=_LEVEL == "ci",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    database=None if _LEVEL == "ci" or settings.default is None else settings.default.database,
)

#: hostile numbers: zero, signs, tiny and huge magnitudes, NaN, infinities
NUMBERS = st.one_of(
    st.sampled_from(
        [
            0.0,
            -0.0,
            -1.0,
            1e-300,
            5e-324,
            1e300,
            1.7976931348623157e308,
            math.nan,
            math.inf,
            -math.inf,
            1,
            2,
            3,
        ]
    ),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**20), max_value=10**20),
)
#: hostile texts for parameters that take a number with a unit
TEXTS = st.one_of(
    st.sampled_from(
        [
            "",
            " ",
            "abc",
            "1e300",
            "-5",
            "0",
            "nan",
            "inf",
            "-inf",
            "1e-300bps",
            "50Mbps",
            "100ms",
            "5e-324s",
            "1e300B",
            "10%",
            "200%",
            "none",
            "1 2",
            "50 Mb/s",
            "0x10",
        ]
    ),
    st.text(max_size=12),
)
#: anything a caller might pass by mistake
ANYTHING = st.one_of(NUMBERS, TEXTS, st.none(), st.booleans(), st.lists(st.integers(), max_size=3))


def assert_finite(value: Any, where: str = "result") -> None:
    """No NaN or infinity anywhere in ``value`` (numbers, arrays, lists, dicts, dataclasses)."""
    if value is None or isinstance(value, bool | str):
        return
    if isinstance(value, int | float | np.integer | np.floating):
        assert math.isfinite(float(value)), f"{where} = {value!r}"
        return
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            assert np.all(np.isfinite(value)), f"{where} has non-finite entries"
        return
    if isinstance(value, dict):
        for k, v in value.items():
            assert_finite(v, f"{where}[{k!r}]")
        return
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            assert_finite(v, f"{where}[{i}]")
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            assert_finite(getattr(value, f.name), f"{where}.{f.name}")


def call_checked(
    fn: Callable[..., Any], names: Iterable[str], *args: Any, **kwargs: Any
) -> tuple[bool, Any]:
    """Call ``fn``; returns ``(True, result)``, or ``(False, exc)`` for a ValueError or
    TypeError naming one of ``names`` (any other exception, or an error that names none of
    the parameters, fails)."""
    names = list(names)
    try:
        return True, fn(*args, **kwargs)
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        assert any(n in msg for n in names), f"{type(exc).__name__} names none of {names}: {msg}"
        return False, exc
