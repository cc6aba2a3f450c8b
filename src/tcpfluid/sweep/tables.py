"""Sweep tables: :class:`SweepResult`, writing and reading ``.csv``/``.parquet``."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._json import fields_dict
from .._validation import atomic_output, memory_budget_bytes
from ._engines import _Outcome
from .config import _PATH_COLUMNS, _TEXT_COLUMNS

if TYPE_CHECKING:
    from .config import Sweep


@dataclass(frozen=True, eq=False)
class SweepResult:
    """The outcome of a sweep: the ``table`` (one row per point, docs/sweeps.md), what was
    run (``engine``, ``metrics``, ``parameters``), points computed and taken from the cache."""

    table: pd.DataFrame = field(repr=False)
    engine: str
    metrics: tuple[str, ...]
    parameters: tuple[str, ...]
    n_computed: int
    n_cached: int

    @property
    def n_points(self) -> int:
        """Rows of the table."""
        return len(self.table)

    @property
    def n_failed(self) -> int:
        """Points whose status is not ``"ok"``."""
        return int((self.table["status"] != "ok").sum())

    def to_frame(self) -> pd.DataFrame:
        """A copy of :attr:`table`."""
        return self.table.copy()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what was run, the counts and the rows (NaN as ``None``)."""
        rows = self.table.astype(object).where(self.table.notna(), None).to_dict("records")
        keys = ("engine", "metrics", "parameters", "n_points", "n_computed", "n_cached", "n_failed")
        return {**fields_dict(self, keys), "rows": rows}

    def plot(self, metric: str, **options: Any) -> list[Any]:
        """Line plot or heat map of ``metric``: :func:`plot_sweep` of this table, with its
        keyword options (``x``, ``y``, ``where``, ``by``, ``ax``); returns the artists."""
        from .plotting import plot_sweep

        return plot_sweep(self.table, metric, **options)

    def write(self, path: str | os.PathLike[str]) -> FsPath:
        """Write the table to ``.csv`` or ``.parquet``, atomically; ValueError for another
        extension or parquet without pyarrow, OSError if it cannot be written."""
        out = FsPath(path)
        fmt = _table_format(out)
        with atomic_output(out) as tmp:
            getattr(self.table, f"to_{fmt}")(tmp, index=False)
        return out


def _table_format(path: FsPath, *, reading: bool = False) -> str:
    """``"csv"`` or ``"parquet"`` by the suffix of ``path``, a table to write or (``reading``)
    to read; ValueError naming the file for another suffix, or parquet without pyarrow."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(
                f"{str(path)!r}: writing parquet needs pyarrow; install the extra with "
                "`pip install tcpfluid[parquet]` (or use a .csv file)"
            ) from None
        return "parquet"
    if reading:
        hint = (
            " (a sweep config? run `tcpfluid sweep CONFIG.toml --out TABLE.csv`, then read "
            "TABLE.csv)"
            if suffix == ".toml"
            else ""
        )
        raise ValueError(
            f"sweep table {str(path)!r} must be a .csv or .parquet file written by "
            f"`tcpfluid sweep`, got {suffix!r}{hint}"
        )
    raise ValueError(f"output file {str(path)!r} must end in .csv or .parquet, got {suffix!r}")


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a sweep table written by :meth:`SweepResult.write`; ValueError if it is missing,
    cannot be parsed or is not a sweep table."""
    p = FsPath(path)
    fmt = _table_format(p, reading=True)
    if not p.is_file():
        raise ValueError(f"sweep file {str(p)!r} does not exist")
    try:
        df = pd.read_csv(p) if fmt == "csv" else pd.read_parquet(p)
    except (ValueError, OSError) as exc:  # empty or unparsable csv, corrupt parquet
        raise ValueError(
            f"{str(p)!r} is not a readable {fmt} sweep table ({exc}); write one with "
            "`tcpfluid sweep`"
        ) from None
    for col in ("message", "reason", *_TEXT_COLUMNS):  # csv reads the empty texts as NaN
        if col in df.columns:
            df[col] = df[col].astype(object).where(df[col].notna(), "").astype(str)
    for col in ("point", "status", *_PATH_COLUMNS):
        if col not in df.columns:
            raise ValueError(
                f"{str(p)!r} is not a sweep table (no {col!r} column); write one with "
                "`tcpfluid sweep`"
            )
    return df


# why a metric of a successful point can be empty (the engine's ``None``: did not happen)
_MISSING_REASONS = {
    **dict.fromkeys(
        ("settled_window", "time_to_equilibrium_s"),
        "the flow did not settle before the end of the run",
    ),
    **dict.fromkeys(
        ("ss_exit_window", "ss_exit_time_s", "ss_exit_round"),
        "slow start did not end before the end of the run",
    ),
    "convergence_times_s": "the flows did not settle again after a change before the end",
    "rounds_to_equilibrium": "the closed form gives no equilibrium for this path",
    "critical_window": "the closed form gives no critical window for this path",
}


