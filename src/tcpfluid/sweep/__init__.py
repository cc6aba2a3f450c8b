"""Parameter sweeps: a grid of points × an engine × metrics → a tidy table.

A **point** is a dict: the scenario (``"scenario"``, default ``"qv-basic"``), the control
law (``"algorithm"``) and any parameters of that scenario, values as numbers or strings
with units. A sweep evaluates every point with one engine (:data:`SWEEP_ENGINES`) and
returns a :class:`SweepResult` whose ``table`` has one row per point. The columns, the
engines, the metrics (:data:`ENGINE_METRICS`), seeds, the cache, failures and executors
are described in docs/sweeps.md.

Examples
--------
>>> from tcpfluid.sweep import grid, sweep
>>> points = grid(algorithm=["vegas", "quick-vegas"], bandwidth=["10Mbps", "50Mbps"])
>>> res = sweep(points, engine="closed-form", metrics=["ss_exit_window"])
>>> list(res.table.columns[:3]), len(res.table), res.n_failed
(['point', 'scenario', 'algorithm'], 4, 0)
"""

from __future__ import annotations

from .config import CONFIG_KEYS, DEFAULT_SCENARIO, ENGINE_METRICS, SWEEP_ENGINES, Sweep, sweep
from .grids import Grid, grid
from .plotting import plot_sweep
from .tables import SweepResult, read_table

__all__ = [
    "CONFIG_KEYS", "DEFAULT_SCENARIO", "ENGINE_METRICS", "SWEEP_ENGINES", "Grid", "Sweep",
    "SweepResult", "grid", "plot_sweep", "read_table", "sweep",
]  # fmt: skip
