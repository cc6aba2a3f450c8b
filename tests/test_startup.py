"""Start-up stays light: ``import tcpfluid`` and ``tcpfluid predict`` load neither SciPy,
SymPy, pandas, matplotlib nor Numba (each costs 0.2-0.8 s to import), and a packet run
loads only what it needs: Numba (and the SciPy parts Numba loads itself), not pandas,
SymPy or matplotlib (pandas alone is about 0.25 s of a ``tcpfluid simulate`` process's
start-up). Checked on the set of loaded modules in a fresh interpreter, not by timing
(``benchmarks/startup.py`` prints the wall times); the packet results' ``to_frame`` still
gives pandas frames, importing pandas when asked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy", "sympy", "pandas", "matplotlib", "numba")

_PROBE = """
import json, sys
{body}
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
"""


def _loaded(body: str, timeout: float = 120.0) -> list[str]:
    code = _PROBE.format(body=body, heavy=HEAVY)
    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=timeout
    )
    return list(json.loads(res.stdout.strip().splitlines()[-1]))


def test_import_tcpfluid_loads_no_heavy_module() -> None:
    assert _loaded("import tcpfluid") == []


def test_probe_sees_a_heavy_import() -> None:
    # the probe itself works: a module that needs SciPy is reported
    assert "scipy" in _loaded("import tcpfluid.fluid.equilibrium")


@pytest.mark.parametrize(
    "argv",
    [
        ["predict", "-a", "vegas", "--bandwidth", "50Mbps", "--rtt", "100ms"],
        ["predict", "-a", "vegas", "--bdp", "625", "--rtt", "0.1", "--json"],
    ],
)
def test_predict_command_loads_no_heavy_module(argv: list[str]) -> None:
    """Closed-form predictions (Vegas, Enhanced Vegas) load none of the heavy modules.
    Quick Vegas's and TCP-Ho's settling times come from the round map, whose compiled law
    rules load Numba: those predictions are not closed forms."""
    body = (
        "import contextlib, io\n"
        "from tcpfluid.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
    )
    assert _loaded(body) == []


def test_packet_run_through_the_cli_loads_no_pandas() -> None:
    argv = ["simulate", "qv-basic", "-a", "vegas", "-e", "packet", "--set", "duration=1s",
            "--json"]  # fmt: skip
    body = (
        "import contextlib, io\n"
        "from tcpfluid.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
    )
    # Numba is loaded (the probe sees a heavy module that is), SciPy may be (Numba's own)
    assert set(_loaded(body, timeout=300.0)) - {"scipy"} == {"numba"}


def test_packet_frames_import_pandas_when_asked() -> None:
    import pandas as pd

    from tcpfluid.scenarios import build_scenario
    from tcpfluid.sim import simulate_packets

    res = simulate_packets(build_scenario("qv-basic", duration="1s").with_algorithm("vegas"))
    rounds = res.flows[0].to_frame()
    assert isinstance(rounds, pd.DataFrame)
    assert list(rounds["t_s"]) == list(res.flows[0].round_t_s)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == res.t_s.size


def test_lazy_attributes_still_resolve() -> None:
    # every submodule the package lists in __all__ (the heavy ones, ``sim`` and ``fluid``
    # among them, loaded on first access: see the probes above) is an attribute
    import pkgutil

    import tcpfluid

    submodules = {m.name for m in pkgutil.iter_modules(tcpfluid.__path__)}
    listed = [name for name in tcpfluid.__all__ if name in submodules]
    assert {"sim", "fluid", "report", "sweep"} <= set(listed)
    for name in listed:
        assert getattr(tcpfluid, name).__name__ == f"tcpfluid.{name}"
