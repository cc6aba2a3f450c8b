"""The one registry of control laws, by the names used everywhere (API, command, report).

>>> from tcpfluid.algorithms import get_law
>>> get_law("vegas", alpha=1, beta=3)
Vegas(alpha=1.0, beta=3.0, gamma=1.0, initial_window=2.0)

Each law declares its parameters on its class (:attr:`ControlLaw.parameters`); what this
module reports about them is read from those declarations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import ControlLaw, Parameter
from .enhanced_vegas import EnhancedVegas
from .fast import Fast
from .forward_vegas import ForwardVegas
from .itcp_vegas import ITcpVegas
from .quick_vegas import QuickVegas
from .reno import Reno
from .tcp_ho import TcpHo
from .vegas import Vegas

__all__ = [
    "ALGORITHMS",
    "expand_aliases",
    "get_law",
    "law_class",
    "law_parameters",
    "parameter_declarations",
    "scenario_parameter_keys",
]

#: every law class, in the order the documents introduce them
_LAWS: dict[str, type[ControlLaw]] = {
    cls.name: cls
    for cls in (Vegas, EnhancedVegas, QuickVegas, TcpHo, ITcpVegas, ForwardVegas, Reno, Fast)
}
#: registry names of every law, in the order the documents introduce them
ALGORITHMS: tuple[str, ...] = tuple(_LAWS)


def law_class(name: str) -> type[ControlLaw]:
    """The class registered under ``name``.

    ValueError (listing :data:`ALGORITHMS`) if there is none.
    """
    if not isinstance(name, str) or name not in _LAWS:
        raise ValueError(f"unknown algorithm {name!r}; valid names are: {', '.join(ALGORITHMS)}")
    return _LAWS[name]


def parameter_declarations(name: str) -> tuple[Parameter, ...]:
    """The parameters law ``name`` declares (:class:`~tcpfluid.algorithms.base.Parameter`:
    default, accepted range, alias), in their documented order."""
    return law_class(name).parameters


def law_parameters(name: str) -> dict[str, Any]:
    """The keyword parameters of law ``name`` and their defaults (its declarations)."""
    return {p.name: p.default for p in parameter_declarations(name)}


def scenario_parameter_keys() -> tuple[str, ...]:
    """The law parameters that are scenario parameters too (declared with
    ``scenario_key``), over every law in :data:`ALGORITHMS` order, each once."""
    names = (p.name for a in ALGORITHMS for p in parameter_declarations(a) if p.scenario_key)
    return tuple(dict.fromkeys(names))


def expand_aliases(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` of law ``name`` with each alias's value also under the parameters it
    sets (:attr:`Parameter.sets`): ``{"delta": 2}`` of ``"enhanced-vegas"`` gives
    ``{"delta": 2, "alpha": 2, "beta": 2}``; other laws' parameters come back as given
    (:meth:`ControlLaw.expand_aliases`)."""
    return law_class(name).expand_aliases(params)


def get_law(name: str, **params: Any) -> ControlLaw:
    """Build the law registered under ``name`` with keyword ``params``.

    ``name``: one of :data:`ALGORITHMS`; ``params``: the law's parameters (each law's class
    documents them; numbers may have one value per flow). ValueError: an unknown name or a value out
    of range; TypeError: a parameter the law does not accept or of the wrong type (each naming it).
    """
    return law_class(name)(**params)
