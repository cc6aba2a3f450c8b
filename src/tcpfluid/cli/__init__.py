"""The ``tcpfluid`` command.

Each sub-command lives in its own module of this package with two functions:
``add_parser(subparsers)`` and ``run(args) -> int``. Add a module name to
``_COMMANDS`` to register a new one.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence

from .. import __version__
from ._once import refuse_repeated_options

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
    return refuse_repeated_options(parser)


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that ``finally`` blocks run (temporary files
    removed, the sweep cache closed) before the process exits."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that the interpreter's final
    flush does not print a second error."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (captured, closed)
        pass


def _tolerant_output() -> None:
    """Let text that the terminal's encoding cannot show (γ, §, – under ``LC_ALL=C`` or
    ``PYTHONIOENCODING=ascii``) come out escaped (``\\u03b3``) instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "γ§–".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")


def _describe_os_error(exc: OSError) -> str:
    """One line naming the file, e.g. ``cannot write 'x.csv': Permission denied``."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None:
        return f"{str(exc.filename)!r}: {reason}"
    return reason


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse ``argv`` and run the sub-command; returns the exit status.

    No traceback reaches the user: bad input (``ValueError``/``TypeError``) is one line
    and exit status 2; a file that cannot be read or written (``OSError``) is one line
    naming it, and a failed computation (a solver that did not converge, a conservation
    check, an arithmetic overflow) one line, both exit status 1; Ctrl-C exits with 130
    and SIGTERM with 143 after cleaning up (a sweep keeps its cache); a closed output
    pipe (``tcpfluid ... --json | head``) ends quietly with 141, like other Unix tools.
    Set ``TCPFLUID_DEBUG=1`` to get the traceback of an unexpected error.
    """
    name = "tcpfluid"
    _tolerant_output()
    debug = os.environ.get("TCPFLUID_DEBUG", "") not in ("", "0")
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        # the first argument names the sub-command: import only its module (fast start-up)
        parser = build_parser(argv[0] if argv and argv[0] in _COMMANDS else None)
        args = parser.parse_args(argv)
        name = f"tcpfluid {args.command}"
        return int(args.run(args))
    except BrokenPipeError:
        _silence_stdout()
        return 128 + 13  # SIGPIPE
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{name}: terminated", file=sys.stderr)
        return 143
    except (ValueError, TypeError) as exc:
        if debug:
            raise
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if debug:
            raise
        print(f"{name}: error: {_describe_os_error(exc)}", file=sys.stderr)
        return 1
    except (RuntimeError, ArithmeticError, MemoryError, RecursionError) as exc:
        if debug:
            raise
        print(f"{name}: failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # anything else: still one line, never a traceback
        if debug:
            raise
        print(
            f"{name}: internal error: {type(exc).__name__}: {exc} (set TCPFLUID_DEBUG=1 for "
            "the traceback and please report it)",
            file=sys.stderr,
        )
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
