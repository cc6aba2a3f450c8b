"""Progress on the commands' stderr: drawn on a terminal, never with ``--quiet``, never
into ``--json`` output, never when stderr is not a terminal.

Each command runs in a child process whose stderr is a pseudo-terminal (what a user's
shell gives it) and whose stdout is a pipe.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

PY = sys.executable
ODE_RUN = ["simulate", "thesis-two-flow", "--engine", "ode", "-a", "vegas", "--set", "duration=20s"]


def _run_on_a_terminal(
    argv: list[str], cwd: Path | None = None, *, sized: bool = False
) -> tuple[int, str, str]:
    """Run ``python -m tcpfluid.cli argv`` with stderr on a pseudo-terminal (``sized``: one
    that reports a 100 x 30 window, else one that reports none); returns (exit status,
    stdout, what the terminal received)."""
    master, slave = pty.openpty()
    if sized:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    try:
        proc = subprocess.Popen(
            [PY, "-m", "tcpfluid.cli", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
            cwd=cwd,
        )
    finally:
        os.close(slave)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    proc.stdout.close()
    status = proc.wait(timeout=300)
    return status, out, b"".join(chunks).decode(errors="replace")


def test_an_ode_run_draws_its_bar_on_a_terminal() -> None:
    status, out, term = _run_on_a_terminal(ODE_RUN)
    assert status == 0, term
    assert "ode run" in term and "100%" in term
    assert "ode run" not in out


def test_quiet_draws_nothing() -> None:
    # the three spellings are one switch (the same parsed command, so one run on a
    # terminal stands for each)
    from tcpfluid.cli import build_parser

    parser = build_parser("simulate")
    quiet = parser.parse_args([*ODE_RUN, "--quiet"])
    for flag in ("-q", "--no-progress"):
        assert parser.parse_args([*ODE_RUN, flag]) == quiet, flag
    status, out, term = _run_on_a_terminal([*ODE_RUN, "--quiet"])
    assert status == 0, term
    assert term.strip() == ""
    assert "thesis-two-flow" in out


def test_json_output_has_no_bar_and_parses() -> None:
    status, out, term = _run_on_a_terminal([*ODE_RUN, "--json"])
    assert status == 0, term
    assert term.strip() == ""
    assert json.loads(out)["engine"] == "ode"


def test_not_a_terminal_draws_nothing() -> None:
    res = subprocess.run(
        [PY, "-m", "tcpfluid.cli", *ODE_RUN], capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


_SWEEP = """\
engine = "closed-form"
algorithm = "vegas"
metrics = ["ss_exit_window"]
[grid]
bandwidth = ["10Mbps", "20Mbps", "30Mbps", "40Mbps"]
"""


@pytest.mark.parametrize(
    ("flag", "sized"), [(None, False), (None, True), ("--quiet", False), ("--no-progress", True)]
)
def test_a_sweep_draws_its_bar_unless_quiet(tmp_path: Path, flag: str | None, sized: bool) -> None:
    (tmp_path / "s.toml").write_text(_SWEEP)
    argv = ["sweep", "s.toml", "--out", "o.csv", *([flag] if flag else [])]
    status, out, term = _run_on_a_terminal(argv, cwd=tmp_path, sized=sized)
    assert status == 0, term
    assert "wrote 4 rows" in out
    if flag is None:
        assert "sweep (closed-form)" in term and "4/4" in term
    else:
        assert term.strip() == ""


@pytest.mark.parametrize("command", ["predict", "simulate", "sweep", "report"])
def test_every_long_running_command_takes_quiet_and_no_progress(command: str) -> None:
    """The one switch the README names, in both spellings, on every command that draws a
    progress bar."""
    from tcpfluid.cli import build_parser

    parser = build_parser(command)
    positional = {
        "predict": ["qv-basic"],
        "simulate": ["qv-basic", "-a", "vegas"],
        "sweep": ["c.toml", "--out", "o.csv"],
        "report": [],
    }[command]
    dest = "no_progress" if command == "sweep" else "quiet"
    assert getattr(parser.parse_args([command, *positional]), dest) is False
    for flag in ("-q", "--quiet", "--no-progress"):
        assert getattr(parser.parse_args([command, *positional, flag]), dest) is True, flag
