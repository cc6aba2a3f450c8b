"""The report's prose (section intros, captions, notes, reasons for ``n/a``), kept in
``prose.toml`` beside this module: one table per section, one entry per text; a text's
``{name}`` fields are filled in by :func:`prose`."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any


@cache
def _texts() -> dict[str, dict[str, Any]]:
    return tomllib.loads(resources.files(__package__).joinpath("prose.toml").read_text("utf-8"))


def texts(section: str) -> dict[str, Any]:
    """Every entry of ``section`` in ``prose.toml``, as written (no field filled in)."""
    return _texts()[section]


def prose(section: str, key: str, **fields: Any) -> str:
    """The text ``key`` of ``section`` in ``prose.toml``, its ``{name}`` fields filled in
    from ``fields``."""
    return _texts()[section][key].format(**fields)
