"""Where every compiled part of tcpfluid caches its Numba kernels, and what a damaged cache
file does: one rule (docs/simulator.md, "Where the Numba cache is").

Every module that compiles with ``cache=True`` calls :func:`configure` before its first
compile."""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import pickle
from functools import cache
from typing import Any

__all__ = ["JIT_OPTIONS", "cache_dir", "configure", "embeds"]

#: Numba options of every compiled kernel and law rule (the packet simulator's kernels use
#: the same cache); ``forceinline`` explicit: a kernel that leaves it unset takes it from
#: the kernel whose compile first needs it, and the cache does not key on it
JIT_OPTIONS: dict[str, Any] = {
    "cache": True, "error_model": "numpy", "nogil": True, "forceinline": False
}  # fmt: skip

_log = logging.getLogger("tcpfluid")
#: what reading a damaged pickle raises
_DAMAGED = (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError)
_guarded = False
#: Numba's cache file name prefix (``module.qualname``; ``module.`` for every kernel of a
#: module) -> the other source files its code comes from (:func:`embeds`)
_EMBEDS: dict[str, frozenset[str]] = {}


def cache_dir() -> str | None:
    """The directory the rule above gives, or ``None`` for Numba's default."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    if os.environ.get("TCPFLUID_CACHE_DIR"):
        return os.path.join(os.environ["TCPFLUID_CACHE_DIR"], "numba")
    return None


def configure() -> None:
    """Point Numba's cache at :func:`cache_dir` (no change when it is ``None``, or when
    ``NUMBA_CACHE_DIR`` is set: Numba reads that itself), and make a damaged cache file of
    tcpfluid's kernels a cache miss with a warning (idempotent)."""
    path = cache_dir()
    if path is not None and not os.environ.get("NUMBA_CACHE_DIR"):
        from numba.core import config

        config.CACHE_DIR = path  # type: ignore[attr-defined]
    _guard()


def embeds(kernel: Any, *sources: Any) -> None:
    """Declare that the cached code of ``kernel`` (a function, or a module: every kernel it
    defines) comes from ``sources`` too (functions, modules or file paths), so that an edit
    to any of them makes its cache entry stale. Declare before its first compile or load (a
    module's: at its import); it takes effect once :func:`configure` has run."""
    if inspect.ismodule(kernel):
        prefix = kernel.__name__.rpartition(".")[2] + "."
    else:
        module = os.path.splitext(os.path.basename(inspect.getfile(kernel)))[0]
        prefix = f"{module}.{kernel.__qualname__}-".replace("<", "").replace(">", "")
    files = {
        os.path.abspath(s if isinstance(s, str) else inspect.getfile(getattr(s, "py_func", s)))
        for s in sources
    }
    own = os.path.abspath(inspect.getfile(kernel))
    _EMBEDS[prefix] = _EMBEDS.get(prefix, frozenset()) | frozenset(files - {own})


def _embedded_stamp(filename_base: str) -> tuple[tuple[str, float, int], ...]:
    """The stamps (path, modification time, size) of the sources declared for a cache
    entry, in a fixed order (empty when none are)."""
    files = set().union(*(v for k, v in _EMBEDS.items() if filename_base.startswith(k)))
    return tuple((path, (st := os.stat(path)).st_mtime, st.st_size) for path in sorted(files))


@cache
def _our_cache_dirs() -> tuple[frozenset[str], frozenset[str]]:
    """The cache directories Numba can give a kernel of this package: ``__pycache__``
    beside a module (Numba's in-tree cache), or a directory named by Numba's subpath rule
    for the module's directory (under ``NUMBA_CACHE_DIR`` or the user-wide cache)."""
    from numba.core.caching import _CacheLocator

    root = os.path.dirname(os.path.abspath(__file__))
    in_tree, subpaths = set(), set()
    for folder, dirs, _ in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        in_tree.add(os.path.join(folder, "__pycache__"))
        subpaths.add(_CacheLocator.get_suitable_cache_subpath(os.path.join(folder, "x.py")))
    return frozenset(in_tree), frozenset(subpaths)


def _drop(cache_file: Any, path: str, exc: BaseException) -> None:
    """Remove the damaged file ``path`` of one of tcpfluid's caches; re-raise for others."""
    where = os.path.abspath(getattr(cache_file, "_cache_path", ""))
    in_tree, subpaths = _our_cache_dirs()
    if where not in in_tree and os.path.basename(where) not in subpaths:
        raise exc
    _log.warning(
        "tcpfluid's compiled-kernel cache file %s is damaged (%s: %s); it is removed and "
        "the kernel compiled again (seconds, once)",
        path,
        type(exc).__name__,
        exc,
    )
    with contextlib.suppress(OSError):
        os.unlink(path)


def _guard() -> None:
    global _guarded
    if _guarded:
        return
    from numba.core.caching import IndexDataCacheFile

    init = IndexDataCacheFile.__init__
    load_index = IndexDataCacheFile._load_index
    load_data = IndexDataCacheFile._load_data

    def __init__(self: Any, cache_path: str, filename_base: str, source_stamp: Any) -> None:
        extra = _embedded_stamp(filename_base) if _EMBEDS else ()
        init(self, cache_path, filename_base, (source_stamp, extra) if extra else source_stamp)

    def _load_index(self: Any) -> Any:
        try:
            return load_index(self)
        except _DAMAGED as exc:
            _drop(self, self._index_path, exc)
            return {}

    def _load_data(self: Any, name: str) -> Any:
        try:
            return load_data(self, name)
        except _DAMAGED as exc:
            _drop(self, self._data_path(name), exc)
            # numba's load() takes an OSError as "the data file is gone": a cache miss
            raise OSError(f"damaged cache file {self._data_path(name)} removed") from exc

    IndexDataCacheFile.__init__ = __init__  # type: ignore[method-assign]
    IndexDataCacheFile._load_index = _load_index  # type: ignore[method-assign]
    IndexDataCacheFile._load_data = _load_data  # type: ignore[method-assign]
    _guarded = True
