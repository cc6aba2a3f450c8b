"""Plots of sweep tables: a metric over one parameter (lines) or two (a heat map)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..scenarios.topology import LAW_PARAMETER_KEYS

#: the unit in an axis label (names ending in _pkts, _pps, _s: by their suffix)
_METRIC_UNITS = {
    **dict.fromkeys(("ss_exit_window", "settled_window", "critical_window"), "packets"),
    **dict.fromkeys(("ss_exit_round", "rounds_to_equilibrium"), "rounds"),
    "utilization": "fraction of capacity", "jain_index": "Jain's index, 1 = fair",
    "losses": "loss events", "retransmissions": "packets", "timeouts": "timeouts",
}  # fmt: skip


# parameters of the registered scenarios that shape the bottleneck path
_PATH_PARAMETERS = frozenset(
    {"bandwidth", "rtt", "access_bandwidth", "access_delay", "packet_size", "ack_size"}
)


def _parameter_columns(table: pd.DataFrame) -> list[str]:
    cols = list(table.columns)
    return cols[cols.index("point") + 1 : cols.index("mu_pps")]


#: the unit of a scenario parameter given as a bare number (docs/sweeps.md)
_PARAMETER_UNITS = {"buffer": "packets", **dict.fromkeys(LAW_PARAMETER_KEYS, "packets")}
#: bytes per packet where a table has no ``packet_size`` column (every scenario's default)
_PACKET_BYTES = 1000.0


def _label(name: str) -> str:
    base = name.split("[")[0]
    suffixes = (("_pkts", "packets"), ("_pps", "packets/s"), ("_s", "s"))
    unit = _METRIC_UNITS.get(base) or _PARAMETER_UNITS.get(base)
    unit = unit or next((u for s, u in suffixes if base.endswith(s)), None)
    return f"{name} ({unit})" if unit else name


def _axis(table: pd.DataFrame, name: str) -> tuple[np.ndarray | None, list[Any], str]:
    """Numeric values of column ``name`` (None if categorical; strings with units parsed and
    shown in Mb/s or ms where that reads better, rates in one unit: :func:`_rates`), the
    raw values, the label."""
    from .. import units

    if name not in table.columns:
        raise ValueError(
            f"no column {name!r} in the sweep table; columns: {', '.join(map(str, table.columns))}"
        )
    raw = list(table[name])
    if pd.api.types.is_numeric_dtype(table[name]) and not pd.api.types.is_bool_dtype(table[name]):
        return np.asarray(raw, dtype=np.float64), raw, _label(name)
    rates = _rates(table, name)
    if rates is not None:
        return rates[0], raw, rates[1]
    parsers: tuple[tuple[Callable[..., float], str], ...] = (
        (units.time_or_zero, "s"),
        (units.bytes_, "bytes"),
    )
    for parse, unit in parsers:
        try:
            vals = np.array([parse(v, name=name) for v in raw], dtype=np.float64)
        except (ValueError, TypeError):
            continue
        top = float(np.nanmax(np.abs(vals))) if vals.size else 0.0
        if unit == "s" and 0.0 < top < 1.0:
            return vals * 1e3, raw, f"{name} (ms)"
        return vals, raw, f"{name} ({unit})"
    return None, raw, name


def _rates(table: pd.DataFrame, name: str) -> tuple[np.ndarray, str] | None:
    """Column ``name`` in one unit if every value is a rate with its unit (``None`` if not):
    bit rates in Mb/s (bit/s below 1 Mb/s), packet rates in packets/s; both kinds in
    packets/s, a bit rate over the row's ``packet_size`` (the label says which size)."""
    from .. import units

    raw = list(table[name])
    kinds = []  # per value: a bit rate (True) or a packet rate (False)
    for v in raw:
        if not isinstance(v, str):
            return None
        try:
            units.bits_per_second(v, name=name)
            kinds.append(True)
            continue
        except (ValueError, TypeError):
            pass
        try:
            units.link_rate_bps(v, packet_size_bytes=_PACKET_BYTES, name=name)
        except (ValueError, TypeError):
            return None
        kinds.append(False)
    if all(kinds):
        bps = np.array([units.bits_per_second(v, name=name) for v in raw], dtype=np.float64)
        top = float(np.nanmax(bps)) if bps.size else 0.0
        return (bps / 1e6, f"{name} (Mb/s)") if top >= 1e6 else (bps, f"{name} (bit/s)")
    sizes = [_PACKET_BYTES] * len(raw)
    what = f"bit rates over {_PACKET_BYTES:g}-byte packets"
    if "packet_size" in table.columns and any(kinds):
        sizes = [units.bytes_(b, name="packet_size") for b in table["packet_size"]]
        what = "bit rates over each row's packet_size"
    pps = np.array(
        [
            units.link_rate_bps(v, packet_size_bytes=b, name=name) / (8.0 * b)
            for v, b in zip(raw, sizes, strict=True)
        ],
        dtype=np.float64,
    )
    return pps, f"{name} (packets/s{'; ' + what if any(kinds) else ''})"


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def plot_sweep(
    table: pd.DataFrame,
    metric: str,
    *,
    x: str,
    y: str | None = None,
    where: Mapping[str, Any] | None = None,
    by: Sequence[str] | None = None,
    ax: Any = None,
) -> list[Any]:
    """Plot ``metric`` of a sweep ``table`` over ``x`` (one line per combination of ``by``,
    default the other varying parameters, less those that shape the path when ``x`` is a
    path column) or, with ``y``, as a heat map over ``x`` × ``y`` (the other parameters fixed
    by ``where``: ``{column: value}``, compared as numbers in a column of numbers, as text
    otherwise) on ``ax``; returns the artists.
    ValueError for unknown columns, no row left, or a heat map with ``y == x`` or other
    parameters varying (docs/sweeps.md).
    """
    import matplotlib.pyplot as plt

    if y is not None and y == x:
        raise ValueError(f"y must differ from x (a heat map needs two axes), got x = y = {y!r}")
    df = _select(table, metric, where)
    _, _, x_label = _axis(df, x)  # checks the column (a clear error before drawing)
    others = [
        c for c in _parameter_columns(df) if c not in (x, y) and df[c].astype(str).nunique() > 1
    ]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.4))
    if y is None:
        if by is not None:
            for c in by:
                if c not in df.columns:
                    raise ValueError(f"by: no column {c!r} in the sweep table")
            others = list(by)
        elif x not in _parameter_columns(df):
            others = [c for c in others if c not in _PATH_PARAMETERS]
        return _lines(ax, df, metric, x, others, x_label)
    if others:
        raise ValueError(
            f"a heat map of {metric} over {x} x {y} needs the other parameters fixed; "
            f"{', '.join(others)} vary: pick values with where= (--where KEY=VALUE)"
        )
    return _heat_map(ax, df, metric, x, y, x_label)


