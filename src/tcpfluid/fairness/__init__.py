"""Fairness studies: the documents' fairness tables, predicted by the ODE model.

Each study returns a :class:`FairnessStudy`: a :class:`pandas.DataFrame` with, per row, the
ODE model's prediction (``ode_*``), the packet simulator's measurement (``packet_*``, only
with a ``packet_engine``) and the document's printed number (``doc_*``), and a figure
(:meth:`FairnessStudy.plot`). Laws without an ODE right-hand side (Quick Vegas, TCP-Ho) have
NaN ``ode_*`` values and ``note = "no ODE right-hand side"``.

Every run goes through :func:`tcpfluid.simulate`. ``packet_engine="packet"`` (or ``True``)
adds the packet columns; a callable taking a :class:`~tcpfluid.scenarios.Scenario` and
returning a :class:`~tcpfluid.results.Result` or a :class:`~tcpfluid.sim.PacketResult` is
accepted too. Its throughputs are averaged over the ODE's measurement windows.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._validation import as_float_array, check_choice, check_positive
from ..algorithms.registry import ALGORITHMS
from ..analytic import jain_index
from ..engines import simulate
from ..published import THESIS_TABLE_3_16, published
from ..results import Result, Summary
from ..scenarios import Scenario
from .trains import _sample_times, delivered_pkts, train_fraction

__all__ = [
    "THESIS_TABLE_3_16",
    "FairnessStudy",
    "delivered_pkts",
    "ho_different_rtt_study",
    "ho_friendliness_study",
    "period_throughputs",
    "qv_different_rtt_study",
    "qv_many_flows_study",
    "thesis_two_flow_study",
    "train_fraction",
]

FloatArray = NDArray[np.float64]
PacketEngine = Callable[[Scenario], Any]
_NO_RHS = "no ODE right-hand side"

#: the thesis's settings: registry algorithm and parameters
_THESIS_SETTINGS: dict[str, tuple[str, dict[str, float]]] = {
    "vegas-1_3": ("vegas", {"alpha": 1.0, "beta": 3.0}),
    "vegas-1": ("enhanced-vegas", {"delta": 1.0}),
    "vegas-2": ("enhanced-vegas", {"delta": 2.0}),
    "vegas-3": ("enhanced-vegas", {"delta": 3.0}),
}


def _printed_periods(table: str, period_s: int, n_periods: int) -> dict[str, tuple[float, ...]]:
    """Jain's index per period of the Quick Vegas paper's ``table`` from :mod:`tcpfluid.published`
    (the one copy of the printed numbers; New Reno is run as ``"reno"``)."""
    return {
        alg: tuple(
            float(published(f"000/{table}/{alg}/{period_s * i}-{period_s * (i + 1)}").value)
            for i in range(n_periods)
        )
        for alg in ("vegas", "quick-vegas", "fast", "reno")
    }


#: The Quick Vegas paper Table 2 (same RTT, Jain's index per 100-s period)
_QV_TABLE_2 = _printed_periods("table2", 100, 5)
#: The Quick Vegas paper Table 3 (different RTTs, Jain's index per 50-s period)
_QV_TABLE_3 = _printed_periods("table3", 50, 4)
#: The TCP-Ho paper Table 6: fairness index and utilization, five flows, different RTTs
_HO_TABLE_6: dict[str, tuple[float, float]] = {
    alg: (
        published(f"004/table6/{alg}/jain_index").value,
        published(f"004/table6/{alg}/utilization").value / 100.0,
    )
    for alg in ("reno", "vegas", "fast", "tcp-ho")
}
#: The TCP-Ho paper Table 7: (first kind, second kind) -> {(n_first, n_second):
#: (fairness, mean throughput first kind kbps, mean throughput second kind kbps)}
_HO_TABLE_7: dict[tuple[str, str], dict[tuple[int, int], tuple[float, ...]]] = {
    (a, b): {
        (na, nb): tuple(
            published(f"004/table7/{a}-{b}/{na}-{nb}/{k}").value for k in ("jain_index", a, b)
        )
        for na, nb in ((15, 5), (10, 10), (5, 15))
    }
    for a, b in (
        ("reno", "vegas"), ("tcp-ho", "vegas"), ("tcp-ho", "reno"),
        ("fast", "vegas"), ("fast", "reno"), ("fast", "tcp-ho"),
    )
}  # fmt: skip


@dataclass(frozen=True)
class FairnessStudy:
    """A fairness study's table and provenance.

    Its short ``name``, the document table reproduced (``source``), the ``table`` (one row
    per case: its keys, ``ode_*``, ``packet_*``, ``doc_*`` columns) and the assumptions that
    matter when comparing the columns (``notes``)."""

    name: str
    source: str
    table: Any  # pandas.DataFrame
    notes: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: records of the table (NaN as ``None``)."""
        records = self.table.astype(object).where(self.table.notna(), None).to_dict("records")
        return {"name": self.name, "source": self.source, "notes": self.notes, "rows": records}

    def plot(self, ax: Any = None) -> list[Any]:
        """Plot the ``*_jain`` columns (ODE, packet, document) against the rows.

        The thesis study is drawn against x2 with one line per setting; the others per
        row label. Returns the artists.
        """
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots()
        df = self.table
        artists: list[Any] = []
        styles = {"ode_jain": "-o", "packet_jain": "--s", "doc_jain": ":^"}

        def draw(x: Any, rows: Any, prefix: str = "") -> None:
            for col, st in styles.items():
                if col in rows.columns and rows[col].notna().any():
                    artists.extend(ax.plot(x, rows[col], st, label=prefix + col.split("_")[0]))

        if "x2_ms" in df.columns:
            for setting, sub in df.groupby("setting", sort=False):
                sub = sub.sort_values("x2_ms")
                draw(sub["x2_ms"], sub, f"{setting} ")
            ax.set_xlabel("x2 (ms)")
        else:
            labels = [" ".join(str(v) for v in row) for row in df[self._keys()].to_numpy()]
            xs = np.arange(len(df))
            draw(xs, df)
            ax.set_xticks(xs)
            ax.set_xticklabels(labels, rotation=60, ha="right", fontsize="small")
        ax.set_ylabel("Jain's index")
        ax.set_title(self.source)
        ax.legend(loc="best", fontsize="small")
        return artists

    def _keys(self) -> list[str]:
        """The columns that name a row (not a value, not the note)."""
        cols = self.table.columns
        return [c for c in cols if not c.startswith(("ode_", "packet_", "doc_")) and c != "note"]


