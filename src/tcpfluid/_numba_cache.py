"""Where every compiled part of tcpfluid caches its Numba kernels: one rule.

``NUMBA_CACHE_DIR`` if set (Numba's own variable wins), else ``$TCPFLUID_CACHE_DIR/numba``
if ``TCPFLUID_CACHE_DIR`` is set, else Numba's default (the package's ``__pycache__``
when writable, otherwise ``~/.cache/numba``); see docs/simulator.md. Each module that
compiles with ``cache=True`` (the packet simulator's kernels, the hybrid fluid model's
kernel) calls :func:`configure` before its first ``@njit``.
"""

from __future__ import annotations

import os

__all__ = ["cache_dir", "configure"]


def cache_dir() -> str | None:
    """The directory the rule above gives, or ``None`` for Numba's default."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    if os.environ.get("TCPFLUID_CACHE_DIR"):
        return os.path.join(os.environ["TCPFLUID_CACHE_DIR"], "numba")
    return None


def configure() -> None:
    """Point Numba's cache at :func:`cache_dir` (no change when it is ``None``, or when
    ``NUMBA_CACHE_DIR`` is set: Numba reads that itself)."""
    path = cache_dir()
    if path is not None and not os.environ.get("NUMBA_CACHE_DIR"):
        from numba.core import config

        config.CACHE_DIR = path  # type: ignore[attr-defined]
