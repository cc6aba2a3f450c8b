"""The ``--set KEY=VALUE`` option (scenario parameter overrides) of ``simulate`` and
``predict`` and the ``-q/--quiet/--no-progress`` option of the commands that show a
progress bar: one definition of each (imports nothing heavy)."""

from __future__ import annotations

import argparse

__all__ = ["add_quiet_option", "add_set_option", "parse_sets"]


def add_set_option(p: argparse.ArgumentParser, help: str) -> None:
    """Add the repeatable ``--set KEY=VALUE`` option to ``p`` (read into ``args.sets``)."""
    p.add_argument(
        "--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help=help
    )


def add_quiet_option(p: argparse.ArgumentParser, help: str, dest: str = "quiet") -> None:
    """Add ``-q/--quiet/--no-progress`` (no progress bar) to ``p``, read into ``args.dest``."""
    p.add_argument("-q", "--quiet", "--no-progress", dest=dest, action="store_true", help=help)


def parse_sets(items: list[str]) -> dict[str, str]:
    """``["k=v", ...]`` to a dict; raises ``ValueError`` naming a malformed item."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise ValueError(f"--set expects KEY=VALUE, got {item!r}")
        if key == "algorithm":
            raise ValueError("--set algorithm=... is not accepted; use --algorithm")
        if key in out:
            raise ValueError(f"--set {key} is given twice ({out[key]!r}, {value.strip()!r})")
        out[key] = value.strip()
    return out