# ----------------------------------------------------------------------------- helpers
def period_throughputs(
    t_s: FloatArray,
    delivered_pkts: FloatArray,
    start_s: Sequence[float],
    stop_s: Sequence[float],
    edges_s: Sequence[float],
) -> list[tuple[NDArray[np.intp], FloatArray]]:
    """Throughput of the flows active over a whole period, for each period.

    Parameters
    ----------
    t_s
        Sample times, s, shape ``(k,)``, non-decreasing.
    delivered_pkts
        Cumulative delivered packets per flow since 0 s (the run's start), shape ``(n, k)``;
        an edge before ``t_s[0]`` reads the first sample's count, one at most a sample
        interval after ``t_s[-1]`` the last one's.
    start_s, stop_s
        Each flow's active interval, s, one time per flow.
    edges_s
        Period boundaries ``e_0 < e_1 < ...``, s, from 0 to the trace's end.

    Returns, for each period ``[e_i, e_{i+1}]``, the flows active during all of it (the
    documents' "active connections") and their delivered packets per second.

    Raises
    ------
    ValueError
        ``t_s`` not finite and non-decreasing; ``delivered_pkts`` not finite or not of shape
        ``(n, k)``, or falling in time (the counts are cumulative); ``start_s``, ``stop_s``
        (``stop_s`` may be ``inf``) not one time per flow, or a stop before its start;
        ``edges_s`` not increasing, or before 0 or past the trace's end by more than
        one sample interval (a rate outside the trace is not measured).
    """
    t = _sample_times("t_s", t_s)
    d = as_float_array("delivered_pkts", delivered_pkts)
    if t.size < 2 or d.ndim != 2 or d.shape[1] != t.size:
        raise ValueError(
            f"delivered_pkts must have shape (n flows, {t.size}): one row per flow, one column "
            f"per sample of t_s (at least 2), got shape {d.shape}"
        )
    n = d.shape[0]
    starts = as_float_array("start_s", start_s)
    stops = as_float_array("stop_s", stop_s, finite=False)
    for name, v in (("start_s", starts), ("stop_s", stops)):
        if v.shape != (n,) or np.isnan(v).any():
            raise ValueError(
                f"{name} must give one time (not NaN) per flow of delivered_pkts ({n}), got "
                f"{v.tolist()!r}"
            )
    back = np.flatnonzero(stops < starts)
    if back.size:
        i = int(back[0])
        raise ValueError(
            f"stop_s must not be before start_s: flow {i} starts at {starts[i]:g} s and stops "
            f"at {stops[i]:g} s"
        )
    # cumulative counts never fall (a rounding of the count's own size is tolerated)
    fall = np.diff(d, axis=1) < -1e-9 * np.maximum(1.0, np.abs(d[:, 1:]))
    if fall.any():
        i, j = (int(x) for x in np.argwhere(fall)[0])
        raise ValueError(
            "delivered_pkts must be cumulative (non-decreasing in time): flow "
            f"{i} falls from {d[i, j]:g} to {d[i, j + 1]:g} packets between t_s = {t[j]:g} and "
            f"{t[j + 1]:g} s"
        )
    e = as_float_array("edges_s", edges_s)
    if e.ndim != 1 or e.size < 2 or np.any(np.diff(e) <= 0):
        raise ValueError(f"edges_s must be increasing with at least 2 values, got {edges_s!r}")
    # the counts are since 0 s (the run's start); past the last sample, one sample
    # interval is the trace's own resolution (a run sampled just short of its end)
    end = float(t[-1] + (t[-1] - t[-2]))
    if e[0] < 0.0 or e[-1] > end + 1e-9 * max(1.0, end):  # (rounding of the interval)
        raise ValueError(
            f"edges_s must lie in [0, {end:g}] s: from the run's start to the trace's last "
            f"sample t_s[-1] = {t[-1]:g} s plus one sample interval, got {e[0]:g} to {e[-1]:g} s"
        )
    out = []
    for a, b in itertools.pairwise(e.tolist()):
        idx = _active_over(starts, stops, a, b)
        out.append((idx, _window_rates(t, d[idx], a, b)))
    return out


