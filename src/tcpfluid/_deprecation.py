"""The one way an older keyword name keeps working: :func:`renamed_keywords`."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["Renamed", "renamed_keywords"]

#: old name -> new name, or (new name, conversion of the old value, how the unit changed)
Renamed = Mapping[str, "str | tuple[str, Callable[[Any], Any], str]"]


def renamed_keywords(
    where: str, options: Mapping[str, Any], renamed: Renamed, *, stacklevel: int = 3
) -> dict[str, Any]:
    """``options`` with every older name of ``renamed`` replaced by its new name (the value
    converted when the unit changed), with a :class:`DeprecationWarning` naming both.

    Parameters
    ----------
    where
        What takes the options (``"the rounds engine"``), for the messages.
    options
        The keywords as given.
    renamed
        Old name -> new name, or ``(new name, conversion, note)`` when the value changes
        unit (the conversion takes the old value and returns the new one; the note says how
        it converts, for the warning).
    stacklevel
        Passed to :func:`warnings.warn` (the caller's caller by default).

    Raises
    ------
    TypeError
        Both an old name and its new name are given.
    """
    out = dict(options)
    for old, spec in renamed.items():
        if old not in out:
            continue
        new, convert, note = (spec, None, "") if isinstance(spec, str) else spec
        if new in out:
            raise TypeError(f"{where}: give {new} or its older name {old}, not both")
        value = out.pop(old)
        out[new] = value if convert is None else convert(value)
        warnings.warn(
            f"{where}: the option {old!r} is deprecated; use {new!r}"
            + (f" ({note})" if note else ""),
            DeprecationWarning,
            stacklevel=stacklevel,
        )
    return out
