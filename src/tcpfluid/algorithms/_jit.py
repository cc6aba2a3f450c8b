"""The control laws' compiled rules: each law's rule is one Python function that loops over
the flows with scalar code, compiled with Numba on first use (``error_model="numpy"``, no
``fastmath``: it rounds as NumPy array code would; docs/algorithms.md, "The contract the
engines rely on") and cached on disk by :mod:`tcpfluid._numba_cache`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from types import FunctionType
from typing import Any

import numpy as np

from .._numba_cache import configure as configure_cache
from .._numba_cache import embeds

__all__ = ["JIT_OPTIONS", "Kernel", "arg_kind", "configure_cache"]

#: Numba options of every law's rule (the packet simulator's kernels use the same cache)
JIT_OPTIONS: dict[str, Any] = {"cache": True, "error_model": "numpy", "nogil": True}


def _numba_type(code: str) -> Any:
    from numba import types

    if code == "b":
        return types.boolean
    if code == "i":
        return types.int64
    if code == "I":
        return types.Array(types.intp, 1, "A", readonly=True)
    ndim = 2 if code in ("R", "W") else 1
    return types.Array(types.float64, ndim, "A", readonly=code in ("r", "R"))


class Kernel:
    """A law's rule, compiled on first use (:attr:`fn`, then :meth:`get`): importing a law
    compiles nothing. ``args`` gives each argument's type: ``"w"``/``"r"`` a float64 array
    written/only read (any layout), ``"W"``/``"R"`` the same of two dimensions, ``"b"`` a
    bool, ``"i"`` an int64, ``"I"`` a read-only array of ``numpy.intp`` flow indices.
    ``uses``: the plain Python functions the rule calls (Vegas's Δ, ``_common.backlog``, another
    law's rule), compiled and inlined with it; a helper may call those listed before it."""

    __slots__ = ("_fits", "args", "fn", "py_func", "uses")

    def __init__(
        self, py_func: Callable[..., Any], args: str, uses: tuple[Callable[..., Any], ...] = ()
    ) -> None:
        self.py_func = py_func
        self.args = args
        self.uses = uses
        #: the compiled rule once :meth:`get` has made it, else ``None``
        self.fn: Callable[..., Any] | None = None
        #: whether arguments of these kinds (:func:`arg_kind`) fit the compiled signature
        self._fits: dict[tuple[Any, ...], bool] = {}

    def get(self) -> Callable[..., Any]:
        """The compiled rule (compiled, or loaded from the cache, on the first call)."""
        if self.fn is None:
            from numba import njit, types

            configure_cache()
            embeds(self.py_func, *self.uses)  # its helpers' code is compiled into it
            signature = types.void(*(_numba_type(c) for c in self.args))
            # the rule as written, its helpers resolved to their compiled versions (a
            # helper may itself call the helpers listed before it)
            compiled: dict[str, Any] = {}
            for helper in self.uses:
                compiled[helper.__name__] = njit(inline="always", **JIT_OPTIONS)(
                    _resolved(helper, compiled)
                )
            self.fn = njit(signature, **JIT_OPTIONS)(_resolved(self.py_func, compiled))
        return self.fn

    def bind(self, *args: Any) -> Callable[[], None]:
        """The compiled rule on ``args`` as a call without arguments, for arrays that stay in
        place (the packet simulator binds each flow's once): the compiled entry point when
        every argument has the signature's type (typed once), else Numba's dispatcher."""
        fn: Any = self.get()
        overloads = getattr(fn, "overloads", None)
        if not overloads or len(overloads) != 1:  # not compiled by Numba (NUMBA_DISABLE_JIT)
            return partial(fn, *args)
        (overload,) = overloads.values()
        # Numba's typing of an array costs about 10 us: done once per kind of arguments
        key = tuple(map(arg_kind, args))
        fits = self._fits.get(key)
        if fits is None:
            expected = overload.signature.args
            fits = self._fits[key] = len(args) == len(expected) and all(
                _fits(fn.typeof_pyval(a), t) for a, t in zip(args, expected, strict=True)
            )
        return partial(overload.entry_point if fits else fn, *args)


def arg_kind(a: Any) -> Any:
    """What Numba's type of a compiled function's argument depends on: an array's dtype,
    dimensions, layout, alignment and whether it is writeable; a scalar's type (an int's
    also whether it fits in 64 bits)."""
    if type(a) is np.ndarray:
        fl = a.flags
        return (a.dtype, a.ndim, fl.c_contiguous, fl.f_contiguous, fl.aligned, fl.writeable)
    if type(a) is int:
        return (int, -(1 << 63) <= a < (1 << 63))
    return type(a)


def _resolved(func: Callable[..., Any], compiled: dict[str, Any]) -> Callable[..., Any]:
    """``func`` as written, the names of ``compiled`` it calls resolved to those compiled
    functions (``func`` itself when it calls none of them)."""
    used = {name: compiled[name] for name in func.__code__.co_names if name in compiled}
    if not used:
        return func
    names = {**func.__globals__, **used}
    out = FunctionType(func.__code__, names, func.__name__, func.__defaults__, func.__closure__)
    out.__qualname__ = func.__qualname__
    out.__module__ = func.__module__
    return out


def _fits(actual: Any, expected: Any) -> bool:
    """Whether a value of Numba type ``actual`` is passed to a compiled argument of type
    ``expected`` as it is: the same scalar type, or an array of the same dtype and
    dimensions (any layout when ``expected``'s is ``"A"``), not read-only unless
    ``expected`` is."""
    from numba import types

    if isinstance(expected, types.Array):
        return (
            isinstance(actual, types.Array)
            and actual.dtype == expected.dtype
            and actual.ndim == expected.ndim
            and (expected.layout == "A" or actual.layout == expected.layout)
            and (actual.mutable or not expected.mutable)
        )
    return bool(actual == expected)
