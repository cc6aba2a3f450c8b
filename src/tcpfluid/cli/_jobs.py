"""The ``--jobs`` option of ``report`` and ``sweep``: one definition, one default.

Default: the CPUs this process may use (``os.sched_getaffinity``), capped at the work
(a sweep of 3 points starts 3 workers); ``0`` also means that; ``1`` runs everything in
this process.
"""

from __future__ import annotations

import argparse

__all__ = ["JOBS_HELP", "add_jobs_option", "parse_jobs"]

JOBS_HELP = (
    "worker processes (default: the CPUs this process may use, capped at the work; 0: the "
    "same; 1: everything in this process)"
)


def add_jobs_option(p: argparse.ArgumentParser, extra: str = "") -> None:
    """Add ``-j/--jobs N`` to ``p`` (read into ``args.jobs`` as text; :func:`parse_jobs`)."""
    p.add_argument(
        "-j", "--jobs", default=None, metavar="N", help=JOBS_HELP + (f"; {extra}" if extra else "")
    )


def parse_jobs(value: object) -> int | None:
    """``--jobs``: an integer >= 0; ``None`` (the default) and ``0`` give ``None``: the
    CPUs capped at the work. ``ValueError`` naming the value otherwise."""
    if value is None:
        return None
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ValueError(f"--jobs must be an integer >= 0 (0: all CPUs), got {value!r}") from None
    if n < 0:
        raise ValueError(f"--jobs must be an integer >= 0 (0: all CPUs), got {value!r}")
    return n if n > 0 else None
