"""Matplotlib figures of tcpfluid results.

Every function takes an optional ``ax`` (a new figure is made when it is ``None``) and
returns the artists it drew; the library never calls ``plt.show()``. The figures of the
validation report (``tcpfluid report``) are built from these functions.

Result plots accept any of the three engines' results: a round-model
:class:`~tcpfluid.fluid.RoundTrace`, an ODE :class:`~tcpfluid.fluid.OdeResult` or a
packet-simulator :class:`~tcpfluid.sim.PacketResult`.

* :func:`window` - congestion window against time (packets, s);
* :func:`queue` - bottleneck queue against time (packets, s);
* :func:`throughput` - per-flow throughput against time (packets/s, s);
* :func:`versus` - one series against another (a sweep), with a label;
* :func:`new_axes`, :func:`finish` - figure scaffolding used by the report.

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

from collections.abc import Sequence
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
    """Label the axes (with units), add a grid and a legend."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if legend:
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


_KINDS = {"RoundTrace": "rounds", "OdeResult": "ode", "PacketResult": "packet"}
_PREFIXES = {"rounds": "round model", "ode": "ODE", "packet": "packet sim"}


def _kind(result: Any, label: str | None) -> tuple[str, str]:
    """The engine of ``result`` and the legend prefix (``label`` or the engine's name)."""
    name = type(result).__name__
    if name not in _KINDS:
        raise TypeError(f"result must be a RoundTrace, OdeResult or PacketResult, got {name}")
    kind = _KINDS[name]
    return kind, label if label is not None else _PREFIXES[kind]


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
    fields: tuple[str, str, str],
    ylabel: str,
    style: dict[str, Any],
) -> list[Any]:
    """One line per flow of ``result``; ``fields`` names the round model's
    ``(round, scenario, flow)`` array, the ODE's ``(flow, time)`` array and the packet
    flows' attribute."""
    kind, prefix = _kind(result, label)  # a wrong result type opens no figure
    ax = _ax(ax)
    rounds_field, ode_field, packet_field = fields
    arts: list[Any] = []
    if kind == "rounds":
        y = getattr(result, rounds_field)
        if y is None:
            raise ValueError(f"this RoundTrace did not record {rounds_field} (record=...)")
        for f in _flows(flows, result.n_flows):
            arts += ax.plot(result.time_s[:, 0], y[:, 0, f], label=f"{prefix} flow {f}", **style)
    elif kind == "ode":
        y = getattr(result, ode_field)
        for f in _flows(flows, result.n_flows):
            arts += ax.plot(result.t, y[f], label=f"{prefix} flow {f}", **style)
    else:
        for f in _flows(flows, len(result.flows)):
            fl = result.flows[f]
            arts += ax.plot(
                result.t_s, getattr(fl, packet_field), label=f"{prefix} {fl.name}", **style
            )
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

    Parameters
    ----------
    result
        A round-model ``RoundTrace`` (scenario 0), an ``OdeResult`` or a ``PacketResult``.
    ax
        Axes to draw on (``None``: a new figure).
    flows
        Which flows (default all).
    label
        Legend label prefix (default: the engine's name).
    **style
        Passed to ``ax.plot``.
    """
    fields = ("window_pkts", "windows_pkts", "cwnd_pkts")
    return _per_flow(result, ax, flows, label, fields, "congestion window (packets)", style)


def queue(
    result: Any, ax: Any = None, *, link: str | None = None, label: str | None = None, **style: Any
) -> list[Any]:
    """Bottleneck queue (packets) against time (s).

    ``link`` (packet results only) names the link; default: the summary's bottleneck.
    """
    kind, prefix = _kind(result, label)  # a wrong result type opens no figure
    ax = _ax(ax)
    if kind == "rounds":
        if result.queue_pkts is None:
            raise ValueError("this RoundTrace did not record queue_pkts (record=...)")
        arts = ax.plot(result.time_s[:, 0], result.queue_pkts[:, 0], label=prefix, **style)
    elif kind == "ode":
        arts = ax.plot(result.t, result.queue_pkts, label=prefix, **style)
    else:
        name = link if link is not None else result.summary.bottleneck
        arts = ax.plot(result.t_s, result.link(name).queue_pkts, label=f"{prefix} {name}", **style)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    return list(arts)


def throughput(
    result: Any,
    ax: Any = None,
    *,
    flows: Sequence[int] | None = None,
    label: str | None = None,
    **style: Any,
) -> list[Any]:
    """Per-flow throughput (packets/s) against time (s): the round model's per-round
    delivery rate, the ODE's rate w/RTT, the packet simulator's goodput per sample
    interval."""
    fields = ("throughput_pps", "rates_pps", "goodput_pps")
    return _per_flow(result, ax, flows, label, fields, "throughput (packets/s)", style)