def _active_over(start_s: Any, stop_s: Any, a: float, b: float) -> NDArray[np.intp]:
    """The flows active during all of ``[a, b]`` (s), by their start and stop times (s)."""
    s0, s1 = np.asarray(start_s, dtype=np.float64), np.asarray(stop_s, dtype=np.float64)
    return np.flatnonzero((s0 <= a + 1e-9) & (s1 >= b - 1e-9)).astype(np.intp)


def _window_rates(t_s: Any, delivered_pkts: Any, a: float, b: float) -> FloatArray:
    """Each row's delivered packets per second over ``[a, b]`` (cumulative counts at ``t_s``)."""
    return np.array([np.interp(b, t_s, d) - np.interp(a, t_s, d) for d in delivered_pkts]) / (b - a)


def _packet_delivered(result: Any) -> tuple[FloatArray, FloatArray]:
    """Cumulative delivered packets per flow of a packet run (a ``Result`` or the
    simulator's own result)."""
    if isinstance(result, Result):
        return result.time_s, result.delivered_pkts()
    t = np.asarray(result.t_s, dtype=np.float64)
    return t, delivered_pkts(t, np.vstack([f.goodput_pps for f in result.flows]))


def _packet_base_rtts(result: Any) -> list[float]:
    """The BaseRTT each flow's law held at the end of a packet run, s."""
    if isinstance(result, Result):
        assert result.base_rtt_s is not None
        return [float(x) for x in result.base_rtt_s]
    return [float(f.round_base_rtt_s[-1]) for f in result.flows]


