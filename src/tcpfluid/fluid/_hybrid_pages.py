"""Memory pages of the hybrid model's large arrays (:func:`small_pages`)."""

from __future__ import annotations

import contextlib
import functools
import importlib
import warnings
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """NumPy's large arrays allocated in this block on ordinary memory pages, not huge ones.

    NumPy asks Linux for transparent huge pages for every large array; where the kernel
    then compacts memory on the first touch of each 2-MiB page (the default ``defrag``
    rule for such requests, on a machine whose memory is full of page cache), writing a
    flows x samples record once costs several times the writing itself (10,000 flows x
    1,001 samples: ~2 s of system time in ~1 GB of series, against ~0.8 s on ordinary
    pages). The series are written once, in order, and read a few times: huge pages bring
    them nothing. The setting is NumPy's own (``NUMPY_MADVISE_HUGEPAGE``), restored on
    leaving; without it (another NumPy) the block changes nothing.
    """
    setter = _hugepage_setter()
    if setter is None:
        yield
        return
    before = setter(False)
    try:
        yield
    finally:
        setter(before)


@functools.cache
def _hugepage_setter() -> Callable[[bool], bool] | None:
    """NumPy's switch of the huge-page advice (returns the previous setting), if it has one."""
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                mod = importlib.import_module(module)
        except ImportError:
            continue
        setter = getattr(mod, "_set_madvise_hugepage", None)
        if callable(setter):
            return setter
    return None
