"""The ``tcpfluid`` command.

Each sub-command lives in its own module of this package with two functions:
``add_parser(subparsers)`` and ``run(args) -> int``. Add a module name to
``_COMMANDS`` to register a new one.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__

__all__ = ["build_parser", "main"]

_COMMANDS = ("predict", "simulate", "sweep", "plot", "report")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``tcpfluid`` command (with ``only``: just that
    sub-command, so that ``tcpfluid predict`` does not import the simulators)."""
    parser = argparse.ArgumentParser(
        prog="tcpfluid",
        description=(
            "Closed forms, fluid models and a packet simulator for delay-based TCP "
            "congestion control (Vegas, Quick Vegas, TCP-Ho, iTCP-Vegas, FAST, Reno)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"tcpfluid {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a command whose module is not written yet
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse ``argv`` and run the sub-command; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # the first argument names the sub-command: import only its module (fast start-up)
    parser = build_parser(argv[0] if argv and argv[0] in _COMMANDS else None)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except (ValueError, TypeError) as exc:
        print(f"tcpfluid {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
