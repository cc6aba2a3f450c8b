"""The summary of a whole run, computed once for every engine.

:func:`summarise` turns what an engine knows about each flow (:class:`FlowRecord`: its
window series, whether it was in slow start, what it delivered, its loss events) and about
the bottleneck (packets carried, capacity) into the one
:class:`tcpfluid.results.Summary`, with the definitions of :mod:`tcpfluid.metrics`
(slow-start exit, settling, convergence after each change, Jain's index, utilization).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import _finite_or_none, jain_index, law_settle_band, settling_by_segment, slow_start_exit

__all__ = ["FlowRecord", "run_changes", "summarise"]

FloatArray = NDArray[np.float64]


@dataclass(frozen=True)
class FlowRecord:
    """What an engine knows about one flow, for :func:`summarise`.

    Attributes
    ----------
    name, start_s, stop_s
        The flow and its active interval, s.
    t_s
        Times of the samples the flow's summary is judged on (one per round boundary in
        the round model and the packet simulator, the output grid in the ODE), s.
    window_pkts
        The window the law saw at each sample (the slow-start exit is read from it).
    in_slow_start
        Whether the law was in slow start at each sample (``None``: no slow start).
    settle_window_pkts
        The window in effect after each sample (settling and convergence are judged on it).
    delivered_pkts
        Packets delivered in order by the flow during the measured time.
    loss_events
        Loss events: congestion signals handed to the law, each a window cut (a fluid
        gives the expected number, a real number: see :mod:`tcpfluid.results`).
    exit_delay_samples
        Where the engine's exit moment lies after the first sample out of slow start, in
        samples (the engine's fact; see :func:`summarise` for the convention).
    """

    name: str
    start_s: float
    stop_s: float
    t_s: FloatArray
    window_pkts: FloatArray
    in_slow_start: NDArray[np.bool_] | None
    settle_window_pkts: FloatArray
    delivered_pkts: float
    loss_events: float
    exit_delay_samples: int = 0


def run_changes(
    cbr: Iterable[tuple[float, float]], flows: Iterable[tuple[float, float]], end_s: float
) -> tuple[tuple[float, ...], tuple[str, ...]]:
    """The changes of a run and their kinds: CBR starts/stops, flows joining/leaving.

    Times inside ``(0, end_s)``, increasing; coinciding kinds are joined with ``+``.

    Examples
    --------
    >>> run_changes([(80.0, 160.0)], [(0.0, math.inf), (100.0, 300.0)], 240.0)
    ((80.0, 100.0, 160.0), ('cbr-start', 'flow-join', 'cbr-stop'))
    """
    kinds: dict[float, list[str]] = {}
    for pairs, (on, off) in (
        (cbr, ("cbr-start", "cbr-stop")),
        (flows, ("flow-join", "flow-leave")),
    ):
        for start, stop in pairs:
            for t, k in ((float(start), on), (float(stop), off)):
                if 0.0 < t < end_s and k not in kinds.setdefault(t, []):
                    kinds[t].append(k)
    times = tuple(sorted(kinds))
    return times, tuple("+".join(kinds[t]) for t in times)


#: per flow: (exit window, exit time, exit round), (settled window, time to equilibrium),
#: convergence times after each change, the equilibrium's limit cycle (centre, amplitude,
#: why it did not settle)
_Values = tuple[
    tuple[Any, Any, Any], tuple[Any, Any], list[float | None], tuple[Any, Any, str | None]
]


def _flow_values(
    frs: Sequence[FlowRecord], changes: tuple[float, ...], end_s: float, bands: Sequence[float]
) -> list[_Values]:
    """Slow-start exit and settling of every flow in one vectorised pass per kind of
    record (flows whose series have other lengths are padded past the run's end, where no
    segment reaches)."""
    out: list[_Values | None] = [None] * len(frs)
    kinds: dict[tuple[int, bool], list[int]] = {}
    for i, fr in enumerate(frs):
        kinds.setdefault((fr.exit_delay_samples, fr.in_slow_start is None), []).append(i)
    for idx in kinds.values():
        vals = _group_values([frs[i] for i in idx], changes, end_s, [bands[i] for i in idx])
        for i, v in zip(idx, vals, strict=True):
            out[i] = v
    return [v for v in out if v is not None]


def _padded(rows: list[Any], n: int, pad: Any) -> Any:
    """Columns of ``rows`` (1-D arrays) padded to ``n`` samples, shape ``(n, len(rows))``."""
    out = np.empty((n, len(rows)), dtype=np.result_type(*[np.asarray(r) for r in rows]))
    for j, r in enumerate(rows):
        r = np.asarray(r)
        out[: r.size, j] = r
        out[r.size :, j] = pad(r, j)
    return out


def _group_values(
    g: Sequence[FlowRecord], changes: tuple[float, ...], end_s: float, bands: Sequence[float]
) -> list[_Values]:
    n = len(g)
    sizes = np.array([np.asarray(fr.t_s).size for fr in g])
    R = int(sizes.max(initial=0))
    none: list[float | None] = [None] * len(changes)
    empty: _Values = ((None, None, None), (None, None), none, (None, None, "no samples"))
    if R == 0:
        return [empty] * n
    if all(fr.t_s is g[0].t_s for fr in g):
        t = np.asarray(g[0].t_s, dtype=np.float64)[:, None]
    else:  # samples past the end of a shorter series: after the run, outside every segment
        far = max(end_s, *(float(np.max(fr.t_s, initial=0.0)) for fr in g)) + 1.0
        t = _padded([np.asarray(fr.t_s, dtype=np.float64) for fr in g], R, lambda r, j: far)

    def last(r: Any, j: int) -> Any:
        return r[-1] if r.size else 0

    exits: list[tuple[Any, Any, Any]] = [(None, None, None)] * n
    if g[0].in_slow_start is not None:
        ev = slow_start_exit(
            t,
            _padded([fr.window_pkts for fr in g], R, last),
            _padded([np.asarray(fr.in_slow_start) for fr in g], R, last),
        )
        tt = np.broadcast_to(t, (R, n))
        for i in range(n):
            j = int(ev.index[i]) + 1 + g[0].exit_delay_samples if bool(ev.found[i]) else R
            # an exit stamped after the end of the trace or of the run did not happen in it
            if j < sizes[i] and tt[j, i] <= end_s:
                exits[i] = (float(ev.value[i]), float(tt[j, i]), j + 1)
    seg = settling_by_segment(
        t,
        _padded([fr.settle_window_pkts for fr in g], R, last),
        start_s=np.array([fr.start_s for fr in g]),
        end_s=np.array([min(end_s, fr.stop_s) for fr in g]),
        change_times_s=changes,
        settle_band=np.asarray(bands, dtype=np.float64),
    )
    eq = seg.equilibrium
    centres, amplitudes = np.asarray(eq.centre), np.asarray(eq.amplitude)
    out: list[_Values] = []
    for i in range(n):
        if sizes[i] == 0:
            out.append(empty)
            continue
        settled = (
            (_finite_or_none(eq.value[i]), _finite_or_none(eq.time_s[i]))
            if bool(eq.settled[i])
            else (None, None)
        )
        conv = [
            _finite_or_none(c.time_s[i]) if bool(c.settled[i]) else None for c in seg.convergence
        ]
        cycle = (
            (_finite_or_none(centres[i]), _finite_or_none(amplitudes[i]), None)
            if bool(eq.settled[i])
            else (None, None, eq.reason(i))
        )
        out.append((exits[i], settled, conv, cycle))
    return out


def _flow_summary(
    fr: FlowRecord, values: _Values, measured: tuple[float, float], FlowSummary: Any
) -> Any:
    (ss_w, ss_t, ss_r), (settled, t_eq), conv, (centre, amplitude, reason) = values
    active = min(fr.stop_s, measured[1]) - max(fr.start_s, measured[0])
    return FlowSummary(
        name=fr.name,
        start_s=float(fr.start_s),
        stop_s=float(fr.stop_s),
        ss_exit_window_pkts=ss_w,
        ss_exit_time_s=ss_t,
        ss_exit_round=ss_r,
        settled_window_pkts=settled,
        time_to_equilibrium_s=t_eq,
        convergence_times_s=tuple(conv),
        throughput_pps=_finite_or_none(fr.delivered_pkts / active) if active > 0 else None,
        losses=fr.loss_events,
        cycle_centre_pkts=centre,
        cycle_amplitude_pkts=amplitude,
        not_settled_reason=reason,
    )


def _latest(values: list[float | None]) -> float | None:
    if not values or any(v is None for v in values):
        return None
    return max(v for v in values if v is not None)


def summarise(
    engine: str,
    scenario: Any,
    flows: Sequence[FlowRecord],
    *,
    end_s: float,
    carried_pkts: float,
    capacity_pps: float,
    measured_s: tuple[float, float] | None = None,
    bottleneck: str,
    extras: Any = None,
) -> Any:
    """The :class:`tcpfluid.results.Summary` of a run: the one summary computation.

    Slow-start exit (the convention of every engine): the exit window is the last
    slow-start window (before any cut), the exit round the 1-based round at whose end the
    sender decides from the RTTs of the exit window's own packets (round 1 sends the
    initial window; Vegas on the Quick Vegas paper's §5.1 path: 64 packets, round 12,
    1.2 s), the exit time the end of that round. Sample ``k`` of a flow's series closes
    round ``k + 1``; the engine says, with :attr:`FlowRecord.exit_delay_samples`, how many
    samples after the first one out of slow start its exit round ends.

    Parameters
    ----------
    engine, scenario
        The engine's name and the scenario run (its CBR sources give the changes).
    flows
        One :class:`FlowRecord` per flow.
    end_s
        End of the run, s.
    carried_pkts, capacity_pps
        Packets the bottleneck carried during the measured time (all traffic) and its
        capacity; utilization = carried / (capacity × measured time).
    measured_s
        The measured time ``(from, to)``, s, over which throughputs and utilization are
        averaged (default ``(0, end_s)``; the round model's last round may end after
        ``end_s``, the ODE may measure from a later time).
    bottleneck
        Name of the bottleneck link.
    extras
        Engine-specific JSON keys kept in the summary.
    """
    from ..results import FlowSummary, Summary

    measured = (0.0, end_s) if measured_s is None else measured_s
    span = measured[1] - measured[0]
    changes, kinds = run_changes(
        [(c.start_s, c.stop_s) for c in scenario.cbr],
        [(f.start_s, f.stop_s) for f in flows],
        end_s,
    )
    # each flow's law-aware settling band: its law's own limit cycle (metrics.settling)
    laws = {f.name: f.algorithm for f in getattr(scenario, "flows", ())}
    band_of: dict[str | None, float] = {}  # one look-up per law, not per flow
    bands = []
    for fr in flows:
        law = laws.get(fr.name)
        if law not in band_of:
            band_of[law] = law_settle_band(law)
        bands.append(band_of[law])
    values = _flow_values(flows, changes, end_s, bands)
    per = tuple(
        _flow_summary(fr, v, measured, FlowSummary) for fr, v in zip(flows, values, strict=True)
    )
    first = changes[0] if changes else math.inf
    settled_at = [
        None if f.time_to_equilibrium_s is None else f.start_s + f.time_to_equilibrium_s
        for f in per
        if f.start_s < first
    ]
    bounds = [*changes, math.inf]
    all_conv = []
    for k, tc in enumerate(changes):
        act = [f for f in per if f.start_s < bounds[k + 1] and f.stop_s > tc]
        all_conv.append(
            _latest(
                [
                    None
                    if f.convergence_times_s[k] is None
                    else max(f.start_s, tc) - tc + f.convergence_times_s[k]
                    for f in act
                ]
            )
        )
    thr = [f.throughput_pps for f in per if f.throughput_pps is not None]
    jain = _finite_or_none(jain_index(thr)) if thr and any(x > 0 for x in thr) else None
    util = carried_pkts / (capacity_pps * span) if capacity_pps * span > 0 else math.nan
    return Summary(
        engine=engine,
        flows=per,
        change_times_s=changes,
        change_kinds=kinds,
        all_settled_time_s=_latest(settled_at),
        all_converged_times_s=tuple(all_conv),
        utilization=_finite_or_none(util),
        jain_index=jain,
        bottleneck=bottleneck,
        notes=tuple(getattr(scenario, "notes", ())),
        extras=dict(extras or {}),
    )