class _Results:
    """The points' outcomes, held column by column: the metrics, the engine's text
    ``columns`` (:meth:`SweepEngine.columns`) and the reasons an engine gives for empty
    metrics (its summary's ``"reasons"``, ``{metric: why}``)."""

    NOT_RUN, OK, ERROR = 0, 1, 2

    def __init__(self, n: int, metrics: tuple[str, ...], columns: tuple[str, ...] = ()) -> None:
        self.n, self.metrics = n, metrics
        self.status = np.zeros(n, dtype=np.uint8)
        self.messages: dict[int, str] = {}
        self.values: dict[str, list[Any]] = {m: [None] * n for m in metrics}
        self.texts: dict[str, list[str]] = {c: [""] * n for c in columns}
        self.reasons: dict[int, dict[str, str]] = {}

    def set(self, i: int, out: _Outcome) -> None:
        """Record point ``i`` (an ``"ok"`` outcome must carry every metric)."""
        ok = out.status == "ok"
        self.status[i] = self.OK if ok else self.ERROR
        if ok:
            self.messages.pop(i, None)
        else:
            self.messages[i] = out.message
        for m in self.metrics:
            self.values[m][i] = out.summary[m] if ok else None
        for c, texts in self.texts.items():
            texts[i] = str(out.summary.get(c) or "") if ok else ""
        why = out.summary.get("reasons") if ok else None
        if isinstance(why, dict) and why:
            self.reasons[i] = {str(k): str(v) for k, v in why.items()}
        else:
            self.reasons.pop(i, None)

    def reason(self, i: int) -> str:
        """Why the point's empty metrics are empty (``""`` if none is, or it failed)."""
        if self.status[i] != self.OK:
            return ""
        own = self.reasons.get(i, {})
        parts = []
        for m in self.metrics:
            v = self.values[m][i]
            if v is None or (isinstance(v, list) and any(x is None for x in v)):
                why = own.get(m) or _MISSING_REASONS.get(m, "did not happen during the run")
                parts.append(f"{m}: {why}")
        return "; ".join(parts)


def _param_column(sw: Sweep, name: str) -> list[Any]:
    """The values of parameter ``name`` for every point (a grid: computed from its axes)."""
    from .grids import Grid

    g = sw.points
    if isinstance(g, Grid) and name in g.axes:
        return g._column(list(g.axes).index(name), np.arange(len(g)))
    return [p.get(name) for p in g]


def _table(
    sw: Sweep, results: _Results, paths: np.ndarray, files: Mapping[str, str]
) -> pd.DataFrame:
    from .config import _point_seed

    n = len(sw.points)
    cols: dict[str, Any] = {
        "point": np.arange(n),
        "scenario": _param_column(sw, "scenario"),
        "algorithm": _param_column(sw, "algorithm"),
    }
    for name in sw.parameters:
        vals = _param_column(sw, name)
        kinds = {type(v) for v in vals if v is not None}
        if len(kinds) > 1:  # e.g. buffer = ["inf", 100]: one type per column (parquet)
            vals = [None if v is None else str(v) for v in vals]
        cols[name] = vals
    arr = np.asarray(paths, dtype=np.float64).reshape(n, 3)
    for j, name in enumerate(_PATH_COLUMNS):
        cols[name] = arr[:, j]
    for m in sw.metrics:
        values = results.values[m]
        if any(isinstance(v, list) for v in values):
            width = max(len(v) for v in values if isinstance(v, list))
            for k in range(width):
                cols[f"{m}[{k}]"] = _column(
                    [v[k] if isinstance(v, list) and k < len(v) else None for v in values]
                )
        else:
            cols[m] = _column(values)
    names = np.array(["error", "ok", "error"], dtype=object)
    cols["status"] = names[results.status].tolist()
    not_run = (results.status == _Results.NOT_RUN).tolist()
    cols["message"] = [
        "not run" if skipped else results.messages.get(i, "") for i, skipped in enumerate(not_run)
    ]
    cols["reason"] = [results.reason(i) for i in range(n)]
    cols.update(results.texts)
    cols["seed"] = np.fromiter((_point_seed(p, files) for p in sw.points), dtype=np.int64, count=n)
    return pd.DataFrame(cols)


def _column(values: list[Any]) -> Any:
    """Numbers as float (None → NaN); booleans kept as object with None."""
    if any(isinstance(v, bool) for v in values):
        return pd.array(values, dtype="boolean")
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


#: memory a sweep's table takes per point and per metric (``benchmarks/grid.py``)
_BYTES_PER_POINT = 700
_BYTES_PER_METRIC = 16


def check_table_fits(n_points: int, n_metrics: int) -> None:
    """Refuse, before any work, a grid whose table would take over half of the memory."""
    need = n_points * (_BYTES_PER_POINT + _BYTES_PER_METRIC * n_metrics)
    budget = memory_budget_bytes()
    if need > budget:
        most = budget // (_BYTES_PER_POINT + _BYTES_PER_METRIC * n_metrics)
        raise ValueError(
            f"the grid has {n_points:,} points; its table would take about "
            f"{need / 1e9:.1f} GB, more than the {budget / 1e9:.1f} GB ceiling (half of this "
            f"machine's memory): split the grid into sweeps of at most {most:,} points "
            "(one value of an axis each) or request fewer metrics"
        )
