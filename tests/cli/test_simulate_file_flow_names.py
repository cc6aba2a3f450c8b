"""``tcpfluid simulate FILE -a ...``: a flow the file names after its algorithm is named
after the law ``--algorithm`` gives it (numbered as if the file had named that law); a
name the file gives is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tcpfluid.cli import main

FILE = """\
name = "names"
duration = "2s"

[[link]]
name = "bottleneck"
rate = "10Mbps"
delay = "10ms"
buffer = 50

[[flow]]
algorithm = "vegas"
count = 2
rtt = "60ms"

[[flow]]
algorithm = "reno"
rtt = "60ms"

[[flow]]
name = "bulk"
algorithm = "reno"

[[flow]]
name = "ftp"
algorithm = "reno"
count = 2
"""


def _names(tmp_path: Path, capsys: Any, *algorithm: str) -> list[str]:
    path = tmp_path / "names.toml"
    path.write_text(FILE)
    assert main(["simulate", str(path), *algorithm, "-q", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return list(out["flow_names"])


@pytest.mark.parametrize(
    ("algorithm", "names"),
    [
        # the file's own laws: its own names
        ((), ["vegas-1", "vegas-2", "reno-1", "bulk", "ftp-1", "ftp-2"]),
        # every flow Vegas: the third flow, "reno-1" by its law, is the third Vegas flow;
        # "bulk" and "ftp-N" are the file's names
        (("-a", "vegas"), ["vegas-1", "vegas-2", "vegas-3", "bulk", "ftp-1", "ftp-2"]),
        # a mix: the first flow Reno (the first Reno flow), then Vegas for the others
        (("-a", "reno:1,vegas:5"), ["reno-1", "vegas-1", "vegas-2", "bulk", "ftp-1", "ftp-2"]),
    ],
)
def test_flows_named_after_their_law_take_the_new_laws_names(
    tmp_path: Path, capsys: Any, algorithm: tuple[str, ...], names: list[str]
) -> None:
    assert _names(tmp_path, capsys, *algorithm) == names
