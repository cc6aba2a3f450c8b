"""The one registry of control laws, by the names used everywhere (API, command, report).

>>> from tcpfluid.algorithms import get_law
>>> get_law("vegas", alpha=1, beta=3)
Vegas(alpha=1.0, beta=3.0, gamma=1.0)
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from .base import ControlLaw

__all__ = ["ALGORITHMS", "get_law", "law_class", "law_parameters"]

#: registry names of every law, in the order the documents introduce them
ALGORITHMS: tuple[str, ...] = (
    "vegas",
    "enhanced-vegas",
    "quick-vegas",
    "tcp-ho",
    "itcp-vegas",
    "forward-vegas",
    "reno",
    "fast",
)

_LOCATION: dict[str, tuple[str, str]] = {
    "vegas": ("vegas", "Vegas"),
    "enhanced-vegas": ("enhanced_vegas", "EnhancedVegas"),
    "quick-vegas": ("quick_vegas", "QuickVegas"),
    "tcp-ho": ("tcp_ho", "TcpHo"),
    "itcp-vegas": ("itcp_vegas", "ITcpVegas"),
    "forward-vegas": ("forward_vegas", "ForwardVegas"),
    "reno": ("reno", "Reno"),
    "fast": ("fast", "Fast"),
}


def law_class(name: str) -> type[ControlLaw]:
    """The class registered under ``name``.

    Raises
    ------
    ValueError
        If ``name`` is not one of :data:`ALGORITHMS` (the message lists them).
    """
    if not isinstance(name, str) or name not in _LOCATION:
        raise ValueError(f"unknown algorithm {name!r}; valid names are: {', '.join(ALGORITHMS)}")
    module_name, class_name = _LOCATION[name]
    module = importlib.import_module(f"{__package__}.{module_name}")
    cls: type[ControlLaw] = getattr(module, class_name)
    return cls


def law_parameters(name: str) -> dict[str, Any]:
    """The keyword parameters of law ``name`` and their defaults."""
    sig = inspect.signature(law_class(name).__init__)
    return {
        p.name: p.default
        for p in sig.parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


def get_law(name: str, **params: Any) -> ControlLaw:
    """Build the law registered under ``name`` with keyword ``params``.

    Parameters
    ----------
    name
        One of :data:`ALGORITHMS`.
    **params
        The law's parameters (see each law's class); scalars or arrays with one value per
        flow.

    Raises
    ------
    ValueError
        Unknown ``name`` (listing the valid names) or a parameter out of range.
    TypeError
        A parameter the law does not accept (naming it and listing the accepted ones), or
        a parameter of the wrong type.
    """
    cls = law_class(name)
    accepted = law_parameters(name)
    unknown = [k for k in params if k not in accepted]
    if unknown:
        listing = ", ".join(accepted) if accepted else "none"
        raise TypeError(
            f"unknown parameter {unknown[0]!r} for algorithm {name!r}; accepted: {listing}"
        )
    return cls(**params)
