"""Shared by the report's document-table sections (Tsang's thesis, the TCP-Ho and the
iTCP-Vegas papers' tables): the three engines every such row runs, in task order, and a
row's cells from their runs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import product
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._table import CLOSED_FORM, DOCUMENT, NA, ODE, PACKET, ROUNDS, Value

#: the engines of a document-table row, in the order of its tasks
ENGINES = ("packet", "rounds", "ode")
#: engine -> its column
COLUMN = {"packet": PACKET, "rounds": ROUNDS, "ode": ODE}


def runs_by_case(cases: Iterable[Any], out: Iterable[Any]) -> dict[tuple[Any, str], Any]:
    """The tasks' results ``out`` (every case run on each of :data:`ENGINES`, in that
    order) keyed by ``(case, engine)``."""
    return dict(zip(product(cases, ENGINES), out, strict=True))


def engine_runs_cells(
    closed: Value,
    runs: Mapping[str, Any],
    cell: Callable[[Any], Value],
    document: Value,
) -> dict[str, Value]:
    """A row's cells: ``closed``, then each engine's ``cell(runs[engine])`` in
    :data:`ENGINES` order, then ``document``."""
    return {
        CLOSED_FORM: closed,
        **{COLUMN[e]: cell(runs[e]) for e in ENGINES},
        DOCUMENT: document,
    }


def map_value(v: Value, fn: Callable[[float], float]) -> Value:
    """``fn`` of a number cell; an ``n/a`` cell as it is."""
    return v if isinstance(v, NA) else fn(float(v))


def mean_rate_since(t: ArrayLike, delivered: ArrayLike, start_s: float) -> NDArray[np.float64]:
    """Each flow's mean delivery rate from ``start_s`` to the end of the run: its
    delivered packets ``delivered`` (a row per flow, sampled at ``t``) over that span."""
    ta = np.asarray(t, dtype=np.float64)
    dl = np.asarray(delivered, dtype=np.float64)
    at_start = np.array([np.interp(start_s, ta, row) for row in dl])
    return (dl[:, -1] - at_start) / (float(ta[-1]) - start_s)
