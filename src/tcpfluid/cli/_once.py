"""Options given twice are refused: ``--rtt 10ms --rtt 100ms`` is an error naming the
option, not a silent "the last one wins". Repeatable options (``--set``, ``--algorithm``)
are ``append`` actions and stay repeatable."""

from __future__ import annotations

import argparse
import weakref
from typing import Any

__all__ = ["refuse_repeated_options"]


class _Once:
    """Mixin of a single-valued action: the second call within one parse is an error."""

    _seen: Any = None

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        seen = self._seen() if self._seen is not None else None
        if seen is namespace:
            names = "/".join(self.option_strings)  # type: ignore[attr-defined]
            given = f"{option_string} {values}" if values not in (None, []) else option_string
            raise ValueError(f"{names} is given more than once ({given}); give it once")
        self._seen = weakref.ref(namespace)
        super().__call__(parser, namespace, values, option_string)  # type: ignore[misc]


_ONCE: dict[type, type] = {}


def refuse_repeated_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make every single-valued option of ``parser`` and of its sub-commands refuse a
    second occurrence: a ``ValueError`` naming the option (``tcpfluid`` prints it as one
    line and exits with status 2). Returns ``parser``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                refuse_repeated_options(sub)
            continue
        kind = type(action)
        single = issubclass(kind, argparse._StoreAction | argparse._StoreConstAction)
        if not action.option_strings or not single or isinstance(action, _Once):
            continue
        if kind not in _ONCE:
            _ONCE[kind] = type(f"Once{kind.__name__}", (_Once, kind), {})
        action.__class__ = _ONCE[kind]
    return parser
