"""The whole suite's set-up: under pytest-xdist, compile (or load from Numba's cache) the
compiled kernels once in the controlling process before the workers start.

On a fresh checkout Numba's cache is empty: without this each worker, and each command a
test starts in a subprocess before the cache is written, compiles the packet simulator's
and the hybrid model's kernels itself (about 25 s each on a 2-core machine). Compiled here
once (the packet kernels in this process, the fluid ones in a forked child at the same
time, as the report does before its pool starts), every later process loads them from the
cache (docs/simulator.md, "Where the Numba cache is")."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return  # a worker (the controller compiled), or no workers: compiled on first use
    from tcpfluid.report._core import _warm_up_both

    _warm_up_both()
