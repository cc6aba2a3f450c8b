"""The README's shell examples, as a user copies them after the two commands.

Each line must name a scenario, an algorithm and ``--set`` parameters the command accepts
(checked without running the long ones: the scenario is built and its law constructed,
where a wrong parameter is refused), and the short ones are run for real: each through the
command's entry point (:func:`tcpfluid.cli.main`, what the console script calls), one
through the installed console script itself.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tcpfluid.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SCRIPT = Path(sys.executable).parent / "tcpfluid"


def _examples() -> list[list[str]]:
    """The commands of the README's bash blocks after the two commands (split at ``&&``,
    comments dropped)."""
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)[2:]
    out: list[list[str]] = []
    for block in blocks:
        for line in block.splitlines():
            cmd: list[str] = []
            for word in [*shlex.split(line, comments=True), "&&"]:
                if word == "&&":
                    if cmd:
                        out.append(cmd)
                    cmd = []
                else:
                    cmd.append(word)
    return out


EXAMPLES = _examples()


def test_the_readme_has_simulate_and_predict_examples() -> None:
    names = [c[1] for c in EXAMPLES]
    assert "simulate" in names and "predict" in names


@pytest.mark.parametrize("cmd", [c for c in EXAMPLES if c[1] == "simulate"], ids=" ".join)
def test_simulate_examples_name_parameters_their_law_and_scenario_accept(
    cmd: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # each line through the command's entry point, cut to half a second of simulated time
    # (the last --set wins; the packet lines are long): a scenario, algorithm mix or --set
    # key the command does not accept ends with an error before any run
    assert main([*cmd[1:], "--set", "duration=0.5s"]) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert out.strip() and "Traceback" not in err


def _quick(cmd: list[str]) -> bool:
    """Lines that run in a few seconds: the closed forms and fluid (non-packet) runs."""
    if cmd[1] == "predict":
        return True
    return cmd[1] == "simulate" and "packet" not in cmd


QUICK = [c for c in EXAMPLES if _quick(c)]


@pytest.mark.parametrize("cmd", QUICK, ids=" ".join)
def test_short_examples_run(cmd: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    # the command's own entry point, in this process: what the console script calls
    assert cmd[0] == ".venv/bin/tcpfluid"
    assert main(cmd[1:]) == 0
    out, err = capsys.readouterr()
    assert out.strip() and "Traceback" not in err


def test_a_short_example_runs_through_the_console_script() -> None:
    # the installed script itself, on the README's closed-form line (a named algorithm list)
    cmd = next(c for c in QUICK if c[1] == "predict" and "-a" in c)
    assert SCRIPT.is_file(), f"console script {SCRIPT} not installed (pip install -e .)"
    res = subprocess.run(
        [str(SCRIPT), *cmd[1:]], capture_output=True, text=True, timeout=300, check=False
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() and "Traceback" not in res.stderr


def test_the_files_the_examples_write_are_ignored_by_git() -> None:
    """After the examples a checkout stays clean: every file they write (``--out``, the
    plot's default image next to its table) is in ``.gitignore``."""
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    parser = build_parser()
    written = []
    for cmd in EXAMPLES:
        args = parser.parse_args(cmd[1:])
        if cmd[1] == "sweep":
            written.append(Path(args.out))
        elif cmd[1] == "plot":
            written.append(Path(args.out) if args.out else Path(args.table).with_suffix(".png"))
    assert written
    for path in written:
        assert f"/{path.as_posix()}" in ignored, f"{path} is written by a README example"
