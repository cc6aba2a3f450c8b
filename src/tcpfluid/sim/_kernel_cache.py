"""A damaged cache of the packet simulator's compiled kernels is rebuilt, not fatal.

Numba caches each compiled kernel of :mod:`tcpfluid.sim._core` in an index file (``.nbi``)
and a data file (``.nbc``). A file cut short (a full disk, a process killed while writing,
a copy interrupted) made Numba raise ``UnpicklingError`` at every later import: every packet
run failed until the file was removed by hand. :func:`guard_kernel_cache` makes Numba treat
an unreadable cache file of *these* kernels as a cache miss: the file is removed, a warning
names it, and the kernel is compiled again and re-cached. Other packages' Numba caches are
left to Numba.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pickle
from typing import Any

_log = logging.getLogger("tcpfluid.sim")

#: the file names of this package's kernels in Numba's cache start with the module's name
_PREFIX = "_core."
#: what reading a damaged pickle raises
_DAMAGED = (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError)
_installed = False


def _ours(cache_file: Any) -> bool:
    return os.path.basename(getattr(cache_file, "_index_path", "")).startswith(_PREFIX)


def _drop(path: str, exc: BaseException) -> None:
    _log.warning(
        "the packet simulator's compiled-kernel cache file %s is damaged (%s: %s); it is "
        "removed and the kernel compiled again (a few seconds, once)",
        path,
        type(exc).__name__,
        exc,
    )
    with contextlib.suppress(OSError):
        os.unlink(path)


def guard_kernel_cache() -> None:
    """Install the guard (idempotent); called by :mod:`tcpfluid.sim._core` before its
    kernels are compiled or loaded."""
    global _installed
    if _installed:
        return
    from numba.core.caching import IndexDataCacheFile

    load_index = IndexDataCacheFile._load_index
    load_data = IndexDataCacheFile._load_data

    def _load_index(self: Any) -> Any:
        try:
            return load_index(self)
        except _DAMAGED as exc:
            if not _ours(self):
                raise
            _drop(self._index_path, exc)
            return {}

    def _load_data(self: Any, name: str) -> Any:
        try:
            return load_data(self, name)
        except _DAMAGED as exc:
            if not _ours(self):
                raise
            _drop(self._data_path(name), exc)
            # numba's load() takes an OSError as "the data file is gone": a cache miss
            raise OSError(f"damaged cache file {self._data_path(name)} removed") from exc

    IndexDataCacheFile._load_index = _load_index  # type: ignore[method-assign]
    IndexDataCacheFile._load_data = _load_data  # type: ignore[method-assign]
    _installed = True
