"""Matplotlib figures of tcpfluid results.

Every function takes an optional ``ax`` (a new figure is made when it is ``None``) and
returns the artists it drew; the library never calls ``plt.show()``. The figures of the
validation report (``tcpfluid report``) are built from these functions.

Result plots take a :class:`tcpfluid.results.Result` or an engine's own result (a
round-model :class:`~tcpfluid.fluid.RoundTrace`, scenario 0; an ODE
:class:`~tcpfluid.fluid.OdeResult`; a packet-simulator :class:`~tcpfluid.sim.PacketResult`).

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from tcpfluid import Path, plot
>>> from tcpfluid.algorithms import get_law
>>> from tcpfluid.fluid import simulate_rounds
>>> tr = simulate_rounds(get_law("vegas"), Path("10Mbps", "100ms"), duration_s=20)
>>> artists = plot.window(tr)
>>> len(artists)
1
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validation import check_int, check_positive

__all__ = ["finish", "new_axes", "queue", "throughput", "versus", "window"]


def _ax(ax: Any) -> Any:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.0, 4.2))
    return ax


def new_axes(nrows: int = 1, *, sharex: bool = True, height: float = 4.2) -> Any:
    """A new figure with ``nrows`` stacked axes; returns ``(figure, axes)`` (one axes when
    ``nrows == 1``)."""
    import matplotlib.pyplot as plt

    check_int("nrows", nrows, minimum=1)
    height = check_positive("height", height)
    fig, axes = plt.subplots(
        nrows, 1, sharex=sharex, figsize=(7.5, height if nrows == 1 else 2.6 * nrows + 0.6)
    )
    return fig, axes


def finish(
    ax: Any,
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    legend: bool = True,
    fontsize: float = 8.0,
) -> None:
    """Label the axes (with units), add a grid and a legend (none on a panel with nothing
    labelled, e.g. every run failed)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=fontsize)


def versus(x: ArrayLike, y: ArrayLike, ax: Any = None, *, label: str, **style: Any) -> list[Any]:
    """Plot ``y`` against ``x`` (NaN points are left out) with a legend label."""
    ax = _ax(ax)
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.shape != ya.shape:
        raise ValueError(f"x and y must have the same shape, got {xa.shape} and {ya.shape}")
    ok = np.isfinite(xa) & np.isfinite(ya)
    return list(ax.plot(xa[ok], ya[ok], label=label, **style))


_PREFIXES = {"rounds": "round model", "ode": "ODE", "hybrid": "hybrid", "packet": "packet sim"}


@dataclass(frozen=True)
class _Curves:
    """The arrays a result plot draws: time (T,), per-flow (F, T) rows, a queue (T,)."""

    time_s: Any
    window_pkts: Any
    throughput_pps: Any
    queue_pkts: Any  # None: not recorded
    flow_labels: list[str]
    queue_label: str


def _native(result: Any, module: str, cls: str) -> bool:
    """Whether ``result`` is an engine's own ``module.cls`` (only if ``module`` is already
    imported: a result of its type cannot exist otherwise)."""
    mod = sys.modules.get(module)
    return mod is not None and isinstance(result, getattr(mod, cls))