def _select(table: pd.DataFrame, metric: str, where: Mapping[str, Any] | None) -> pd.DataFrame:
    """The rows of ``table`` that ``where`` selects, ``metric`` emptied where a point failed."""
    if metric not in table.columns:
        raise ValueError(
            f"metric: no column {metric!r} in the sweep table; columns: "
            f"{', '.join(map(str, table.columns))}"
        )
    df = table
    for k, v in (where or {}).items():
        if k not in df.columns:
            raise ValueError(f"where: no column {k!r}; columns: {', '.join(map(str, df.columns))}")
        keep, shown = _matches(df[k], v)
        if not keep.any():
            raise ValueError(f"where {k}={v}: no row has that value; {k} takes: {shown}")
        df = df[keep]
    if not (df["status"] == "ok").any():
        raise ValueError("no successful point to plot (every selected row has status != ok)")
    return df.assign(**{metric: df[metric].where(df["status"] == "ok")})


def _matches(column: pd.Series, value: Any) -> tuple[pd.Series, str]:
    """The rows of ``column`` equal to ``value`` (a number column: compared as numbers, so
    that ``1`` selects the ``1.0`` a CSV reads back; otherwise as text) and its values."""
    numeric = pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)
    if numeric:
        values = sorted(set(column.dropna().tolist()))
        shown = ", ".join(
            f"{x:g}" if float(x).is_integer() and abs(x) < 1e15 else repr(x) for x in values
        )
        try:
            number = float(value)
        except (TypeError, ValueError):
            return pd.Series(False, index=column.index), shown
        return column == number, shown
    return column.astype(str) == str(value), ", ".join(sorted(column.astype(str).unique()))


def _lines(
    ax: Any, df: pd.DataFrame, metric: str, x: str, others: list[str], x_label: str
) -> list[Any]:
    """:func:`plot_sweep`'s lines: one per combination of ``others``."""
    artists: list[Any] = []
    groups = df.groupby(others, sort=False) if others else [((), df)]
    for key, sub in groups:
        xs, _, _ = _axis(sub, x)
        order = np.argsort(xs) if xs is not None else np.arange(len(sub))
        xv = xs[order] if xs is not None else np.arange(len(sub))
        yv = np.asarray(sub[metric], dtype=np.float64)[order]
        keys = key if isinstance(key, tuple) else (key,)
        lab = ", ".join(f"{c}={_fmt(v)}" for c, v in zip(others, keys, strict=True))
        # a categorical x: markers only (a line across categories means nothing)
        style = "-" if xs is not None else "none"
        artists += ax.plot(xv, yv, marker="o", linestyle=style, label=lab or None)
        if xs is None:
            ax.set_xticks(xv, [_fmt(v) for v in np.asarray(sub[x])[order]])
    ax.set_xlabel(x_label)
    ax.set_ylabel(_label(metric))
    if others:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    _note_missing(ax, df, metric)
    return artists


