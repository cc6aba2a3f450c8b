"""The library's structural limits: no module over 600 lines and no function over 120 lines
outside the compiled kernels.

A module's length is its line count (``wc -l``). A function's length runs from its ``def``
line to its last line, less its docstring: a public entry's numpydoc reference of many
options is documentation, not logic (``simulate_packets`` has 72 lines of it).
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "tcpfluid"

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 120

#: the compiled kernels (Numba), exempt from both limits: one compiled function is one
#: call from Python, so a kernel's loop keeps its cases together
KERNEL_MODULES = frozenset(
    {
        # the packet simulator's event loop and its event rules (``run``, ``_on_ack``)
        "sim/_core.py",
        # the hybrid fluid model's time stepping (``advance``)
        "fluid/_hybrid_kernel.py",
        # the round model's bottleneck over one round (``_round_rule`` and its parts)
        "fluid/_rounds_kernel.py",
        # TCP-Ho's per-round decision, a law rule compiled by ``algorithms._jit.Kernel``
        "algorithms/_tcp_ho_rule.py",
    }
)


def _function_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    assert node.end_lineno is not None
    lines = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        if isinstance(first.value.value, str):
            assert first.end_lineno is not None
            lines -= first.end_lineno - first.lineno + 1
    return lines


def too_long(root: Path) -> list[str]:
    """Every module and function of the package ``root`` over its limit, outside
    :data:`KERNEL_MODULES`, as ``"path: name, n lines"``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in KERNEL_MODULES:
            continue
        text = path.read_text(encoding="utf-8")
        n = len(text.splitlines())
        if n > MAX_MODULE_LINES:
            found.append(f"{rel}: module, {n} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                m = _function_lines(node)
                if m > MAX_FUNCTION_LINES:
                    found.append(f"{rel}: {node.name}, {m} lines")
    return found


def test_no_module_or_function_over_its_limit():
    assert too_long(PACKAGE) == []


def test_every_exempt_module_exists():
    for rel in KERNEL_MODULES:
        assert (PACKAGE / rel).is_file(), rel


def test_the_check_finds_a_long_module_and_function(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long.py").write_text(f'def f():\n    """Doc."""\n{body}\n' + "\n" * 500)
    shorter = body[: body.rindex("\n")]  # one line less: at the limit, not over it
    (tmp_path / "short.py").write_text(f'def g():\n    """Doc."""\n{shorter}\n')
    assert too_long(tmp_path) == [
        f"long.py: module, {MAX_FUNCTION_LINES + 502} lines",
        f"long.py: f, {MAX_FUNCTION_LINES + 1} lines",
    ]


@pytest.mark.parametrize("rel", sorted(KERNEL_MODULES))
def test_every_exempt_module_is_compiled(rel):
    text = (PACKAGE / rel).read_text(encoding="utf-8")
    assert "njit" in text or "Kernel(" in text, rel
