"""tcpfluid's pytest plugin: registered, cheap to import, its options (the example project,
which runs the packet simulator, is validation/'s ``test_example_analyst_checks.py``).

The plugin is exercised as an analyst uses it: pytest runs in a subprocess on test files
with no conftest, the fixtures coming from the installed package's ``pytest11`` entry point.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

HEAVY = ("numba", "pandas", "scipy", "sympy", "matplotlib")


def _pytest(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(path), *args],
        capture_output=True,
        text=True,
        cwd=path if path.is_dir() else path.parent,
        timeout=600,
    )


def test_entry_point_names_the_plugin() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert eps.get("tcpfluid") == "tcpfluid.pytest_plugin"


def test_importing_the_plugin_loads_no_heavy_library() -> None:
    code = (
        "import sys; import tcpfluid.pytest_plugin; "
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def _project(tmp_path: Path, body: str) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -ra --strict-markers\n")
    (tmp_path / "test_checks.py").write_text(textwrap.dedent(body))
    return tmp_path


def test_session_cache_engines_option_and_quick(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        """
        import pytest

        SETS = {"bandwidth": "10Mbps", "rtt": "50ms", "cbr": "none", "duration": "20s"}

        def test_first(tcpfluid):
            tcpfluid.assert_matches_closed_form(
                "qv-basic", ["settled_window"], engines=["rounds"], algorithm="vegas",
                sets=SETS, tolerance=tcpfluid.Tolerance(rel=0.02, reason="mu*d + alpha"))

        def test_second_is_served_from_the_cache(tcpfluid):
            misses = tcpfluid.cache.misses
            tcpfluid.compare("qv-basic", ["rounds"], ["ss_exit_window"],
                             reference="closed-form", algorithm="vegas", sets=SETS)
            assert tcpfluid.cache.misses == misses

        def test_needs_packet(tcpfluid):
            tcpfluid.compare("qv-basic", ["rounds"], algorithm="vegas", sets=SETS)

        @pytest.mark.tcpfluid_slow
        def test_slow(tcpfluid):
            assert not tcpfluid.quick
        """,
    )
    out = _pytest(project, "--tcpfluid-engines=rounds", "--tcpfluid-quick")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed, 2 skipped" in out.stdout
    assert "needs engine(s) packet, not in --tcpfluid-engines=rounds" in out.stdout
    assert "tcpfluid_slow check skipped by --tcpfluid-quick" in out.stdout
    bad = _pytest(project, "--tcpfluid-engines=rounds,pakcet")
    assert bad.returncode != 0 and "unknown engine 'pakcet'" in bad.stderr


def test_a_failing_check_reports_the_layer_and_the_table(tmp_path: Path) -> None:
    project = _project(
        tmp_path,
        """
        def test_settled_window(tcpfluid):
            # the round model settles at a whole window; mu*d + alpha is about 65.6 packets here
            tcpfluid.assert_matches_closed_form(
                "qv-basic", ["settled_window"], engines=["rounds"], algorithm="vegas",
                sets={"bandwidth": "10Mbps", "rtt": "50ms", "cbr": "none", "duration": "30s"},
                tolerance=tcpfluid.Tolerance(rel=0.001, reason="a tenth of a percent"))
        """,
    )
    out = _pytest(project, "--tcpfluid-engines=rounds")
    assert out.returncode == 1
    assert "LayersDisagree: the round model is off on scenario 'qv-basic'" in out.stdout
    assert "tolerance ±0.1 % (a tenth of a percent)" in out.stdout and "FAIL" in out.stdout
