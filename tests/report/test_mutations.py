"""The report catches deliberate faults (benchmarks/mutations.py, scaled down): a fault
injected by monkeypatching in a spawned worker must flip a row to DIFFERS."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "mutations.py"


def _module() -> Any:
    spec = importlib.util.spec_from_file_location("benchmark_mutations", _PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
