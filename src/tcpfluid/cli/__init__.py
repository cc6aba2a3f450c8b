"""The ``tcpfluid`` command: one module per sub-command (listed in ``_COMMANDS``), each with
``add_parser(subparsers)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ._options import refuse_repeated_options

__all__ = ["build_parser", "main"]

_COMMANDS = ("predict", "simulate", "scenario", "sweep", "plot", "report")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of ``tcpfluid`` (``only``: just that sub-command's)."""
    parser = _JsonArgumentParser(
        prog="tcpfluid",
        description=(
            "Closed forms, fluid models and a packet simulator for delay-based TCP "
            "congestion control (Vegas, Quick Vegas, TCP-Ho, iTCP-Vegas, FAST, Reno)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"tcpfluid {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_JsonArgumentParser)
    sub.required = True
    for name in _COMMANDS:
        if only in (None, name):
            importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return refuse_repeated_options(parser)


class _Terminated(BaseException):
    """SIGTERM as an exception, so that ``finally`` blocks run before the process exits."""


def _quiet_cancelled_futures() -> None:
    """After an interrupt, do not print a pool thread's ``InvalidStateError`` for a future the
    interrupt cancelled (CPython 3.11's ``concurrent.futures``)."""
    from concurrent.futures import InvalidStateError

    default = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is not None and issubclass(args.exc_type, InvalidStateError):
            return
        default(args)

    threading.excepthook = hook


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated


def _silence_stdout() -> None:
    """Point stdout at /dev/null (after a closed pipe: no second error at the final flush)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (captured, closed)
        pass


def _tolerant_output() -> None:
    """Escape text the terminal's encoding cannot show (γ under ``LC_ALL=C``) instead of failing."""
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
    if exc.errno in _FULL:  # the library names the files it writes: this is stdout
        return f"writing the standard output: {reason}"
    return reason


#: a full disk or a file-size limit (ENOSPC, EFBIG, EDQUOT)
_FULL = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


_PARAMETER_PATTERNS = (
    re.compile(r"^(--[\w-]+)"),  # "--jobs must be ..."
    re.compile(r"^argument (?:-\w/)?(--[\w-]+)"),  # argparse: "argument -a/--algorithm: ..."
    re.compile(r"^unrecognized arguments: (\S+)"),
    re.compile(r"unknown (?:parameter|key|option) '([^']+)'"),
    re.compile(r"unknown (metric|engine|scenario|algorithm) '"),
    re.compile(r"^(algorithm) '"),  # a mix: "algorithm 'vegas:8,reno:2' names 10 flows; ..."
    re.compile(r"key '([^']+)'"),  # a scenario file's "[[link]] 1, key 'rate': ..."
    re.compile(r"^([A-Za-z_][\w.\[\]-]*)(?: must| should|: )"),  # "buffer must be ..."
    re.compile(r"^([A-Za-z_]\w*)=\S"),  # "duration=1e+300 s: ..."
    re.compile(r"^([A-Za-z_]\w*) as a sequence must"),  # a per-flow option's length
)


def _parameter(message: str) -> str | None:
    """The parameter an error message names first (``None`` when it names none)."""
    for pattern in _PARAMETER_PATTERNS:
        m = pattern.search(message)
        if m:
            return m.group(1)
    return None


def _report(name: str, message: str, status: int, kind: str, as_json: bool) -> int:
    """Print an error: one line on stderr, or with ``--json`` a JSON object on stdout."""
    if as_json:
        parameter = _parameter(message) if kind == "error" else None
        out = dict(error=message, parameter=parameter, type=kind, command=name, exit_status=status)
        try:
            print(json.dumps(out, indent=2), flush=True)
            return status
        except OSError:  # the standard output cannot take it (a full disk): say it below
            _silence_stdout()
    print(f"{name}: {kind}: {message}", file=sys.stderr)
    return status


def _classify(exc: Exception) -> tuple[str, int, str]:
    """The message, exit status and kind of an error (:func:`main`)."""
    if isinstance(exc, ValueError | TypeError):
        return str(exc), 2, "error"
    if isinstance(exc, OSError):
        return _describe_os_error(exc), 1, "error"
    if isinstance(exc, RuntimeError | ArithmeticError | MemoryError | RecursionError):
        return f"{type(exc).__name__}: {exc}", 1, "failed"
    hint = "set TCPFLUID_DEBUG=1 for the traceback and please report it"
    return f"{type(exc).__name__}: {exc} ({hint})", 1, "internal error"


class _JsonArgumentParser(argparse.ArgumentParser):
    """An argument parser whose usage errors become a JSON object with ``--json``."""

    json_errors = False

    def error(self, message: str) -> NoReturn:
        if self.json_errors:
            raise _UsageError(message)
        super().error(message)


class _UsageError(Exception):
    """A command-line usage error under ``--json``."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse ``argv`` and run the sub-command; returns the exit status: 2 for
    bad input, 1 for a file or a failed computation (one line each, or a JSON object with
    ``--json``), 130 on Ctrl-C, 143 on SIGTERM, 141 on a closed pipe
    (``TCPFLUID_DEBUG=1``: the traceback of an unexpected error)."""
    name = "tcpfluid"
    _tolerant_output()
    debug = os.environ.get("TCPFLUID_DEBUG", "") not in ("", "0")
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in argv
    _JsonArgumentParser.json_errors = as_json
    try:
        # the first argument names the sub-command: import only its module (fast start-up)
        only = argv[0] if argv and argv[0] in _COMMANDS else None
        name = f"tcpfluid {only}" if only else name
        parser = build_parser(only)
        args = parser.parse_args(argv)
        name = f"tcpfluid {args.command}"
        return int(args.run(args))
    except BrokenPipeError:
        _silence_stdout()
        return 128 + 13  # SIGPIPE
    except (KeyboardInterrupt, _Terminated) as exc:
        _quiet_cancelled_futures()
        ctrl_c = isinstance(exc, KeyboardInterrupt)
        print(f"{name}: {'interrupted' if ctrl_c else 'terminated'}", file=sys.stderr)
        return 130 if ctrl_c else 143
    except _UsageError as exc:
        return _report(name, str(exc), 2, "error", as_json)
    except Exception as exc:  # never a traceback: one line (or a JSON object)
        if debug:
            raise
        return _report(name, *_classify(exc), as_json)
    finally:
        _JsonArgumentParser.json_errors = False
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