def _ode(scenario: Scenario, *, measure_from_s: float = 0.0, n_points: int = 1001) -> Result:
    """The classical ODE run of ``scenario`` (the fluid equilibria of Mo et al. and
    Boutremans-Le Boudec), ``n_points`` samples."""
    from ..engines import Ode

    interval = scenario.duration_s / (n_points - 1)
    return simulate(scenario, Ode(measure_from_s=measure_from_s, record_interval_s=interval))


def _summary(res: Any) -> Any:
    """The summary of a run; a failed integration raises (never a silently wrong row)."""
    return res.raise_for_status().summary


def _throughputs(summary: Summary) -> FloatArray:
    """Per-flow throughputs over the measured time, packets/s (0 for a flow not active in it)."""
    return np.array([0.0 if x is None else x for x in summary.throughput_pps], dtype=np.float64)


def _jain_or_nan(x: FloatArray) -> float:
    """Jain's index, NaN when no flow is active or none delivered anything."""
    x = np.asarray(x, dtype=np.float64)
    return float(jain_index(x)) if np.any(x > 0) else math.nan


def _period_jains(
    t_s: Any,
    delivered_pkts: Any,
    start_s: Sequence[float],
    stop_s: Sequence[float],
    edges_s: Sequence[float],
) -> list[float]:
    """Jain's index of the flows active over each whole period (:func:`period_throughputs`)."""
    periods = period_throughputs(np.asarray(t_s), delivered_pkts, start_s, stop_s, edges_s)
    return [_jain_or_nan(thr) for _idx, thr in periods]


def _check_window(duration_s: float, measure_from_s: float) -> tuple[float, float]:
    """``(duration_s, measure_from_s)`` with ``0 <= measure_from_s < duration_s``."""
    T = check_positive("duration_s", duration_s)
    m0 = float(measure_from_s)
    if not 0.0 <= m0 < T:
        raise ValueError(f"measure_from_s must be in [0, duration_s={T!r}), got {measure_from_s!r}")
    return T, m0


def _listed(name: str, value: Any, what: str) -> list[Any]:
    """``value`` as a list: a sequence of ``what``, never a string (whose characters would
    be read one by one) nor a single value."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        got = f"the string {value!r}" if isinstance(value, str | bytes) else repr(value)
        raise TypeError(f"{name} must be a sequence of {what}, got {got}")
    return list(value)


def _check_algorithms(name: str, algorithms: Sequence[str]) -> list[str]:
    """Registry names, at least one (a misspelled law is no "no ODE right-hand side" row)."""
    out = [check_choice(name, a, ALGORITHMS) for a in _listed(name, algorithms, "algorithm names")]
    if not out:
        raise ValueError(f"{name} must name at least one algorithm of {', '.join(ALGORITHMS)}")
    return out


def _check_engine(packet_engine: Any) -> PacketEngine | None:
    if packet_engine is True or packet_engine == "packet":
        return functools.partial(simulate, engine="packet")  # tcpfluid.simulate's packet run
    if packet_engine is not None and not callable(packet_engine):
        raise TypeError(
            f"packet_engine must be None, 'packet' (tcpfluid.simulate's packet engine) or a "
            f"callable taking a Scenario (e.g. tcpfluid.sim.simulate_packets), got "
            f"{packet_engine!r}"
        )
    return packet_engine


# the studies (defined on the helpers above)
from .studies import (  # noqa: E402
    ho_different_rtt_study,
    ho_friendliness_study,
    qv_different_rtt_study,
    qv_many_flows_study,
    thesis_two_flow_study,
)