def _curves(result: Any, label: str | None, link: str | None = None) -> _Curves:
    """The arrays of ``result``: a :class:`~tcpfluid.results.Result` or an engine's own."""
    from .results import Result

    def prefix(engine: str) -> str:
        return label if label is not None else _PREFIXES[engine]

    if isinstance(result, Result):
        p = prefix(result.engine)
        q = result.queue_pkts if link is None else result.link_queue_pkts(link)
        names = [f"{p} {n}" for n in result.flow_names]
        queue = f"{p} {link or result.summary.bottleneck}"
        return _Curves(result.time_s, result.window_pkts, result.throughput_pps, q, names, queue)
    if _native(result, "tcpfluid.fluid.rounds", "RoundTrace"):
        p = prefix("rounds")
        thr, q = result.throughput_pps, result.queue_pkts
        return _Curves(
            result.time_s[:, 0],
            result.window_pkts[:, 0, :].T,
            None if thr is None else thr[:, 0, :].T,
            None if q is None else q[:, 0],
            [f"{p} flow {f}" for f in range(result.n_flows)],
            p,
        )
    if _native(result, "tcpfluid.fluid.ode", "OdeResult"):
        from .engines._ode import delivery_rates

        p = prefix("ode")
        names = [f"{p} flow {f}" for f in range(result.n_flows)]
        # packets delivered per sample interval, as for a Result (not the sending rate w/RTT)
        thr = delivery_rates(result.t, result.delivered_pkts)
        return _Curves(result.t, result.windows_pkts, thr, result.queue_pkts, names, p)
    if _native(result, "tcpfluid.sim.engine", "PacketResult"):
        p = prefix("packet")
        name = link if link is not None else result.summary.bottleneck
        return _Curves(
            result.t_s,
            np.array([f.cwnd_pkts for f in result.flows]),
            np.array([f.goodput_pps for f in result.flows]),
            result.link(name).queue_pkts,
            [f"{p} {f.name}" for f in result.flows],
            f"{p} {name}",
        )
    raise TypeError(
        "result must be a tcpfluid.results.Result (tcpfluid.simulate) or an engine's own "
        f"result (RoundTrace, OdeResult or PacketResult), got {type(result).__name__}"
    )


def _flows(flows: Sequence[int] | None, n: int) -> list[int]:
    if flows is None:
        return list(range(n))
    if isinstance(flows, str) or not isinstance(flows, Sequence | np.ndarray):
        raise TypeError(f"flows must be a sequence of flow indices, got {flows!r}")
    out = [check_int("flows", f) for f in flows]
    bad = [f for f in out if not 0 <= f < n]
    if bad:
        raise ValueError(f"flows must be in [0, {n}), got {bad}")
    return out


def _per_flow(
    result: Any,
    ax: Any,
    flows: Sequence[int] | None,
    label: str | None,
    quantity: str,
    ylabel: str,
    style: dict[str, Any],
    link: str | None = None,
) -> list[Any]:
    """One line per flow of ``result``'s ``quantity`` (``window_pkts``/``throughput_pps``),
    or the one line of ``queue_pkts`` (of ``link``)."""
    c = _curves(result, label, link)  # a wrong result type opens no figure
    y = getattr(c, quantity)
    if y is None:
        raise ValueError(f"this result did not record {quantity} (record=...)")
    if quantity == "queue_pkts":
        y, labels, chosen = [y], [c.queue_label], [0]
    else:
        labels, chosen = c.flow_labels, _flows(flows, len(c.flow_labels))
    ax = _ax(ax)
    arts: list[Any] = []
    for f in chosen:
        arts += ax.plot(c.time_s, y[f], label=labels[f], **style)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    return arts


def window(
    result: Any,
    ax: Any = None,
    *,
    flows: Sequence[int] | None = None,
    label: str | None = None,
    **style: Any,
) -> list[Any]:
    """Congestion window (packets) against time (s), one line per flow.

    ``result`` as the module docstring says; ``ax``: the axes to draw on (``None``: a new
    figure); ``flows``: which flows (default all); ``label``: the legend label prefix
    (default: the engine's name); ``**style``: passed to ``ax.plot``.
    """
    return _per_flow(result, ax, flows, label, "window_pkts", "congestion window (packets)", style)


def queue(
    result: Any, ax: Any = None, *, link: str | None = None, label: str | None = None, **style: Any
) -> list[Any]:
    """Bottleneck queue (packets) against time (s).

    ``link`` names the link (:meth:`tcpfluid.results.Result.link_queue_pkts`: any link of
    a packet result, the bottleneck of a fluid one); default: the bottleneck
    (:func:`tcpfluid.scenarios.bottleneck`).
    """
    return _per_flow(result, ax, None, label, "queue_pkts", "queue (packets)", style, link)


def throughput(
    result: Any,
    ax: Any = None,
    *,
    flows: Sequence[int] | None = None,
    label: str | None = None,
    **style: Any,
) -> list[Any]:
    """Per-flow throughput (packets/s) against time (s): the round model's per-round
    delivery rate, the ODE's and the packet simulator's packets delivered per sample
    interval."""
    return _per_flow(result, ax, flows, label, "throughput_pps", "throughput (packets/s)", style)
