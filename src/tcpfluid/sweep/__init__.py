"""Parameter sweeps: a grid of points × an engine × metrics → a tidy table.

A **point** is a dict: the scenario (``"scenario"``, default ``"qv-basic"``), the control
law (``"algorithm"``) and any parameters of that scenario (``bandwidth``, ``rtt``,
``buffer``, ``flows``, ``duration``, ``cbr``, ``alpha``, ``beta``, ``gamma``...; see
:data:`tcpfluid.scenarios.SCENARIOS`), values as numbers or strings with units. A sweep
evaluates every point with one engine and returns a :class:`SweepResult` whose ``table``
has one row per point: ``point`` (its index), the point's parameters as given, the
bottleneck path it reduces to (``mu_pps``, ``d_s``, ``bdp_pkts``; the Quick Vegas paper eq 5), the
requested metrics, ``status`` (``"ok"``/``"error"``), ``message`` (why a point failed),
``reason`` (why a metric of a successful point is empty, e.g. "the flow did not settle
before the end of the run") and ``seed``.

Engines (:data:`SWEEP_ENGINES`)
-------------------------------
``"closed-form"``
    :func:`tcpfluid.analytic.predict` on the point's bottleneck path (the Quick Vegas paper's eqs 6,
    9-12, the TCP-Ho paper's eq 5); evaluated in process (microseconds per point).
``"rounds"``
    The round-based fluid model (the Quick Vegas paper, §4). Points are grouped by what one
    :func:`~tcpfluid.fluid.simulate_rounds` call cannot vary (algorithm, the set of law
    parameters given, number of flows, flow start/stop times, duration, CBR timing);
    each group runs as **one batched call** (in chunks bounded by memory, points sorted by
    base RTT), path parameters (bandwidth, RTT, buffer, ACK path, CBR rate) and law
    parameters varying along the batch. If a batched call raises, its points are re-run
    one by one so that only the offending points are marked failed.
``"packet"`` and ``"ode"``
    One run per point, fanned out over any :class:`concurrent.futures.Executor`: a local
    process pool by default (``jobs=``), or a Dask cluster
    (``distributed.Client(address).get_executor()``; ``pip install tcpfluid[dask]``).

Metrics (:data:`ENGINE_METRICS`) are the public summary keys of ``tcpfluid simulate``
(``ss_exit_window``, ``time_to_equilibrium_s``, ...); ``None`` ("did not happen") becomes
NaN. A metric with one value per flow or per bandwidth change (``throughput_pps``,
``losses``, ``convergence_times_s``) becomes columns ``name[0]``, ``name[1]``, ...

Determinism, caching, failures
------------------------------
Each point gets a ``seed`` from a SHA-256 hash of the point (stable across runs, processes
and machines), handed to engines that draw random numbers. With ``cache_dir=`` every
computed point is appended to a JSON-lines file in that directory, keyed by a hash of
(point, engine, engine options, tcpfluid version); a re-run (after an interruption, or with
more points) takes the cached points from there and computes only the missing ones. A
point whose engine raises is recorded with ``status="error"`` and the exception in
``message``; it is not cached, so a re-run retries it. Errors in the sweep itself (an
unknown engine, metric, scenario, algorithm or parameter, an empty grid) raise
``ValueError``/``TypeError`` naming the offending key before any work starts.

Examples
--------
>>> from tcpfluid.sweep import grid, sweep
>>> points = grid(algorithm=["vegas", "quick-vegas"], bandwidth=["10Mbps", "50Mbps"])
>>> res = sweep(points, engine="closed-form", metrics=["ss_exit_window"])
>>> list(res.table.columns[:3]), len(res.table), res.n_failed
(['point', 'scenario', 'algorithm'], 4, 0)
"""

from __future__ import annotations

from .config import (
    CONFIG_KEYS,
    DEFAULT_SCENARIO,
    ENGINE_METRICS,
    SWEEP_ENGINES,
    Sweep,
    sweep,
)
from .grids import Grid, grid
from .plotting import _parameter_columns as _parameter_columns
from .plotting import plot_sweep
from .tables import SweepResult, read_table
from .tables import _table_format as _table_format

__all__ = [
    "CONFIG_KEYS",
    "DEFAULT_SCENARIO",
    "ENGINE_METRICS",
    "SWEEP_ENGINES",
    "Grid",
    "Sweep",
    "SweepResult",
    "grid",
    "plot_sweep",
    "read_table",
    "sweep",
]
