"""The control laws' compiled rules: each law's rule is one Python function that loops over
the flows with scalar code, compiled with Numba on first use (``error_model="numpy"``, no
``fastmath``: it rounds as NumPy array code would; docs/algorithms.md, "The contract the
engines rely on") and cached on disk by :mod:`tcpfluid._numba_cache`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from types import FunctionType
from typing import Any

import numpy as np

from .._numba_cache import JIT_OPTIONS, embeds
from .._numba_cache import configure as configure_cache

__all__ = ["HELPER_OPTIONS", "JIT_OPTIONS", "Kernel", "arg_kind", "configure_cache", "helpers"]

#: Numba options of a helper only compiled code calls (:func:`helpers`): no Python or C entry
#: point, marked ``alwaysinline`` so that LLVM inlines its optimised code where its callers
#: are linked. Numba's own inlining (``inline="always"``) types and lowers a copy at every
#: call site, several times the compile (docs/algorithms.md, "Compile time")
HELPER_OPTIONS: dict[str, Any] = {
    **JIT_OPTIONS, "forceinline": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True
}  # fmt: skip
#: each helper compiled once per process, by the helper and the compiled names it resolves
_HELPERS: dict[tuple[Any, ...], Any] = {}


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
    ``uses``: what the rule calls, a helper calling those listed before it (:func:`helpers`):
    plain Python functions (Vegas's Δ ``_common.backlog``, ``fmax``), each compiled once and
    inlined into the rules that call it, or another law's :class:`Kernel`, whose compiled
    rule is called as it is."""

    __slots__ = ("_fits", "_overload", "args", "fn", "py_func", "uses")

    def __init__(
        self,
        py_func: Callable[..., Any],
        args: str,
        uses: tuple[Callable[..., Any] | Kernel, ...] = (),
    ) -> None:
        self.py_func = py_func
        self.args = args
        self.uses = uses
        #: the compiled rule once :meth:`get` has made it, else ``None``
        self.fn: Callable[..., Any] | None = None
        #: whether arguments of these kinds (:func:`arg_kind`) fit the compiled signature
        self._fits: dict[tuple[Any, ...], bool] = {}
        #: the compiled signature's entry point and argument types, read once (``None``:
        #: not read yet; ``()``: not one Numba overload, so the rule is called as it is)
        self._overload: tuple[Any, ...] | None = None

    def get(self) -> Callable[..., Any]:
        """The compiled rule (compiled, or loaded from the cache, on the first call)."""
        if self.fn is None:
            from numba import njit, types

            configure_cache()
            embeds(self.py_func, *self.uses)  # its helpers' code is compiled into it
            signature = types.void(*(_numba_type(c) for c in self.args))
            # the rule as written, its helpers resolved to their compiled versions
            compiled = helpers(self.uses)
            self.fn = njit(signature, **JIT_OPTIONS)(_resolved(self.py_func, compiled))
        return self.fn

    def bind(self, *args: Any) -> Callable[[], None]:
        """The compiled rule on ``args`` as a call without arguments, for arrays that stay in
        place (the packet simulator binds each flow's once): the compiled entry point when
        every argument has the signature's type (typed once), else Numba's dispatcher."""
        fn: Any = self.get()
        if self._overload is None:
            overloads: Any = getattr(fn, "overloads", None)
            # not one compiled overload: not compiled by Numba (NUMBA_DISABLE_JIT)
            self._overload = ()
            if overloads and len(overloads) == 1:
                (overload,) = overloads.values()
                self._overload = (overload.entry_point, overload.signature.args)
        if not self._overload:
            return partial(fn, *args)
        entry, expected = self._overload
        # Numba's typing of an array costs about 10 us: done once per kind of arguments
        key = tuple(map(arg_kind, args))
        fits = self._fits.get(key)
        if fits is None:
            fits = self._fits[key] = len(args) == len(expected) and all(
                _fits(fn.typeof_pyval(a), t) for a, t in zip(args, expected, strict=True)
            )
        return partial(entry if fits else fn, *args)


def helpers(
    uses: Iterable[Callable[..., Any] | Kernel], names: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``names`` (default none) and the compiled versions of ``uses`` by name, in order, each
    resolving the names of those before it and of ``names`` (:func:`_resolved`): a plain
    function compiled once per process with :data:`HELPER_OPTIONS`, a :class:`Kernel` its
    compiled rule."""
    from numba import njit

    out = dict(names or {})
    for f in uses:
        if isinstance(f, Kernel):
            out[f.py_func.__name__] = f.get()
            continue
        key = (f, *((n, id(out[n])) for n in f.__code__.co_names if n in out))
        if key not in _HELPERS:
            _HELPERS[key] = njit(**HELPER_OPTIONS)(_resolved(f, out))
        out[f.__name__] = _HELPERS[key]
    return out


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
