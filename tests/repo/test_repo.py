"""The repository's contracts: README commands, CI script, API reference, README example."""

import re
from pathlib import Path

from tcpfluid import _apidoc

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_readme_opens_with_the_two_commands_and_ci_runs_the_second():
    blocks = _bash_blocks(README)
    main_job, tests = blocks[0].strip(), blocks[1].strip()
    assert "tcpfluid report" in main_job and "pip install -e ." in main_job
    assert "pytest" in tests and "'.[dev]'" in tests
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    ci_lines = [ln.strip() for ln in ci.splitlines() if ln.strip() and not ln.startswith("#")]
    assert tests in ci_lines, "the README's test command and .ci/run must be the same line"
    # the two commands come before any other section of the README
    assert README.index(main_job) < README.index("## ")


def test_api_reference_is_current():
    # regenerate with: python -m tcpfluid._apidoc
    assert _apidoc.render() == (ROOT / "docs" / "api.md").read_text(encoding="utf-8")


def test_every_public_name_exists():
    import importlib

    for modname in _apidoc.MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", []):
            assert hasattr(mod, name), f"{modname}.__all__ lists missing {name!r}"


def test_readme_python_example_runs():
    (block,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md", "exec"), namespace)
    results = namespace["results"]
    # the numbers the README's comments quote (the Quick Vegas paper says 59 s), on every engine
    for res in results.values():  # type: ignore[attr-defined]
        assert abs(res.summary.to_dict()["time_to_equilibrium_s"] - 57.5) < 0.3
        assert abs(res.summary.to_dict()["settled_window"] - 629) < 1.5


def _shell_commands(block: str) -> list[list[str]]:
    """The commands of a bash block: one per line, split at ``&&``, comments dropped."""
    import shlex

    out: list[list[str]] = []
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        cmd: list[str] = []
        for w in [*words, "&&"]:
            if w == "&&":
                if cmd:
                    out.append(cmd)
                cmd = []
            else:
                cmd.append(w)
    return out


def test_readme_shell_lines_work_after_the_two_commands():
    # after `python3 -m venv .venv && .venv/bin/pip install -e .` only .venv/bin/tcpfluid
    # exists (no activation): every example calls it by that path, with options the
    # command accepts, on files the repository has
    from tcpfluid.cli import build_parser

    blocks = _bash_blocks(README)
    examples = [c for b in blocks[2:] for c in _shell_commands(b)]
    assert len(examples) >= 6
    parser = build_parser()
    for cmd in examples:
        assert cmd[0] == ".venv/bin/tcpfluid", f"not runnable after the two commands: {cmd}"
        args = parser.parse_args(cmd[1:])  # exits (SystemExit) on an unknown option
        for value in vars(args).values():
            if isinstance(value, str) and value.endswith((".toml", ".json")):
                assert (ROOT / value).is_file(), f"{cmd}: {value} is not in the repository"
    # the main job does not write into the tracked figures/; refreshing them is separate
    main_job = _shell_commands(blocks[0])[-1]
    assert main_job[0] == ".venv/bin/tcpfluid" and "--figures" not in main_job
    assert any("--figures" in c for c in examples)


def test_main_job_outputs_are_ignored_by_git():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    for out in ("/report/", "/report-quick/"):
        assert out in ignored