def _heat_map(ax: Any, df: pd.DataFrame, metric: str, x: str, y: str, x_label: str) -> list[Any]:
    """:func:`plot_sweep`'s heat map (values in the cells of small grids)."""
    x_num, x_raw, _ = _axis(df, x)
    y_num, _, y_label = _axis(df, y)
    xs_u = _unique_sorted(x_num, x_raw)
    ys_u = _unique_sorted(y_num, list(df[y]))
    grid_v = np.full((len(ys_u), len(xs_u)), np.nan)
    xi = {str(v): j for j, (_, v) in enumerate(xs_u)}
    yi = {str(v): j for j, (_, v) in enumerate(ys_u)}
    for xv, yv, mv in zip(df[x], df[y], df[metric], strict=True):
        grid_v[yi[str(yv)], xi[str(xv)]] = mv
    mesh = ax.pcolormesh(
        np.arange(len(xs_u) + 1) - 0.5,
        np.arange(len(ys_u) + 1) - 0.5,
        np.ma.masked_invalid(grid_v),
        shading="flat",
    )
    cbar = ax.figure.colorbar(mesh, ax=ax)
    cbar.set_label(_label(metric))
    ax.set_xticks(np.arange(len(xs_u)), [_fmt(n if n is not None else v) for n, v in xs_u])
    ax.set_yticks(np.arange(len(ys_u)), [_fmt(n if n is not None else v) for n, v in ys_u])
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    if len(xs_u) * len(ys_u) <= 64:  # small grids: the values in the cells
        for (r, c), val in np.ndenumerate(grid_v):
            if not math.isfinite(val):
                ax.text(c, r, "n/a", ha="center", va="center", fontsize="small", color="0.3")
                continue
            colour = "k" if sum(mesh.cmap(mesh.norm(val))[:3]) > 1.8 else "w"
            ax.text(c, r, f"{val:.3g}", ha="center", va="center", fontsize="small", color=colour)
    _note_missing(ax, df, metric)
    return [mesh, cbar]


def missing_reasons(table: pd.DataFrame, metric: str) -> dict[str, int]:
    """Why ``metric`` is empty in successful rows: ``{reason: number of rows}``."""
    if "reason" not in table.columns or metric not in table.columns:
        return {}
    base = metric.split("[")[0]
    names = {str(c).split("[")[0] for c in table.columns}
    empty = table[(table["status"] == "ok") & table[metric].isna()]
    out: dict[str, int] = {}
    for text in empty["reason"].astype(str):
        # "METRIC: why; METRIC: why", a why that holds "; " kept whole
        parts: list[list[str]] = []
        for part in text.split("; "):
            name, sep, why = part.partition(": ")
            if sep and name in names:
                parts.append([name, why])
            elif parts:
                parts[-1][1] += "; " + part
        for name, why in parts:
            if name == base:
                out[why] = out.get(why, 0) + 1
    return out


def _note_missing(ax: Any, df: pd.DataFrame, metric: str) -> None:
    """A line under the axes saying which points have no value and why."""
    reasons = missing_reasons(df, metric)
    if not reasons:
        return
    text = "; ".join(
        f"no value at {n} point{'s' if n > 1 else ''}: {why}" for why, n in reasons.items()
    )
    ax.annotate(
        text, xy=(0.0, 0.0), xycoords="axes fraction", xytext=(0, -34),
        textcoords="offset points", fontsize="x-small", color="0.35", va="top",
    )  # fmt: skip


def _unique_sorted(num: np.ndarray | None, raw: list[Any]) -> list[tuple[float | None, Any]]:
    """Distinct values as (numeric or None, raw), sorted numerically when possible."""
    seen: dict[str, tuple[float | None, Any]] = {}
    for j, v in enumerate(raw):
        seen.setdefault(str(v), (None if num is None else float(num[j]), v))
    vals = list(seen.values())
    if num is not None:
        vals.sort(key=lambda t: t[0])  # type: ignore[arg-type,return-value]
    return vals
