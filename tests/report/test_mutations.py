"""The report catches deliberate faults (benchmarks/mutations.py, scaled down): a fault
injected by monkeypatching in a spawned worker must flip a row to DIFFERS."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

_DIR = Path(__file__).resolve().parents[2] / "benchmarks"


def _module() -> Any:
    # imported by its name from benchmarks/ on sys.path: the spawned workers (which get the
    # parent's sys.path) import it the same way to run its functions
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))
    return importlib.import_module("mutations")


@pytest.mark.mutation
def test_acks_as_large_as_data_packets_flip_the_asymmetric_rows() -> None:
    # the ACK path is the bottleneck (k >= 3): 25 times larger ACKs cut the ACK rate, and
    # with it the throughput, far beyond ±10 % of the paper's Tables I-III
    score = _module().measure(["ack-size"], quick=True, workers=1, sections=("asymmetric",))
    (fault,) = score["faults"]
    assert fault["name"] == "ack-size" and fault["sections"] == ["asymmetric"]
    assert fault["caught"], fault
    assert score["caught"] == 1 and score["mode"] == "quick"


def test_every_fault_names_sections_of_the_report_and_unknown_ones_are_refused() -> None:
    mod = _module()
    from tcpfluid.report import SECTIONS

    assert len(mod.FAULTS) >= 8
    for name, (inject, sections) in mod.FAULTS.items():
        assert callable(inject) and sections, name
        assert set(sections) <= set(SECTIONS), name
    with pytest.raises(ValueError, match="unknown fault 'nope'"):
        mod.measure(["nope"], quick=True, workers=1)
