"""A packet run loads only what it needs: Numba (and the SciPy parts Numba loads itself),
not pandas, SymPy or matplotlib (pandas alone is about 0.25 s of a ``tcpfluid simulate``
process's start-up). Checked on the set of loaded modules in a fresh interpreter; the
results' ``to_frame`` still gives pandas frames, importing pandas when asked."""

from __future__ import annotations

import json
import subprocess
import sys

_PROBE = """
import contextlib, io, json, sys
from tcpfluid.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main({argv!r}) == 0
print(json.dumps(sorted(m for m in ("pandas", "sympy", "matplotlib", "numba") if m in sys.modules)))
"""


def test_packet_run_through_the_cli_loads_no_pandas() -> None:
    argv = ["simulate", "qv-basic", "-a", "vegas", "-e", "packet", "--set", "duration=1s",
            "--json"]  # fmt: skip
    res = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    loaded = json.loads(res.stdout.strip().splitlines()[-1])
    assert loaded == ["numba"]  # the probe sees a heavy module that is loaded


def test_frames_import_pandas_when_asked() -> None:
    import pandas as pd

    from tcpfluid.scenarios import build_scenario
    from tcpfluid.sim import simulate_packets

    res = simulate_packets(build_scenario("qv-basic", duration="1s").with_algorithm("vegas"))
    rounds = res.flows[0].to_frame()
    assert isinstance(rounds, pd.DataFrame)
    assert list(rounds["t_s"]) == list(res.flows[0].round_t_s)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == res.t_s.size
