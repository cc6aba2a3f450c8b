"""Test helper: two fluid-model results compared bit for bit (one run by two routes it must
not depend on: a kernel resumed at other steps, flows grouped in other law objects)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


def assert_same(a: Any, b: Any, where: str = "result") -> None:
    """Every field of two results (dataclasses, arrays, tuples and lists, objects and dicts,
    numbers) bit for bit: arrays by dtype, shape and bytes, other values by ``repr`` (so
    NaN equals NaN and -0.0 differs from 0.0). ``where`` names the field that differs."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}")
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert_same(vars(a), vars(b), where)
    else:
        assert repr(a) == repr(b), where
