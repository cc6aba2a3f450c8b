"""The report catches deliberate faults (benchmarks/mutations.py, scaled down): a fault
injected by monkeypatching in a spawned worker must flip a row that agrees without it to
DIFFERS. One measurement of the eight faults (each on the sections named here, the
smallest set of its sections that shows it), judged fault by fault."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

_DIR = Path(__file__).resolve().parents[1] / "benchmarks"

#: each fault's sections in this scaled-down measurement (a subset of its sections in
#: benchmarks/mutations.py)
_SECTIONS = {
    "vegas-alpha": ("new-equilibrium",),
    "rounds-queue": ("convergence-bdp",),
    "packet-delay": ("asymmetric",),
    "feedback-lag": ("convergence-bdp",),
    "ack-size": ("asymmetric",),
    "red-max-p": ("thesis-many-flows",),
    "tcp-ho-table2": ("conspicuous",),
    "qv-succ": ("new-equilibrium",),
}


def _module() -> Any:
    # imported by its name from benchmarks/ on sys.path: the spawned workers (which get the
    # parent's sys.path) import it the same way to run its functions
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))
    return importlib.import_module("mutations")


@pytest.fixture(scope="module")
def score() -> dict[str, Any]:
    mod = _module()
    out = mod.measure(list(mod.FAULTS), quick=True, workers=2, sections=_SECTIONS)
    return {f["name"]: f for f in out["faults"]}


@pytest.mark.mutation
@pytest.mark.parametrize(
    "fault",
    list(_SECTIONS),
)
def test_the_report_catches_the_fault(score: dict[str, Any], fault: str) -> None:
    found = score[fault]
    assert found["sections"] == list(_SECTIONS[fault]), found
    assert found["caught"], found


def test_every_fault_names_sections_of_the_report_and_unknown_ones_are_refused() -> None:
    mod = _module()
    from tcpfluid.report import SECTIONS

    assert set(mod.FAULTS) == set(_SECTIONS)
    for name, (inject, sections) in mod.FAULTS.items():
        assert callable(inject) and sections, name
        assert set(sections) <= set(SECTIONS), name
        assert set(_SECTIONS[name]) <= set(sections), name
    with pytest.raises(ValueError, match="unknown fault 'nope'"):
        mod.measure(["nope"], quick=True, workers=1)


def test_every_fault_lands_on_the_code_it_names() -> None:
    # each injection patches functions by name: a renamed or removed target must fail here,
    # not leave a fault that changes nothing (run in a fresh interpreter: it patches)
    import subprocess

    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import mutations\n"
        "for name, (inject, _) in mutations.FAULTS.items():\n"
        "    inject(); print(name)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(_DIR)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == list(_SECTIONS)
